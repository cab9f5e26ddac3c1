"""Scored sweeps (docs/python.md, "Scores"): a grid of parameter sets over many series that
ends in one line of scores per set and series, computed where the indicator is and never
stored (docs/kernels.md, "Scores", defines the rules and the scores)."""

import numpy as np

from ._arrays import SWEEP_TYPES, split_params, sweep_labels
from ._default import default_runtime

#: The scores, in the order of a scored call's outputs.
SCORES = ("total", "mean", "sd", "sharpe", "max_drawdown", "trades", "exposure", "bars")


def _series(data):
    """(rows x bars float64 array, series names) of closes: a DataFrame's columns, a Series,
    a 2-D array's rows or one 1-D array."""
    if hasattr(data, "columns"):  # a DataFrame: its columns are the series
        return np.ascontiguousarray(data.to_numpy(dtype=np.float64).T), [c for c in data.columns]
    if hasattr(data, "to_numpy"):  # a Series
        return np.ascontiguousarray(data.to_numpy(dtype=np.float64)[None, :]), [data.name if data.name is not None else 0]
    arr = np.asarray(data, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"score() takes one series or rows x bars, not an array of {arr.ndim} dimensions")
    return np.ascontiguousarray(arr), list(range(arr.shape[0]))


def score(data, kernel, rule, *, cost=0.0, periods_per_year=252, runtime=None, ratios=None, **params):
    """Scores ``rule`` on ``kernel`` over every series of ``data`` (a DataFrame whose columns
    are the series, a Series, a 2-D array of rows x bars or one 1-D array of closes) for
    every parameter set: a parameter given as a range, list, tuple or array is swept (the
    cross product, the first varying slowest), ``cost`` and ``periods_per_year`` included.

    Returns a DataFrame with one row per set and series, indexed by the swept parameters
    and ``series``, with one column per score (``SCORES``). A KeyboardInterrupt stops the
    call within a piece of the sweep. Rules (docs/kernels.md, "Rules"): ``bands_revert`` and
    ``bands_zone`` on bollinger, ``macd_cross`` on macd, ``rsi_zone``, ``rsi_revert``,
    ``cmo_zone``, ``cmo_revert``, ``price_cross`` on the moving averages; a zone or revert
    rule's ``lower`` and ``upper`` are parameters like the indicator's (``lower=[20, 30]``
    sweeps them). The rules on kernels of high, low and close run through
    ``rt.compute("willr:willr_zone", high, low, close, ...)``, since ``data`` is closes."""
    import pandas as pd

    rt = runtime if runtime is not None else default_runtime()
    x, names = _series(data)
    params = dict(params, cost=cost, periods_per_year=periods_per_year)
    _, grid = split_params({k: v for k, v in params.items() if isinstance(v, SWEEP_TYPES)})
    result = rt.compute(f"{kernel}:{rule}", x, ratios=ratios, **params)
    rows = len(names)
    sets = 1
    for _, values in grid or []:
        sets *= len(values)
    columns = {name: np.asarray(getattr(result, name), dtype=np.float64).reshape(sets * rows) for name in SCORES}
    if grid:
        labels = sweep_labels(grid)
        if len(grid) == 1:
            labels = [(v,) for v in labels]
        keys = [tuple(label) + (series,) for label in labels for series in names]
        index = pd.MultiIndex.from_tuples(keys, names=[name for name, _ in grid] + ["series"])
    else:
        index = pd.Index(names, name="series")
    return pd.DataFrame(columns, index=index)
