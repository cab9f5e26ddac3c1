"""apportion.positions() (docs/python.md, "The positions of one set"): the bar-by-bar
positions, returns and equity of one set, folded by apo_score_positions() through _core.
Checked against the set's scores from score() (the equity at the last scored bar is `total`
bit for bit), against an independent reading of bands_revert's table and of the returns in
docs/scores.md, and against the tool's positions.csv bit for bit."""

import csv
import math
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import apportion
from conftest import assert_bitwise

COST = 0.0005


def _walks(rows=4, cols=3000, seed=21):
    rng = np.random.default_rng(seed)
    x = 100.0 + np.cumsum(rng.standard_normal((rows, cols)) * 0.7, axis=1)
    x[-1, 900:930] = np.nan  # a gap: bars not scored, the position carried
    x[-1, 1500] = np.inf
    return x


def _last_scored(ret):
    scored = np.flatnonzero(~np.isnan(ret))
    return scored[-1] if scored.size else None


@pytest.mark.parametrize("rule", ["bands_revert", "bands_revert/compound", "bands_revert/log", "bands_zone"])
@pytest.mark.parametrize("side", [0, 1, -1])
def test_the_last_equity_is_the_sets_total_bit_for_bit(cpu_rt, rule, side):
    x = _walks()
    frame = apportion.score(x, "bollinger", rule, axis=1, period=[10, 20], nbdev_up=[1.5, 2.0], cost=COST,
                            side=side, runtime=cpu_rt)
    p = apportion.positions(x, "bollinger", rule, axis=1, period=20, nbdev_up=1.5, cost=COST, side=side,
                            runtime=cpu_rt)
    want = frame.xs((20, 1.5), level=["period", "nbdev_up"])
    assert_bitwise(p.attrs["scores"].to_numpy(), want.to_numpy())
    for r in range(x.shape[0]):
        one = p.xs(r, level="series")
        last = _last_scored(one["return"].to_numpy())
        assert_bitwise([one["equity"].to_numpy()[last]], [want.loc[r, "total"]])
        assert set(np.unique(one["position"])) <= {-1.0, 0.0, 1.0}
        if side:
            assert not (one["position"] == -side).any()


def _bands_revert(close, upper, middle, lower):
    """docs/scores.md, "Rules", read bar by bar: the position after each bar."""
    pos, prev = np.zeros(len(close)), 0
    for t, c in enumerate(close):
        if not math.isfinite(c):
            p = prev
        elif math.isnan(upper[t]) or math.isnan(middle[t]) or math.isnan(lower[t]):
            p = 0
        elif prev == 0:
            p = 1 if c < lower[t] else -1 if c > upper[t] else 0
        elif prev == 1:
            p = 0 if c >= middle[t] else 1
        else:
            p = 0 if c <= middle[t] else -1
        pos[t], prev = p, p
    return pos


def _returns(close, pos, bands, cost):
    """docs/scores.md, "Returns and scores": NaN at a bar not scored."""
    finite = np.all(np.isfinite(bands), axis=0)
    t0 = int(np.argmax(finite)) if finite.any() else len(close)
    ret = np.full(len(close), np.nan)
    for t in range(t0 + 1, len(close)):
        if math.isfinite(close[t]) and math.isfinite(close[t - 1]):
            ret[t] = pos[t - 1] * (close[t] / close[t - 1] - 1) - cost * abs(pos[t] - pos[t - 1])
    return ret


def test_positions_and_returns_are_an_independent_reading_of_the_rule(cpu_rt):
    x = _walks()
    p = apportion.positions(x, "bollinger", "bands_revert", axis=1, period=20, nbdev_up=1.5, nbdev_dn=2.5,
                            cost=COST, runtime=cpu_rt)
    for r in range(x.shape[0]):
        one = p.xs(r, level="series")
        bands = np.array(apportion.bollinger(x[r], period=20, nbdev_up=1.5, nbdev_dn=2.5, runtime=cpu_rt))
        pos = _bands_revert(x[r], *bands)
        assert_bitwise(one["position"].to_numpy(), pos)
        ret = _returns(x[r], pos, bands, COST)
        assert_bitwise(one["return"].to_numpy(), ret)
        running, equity = 0.0, np.zeros(len(ret))
        for t, v in enumerate(ret):  # the plain view's running sum, from 0, in bar order
            if not math.isnan(v):
                running += v
            equity[t] = running
        assert_bitwise(one["equity"].to_numpy(), equity)
        assert_bitwise(one["close"].to_numpy(), x[r])
        assert (one["position"].diff().fillna(0) != 0).sum() > 20  # the rule really traded


def test_a_series_too_short_is_flat_with_no_scored_bar_and_bad_parameters_are_refused(cpu_rt):
    short = np.linspace(100, 101, 15)
    p = apportion.positions([short, _walks(rows=1)[0]], "bollinger", "bands_revert", period=20, runtime=cpu_rt)
    one = p.xs(0, level="series")
    assert (one["position"] == 0).all() and one["return"].isna().all() and (one["equity"] == 0).all()
    assert p.attrs["scores"].loc[0, "bars"] == 0 and len(p.xs(1, level="series")) == 3000
    with pytest.raises(apportion.BadParameterError):
        apportion.positions(short, "bollinger", "bands_revert", period=-3, runtime=cpu_rt)
    with pytest.raises(apportion.BadParameterError, match="cost"):
        apportion.positions(short, "bollinger", "bands_revert", period=5, cost=2.0, runtime=cpu_rt)
    with pytest.raises(ValueError, match="one set"):
        apportion.positions(short, "bollinger", "bands_revert", period=[10, 20], runtime=cpu_rt)
    with pytest.raises(TypeError, match="takes closes"):
        apportion.positions(short, "willr", "willr_zone", runtime=cpu_rt)
    with pytest.raises(apportion.InvalidArgumentError, match="macd_cross"):
        apportion.positions(short, "macd", "bands_revert", runtime=cpu_rt)


def test_a_pandas_series_keeps_its_dates(cpu_rt):
    pd = pytest.importorskip("pandas")
    x = _walks(rows=1)[0]
    s = pd.Series(x, index=pd.date_range("2020-01-01", periods=len(x), freq="D"), name="AAPL")
    p = apportion.positions(s, "bollinger", "bands_revert", period=20, runtime=cpu_rt)
    assert p.index.equals(s.index) and list(p.attrs["scores"].index) == ["AAPL"]
    assert_bitwise(p["equity"].to_numpy(), apportion.positions(x, "bollinger", "bands_revert", period=20,
                                                                runtime=cpu_rt)["equity"].to_numpy())


def test_positions_are_the_tools_positions_csv_bit_for_bit(cpu_rt):
    tool = os.environ.get("APPORTION_CLI") or shutil.which("apportion")
    if not tool:
        pytest.skip("the apportion tool is not known (APPORTION_CLI unset, none on PATH)")
    x = _walks()
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "in.f64")
        x.astype("<f8").tofile(src)
        subprocess.run([tool, "run", "--kernel", "bollinger", "--input", src, "--rows", str(x.shape[0]), "--output", d,
                        "--devices", "cpu", "--no-learn", "--score", "bands_revert/compound", "--cost", str(COST),
                        "--param", "period=10,20", "--param", "nbdev_up=1.5,2", "--positions", "2"],
                       check=True, stdout=subprocess.DEVNULL, env=dict(os.environ, APPORTION_PROFILES="off"))
        with open(os.path.join(d, "positions.csv")) as f:
            rows = list(csv.DictReader(f))
    p = apportion.positions(x, "bollinger", "bands_revert/compound", axis=1, period=20, nbdev_up=1.5, cost=COST,
                            runtime=cpu_rt)  # set 2 of period 10,20 x nbdev_up 1.5,2
    assert len(rows) == len(p)
    for col in ("close", "position", "return", "equity"):
        assert_bitwise(p[col].to_numpy(), [float(r[col]) for r in rows])
    assert [int(r["series"]) for r in rows] == list(p.index.get_level_values("series"))


def test_plot_equity_writes_a_picture(cpu_rt, tmp_path):
    pytest.importorskip("matplotlib")
    p = apportion.positions(_walks(rows=2), "bollinger", "bands_revert", axis=1, period=20, runtime=cpu_rt)
    ax = apportion.plot_equity(p, tmp_path / "equity.png")
    assert len(ax.lines) == 2 and (tmp_path / "equity.png").stat().st_size > 0
    assert not [f for f in os.listdir(tmp_path) if ".tmp" in f]


def test_plot_equity_without_matplotlib_says_so(cpu_rt, monkeypatch):
    p = apportion.positions(_walks(rows=1)[0], "bollinger", "bands_revert", period=20, runtime=cpu_rt)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # an import of it then fails
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match="plot_equity\\(\\) draws with matplotlib, which is not installed"):
        apportion.plot_equity(p, "never.png")
    assert not os.path.exists("never.png")
