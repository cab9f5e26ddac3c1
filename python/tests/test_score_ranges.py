"""apportion.score(ranges=...) and apportion.walk_forward() (docs/scores.md, "Ranges" and
"Walk-forward"): each range against the definition read literally on its slice of the whole
history's bands (positions from 0 at the range's first bar), in long double; ranges by date
against the same bars by number, bitwise; the walk-forward's winners and stitched record
recomputed from the ranged frame; bad ranges refused."""

import math

import numpy as np
import pandas as pd
import pytest

import apportion
import bands_reference

N = 6000
RANGES = [(0, 2000), (0, 4000), (1500, 6000), (3000, 3001), (4100, 4200)]


def _walks(rows, seed):
    return bands_reference.walks(rows, N, seed)


def _reference(close, upper, middle, lower, cost):
    """bands_revert over one slice, as docs/scores.md reads: positions from flat at the
    slice's first bar, returns after the first bar whose bands are all finite."""
    pos = bands_reference.positions("bands_revert", close, upper, middle, lower)
    first = bands_reference.first_finite(upper, middle, lower)
    r, trades, _ = bands_reference.returns(pos, close, first, cost)
    return {"total": r.sum() if len(r) else np.nan, "trades": trades, "bars": len(r)}


@pytest.fixture(scope="module")
def rt():
    with apportion.Runtime("cpu,sim:a:rate=2e8", profiles=False) as runtime:
        yield runtime


def test_each_range_is_its_slice_scored_from_its_first_bar(rt):
    x = _walks(2, 11)
    got = apportion.score(x, "bollinger", "bands_revert", nbdev_up=[1.5, 2.0], cost=0.0005, runtime=rt, axis=-1, ranges=RANGES)
    assert got.index.names == ["nbdev_up", "series", "range"]
    assert len(got) == 2 * 2 * len(RANGES)
    for width in (1.5, 2.0):
        upper, middle, lower = apportion.bollinger(x, nbdev_up=width, runtime=rt, axis=-1)
        for row in (0, 1):
            for a, b in RANGES:
                want = _reference(x[row, a:b], upper[row, a:b], middle[row, a:b], lower[row, a:b], 0.0005)
                line = got.loc[(width, row, f"{a}:{b}")]
                assert line["bars"] == want["bars"] and line["trades"] == want["trades"], (width, row, a, b)
                if want["bars"]:
                    assert abs(np.longdouble(line["total"]) - want["total"]) <= 1e-9 * max(abs(want["total"]), 1e-3)
                else:
                    assert math.isnan(line["total"])
    assert got["trades"].sum() > 100


def test_the_whole_series_as_a_range_is_the_plain_call_bitwise(rt):
    x = _walks(2, 12)
    plain = apportion.score(x, "macd", "macd_cross", runtime=rt, axis=-1)
    ranged = apportion.score(x, "macd", "macd_cross", runtime=rt, axis=-1, ranges=[(0, N)])
    assert plain.to_numpy().tobytes() == ranged.to_numpy().tobytes()


def test_dates_are_the_bars_of_the_index(rt):
    x = _walks(2, 13)
    days = pd.bdate_range("2001-01-01", periods=N)
    frame = pd.DataFrame(x.T, index=days, columns=["AAA", "BBB"])
    by_date = apportion.score(frame, "bollinger", "bands_zone", runtime=rt, ranges=[(str(days[100].date()), str(days[2999].date()))])
    by_bar = apportion.score(frame, "bollinger", "bands_zone", runtime=rt, ranges=[(100, 3000)])
    assert by_date.to_numpy().tobytes() == by_bar.to_numpy().tobytes()
    assert by_date.index[0] == ("AAA", f"{days[100].date()}:{days[2999].date()}")


def test_walk_forward_scores_each_train_winner_on_its_test(rt):
    x = _walks(2, 14)
    frame = pd.DataFrame(x.T, columns=["AAA", "BBB"])
    windows, record = apportion.walk_forward(frame, "bollinger", "bands_revert", train=2000, test=800, anchored=True, nbdev_up=[1.0, 1.5, 2.0, 2.5], runtime=rt)
    assert len(windows) == 2 * 5  # tests from 2000, 2800, ... 5200, the last cut at 6000
    ranges = sorted({(0, e) for e in range(2000, N, 800)} | {(e, min(e + 800, N)) for e in range(2000, N, 800)})
    every = apportion.score(frame, "bollinger", "bands_revert", nbdev_up=[1.0, 1.5, 2.0, 2.5], runtime=rt, ranges=ranges)
    for series in ("AAA", "BBB"):
        total = 0.0
        for w, e in enumerate(range(2000, N, 800)):
            train = every.xs((series, f"0:{e}"), level=("series", "range"))["sharpe"]
            best = int(np.nanargmax(train.to_numpy()))
            line = windows.loc[(series, w)]
            assert line["set"] == best and line["nbdev_up"] == train.index[best]
            test = every.loc[(train.index[best], series, f"{e}:{min(e + 800, N)}")]
            assert line[list(apportion.SCORES)].to_numpy(dtype=float).tobytes() == test.to_numpy().tobytes()
            total += test["total"]
        assert record.loc[series, "total"] == total and record.loc[series, "windows"] == 5


@pytest.mark.parametrize("ranges, says", [([(5, 5)], "at least one bar"), ([(10, 20), (5, 30)], "comes before"), ([(0, N + 1)], "ends at cols"), ([], "ranges is empty")])
def test_bad_ranges_are_refused(rt, ranges, says):
    x = _walks(1, 15)
    with pytest.raises(ValueError, match=says):
        apportion.score(x, "bollinger", "bands_revert", runtime=rt, axis=-1, ranges=ranges)
