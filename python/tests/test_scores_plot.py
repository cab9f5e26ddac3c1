"""apportion.plot_scores(): the heatmap of a scored sweep (docs/python.md, "Scores"). The
means it returns against a hand loop over the frame's lines; the PNG it writes (its
signature, no temporary left beside it); the refusals, which write nothing."""

import math
import os
import shutil

import numpy as np
import pytest

import apportion

needs_gnuplot = pytest.mark.skipif(shutil.which("gnuplot") is None, reason="gnuplot is not on PATH (scripts/deps.sh installs gnuplot-nox)")


def _frame(rt, **sweep):
    rng = np.random.default_rng(5)
    x = 100.0 + np.cumsum(rng.uniform(-0.5, 0.5, (3, 3000)), axis=1)
    return apportion.score(x, "bollinger", "bands_revert", runtime=rt, **sweep, axis=-1)


def _mean_by_hand(frame, score, **at):
    vals = []
    for key, v in zip(frame.index, frame[score]):
        label = dict(zip(frame.index.names, key))
        if all(label[k] == want for k, want in at.items()) and math.isfinite(v):
            vals.append(v)
    return sum(vals) / len(vals) if vals else math.nan


@needs_gnuplot
def test_the_heatmap_is_the_mean_of_each_set_and_a_whole_png(rt, tmp_path):
    frame = _frame(rt, period=[10, 20, 30], nbdev_up=[1, 2])
    path = tmp_path / "grid.png"
    grid = apportion.plot_scores(frame, path, score="sharpe")
    assert list(grid.index) == [10, 20, 30] and list(grid.columns) == [1, 2]
    for p in (10, 20, 30):
        for u in (1, 2):
            assert grid.loc[p, u] == pytest.approx(_mean_by_hand(frame, "sharpe", period=p, nbdev_up=u), rel=1e-12)
    with open(path, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert sorted(os.listdir(tmp_path)) == ["grid.png"]


@needs_gnuplot
def test_a_paired_sweep_draws_its_two_named_axes(rt, tmp_path):
    frame = _frame(rt, period=[10, 20], nbdev_up=[1, 2], nbdev_dn=apportion.follow("nbdev_up"))
    grid = apportion.plot_scores(frame, tmp_path / "g.png", score="max_drawdown", x="nbdev_up", y="period")
    assert grid.loc[20, 2] == pytest.approx(_mean_by_hand(frame, "max_drawdown", period=20, nbdev_up=2), rel=1e-12)


def test_refusals_write_nothing(rt, tmp_path):
    frame = _frame(rt, period=[10, 20], nbdev_up=[1, 2], cost=[0.0, 0.001])
    path = tmp_path / "g.png"
    with pytest.raises(ValueError, match="has 3"):
        apportion.plot_scores(frame, path)
    with pytest.raises(ValueError, match="several sets"):
        apportion.plot_scores(frame, path, x="nbdev_up", y="period")
    with pytest.raises(ValueError, match="must be two of"):
        apportion.plot_scores(frame, path, x="nbdev_up", y="width")
    with pytest.raises(ValueError, match="one of"):
        apportion.plot_scores(frame, path, score="profit")
    with pytest.raises(ValueError, match="PNG"):
        apportion.plot_scores(frame, tmp_path / "g.svg", x="nbdev_up", y="period")
    with pytest.raises(ValueError, match="apportion.score"):
        apportion.plot_scores(frame.reset_index(level="series", drop=True), path)
    assert os.listdir(tmp_path) == []
