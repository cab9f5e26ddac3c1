"""Series of different lengths (docs/python.md, "Arrays"): a list of 1-D series whose lengths
differ is one call of the library's ragged rows, and each series gets the bits it gets in a
call of its own, on a runtime that splits the work."""

import numpy as np
import pytest

import apportion
from conftest import assert_bitwise

LENGTHS = (5000, 37, 12001, 20, 64)


@pytest.fixture
def series():
    rng = np.random.default_rng(11)
    return [100.0 + np.cumsum(rng.standard_normal(n)) for n in LENGTHS]


# macd's default warm-up (34 samples) is longer than the shortest series, which is refused
# (test_cli_parity.py); a shorter one keeps every series computed.
@pytest.mark.parametrize("kernel,params", [("bollinger", {}), ("macd", {"fast": 3, "slow": 8, "signal": 4})])
def test_each_series_gets_its_own_bits(rt, series, kernel, params):
    got = rt.compute(kernel, series, **params)
    for name in got._fields:
        out = getattr(got, name)
        assert isinstance(out, list) and [len(a) for a in out] == list(LENGTHS)
        for s, a in zip(series, out):
            assert_bitwise(a, getattr(rt.compute(kernel, s, **params), name))


def test_reductions_per_series(rt, series):
    got = apportion.returns_stats(series, runtime=rt)
    assert got.count.shape == (len(LENGTHS),)
    # Against numpy: returns_stats summarises the simple returns of each series alone.
    for r, s in enumerate(series):
        returns = s[1:] / s[:-1] - 1.0
        assert got.count[r] == len(returns)
        if len(returns):
            assert abs(got.mean[r] - returns.mean()) <= 1e-12 * max(1.0, abs(returns.mean()))
    boot = apportion.bootstrap(series, replicates=32, seed=3, runtime=rt)
    assert boot.means.shape == (len(LENGTHS), 32)
    for r, s in enumerate(series):
        assert_bitwise(boot.mean[r], apportion.bootstrap(s, replicates=32, seed=3, runtime=rt).mean)


def test_sweep_puts_the_sets_in_front(rt, series):
    got = apportion.bollinger(series, period=[10, 20], runtime=rt)
    assert len(got.upper) == 2 and [len(a) for a in got.upper[1]] == list(LENGTHS)
    for s, period in enumerate((10, 20)):
        for r, x in enumerate(series):
            assert_bitwise(got.upper[s][r], apportion.bollinger(x, period=period, runtime=rt).upper)


def test_one_length_is_the_ordinary_array(rt, series):
    same = [series[0], series[0] * 1.01]
    got = rt.compute("bollinger", same)
    assert isinstance(got.upper, np.ndarray) and got.upper.shape == (2, LENGTHS[0])


def test_refusals(rt, series):
    with pytest.raises(TypeError, match="out="):
        rt.compute("bollinger", series, out=tuple(np.empty(10) for _ in range(3)))
    with pytest.raises(apportion.InvalidArgumentError, match=r"row_lengths\[1\] is 0"):
        rt.compute("bollinger", [series[0], np.array([])])
    # Every series too short is refused, naming the first series, not its row.
    with pytest.raises(apportion.BadParameterError, match=r"every series is too short for these parameters; 0 \(5000 samples\): bollinger: period 20000"):
        rt.compute("bollinger", series, period=20000)
    # A parameter out of bounds is the library's refusal, not a short series.
    with pytest.raises(apportion.BadParameterError, match="must be from 2"):
        rt.compute("bollinger", series, period=1)


def test_a_series_shorter_than_the_warm_up_is_nan_with_a_warning(rt, series):
    """As the command line's --group-by: the short series' outputs are NaN, a warning names
    each, and the others are what they are alone."""
    with pytest.warns(apportion.ShortSeriesWarning) as caught:
        got = apportion.bollinger(series, period=[10, 50], runtime=rt)
    assert [(w.message.series, w.message.length) for w in caught] == [("1", 37), ("3", 20)]
    assert "sweep set 1: bollinger: period 50 is longer than the series (cols 37)" in str(caught[0].message)
    for s, period in enumerate((10, 50)):
        for r, x in enumerate(series):
            if len(x) < 50:  # too short for set 1, so NaN in both sets
                assert len(got.upper[s][r]) == len(x) and np.isnan(got.upper[s][r]).all()
            else:
                assert_bitwise(got.upper[s][r], apportion.bollinger(x, period=period, runtime=rt).upper)
    pd = pytest.importorskip("pandas")
    named = [pd.Series(x, name=t) for x, t in zip(series, ("AAPL", "MSFT", "IBM", "XOM", "GE"))]
    with pytest.warns(apportion.ShortSeriesWarning, match=r"^series MSFT \(37 samples\) is too short for these parameters, so its outputs are NaN: rsi: "):
        apportion.rsi(named[:3], timeperiod=40, runtime=rt)


def _pair_diff(inputs, outputs, row, begin, end, params, seed):
    outputs[0][row, begin:end] = inputs[0][row, begin:end] - inputs[1][row, begin:end]
    return 0


def test_a_kernel_of_two_inputs(series):
    with apportion.Runtime("cpu", profiles=False, learn=False) as r:
        r.register_kernel("pair_diff", _pair_diff, n_inputs=2, outputs=("diff",))
        other = [s[::-1].copy() for s in series]
        got = r.compute("pair_diff", series, other)
        for s, o, d in zip(series, other, got.diff):
            assert_bitwise(d, s - o)
        shorter = other[:-1] + [other[-1][:-1]]
        with pytest.raises(ValueError, match="same ones"):
            r.compute("pair_diff", series, shorter)
