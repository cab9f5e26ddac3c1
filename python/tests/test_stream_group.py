"""apportion.StreamGroup (docs/python.md, "Groups of streams"; docs/streaming.md, "Groups"):
seven streams (bollinger, macd, atr, correl with its x and y bound to close and high, a
bollinger sweep of two sets, obv, mfi) fed together in random pieces across the first tile
boundaries of bollinger, atr, mfi and correl, with NaN gaps, give each stream's bits fed
alone and the batch call's over the whole history, with saved states byte for byte those
of the lone streams; a peek gives the update's bits and moves nothing; every refusal (the
package's checks and the library's: a negative volume only the last stream reads, a Python
user kernel that fails in the last stream) raises with every stream's saved state
unchanged, and the refused group then goes on with the batch's bits; a DataFrame of the
latest bar of every symbol gives Series on its index; while an update runs, its streams
refuse other calls."""

import numpy as np
import pytest

import apportion

SERIES = 3
BARS = 4400  # past the tiles of 3065 (atr) and 4096 (bollinger, mfi, correl)
BOUNDARIES = (3065, 4096)
SWEEP = [10, 20]
INPUTS = ("open", "high", "low", "close", "volume")


def history(seed, bars=BARS):
    """{input: series x bars}: a random walk as close, highs above lows, positive volumes, NaN
    gaps in series 1 (every input) and in series 2's close across bar 4096."""
    rng = np.random.default_rng(seed)
    close = 100.0 + np.cumsum(rng.standard_normal((SERIES, bars)), axis=1)
    spread = np.abs(rng.standard_normal((SERIES, bars)))
    made = {
        "open": np.roll(close, 1, axis=1),
        "high": close + spread,
        "low": close - spread,
        "close": close,
        "volume": 1000.0 + 9000.0 * rng.random((SERIES, bars)),
    }
    for arr in made.values():
        arr[1, 40:47] = np.nan
    if bars > 4100:
        made["close"][2, 4090:4100] = np.nan
    return made


def make_streams(runtime):
    """{key: Stream} of the group, and bind for correl."""
    streams = {
        "boll": apportion.Stream("bollinger", SERIES, runtime=runtime, period=20),
        "macd": apportion.Stream("macd", SERIES, runtime=runtime),
        "atr": apportion.Stream("atr", SERIES, runtime=runtime, timeperiod=14),
        "corr": apportion.Stream("correl", SERIES, runtime=runtime, timeperiod=30),
        "sweep": apportion.Stream("bollinger", SERIES, runtime=runtime, period=SWEEP),
        # The only streams that read volume, last: a negative volume is found after five
        # streams that a group updating stream by stream would have moved.
        "obv": apportion.Stream("obv", SERIES, runtime=runtime),
        "mfi": apportion.Stream("mfi", SERIES, runtime=runtime, timeperiod=14),
    }
    return streams, {"corr": {"x": "close", "Y": "High"}}


def own_inputs(key, bars):
    """The bars a stream of the group reads, by its kernel's input names."""
    if key == "corr":
        return {"x": bars["close"], "y": bars["high"]}
    names = {"atr": ("high", "low", "close"), "mfi": ("high", "low", "close", "volume"), "obv": ("close", "volume")}
    return {n: bars[n] for n in names.get(key, ("close",))}


def cuts(seed):
    """Piece sizes summing to BARS: 40 single bars, an empty update, random pieces, each
    tile boundary straddled by a piece."""
    rng = np.random.default_rng(seed)
    sizes = [1] * 40 + [0]
    while sum(sizes) < BARS:
        sizes.append(min(int(rng.integers(2, 700)), BARS - sum(sizes)))
    starts = np.cumsum([0] + sizes[:-1])
    for b in BOUNDARIES:
        assert any(a < b < a + n for a, n in zip(starts, sizes)), f"no piece straddles bar {b}"
    return sizes


def block(bars, t, n):
    """Bars t .. t + n - 1 of every input: one value a series for one bar, else bars x series."""
    if n == 1:
        return {k: v[:, t] for k, v in bars.items()}, None
    return {k: v[:, t : t + n].T for k, v in bars.items()}, 0


def as_series_major(out, n, sets):
    """One output of an update (series,) / (bars, series), a sweep's with sets first, as
    (series, bars) / (sets, series, bars)."""
    if sets:
        return out.reshape(out.shape[0], SERIES, 1) if n == 1 else out.transpose(0, 2, 1)
    return out.reshape(SERIES, 1) if n == 1 else out.T


def assert_same_bits(got, want):
    got, want = np.ascontiguousarray(got), np.ascontiguousarray(want)
    assert got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def batch(runtime, key, stream, bars):
    """The batch call of one stream of the group over the whole history: its named tuple,
    (series, bars) each (a sweep's (sets, series, bars))."""
    if key == "sweep":
        return apportion.bollinger(bars["close"], period=SWEEP, runtime=runtime, axis=-1)
    params = {k: v for k, v in stream.params.items()}
    return runtime.compute(stream.kernel, **own_inputs(key, bars), **params, axis=-1)


def test_a_group_gives_each_stream_alone_and_the_batch(rt):
    streams, bind = make_streams(rt)
    alone, _ = make_streams(rt)
    group = apportion.StreamGroup(streams, bind=bind)
    assert len(group) == 7 and group.n_series == SERIES
    assert group.inputs == ["close", "high", "low", "volume"]
    bars = history(seed=1)
    got = {k: {name: [] for name in s.outputs} for k, s in streams.items()}
    t = 0
    for n in cuts(seed=2):
        piece, axis = block(bars, t, n)
        # Bars the group does not read ("open") are ignored.
        out = group.update(axis=axis, **piece)
        assert list(out) == list(streams)
        for k, s in alone.items():
            mine = own_inputs(k, piece)
            lone = s.update(mine["close"], axis=axis) if len(mine) == 1 else s.update(axis=axis, **mine)
            assert type(out[k]) is type(lone)
            for name, o, w in zip(s.outputs, out[k], lone):
                assert_same_bits(o, w)
                got[k][name].append(as_series_major(o, n, k == "sweep"))
        t += n
    for k, s in streams.items():
        assert list(s.bars) == [BARS] * SERIES
        assert bytes(s) == bytes(alone[k]), f"{k}: the group's state is not the lone stream's"
        want = batch(rt, k, s, bars)
        for name, w in zip(s.outputs, want):
            assert_same_bits(np.concatenate(got[k][name], axis=-1), w)


def test_a_peek_gives_the_update_bits_and_moves_no_stream(cpu_rt):
    streams, bind = make_streams(cpu_rt)
    group = apportion.StreamGroup(list(streams.values()), bind={3: bind["corr"]})
    bars = history(seed=3, bars=300)
    group.update({k: v[:, :200].T for k, v in bars.items()}, axis=0)
    before = [bytes(s) for s in streams.values()]
    other = {k: v[:, 200] * 1.01 for k, v in bars.items()}
    group.peek(other)  # a bar still forming
    assert [bytes(s) for s in streams.values()] == before
    for t in range(200, 204):
        piece = {k: v[:, t] for k, v in bars.items()}
        peeked = group.peek(piece)
        assert [bytes(s) for s in streams.values()] == before
        updated = group.update(piece)
        assert isinstance(updated, list) and len(updated) == 7
        for p, u in zip(peeked, updated):
            for a, b in zip(p, u):
                assert_same_bits(a, b)
        before = [bytes(s) for s in streams.values()]


def refusals(good):
    """(what, the update's keyword arguments, the error), each to be refused whole: the
    package's checks, and the library's (a negative volume in the last series, which only
    the group's last two streams, obv and mfi, read)."""
    volume = good["volume"].copy()
    volume[-1, -1] = -1.0
    return [
        ("an input missing", {k: v for k, v in good.items() if k != "volume"}, KeyError),
        ("a series too few", {**good, "close": good["close"][:, :2]}, ValueError),
        ("inputs of other shapes", {**good, "high": good["high"][:2]}, ValueError),
        ("a dtype that is not a number", {**good, "low": good["low"].astype(str)}, (TypeError, ValueError)),
        ("a name twice (case)", {**good, "CLOSE": good["close"]}, ValueError),
        ("a negative volume in the last series", {**good, "volume": volume}, apportion.InvalidArgumentError),
    ]


def test_a_refused_update_moves_no_stream_and_the_group_goes_on(cpu_rt):
    streams, bind = make_streams(cpu_rt)
    group = apportion.StreamGroup(streams, bind=bind)
    bars = history(seed=4, bars=400)
    head = group.update({k: v[:, :170].T for k, v in bars.items()}, axis=0)
    before = {k: bytes(s) for k, s in streams.items()}
    good = {k: v[:, 170:174].T.copy() for k, v in bars.items()}
    for what, kwargs, error in refusals(good):
        with pytest.raises(error):
            group.update(axis=0, **kwargs)
        for k, s in streams.items():
            assert bytes(s) == before[k], f"refused for {what}, stream {k} moved"
    with pytest.raises(TypeError):
        group.update(np.ones(SERIES))  # not by name
    with pytest.raises(apportion.InvalidArgumentError):
        group.peek(axis=0, **refusals(good)[-1][1])
    assert {k: bytes(s) for k, s in streams.items()} == before
    tail = group.update({k: v[:, 170:].T for k, v in bars.items()}, axis=0)
    for k, s in streams.items():
        want = batch(cpu_rt, k, s, bars)
        for name, h, t, w in zip(s.outputs, head[k], tail[k], want):
            sets = k == "sweep"
            assert_same_bits(np.concatenate([as_series_major(h, 170, sets), as_series_major(t, 230, sets)], axis=-1), w)


def _fails_late(inputs, outputs, row, begin, end, params, seed):
    if end > 150:
        raise ZeroDivisionError(f"a kernel's own failure at bar {end}")
    outputs[0][row, begin:end] = inputs[0][row, begin:end]


def test_a_user_kernel_failing_in_the_last_stream_moves_none():
    with apportion.Runtime("cpu", profiles=False, learn=False) as own:
        own.register_kernel("py_fails_late", _fails_late, outputs=("y",), tile=64, inputs=("close",))
        first = apportion.Stream("sma", SERIES, runtime=own, timeperiod=5)
        last = apportion.Stream("py_fails_late", SERIES, runtime=own)
        group = apportion.StreamGroup([first, last])
        close = history(seed=5, bars=300)["close"]
        group.update(close=close[:, :100].T, axis=0)
        before = [bytes(first), bytes(last)]
        with pytest.raises(apportion.KernelFailedError) as failed:
            group.update(close=close[:, 100:200].T, axis=0)
        assert isinstance(failed.value.__cause__, ZeroDivisionError)
        assert [bytes(first), bytes(last)] == before
        assert list(first.bars) == [100] * SERIES
        out = group.update(close=close[:, 100])
        assert_same_bits(out[1].y, close[:, 100])
        want = own.compute("sma", close[:, :101], timeperiod=5, axis=-1).sma[:, 100]
        assert_same_bits(out[0].sma, want)


def test_a_frame_of_the_latest_bar_of_each_symbol_gives_series_on_its_index(cpu_rt):
    pd = pytest.importorskip("pandas")
    streams, bind = make_streams(cpu_rt)
    alone, _ = make_streams(cpu_rt)
    group = apportion.StreamGroup(streams, bind=bind)
    bars = history(seed=6, bars=60)
    symbols = ["AAA", "BBB", "CCC"]
    for t in range(60):
        frame = pd.DataFrame({k.capitalize(): v[:, t] for k, v in bars.items()}, index=symbols)
        frame["name"] = ["a", "b", "c"]  # a column no stream reads, not a number: ignored
        out = group.update(frame)
        for k, s in alone.items():
            mine = own_inputs(k, {n: v[:, t] for n, v in bars.items()})
            lone = s.update(mine["close"]) if len(mine) == 1 else s.update(**mine)
            for o, w in zip(out[k], lone):
                if k == "sweep":
                    assert isinstance(o, pd.DataFrame) and list(o.index) == symbols and list(o.columns) == SWEEP
                    assert_same_bits(o.to_numpy().T, w)
                else:
                    assert isinstance(o, pd.Series) and list(o.index) == symbols
                    assert_same_bits(o.to_numpy(), w)
    # Frames of several bars (columns the series) by input, DataFrames back.
    more = history(seed=7, bars=5)
    frames = {k: pd.DataFrame(v.T, columns=symbols) for k, v in more.items()}
    out = group.update(frames)
    assert isinstance(out["atr"].atr, pd.DataFrame) and list(out["atr"].atr.columns) == symbols
    mixed = {**frames, "close": more["close"].T}
    before = bytes(streams["boll"])
    with pytest.raises(ValueError, match="laid out"):
        group.update(mixed, axis=0)
    assert bytes(streams["boll"]) == before


def test_bad_groups_are_refused(cpu_rt):
    a = apportion.Stream("sma", SERIES, runtime=cpu_rt)
    b = apportion.Stream("sma", SERIES + 1, runtime=cpu_rt)
    with pytest.raises(apportion.InvalidArgumentError, match="same series"):
        apportion.StreamGroup([a, b])
    with pytest.raises(apportion.InvalidArgumentError, match="same stream"):
        apportion.StreamGroup([a, a])
    with pytest.raises(TypeError, match="not an apportion.Stream"):
        apportion.StreamGroup([a, "sma"])
    with pytest.raises(ValueError):
        apportion.StreamGroup([])
    with pytest.raises(TypeError, match="no input 'z'"):
        apportion.StreamGroup([a], bind={0: {"z": "close"}})
    with pytest.raises(KeyError):
        apportion.StreamGroup([a], bind={1: {"close": "close"}})


def test_a_closed_stream_or_runtime_stops_the_group_and_moves_no_other(cpu_rt):
    a = apportion.Stream("sma", SERIES, runtime=cpu_rt)
    b = apportion.Stream("ema", SERIES, runtime=cpu_rt)
    group = apportion.StreamGroup({"a": a, "b": b})
    group.update(close=np.ones(SERIES))
    before = bytes(a)
    b.close()
    with pytest.raises(ValueError, match="stream 1 \\(ema\\) of the group: this apportion Stream is closed"):
        group.update(close=np.ones(SERIES))
    assert bytes(a) == before
    with apportion.Runtime("cpu", profiles=False, learn=False) as own:
        c = apportion.Stream("sma", SERIES, runtime=own)
        other = apportion.StreamGroup([c])
    with pytest.raises(ValueError, match="Runtime of this apportion Stream is closed"):
        other.update(close=np.ones(SERIES))
    group.close()
    with pytest.raises(ValueError, match="StreamGroup is closed"):
        group.update(close=np.ones(SERIES))
    assert list(a.bars) == [1] * SERIES  # the streams stay


def test_while_a_group_update_runs_its_streams_refuse_other_calls():
    """A Python user kernel runs inside the group's update (the GIL taken back): from there,
    a call on another stream of the group is refused, as another thread's would be, with no
    timing involved."""
    seen = []

    def probe(inputs, outputs, row, begin, end, params, seed):
        for call in (lambda: bytes(first), lambda: first.update(np.ones(SERIES)), first.close):
            try:
                call()
                seen.append(None)
            except RuntimeError as e:
                seen.append(str(e))
        outputs[0][row, begin:end] = inputs[0][row, begin:end]

    with apportion.Runtime("cpu", profiles=False, learn=False) as own:
        own.register_kernel("py_probe", probe, outputs=("y",), tile=64, inputs=("close",))
        first = apportion.Stream("sma", SERIES, runtime=own, timeperiod=5)
        group = apportion.StreamGroup([first, apportion.Stream("py_probe", SERIES, runtime=own)])
        group.update(close=np.ones(SERIES))
        assert seen and all(m is not None and "in use by another thread" in m for m in seen), seen
        assert not first.closed and list(first.bars) == [1] * SERIES
