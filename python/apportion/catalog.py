"""The indicator catalog as functions, one per kernel, with TA-Lib's names, parameters and
defaults (docs/kernels.md, "The catalog", defines each).

The functions are made at import from the library's own descriptors (apo_kernel_get():
inputs, outputs, parameters with defaults and bounds), so a kernel added to the C catalog
is a function here with no Python edit (docs/python.md, "The catalog"). A kernel of one
input takes it first: one series (1-D), rows x samples (2-D) or a pandas Series or
DataFrame whose columns are the series, as ``bollinger`` does. A kernel of several inputs
(``high``, ``low``, ``close``, ``volume``; ``x`` and ``y`` for pairs) takes a DataFrame or
mapping holding them by name, in any case, as its first argument, or the arrays by keyword
(docs/python.md, "Several inputs"). Every function returns a named tuple of the kernel's
outputs; a parameter given as a range or list is swept; ``out=``, ``runtime=``,
``use_dynamic=`` and ``axis=`` (a 2-D array's bars axis) are those of ``bollinger``.

A kernel's name works in any case, as in the C API and the command line:
``apportion.catalog.RSI`` is ``apportion.catalog.rsi`` (module ``__getattr__``), without
the upper-case names being listed in ``__all__`` or ``dir()``.
"""

import inspect
import keyword

from . import _core
from .indicators import _call

# The built-ins whose functions indicators.py writes by hand: their parameters are
# apportion's own (period, fast, replicates), not TA-Lib's, and bootstrap takes a seed.
_HAND_WRITTEN = frozenset({"bollinger", "macd", "returns_stats", "bootstrap"})
# The keyword-only options every kernel's function takes after its inputs, with defaults.
_OPTIONS = (("out", None), ("runtime", None), ("use_dynamic", False), ("axis", None), ("by", None), ("time", None))
# The first argument: the one input, or the frame or mapping holding several.
_ONE_INPUT, _SEVERAL_INPUTS = "x", "bars"

_P = inspect.Parameter


def _descriptors():
    """Every built-in kernel's apo_kernel_info as a dict (Runtime.kernel_info), read from a
    runtime of the CPU alone that learns and stores nothing: the built-ins are the same on
    every runtime, and the default runtime (devices from the environment) is not made by
    importing the package."""
    with _core.Runtime("cpu", cpu_threads=1, use_gpu="no", profiles=False, learn=False) as rt:
        infos = [rt.kernel_info(name) for name in rt.kernels()]
    return [info for info in infos if info["builtin"]]


def _default(value):
    """A default as the signature shows it: a whole number as an int (``timeperiod=14``,
    ``nbdev=1``), as TA-Lib's Python functions write them; else the float."""
    return int(value) if float(value).is_integer() else value


def _bounds_text(lo, hi, integer):
    """A parameter's accepted values in words, from its descriptor's bounds."""
    what = "a whole number" if integer else "a number"
    if lo <= -1e300 and hi >= 1e300:
        return f"{what}, any finite value"
    if lo == hi:
        return f"{_default(lo)} only"
    return f"{what} from {_default(lo)} to {_default(hi)}"


def _why_not(info):
    """Why a descriptor cannot be a Python function (a name that is no identifier, a
    keyword, or a name taken twice), or None: the test suite lists what this refuses."""
    names = [info["name"], *info["params"], *(info["inputs"] if len(info["inputs"]) > 1 else ())]
    for n in names:
        if not n.isidentifier() or keyword.iskeyword(n):
            return f"{n!r} is not a Python name"
    first = _ONE_INPUT if len(info["inputs"]) == 1 else _SEVERAL_INPUTS
    taken = [first, *info["params"], *(info["inputs"] if len(info["inputs"]) > 1 else ()), *(o for o, _ in _OPTIONS)]
    twice = {n for n in taken if taken.count(n) > 1}
    if twice:
        return f"{sorted(twice)} named twice"
    if info["name"] in globals():
        return f"{info['name']!r} is a name of apportion.catalog's own"
    return None


def signature_of(info):
    """The signature of a kernel's function, from its descriptor: the input (``x``) or the
    frame of inputs (``bars=None``) first, the parameters with their defaults, then by
    keyword only the inputs of a kernel of several, and the call's options."""
    several = len(info["inputs"]) > 1
    first = _P(_SEVERAL_INPUTS, _P.POSITIONAL_OR_KEYWORD, default=None) if several else _P(_ONE_INPUT, _P.POSITIONAL_OR_KEYWORD)
    params = [_P(n, _P.POSITIONAL_OR_KEYWORD, default=_default(d)) for n, d in info["params"].items()]
    named = [_P(n, _P.KEYWORD_ONLY, default=None) for n in info["inputs"]] if several else []
    options = [_P(n, _P.KEYWORD_ONLY, default=d) for n, d in _OPTIONS]
    return inspect.Signature([first, *params, *named, *options])


def _doc(info):
    """The docstring of a kernel's function, from its descriptor alone."""
    name, inputs, outputs = info["name"], info["inputs"], info["outputs"]
    if len(inputs) == 1:
        takes = f"Input: {inputs[0]}, the first argument (a series, rows x samples, or pandas)."
    else:
        takes = (f"Inputs: {', '.join(inputs)}: a DataFrame or mapping holding them by name\n"
                 "(any case) as the first argument, or the arrays by keyword.")
    lines = [f"{name.upper()}: the catalog's {name} (TA-Lib's {name.upper()}).", "", takes,
             f"Outputs: a named tuple ({', '.join(outputs)}).", ""]
    if info["params"]:
        lines.append("Parameters (a range, list or array is swept):")
        for p, d in info["params"].items():
            lines.append(f"    {p}={_default(d)}: {_bounds_text(*info['bounds'][p])}")
    else:
        lines.append("Parameters: none.")
    lines += ["", "out=, runtime=, use_dynamic= and axis= are bollinger's (docs/python.md);",
              "by= and time= group a long polars or pyarrow frame by its key column.",
              'Defined in docs/kernels.md, "The catalog".']
    return "\n".join(lines) + "\n"


_TEMPLATE = """\
def {name}({args}):
    return _call({name!r}, {first}, {{{params}}}, out, runtime, use_dynamic, axis=axis, by=by, time=time{named})
"""


def _function(info):
    """A kernel's function: Python source written from the descriptor and compiled, so that
    its arguments are parsed as any function's are (no per-call binding) and
    inspect.signature() reads the real one; the defaults are passed in, never printed."""
    sig = signature_of(info)
    name = info["name"]
    defaults = {}
    args = []
    for p in sig.parameters.values():
        if p.kind is _P.KEYWORD_ONLY and not any(a == "*" for a in args):
            args.append("*")
        if p.default is _P.empty:
            args.append(p.name)
        else:
            defaults[f"_default_{len(defaults)}"] = p.default
            args.append(f"{p.name}=_default_{len(defaults) - 1}")
    several = len(info["inputs"]) > 1
    source = _TEMPLATE.format(
        name=name,
        args=", ".join(args),
        first=_SEVERAL_INPUTS if several else _ONE_INPUT,
        params=", ".join(f"{p!r}: {p}" for p in info["params"]),
        named=", named={" + ", ".join(f"{i!r}: {i}" for i in info["inputs"]) + "}" if several else "",
    )
    namespace = {"_call": _call, **defaults}
    exec(compile(source, f"<apportion.catalog: {name}>", "exec"), namespace)
    fn = namespace[name]
    fn.__module__ = __name__
    fn.__qualname__ = name
    fn.__doc__ = _doc(info)
    fn.__signature__ = sig
    return fn


# What the library describes and this module could not make a function of: {name: why}.
# Empty unless a catalog row names something Python cannot (python/tests/test_catalog.py).
unexpressible = {}


def _make_all():
    made = {}
    for info in _descriptors():
        if info["name"] in _HAND_WRITTEN:
            continue
        why = _why_not(info)
        if why is not None:
            unexpressible[info["name"]] = why
            continue
        made[info["name"]] = _function(info)
    return made


_functions = _make_all()
globals().update(_functions)
# max and min keep TA-Lib's names: inside this module they shadow the builtins, which no
# code here uses after this point.
__all__ = list(_functions)


def find(name):
    """The function of a kernel, its name in any case (``"RSI"``, ``"Rsi"``), or None."""
    return _functions.get(name.lower())


def __getattr__(name):
    """A kernel's function under its name in another case: ``RSI`` is ``rsi``."""
    fn = find(name) if name != name.lower() else None
    if fn is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return fn
