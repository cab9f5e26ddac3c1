"""The positions of one set (docs/python.md, "The positions of one set"): bar by bar, what a
rule did with one parameter set over chosen series, folded by the library's own
apo_score_positions() (docs/scores.md, "The positions of one set"), and the equity curve."""

import numpy as np

from . import _core, errors
from ._arrays import SWEEP_TYPES, as_input
from ._default import default_runtime
from .runtime import _LONG_SERIES


def _indicator(rt, kernel, close, own, n_outputs):
    """The set's indicator over one series alone: a plain call, which learns nothing. A
    series too short for it (the call refused with BadParameterError while a very long
    series is not) has NaN outputs, as the scored call scores it with no bar."""
    try:
        return [np.asarray(o, dtype=np.float64) for o in rt.compute(kernel, close, learn=False, **own)]
    except errors.BadParameterError:
        rt._output_shapes(kernel, 1, _LONG_SERIES, own, None)  # the parameters themselves: raises
        return [np.full(len(close), np.nan) for _ in range(n_outputs)]


def positions(data, kernel, rule, *, cost=0.0, periods_per_year=252, runtime=None, axis=None, **params):
    """What ``rule`` on ``kernel`` did with one parameter set over every series of ``data``
    (closes, taken as ``score()`` takes them), bar by bar: a DataFrame with the columns
    ``close``, ``position`` (after the bar: -1, 0 or +1), ``return`` (NaN at a bar that is
    not scored) and ``equity`` (the view's running total after the bar, 0 before the first
    scored bar: the sum of the returns, the compounded equity less 1 for ``/compound`` and
    ``/more``, its logarithm for ``/log``), indexed by the bar (the pandas index's labels, in
    date order, where the data has one), and by ``series`` first when there are several.
    The equity at the last scored bar is the set's ``total`` in ``score()`` bit for bit.
    ``.attrs["scores"]`` holds the set's scores, one row a series.

    Each series' indicator is a plain call of that series alone; the library's
    ``apo_score_positions()`` folds it with the rule's own code. A parameter given as a list,
    range or array (a sweep) raises ``ValueError``: name one set (``rank()``'s index gives
    them)."""
    import pandas as pd

    rt = runtime if runtime is not None else default_runtime()
    swept = [k for k, v in params.items() if isinstance(v, SWEEP_TYPES)]
    swept += [k for k, v in (("cost", cost), ("periods_per_year", periods_per_year)) if isinstance(v, SWEEP_TYPES)]
    if swept:
        raise ValueError(f"positions() follows one set: {', '.join(swept)} must be one value each, not a sweep")
    info = rt.kernel_info(kernel)
    if len(info["inputs"]) != 1:
        raise TypeError(
            f"positions() takes closes, and kernel {kernel} reads {', '.join(info['inputs'])}: "
            "fold its outputs with apportion._core.score_positions() instead"
        )
    own = {k: v for k, v in params.items() if k in info["params"]}
    every = dict(params, cost=cost, periods_per_year=periods_per_year)
    arr, layout = as_input(data, axis)
    if layout.pandas == "frame":
        names = list(layout.columns)
    elif layout.pandas == "series":
        names = [layout.name if layout.name is not None else 0]
    else:
        names = list(range(1 if layout.one_d else arr.shape[0]))
    rows = arr.reshape(1, -1) if layout.one_d else arr
    if layout.pandas is not None:
        bars = layout.index if layout.order is None else layout.index[layout.order]
    else:
        bars = None
    frames, scores = [], []
    columns = None
    for r, name in enumerate(names):
        n = int(layout.lengths[r]) if layout.lengths is not None else rows.shape[1]
        close = np.ascontiguousarray(rows[r, :n])
        outs = _indicator(rt, kernel, close, own, len(info["outputs"]))
        pos, ret, eq, sc = _core.score_positions(kernel, rule, close, outs, every)
        index = bars if bars is not None else pd.RangeIndex(n, name="bar")
        frames.append(pd.DataFrame({"close": close, "position": pos, "return": ret, "equity": eq}, index=index))
        scores.append(sc)
        columns = rt.kernel_info(f"{kernel}:{rule}")["outputs"] if columns is None else columns
    if len(names) == 1 and layout.lengths is None and (layout.one_d or layout.pandas == "series"):
        out = frames[0]
    else:
        out = pd.concat(frames, keys=names, names=["series"])
    out.attrs["scores"] = pd.DataFrame(np.array(scores), index=pd.Index(names, name="series"), columns=list(columns))
    return out


def plot_equity(frame, path=None, ax=None, title=None):
    """Draws the equity curve(s) of ``positions()``'s frame with matplotlib: one line a
    series, bars along the bottom. Into ``path`` (any format matplotlib writes; the picture
    goes under a temporary name and is renamed into place once whole) or onto ``ax`` (without either, a new
    matplotlib Figure's); returns the Axes. Raises ImportError, saying so, where matplotlib is not installed."""
    try:
        from matplotlib.figure import Figure
    except ImportError as e:
        raise ImportError(
            "plot_equity() draws with matplotlib, which is not installed (pip install matplotlib, "
            "or on Debian apt-get install python3-matplotlib)"
        ) from e
    import os

    if "equity" not in getattr(frame, "columns", ()):
        raise ValueError("plot_equity() takes the frame of apportion.positions()")
    fig = None
    if ax is None:  # a figure of its own, not pyplot's: no backend or global state is touched
        fig = Figure(figsize=(9, 5))
        ax = fig.subplots()
    if "series" in frame.index.names:
        for name, part in frame.groupby(level="series", sort=False):
            ax.plot(part.index.droplevel("series"), part["equity"].to_numpy(), label=str(name), lw=1)
        ax.legend(loc="best", fontsize="small")
    else:
        ax.plot(frame.index, frame["equity"].to_numpy(), lw=1)
    ax.set_xlabel(frame.index.names[-1] or "bar")
    ax.set_ylabel("equity (running total of the returns)")
    if title is not None:
        ax.set_title(title)
    if path is not None:
        path = os.fspath(path)
        base, ext = os.path.splitext(path)
        partial = f"{base}.{os.getpid()}.tmp{ext}"
        try:
            (fig or ax.figure).savefig(partial)
            os.replace(partial, path)
        finally:
            if os.path.exists(partial):
                os.unlink(partial)
    return ax
