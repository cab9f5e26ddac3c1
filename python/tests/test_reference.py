"""Values against independent references written here (not the code under test): rolling
mean and population standard deviation in long double, and the mean of returns."""

import numpy as np

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


def test_macd_against_recurrence(walk):
    """MACD's line converges to the difference of the two EMAs of the usual recurrence."""
    x = walk(0, 5000, seed=6)
    m = apportion.macd(x, fast=12, slow=26, signal=9)

    def ema(v, n):
        a = 2.0 / (n + 1)
        out = np.empty_like(v)
        out[0] = v[0]
        for i in range(1, len(v)):
            out[i] = a * v[i] + (1 - a) * out[i - 1]
        return out

    line = ema(x, 12) - ema(x, 26)
    # Far past the warm-up the seeding of the averages no longer matters.
    np.testing.assert_allclose(m.macd[2000:], line[2000:], rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(m.hist[2000:], (m.macd - m.signal)[2000:], rtol=1e-12, atol=1e-12)


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
