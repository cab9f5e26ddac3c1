"""Scored sweeps (docs/python.md, "Scores"): a grid of parameter sets over many series that
ends in one line of scores per set and series, computed where the indicator is and never
stored (docs/scores.md, "Scores", defines the rules and the scores)."""

import itertools

import numpy as np

from ._arrays import SWEEP_TYPES, _plain, as_input, split_params, sweep_labels
from ._default import default_runtime

#: The scores, in the order of a scored call's outputs.
SCORES = ("total", "mean", "sd", "sharpe", "max_drawdown", "trades", "exposure", "bars")
# The outputs of a rule's view of more statistics, "RULE/more" (docs/kernels/volume_statistics.md, "More
# statistics and compounding").
MORE_SCORES = ("sortino", "calmar", "cagr", "win_rate", "profit_factor", "avg_trade", "turnover", "round_trips")


def _score_names(rule):
    """The columns a rule's view gives: MORE_SCORES for "RULE/more", else SCORES."""
    return MORE_SCORES if rule.endswith("/more") else SCORES


class Follow:
    """A parameter of score() that moves in step with a swept one (``follow()``)."""

    def __init__(self, leader, values=None):
        if not isinstance(leader, str):
            raise TypeError(f"follow() takes the name of the parameter to follow, not {leader!r}")
        self.leader = leader
        self.values = None if values is None else np.asarray(values, dtype=np.float64).ravel()

    def __repr__(self):
        return f"follow({self.leader!r})" if self.values is None else f"follow({self.leader!r}, {list(self.values)!r})"


def follow(leader, values=None):
    """Pairs a parameter of score() with the swept parameter ``leader``: set i of the sweep
    takes the leader's i-th value and this parameter's i-th value (``values``, as many as
    the leader's; by default the leader's own), instead of every combination of the two:
    ``score(x, "bollinger", "bands_revert", nbdev_up=[1, 2, 3], nbdev_dn=follow("nbdev_up"))``
    scores the symmetric bands 1/1, 2/2 and 3/3 only."""
    return Follow(leader, values)


def _series(data, axis):
    """(closes, series names): the input of the scored call, one series a row, read as
    every call of the package reads one (docs/python.md, "Arrays"): a DataFrame's columns,
    a Series, a list of 1-D series (of different lengths too: a ragged call, as the command
    line scores tickers of several lengths), a 2-D array with ``axis``, or one 1-D array.
    Series of different lengths stay the list they came as; anything else is the
    rows x bars array."""
    arr, layout = as_input(data, axis)
    if layout.pandas == "frame":
        names = list(layout.columns)
    elif layout.pandas == "series":
        names = [layout.name if layout.name is not None else 0]
    elif layout.arrow is not None and layout.columns is not None:
        names = list(layout.columns)  # a polars or pyarrow frame's columns
    elif layout.arrow is not None and layout.arrow.name:
        names = [layout.arrow.name]
    else:
        names = list(range(1 if layout.one_d else arr.shape[0]))
    if layout.lengths is not None:
        return [row[: int(n)] for row, n in zip(arr, layout.lengths)], names
    return (arr.reshape(1, -1) if layout.one_d else arr), names


def score(data, kernel, rule, *, cost=0.0, periods_per_year=252, runtime=None, ratios=None, axis=None, ranges=None, **params):
    """Scores ``rule`` on ``kernel`` over every series of ``data`` (a DataFrame whose columns
    are the series, a Series, a list of 1-D series, of different lengths too, a 2-D array
    with ``axis``, the axis its bars run along, or one 1-D array of closes) for
    every parameter set: a parameter given as a range, list, tuple or array is swept (the
    cross product, the first varying slowest), ``cost`` and ``periods_per_year`` included.

    Returns a DataFrame with one row per set and series, indexed by the swept parameters
    and ``series``, with one column per score (``SCORES``; ``MORE_SCORES`` for a rule's view
    ``"RULE/more"``; ``"RULE/compound"`` and ``"RULE/log"`` give ``SCORES`` with the compounded
    total and drawdown; every built-in rule takes ``side``: -1, 0 or 1). A KeyboardInterrupt stops the
    call within a piece of the sweep. A parameter given as ``follow("name")`` moves in step
    with the swept parameter ``name`` rather than across it (``follow()``). Rules (docs/scores.md, "Rules"): ``bands_revert`` and
    ``bands_zone`` on bollinger, ``macd_cross`` on macd, ``rsi_zone``, ``rsi_revert``,
    ``cmo_zone``, ``cmo_revert``, ``price_cross`` on the moving averages; a zone or revert
    rule's ``lower`` and ``upper`` are parameters like the indicator's (``lower=[20, 30]``
    sweeps them). The rules on kernels of high, low and close run through
    ``rt.compute("willr:willr_zone", high, low, close, ...)``, since ``data`` is closes.

    ``ranges``, a list of ``(begin, end)`` pairs, scores every set on each range in one pass
    (docs/scores.md, "Ranges"): bar numbers ``[begin, end)``, or, for data with an index (a
    DataFrame or Series), labels of the index, both included (``("2020-01-01",
    "2020-12-31")``). Each range's scores are those of the range scored alone: the
    indicator over the whole history, the positions and scores from the range's first bar.
    The result gains an index level ``range`` ("begin:end" as given)."""
    import pandas as pd

    rt = runtime if runtime is not None else default_runtime()
    if ranges is not None:
        return _ranged(data, kernel, rule, rt, ratios, axis, ranges, dict(params, cost=cost, periods_per_year=periods_per_year))
    x, names = _series(data, axis)
    params = dict(params, cost=cost, periods_per_year=periods_per_year)
    if any(isinstance(v, Follow) for v in params.values()):
        return _paired(x, names, kernel, rule, rt, ratios, params)
    _, grid = split_params({k: v for k, v in params.items() if isinstance(v, SWEEP_TYPES)})
    result = rt.compute(f"{kernel}:{rule}", x, ratios=ratios, axis=1, **params)
    rows = len(names)
    sets = 1
    for _, values in grid or []:
        sets *= len(values)
    columns = {name: np.asarray(getattr(result, name), dtype=np.float64).reshape(sets * rows) for name in _score_names(rule)}
    if grid:
        labels = sweep_labels(grid)
        if len(grid) == 1:
            labels = [(v,) for v in labels]
        keys = [tuple(label) + (series,) for label in labels for series in names]
        index = pd.MultiIndex.from_tuples(keys, names=[name for name, _ in grid] + ["series"])
    else:
        index = pd.Index(names, name="series")
    return pd.DataFrame(columns, index=index)


def _paired(x, names, kernel, rule, rt, ratios, params):
    """score() with follow() parameters: one scored call per value of each leader (its
    followers set alongside it), every other swept parameter swept inside the call; the lines
    are then put in the order and under the index that score() gives a sweep, a leader and
    its followers counting as one swept axis at the leader's place. Each line is the one of
    its set scored alone, as in any sweep; sets that differ in a leader do not share a pass
    (docs/python.md, "Scores")."""
    import pandas as pd

    swept = {k: v for k, v in params.items() if isinstance(v, SWEEP_TYPES + (Follow,))}
    followers = {k: v for k, v in swept.items() if isinstance(v, Follow)}
    values = {}
    for name, spec in swept.items():
        if not isinstance(spec, Follow):
            values[name] = np.asarray(spec, dtype=np.float64).ravel()
    for name, f in followers.items():
        leader = swept.get(f.leader)
        if leader is None or isinstance(leader, Follow):
            why = "a follower" if isinstance(leader, Follow) else "not swept" if f.leader in params else "not given"
            raise ValueError(f"{name}=follow({f.leader!r}): {f.leader} is {why}; a parameter follows a swept one")
        own = values[f.leader] if f.values is None else f.values
        if len(own) != len(values[f.leader]):
            raise ValueError(
                f"{name}=follow({f.leader!r}, ...) has {len(own)} values for the {len(values[f.leader])} of {f.leader}"
            )
        values[name] = own
    # The sweep's axes in the order given: a plain swept parameter, or a leader with its followers.
    axes = [name for name in swept if name not in followers]
    groups = {a: [a] + [n for n, f in followers.items() if f.leader == a] for a in axes}
    leaders = [a for a in axes if len(groups[a]) > 1]
    inner = [a for a in axes if len(groups[a]) == 1]
    sizes = {a: len(values[a]) for a in axes}
    rows = len(names)
    n_sets = int(np.prod([sizes[a] for a in axes]))
    score_names = _score_names(rule)
    out = np.empty((n_sets * rows, len(score_names)))
    for picks in itertools.product(*[range(sizes[a]) for a in leaders]):
        call = dict(params)
        for a, i in zip(leaders, picks):
            for n in groups[a]:
                call[n] = float(values[n][i])
        result = rt.compute(f"{kernel}:{rule}", x, ratios=ratios, axis=1, **call)
        got = np.stack([np.asarray(getattr(result, s), dtype=np.float64).reshape(-1) for s in score_names], axis=1)
        at = dict(zip(leaders, picks))
        for j, inner_picks in enumerate(itertools.product(*[range(sizes[a]) for a in inner])):
            at.update(zip(inner, inner_picks))
            s = 0
            for a in axes:  # the first axis varies slowest, as in score()'s sweeps
                s = s * sizes[a] + at[a]
            out[s * rows : (s + 1) * rows] = got[j * rows : (j + 1) * rows]
    # The index: every swept parameter in the order given, a follower at its leader's pick.
    level_names = list(swept)
    axis_of = {n: followers[n].leader if n in followers else n for n in level_names}
    keys = []
    for picks in itertools.product(*[range(sizes[a]) for a in axes]):
        at = dict(zip(axes, picks))
        label = tuple(_plain(values[n][at[axis_of[n]]]) for n in level_names)
        keys.extend(label + (series,) for series in names)
    index = pd.MultiIndex.from_tuples(keys, names=level_names + ["series"])
    return pd.DataFrame({s: out[:, k] for k, s in enumerate(score_names)}, index=index)


def _bars(data, ranges):
    """The ranges as bar numbers [begin, end) (an n x 2 array) and their labels: integer pairs
    are bars already; other pairs are labels of the data's index, both included, found by
    searchsorted on it (so the index must be sorted)."""
    index = getattr(data, "index", None)
    bars, labels = [], []
    for pair in ranges:
        begin, end = pair
        labels.append(f"{begin}:{end}")
        if isinstance(begin, (int, np.integer)) and isinstance(end, (int, np.integer)):
            if begin < 0 or end < 0:
                raise ValueError(f"range {begin}:{end}: bars are numbered from 0")
            bars.append((int(begin), int(end)))
            continue
        if index is None:
            raise TypeError(f"range {begin}:{end}: dates need data with an index (a DataFrame or Series); give bar numbers")
        if not index.is_monotonic_increasing:
            raise ValueError("ranges by date need the data's index sorted")
        bars.append((int(index.searchsorted(begin, side="left")), int(index.searchsorted(end, side="right"))))
    return np.asarray(bars, dtype=np.uintp).reshape(-1, 2), labels


def _ranged(data, kernel, rule, rt, ratios, axis, ranges, params):
    """score() with ``ranges``: one ranged scored call; lines set after set, series after
    series, range after range, as the call lays them out ((set * rows + row) * ranges +
    range)."""
    import pandas as pd

    if any(isinstance(v, Follow) for v in params.values()):
        raise TypeError("ranges= does not take follow() parameters yet: sweep the parameters, or score the pairs one call each")
    bars, labels = _bars(data, ranges)
    if len(labels) == 0:
        raise ValueError("ranges is empty: give at least one (begin, end) pair, or leave it out for the whole series")
    x, names = _series(data, axis)
    lengths = None
    if isinstance(x, list):  # series of different lengths: the library's ragged rows
        lengths = np.array([len(r) for r in x], dtype=np.uintp)
        arr = np.full((len(x), int(lengths.max())), np.nan)
        for i, r in enumerate(x):
            arr[i, : len(r)] = r
        x = arr
    fixed, grid = split_params(params)
    outs, _, _ = rt._run(f"{kernel}:{rule}", (np.ascontiguousarray(x, dtype=np.float64),), None, fixed, grid, 0, ratios, None, 0, 0, False, False, lengths, 0, 0, bars.ravel())
    score_names = _score_names(rule)
    columns = {n: np.asarray(o, dtype=np.float64).reshape(-1) for n, o in zip(score_names, outs)}
    sets = [()]
    level_names = ["series", "range"]
    if grid:
        sets = sweep_labels(grid)
        if len(grid) == 1:
            sets = [(v,) for v in sets]
        level_names = [name for name, _ in grid] + level_names
    keys = [tuple(label) + (series, r) for label in sets for series in names for r in labels]
    return pd.DataFrame(columns, index=pd.MultiIndex.from_tuples(keys, names=level_names))


# The scores whose best is the smallest (the CLI's order, docs/cli/run.md, "Scores").
_SMALLEST_FIRST = ("sd", "max_drawdown")


def walk_forward(data, kernel, rule, *, train, test, anchored=False, by="sharpe", cost=0.0, periods_per_year=252, runtime=None, ratios=None, axis=None, **params):
    """A walk-forward (docs/scores.md, "Walk-forward") of the swept sets: window i trains on
    ``train`` bars before bar e = train + i * test (from bar 0 when ``anchored``) and tests
    on the ``test`` bars from e, the windows from apo_walk_forward(), every set scored on
    every window in one ranged call. Per series and window, the winner is the set with the
    best ``by`` score on the train window (largest, or smallest for sd and max_drawdown; NaN
    never wins; ties go to the lower set), and its scores on the test window are its
    out-of-sample scores.

    Returns (windows, record): ``windows`` a DataFrame indexed by series and window with the
    train and test bars, the winner's set and swept values, its train ``by`` score and its
    test scores; ``record`` the stitched out-of-sample record per series, the winners' test
    windows one after another: ``total`` (the sum of their totals), ``trades`` and ``bars``
    (their sums) and ``windows`` (those with a winner)."""
    import pandas as pd

    from . import _core

    x, names = _series(data, axis)
    n = max(len(r) for r in x) if isinstance(x, list) else np.asarray(x).shape[-1]
    bars, train_of, test_of = _core.walk_forward(int(n), int(train), int(test), bool(anchored))
    ranges = [(int(b), int(e)) for b, e in bars]
    got = score(data, kernel, rule, cost=cost, periods_per_year=periods_per_year, runtime=runtime, ratios=ratios, axis=axis, ranges=ranges, **params)
    if by not in got.columns:
        raise ValueError(f"by={by!r}: the rule's scores are {', '.join(got.columns)}")
    swept = [name for name in got.index.names if name not in ("series", "range")]
    n_ranges = len(ranges)
    table = got.to_numpy().reshape(-1, len(names), n_ranges, got.shape[1])  # set, series, range, score
    col = list(got.columns).index(by)
    sign = 1.0 if by in _SMALLEST_FIRST else -1.0
    set_labels = list(dict.fromkeys(k[: len(swept)] for k in got.index))
    rows, record = [], []
    for s_i, series in enumerate(names):
        total = trades = nbars = 0.0
        won = 0
        for w, (tr, te) in enumerate(zip(train_of, test_of)):
            key = sign * table[:, s_i, tr, col]
            finite = np.isfinite(key)
            line = {"series": series, "window": w, "train": f"{ranges[tr][0]}:{ranges[tr][1]}", "test": f"{ranges[te][0]}:{ranges[te][1]}"}
            if not finite.any():
                line.update({"set": -1, f"train_{by}": np.nan})
                line.update({c: np.nan for c in got.columns})
            else:
                best = int(np.flatnonzero(finite)[np.argmin(key[finite])])
                line.update({"set": best, f"train_{by}": table[best, s_i, tr, col]})
                line.update(dict(zip(swept, set_labels[best])))
                line.update(dict(zip(got.columns, table[best, s_i, te])))
                won += 1
                if "total" in got.columns and np.isfinite(line["total"]):
                    total += line["total"]
                trades += line.get("trades", 0.0)
                nbars += line.get("bars", 0.0)
            rows.append(line)
        record.append({"series": series, "total": total, "trades": trades, "bars": nbars, "windows": won})
    windows = pd.DataFrame(rows).set_index(["series", "window"])
    return windows, pd.DataFrame(record).set_index("series")
