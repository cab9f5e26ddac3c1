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
    # A series shorter than the period is refused as it is alone, naming its row.
    with pytest.raises(apportion.BadParameterError, match="row 1 .*period 50"):
        rt.compute("bollinger", series, period=50)


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
