"""Ranking the sets of a scored sweep over its series (docs/python.md, "Ranking sets over the
series"): the command line's ``--by SCORE:AGG --min-trades N`` (docs/cli/run.md, "Ranking
sets over the series") on the frame of ``apportion.score()``, with its bits."""

import math
import numbers

import numpy as np

from .scores import MORE_SCORES, SCORES

# Scores of the plain views where the smaller value is the better set; every column of the
# view of more ranks largest first (docs/cli/run.md, "Scores").
_SMALLER_FIRST = ("sd", "max_drawdown")


def _view(frame):
    """The columns of the frame's view: MORE_SCORES or SCORES, else ValueError."""
    for names in (SCORES, MORE_SCORES):
        if all(n in frame.columns for n in names):
            return names
    raise ValueError(f"rank() takes the frame of apportion.score(), with the columns {', '.join(SCORES)} (or those of a view of more)")


def smaller_first(frame, by):
    """Whether a smaller aggregate of ``by`` ranks first in this frame's view."""
    return _view(frame) is SCORES and by in _SMALLER_FIRST


def parse_agg(agg):
    """("mean" | "median" | "quantile", q, name) for ``agg``: "mean", "median", a quantile as
    a number from 0 to 1, or the command line's spelling "qQ" ("q0.25")."""
    if isinstance(agg, str):
        if agg in ("mean", "median"):
            return agg, None, agg
        if agg.startswith("q"):
            try:
                q = float(agg[1:])
            except ValueError:
                q = None
            if q is not None:
                return parse_agg(q)
    elif isinstance(agg, numbers.Real) and not isinstance(agg, bool):
        q = float(agg)
        if not 0 <= q <= 1:
            raise ValueError(f"agg={agg!r}: a quantile is from 0 to 1")
        return "quantile", q, f"q{int(q) if q.is_integer() else q!r}"
    raise ValueError(f"agg={agg!r}: 'mean', 'median', or a quantile from 0 to 1 (0.25, or 'q0.25')")


def _min_trades(n):
    if isinstance(n, bool) or not isinstance(n, numbers.Real) or not float(n).is_integer() or n < 0:
        raise ValueError(f"min_trades={n!r}: a whole number >= 0")
    return float(n)


def _sets(frame):
    """(values by set: a dict {column: sets x series array}, the sets' labels as an index,
    the series' names): the frame's lines as score() lays them out, set after set and,
    within a set, the series in their order. A frame in another order is refused."""
    import pandas as pd

    if "series" not in frame.index.names:
        raise ValueError("rank() takes the frame of apportion.score(), indexed by the swept parameters and series")
    series = frame.index.get_level_values("series")
    names = list(pd.unique(series))
    rows = len(names)
    if rows == 0 or len(frame) % rows:
        raise ValueError("rank(): the frame's lines are not one per set and series (a frame of score(), whole)")
    sets = len(frame) // rows
    if list(series) != names * sets:
        raise ValueError(
            "rank(): the frame's lines are not in score()'s order (set after set, each set's series in order): "
            "rank the frame score() returned, or a whole slice of its sets"
        )
    levels = [n for n in frame.index.names if n != "series"]
    if levels:
        labels = frame.index.droplevel("series")[::rows]
    else:
        labels = pd.RangeIndex(sets, name="set")
    return labels, names, sets, rows


def aggregates(frame, by, agg, min_trades=0):
    """(the aggregate of ``by`` over each set's series, how many series counted, the sets'
    labels): the command line's formulas (docs/cli/run.md, "Ranking sets over the series"):
    a series counts when its trades (round trips in the view of more) are at least
    ``min_trades`` and its score is finite; the mean is the sum in series order from 0 over
    n; the median and quantiles read the sorted values."""
    view = _view(frame)
    if by not in view:
        raise ValueError(f"by={by!r}: one of this frame's scores: {', '.join(view)}")
    kind, q, _ = parse_agg(agg)
    least = _min_trades(min_trades)
    labels, _, sets, rows = _sets(frame)
    trades = "round_trips" if view is MORE_SCORES else "trades"
    v = frame[by].to_numpy(dtype=np.float64).reshape(sets, rows)
    kept = np.isfinite(v) & (frame[trades].to_numpy(dtype=np.float64).reshape(sets, rows) >= least)
    counted = kept.sum(axis=1)
    if kind == "mean":
        total = np.zeros(sets)
        for r in range(rows):  # in series order, one addition a counted value, as the tool adds
            total += np.where(kept[:, r], v[:, r], 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.where(counted > 0, total / np.maximum(counted, 1), np.nan)
        return values, counted, labels
    values = np.full(sets, np.nan)
    for s in range(sets):
        x = [float(a) for a in np.sort(v[s][kept[s]])]
        n = len(x)
        if n == 0:
            continue
        if kind == "median":
            values[s] = x[n // 2] if n % 2 else (x[n // 2 - 1] + x[n // 2]) / 2
        else:
            h = q * float(n - 1)
            i = math.floor(h)
            f = h - i
            values[s] = x[i] + f * (x[i + 1] - x[i]) if i + 1 < n and f > 0 else x[i]
    return values, counted, labels


def rank(scores, by=None, agg="mean", min_trades=0):
    """Ranks the sets of ``scores`` (the frame of ``apportion.score()``) by an aggregate over
    their series of one score, as ``apportion run --by SCORE:AGG --min-trades N`` does, bit
    for bit: ``by`` a column of the frame (default ``sharpe``, ``sortino`` for a view of
    more), ``agg`` ``"mean"``, ``"median"`` or a quantile from 0 to 1 (``0.25`` or
    ``"q0.25"``), and a series counts for a set when its trades are at least ``min_trades``
    and its score is finite.

    Returns a DataFrame with one row a set, best first (largest first, but smallest for
    ``sd`` and ``max_drawdown``; a set with no counted series, NaN, after every number;
    equal values in set order), indexed by the swept parameters, with the columns ``set``
    (the set's index from 0), ``value`` (the aggregate) and ``series`` (the series counted).
    ``.attrs`` holds ``by``, ``agg`` (its name, as the tool prints it), ``order`` and
    ``min_trades``."""
    view = _view(scores)
    if by is None:
        by = "sortino" if view is MORE_SCORES else "sharpe"
    values, counted, labels = aggregates(scores, by, agg, min_trades)
    smaller = smaller_first(scores, by)
    # A stable sort: NaN goes last whatever the order, and equal values keep set order.
    order = np.argsort(values if smaller else -values, kind="stable")
    import pandas as pd

    out = pd.DataFrame(
        {"set": np.arange(len(values))[order], "value": values[order], "series": counted[order]},
        index=labels[order],
    )
    out.attrs.update(
        by=by, agg=parse_agg(agg)[2], order="ascending" if smaller else "descending", min_trades=int(_min_trades(min_trades))
    )
    return out
