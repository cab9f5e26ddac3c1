"""User rules from Python (Runtime.register_rule, docs/python.md): a numba cfunc that takes
bands_zone's positions gives bands_zone's scores bitwise, alone and in a sweep through
apportion.score(); a rule that returns 2 raises KernelFailedError naming it."""

import numpy as np
import pytest

import apportion

numba = pytest.importorskip("numba")
from apportion.numba_kernels import rule_signature  # noqa: E402


@numba.cfunc(rule_signature)
def my_zone(inputs, outputs, prev, user):
    close, upper, lower = inputs[0], outputs[0], outputs[2]
    if close < lower:
        return 1
    if close > upper:
        return -1
    return 0


@numba.cfunc(rule_signature)
def two(inputs, outputs, prev, user):
    return 2


def closes(n=3000, seed=5):
    rng = np.random.default_rng(seed)
    return 100.0 + np.cumsum(rng.normal(0, 0.5, n))


def test_a_cfunc_rule_equals_the_builtin_it_mimics_bitwise():
    with apportion.Runtime("cpu,sim:a:rate=2e8", profiles=False) as rt:
        rt.register_rule("my_zone", "bollinger", my_zone)
        x = closes()
        got = apportion.score(x, "bollinger", "my_zone", runtime=rt, period=[10, 20], cost=0.001)
        want = apportion.score(x, "bollinger", "bands_zone", runtime=rt, period=[10, 20], cost=0.001)
        assert np.array_equal(np.asarray(got, dtype=float), np.asarray(want, dtype=float), equal_nan=True)
        assert (np.asarray(want["trades"]) > 2).all()


def test_a_bad_return_raises():
    with apportion.Runtime("cpu", profiles=False) as rt:
        rt.register_rule("two", "bollinger", two)
        with pytest.raises(apportion.errors.KernelFailedError, match="rule two returned 2"):
            apportion.score(closes(), "bollinger", "two", runtime=rt)
        with pytest.raises(apportion.errors.AlreadyExistsError):
            rt.register_rule("bands_zone", "bollinger", two)
