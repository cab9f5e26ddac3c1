"""Arrow in, Arrow out (docs/python.md, "Arrow and polars"): any object exporting the Arrow
PyCapsule interface (``__arrow_c_array__`` or ``__arrow_c_stream__``: polars Series and
DataFrames, pyarrow arrays, chunked arrays, tables and record batches) read through
include/apportion_arrow.h, float64 columns without nulls in place, and the outputs built by
the caller's own library (polars in, polars out; pyarrow in, pyarrow out). Neither library
is imported unless the caller's object came from it.
"""

import collections.abc

import numpy as np

from . import _core


def is_arrow(x):
    """Whether x exports the Arrow PyCapsule interface (pandas objects, which do too from
    pandas 2.2 on, are read as pandas before this is asked)."""
    t = type(x)
    return hasattr(t, "__arrow_c_array__") or hasattr(t, "__arrow_c_stream__")


def _kind(x):
    """The library whose objects the outputs are: the caller's, or numpy for any other
    producer (DuckDB, nanoarrow...), so that nothing the caller did not use is imported."""
    root = type(x).__module__.partition(".")[0]
    return root if root in ("polars", "pyarrow") else "numpy"


class ArrowLayout:
    """How Arrow data came in, so that the outputs go back the same way."""

    __slots__ = ("kind", "name", "columns", "grouped", "source")

    def __init__(self, kind, name=None, columns=None, grouped=None, source=None):
        self.kind = kind
        self.name = name  # a single column's name
        self.columns = columns  # a wide frame's column names, one series each
        self.grouped = grouped  # a long frame's Grouped, whose runs are the series
        self.source = source  # the caller's object (a long frame's keys come from it)


def _numbers_of(data, i):
    values, _ = data.column(i)
    return values


def _column_index(names, wanted, what):
    """The index of column ``wanted``: its exact name, else its name in any case."""
    if wanted in names:
        return names.index(wanted)
    lower = [i for i, n in enumerate(names) if n.lower() == str(wanted).lower()]
    if len(lower) == 1:
        return lower[0]
    raise KeyError(f"{what} {wanted!r}: no column of that name (any case) among {', '.join(names)}")


class TableColumn:
    """One column of imported Arrow data, read when a kernel takes it."""

    __slots__ = ("data", "index", "kind", "source")

    def __init__(self, data, index, kind, source):
        self.data, self.index, self.kind, self.source = data, index, kind, source


class ArrowTable(collections.abc.Mapping):
    """A frame's columns by name, as named_inputs() takes a mapping of a kernel's inputs."""

    def __init__(self, x):
        self.data = _core.arrow_import(x)
        self.kind = _kind(x)
        self.source = x
        if not self.data.table:
            raise TypeError(f"a {type(x).__name__} is one column; a kernel of several inputs takes a frame with them by name, or the arrays by keyword")
        self.names = list(self.data.names)

    def __getitem__(self, name):
        return TableColumn(self.data, self.names.index(name), self.kind, self.source)

    def __iter__(self):
        return iter(self.names)

    def __len__(self):
        return len(self.names)


class Grouped(collections.abc.Mapping):
    """A long frame (one row a ticker and bar) grouped by its key column ``by``: each run of
    rows of one key is one series, in the frame's own row order, read without a copy where
    every group has the same number of bars (docs/python.md, "Long frames"). ``time``, when
    given, is checked to increase within each group. Its values are the frame's other
    columns, by name."""

    def __init__(self, x, by, time=None):
        if not is_arrow(x):
            raise TypeError(f"by={by!r} groups an Arrow frame (polars, pyarrow); got {type(x).__name__}")
        self.data = _core.arrow_import(x)
        if not self.data.table:
            raise TypeError(f"by={by!r} groups the rows of a frame; a {type(x).__name__} is one column")
        self.kind = _kind(x)
        self.source = x
        self.names = list(self.data.names)
        self.by = self.names[_column_index(self.names, by, "by=")]
        self.time = None if time is None else self.names[_column_index(self.names, time, "time=")]
        key = self.names.index(self.by)
        when = -1 if self.time is None else self.names.index(self.time)
        self.starts = self.data.runs(key, when)
        self.lengths = np.diff(self.starts).astype(np.uintp)

    def __getitem__(self, name):
        if name in (self.by, self.time):
            raise KeyError(f"column {name!r} is the frame's {'key' if name == self.by else 'time'}, not an input")
        return GroupedColumn(self, self.names.index(name))

    def __iter__(self):
        return (n for n in self.names if n not in (self.by, self.time))

    def __len__(self):
        return len(self.names) - 1 - (self.time is not None)

    def key_of(self, r):
        """Group r's key in words ("ticker AAPL"), read by the caller's own library."""
        row = int(self.starts[r])
        try:
            if self.kind == "polars":
                value = self.source[self.by][row]
            elif self.kind == "pyarrow":
                value = self.source.column(self.by)[row].as_py()
            else:
                value = f"of rows {row}.."
        except Exception:  # a message must not fail for want of a label
            value = f"of rows {row}.."
        return f"{self.by} {value}"

    def single(self, input_name):
        """The column a kernel of one input reads: the one named like its input, else
        ``close``, else the only other column."""
        rest = list(self)
        for wanted in (input_name, "close"):
            hits = [n for n in rest if n.lower() == wanted.lower()]
            if len(hits) == 1:
                return self[hits[0]]
        if len(rest) == 1:
            return self[rest[0]]
        raise KeyError(f"which column is the input {input_name!r}? none is named so or 'close' among {', '.join(rest)}")


class GroupedColumn:
    __slots__ = ("group", "index")

    def __init__(self, group, index):
        self.group, self.index = group, index


def as_input(x, axis, layout_type):
    """(array, layout) of Arrow data, as _arrays.as_input gives them: a column is one series
    (1-D, a view of the producer's buffer where read in place), a frame's columns are its
    series (rows x bars: gathered, a copy), and a long frame's groups are its series (a view
    when they have one length, else ragged rows)."""
    if isinstance(x, GroupedColumn):
        return _grouped_input(x, layout_type)
    if axis not in (None, 0, -1, -2):
        raise ValueError(f"axis={axis!r}: an Arrow column's or frame's bars run down its rows (axis 0)")
    if isinstance(x, TableColumn):
        data, kind, source, columns = x.data, x.kind, x.source, [x.index]
        name = data.names[x.index]
        one_d = True
    else:
        data, kind, source = _core.arrow_import(x), _kind(x), x
        columns = list(range(len(data.names))) if data.table else [0]
        name = None if data.table else data.names[0]
        one_d = not data.table
    if one_d:
        values, _ = data.column(columns[0])
        return values, layout_type(True, arrow=ArrowLayout(kind, name=name or None, source=source))
    if not columns:
        raise ValueError("the frame has no columns")
    arr = np.empty((len(columns), data.length))
    for row, i in zip(arr, columns):
        row[:] = data.column(i)[0]  # a column of no numbers is refused, named, by the library
    names = list(data.names)
    return arr, layout_type(False, columns=names, arrow=ArrowLayout(kind, columns=names, source=source))


def _grouped_input(col, layout_type):
    g = col.group
    values, _ = g.data.column(col.index)
    lengths = g.lengths
    runs = len(lengths)
    if runs == 0:
        raise ValueError("the frame has no rows")
    layout = ArrowLayout(g.kind, grouped=g, source=g.source)
    if (lengths == lengths[0]).all():
        return values.reshape(runs, int(lengths[0])), layout_type(False, arrow=layout)
    arr = np.full((runs, int(lengths.max())), np.nan)
    for r in range(runs):
        arr[r, : lengths[r]] = values[g.starts[r] : g.starts[r + 1]]
    return arr, layout_type(False, lengths=lengths, arrow=layout)


# ---- outputs ---------------------------------------------------------------------------


def _series(kind, name, values):
    if kind == "polars":
        import polars as pl

        return pl.Series(name or "", values)
    if kind == "pyarrow":
        import pyarrow as pa

        return pa.array(values, type=pa.float64())
    return values


def _frame(kind, columns):
    """A frame of the caller's kind from {name: 1-D float64}."""
    if kind == "polars":
        import polars as pl

        return pl.DataFrame({k: pl.Series(k, v) for k, v in columns.items()})
    if kind == "pyarrow":
        import pyarrow as pa

        return pa.table({k: pa.array(v, type=pa.float64()) for k, v in columns.items()})
    return columns


def _set_names(grid, labels):
    """The columns' suffixes of a sweep's sets, ``labels`` their values as sweep_labels gives
    them."""
    names = [n for n, _ in grid]
    if len(names) == 1:
        return [f"{names[0]}={v}" for v in labels]
    return [",".join(f"{n}={v}" for n, v in zip(names, label)) for label in labels]


def _flat_rows(a, grouped):
    """A long frame's output, rows x bars (one row a group), back to the frame's rows."""
    if grouped.lengths.size and (grouped.lengths == grouped.lengths[0]).all():
        return a.reshape(-1)
    return np.concatenate([row[:n] for row, n in zip(a, grouped.lengths)])


def present(arrays, kinds, layout, grid, labels, output_names, plain):
    """The library's (sets*rows) x cols outputs as the caller's kind: a column in, a Series
    (pyarrow: an Array) out; a frame in, a frame with its columns out; a long frame in, one
    value a row of the frame (a Series to add with ``with_columns``/``append_column``). A
    sweep (``labels``: the values of the sets run, None without one) makes frames whose
    columns are named ``column/param=value``. Reductions (one value a series) and other
    shapes stay numpy, as for a numpy input: ``plain(arr, kind)`` shapes them, the numpy
    presenter handed in by the caller so that this module takes nothing from _arrays, which
    reads Arrow inputs through it."""
    arrow = layout.arrow
    sets = len(labels) if labels is not None else 0
    labels = _set_names(grid, labels) if sets else [None]
    shaped = []
    for arr, kind, out_name in zip(arrays, kinds, output_names):
        if kind != "series":
            shaped.extend(plain(arr, kind))
            continue
        per_set = arr.reshape(len(labels), -1, arr.shape[-1])
        if arrow.grouped is not None:
            cols = {out_name if s is None else f"{out_name}/{s}": _flat_rows(per_set[i], arrow.grouped) for i, s in enumerate(labels)}
        elif layout.one_d:
            name = arrow.name or out_name
            cols = {name if s is None else s: per_set[i][0] for i, s in enumerate(labels)}
        else:
            cols = {c if s is None else f"{c}/{s}": per_set[i][r] for i, s in enumerate(labels) for r, c in enumerate(arrow.columns)}
        if (arrow.grouped is not None or layout.one_d) and not sets:
            shaped.append(_series(arrow.kind, next(iter(cols)), next(iter(cols.values()))))
        else:
            shaped.append(_frame(arrow.kind, cols))
    return shaped


def present_flat(values, layout, name=None):
    """One 1-D output (a stream's update of one bar a series) as the caller's kind."""
    return _series(layout.arrow.kind, name or layout.arrow.name, values)
