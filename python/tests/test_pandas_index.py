"""A pandas object's index orders its bars as the command line orders a CSV series
(docs/python.md, "Arrays"; docs/cli/run.md, "Order of records"): a DatetimeIndex out of order
(newest first, shuffled) is computed in date order and the outputs come back on the
caller's rows; two rows of one date, or a row without a date, are refused as the command
line refuses them; a long frame's (date, ticker) MultiIndex, whose rows are several series,
is refused with a recipe that works. Each result against the same data in date order,
computed as before (and, for the moving average, a naive sum)."""

import numpy as np
import pytest

import apportion
from conftest import assert_bitwise

pd = pytest.importorskip("pandas")

BARS = 300


def _closes(seed=4):
    rng = np.random.default_rng(seed)
    dates = pd.date_range("2024-01-01", periods=BARS, freq="D")
    return pd.Series(100.0 + np.cumsum(rng.standard_normal(BARS)), index=dates, name="close")


def _naive_sma(x, period):
    out = np.full(len(x), np.nan)
    for t in range(period - 1, len(x)):
        out[t] = float(np.sum(np.asarray(x[t - period + 1 : t + 1], dtype=np.longdouble)) / period)
    return out


@pytest.mark.parametrize("order", ["newest_first", "shuffled"])
def test_a_series_out_of_date_order_is_computed_in_date_order(rt, order):
    s = _closes()
    rows = np.arange(BARS)[::-1] if order == "newest_first" else np.random.default_rng(1).permutation(BARS)
    given = s.iloc[rows]
    (rsi,) = apportion.rsi(given, runtime=rt)
    assert rsi.index.equals(given.index)  # the caller's rows, in the caller's order
    assert_bitwise(rsi.sort_index().to_numpy(), apportion.rsi(s, runtime=rt).rsi.to_numpy())
    (sma,) = apportion.sma(given, timeperiod=10, runtime=rt)
    np.testing.assert_allclose(sma.sort_index().to_numpy(), _naive_sma(s.to_numpy(), 10), rtol=1e-13, equal_nan=True)


def test_frames_sweeps_several_inputs_scores_and_streams_follow_the_dates(rt):
    s = _closes()
    frame = pd.DataFrame({"high": s + 1, "low": s - 1, "close": s})
    newest = frame.iloc[::-1]
    (atr,) = apportion.atr(newest, runtime=rt)
    assert atr.index.equals(newest.index)
    assert_bitwise(atr.sort_index().to_numpy(), apportion.atr(frame, runtime=rt).atr.to_numpy())
    swept = apportion.sma(newest[["close", "high"]], timeperiod=[5, 8], runtime=rt).sma
    assert swept.index.equals(newest.index)
    assert_bitwise(swept.sort_index().to_numpy(), apportion.sma(frame[["close", "high"]], timeperiod=[5, 8], runtime=rt).sma.to_numpy())
    scored = apportion.score(newest[["close"]], "rsi", "rsi_zone", timeperiod=[10, 14], runtime=rt)
    assert_bitwise(scored.to_numpy(), apportion.score(frame[["close"]], "rsi", "rsi_zone", timeperiod=[10, 14], runtime=rt).to_numpy())
    stream = apportion.Stream("sma", series=1, timeperiod=5, runtime=rt)
    head = stream.update(frame[["close"]].iloc[:100]).sma
    tail = stream.update(frame[["close"]].iloc[100:][::-1]).sma  # the new bars newest first
    assert tail.index.equals(frame.index[100:][::-1])
    whole = apportion.sma(frame[["close"]], timeperiod=5, runtime=rt).sma
    assert_bitwise(pd.concat([head, tail]).sort_index().to_numpy(), whole.to_numpy())
    stream.close()


def test_two_rows_of_one_date_or_a_row_without_one_are_refused(rt):
    s = _closes()
    doubled = pd.concat([s.iloc[:10], s.iloc[[4]], s.iloc[10:]])
    with pytest.raises(ValueError, match=r'two rows for date "2024-01-05 00:00:00" \(rows 4 and 10\)'):
        apportion.rsi(doubled, runtime=rt)
    in_order = s.copy()
    in_order.index = s.index.where(np.arange(BARS) != 7, s.index[6])  # increasing, one date twice
    with pytest.raises(ValueError, match="rows 6 and 7"):
        apportion.rsi(in_order.to_frame(), runtime=rt)
    missing = s.copy()
    missing.index = s.index.where(np.arange(BARS) != 3, pd.NaT)
    with pytest.raises(ValueError, match="no date at row 3"):
        apportion.rsi(missing, runtime=rt)
    # The values alone keep the row order, as --record-order file does.
    assert apportion.rsi(doubled.to_numpy(), runtime=rt).rsi.shape == (BARS + 1,)


def test_a_long_frame_is_refused_with_a_recipe_that_works(rt):
    tickers = {"AAPL": _closes(1), "MSFT": _closes(2).iloc[40:]}  # MSFT starts later
    long = pd.concat({t: s.to_frame() for t, s in tickers.items()}, names=["ticker", "date"]).swaplevel().sort_index()
    long["high"], long["low"] = long["close"] + 1, long["close"] - 1
    calls = [
        lambda: apportion.rsi(long["close"], runtime=rt),
        lambda: apportion.atr(long, runtime=rt),
        lambda: apportion.score(long[["close"]], "rsi", "rsi_zone", runtime=rt),
        lambda: apportion.Stream("rsi", series=2, runtime=rt).update(long[["close"]]),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=r'2 levels \(date, ticker\): a long frame.*unstack\("ticker"\)') as e:
            call()
    recipe = str(e.value).rsplit(": ", 1)[1]
    assert recipe.startswith("[s.droplevel")
    (by_ticker,) = apportion.rsi(eval(recipe, {"frame": long}), runtime=rt)
    for got, s in zip(by_ticker, tickers.values()):
        assert_bitwise(got, apportion.rsi(s, runtime=rt).rsi.to_numpy())
