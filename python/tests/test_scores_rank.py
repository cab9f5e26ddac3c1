"""apportion.rank() (docs/python.md, "Ranking sets over the series"): the sets of a scored
sweep ranked by an aggregate over their series, checked against the `apportion` tool's
`--by SCORE:AGG --min-trades N` on the same data bit for bit (its JSON report and
scores.csv), and against a naive recount of the frame in plain Python."""

import json
import math
import os
import shutil
import statistics
import subprocess
import tempfile

import numpy as np
import pytest

import apportion
from conftest import assert_bitwise

SWEEP = {"period": [10, 20, 30], "nbdev_up": [1.5, 2.0]}


def _walks(rows=7, cols=2500, seed=11):
    """Random walks (rows >= 4): one with a gap of NaN, one with only NaN past bar 20 (shorter
    than a bollinger(30) warm-up: no scored bar, NaN scores) and one flat (no trade, sd 0,
    sharpe NaN), so that every kind of series that does not count is in the ranking."""
    rng = np.random.default_rng(seed)
    x = 100.0 + np.cumsum(rng.standard_normal((rows, cols)) * 0.8, axis=1)
    x[1, 700:760] = np.nan
    x[2, 20:] = np.nan
    x[3] = 100.0
    return x


@pytest.fixture(scope="module")
def tool():
    path = os.environ.get("APPORTION_CLI") or shutil.which("apportion")
    if not path:
        pytest.skip("the apportion tool is not known (APPORTION_CLI unset, none on PATH)")
    return path


def _cli_rank(tool, x, by, min_trades=None):
    """The tool's scored sweep of x: (the lines of scores.csv as floats, sets x series x 8,
    and the JSON report's `scores` object)."""
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "in.f64")
        x.astype("<f8").tofile(src)
        out = os.path.join(d, "out")
        cmd = [tool, "run", "--kernel", "bollinger", "--input", src, "--rows", str(x.shape[0]), "--output", out,
               "--devices", "cpu", "--no-learn", "--score", "bands_revert", "--cost", "0.0005", "--by", by,
               "--top", "100", "--json"]
        for k, v in SWEEP.items():
            cmd += ["--param", f"{k}={','.join(repr(float(a)) for a in v)}"]
        if min_trades is not None:
            cmd += ["--min-trades", str(min_trades)]
        done = subprocess.run(cmd, check=True, capture_output=True, text=True,
                              env=dict(os.environ, APPORTION_PROFILES="off"))
        with open(os.path.join(out, "scores.csv")) as f:
            lines = f.read().splitlines()[1:]
    values = np.array([[float(v) for v in line.split(",")[4:]] for line in lines])
    return values, json.loads(done.stdout)["scores"]


def _frame(x, runtime):
    return apportion.score(x, "bollinger", "bands_revert", axis=1, cost=0.0005, runtime=runtime, **SWEEP)


@pytest.mark.parametrize(
    "by, agg, min_trades",
    [("sharpe", "median", 150), ("sharpe", "mean", None), ("total", "q0.25", 100), ("max_drawdown", "q1", None),
     ("sd", "median", 0), ("sharpe", "q0", 150)],
)
def test_rank_is_the_tools_ranking_bit_for_bit(cpu_rt, tool, by, agg, min_trades):
    x = _walks()
    lines, report = _cli_rank(tool, x, f"{by}:{agg}", min_trades)
    frame = _frame(x, cpu_rt)
    # The same lines first: the scores the two rankings read are the same bits.
    assert_bitwise(frame.to_numpy(), lines)
    ranked = apportion.rank(frame, by=by, agg=agg, min_trades=min_trades or 0)
    assert report["by"] == by and report["agg"] == ranked.attrs["agg"] and report["order"] == ranked.attrs["order"]
    assert [b["set"] for b in report["best"]] == list(ranked["set"])
    assert [b["series"] for b in report["best"]] == list(ranked["series"])
    tool_values = np.array([np.nan if b["value"] is None else b["value"] for b in report["best"]])
    assert_bitwise(ranked["value"].to_numpy(), tool_values)
    # The tool's parameters of each set label the rows.
    for (period, nbdev_up), b in zip(ranked.index, report["best"]):
        assert (period, nbdev_up) == (b["params"]["period"], b["params"]["nbdev_up"])


def _naive(frame, by, agg, min_trades):
    """Each set's aggregate recounted from the frame's lines one by one, with the standard
    library's statistics (a quantile through numpy's linear interpolation)."""
    out = {}
    for key, part in frame.groupby(level=["period", "nbdev_up"], sort=False):
        vals = [v for v, t in zip(part[by], part["trades"]) if math.isfinite(v) and t >= min_trades]
        if not vals:
            out[key] = (math.nan, 0)
        elif agg == "mean":
            total = 0.0
            for v in vals:
                total += v
            out[key] = (total / len(vals), len(vals))
        elif agg == "median":
            out[key] = (statistics.median(vals), len(vals))
        else:
            out[key] = (float(np.quantile(np.array(vals), agg)), len(vals))
    return out


@pytest.mark.parametrize("agg", ["mean", "median", 0.3, 0.9])
def test_rank_is_a_naive_recount_of_the_frame(cpu_rt, agg):
    frame = _frame(_walks(rows=9, seed=5), cpu_rt)
    naive = _naive(frame, "sharpe", agg, 120)
    ranked = apportion.rank(frame, agg=agg, min_trades=120)
    for key, row in ranked.iterrows():
        want, n = naive[key]
        assert row["series"] == n
        if math.isnan(want):
            assert math.isnan(row["value"])
        elif isinstance(agg, str):
            assert row["value"] == want  # the same additions, and the same middle values
        else:
            assert row["value"] == pytest.approx(want, rel=1e-12, abs=1e-15)
    if isinstance(agg, str):  # the same values: the same order (largest first, NaN last, ties in set order)
        first = list(naive)
        keys = sorted(first, key=lambda k: (math.isnan(naive[k][0]), 0 if math.isnan(naive[k][0]) else -naive[k][0], first.index(k)))
        assert [tuple(k) for k in ranked.index] == keys


def test_ties_keep_set_order_and_nan_sets_go_last(cpu_rt):
    x = _walks(rows=4)
    # nbdev_up swept over one value twice: two sets with the same lines, so equal aggregates.
    frame = apportion.score(x, "bollinger", "bands_revert", axis=1, period=[20, 20], nbdev_up=[2.0, 9.0])
    ranked = apportion.rank(frame, by="sharpe", min_trades=10**9)  # nothing counts: every set NaN
    assert list(ranked["set"]) == [0, 1, 2, 3] and ranked["value"].isna().all() and (ranked["series"] == 0).all()
    ranked = apportion.rank(frame, by="total")
    by_set = dict(zip(ranked["set"], ranked["value"]))
    assert by_set[0] == by_set[2] and by_set[1] == by_set[3]
    order = list(ranked["set"])
    assert order.index(0) < order.index(2) and order.index(1) < order.index(3)


def test_smallest_first_for_sd_and_drawdown_and_the_view_of_more(cpu_rt):
    frame = _frame(_walks(), cpu_rt)
    for by in ("sd", "max_drawdown"):
        v = apportion.rank(frame, by=by)["value"].to_numpy()
        assert np.all(np.diff(v[np.isfinite(v)]) >= 0)
    more = apportion.score(_walks(), "bollinger", "bands_revert/more", axis=1, cost=0.0005, runtime=cpu_rt, **SWEEP)
    ranked = apportion.rank(more, agg="median", min_trades=100)  # sortino, round trips
    assert ranked.attrs["by"] == "sortino" and ranked.attrs["order"] == "descending"
    v = ranked["value"].to_numpy()
    assert np.all(np.diff(v[np.isfinite(v)]) <= 0)


def test_one_set_without_a_sweep():
    x = _walks(rows=4)
    ranked = apportion.rank(apportion.score(x, "bollinger", "bands_revert", axis=1), agg="median")
    assert list(ranked["set"]) == [0] and ranked.index.name == "set"


def test_bad_arguments_are_refused_with_the_reason(cpu_rt):
    frame = _frame(_walks(rows=4), cpu_rt)
    with pytest.raises(ValueError, match="quantile is from 0 to 1"):
        apportion.rank(frame, agg=1.5)
    with pytest.raises(ValueError, match="'mean', 'median', or a quantile"):
        apportion.rank(frame, agg="mode")
    for bad in (-1, 2.5, True, "3"):
        with pytest.raises(ValueError, match="min_trades"):
            apportion.rank(frame, min_trades=bad)
    with pytest.raises(ValueError, match="by='sortino'"):
        apportion.rank(frame, by="sortino")
    with pytest.raises(ValueError, match="score\\(\\)'s order"):
        apportion.rank(frame.sort_values("sharpe"))
    with pytest.raises(ValueError, match="frame of apportion.score"):
        apportion.rank(frame[["total"]])


def test_plot_scores_draws_the_aggregate_of_rank(cpu_rt, tmp_path):
    if shutil.which("gnuplot") is None:
        pytest.skip("gnuplot is not installed")
    frame = _frame(_walks(), cpu_rt)
    grid = apportion.plot_scores(frame, tmp_path / "g.png", agg="median", min_trades=150)
    ranked = apportion.rank(frame, agg="median", min_trades=150)
    for (period, nbdev_up), row in ranked.iterrows():
        assert_bitwise([grid.loc[period, nbdev_up]], [row["value"]])
    assert (tmp_path / "g.png").stat().st_size > 0
