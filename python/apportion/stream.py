"""Streams: a kernel followed over many series that grow a few bars at a time, each update's
outputs bit for bit those of one batch call over the whole history (docs/streaming.md;
docs/python.md, "Streams"). The C type (_core.Stream, python/src/stream_type.c) takes the
library's packed layout; this module turns the caller's blocks into it and back.
"""

from collections.abc import Mapping

import numpy as np

from . import _arrays, _core
from ._default import default_runtime


class Stream(_core.Stream):
    """A stream of ``kernel`` over ``series`` independent series, with the kernel's
    parameters by keyword (those left out take their defaults) and ``seed`` (given to user
    kernels, as a batch call's seed). ``runtime`` defaults to apportion.default_runtime();
    it must stay open while the stream is used.

        s = apportion.Stream("macd", series=5000, fast=12, slow=26, signal=9)
        m = s.update(closes)        # 5000 closes, one new bar a series -> m.macd, m.signal, m.hist
        blob = bytes(s)             # the state (apo_stream_save)
        s2 = apportion.Stream.load(blob)
    """

    def __init__(self, kernel, series, *, runtime=None, seed=0, **params):
        rt = runtime if runtime is not None else default_runtime()
        super().__init__(rt, kernel, _series_count(series), params, seed)
        self._describe()

    @classmethod
    def load(cls, blob, runtime=None):
        """A stream from ``bytes(stream)`` (apo_stream_load), going on where that stream was,
        on ``runtime`` (default: apportion.default_runtime()). A state that is truncated,
        corrupt, of another library version or of a kernel the runtime lacks raises the
        library's error (InvalidArgumentError, UnknownKernelError) with its message."""
        rt = runtime if runtime is not None else default_runtime()
        self = cls.__new__(cls)
        _core.Stream.__init__(self, rt, state=blob)
        self._describe()
        return self

    def _describe(self):
        # The kernel's result type and input names, as the batch functions have them, so
        # that an update's outputs are the same named tuple as apportion.macd's.
        entry = self.runtime._kernel(self.kernel)
        self._result, self._inputs = entry[0], entry[4]

    @property
    def inputs(self):
        """The kernel's input names, in its order (update() takes them by keyword)."""
        return self._inputs

    @property
    def outputs(self):
        """The kernel's output names: the fields of every update's result."""
        return self._result._fields

    def __repr__(self):
        if self.closed:
            return "<apportion.Stream (closed)>"
        params = ", ".join(f"{k}={_plain(v)}" for k, v in self.params.items())
        return f"<apportion.Stream {self.kernel}({params}) series={self.n_series}>"

    def __bytes__(self):
        """The stream's state (apo_stream_save; docs/streaming.md, "The state")."""
        return self._save()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def update(self, block=None, /, **named):
        """Appends the same number of new bars to every series and returns their outputs, as
        a named tuple of the kernel's outputs shaped like the input:

        - a 1-D array (or pandas Series) of ``series`` values: one new bar a series, outputs
          of that shape (a Series keeps its index);
        - a 2-D array of new bars x series (rows are bars, columns are series, as in a
          DataFrame): outputs of bars x series;
        - a DataFrame whose columns are the series and whose index is the new bars' dates:
          DataFrames with that index and those columns.

        A kernel of several inputs takes them by keyword (``update(high=h, low=l,
        close=c)``) or as one mapping of them (any case), each shaped as above and all alike.
        """
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
            arr, layout = self._packed(name, x)
            if shape is not None and (arr.shape != shape or layout.one_d != layouts[0].one_d):
                raise ValueError(f"input {name} has another shape than {names[0]}; every input needs the same")
            shape = arr.shape
            packed.append(arr)
            layouts.append(layout)
        bars = 1 if len(shape) == 1 else shape[1]
        outs = self._update(tuple(packed), bars)
        return self._result._make(_present(o, layouts[0]) for o in outs)

    def _packed(self, name, x):
        """One input's block as the library's packed layout (series after series: an array
        of series x bars, or of series for one bar each) and the layout it came in."""
        arr, layout = _arrays.as_input(x)
        if layout.lengths is not None:
            raise ValueError(f"input {name}: an update gives every series the same number of new bars")
        if layout.pandas == "frame" or arr.ndim == 1:
            packed = arr  # as_input gives a DataFrame as series x bars already
        else:
            packed = np.ascontiguousarray(arr.T)  # bars x series -> series x bars
        if packed.shape[0] != self.n_series:
            what = "values" if packed.ndim == 1 else "columns (series)"
            raise ValueError(f"input {name} has {packed.shape[0]} {what}; the stream follows {self.n_series} series")
        return packed, layout


def _present(out, layout):
    """A (series, bars) output in the shape its input came in."""
    if layout.pandas == "frame":
        import pandas as pd

        return pd.DataFrame(out.T, index=layout.index, columns=layout.columns)
    if layout.one_d:
        flat = out.reshape(-1)
        if layout.pandas == "series":
            import pandas as pd

            return pd.Series(flat, index=layout.index, name=layout.name)
        return flat
    return out.T  # bars x series, a view of the library's series-major block


def _series_count(series):
    if isinstance(series, (bool, np.bool_)) or not isinstance(series, (int, np.integer)):
        raise TypeError(f"series must be a whole number of series, not {series!r}")
    return int(series)


def _plain(v):
    return int(v) if float(v).is_integer() else v
