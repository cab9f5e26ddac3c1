"""The Runtime class: one libapportion runtime (docs/python.md, "Runtime")."""

import collections
import collections.abc
import os
import sys
import threading
import warnings

import numpy as np

from . import _arrays, _arrow, _core, errors

_SPLITS = {"auto": 0, "rows": 1, "time": 2, None: 0}
_LEARN = {None: 0, True: 1, False: 2}
# Probe sizes for telling an output's kind from its shape (see _kinds).
_PROBE_COLS = (100000, 100001)
# A series longer than any warm-up (a period is at most 1e5) whose call still fits in
# size_t: the command line's probe that tells a refusal of the parameters from a refusal of
# a series' length (cli/run_short_series.c).
_LONG_SERIES = 1 << 32


def grouped_inputs(rt, kernel, inputs, by, time):
    """A kernel's inputs from a long Arrow frame grouped by ``by`` (docs/python.md, "Long
    frames"): the frame's columns by the kernel's input names, or for a kernel of one input
    the column named like it, else ``close``, else the frame's only value column."""
    if len(inputs) != 1:
        raise TypeError(f"by={by!r} takes one long frame holding every input of kernel {kernel}")
    group = inputs[0] if isinstance(inputs[0], _arrow.Grouped) else _arrow.Grouped(inputs[0], by, time)
    names = (rt._kinds_cache.get(kernel) or rt._kernel(kernel))[4]
    if len(names) == 1:
        return (group.single(names[0]),)
    return (group,)


class Runtime(_core.Runtime):
    """A runtime over the devices of ``devices`` (the APPORTION_DEVICES grammar, docs/env.md;
    None: the environment, else "auto"), with apo_config's fields as keyword arguments:
    cpu_threads, use_gpu ("auto", "yes", "no" or a bool), sim_clock ("wall", "virtual"),
    multigpu_path, thresholds_path, profiles, learn, nccl, mpi (bools), persist_interval_s,
    gpu_memory_mb, mpi_timeout_s, deadline_factor, deadline_floor_s, quarantine_after.
    A field left out comes from the environment, else its default (docs/api.md).

    Use it as a context manager, or call close(); every call may come from any thread.
    """

    def __init__(self, devices=None, **config):
        super().__init__(devices, **config)
        self._kinds_cache = {}
        self._tuples = {}
        self._lock = threading.Lock()

    def __repr__(self):
        if self.closed:
            return "<apportion.Runtime (closed)>"
        return "<apportion.Runtime devices=%s>" % ",".join(d["id"] for d in self.devices())

    # ---- kernels ---------------------------------------------------------------------

    def _kernel(self, kernel):
        """(result namedtuple type, output kinds) of a kernel, cached: kernels are never
        unregistered, so what is known about one stays true."""
        entry = self._kinds_cache.get(kernel)
        if entry is None:
            info = self.kernel_info(kernel)
            kinds = self._kinds(kernel, len(info["outputs"]), info["builtin"])
            # A scored kernel's name holds a colon ("bollinger:bands_revert"): the type's name
            # keeps its letters and digits only.
            type_name = "".join(c for c in kernel.title() if c.isalnum()) + "Result"
            tup = collections.namedtuple(type_name, info["outputs"], rename=True)
            entry = (tup, kinds, info["n_inputs"], all(k == "series" for k in kinds), tuple(info["inputs"]), tuple(info["params"]))
            with self._lock:
                self._kinds_cache[kernel] = entry
        return entry

    def _kinds(self, kernel, n_outputs, builtin):
        """Each output is "series" (one value a sample), "scalar" (one a row) or "other"
        (bootstrap's replicates), from its shape at two sizes."""
        if not builtin:
            return ("series",) * n_outputs  # a user kernel's outputs have the input's shape
        a = self._output_shapes(kernel, 1, _PROBE_COLS[0])
        b = self._output_shapes(kernel, 1, _PROBE_COLS[1])
        kinds = []
        for (_, ca), (_, cb) in zip(a, b):
            kinds.append("series" if (ca, cb) == _PROBE_COLS else "scalar" if ca == cb == 1 else "other")
        return tuple(kinds)

    def register_kernel(self, name, cpu, n_inputs=1, outputs=("out0",), params=None, halo=0, tile=0, inputs=None):
        """Registers a user kernel (apo_kernel_register(), docs/api.md "User kernels").

        ``inputs`` names the inputs (``("high", "low", "close")``; n_inputs is then their
        number); without it they are ``in0``, ``in1``, ... compute() and the functions of
        apportion.indicators take a kernel's inputs by these names (docs/python.md).

        ``cpu`` is either a numba ``@cfunc`` with apportion.numba_kernels.cpu_signature (it
        runs without the GIL, at C speed), or any Python callable
        ``cpu(inputs, outputs, row, begin, end, params, seed)`` that computes
        ``outputs[k][row, begin:end]`` (it runs holding the GIL: tiles one at a time, slow).
        ``params`` is {name: default}, in the order the kernel sees them.
        """
        params = dict(params or {})
        if inputs is not None:
            inputs = list(inputs)
            n_inputs = len(inputs)
        self._register_kernel(
            name, cpu, n_inputs, list(outputs), list(params), np.asarray(list(params.values()), dtype=np.float64), halo, tile, inputs
        )

    def register_rule(self, name, kernel, rule):
        """Registers a user rule (apo_rule_register(), docs/scores.md "User rules"): ``rule``
        is a numba ``@cfunc(apportion.numba_kernels.rule_signature)`` taking the kernel's
        inputs and outputs at a bar (pointers), the previous position and a null pointer, and
        returning -1, 0 or 1. Then ``apportion.score(data, kernel, name, runtime=self)`` and
        ``self.compute(f"{kernel}:{name}", ...)`` score with it. It is called from several
        threads at once: it must keep no shared state."""
        self._register_rule(name, kernel, rule)
        self._kinds_cache.pop(f"{kernel}:{name}", None)

    def _inputs(self, kernel, inputs, params):
        """compute()'s inputs in the kernel's order: as given, or by name from one DataFrame
        or mapping, or from keyword arguments named like the kernel's inputs (which are then
        taken out of params)."""
        entry = self._kinds_cache.get(kernel) or self._kernel(kernel)
        names, param_names = entry[4], entry[5]
        lowered = {n.lower() for n in names}
        named = {k: params[k] for k in list(params) if k not in param_names and k.lower() in lowered}
        single = len(inputs) == 1 and (
            isinstance(inputs[0], collections.abc.Mapping)
            or (len(names) > 1 and _arrays._is_pandas(inputs[0]) and hasattr(inputs[0], "columns"))
            or (len(names) > 1 and not _arrays._is_pandas(inputs[0]) and _arrow.is_arrow(inputs[0]))
        )
        if not named and not single:
            return inputs, params
        if len(inputs) > 1 or (named and inputs):
            raise TypeError(f"kernel {kernel}: give its inputs either positionally, or as one DataFrame or mapping, or by keyword")
        rest = {k: v for k, v in params.items() if k not in named}
        return _arrays.named_inputs(kernel, names, inputs[0] if inputs else None, named), rest

    # ---- running ---------------------------------------------------------------------

    def compute(self, kernel, *inputs, out=None, seed=0, ratios=None, tag=None, split="auto", learn=None, report=False, first_set=0, n_sets_run=0, axis=None, by=None, time=None, **params):
        """Runs ``kernel`` on ``inputs`` with ``params`` (a list, tuple, range or array as a
        value sweeps that parameter) and returns its outputs as a named tuple shaped like
        the input (docs/python.md); with report=True, (outputs, report dict). A kernel of
        several named inputs takes them positionally in its order, as one DataFrame or
        mapping with those columns or keys (any case), or as arrays by keyword
        (``high=..., low=..., close=...``). Of a sweep, ``first_set`` and ``n_sets_run``
        (0: every set from first_set on) run only sets first_set .. first_set + n_sets_run - 1
        of the grid, each bitwise what it is in the whole sweep (apo_sweep's fields). A 2-D
        array needs ``axis``, the axis its bars run along: 1 when each row is a series, 0
        when each column is one (its outputs then come back bars x series). ``by`` names the
        key column of a long Arrow frame (polars, pyarrow) whose groups of rows are the
        series, ``time`` its time column, checked to increase within each group
        (docs/python.md, "Long frames")."""
        if by is not None:
            inputs = grouped_inputs(self, kernel, inputs, by, time)
        elif time is not None:
            raise TypeError("time= names the time column of a long frame grouped with by=")
        inputs, params = self._inputs(kernel, inputs, params)
        return self._apply(kernel, inputs, params, out, seed, ratios, tag, _SPLITS[split], _LEARN[learn], report, first_set, n_sets_run, axis)

    def _apply(self, kernel, inputs, params, out=None, seed=0, ratios=None, tag=None, split=0, learn=0, report=False, first_set=0, n_sets_run=0, axis=None):
        """compute() with its arguments as they reach the C call: the path of every call,
        kept short because at 1e3 samples the binding's own cost is what is measured."""
        entry = self._kinds_cache.get(kernel)
        if entry is None:
            entry = self._kernel(kernel)
        tup, kinds, n_inputs, all_series = entry[:4]
        if len(inputs) != n_inputs:
            raise TypeError(f"kernel {kernel} takes {n_inputs} input(s), {len(inputs)} given")
        if n_inputs == 1:
            arr, layout = _arrays.as_input(inputs[0], axis)
            arrays = (arr,)
        else:
            converted = [_arrays.as_input(x, axis) for x in inputs]
            arrays = tuple(a for a, _ in converted)
            layout = converted[0][1]
            lengths = [None if c[1].lengths is None else c[1].lengths.tolist() for c in converted]
            if any(n != lengths[0] for n in lengths):
                raise ValueError("the inputs' series differ in number or lengths; with series of different lengths every input needs the same ones")
        fixed, grid, sets = params, None, None
        for value in params.values():
            if value is None or isinstance(value, _arrays.SWEEP_TYPES):
                fixed, grid = _arrays.split_params(params)
                if grid is not None:
                    sets = 1
                    for _, values in grid:
                        sets *= len(values)
                    # The sets run; a range outside the grid is refused by the C call below.
                    sets = n_sets_run if n_sets_run else sets - first_set
                break
        if layout.device and (sets is not None or not all_series):
            raise TypeError(
                f"kernel {kernel}: device arrays take one set of parameters and kernels whose outputs are all series; "
                "for a sweep or per-row outputs pass host arrays (DeviceArray.copy_to_host(), cupy.asnumpy(x))"
            )
        if out is not None and not isinstance(out, (tuple, list)):
            out = (out,)
        if layout.lengths is not None and out is not None:
            raise TypeError("out= is not taken for series of different lengths")
        if layout.bars_first and out is not None:
            raise TypeError("out= is written series x bars, the library's layout: give the input so (axis=1), not bars x series")
        short = None
        if layout.lengths is not None:
            short = self._set_aside_short(kernel, params, fixed, grid, inputs[0], layout.lengths)
        if short is not None:
            keep = ~short
            arrays = tuple(np.ascontiguousarray(a[keep]) for a in arrays)
            call_lengths = layout.lengths[keep]
        else:
            call_lengths = layout.lengths
        if kernel == "macd":
            self._check_macd_warmup(params, arrays[0], call_lengths)
        outs, rep, nonfinite = self._run(
            kernel, arrays, out, fixed, grid, seed, ratios, tag, split, learn, report, layout.one_d, call_lengths, first_set, n_sets_run
        )
        if short is not None:
            outs = [_with_nan_rows(o, short) for o in outs]
        if nonfinite:
            warnings.warn(errors.NonFiniteOutputWarning(kernel, nonfinite), stacklevel=_caller_level())
        if layout.arrow is not None and out is None:
            names = tup._fields if len(tup._fields) > 1 else (kernel,)
            labels = _arrays.sweep_labels(grid)[first_set : first_set + sets] if sets else None
            plain = _arrays.plain_presenter(layout, sets, grid, first_set)
            result = tup._make(_arrow.present(outs, kinds, layout, grid, labels, names, plain))
        elif layout.lengths is not None:
            result = tup._make(_arrays.present_ragged(outs, kinds, layout, sets))
        elif out is not None:
            result = tup._make(out)
        elif all_series and sets is None and layout.pandas is None and not layout.bars_first:
            result = tup._make(outs)  # shaped in C already: (n,) or (rows, n)
        else:
            result = tup._make(_arrays.present(outs, kinds, layout, sets, grid, first_set))
        return (result, rep) if report else result

    def _set_aside_short(self, kernel, params, fixed, grid, given, lengths):
        """The series of different lengths too short for the kernel alone, as a boolean mask
        with a ShortSeriesWarning for each (docs/python.md, "Series shorter than the
        warm-up"), or None when none is, or when every one is (the call then refuses them
        in its own words). The command line's rule (cli/run_short_series.c): a series is too
        short when a call of it alone is refused with BadParameterError (every set of a
        sweep checked; macd's warm-up as _check_macd_warmup counts it) while a call of a
        very long series is accepted."""

        def why_refused(n):
            if kernel == "macd":
                needed = self._macd_warmup(params)
                if needed and n < needed:
                    return _macd_warmup_text(needed, n)
            try:
                self._output_shapes(kernel, 1, int(n), fixed, grid)
            except errors.BadParameterError as e:
                return str(e)
            except errors.ApportionError:
                return None  # not about the length against the parameters: the call says it
            return None

        if why_refused(_LONG_SERIES) is not None:
            return None  # the parameters themselves: the call's own message
        reasons = {int(n): why_refused(n) for n in set(lengths.tolist())}
        short = np.array([reasons[int(n)] is not None for n in lengths])
        if not short.any():
            return None
        if short.all():
            first = _series_name(given, 0)
            raise errors.BadParameterError(
                f"every series is too short for these parameters; {first} ({int(lengths[0])} samples): {reasons[int(lengths[0])]}",
                _core.status_codes["APO_ERR_BAD_PARAM"],
            )
        for r in np.flatnonzero(short):
            n = int(lengths[r])
            warnings.warn(errors.ShortSeriesWarning(kernel, _series_name(given, r), n, reasons[n]), stacklevel=_caller_level())
        return short

    def _macd_warmup(self, params):
        """The samples a series needs for one macd output, max(fast, slow) + signal - 1 (the
        largest swept values); 0 for parameters the library refuses in its own words."""
        defaults = self._kernel_params("macd")

        def value(name, alias):
            # TA-Lib's name (the descriptor's) or the older one, which the library also takes.
            v = params.get(name, params.get(alias))
            if v is None:
                return float(defaults.get(name, defaults.get(alias, 0)))
            if isinstance(v, _arrays.SWEEP_TYPES):
                flat = np.asarray(v, dtype=np.float64).ravel()
                return float(flat.max()) if flat.size else 0.0
            return float(v)

        longer = max(value("fastperiod", "fast"), value("slowperiod", "slow"))
        signal = value("signalperiod", "signal")
        if not (longer >= 1 and signal >= 1):
            return 0
        return longer + signal - 1

    def _check_macd_warmup(self, params, arr, lengths):
        """MACD's outputs are all NaN before index max(fast, slow) + signal - 2
        (docs/kernels.md): on a series too short to reach it every output would be NaN,
        which the library computes without a word. The CLI refuses such a call, as the
        library refuses a bollinger period longer than the series; so does this, in the
        CLI's words. A swept parameter counts by its largest value, ragged rows by the
        shortest row."""
        needed = self._macd_warmup(params)
        if not needed:
            return  # the library refuses such parameters with its own message
        cols = int(lengths.min()) if lengths is not None else arr.shape[-1]
        if cols < needed:
            raise errors.BadParameterError(_macd_warmup_text(needed, cols), _core.status_codes["APO_ERR_BAD_PARAM"])

    def _kernel_params(self, kernel):
        """{name: default} of a kernel's parameters, cached (they never change)."""
        key = ("params", kernel)
        entry = self._kinds_cache.get(key)
        if entry is None:
            entry = dict(self.kernel_info(kernel)["params"])
            with self._lock:
                self._kinds_cache[key] = entry
        return entry

    def to_device(self, x, device=None):
        """A copy of ``x`` (float64, one series or series x bars) on a GPU of this runtime, as
        an apportion.DeviceArray (docs/python.md, "Device arrays"); ``device`` is the GPU's
        index in devices(), by default the first GPU."""
        if device is None:
            gpus = [i for i, d in enumerate(self.devices()) if d["kind"] == "cuda"]
            if not gpus:
                raise errors.NoDeviceError("Runtime.to_device: this runtime has no GPU", _core.status_codes["APO_ERR_NO_DEVICE"])
            device = gpus[0]
        return self._to_device(np.ascontiguousarray(x, dtype=np.float64), device)

    def distribute(self, kernel, inputs, params=None, ratios=None, seed=0, out=None, tag=None, split="auto", learn=None, axis=None):
        """apo_distribute_workload(): returns (outputs, report) with the outputs as a named
        tuple and the report as a dict (docs/api.md, "The report"). ``inputs`` is one array
        for a one-input kernel, else a sequence of them; ``ratios`` one share a device, in
        device order, or {device id: share}; ``axis`` as for compute()."""
        n_inputs = self._kernel(kernel)[2]
        ins = (inputs,) if n_inputs == 1 else tuple(inputs)
        if isinstance(ratios, dict):
            ids = [d["id"] for d in self.devices()]
            unknown = set(ratios) - set(ids)
            if unknown:
                raise ValueError(f"ratios name devices this runtime does not have: {sorted(unknown)}; it has {ids}")
            ratios = [float(ratios.get(i, 0.0)) for i in ids]
        return self.compute(
            kernel, *ins, out=out, seed=seed, ratios=ratios, tag=tag, split=split, learn=learn, report=True, axis=axis, **(params or {})
        )

    def plan(self, kernel, shape, params=None, ratios=None, tag=None, split="auto"):
        """What a call on arrays of ``shape`` ((rows, cols), or cols) would do now, without
        running it (apo_plan_workload()): ratio source, axis, shares and elements a device
        (by id), predicted makespan."""
        rows, cols = (1, shape) if np.ndim(shape) == 0 else shape
        fixed, grid = _arrays.split_params(params or {})
        return self._plan(kernel, rows, cols, fixed, grid, ratios, tag, _SPLITS[split])

    def profile(self, tag=None, kernel=None, params=None, sample_size=0, sizes=None, runs=0, seed=0):
        """apo_profile_auto_balance(): times each device alone on generated samples, fits
        its model, applies the split and (profiles on) writes both profile files. ``tag``
        defaults to the kernel's name; returns the result as a dict."""
        if tag is None:
            if kernel is None:
                raise TypeError("profile() needs a tag or a kernel")
            tag = kernel
        return self._profile(tag, kernel, params, sample_size, sizes, runs, seed)

    def set_ratios(self, tag, ratios):
        """apo_set_ratios(): forces a tag's shares, {device id (or cuda:N): ratio}; None or
        {} clears them. Stored in multigpu.json when profiles are on."""
        self._set_ratios(tag, dict(ratios or {}))

    def should_use_gpu(self, function, samples, **params):
        """apo_should_use_gpu(): True or False from thresholds.json, None when it holds no
        CPU and GPU timings for these parameters."""
        return self._should_use_gpu(function, params, samples)

    def record_threshold(self, function, samples, cpu_ms=None, gpu_ms=None, **params):
        """apo_threshold_record(): adds one measurement (milliseconds; None: not measured)
        of ``function`` with ``params`` on ``samples`` samples to thresholds.json."""
        nan = float("nan")
        self._record_threshold(function, params, samples, nan if cpu_ms is None else cpu_ms, nan if gpu_ms is None else gpu_ms)

    def thresholds(self):
        """The entries of thresholds.json as this runtime knows them."""
        return self._thresholds()

    def profile_entries(self):
        """The workload entries of multigpu.json as this runtime knows them."""
        return self._profile_entries()

    def profile_files(self):
        """Where the two profile files are and what became of them at creation."""
        return self._profile_files()

    def save_profiles(self):
        """apo_profile_save(): writes the models refined since the last write now."""
        self._profile_save()


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _caller_level():
    """The stacklevel of warnings.warn() that names the caller's line, the first frame
    outside this package, however many of the package's functions the call went through."""
    level, frame = 1, sys._getframe(1)
    while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == _PACKAGE_DIR:
        level += 1
        frame = frame.f_back
    return level


def _macd_warmup_text(needed, cols):
    """The CLI's words for a series shorter than macd's warm-up (cli/run_options.c)."""
    return f"macd: the warm-up of {needed:.0f} samples (max(fast, slow) + signal - 1) is longer than the series (cols {cols}): every output would be NaN"


def _series_name(given, r):
    """Series r of a list of series, as a warning names it: its pandas name, else its
    position in the list; a long frame's group by its key."""
    if isinstance(given, _arrow.GroupedColumn):
        return given.group.key_of(r)
    name = getattr(given[r], "name", None) if isinstance(given, (list, tuple)) else None
    return str(r) if name is None else str(name)


def _with_nan_rows(out, short):
    """A ragged call's output for the series kept (sets x kept rows, set after set) as one
    for every series, NaN in the rows of those set aside."""
    rows = len(short)
    kept = rows - int(short.sum())
    blocks = out.reshape((-1, kept) + out.shape[1:])
    full = np.full((blocks.shape[0], rows) + out.shape[1:], np.nan)
    full[:, ~short] = blocks
    return full.reshape((-1,) + out.shape[1:])
