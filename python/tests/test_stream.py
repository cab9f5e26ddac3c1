"""apportion.Stream (docs/python.md, "Streams"): the outputs of the updates, laid end to end,
are bitwise the batch call's over the whole history (docs/streaming.md, "The guarantee"), for
bollinger, macd, the catalog's atr (three inputs) and obv (the cumulative sum the stream
carries across tiles of 65,536 bars), fed one bar at a time and in random
chunks of which one crosses the kernel's first tile boundary, with NaN gaps; a state saved
with bytes() and loaded goes on with the same bits; refused states raise the library's
message; a DataFrame update keeps its index and columns; a Python user kernel streams with
absolute positions, and its exception is the cause of the update's KernelFailedError."""

import struct

import numpy as np
import pytest

import apportion

SERIES = 3
# (kernel, parameters, the batch call on {input: series x bars} with those parameters)
CASES = [
    ("bollinger", {"period": 20, "nbdev_up": 2.0, "nbdev_dn": 1.5}, lambda rt, x, p: apportion.bollinger(x["close"], runtime=rt, **p, axis=-1)),
    # TA-Lib's names, which the library reports back (the older fast, slow, signal are taken too).
    ("macd", {"fastperiod": 12, "slowperiod": 26, "signalperiod": 9}, lambda rt, x, p: apportion.macd(x["close"], p["fastperiod"], p["slowperiod"], p["signalperiod"], runtime=rt, axis=-1)),
    ("atr", {"timeperiod": 14}, lambda rt, x, p: rt.compute("atr", **x, **p, axis=-1)),
    ("obv", {}, lambda rt, x, p: rt.compute("obv", **x, **p, axis=-1)),
]
IDS = [c[0] for c in CASES]
# Where the saved state keeps the tile length (docs/streaming.md, "The state").
TILE_OFFSET = 136


def tile_of(stream):
    return struct.unpack_from("<Q", bytes(stream), TILE_OFFSET)[0]


def history(kernel, bars, seed):
    """{input: series x bars} with NaN gaps in two of the series: a run early on, and one
    around the first tile boundary's neighbourhood (bars - 400 .. bars - 380)."""
    rng = np.random.default_rng(seed)
    close = 100.0 + np.cumsum(rng.standard_normal((SERIES, bars)), axis=1)
    close[1, 50:61] = np.nan
    close[2, bars - 400 : bars - 380] = np.nan
    if kernel == "obv":
        volume = 1000.0 + 9000.0 * rng.random((SERIES, bars))
        volume[0, 300:305] = np.nan
        return {"close": close, "volume": volume}
    if kernel != "atr":
        return {"close": close}
    high = close + np.abs(rng.standard_normal((SERIES, bars)))
    low = close - np.abs(rng.standard_normal((SERIES, bars)))
    high[0, 300:305] = np.nan
    return {"high": high, "low": low, "close": close}


def cuts(tile, total, seed):
    """Chunk sizes summing to total: 200 single bars, an empty update, random chunks, one of
    78 bars that straddles the tile boundary, 5 single bars after it, random chunks again."""
    rng = np.random.default_rng(seed)
    out, t = [1] * 200 + [0], 200

    def random_until(stop):
        nonlocal t
        while t < stop:
            n = min(int(rng.integers(1, 1500)), stop - t)
            out.append(n)
            t += n

    random_until(tile - 37)
    out += [78] + [1] * 5
    t += 83
    random_until(total)
    return out


def feed(stream, inputs, sizes, start=0):
    """Feeds inputs[:, start:] in chunks of `sizes`: single bars as 1-D arrays of one value a
    series, the others as bars x series blocks; returns {output: series x bars fed}."""
    pieces = {name: [] for name in stream.outputs}
    t = start
    for n in sizes:
        if n == 1:
            block = {k: v[:, t] for k, v in inputs.items()}
        else:
            block = {k: v[:, t : t + n].T for k, v in inputs.items()}
        axis = None if n == 1 else 0
        out = stream.update(block["close"], axis=axis) if len(block) == 1 else stream.update(axis=axis, **block)
        for name, arr in zip(stream.outputs, out):
            assert arr.shape == ((SERIES,) if n == 1 else (n, SERIES))
            pieces[name].append(arr.reshape(SERIES, 1) if n == 1 else arr.T)
        t += n
    return {k: np.concatenate(v, axis=1) for k, v in pieces.items()}


def assert_same_bits(got, want):
    got, want = np.ascontiguousarray(got), np.ascontiguousarray(want)
    assert got.shape == want.shape
    assert np.array_equal(got, want, equal_nan=True)
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("kernel,params,batch", CASES, ids=IDS)
def test_updates_give_the_batch_bits_and_resume_from_a_saved_state(rt, kernel, params, batch):
    s = apportion.Stream(kernel, series=SERIES, runtime=rt, **params)
    tile = tile_of(s)
    total = tile + 300
    inputs = history(kernel, total, seed=len(kernel))
    want = batch(rt, inputs, params)
    sizes = cuts(tile, total, seed=11)
    starts = np.cumsum([0] + sizes[:-1])
    assert sum(sizes) == total
    assert any(a < tile < a + n for a, n in zip(starts, sizes)), "no update straddles the tile boundary"

    # Save mid-way, past the tile boundary, and go on with the loaded copy and the original.
    half = sizes.index(78) + 3
    done = sum(sizes[:half])
    head = feed(s, inputs, sizes[:half])
    blob = bytes(s)
    s2 = apportion.Stream.load(blob, runtime=rt)
    assert (s2.kernel, s2.n_series, s2.seed) == (kernel, SERIES, 0)
    assert s2.params == {k: float(v) for k, v in params.items()}
    assert s2.outputs == s.outputs and list(s2.bars) == [done] * SERIES
    assert bytes(s2) == blob
    tail = feed(s, inputs, sizes[half:], start=done)
    tail2 = feed(s2, inputs, sizes[half:], start=done)
    assert list(s.bars) == [total] * SERIES
    for name, w in zip(s.outputs, want):
        assert_same_bits(np.concatenate([head[name], tail[name]], axis=1), w)
        assert_same_bits(tail2[name], w[:, done:])


def test_one_bar_at_a_time_from_the_first_bar_matches_the_batch(rt):
    """macd's outputs at every bar of a short history, each from an update of one bar,
    its warm-up included."""
    close = history("macd", 400, seed=5)["close"]
    s = apportion.Stream("macd", SERIES, runtime=rt)
    got = np.stack([s.update(close[:, t]).hist for t in range(400)], axis=1)
    assert_same_bits(got, apportion.macd(close, runtime=rt, axis=-1).hist)


def test_inputs_by_keyword_mapping_and_case_give_the_same_bits(rt):
    x = history("atr", 600, seed=3)
    a = apportion.Stream("atr", SERIES, runtime=rt, timeperiod=10)
    b = apportion.Stream("atr", SERIES, runtime=rt, timeperiod=10)
    by_keyword = a.update(high=x["high"].T, low=x["low"].T, close=x["close"].T, axis=0)
    by_mapping = b.update({"High": x["high"].T, "LOW": x["low"].T, "close": x["close"].T}, axis=0)
    assert by_keyword._fields == ("atr",)
    assert_same_bits(by_keyword.atr, by_mapping.atr)
    assert_same_bits(by_keyword.atr.T, rt.compute("atr", **x, timeperiod=10, axis=1).atr)
    with pytest.raises(TypeError, match="high, low, close"):
        a.update(x["close"][:, 0])
    with pytest.raises(KeyError, match="low"):
        a.update(high=x["high"][:, 0], close=x["close"][:, 0])
    with pytest.raises(ValueError, match="another shape"):
        a.update(high=x["high"][:, 0], low=x["low"][:, :2].T, close=x["close"][:, 0], axis=0)


def test_a_dataframe_update_keeps_its_index_and_columns(rt):
    pd = pytest.importorskip("pandas")
    close = history("bollinger", 300, seed=9)["close"]
    dates = pd.date_range("2024-01-01", periods=300, freq="D")
    frame = pd.DataFrame(close.T, index=dates, columns=["AAA", "BBB", "CCC"])
    s = apportion.Stream("bollinger", SERIES, runtime=rt, period=20)
    first = s.update(frame.iloc[:250])
    assert isinstance(first.upper, pd.DataFrame)
    assert first.upper.index.equals(dates[:250]) and list(first.upper.columns) == ["AAA", "BBB", "CCC"]
    last_row = s.update(frame.iloc[250])  # a row: a Series indexed by the series' names
    assert isinstance(last_row.middle, pd.Series) and list(last_row.middle.index) == ["AAA", "BBB", "CCC"]
    rest = s.update(frame.iloc[251:])
    want = apportion.bollinger(close, period=20, runtime=rt, axis=-1)
    got = np.concatenate([first.middle.to_numpy(), last_row.middle.to_numpy()[None, :], rest.middle.to_numpy()])
    assert_same_bits(got.T, want.middle)


def test_refused_states_raise_the_library_message(rt):
    s = apportion.Stream("bollinger", SERIES, runtime=rt)
    s.update(history("bollinger", 100, seed=1)["close"].T, axis=0)
    blob = bytes(s)
    corrupt = bytearray(blob)
    corrupt[len(blob) // 2] ^= 0x40
    with pytest.raises(apportion.InvalidArgumentError, match="apo_stream_load: corrupt: the checksum"):
        apportion.Stream.load(bytes(corrupt), runtime=rt)
    with pytest.raises(apportion.InvalidArgumentError, match="apo_stream_load: truncated"):
        apportion.Stream.load(blob[:-10], runtime=rt)
    with pytest.raises(ValueError, match="not a stream state"):
        apportion.Stream.load(b"hello", runtime=rt)
    # A bytearray or memoryview of a good state loads.
    assert list(apportion.Stream.load(memoryview(bytearray(blob)), runtime=rt).bars) == [100] * SERIES


def test_bad_streams_and_updates_are_refused(rt):
    with pytest.raises(apportion.InvalidArgumentError):
        apportion.Stream("returns_stats", 2, runtime=rt)  # a reduction: no per-bar outputs
    with pytest.raises(apportion.UnknownKernelError):
        apportion.Stream("no_such_kernel", 2, runtime=rt)
    with pytest.raises(apportion.BadParameterError):
        apportion.Stream("bollinger", 2, runtime=rt, period=0)
    with pytest.raises(TypeError):
        apportion.Stream("bollinger", 2.5, runtime=rt)
    s = apportion.Stream("bollinger", SERIES, runtime=rt)
    with pytest.raises(ValueError, match="2 values; the stream follows 3 series"):
        s.update(np.zeros(2))
    with pytest.raises(ValueError, match="4 columns"):
        s.update(np.zeros((5, 4)), axis=0)
    assert list(s.bars) == [0] * SERIES  # nothing was fed
    s.close()
    with pytest.raises(ValueError, match="Stream is closed"):
        s.update(np.zeros(SERIES))


def test_a_stream_whose_runtime_closed_refuses_calls():
    with apportion.Runtime("cpu", profiles=False, learn=False) as own:
        s = apportion.Stream("sma", 2, runtime=own, timeperiod=5)
        s.update(np.ones(2))
    with pytest.raises(ValueError, match="Runtime of this apportion Stream is closed"):
        s.update(np.ones(2))
    with pytest.raises(ValueError, match="Runtime of this apportion Stream is closed"):
        bytes(s)


def _position(inputs, outputs, row, begin, end, params, seed):
    """out = x + the bar's position: right only when a stream gives the kernel absolute
    positions (docs/streaming.md, "The guarantee")."""
    outputs[0][row, begin:end] = inputs[0][row, begin:end] + np.arange(begin, end)


def _fails_late(inputs, outputs, row, begin, end, params, seed):
    if end > 150:
        raise ZeroDivisionError(f"a kernel's own failure at bar {end}")
    outputs[0][row, begin:end] = inputs[0][row, begin:end]


def test_a_python_user_kernel_streams_and_its_failure_is_the_cause():
    with apportion.Runtime("cpu", profiles=False, learn=False) as own:
        own.register_kernel("py_position", _position, outputs=("y",), tile=64)
        own.register_kernel("py_fails_late", _fails_late, outputs=("y",), tile=64)
        x = np.random.default_rng(2).standard_normal((2, 300))
        s = apportion.Stream("py_position", 2, runtime=own)
        head = s.update(x[:, :100].T, axis=0).y.T
        tail = np.stack([s.update(x[:, t]).y for t in range(100, 300)], axis=1)
        assert_same_bits(np.concatenate([head, tail], axis=1), own.compute("py_position", x, axis=-1).y)

        f = apportion.Stream("py_fails_late", 2, runtime=own)
        f.update(x[:, :100].T, axis=0)
        before = bytes(f)
        with pytest.raises(apportion.KernelFailedError, match="the update was undone") as failed:
            f.update(x[:, 100:200].T, axis=0)
        assert isinstance(failed.value.__cause__, ZeroDivisionError)
        assert bytes(f) == before and list(f.bars) == [100, 100]
        assert_same_bits(f.update(x[:, 100]).y, x[:, 100])


def test_a_sweep_in_random_chunks_gives_each_sets_batch_bits_and_resumes(rt):
    """A sweep stream (a list and a range as values, the grid form of the batch calls) fed
    in random chunks: each set's outputs have the bits of that set's batch call; saved and
    loaded mid-way it goes on with the same bits and the same labels."""
    periods, devs = [10, 20, 30], range(1, 3)
    s = apportion.Stream("bollinger", SERIES, runtime=rt, period=periods, nbdev_up=devs, nbdev_dn=1.5)
    assert s.labels == [(p, d) for p in periods for d in devs] and s.swept == ["period", "nbdev_up"]
    assert len(s.sets) == 6 and s.sets[1] == {"period": 10.0, "nbdev_up": 2.0, "nbdev_dn": 1.5}
    assert s.params == {"nbdev_dn": 1.5}
    total = 700
    close = history("bollinger", total, seed=21)["close"]
    rng = np.random.default_rng(4)
    sizes = [1, 0, 1]
    while sum(sizes) < total:
        sizes.append(min(int(rng.integers(1, 90)), total - sum(sizes)))
    half = len(sizes) // 2
    done = sum(sizes[:half])

    def run(stream, chunk_sizes, t):
        pieces = []
        for n in chunk_sizes:
            out = stream.update(close[:, t]) if n == 1 else stream.update(close[:, t : t + n].T, axis=0)
            assert out.upper.shape == ((6, SERIES) if n == 1 else (6, n, SERIES))
            pieces.append(out.upper.reshape(6, SERIES, 1) if n == 1 else out.upper.transpose(0, 2, 1))
            t += n
        return np.concatenate(pieces, axis=2)

    head = run(s, sizes[:half], 0)
    s2 = apportion.Stream.load(bytes(s), runtime=rt)
    assert s2.sets == s.sets and s2.labels == s.labels and s2.swept == s.swept
    tail, tail2 = run(s, sizes[half:], done), run(s2, sizes[half:], done)
    want = apportion.bollinger(close, period=periods, nbdev_up=devs, nbdev_dn=1.5, runtime=rt, axis=-1).upper
    assert want.shape == (6, SERIES, total)
    for k, (p, d) in enumerate(s.labels):
        one = apportion.bollinger(close, period=p, nbdev_up=d, nbdev_dn=1.5, runtime=rt, axis=-1).upper
        assert_same_bits(want[k], one)
        assert_same_bits(np.concatenate([head[k], tail[k]], axis=1), one)
        assert_same_bits(tail2[k], one[:, done:])


def test_some_sets_of_a_grid_stream_as_their_batch_calls(rt):
    """first_set and n_sets_run follow sets 1 and 2 of a grid of four periods: each set's
    outputs have the bits of that set's batch call, the labels name those sets, and a state
    saved and loaded mid-way goes on with them."""
    close = history("bollinger", 300, seed=8)["close"]
    s = apportion.Stream("bollinger", SERIES, runtime=rt, period=[5, 10, 20, 40], first_set=1, n_sets_run=2)
    assert s.labels == [10, 20] and [p["period"] for p in s.sets] == [10.0, 20.0]
    head = s.update(close[:, :170].T, axis=0).middle
    assert head.shape == (2, 170, SERIES)
    s2 = apportion.Stream.load(bytes(s), runtime=rt)
    assert s2.labels == [10, 20]
    tail = s2.update(close[:, 170:].T, axis=0).middle
    for k, p in enumerate((10, 20)):
        one = apportion.bollinger(close, period=p, runtime=rt, axis=-1).middle
        assert_same_bits(np.concatenate([head[k], tail[k]]).T, one)
    rest = apportion.Stream("bollinger", SERIES, runtime=rt, period=[5, 10, 20, 40], first_set=3)
    assert rest.labels == [40] and rest.update(close[:, 0]).middle.shape == (1, SERIES)
    with pytest.raises(apportion.InvalidArgumentError, match="first_set"):
        apportion.Stream("bollinger", SERIES, runtime=rt, period=[5, 10], first_set=1, n_sets_run=2)
    with pytest.raises(TypeError, match="choose sets of a sweep"):
        apportion.Stream("bollinger", SERIES, runtime=rt, period=10, first_set=1)


def test_a_sweep_update_of_a_dataframe_has_set_and_series_columns(rt):
    pd = pytest.importorskip("pandas")
    close = history("bollinger", 60, seed=2)["close"]
    frame = pd.DataFrame(close.T, columns=["AAA", "BBB", "CCC"])
    s = apportion.Stream("bollinger", SERIES, runtime=rt, period=[5, 10])
    out = s.update(frame).middle
    assert list(out.columns) == [(p, c) for p in (5, 10) for c in ("AAA", "BBB", "CCC")]
    assert_same_bits(out[10].to_numpy().T, apportion.bollinger(close, period=10, runtime=rt, axis=-1).middle)
    row = s.update(frame.iloc[0]).middle  # a Series: series x sets
    assert list(row.columns) == [5, 10] and list(row.index) == ["AAA", "BBB", "CCC"]


def test_a_bad_sweep_value_is_refused(rt):
    with pytest.raises(apportion.BadParameterError):
        apportion.Stream("bollinger", SERIES, runtime=rt, period=[10, 0, 30])
    with pytest.raises(apportion.InvalidArgumentError):
        apportion.Stream("bollinger", SERIES, runtime=rt, period=[])
