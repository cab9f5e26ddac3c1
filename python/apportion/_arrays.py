"""Inputs in, outputs out: numpy arrays, array-likes and pandas objects to the C layout
(rows x cols float64, row-major, one series a row) and the library's outputs back to the
shape and type that came in (docs/python.md, "Arrays").
"""

import collections.abc

import numpy as np

from . import _arrow

_F64 = np.dtype(np.float64)
# Values a parameter may take to be swept rather than fixed.
SWEEP_TYPES = (range, list, tuple, np.ndarray)


def _is_pandas(x):
    return type(x).__module__.partition(".")[0] == "pandas"


class Layout:
    """How the input came in, so that outputs go back the same way."""

    __slots__ = ("one_d", "pandas", "index", "columns", "name", "lengths", "bars_first", "order", "arrow", "device")

    def __init__(self, one_d, pandas=None, index=None, columns=None, name=None, lengths=None, bars_first=False, order=None, arrow=None, device=False):
        self.one_d = one_d
        self.pandas = pandas  # None, "series" or "frame"
        self.index = index
        self.columns = columns
        self.name = name
        self.lengths = lengths  # series of different lengths: one length a row (uintp)
        # A 2-D array given with axis=0 (bars x series): its outputs go back bars first.
        self.bars_first = bars_first
        # A DatetimeIndex out of date order: the rows' positions in date order, so that the
        # outputs go back to the caller's rows (None when the index is in order already).
        self.order = order
        # Arrow data (polars, pyarrow): how its outputs go back (_arrow.ArrowLayout), else None.
        self.arrow = arrow
        # Arrays on a GPU (docs/python.md, "Device arrays"): handed to the C call as they are,
        # and their outputs come back as DeviceArrays.
        self.device = device


_NUMPY_1D = Layout(True)
_NUMPY_2D = Layout(False)
_NUMPY_2D_BARS_FIRST = Layout(False, bars_first=True)
_DEVICE_1D = Layout(True, device=True)
_DEVICE_2D = Layout(False, device=True)
# DLPack's device type of CUDA memory (kDLCUDA).
_DL_CUDA = 2
# What axis= takes: the axis along which time runs (numpy's sense of axis).
_BARS_AXIS = {0: True, 1: False, -1: False, -2: True}


def as_input(x, axis=None, one_bar=False):
    """Returns (array, layout): a C-contiguous float64 array of 1 or 2 dimensions, one
    series a row, the same object when x already is one (zero copy), else a converted copy.
    A DataFrame's columns are its series, so its array is transposed (a copy). A 2-D array
    needs ``axis``, the axis along which its bars run (docs/python.md, "Arrays"): 1 (or -1)
    when each row is a series, 0 when each column is one (transposed, a copy). ``one_bar``:
    a pandas Series is one bar of many series (a stream's update), its index naming the
    series, not dates."""
    if type(x) is np.ndarray and x.dtype == _F64 and x.flags.c_contiguous and 1 <= x.ndim <= 2 and axis is None:
        if x.ndim == 1:
            return x, _NUMPY_1D
        raise ValueError(_NEEDS_AXIS.format(shape=x.shape))
    if is_device_array(x):
        return _device_input(x, axis)
    if _is_pandas(x):
        import pandas as pd

        if isinstance(x, (pd.Series, pd.DataFrame)):
            if axis not in (None, 0, -2 if isinstance(x, pd.DataFrame) else -1):
                raise ValueError(f"axis={axis!r}: a pandas object's bars run down its index (axis 0) and a DataFrame's columns are its series; give df.T for the other way")
            order = None if one_bar and isinstance(x, pd.Series) else _date_order(pd, x.index)
        if isinstance(x, pd.Series):
            arr = _checked(_pandas_numbers(pd, x, [x.dtype]))
            return _in_date_order(arr, order), Layout(True, "series", x.index, None, x.name, order=order)
        if isinstance(x, pd.DataFrame):
            arr = _checked(_pandas_numbers(pd, x, list(x.dtypes)))
            if arr.ndim != 2:
                raise ValueError("a DataFrame gives a 2-D array")
            return _in_date_order(np.ascontiguousarray(arr.T), order), Layout(False, "frame", x.index, x.columns, order=order)
    if isinstance(x, (_arrow.TableColumn, _arrow.GroupedColumn)) or _arrow.is_arrow(x):
        return _arrow.as_input(x, axis, Layout)
    if isinstance(x, (list, tuple)):
        ragged = _ragged(x)
        if ragged is not None or _list_of_series(x):
            if axis not in (None, 1, -1):
                raise ValueError(f"axis={axis!r}: a list of 1-D series is one series an item (axis 1); give one array with axis=0 for bars x series")
            if ragged is not None:
                return ragged
            return _checked(x), _NUMPY_2D
    arr = _checked(x)
    if arr.ndim == 1:
        if axis not in (None, 0, -1):
            raise ValueError(f"axis={axis!r}: a 1-D array is one series, its bars along axis 0")
        return arr, _NUMPY_1D
    if axis is None:
        raise ValueError(_NEEDS_AXIS.format(shape=arr.shape))
    if axis not in _BARS_AXIS:
        raise ValueError(f"axis={axis!r}: a 2-D array's bars run along axis 0 (bars x series) or 1 (series x bars)")
    if _BARS_AXIS[axis]:
        return np.ascontiguousarray(arr.T), _NUMPY_2D_BARS_FIRST
    return arr, _NUMPY_2D


def is_device_array(x):
    """Whether x is an array on a GPU that another library hands over (CuPy, PyTorch,
    numba.cuda, a DeviceArray): it has __cuda_array_interface__, or DLPack on CUDA memory.
    Host DLPack objects (a CPU tensor, a pyarrow array) are read as any array-like."""
    if isinstance(x, np.ndarray):
        return False
    if hasattr(x, "__cuda_array_interface__"):
        return True
    device = getattr(x, "__dlpack_device__", None)
    if device is None:
        return False
    try:
        return device()[0] == _DL_CUDA
    except Exception:  # a producer that cannot say: not read as device memory
        return False


def _device_input(x, axis):
    """A device array as it is (the C call reads and checks it, and never copies it): one
    series, or series x bars (axis=1); bars x series would need a transposed copy on the GPU,
    which is the caller's to make."""
    shape = getattr(x, "shape", None)
    if shape is None and hasattr(x, "__cuda_array_interface__"):
        shape = x.__cuda_array_interface__.get("shape")
    ndim = len(shape) if shape is not None else 1
    if ndim != 2:
        if axis not in (None, 0, -1):
            raise ValueError(f"axis={axis!r}: a 1-D array is one series, its bars along axis 0")
        return x, _DEVICE_1D
    if axis is None:
        raise ValueError(_NEEDS_AXIS.format(shape=tuple(shape)))
    if _BARS_AXIS.get(axis, True):
        raise ValueError(
            f"axis={axis!r}: a device array is read in place, one series a row (axis=1); "
            "for bars x series give a C-contiguous transposed copy (cupy.ascontiguousarray(x.T), x.T.contiguous())"
        )
    return x, _DEVICE_2D


_NEEDS_AXIS = (
    "a 2-D array ({shape[0]} x {shape[1]}) needs axis=, the axis its bars run along: axis=0 when "
    "each column is a series (bars x series, as DataFrame.to_numpy() gives), axis=1 when each "
    "row is one (series x bars); or pass the DataFrame itself, whose columns are its series"
)


def _list_of_series(x):
    """A non-empty list or tuple whose items are all 1-D (one series each)."""
    return bool(x) and all(np.ndim(item) == 1 for item in x)


def _date_order(pd, index):
    """The order of a pandas object's rows by their dates, as the command line orders a CSV
    series' records (docs/cli/run.md, "Order of records"): None when the index is no
    DatetimeIndex or is in increasing order already, else the positions in date order
    (a stable sort). Two rows of one date are refused, as the command line refuses two
    records of one series with one date, and so is a missing date (NaT) and a long frame's
    MultiIndex, whose rows are several series."""
    if isinstance(index, pd.MultiIndex):
        raise ValueError(_long_frame_message(pd, index))
    if not isinstance(index, pd.DatetimeIndex):
        return None
    if index.is_monotonic_increasing and index.is_unique and not index.hasnans:
        return None
    if index.hasnans:
        raise ValueError(f"the index has no date at row {int(np.flatnonzero(index.isna())[0])} (NaT): every bar needs its date")
    order = np.argsort(index.asi8, kind="stable")
    sorted_dates = index.asi8[order]
    same = np.flatnonzero(sorted_dates[1:] == sorted_dates[:-1])
    if same.size:
        first, second = sorted(order[same[0] : same[0] + 2])
        raise ValueError(
            f'two rows for date "{index[first]}" (rows {first} and {second}): a series has one value a bar; '
            "keep one, or pass the values without their index (.to_numpy()) to keep the row order"
        )
    return order


def _long_frame_message(pd, index):
    names = [str(n) if n is not None else f"level {k}" for k, n in enumerate(index.names)]
    dated = [k for k in range(index.nlevels) if isinstance(index.levels[k], pd.DatetimeIndex)]
    group = next((names[k] for k in range(index.nlevels) if k not in dated), names[-1])
    return (
        f"the index has {index.nlevels} levels ({', '.join(names)}): a long frame, whose rows are several "
        f"series, which one call would compute as one series running across them. Put one series "
        f'a column, frame["close"].unstack("{group}") (the dates aligned, NaN where a {group} has no bar), '
        f"or pass each {group}'s series alone in a list (a kernel of several inputs: one list an input, "
        f'by keyword): [s.droplevel("{group}") for _, s in frame["close"].groupby(level="{group}", sort=False)]'
    )


def _in_date_order(arr, order):
    """arr (series along its last axis) with its bars in date order."""
    return arr if order is None else np.ascontiguousarray(arr[..., order])


def caller_order(a, layout):
    """An output whose bars run along its last axis, its bars back in the caller's row
    order (the inverse of _in_date_order)."""
    if layout.order is None:
        return a
    back = np.empty_like(a)
    back[..., layout.order] = a
    return back


def _pandas_numbers(pd, x, dtypes):
    """A pandas object's values as numpy. The nullable number types (Float64, Int64,
    boolean, ...) hold pd.NA where a value is missing, and to_numpy() alone gives an object
    array of them: those become float64 with NA as NaN, the gap every kernel already knows
    (docs/kernels.md, "NaN"). Anything else is left for _checked to accept or refuse."""
    nullable = [t for t in dtypes if isinstance(t, pd.api.extensions.ExtensionDtype)]
    if nullable and all(pd.api.types.is_numeric_dtype(t) for t in dtypes):
        return x.to_numpy(dtype=_F64, na_value=np.nan)
    return x.to_numpy()


def _ragged(x):
    """A list or tuple of 1-D series of different lengths as (rows x longest array, layout
    with the lengths), the library's ragged rows (docs/python.md, "Arrays"); None for
    anything else. The samples past a row's length are NaN and never read."""
    if not _list_of_series(x):
        return None
    series = [_checked(item) for item in x]
    lengths = np.array([len(s) for s in series], dtype=np.uintp)
    if (lengths == lengths[0]).all():
        return None  # one length: the ordinary rows x samples array
    arr = np.full((len(series), int(lengths.max())), np.nan)
    for row, s in zip(arr, series):
        row[: len(s)] = s
    return arr, Layout(False, lengths=lengths)


def _checked(x):
    """Any array-like of real numbers as C-contiguous float64, 1-D or 2-D; a dtype that does
    not convert safely (complex, str, object holding anything but numbers) is a TypeError."""
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as e:
        raise TypeError(f"cannot read the input as an array of numbers: {e}") from None
    if arr.dtype != _F64:
        if arr.dtype.kind not in "biuf" and not (arr.dtype.kind == "O" and _numeric_objects(arr)):
            raise TypeError(f"input has dtype {arr.dtype}; float64 (or another real number type) is needed")
        arr = arr.astype(_F64)
    if arr.ndim not in (1, 2):
        raise ValueError(f"input has {arr.ndim} dimensions; 1 (one series) or 2 (rows x samples) are accepted")
    return np.ascontiguousarray(arr)


def _numeric_objects(arr):
    try:
        arr.astype(_F64)
    except (TypeError, ValueError):
        return False
    return True


def split_params(params):
    """Fixed parameters and the swept ones, as ({name: value}, [(name, values)] or None),
    in the order given (the first swept parameter varies slowest)."""
    fixed, grid = {}, None
    for name, value in params.items():
        if value is None:
            continue
        if isinstance(value, SWEEP_TYPES) and not (isinstance(value, np.ndarray) and value.ndim == 0):
            if grid is None:
                grid = []
            grid.append((name, np.asarray(value, dtype=_F64).ravel()))
        else:
            fixed[name] = value
    return fixed, grid


def sweep_labels(grid):
    """One label a set, in the sweep's set order: the values of a single swept parameter,
    else tuples of values (the first parameter varying slowest)."""
    import itertools

    lists = [[_plain(v) for v in values] for _, values in grid]
    if len(lists) == 1:
        return lists[0]
    return list(itertools.product(*lists))


def _plain(v):
    return int(v) if float(v).is_integer() else float(v)


def present(arrays, kinds, layout, sets, grid, first_set=0):
    """The library's (sets*rows) x out_cols outputs in the caller's shape: a 1-D input drops
    the rows axis, a per-row scalar (kind "scalar") drops its axis of one column, a sweep
    adds a leading sets axis (``sets`` run, from the grid's set ``first_set``), a 2-D array
    given bars x series (axis=0) gets its outputs bars x series (views), and pandas objects
    come back with their index, in their own row order. Outputs of a 1-D input without a sweep come flat
    already (the "flat" argument of _run)."""
    if layout is _NUMPY_1D and not sets:
        return [a[0] if kind == "scalar" else a for a, kind in zip(arrays, kinds)]
    shaped = []
    for arr, kind in zip(arrays, kinds):
        r, c = arr.shape if arr.ndim == 2 else (1, arr.shape[0])
        rows = r // sets if sets else r
        shape = [] if layout.one_d else [rows]
        if kind != "scalar":
            shape.append(c)
        if sets:
            shape.insert(0, sets)
        a = arr.reshape(shape)
        if layout.pandas is not None:
            a = _to_pandas(caller_order(a, layout) if kind == "series" else a, kind, layout, sets, grid, first_set)
        elif layout.bars_first and kind != "scalar":
            a = np.swapaxes(a, -1, -2)  # bars (or replicates) x series, as the input came
        elif a.ndim == 0:
            a = a[()]  # a numpy.float64, which is a float
        shaped.append(a)
    return shaped


def present_ragged(arrays, kinds, layout, sets):
    """The library's outputs of ragged rows: a series output as a list with one array a row,
    of that row's length (views into the library's rows x longest array), and with a sweep
    a list of such lists, one a set; the other outputs as for a 2-D input."""
    rows = len(layout.lengths)
    shaped = []
    for arr, kind in zip(arrays, kinds):
        if kind != "series":
            shaped.extend(present([arr], [kind], _NUMPY_2D, sets, None))
            continue
        per_set = [
            [arr[s * rows + r, : int(n)] for r, n in enumerate(layout.lengths)] for s in range(sets or 1)
        ]
        shaped.append(per_set if sets else per_set[0])
    return shaped


def plain_presenter(layout, sets, grid, first_set):
    """How an Arrow input's outputs that are not series (reductions) come back: as for a
    numpy input of its shape (``_arrow.present`` calls it for each such output)."""
    plain = Layout(layout.one_d, lengths=layout.lengths)
    if layout.lengths is not None:
        return lambda arr, kind: present_ragged([arr], [kind], plain, sets)
    return lambda arr, kind: present([arr], [kind], plain, sets, grid, first_set)


def _to_pandas(a, kind, layout, sets, grid, first_set=0):
    import pandas as pd

    labels = None
    if sets:
        labels = sweep_labels(grid)[first_set : first_set + sets]
        names = [name for name, _ in grid]
        labels = pd.MultiIndex.from_tuples(labels, names=names) if len(names) > 1 else pd.Index(labels, name=names[0])
    if kind == "series":
        if layout.pandas == "series":
            if not sets:
                return pd.Series(a, index=layout.index, name=layout.name)
            return pd.DataFrame(a.T, index=layout.index, columns=labels)
        if not sets:
            return pd.DataFrame(a.T, index=layout.index, columns=layout.columns)
        frames = [pd.DataFrame(a[s].T, index=layout.index, columns=layout.columns) for s in range(sets)]
        return pd.concat(frames, axis=1, keys=labels)
    if kind == "scalar":
        if layout.pandas == "series":
            return a[()] if not sets else pd.Series(a, index=labels, name=layout.name)
        if not sets:
            return pd.Series(a, index=layout.columns)
        return pd.DataFrame(a, index=labels, columns=layout.columns)
    return a  # other shapes (bootstrap's replicates) stay numpy arrays


def named_inputs(kernel, names, data=None, named=None):
    """The inputs of a kernel whose inputs are ``names``, in that order (docs/python.md,
    "Several inputs"): from ``named``, arrays by keyword (``high=..., low=...``), or from
    ``data``, a DataFrame with those columns or a mapping with those keys, found whatever
    their case. A kernel of one input takes ``data`` itself, as before."""
    named = {k: v for k, v in (named or {}).items() if v is not None}
    if named:
        if data is not None:
            raise TypeError(f"kernel {kernel}: give its inputs either as a DataFrame or mapping, or as arrays by keyword, not both")
        source, what = named, "keyword"
    elif len(names) == 1 and not isinstance(data, collections.abc.Mapping):
        if data is None:
            raise TypeError(f"kernel {kernel} takes one input, {names[0]}")
        return (data,)
    elif isinstance(data, collections.abc.Mapping):
        source, what = data, "key"
    elif _is_pandas(data) and hasattr(data, "columns"):
        source, what = {c: data[c] for c in data.columns}, "column"
    elif _arrow.is_arrow(data):
        source, what = _arrow.ArrowTable(data), "column"
    else:
        raise TypeError(
            f"kernel {kernel} takes the inputs {', '.join(names)}: give a DataFrame or mapping "
            f"with them, or arrays by keyword ({names[0]}=...)"
        )
    by_lower = {}
    for key in source:
        by_lower.setdefault(str(key).lower(), []).append(key)
    wanted = {n.lower() for n in names}
    if what == "keyword":
        unknown = [k for k in source if k.lower() not in wanted]
        if unknown:
            raise TypeError(f"kernel {kernel} has no input {unknown[0]!r} (its inputs: {', '.join(names)})")
    picked = []
    for n in names:
        keys = by_lower.get(n.lower(), [])
        if not keys:
            raise KeyError(f"kernel {kernel} needs the input {n!r}: no {what} of that name (any case) among {', '.join(map(str, source)) or 'none'}")
        if len(keys) > 1:
            raise ValueError(f"kernel {kernel}: input {n!r} matches the {what}s {', '.join(map(repr, keys))}; keep one")
        picked.append(source[keys[0]])
    return tuple(picked)
