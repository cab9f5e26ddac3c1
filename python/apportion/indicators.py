"""The built-in kernels as functions (docs/kernels.md for what each computes).

Each takes one series (1-D) or rows x samples (2-D) of float64, any array-like, or a pandas
Series or DataFrame (whose columns are the series), and returns a named tuple of outputs
shaped like the input; arrays on a GPU (CuPy, PyTorch, numba.cuda: docs/python.md, "Device
arrays") are read where they lie and give DeviceArrays on the same GPU. A parameter given as a range, list, tuple or array is swept: the
outputs gain a leading axis of sets, in the order of the cross product of the swept values
(the first swept parameter varies slowest). ``out=`` takes preallocated float64 arrays
(C-contiguous, writable, of the output's size) which are written in place and returned.
``runtime=`` picks a Runtime (default: apportion.default_runtime()). A 2-D array needs
``axis=``, the axis its bars run along: 1 when each row is a series, 0 when each column is
one (bars x series, as DataFrame.to_numpy() gives; outputs come back so). ``use_dynamic=True``
lets thresholds.json choose CPU or GPU for this call (apo_should_use_gpu()).
"""

from collections.abc import Mapping

from ._arrays import named_inputs
from ._default import default_runtime
from .runtime import grouped_inputs


def _dynamic_ratios(rt, kernel, params, x, axis=None):
    """Ratios that keep the call on the CPU side or on the GPUs, as thresholds.json says
    (ThreadX's use_dynamic); None (the runtime's own split) when it has no timings, when a
    parameter is swept or when there is no GPU to choose."""
    if any(isinstance(v, (range, list, tuple)) for v in params.values()):
        return None
    devices = rt.devices()
    gpus = [d["kind"] == "cuda" for d in devices]
    if not any(gpus) or all(gpus):
        return None
    from ._arrays import as_input

    cols = as_input(x, axis)[0].shape[-1]  # samples a series (the longest, for different lengths)
    use_gpu = rt.should_use_gpu(kernel, cols, **{k: v for k, v in params.items() if v is not None})
    if use_gpu is None:
        return None
    return [1.0 if g == use_gpu else 0.0 for g in gpus]


def _call(kernel, x, params, out, runtime, use_dynamic, seed=0, named=None, axis=None, by=None, time=None):
    """One kernel call on ``x`` (the one input, or a DataFrame or mapping holding every
    input by name) or on the arrays of ``named`` ({input name: array or None}), the inputs
    taken by the kernel's input names (docs/python.md, "Several inputs"), so that a
    kernel's function is one line whatever its inputs. ``axis`` is the axis a 2-D array's
    bars run along (docs/python.md, "Arrays")."""
    rt = runtime if runtime is not None else default_runtime()
    names = (rt._kinds_cache.get(kernel) or rt._kernel(kernel))[4]
    if by is not None:
        if named and any(v is not None for v in named.values()):
            raise TypeError(f"kernel {kernel}: by= reads the inputs from the frame's columns, not by keyword")
        inputs = grouped_inputs(rt, kernel, (x,), by, time)
        return rt._apply(kernel, inputs, params, out, seed, None, axis=axis)
    if time is not None:
        raise TypeError("time= names the time column of a long frame grouped with by=")
    inputs = (x,) if len(names) == 1 and not named and not isinstance(x, Mapping) else named_inputs(kernel, names, x, named)
    ratios = _dynamic_ratios(rt, kernel, params, inputs[0], axis) if use_dynamic else None
    return rt._apply(kernel, inputs, params, out, seed, ratios, axis=axis)


def bollinger(x, period=20, nbdev_up=2, nbdev_dn=2, *, out=None, runtime=None, use_dynamic=False, axis=None, by=None, time=None):
    """Bollinger bands: (upper, middle, lower), the rolling mean of ``period`` samples plus
    ``nbdev_up`` and minus ``nbdev_dn`` rolling population standard deviations; the first
    period - 1 samples are NaN."""
    return _call("bollinger", x, {"period": period, "nbdev_up": nbdev_up, "nbdev_dn": nbdev_dn}, out, runtime, use_dynamic, axis=axis, by=by, time=time)


class _Default(int):
    """A parameter's default value, told apart from the same value given by the caller, so
    that a parameter given under both its name and its old name is refused (as the library
    refuses it) while the signature still shows the number."""

    __slots__ = ()


def _old_names(kernel, params, old):
    """``params`` with the values given under older names in place: ``old`` maps a
    parameter's name to (its old name, the value given under it, or None). A parameter given
    under both names raises TypeError; defaults are passed on as plain ints."""
    for name, (old_name, value) in old.items():
        if value is None:
            continue
        if not isinstance(params[name], _Default):
            raise TypeError(f"{kernel}() got {name} and its old name {old_name}: give one")
        params[name] = value
    return {name: int(v) if isinstance(v, _Default) else v for name, v in params.items()}


def macd(
    x,
    fastperiod=_Default(12),
    slowperiod=_Default(26),
    signalperiod=_Default(9),
    *,
    out=None,
    runtime=None,
    use_dynamic=False,
    axis=None,
    by=None,
    time=None,
    fast=None,
    slow=None,
    signal=None,
):
    """MACD: (macd, signal, hist) from exponential moving averages of ``fastperiod`` and
    ``slowperiod`` samples and the ``signalperiod`` average of their difference (TA-Lib's
    names and defaults, 12, 26 and 9). ``fast``, ``slow`` and ``signal``, the names these
    parameters had before, are still taken as keywords with the same values; a parameter
    given under both of its names raises TypeError."""
    params = _old_names(
        "macd",
        {"fastperiod": fastperiod, "slowperiod": slowperiod, "signalperiod": signalperiod},
        {"fastperiod": ("fast", fast), "slowperiod": ("slow", slow), "signalperiod": ("signal", signal)},
    )
    return _call("macd", x, params, out, runtime, use_dynamic, axis=axis, by=by, time=time)


def returns_stats(x, *, out=None, runtime=None, use_dynamic=False, axis=None, by=None, time=None):
    """Per series: (count, mean, variance, min, max) of the finite samples."""
    return _call("returns_stats", x, {}, out, runtime, use_dynamic, axis=axis, by=by, time=time)


def bootstrap(x, replicates=1000, *, seed=0, out=None, runtime=None, use_dynamic=False, axis=None, by=None, time=None):
    """Per series: (means, mean, stderr) of ``replicates`` bootstrap resamples of the mean,
    drawn from ``seed`` (the same seed gives the same bits on any devices)."""
    return _call("bootstrap", x, {"replicates": replicates}, out, runtime, use_dynamic, seed=seed, axis=axis, by=by, time=time)


def compute(kernel, *inputs, out=None, runtime=None, seed=0, axis=None, by=None, time=None, **params):
    """Any kernel by name, built-in or registered on the runtime, with its parameters;
    ``by`` and ``time`` group a long Arrow frame (docs/python.md, "Long frames")."""
    rt = runtime if runtime is not None else default_runtime()
    return rt.compute(kernel, *inputs, out=out, seed=seed, axis=axis, by=by, time=time, **params)
