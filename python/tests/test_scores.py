"""apportion.score(): scored sweeps (docs/python.md, "Scores"). The scores against an
independent evaluation of docs/kernels.md's definitions in long double over the
indicator's own outputs; the frame's index and order; bitwise equality with each set's
call alone; a series too short to score; a rule refused on a kernel it does not fit."""

import math

import numpy as np
import pandas as pd
import pytest

import apportion
import bands_reference

N = 6000


def _walks(rows, seed):
    return bands_reference.walks(rows, N, seed)


def _reference(rule, close, out, cost, periods):
    """The definition, read literally: positions, then returns, then the scores."""
    upper, middle, lower = out
    pos = bands_reference.positions(rule, close, upper, middle, lower)
    first = bands_reference.first_finite(upper, middle, lower)
    r, trades, exposed = bands_reference.returns(pos, close, first, cost)
    mean = r.mean()
    sd = np.sqrt(((r - mean) ** 2).mean())
    run = np.concatenate([[np.longdouble(0)], np.cumsum(r)])
    dd = (np.maximum.accumulate(run) - run).max()
    return {"total": r.sum(), "mean": mean, "sd": sd, "sharpe": mean / sd * np.sqrt(np.longdouble(periods)),
            "max_drawdown": dd, "trades": trades, "exposure": np.longdouble(exposed) / len(r), "bars": len(r)}


@pytest.fixture(scope="module")
def rt():
    with apportion.Runtime("cpu,sim:a:rate=2e8", profiles=False) as runtime:
        yield runtime


def test_a_swept_frame_matches_the_definition(rt):
    x = _walks(3, 5)
    frame = pd.DataFrame(x.T, columns=["AAA", "BBB", "CCC"])
    got = apportion.score(frame, "bollinger", "bands_revert", period=[10, 20, 30], nbdev_up=[1.5, 2.0], cost=0.0005, runtime=rt)
    assert list(got.columns) == list(apportion.SCORES)
    assert got.index.names == ["period", "nbdev_up", "series"]
    assert len(got) == 3 * 2 * 3
    assert got.index[0] == (10, 1.5, "AAA") and got.index[-1] == (30, 2.0, "CCC")
    for period in (10, 30):
        for width in (1.5, 2.0):
            bands = apportion.bollinger(x, period=period, nbdev_up=width, runtime=rt, axis=-1)
            for r, name in enumerate(frame.columns):
                want = _reference("bands_revert", x[r], [b[r] for b in bands], 0.0005, 252)
                line = got.loc[(period, width, name)]
                assert want["bars"] > N // 2 and want["trades"] > 10
                for score, value in want.items():
                    assert abs(np.longdouble(line[score]) - value) <= 1e-9 * max(abs(value), 1e-3), (period, width, name, score)


def test_each_set_is_its_call_alone_bitwise(rt):
    x = _walks(2, 6)
    got = apportion.score(x, "macd", "macd_cross", fast=[8, 12], cost=[0.0, 0.001], runtime=rt, axis=-1)
    for fast in (8, 12):
        for cost in (0.0, 0.001):
            alone = apportion.score(x, "macd", "macd_cross", fast=fast, cost=cost, runtime=rt, axis=-1)
            assert alone.index.names == ["series"]
            for series in (0, 1):
                a = got.loc[(fast, cost, series)].to_numpy()
                b = alone.loc[series].to_numpy()
                assert a.tobytes() == b.tobytes()


def test_bands_zone_and_a_single_series(rt):
    x = _walks(1, 7)[0]
    got = apportion.score(pd.Series(x, name="ZZZ"), "bollinger", "bands_zone", runtime=rt)
    bands = apportion.bollinger(x, runtime=rt)
    want = _reference("bands_zone", x, list(bands), 0.0, 252)
    assert list(got.index) == ["ZZZ"]
    assert got.loc["ZZZ", "bars"] == want["bars"]
    assert abs(np.longdouble(got.loc["ZZZ", "total"]) - want["total"]) <= 1e-9 * abs(want["total"])


def test_a_series_too_short_scores_no_bar(rt):
    got = apportion.score(np.linspace(100, 101, 15), "bollinger", "bands_revert", runtime=rt)
    line = got.iloc[0]
    assert line["bars"] == 0 and line["trades"] == 0
    assert all(math.isnan(line[s]) for s in ("total", "mean", "sd", "sharpe", "max_drawdown", "exposure"))


def test_a_rule_that_does_not_fit_is_refused(rt):
    with pytest.raises(apportion.ApportionError, match="does not fit kernel macd"):
        apportion.score(np.ones(100), "macd", "bands_revert", runtime=rt)
    with pytest.raises(apportion.ApportionError, match="no rule named"):
        apportion.score(np.ones(100), "bollinger", "golden_cross", runtime=rt)


def _zone_reference(rsi, close, lower, upper):
    """The trades of rsi_zone's positions read from docs/kernels.md's table."""
    out = [0]
    for t in range(len(close)):
        prev = out[-1]
        if not math.isfinite(close[t]):
            out.append(prev)
        else:
            out.append(1 if rsi[t] < lower else -1 if rsi[t] > upper else 0)
    pos = out[1:]
    first = next((t for t in range(len(close)) if math.isfinite(rsi[t])), len(close))
    trades = sum(1 for t in range(first + 1, len(close))
                 if math.isfinite(close[t]) and math.isfinite(close[t - 1]) and pos[t] != pos[t - 1])
    return trades


def test_a_rules_thresholds_pass_through_and_sweep(rt):
    x = _walks(2, 8)
    got = apportion.score(x, "rsi", "rsi_zone", timeperiod=14, lower=[20, 30], upper=70, runtime=rt, axis=-1)
    assert got.index.names == ["lower", "series"]
    rsi = apportion.compute("rsi", x, timeperiod=14, runtime=rt, axis=-1).rsi
    for lower in (20, 30):
        for series in (0, 1):
            want = _zone_reference(rsi[series], x[series], lower, 70)
            assert got.loc[(lower, series), "trades"] == want
            alone = apportion.score(x, "rsi", "rsi_zone", lower=lower, runtime=rt, axis=-1)
            assert got.loc[(lower, series)].to_numpy().tobytes() == alone.loc[series].to_numpy().tobytes()
    with pytest.raises(apportion.BadParameterError, match="must be below upper"):
        apportion.score(x, "rsi", "rsi_zone", lower=80, runtime=rt, axis=-1)


def test_series_of_different_lengths_score_as_each_alone(rt):
    """A list of series of several lengths is one ragged call, as the indicator functions
    take it and as the command line scores tickers of several lengths: each series' lines
    are bitwise those of that series scored alone."""
    x = _walks(3, 1)
    series = [x[0], x[1, :4000], x[2, :2500]]
    got = apportion.score(series, "bollinger", "bands_revert", period=[10, 20], nbdev_up=2, runtime=rt)
    assert list(got.index.get_level_values("series")) == [0, 1, 2] * 2
    for r, s in enumerate(series):
        alone = apportion.score(s, "bollinger", "bands_revert", period=[10, 20], nbdev_up=2, runtime=rt)
        assert np.array_equal(got.xs(r, level="series").to_numpy(), alone.to_numpy(), equal_nan=True)
    assert got.xs(2, level="series")["bars"].max() <= 2500
