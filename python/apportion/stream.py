"""Streams: a kernel followed over many series that grow a few bars at a time, each update's
outputs bit for bit those of one batch call over the whole history (docs/streaming.md;
docs/python.md, "Streams"). The C type (_core.Stream, python/src/stream_type.c) takes the
library's packed layout; this module turns the caller's blocks into it and back.
"""

import collections
from collections.abc import Mapping

import numpy as np

from . import _arrays, _core
from ._default import default_runtime
from .scores import MORE_SCORES, SCORES

# A rule's stream's outputs, bar by bar (docs/streaming.md, "Live rules"): the position after
# the bar, its return (``ret``: ``return`` is a keyword; positions()' column "return"), the
# running total (positions()' "equity"), then the running scores as score() names them.
_LIVE = collections.namedtuple("LiveRule", ("position", "ret", "equity") + SCORES)
_LIVE_MORE = collections.namedtuple("LiveRuleMore", ("position", "ret", "equity") + MORE_SCORES)


class Stream(_core.Stream):
    """A stream of ``kernel`` over ``series`` independent series, with the kernel's
    parameters by keyword (those left out take their defaults) and ``seed`` (given to user
    kernels, as a batch call's seed). ``runtime`` defaults to apportion.default_runtime();
    it must stay open while the stream is used.

        s = apportion.Stream("macd", series=5000, fastperiod=12, slowperiod=26, signalperiod=9)
        m = s.update(closes)        # 5000 closes, one new bar a series -> m.macd, m.signal, m.hist
        blob = bytes(s)             # the state (apo_stream_save)
        s2 = apportion.Stream.load(blob)

    ``rule`` makes it a rule's stream (docs/python.md, "Live rules"), the rule named as
    ``score()`` names it (``"rsi_zone"``, ``"bands_revert/more"``) and the parameters those
    of ``score()`` (the indicator's, the rule's ``lower`` and ``upper``, ``cost``,
    ``periods_per_year``, ``side``): each update then gives, per set, series and new bar,
    ``position`` (-1, 0 or +1 after the bar), ``ret`` and ``equity`` (``positions()``'s
    ``return`` and ``equity``) and the running scores, named as ``score()``'s columns, of
    the history so far, bit for bit those of ``positions()`` and ``score()`` over it.

    ``revise_bars`` (default 0) is how many of each series' last bars ``revise`` may replace
    (docs/streaming.md, "Revise"); refused for obv and ad.

    A list, tuple, range or array as a parameter's value makes a sweep, as in the batch
    calls (grid form, the first swept parameter varying slowest): every update computes
    each set over the same new bars, and its outputs gain a leading sets axis
    (``Stream("bollinger", series=500, period=[10, 20, 30])``: each output of an update of
    bars x series is sets x bars x series). ``labels`` names the sets. ``first_set`` and
    ``n_sets_run`` (0: every set from first_set on) follow only sets first_set ..
    first_set + n_sets_run - 1 of the grid, as in the batch compute().
    """

    def __init__(self, kernel, series, *, rule=None, runtime=None, seed=0, first_set=0, n_sets_run=0, revise_bars=0, _resume=None, **params):
        rt = runtime if runtime is not None else default_runtime()
        fixed, grid = _arrays.split_params(params)
        super().__init__(
            rt,
            kernel,
            _series_count(series),
            fixed,
            seed,
            grid=grid,
            first_set=first_set,
            n_sets_run=n_sets_run,
            revise_bars=revise_bars,
            resume=_resume,
            rule=rule,
        )
        # The grid as given names the sets as the batch sweep names them, those run only.
        self._grid = grid
        self._labels = None if grid is None else _arrays.sweep_labels(grid)[first_set : first_set + len(self.sets)]
        self._describe()

    @classmethod
    def resume(cls, kernel, block, /, *, first, axis=None, runtime=None, seed=0, revise_bars=0, first_set=0, n_sets_run=0, **params):
        """A stream of ``kernel`` that goes on from histories given only their last bars
        (apo_stream_resume; docs/streaming.md, "Resume from a window"): ``block`` holds the
        same number of last bars of every series, shaped as ``update`` takes it (a kernel of
        several inputs: one mapping of them), and ``first`` is the absolute position, in its
        history, of the block's first bar. Its updates give, bit for bit, what a stream fed
        the whole histories gives. The block must hold at least the bars
        apo_stream_resume_needs() names (more are fine); fewer, obv and ad raise
        InvalidArgumentError, the message saying how many are needed."""
        rt = runtime if runtime is not None else default_runtime()
        names = rt._kernel(kernel)[4]
        inputs = (block,) if len(names) == 1 and not isinstance(block, Mapping) else _arrays.named_inputs(kernel, names, block, {})
        packed, shape = [], None
        for name, x in zip(names, inputs):
            arr, layout = _arrays.as_input(x, axis, one_bar=True)
            if layout.lengths is not None or (shape is not None and arr.shape != shape):
                raise ValueError(f"input {name}: a resume gives every series the same number of bars, in every input")
            shape = arr.shape
            packed.append(np.ascontiguousarray(arr, dtype=np.float64).reshape(-1))
        bars = 1 if len(shape) == 1 else shape[1]
        return cls(
            kernel,
            shape[0],
            runtime=rt,
            seed=seed,
            first_set=first_set,
            n_sets_run=n_sets_run,
            revise_bars=revise_bars,
            _resume=(tuple(packed), int(first), bars),
            **params,
        )

    @classmethod
    def load(cls, blob, runtime=None):
        """A stream from ``bytes(stream)`` (apo_stream_load), going on where that stream was,
        on ``runtime`` (default: apportion.default_runtime()). A state that is truncated,
        corrupt, of another library version or of a kernel the runtime lacks raises the
        library's error (InvalidArgumentError, UnknownKernelError) with its message."""
        rt = runtime if runtime is not None else default_runtime()
        self = cls.__new__(cls)
        _core.Stream.__init__(self, rt, state=blob)
        self._grid, self._labels = _loaded_sweep(self.sets)
        self._describe()
        return self

    def _describe(self):
        # The kernel's result type and input names, as the batch functions have them, so
        # that an update's outputs are the same named tuple as apportion.macd's.
        # A rule's stream reads the indicator's inputs and gives the live outputs.
        if self.rule is None:
            entry = self.runtime._kernel(self.kernel)
            self._result, self._inputs = entry[0], entry[4]
        else:
            entry = self.runtime._kernel(f"{self.kernel}:{self.rule}")
            self._result = _LIVE_MORE if self.rule.endswith("/more") else _LIVE
            self._inputs = entry[4]

    @property
    def labels(self):
        """A sweep's sets, one label each in set order, as the batch sweep labels them: the
        value of the one swept parameter, else tuples of the swept values; None for one set.
        A loaded stream's swept parameters are those whose values differ among its sets, in
        the kernel's order (the state keeps each set's values, not the grid)."""
        return None if self._labels is None else list(self._labels)

    @property
    def swept(self):
        """The names of the swept parameters, in the labels' order (empty for one set)."""
        return [] if self._grid is None else [name for name, _ in self._grid]

    @property
    def inputs(self):
        """The kernel's input names, in its order (update() takes them by keyword)."""
        return self._inputs

    @property
    def outputs(self):
        """The kernel's output names (a rule's stream: position, ret, equity and the
        scores): the fields of every update's result."""
        return self._result._fields

    def __repr__(self):
        if self.closed:
            return "<apportion.Stream (closed)>"
        params = ", ".join(f"{k}={_plain(v)}" for k, v in self.params.items())
        sets = "" if self.sets is None else f" sets={len(self.sets)}"
        rule = "" if self.rule is None else f" rule={self.rule}"
        return f"<apportion.Stream {self.kernel}({params}){rule} series={self.n_series}{sets}>"

    def __bytes__(self):
        """The stream's state (apo_stream_save; docs/streaming.md, "The state")."""
        return self._save()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def update(self, block=None, /, *, axis=None, **named):
        """Appends the same number of new bars to every series and returns their outputs, as
        a named tuple of the kernel's outputs shaped like the input:

        - a 1-D array (or pandas Series) of ``series`` values: one new bar a series, outputs
          of that shape (a Series keeps its index);
        - a 2-D array with ``axis``, the axis its bars run along: ``axis=0`` for new bars x
          series (rows are bars, columns are series, as in a DataFrame), ``axis=1`` for
          series x new bars; outputs shaped alike. Without ``axis`` a 2-D array is refused,
          as in every call of the package (docs/python.md, "Arrays");
        - a DataFrame whose columns are the series and whose index is the new bars' dates:
          DataFrames with that index and those columns.

        A kernel of several inputs takes them by keyword (``update(high=h, low=l,
        close=c)``) or as one mapping of them (any case), each shaped as above and all alike.
        """
        return self._feed(self._update, block, axis, named)

    def peek(self, block=None, /, *, axis=None, **named):
        """The outputs that ``update`` with the same arguments would give, bit for bit, without
        committing the bars (apo_stream_peek; docs/streaming.md, "Peek"): afterwards the stream
        and ``bytes(stream)`` are as they were. For a bar still forming: peek at it as often
        as it changes, update with it once it is final."""
        return self._feed(self._peek, block, axis, named)

    def revise(self, block=None, /, *, axis=None, **named):
        """Replaces the last bars of every series (as many as the block has, the same for
        each) with the block's and returns their corrected outputs, shaped as ``update``'s: bit
        for bit what a stream fed the corrected bars from the start gives (apo_stream_revise;
        docs/streaming.md, "Revise"). At most ``revise_bars`` (given when the stream was made)
        and the bars a series has; more raise InvalidArgumentError with nothing changed."""
        return self._feed(self._revise, block, axis, named)

    def fork(self):
        """An independent copy of the stream (apo_stream_fork; docs/streaming.md, "Fork"), on
        the same runtime: fed apart, each gives the bits of its own bars."""
        f = self._fork()
        f._grid, f._labels, f._result, f._inputs = self._grid, self._labels, self._result, self._inputs
        return f

    def _feed(self, call, block, axis, named):
        names = self._inputs
        if block is not None and not isinstance(block, Mapping) and not named:
            if len(names) > 1:
                raise TypeError(
                    f"kernel {self.kernel} takes the inputs {', '.join(names)}: give them by keyword "
                    f"({names[0]}=...) or as one mapping"
                )
            inputs = (block,)
        else:
            inputs = _arrays.named_inputs(self.kernel, names, block, named)
        packed, layouts, shape = [], [], None
        for name, x in zip(names, inputs):
            arr, layout = self._packed(name, x, axis)
            if shape is not None and (arr.shape != shape or layout.one_d != layouts[0].one_d):
                raise ValueError(f"input {name} has another shape than {names[0]}; every input needs the same")
            shape = arr.shape
            packed.append(arr)
            layouts.append(layout)
        bars = 1 if len(shape) == 1 else shape[1]
        return self._present(call(tuple(packed), bars), layouts[0])

    def _present(self, outs, layout):
        """The outputs of _core's call ((series, bars) arrays, or a sweep's (sets, series,
        bars)) as the kernel's named tuple, each in the shape its input came in."""
        if self._labels is None:
            return self._result._make(_present(o, layout) for o in outs)
        return self._result._make(_present_sets(o, layout, self._labels, self.swept) for o in outs)

    def _packed(self, name, x, axis):
        """One input's block as the library's packed layout (series after series: an array
        of series x bars, or of series for one bar each) and the layout it came in."""
        packed, layout = _arrays.as_input(x, axis, one_bar=True)  # series x bars, a frame's too
        if layout.lengths is not None:
            raise ValueError(f"input {name}: an update gives every series the same number of new bars")
        if packed.shape[0] != self.n_series:
            what = "values" if packed.ndim == 1 else "rows (series)" if layout is _arrays._NUMPY_2D else "columns (series)"
            raise ValueError(f"input {name} has {packed.shape[0]} {what}; the stream follows {self.n_series} series")
        return packed, layout


def _present(out, layout):
    """A (series, bars) output in the shape its input came in."""
    if layout.arrow is not None:
        if layout.one_d:
            return _arrays._arrow.present_flat(np.ascontiguousarray(out.reshape(-1)), layout)
        columns = layout.arrow.columns
        return _arrays._arrow._frame(layout.arrow.kind, {c: out[r] for r, c in enumerate(columns)})
    if layout.pandas == "frame":
        import pandas as pd

        return pd.DataFrame(_arrays.caller_order(out, layout).T, index=layout.index, columns=layout.columns)
    if layout.one_d:
        flat = out.reshape(-1)
        if layout.pandas == "series":
            import pandas as pd

            return pd.Series(flat, index=layout.index, name=layout.name)
        return flat
    return out.T if layout.bars_first else out  # bars x series: a view of the library's block


def _present_sets(out, layout, labels, names):
    """A sweep's (sets, series, bars) output in the shape its input came in, with the sets
    axis first (or the sets as columns, for pandas), as the batch sweep gives it."""
    if layout.pandas is not None:
        import pandas as pd

        if len(names) > 1:
            keys = pd.MultiIndex.from_tuples(labels, names=names)
        else:
            keys = pd.Index(labels, name=names[0] if names else None)
        if layout.pandas == "series":
            return pd.DataFrame(out.reshape(len(labels), -1).T, index=layout.index, columns=keys)
        frames = [pd.DataFrame(_arrays.caller_order(o, layout).T, index=layout.index, columns=layout.columns) for o in out]
        return pd.concat(frames, axis=1, keys=keys)
    if layout.one_d:
        return out.reshape(out.shape[0], -1)
    return out.transpose(0, 2, 1) if layout.bars_first else out  # sets x bars x series: a view


def _loaded_sweep(sets):
    """A loaded sweep's swept parameters, as (name, values per set), and its sets' labels:
    the parameters whose values differ among the sets, in the kernel's order, labelled as
    the batch labels a sweep (each set's values; the set's number when none differs).
    (None, None) for one set."""
    if sets is None:
        return None, None
    grid = [(name, [s[name] for s in sets]) for name in sets[0] if any(s[name] != sets[0][name] for s in sets)]
    if not grid:
        return [], list(range(len(sets)))
    rows = [[_plain(v) for v in values] for _, values in grid]
    return grid, rows[0] if len(rows) == 1 else list(zip(*rows))


def _series_count(series):
    if isinstance(series, (bool, np.bool_)) or not isinstance(series, (int, np.integer)):
        raise TypeError(f"series must be a whole number of series, not {series!r}")
    return int(series)


def _plain(v):
    return int(v) if float(v).is_integer() else v
