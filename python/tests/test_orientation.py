"""One orientation rule for 2-D arrays in every call of the package (docs/python.md,
"Arrays"): a 2-D numpy array needs axis=, the axis its bars run along, in the batch
functions, compute(), score() and Stream.update() alike; without it the call is refused,
square or not, rather than guessed. axis=0 reads bars x series (DataFrame.to_numpy()) and
gives its outputs so; axis=1 reads series x bars. Each series' outputs are checked against
the series computed alone, 1-D (or, for the moving average, a naive sum), and against the
DataFrame, whose columns are its series everywhere."""

import numpy as np
import pytest

import apportion
from conftest import assert_bitwise

pd = pytest.importorskip("pandas")

BARS, SERIES = 400, 5


@pytest.fixture
def bars_by_series():
    rng = np.random.default_rng(53)
    return 100.0 + np.cumsum(rng.standard_normal((BARS, SERIES)), axis=0)


def _naive_sma(x, period):
    out = np.full(len(x), np.nan)
    for t in range(period - 1, len(x)):
        out[t] = float(np.sum(np.asarray(x[t - period + 1 : t + 1], dtype=np.longdouble)) / period)
    return out


@pytest.mark.parametrize("shape", [(BARS, SERIES), (SERIES, SERIES)])
def test_a_2d_array_without_axis_is_refused_everywhere(rt, shape):
    x = 100.0 + np.arange(shape[0] * shape[1], dtype=np.float64).reshape(shape) % 7
    calls = [
        lambda: apportion.rsi(x, runtime=rt),
        lambda: apportion.bollinger(np.asfortranarray(x), runtime=rt),  # any memory layout
        lambda: apportion.compute("sma", x, timeperiod=3, runtime=rt),
        lambda: rt.distribute("sma", x, params={"timeperiod": 3}),
        lambda: apportion.atr(high=x + 1, low=x - 1, close=x, runtime=rt),
        lambda: apportion.score(x, "rsi", "rsi_zone", runtime=rt),
        lambda: apportion.Stream("sma", series=shape[1], timeperiod=3, runtime=rt).update(x),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=r"needs axis=.*axis=0 when each column is a series"):
            call()


def test_axis_0_reads_bars_by_series_as_the_frame_does(rt, bars_by_series):
    x = bars_by_series
    frame = pd.DataFrame(x, columns=list("abcde"))
    (got,) = apportion.sma(x, timeperiod=20, runtime=rt, axis=0)
    assert got.shape == (BARS, SERIES)
    for j in range(SERIES):
        np.testing.assert_allclose(got[:, j], _naive_sma(x[:, j], 20), rtol=1e-13, equal_nan=True)
    assert_bitwise(got, apportion.sma(frame, timeperiod=20, runtime=rt).sma.to_numpy())
    rsi = apportion.rsi(x, runtime=rt, axis=0).rsi
    for j in range(SERIES):
        assert_bitwise(rsi[:, j], apportion.rsi(np.ascontiguousarray(x[:, j]), runtime=rt).rsi)


def test_axis_1_reads_series_by_bars(rt, bars_by_series):
    rows = np.ascontiguousarray(bars_by_series.T)
    upper, middle, lower = apportion.bollinger(rows, period=15, runtime=rt, axis=1)
    assert upper.shape == (SERIES, BARS)
    for r in range(SERIES):
        assert_bitwise(middle[r], apportion.bollinger(rows[r], period=15, runtime=rt).middle)
    assert_bitwise(apportion.bollinger(rows, period=15, runtime=rt, axis=-1).upper, upper)


def test_axis_0_sweeps_reductions_and_several_inputs(rt, bars_by_series):
    x = bars_by_series
    swept = apportion.sma(x, timeperiod=[5, 9], runtime=rt, axis=0).sma
    assert swept.shape == (2, BARS, SERIES)
    assert_bitwise(swept[1], apportion.sma(x, timeperiod=9, runtime=rt, axis=0).sma)
    stats = apportion.returns_stats(x, runtime=rt, axis=0)
    assert stats.mean.shape == (SERIES,)
    for j in range(SERIES):
        assert_bitwise(stats.mean[j], apportion.returns_stats(np.ascontiguousarray(x[:, j]), runtime=rt).mean)
    means = apportion.bootstrap(x, replicates=8, runtime=rt, axis=0).means
    assert means.shape == (8, SERIES)
    (atr,) = apportion.atr(high=x + 1, low=x - 1, close=x, runtime=rt, axis=0)
    frame = {"high": pd.DataFrame(x + 1), "low": pd.DataFrame(x - 1), "close": pd.DataFrame(x)}
    assert_bitwise(atr, apportion.atr(**frame, runtime=rt).atr.to_numpy())
    with pytest.raises(TypeError, match="out="):
        apportion.sma(x, runtime=rt, axis=0, out=(np.empty(x.size),))


def test_score_and_stream_take_the_same_rule(rt, bars_by_series):
    x = bars_by_series
    frame = pd.DataFrame(x, columns=list("abcde"))
    by_frame = apportion.score(frame, "rsi", "rsi_zone", timeperiod=[10, 14], runtime=rt)
    by_array = apportion.score(x, "rsi", "rsi_zone", timeperiod=[10, 14], runtime=rt, axis=0)
    assert len(by_array) == 2 * SERIES
    assert_bitwise(by_array.to_numpy(), by_frame.to_numpy())
    rows = apportion.score(np.ascontiguousarray(x.T), "rsi", "rsi_zone", timeperiod=[10, 14], runtime=rt, axis=1)
    assert_bitwise(rows.to_numpy(), by_frame.to_numpy())

    whole = apportion.rsi(frame, runtime=rt).rsi.to_numpy()
    s = apportion.Stream("rsi", series=SERIES, runtime=rt)
    head = s.update(x[:300], axis=0).rsi
    assert head.shape == (300, SERIES)
    tail = s.update(np.ascontiguousarray(x[300:].T), axis=1).rsi
    assert tail.shape == (SERIES, BARS - 300)
    assert_bitwise(np.concatenate([head, tail.T]), whole)
    with pytest.raises(ValueError, match="has 4 rows \\(series\\); the stream follows 5 series"):
        s.update(np.ones((4, 3)), axis=1)
    s.close()


def test_frames_lists_and_1d_need_no_axis_and_refuse_the_other(rt, bars_by_series):
    x = bars_by_series
    frame = pd.DataFrame(x)
    with pytest.raises(ValueError, match="columns are its series"):
        apportion.rsi(frame, runtime=rt, axis=1)
    assert_bitwise(apportion.rsi(frame, runtime=rt, axis=0).rsi.to_numpy(), apportion.rsi(frame, runtime=rt).rsi.to_numpy())
    listed = [np.ascontiguousarray(x[:, j]) for j in range(SERIES)]
    assert apportion.rsi(listed, runtime=rt).rsi.shape == (SERIES, BARS)
    with pytest.raises(ValueError, match="list of 1-D series"):
        apportion.rsi(listed, runtime=rt, axis=0)
    assert apportion.rsi(listed[0], runtime=rt, axis=0).rsi.shape == (BARS,)
    with pytest.raises(ValueError, match="axis=2"):
        apportion.rsi(x, runtime=rt, axis=2)
