"""Values against independent references written here (not the code under test): rolling
mean and population standard deviation in long double, and the mean of returns."""

import inspect

import numpy as np
import pytest

import apportion


def rolling_reference(x, period):
    xl = x.astype(np.longdouble)
    n = len(x)
    mean = np.full(n, np.nan)
    std = np.full(n, np.nan)
    for t in range(period - 1, n):
        w = xl[t - period + 1 : t + 1]
        m = w.sum() / period
        mean[t] = float(m)
        std[t] = float(np.sqrt(((w - m) ** 2).sum() / period))
    return mean, std


def test_bollinger_against_long_double(walk):
    x = walk(0, 3000, seed=5)
    b = apportion.bollinger(x, period=20, nbdev_up=2, nbdev_dn=1.5)
    mean, std = rolling_reference(x, 20)
    assert np.isnan(b.middle[:19]).all()
    np.testing.assert_allclose(b.middle[19:], mean[19:], rtol=1e-12)
    np.testing.assert_allclose(b.upper[19:], mean[19:] + 2 * std[19:], rtol=1e-11)
    np.testing.assert_allclose(b.lower[19:], mean[19:] - 1.5 * std[19:], rtol=1e-11)


def ema_reference(v, n):
    """The usual EMA recurrence with alpha 2 / (n + 1), seeded with the first sample."""
    a = 2.0 / (n + 1)
    out = np.empty_like(v)
    out[0] = v[0]
    for i in range(1, len(v)):
        out[i] = a * v[i] + (1 - a) * out[i - 1]
    return out


def test_macd_against_recurrence(walk):
    """MACD's line converges to the difference of the two EMAs of the usual recurrence."""
    x = walk(0, 5000, seed=6)
    m = apportion.macd(x, fast=12, slow=26, signal=9)

    line = ema_reference(x, 12) - ema_reference(x, 26)
    # Far past the warm-up the seeding of the averages no longer matters.
    np.testing.assert_allclose(m.macd[2000:], line[2000:], rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(m.hist[2000:], (m.macd - m.signal)[2000:], rtol=1e-12, atol=1e-12)


def test_macd_takes_talib_names_and_its_old_ones(walk):
    """macd's parameters under TA-Lib's names (fastperiod, slowperiod, signalperiod) reach the
    library: periods other than the defaults give the recurrence's lines of those periods.
    The same values positionally, under the old names (fast, slow, signal), mixed, or swept
    under either name give the same bits; a parameter under both of its names is refused."""
    x = walk(0, 5000, seed=7)
    m = apportion.macd(x, fastperiod=5, slowperiod=17, signalperiod=4)

    line = ema_reference(x, 5) - ema_reference(x, 17)
    np.testing.assert_allclose(m.macd[2000:], line[2000:], rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(m.signal[2000:], ema_reference(line, 4)[2000:], rtol=1e-7, atol=1e-9)

    for other in (
        apportion.macd(x, 5, 17, 4),
        apportion.macd(x, fast=5, slow=17, signal=4),
        apportion.macd(x, fastperiod=5, slow=17, signalperiod=4),
    ):
        for got, want in zip(other, m):
            assert np.array_equal(got, want, equal_nan=True)
    # The defaults are TA-Lib's, and the signature shows them.
    plain, named = apportion.macd(x), apportion.macd(x, fastperiod=12, slowperiod=26, signalperiod=9)
    for got, want in zip(plain, named):
        assert np.array_equal(got, want, equal_nan=True)
    assert str(inspect.signature(apportion.macd).parameters["slowperiod"].default) == "26"
    swept_old = apportion.macd(x, fast=[5, 8], slowperiod=17)
    swept_new = apportion.macd(x, fastperiod=[5, 8], slowperiod=17)
    for got, want in zip(swept_old, swept_new):
        assert got.shape == (2, 5000) and np.array_equal(got, want, equal_nan=True)
    with pytest.raises(TypeError, match="fastperiod and its old name fast"):
        apportion.macd(x, fastperiod=12, fast=5)


def test_returns_stats_against_long_double(walk):
    """Simple returns x[t]/x[t-1] - 1 over the finite ones: count exact, min and max exact,
    mean and sample variance close to a long-double two-pass (docs/kernels.md)."""
    x = walk(2, 4000, seed=8)
    x[1, 100] = np.nan  # spoils two returns of row 1
    s = apportion.returns_stats(x, axis=-1)
    for r in range(2):
        ret = x[r][1:] / x[r][:-1] - 1
        ret = ret[np.isfinite(ret)]
        lr = ret.astype(np.longdouble)
        mean = lr.sum() / len(lr)
        var = ((lr - mean) ** 2).sum() / (len(lr) - 1)
        assert s.count[r] == len(ret)
        assert s.min[r] == ret.min() and s.max[r] == ret.max()
        np.testing.assert_allclose(s.mean[r], float(mean), rtol=1e-12)
        np.testing.assert_allclose(s.variance[r], float(var), rtol=1e-12)
