"""ThreadX's calls over apportion (docs/python.md, "The ThreadX calls").

A ThreadX program changes its import line and nothing else::

    from apportion.threadx import (get_default_manager, get_gpu_thresholds,
                                   update_gpu_threshold_entry, update_multigpu_ratio_profile)

The calls read and write the files the C library and the apportion tool use,
``multigpu.json`` and ``thresholds.json``, found as they find them (THREADX_MULTIGPU_PROFILE_PATH
and THREADX_GPU_THRESHOLD_PATH included, docs/profiles.md). Nothing is computed here: each
call is one of the library's.
"""

import ast
import math
import re
import threading

import numpy as np

from ._default import default_runtime
from .indicators import bollinger, macd  # noqa: F401  (use_dynamic=True, as ThreadX's)

# ThreadX's function names for the kernels they became; other names are kept as they are.
FUNCTION_ALIASES = {"bollinger_bands": "bollinger", "calculate_bollinger_bands": "bollinger", "calculate_macd": "macd"}
_GPU_NAME = re.compile(r"^(?:GPU|gpu|cuda)[:_]?(\d+)$")


def _kernel_name(name):
    return FUNCTION_ALIASES.get(name, name)


def _device_id(name):
    """ThreadX's device names ("GPU0", "CPU") as apportion's ids ("cuda:0", "cpu")."""
    m = _GPU_NAME.match(name)
    if m:
        return "cuda:" + m.group(1)
    return "cpu" if name.lower() == "cpu" else name


class WorkloadManager:
    """ThreadX's manager: profiling, ratios and distributed calls on one runtime (by default
    apportion.default_runtime(), the one the module-level functions use)."""

    def __init__(self, runtime=None):
        self._runtime = runtime
        self._kernels = {}
        self._lock = threading.Lock()

    @property
    def runtime(self):
        return self._runtime if self._runtime is not None else default_runtime()

    def devices(self):
        return self.runtime.devices()

    def profile_auto_balance(self, sample_size=100000, runs=3, workload_tag="default", kernel=None, seed=0, **params):
        """Profiles the workload of ``workload_tag`` on every device (apo_profile_auto_balance()),
        applies the split and stores it in multigpu.json and the timings in thresholds.json.
        The kernel is ``kernel``, else the one the tag names or begins with
        ("bollinger_computation" profiles bollinger). Returns {device id: ratio}."""
        rt = self.runtime
        kernel = kernel or self._kernel_of_tag(rt, workload_tag)
        result = rt.profile(tag=workload_tag, kernel=kernel, params=params or None, sample_size=sample_size, runs=runs, seed=seed)
        return {d["id"]: d["ratio"] for d in result["devices"]}

    @staticmethod
    def _kernel_of_tag(rt, tag):
        kernels = rt.kernels()
        if tag in kernels:
            return tag
        prefixed = [k for k in kernels if tag.startswith(k + "_")]
        if prefixed:
            return max(prefixed, key=len)
        if tag in FUNCTION_ALIASES:
            return FUNCTION_ALIASES[tag]
        raise ValueError(f"workload tag {tag!r} names no kernel ({', '.join(kernels)}); pass kernel=")

    def distribute_workload(self, data, process_function, seed=None, workload_tag=None, axis=None, **params):
        """Runs ``process_function`` over ``data`` split across the devices, in the ratios
        of ``workload_tag``'s profile (default: the kernel's own name).

        ``process_function`` is a kernel name ("bollinger", with its parameters as keyword
        arguments: the outputs come back as the named tuple of apportion.compute), or a
        Python callable ``f(chunk) -> array of len(chunk)`` applied to consecutive pieces
        of each series (the library's tiles) on the cpu, holding the GIL: slow, and
        correct for a function of each sample's own piece only. Its results are put back
        in place and returned as one array shaped like ``data``. ``seed`` (None: 0) keys the
        random draws of kernels that draw (bootstrap). A 2-D ``data`` needs ``axis``, the axis
        its bars run along, as every call of the package (docs/python.md, "Arrays")."""
        rt = self.runtime
        seed = 0 if seed is None else seed
        if isinstance(process_function, str):
            return rt.compute(_kernel_name(process_function), data, seed=seed, tag=workload_tag, axis=axis, **params)
        if not callable(process_function):
            raise TypeError("process_function must be a kernel name or a callable")
        name = self._register_callable(rt, process_function)
        return rt.compute(name, data, seed=seed, tag=workload_tag or name, axis=axis).out0

    def _register_callable(self, rt, fn):
        with self._lock:
            entry = self._kernels.get(id(fn))
            if entry is not None and entry[0] is fn:
                return entry[1]
            name = "threadx_fn_%d" % len(self._kernels)

            def tile(inputs, outputs, row, begin, end, params, seed):
                piece = np.asarray(fn(inputs[0][row, begin:end]), dtype=np.float64)
                if piece.shape != (end - begin,):
                    raise ValueError(f"process_function returned shape {piece.shape} for a piece of {end - begin} samples")
                outputs[0][row, begin:end] = piece

            rt.register_kernel(name, tile)
            self._kernels[id(fn)] = (fn, name)  # keeps fn alive, so its id is not reused
            return name

    def get_device_ratios(self, workload_tag):
        """The stored ratios of a tag, {device id: ratio} ({} when none)."""
        for entry in self.runtime.profile_entries():
            if entry["tag"] == workload_tag:
                return {d["id"]: d["ratio"] for d in entry["devices"] if not math.isnan(d["ratio"])}
        return {}


_manager_lock = threading.Lock()
_manager = None


def get_default_manager():
    """The process's manager, created once (whichever threads ask at the same time)."""
    global _manager
    with _manager_lock:
        if _manager is None:
            _manager = WorkloadManager()
        return _manager


def _fresh_reader():
    """A runtime that reads the profile files as they are now (another process may have
    written them since the default runtime was created); it learns and writes nothing."""
    from .runtime import Runtime

    return Runtime("cpu", learn=False, use_gpu="no")


def _number_text(value):
    """A parameter's value as a threshold key writes it (docs/profiles.md, "Keys"): an
    integer of magnitude up to 2**53 without a decimal point, any other value as the
    shortest text that reads back to the same double."""
    v = float(value)
    if v.is_integer() and abs(v) <= 2**53:
        return str(int(v))
    return repr(v)


def _canonical_key(key, kernel_params):
    """The key apportion stores for a key written the ThreadX way: "function:{params}"
    with ThreadX's function name ("bollinger_bands") and only the parameters given, in any
    order. None when ``key`` has no such form. ``kernel_params(kernel)`` gives a kernel's
    {name: default} (None for a function that is no kernel: its parameters stay as given)."""
    if not isinstance(key, str) or ":" not in key:
        return None
    function, _, text = key.partition(":")
    try:
        params = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if not isinstance(params, dict):
        return None
    if not all(isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool) for k, v in params.items()):
        return None
    function = _kernel_name(function)
    full = dict(kernel_params(function) or {})
    full.update(params)
    inner = ", ".join(f"'{name}': {_number_text(full[name])}" for name in sorted(full))
    return f"{function}:{{{inner}}}"


class ThresholdEntries(dict):
    """The entries of thresholds.json, keyed as the file keys them, and found as well by the
    key a ThreadX caller wrote for the same measurement: ``entries["bollinger_bands:{'period':
    20, 'size': 10000}"]`` is the entry stored as ``"bollinger:{'nbdev_dn': 2, 'nbdev_up': 2,
    'period': 20, 'size': 10000}"`` (the function's apportion name, its other parameters at
    their defaults). Iterating gives the stored keys."""

    def __init__(self, entries, kernel_params):
        super().__init__(entries)
        self._kernel_params = kernel_params

    def _stored_key(self, key):
        if dict.__contains__(self, key):
            return key
        canonical = _canonical_key(key, self._kernel_params)
        return canonical if canonical is not None and dict.__contains__(self, canonical) else None

    def __missing__(self, key):
        stored = self._stored_key(key)
        if stored is None:
            raise KeyError(key)
        return dict.__getitem__(self, stored)

    def __contains__(self, key):
        return self._stored_key(key) is not None

    def get(self, key, default=None):
        stored = self._stored_key(key)
        return default if stored is None else dict.__getitem__(self, stored)


def get_gpu_thresholds():
    """thresholds.json as it is now, in ThreadX's shape: {"updated_at": when it was last
    written (an RFC 3339 timestamp in UTC, None when unknown), "entries": {key: {"cpu_ms_avg",
    "gpu_ms_avg", "samples"}}}, a time None where that side was never measured. The entries
    are keyed as docs/profiles.md gives the keys, and found as well by the key a ThreadX
    caller wrote (ThresholdEntries)."""
    with _fresh_reader() as rt:
        entries = rt.thresholds()
        updated_at = rt.profile_files()["thresholds_updated_at"] or None
        kernels = set(rt.kernels())
        defaults = {k: dict(rt.kernel_info(k)["params"]) for k in kernels}
    table = {e["key"]: {"cpu_ms_avg": e["cpu_ms_avg"], "gpu_ms_avg": e["gpu_ms_avg"], "samples": e["samples"]} for e in entries}
    return {"updated_at": updated_at, "entries": ThresholdEntries(table, defaults.get)}


def update_gpu_threshold_entry(function_name, params, cpu_ms, gpu_ms):
    """Adds a measurement to thresholds.json (apo_threshold_record()): ``params`` holds the
    function's parameters and ``size``, the samples of the series timed; ``cpu_ms`` and
    ``gpu_ms`` in milliseconds (None: not measured). Averaged into the entry's earlier
    measurements; the default runtime decides CPU or GPU from it at once (use_dynamic)."""
    params = dict(params)
    if "size" not in params:
        raise ValueError("params needs 'size', the samples of the series that was timed")
    size = params.pop("size")
    if size != int(size) or size < 0:
        raise ValueError(f"size must be a whole number of samples, not {size!r}")
    get_default_manager().runtime.record_threshold(_kernel_name(function_name), int(size), cpu_ms, gpu_ms, **params)


def update_multigpu_ratio_profile(ratios, workload_tag):
    """Forces the split of ``workload_tag`` (apo_set_ratios()): {device: ratio} with ThreadX's
    names ("GPU0", "CPU") or apportion's ids; stored in multigpu.json."""
    get_default_manager().runtime.set_ratios(workload_tag, {_device_id(k): float(v) for k, v in ratios.items()})
