"""apportion.Stream with a rule (docs/python.md, "Live rules"; docs/streaming.md, "Live
rules"): a history with NaN gaps fed in random pieces, with a peek and a save and load
between them, gives at every bar the position, return and running total of
apportion.positions() over the whole history, and the running scores at a bar count are those
of apportion.score() over the history up to it, bit for bit; a sweep's every set too, and the
set that rank() put first, handed to a Stream as its index names it; bars fed wrong and
revised give the true history's bits; in a StreamGroup a rule's stream gives its bits alone;
resumed from a window, its scores are score()'s over the range from its first new bar.
A refused update and a refused stream change nothing; a rule's state loads with its rule and
parameters."""

import numpy as np
import pandas as pd
import pytest

import apportion
from apportion import errors

SERIES = 3
BARS = 700
# (kernel, rule, parameters as score() takes them)
CASES = [
    ("rsi", "rsi_zone", {"timeperiod": 14, "lower": 40, "upper": 60, "cost": 0.001}),
    ("bollinger", "bands_revert/more", {"period": 20, "nbdev_up": 2.0, "nbdev_dn": 1.5}),
    ("macd", "macd_cross/log", {"fast": 12, "slow": 26, "signal": 9, "side": 1}),
]
IDS = [f"{k}:{r}" for k, r, _ in CASES]
# Bar counts whose running scores are checked against score() over the first n bars.
CHECKS = (137, 411, BARS)


def closes(seed):
    """series x bars closes with NaN gaps in two series."""
    rng = np.random.default_rng(seed)
    x = 100.0 + np.cumsum(rng.standard_normal((SERIES, BARS)), axis=1)
    x[1, 50:61] = np.nan
    x[2, 300:320] = np.nan
    return x


def pieces(seed):
    """Random cuts of BARS bars: pieces of 1 to 90 bars, in order."""
    rng = np.random.default_rng(seed)
    cuts, at = [], 0
    while at < BARS:
        n = min(int(rng.integers(1, 91)), BARS - at)
        cuts.append((at, at + n))
        at += n
    return cuts


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


def same(a, b):
    return np.array_equal(bits(a), bits(b))


def feed(stream, x, rt):
    """Feeds x in pieces, peeking at each piece first and saving and loading the stream
    after every third; returns every output laid end to end (series x bars a field) and the
    stream it ended with."""
    got = {f: [] for f in stream.outputs}
    for i, (a, b) in enumerate(pieces(7)):
        peeked = stream.peek(x[:, a:b], axis=1)
        out = stream.update(x[:, a:b], axis=1)
        for f in stream.outputs:
            assert same(getattr(peeked, f), getattr(out, f)), (f, a)
            got[f].append(getattr(out, f))
        if i % 3 == 2:
            stream = apportion.Stream.load(bytes(stream), runtime=rt)
    return {f: np.concatenate(v, axis=-1) for f, v in got.items()}, stream


def check_set(got, x, kernel, rule, params, rt):
    """got (series x bars a field) against positions() over the whole history and score()
    over its first n bars, n each of CHECKS."""
    frame = apportion.positions(x, kernel, rule, runtime=rt, axis=1, **params)
    for r in range(SERIES):
        one = frame.xs(r, level="series")
        for f, col in (("position", "position"), ("ret", "return"), ("equity", "equity")):
            assert same(got[f][r], one[col].to_numpy()), (f, r)
    names = apportion.MORE_SCORES if rule.endswith("/more") else apportion.SCORES
    for n in CHECKS:
        want = apportion.score(x[:, :n], kernel, rule, runtime=rt, axis=1, **params)
        for name in names:
            assert same(got[name][:, n - 1], want[name].to_numpy()), (name, n)


@pytest.mark.parametrize("kernel,rule,params", CASES, ids=IDS)
def test_pieces_give_the_positions_and_scores_of_the_batch(cpu_rt, kernel, rule, params):
    x = closes(1)
    s = apportion.Stream(kernel, SERIES, rule=rule, runtime=cpu_rt, **params)
    assert s.rule == rule and s.inputs == ("close",)
    assert s.outputs[:3] == ("position", "ret", "equity")
    got, s = feed(s, x, cpu_rt)
    assert s.rule == rule and s.kernel == kernel  # as loaded from the state
    check_set(got, x, kernel, rule, params, cpu_rt)
    # The positions are not all flat, or the comparison would prove little.
    assert np.count_nonzero(got["position"]) > BARS // 10


def test_a_sweep_gives_each_set_and_the_sweeps_scores(cpu_rt):
    x = closes(2)
    s = apportion.Stream("rsi", SERIES, rule="rsi_zone", runtime=cpu_rt, lower=[20, 30], cost=[0.0, 0.002])
    assert s.labels == [(20, 0.0), (20, 0.002), (30, 0.0), (30, 0.002)]
    got, s = feed(s, x, cpu_rt)
    assert s.labels == [(20, 0.0), (20, 0.002), (30, 0.0), (30, 0.002)]  # loaded: the differing values
    assert got["position"].shape == (4, SERIES, BARS)
    for k, (lower, cost) in enumerate(s.labels):
        check_set({f: v[k] for f, v in got.items()}, x, "rsi", "rsi_zone", {"lower": lower, "cost": cost}, cpu_rt)
    whole = apportion.score(x, "rsi", "rsi_zone", runtime=cpu_rt, axis=1, lower=[20, 30], cost=[0.0, 0.002])
    for name in apportion.SCORES:
        assert same(got[name][:, :, -1].reshape(-1), whole[name].to_numpy()), name


def test_the_set_rank_puts_first_is_handed_over_as_its_index_names_it(cpu_rt):
    x = closes(3)
    scores = apportion.score(x, "bollinger", "bands_revert", runtime=cpu_rt, axis=1, period=[10, 20, 30], nbdev_up=[1.5, 2.5], cost=0.001)
    ranked = apportion.rank(scores)
    best = dict(zip(ranked.index.names, ranked.index[0]))
    s = apportion.Stream("bollinger", SERIES, rule="bands_revert", runtime=cpu_rt, cost=0.001, **best)
    got, _ = feed(s, x, cpu_rt)
    want = scores.xs(tuple(best.values()), level=list(best))
    for name in apportion.SCORES:
        assert same(got[name][:, -1], want[name].to_numpy()), name


def test_a_frame_update_keeps_its_dates_and_columns(cpu_rt):
    x = closes(4)
    dates = pd.date_range("2024-01-01", periods=BARS, freq="D")
    frame = pd.DataFrame(x.T, index=dates, columns=["a", "b", "c"])
    s = apportion.Stream("rsi", SERIES, rule="rsi_zone", runtime=cpu_rt)
    first = s.update(frame.iloc[:400])
    last = s.update(frame.iloc[400:])
    assert list(last.position.columns) == ["a", "b", "c"] and last.sharpe.index.equals(dates[400:])
    whole = apportion.positions(frame, "rsi", "rsi_zone", runtime=cpu_rt)
    for name in ("a", "b", "c"):
        pos = np.concatenate([first.position[name].to_numpy(), last.position[name].to_numpy()])
        assert same(pos, whole.xs(name, level="series")["position"].to_numpy())
    assert same(last.sharpe.iloc[-1].to_numpy(), apportion.score(frame, "rsi", "rsi_zone", runtime=cpu_rt)["sharpe"].to_numpy())


def test_bars_fed_wrong_and_revised_give_the_true_historys_bits(cpu_rt):
    """Each piece's last bars fed wrong and then revised: the outputs are the true history's,
    bit for bit, and the stream saves the bytes of one fed the true bars alone; a revise of
    more bars than revise_bars raises with nothing changed."""
    x = closes(6)
    params = {"timeperiod": 9, "lower": 35, "upper": 65, "cost": 0.001}
    s = apportion.Stream("rsi", SERIES, rule="rsi_revert", runtime=cpu_rt, revise_bars=12, **params)
    true = apportion.Stream("rsi", SERIES, rule="rsi_revert", runtime=cpu_rt, revise_bars=12, **params)
    got = {f: [] for f in s.outputs}
    for i, (a, b) in enumerate(pieces(8)):
        k = min(b - a, 1 + i % 12)  # the piece's last k bars are fed wrong
        wrong = x[:, a:b].copy()
        wrong[:, b - a - k :] *= 1.25
        out = s.update(wrong, axis=1)
        true.update(x[:, a:b], axis=1)
        fixed = s.revise(x[:, b - k : b], axis=1)
        for f in s.outputs:
            got[f].append(np.concatenate([getattr(out, f)[:, : b - a - k], getattr(fixed, f)], axis=-1))
        assert bytes(s) == bytes(true), a
        if i % 3 == 2:
            s = apportion.Stream.load(bytes(s), runtime=cpu_rt)
    check_set({f: np.concatenate(v, axis=-1) for f, v in got.items()}, x, "rsi", "rsi_revert", params, cpu_rt)
    before = bytes(s)
    with pytest.raises(errors.InvalidArgumentError, match="cannot be revised"):
        s.revise(x[:, BARS - 13 :], axis=1)
    assert bytes(s) == before


def test_a_group_feeds_a_rule_stream_as_it_is_fed_alone(cpu_rt):
    """A rule's stream in a StreamGroup beside an indicator's gives, update after update,
    the outputs and the saved bytes of the same stream fed alone."""
    x = closes(7)
    params = {"timeperiod": 9, "lower": 35, "upper": 65}

    def members():
        return {
            "rule": apportion.Stream("rsi", SERIES, rule="rsi_zone", runtime=cpu_rt, revise_bars=4, **params),
            "macd": apportion.Stream("macd", SERIES, runtime=cpu_rt),
        }

    grouped, alone = members(), members()
    g = apportion.StreamGroup(grouped)
    for a, b in pieces(9):
        out = g.update(close=x[:, a:b], axis=1)
        for key, s in alone.items():
            want = s.update(x[:, a:b], axis=1)
            for f in s.outputs:
                assert same(getattr(out[key], f), getattr(want, f)), (key, f, a)
    for key in grouped:
        assert bytes(grouped[key]) == bytes(alone[key]), key


def test_refusals_change_nothing(cpu_rt):
    x = closes(5)
    s = apportion.Stream("rsi", SERIES, rule="rsi_zone", runtime=cpu_rt)
    s.update(x[:, :100], axis=1)
    before = bytes(s)
    with pytest.raises(ValueError, match="follows 3 series"):
        s.update(x[:2, 100:110], axis=1)
    with pytest.raises(ValueError, match="needs axis"):
        s.update(x[:, 100:110])
    assert bytes(s) == before
    with pytest.raises(errors.BadParameterError):
        apportion.Stream("rsi", SERIES, rule="rsi_zone", runtime=cpu_rt, lower=80, upper=20)
    with pytest.raises(TypeError, match="rule must be a str"):
        apportion.Stream("rsi", SERIES, rule=3, runtime=cpu_rt)
    # A rule's state is refused where the stream it must be is an indicator's, and kept.
    with pytest.raises(errors.InvalidArgumentError):
        apportion._core.Stream(cpu_rt, "rsi", SERIES, {}, state=before)
    t = apportion.Stream.load(before, runtime=cpu_rt)
    assert (t.kernel, t.rule, t.params["lower"], t.params["upper"]) == ("rsi", "rsi_zone", 30, 70)
    assert same(t.update(x[:, 100:], axis=1).position, s.update(x[:, 100:], axis=1).position)
    assert "rule=rsi_zone" in repr(t) and t.fork().rule == "rsi_zone"


def test_a_resumed_rule_scores_the_range_from_its_first_new_bar(cpu_rt):
    """Stream.resume with a rule, from the last 600 bars of 2,000 (rsi needs 456 there): the
    folds begin, flat, at bar 2,000, so the scores after bar t are score()'s over the range
    [2000, t + 1) of the whole history, bit for bit; a revise back past bar 2,000 raises with
    nothing changed."""
    rng = np.random.default_rng(10)
    x = 100.0 + np.cumsum(rng.standard_normal((SERIES, 2300)), axis=1)
    x[1, 2100:2110] = np.nan
    params = {"timeperiod": 9, "lower": 35, "upper": 65, "cost": 0.001}
    s = apportion.Stream.resume("rsi", x[:, 1400:2000], first=1400, axis=1, rule="rsi_revert", runtime=cpu_rt, revise_bars=8, **params)
    assert s.rule == "rsi_revert"
    first = s.update(x[:, 2000:2003], axis=1)
    before = bytes(s)
    with pytest.raises(errors.InvalidArgumentError, match="resumed at bar 2000"):
        s.revise(x[:, 1999:2003], axis=1)
    assert bytes(s) == before
    s = apportion.Stream.load(bytes(s), runtime=cpu_rt)
    rest = s.update(x[:, 2003:], axis=1)
    got = {name: np.concatenate([getattr(first, name), getattr(rest, name)], axis=-1) for name in apportion.SCORES}
    ends = (2001, 2003, 2150, 2300)
    want = apportion.score(x, "rsi", "rsi_revert", runtime=cpu_rt, axis=1, ranges=[(2000, e) for e in ends], **params)
    for e in ends:
        one = want.xs(f"2000:{e}", level="range")
        for name in apportion.SCORES:
            assert same(got[name][:, e - 2001], one[name].to_numpy()), (name, e)
    assert np.count_nonzero(got["trades"][:, -1]) > 0  # the rule traded after the resume
