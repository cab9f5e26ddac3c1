"""apportion.score() with follow(): a paired sweep (docs/python.md, "Scores"). Each line
against its set scored alone by a plain call (no sweep at all), bitwise; the index and the
order of a cross product whose paired axis sits at the leader's place; the refusals."""

import numpy as np
import pandas as pd
import pytest

import apportion


def _walks(rows, n=4000, seed=11):
    rng = np.random.default_rng(seed)
    x = 100.0 + np.cumsum(rng.uniform(-0.5, 0.5, (rows, n)), axis=1)
    x[:, n // 5] = np.nan
    return x


def test_a_follower_moves_with_its_leader_and_each_line_is_its_set_alone(rt):
    x = _walks(2)
    ups = [1.0, 2.0, 2.5]
    downs = [1.5, 2.0, 3.0]
    got = apportion.score(
        x,
        "bollinger",
        "bands_revert",
        period=[10, 20],
        nbdev_up=ups,
        nbdev_dn=apportion.follow("nbdev_up", downs),
        cost=0.001,
        runtime=rt,
        axis=-1,
    )
    assert got.index.names == ["period", "nbdev_up", "nbdev_dn", "series"]
    # 2 periods x 3 pairs, the first axis slowest, the pairs never crossed.
    expected = [(p, u, d, s) for p in (10, 20) for u, d in zip(ups, downs) for s in (0, 1)]
    assert [tuple(float(v) for v in k) for k in got.index] == [tuple(map(float, e)) for e in expected]
    for i, (p, u, d, s) in enumerate(expected):
        alone = apportion.score(x[s], "bollinger", "bands_revert", period=p, nbdev_up=u, nbdev_dn=d, cost=0.001, runtime=rt)
        assert got.iloc[[i]].to_numpy().tobytes() == alone.to_numpy().tobytes()


def test_a_leader_after_another_axis_keeps_the_cross_products_order(rt):
    x = _walks(1)
    got = apportion.score(
        x, "rsi", "rsi_zone", timeperiod=[7, 14], lower=[20, 30], upper=apportion.follow("lower", [80, 70]), runtime=rt, axis=-1
    )
    labels = [tuple(k[:3]) for k in got.index]
    assert labels == [(7, 20, 80), (7, 30, 70), (14, 20, 80), (14, 30, 70)]
    for i, (tp, lo, hi) in enumerate(labels):
        alone = apportion.score(x, "rsi", "rsi_zone", timeperiod=tp, lower=lo, upper=hi, runtime=rt, axis=-1)
        assert got.iloc[[i]].to_numpy().tobytes() == alone.to_numpy().tobytes()


def test_a_follower_without_values_takes_its_leaders(rt):
    x = _walks(1)
    got = apportion.score(x, "bollinger", "bands_zone", nbdev_up=[1, 3], nbdev_dn=apportion.follow("nbdev_up"), runtime=rt, axis=-1)
    assert [tuple(k[:2]) for k in got.index] == [(1, 1), (3, 3)]
    alone = apportion.score(x, "bollinger", "bands_zone", nbdev_up=3, nbdev_dn=3, runtime=rt, axis=-1)
    assert got.iloc[[1]].to_numpy().tobytes() == alone.to_numpy().tobytes()
    assert isinstance(got, pd.DataFrame)


def test_a_follower_needs_a_swept_leader_and_as_many_values(rt):
    x = _walks(1, n=500)
    with pytest.raises(ValueError, match="not given"):
        apportion.score(x, "bollinger", "bands_zone", nbdev_dn=apportion.follow("nbdev_up"), runtime=rt, axis=-1)
    with pytest.raises(ValueError, match="not swept"):
        apportion.score(x, "bollinger", "bands_zone", nbdev_up=2, nbdev_dn=apportion.follow("nbdev_up"), runtime=rt, axis=-1)
    with pytest.raises(ValueError, match="2 values for the 3"):
        apportion.score(
            x, "bollinger", "bands_zone", nbdev_up=[1, 2, 3], nbdev_dn=apportion.follow("nbdev_up", [1, 2]), runtime=rt, axis=-1
        )
    with pytest.raises(ValueError, match="a follower"):
        apportion.score(
            x,
            "bollinger",
            "bands_zone",
            period=[10, 20],
            nbdev_up=apportion.follow("period", [1, 2]),
            nbdev_dn=apportion.follow("nbdev_up"),
            runtime=rt,
            axis=-1,
        )
    with pytest.raises(TypeError):
        apportion.follow(3)
