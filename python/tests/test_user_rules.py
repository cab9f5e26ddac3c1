"""User rules from Python (Runtime.register_rule, docs/python.md): a numba cfunc that takes
bands_zone's positions gives bands_zone's scores bitwise, alone and in a sweep through
apportion.score(), and live in an apportion.Stream fed in pieces, bar by bar; a rule that
returns 2 raises KernelFailedError naming it, and a stream's or a group's update it refuses
changes nothing."""

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


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


def test_a_cfunc_rule_streams_as_the_builtin_it_mimics():
    with apportion.Runtime("cpu", profiles=False) as rt:
        rt.register_rule("my_zone", "bollinger", my_zone)
        x = np.vstack([closes(1200, 7), closes(1200, 8)])
        x[1, 400:420] = np.nan
        mine = apportion.Stream("bollinger", 2, rule="my_zone", runtime=rt, period=15, cost=0.001)
        theirs = apportion.Stream("bollinger", 2, rule="bands_zone", runtime=rt, period=15, cost=0.001)
        held = 0
        for a, b in ((0, 1), (1, 300), (300, 301), (301, 777), (777, 1200)):
            got, want = mine.update(x[:, a:b], axis=1), theirs.update(x[:, a:b], axis=1)
            for f in mine.outputs:
                assert np.array_equal(bits(getattr(got, f)), bits(getattr(want, f))), (f, a)
            held += np.count_nonzero(got.position)
        assert held > 100  # the rule trades: the comparison proves something
        score = apportion.score(x, "bollinger", "my_zone", runtime=rt, axis=1, period=15, cost=0.001)
        assert np.array_equal(bits(got.sharpe[:, -1]), bits(score["sharpe"].to_numpy()))
        back = apportion.Stream.load(bytes(mine), runtime=rt)
        assert back.rule == "my_zone"
        # In a StreamGroup beside the built-in's, each gives the other's bits.
        g = apportion.StreamGroup({"mine": back, "theirs": theirs})
        out = g.update(close=x[:, -1:] * 1.01, axis=1)
        for f in back.outputs:
            assert np.array_equal(bits(getattr(out["mine"], f)), bits(getattr(out["theirs"], f))), f


def test_a_streams_update_that_its_rule_refuses_changes_nothing():
    with apportion.Runtime("cpu", profiles=False) as rt:
        rt.register_rule("two", "bollinger", two)
        s = apportion.Stream("bollinger", 1, rule="two", runtime=rt, period=5)
        before = bytes(s)
        with pytest.raises(apportion.errors.KernelFailedError, match="rule two returned 2"):
            s.update(closes(50, 3).reshape(1, -1), axis=1)
        assert bytes(s) == before
        other = apportion.Stream("bollinger", 1, runtime=rt, period=5)
        other_before = bytes(other)
        g = apportion.StreamGroup({"two": s, "other": other})
        with pytest.raises(apportion.errors.KernelFailedError, match="rule two returned 2"):
            g.update(close=closes(50, 3).reshape(1, -1), axis=1)
        assert bytes(s) == before and bytes(other) == other_before


def test_a_cfunc_rules_stream_revises_as_the_builtins():
    """With revise_bars, a piece's last bars fed wrong and then revised give the built-in's
    outputs over the true bars, and the bytes of a stream of the cfunc fed the true bars."""
    with apportion.Runtime("cpu", profiles=False) as rt:
        rt.register_rule("my_zone", "bollinger", my_zone)
        x = np.vstack([closes(900, 9), closes(900, 10)])
        mine = apportion.Stream("bollinger", 2, rule="my_zone", runtime=rt, revise_bars=6, period=15)
        true = apportion.Stream("bollinger", 2, rule="my_zone", runtime=rt, revise_bars=6, period=15)
        theirs = apportion.Stream("bollinger", 2, rule="bands_zone", runtime=rt, period=15)
        for a, b in ((0, 40), (40, 41), (41, 500), (500, 900)):
            k = min(b - a, 6)
            wrong = x[:, a:b].copy()
            wrong[:, b - a - k :] *= 0.9
            mine.update(wrong, axis=1)
            true.update(x[:, a:b], axis=1)
            fixed = mine.revise(x[:, b - k : b], axis=1)
            want = theirs.update(x[:, a:b], axis=1)
            for f in mine.outputs:
                assert np.array_equal(bits(getattr(fixed, f)), bits(getattr(want, f)[:, b - a - k :])), (f, a)
            assert bytes(mine) == bytes(true), a
