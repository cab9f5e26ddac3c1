"""Arrow in, Arrow out (docs/python.md, "Arrow and polars"): pyarrow and polars objects read
through the Arrow PyCapsule interface, float64 columns in place (the producer's own buffer,
shown by its address and by writing into it), nulls and other number types as NaN and
float64, a long frame grouped by ticker, and outputs of the caller's kind. The references
are the same calls on numpy arrays and a plain rolling mean written here.

pyarrow and polars are not Debian packages: python/tests/run.sh installs them into its venv
from PyPI when it can (docs/python.md says how); without them these tests skip, saying so."""

import os
import subprocess
import sys

import numpy as np
import pytest

import apportion
from apportion import _core, catalog, errors
from conftest import assert_bitwise

pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (python/tests/run.sh installs it from PyPI when reachable)")
pl = pytest.importorskip("polars", reason="polars is not installed (python/tests/run.sh installs it from PyPI when reachable)")


def rolling_mean(x, n):
    """SMA written plainly: NaN for the first n - 1 bars, then the mean of the last n."""
    out = np.full(len(x), np.nan)
    for i in range(n - 1, len(x)):
        out[i] = sum(x[i - n + 1 : i + 1]) / n
    return out


def address(a):
    return a.__array_interface__["data"][0]


def test_pyarrow_float64_is_read_in_place(cpu_rt, walk):
    base = walk(0, 500)
    arr = pa.Array.from_buffers(pa.float64(), len(base), [None, pa.py_buffer(base)])
    values, in_place = _core.arrow_import(arr).column(0)
    assert in_place and address(values) == address(base), "the library reads the producer's own buffer"
    first = catalog.sma(arr, timeperiod=5, runtime=cpu_rt).sma
    assert isinstance(first, pa.Array)
    np.testing.assert_allclose(first.to_numpy(zero_copy_only=False), rolling_mean(base, 5), rtol=1e-12)
    # Writing into the producer's buffer changes what the next call reads: no copy was kept.
    base[100] += 1000.0
    second = catalog.sma(arr, timeperiod=5, runtime=cpu_rt).sma.to_numpy(zero_copy_only=False)
    np.testing.assert_allclose(second, rolling_mean(base, 5), rtol=1e-12)
    assert second[100] > first[100].as_py() + 199


def test_polars_series_is_read_in_place(cpu_rt, walk):
    s = pl.Series("close", walk(0, 800))
    values, in_place = _core.arrow_import(s).column(0)
    assert in_place and address(values) == address(s.to_numpy(allow_copy=False))
    out = catalog.rsi(s, timeperiod=14, runtime=cpu_rt).rsi
    assert isinstance(out, pl.Series) and out.name == "close" and len(out) == len(s)
    assert_bitwise(out.to_numpy(), catalog.rsi(s.to_numpy(), timeperiod=14, runtime=cpu_rt).rsi)


def test_nulls_read_as_nan_and_integers_as_float64(cpu_rt):
    x = [1.0, 2.0, None, 4.0, 5.0, 6.0, 7.0, 8.0]
    with_nulls = pa.array(x, type=pa.float64())
    values, in_place = _core.arrow_import(with_nulls).column(0)
    assert not in_place and np.isnan(values[2]) and values[3] == 4.0
    want = catalog.sma(np.array([np.nan if v is None else v for v in x]), timeperiod=2, runtime=cpu_rt).sma
    got = catalog.sma(with_nulls, timeperiod=2, runtime=cpu_rt).sma.to_numpy(zero_copy_only=False)
    assert_bitwise(got, want)
    ints = pl.Series("volume", [3, 1, 4, 1, 5, 9, 2, 6], dtype=pl.Int32)
    got = catalog.sma(ints, timeperiod=3, runtime=cpu_rt).sma.to_numpy()
    np.testing.assert_allclose(got, rolling_mean(np.array([3, 1, 4, 1, 5, 9, 2, 6], dtype=float), 3), rtol=1e-12)
    f32 = pa.array(np.array([0.5, 0.25, 8.0], dtype=np.float32))
    assert list(_core.arrow_import(f32).column(0)[0]) == [0.5, 0.25, 8.0]


def test_chunked_and_sliced_columns(cpu_rt, walk):
    x = walk(0, 300)
    chunked = pa.chunked_array([x[:100], x[100:]])
    values, in_place = _core.arrow_import(chunked).column(0)
    assert not in_place and np.array_equal(values, x), "two chunks are gathered into one copy"
    sliced = pa.array(x).slice(50, 200)
    values, in_place = _core.arrow_import(sliced).column(0)
    assert in_place and np.array_equal(values, x[50:250]), "an offset is applied, in place"


def test_wide_polars_frame_gives_a_polars_frame(cpu_rt, walk):
    x = walk(3, 1000)
    df = pl.DataFrame({"a": x[0], "b": x[1], "c": x[2]})
    m = apportion.macd(df, runtime=cpu_rt)
    assert isinstance(m.macd, pl.DataFrame) and m.macd.columns == ["a", "b", "c"]
    want = apportion.macd(x, axis=1, runtime=cpu_rt)
    for r, c in enumerate("abc"):
        assert_bitwise(m.signal[c].to_numpy(), want.signal[r])
    table = pa.table({"a": x[0], "b": x[1]})
    out = catalog.sma(table, timeperiod=[3, 5], runtime=cpu_rt).sma
    assert isinstance(out, pa.Table) and out.column_names == ["a/timeperiod=3", "b/timeperiod=3", "a/timeperiod=5", "b/timeperiod=5"]
    np.testing.assert_allclose(out["b/timeperiod=5"].to_numpy(), rolling_mean(x[1], 5), rtol=1e-12)


def test_several_inputs_by_name_from_a_frame(cpu_rt, walk):
    close = walk(0, 600)
    high, low = close + 1.0, close - 1.0
    df = pl.DataFrame({"High": high, "low": low, "close": close})
    got = catalog.atr(df, timeperiod=14, runtime=cpu_rt).atr
    want = catalog.atr(high=high, low=low, close=close, timeperiod=14, runtime=cpu_rt).atr
    assert isinstance(got, pl.Series)
    assert_bitwise(got.to_numpy(), want)
    got = apportion.compute("atr", pa.table({"high": high, "low": low, "close": close}), timeperiod=14, runtime=cpu_rt).atr
    assert_bitwise(got.to_numpy(), want)


def _long_frame(tickers, bars, walk, lengths=None):
    x = walk(tickers, bars)
    lengths = lengths or [bars] * tickers
    names = [f"T{t:03d}" for t in range(tickers)]
    return x, pl.DataFrame(
        {
            "ticker": np.repeat(names, lengths),
            "time": np.concatenate([np.arange(n, dtype=np.int64) for n in lengths]),
            "close": np.concatenate([x[t, :n] for t, n in enumerate(lengths)]),
        }
    )


def test_long_frame_grouped_by_ticker_in_place(cpu_rt, walk):
    x, frame = _long_frame(20, 400, walk)
    group = apportion._arrow.Grouped(frame, "ticker", "time")
    arr, layout = apportion._arrays.as_input(group.single("close"))
    assert arr.shape == (20, 400) and address(arr) == address(frame["close"].to_numpy(allow_copy=False)), "the frame's own buffer"
    out = catalog.rsi(frame, timeperiod=14, by="ticker", time="time", runtime=cpu_rt)
    assert isinstance(out.rsi, pl.Series) and out.rsi.name == "rsi" and len(out.rsi) == frame.height
    assert_bitwise(out.rsi.to_numpy(), catalog.rsi(x, timeperiod=14, axis=1, runtime=cpu_rt).rsi.reshape(-1))
    wider = frame.with_columns(*apportion.macd(frame, by="ticker", runtime=cpu_rt))
    assert wider.columns == ["ticker", "time", "close", "macd", "signal", "hist"]
    as_table = catalog.rsi(frame.to_arrow(), timeperiod=14, by="ticker", runtime=cpu_rt).rsi
    assert isinstance(as_table, (pa.Array, pa.ChunkedArray))
    assert_bitwise(np.asarray(as_table), out.rsi.to_numpy())


def test_long_frame_of_different_lengths(cpu_rt, walk):
    lengths = [300, 120, 250]
    x, frame = _long_frame(3, 300, walk, lengths)
    got = catalog.sma(frame, timeperiod=10, by="ticker", runtime=cpu_rt).sma.to_numpy()
    want = np.concatenate([rolling_mean(x[t, :n], 10) for t, n in enumerate(lengths)])
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_long_frame_keys_of_other_types_and_short_groups(cpu_rt, walk):
    lengths = [200, 5, 150]
    x, frame = _long_frame(3, 200, walk, lengths)
    with pytest.warns(errors.ShortSeriesWarning, match="ticker T001"):
        want = catalog.sma(frame, timeperiod=10, by="ticker", runtime=cpu_rt).sma.to_numpy()
    assert np.isnan(want[200:205]).all()
    for keys in (frame.with_columns(pl.col("ticker").cast(pl.Categorical)), frame.to_arrow().cast(pa.schema([("ticker", pa.dictionary(pa.int8(), pa.string())), ("time", pa.int64()), ("close", pa.float64())]))):
        with pytest.warns(errors.ShortSeriesWarning):
            got = catalog.sma(keys, timeperiod=10, by="ticker", runtime=cpu_rt).sma
        assert_bitwise(np.asarray(got), want)
    batch = frame.to_arrow().to_batches()[0]
    with pytest.warns(errors.ShortSeriesWarning):
        assert_bitwise(np.asarray(catalog.sma(batch, timeperiod=10, by="ticker", runtime=cpu_rt).sma), want)


def test_score_reads_a_frames_columns(cpu_rt, walk):
    x = walk(2, 400)
    got = apportion.score(pl.DataFrame({"A": x[0], "B": x[1]}), "sma", "price_cross", timeperiod=[5, 10], runtime=cpu_rt)
    want = apportion.score(x, "sma", "price_cross", timeperiod=[5, 10], axis=1, runtime=cpu_rt)
    assert sorted(set(got.index.get_level_values("series"))) == ["A", "B"]
    np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())


def test_long_frame_refusals(cpu_rt, walk):
    _, frame = _long_frame(3, 50, walk)
    shuffled = pl.concat([frame[:20], frame[60:], frame[20:60]])
    with pytest.raises(errors.ApportionError, match='key "T000" has rows apart'):
        catalog.sma(shuffled, by="ticker", runtime=cpu_rt)
    backwards = frame.with_columns(pl.Series("time", frame["time"].to_numpy()[::-1].copy()))
    with pytest.raises(errors.ApportionError, match="earlier than"):
        catalog.sma(backwards, by="ticker", time="time", runtime=cpu_rt)
    with pytest.raises(KeyError, match="by= 'symbol'"):
        catalog.sma(frame, by="symbol", runtime=cpu_rt)
    with pytest.raises(errors.ApportionError, match="is not read as numbers"):
        catalog.sma(frame.select("ticker", "close"), runtime=cpu_rt)


def test_stream_update_in_polars_out(cpu_rt, walk):
    x = walk(4, 60)
    st = apportion.Stream("sma", series=4, timeperiod=5, runtime=cpu_rt)
    for bar in range(60):
        out = st.update(pl.Series("bar", x[:, bar]))
    assert isinstance(out.sma, pl.Series) and len(out.sma) == 4
    np.testing.assert_allclose(out.sma.to_numpy(), x[:, -5:].mean(axis=1), rtol=1e-12)


def test_hostile_producers_are_refused():
    class NoPair:
        def __arrow_c_array__(self, requested_schema=None):
            return ("not", "capsules")

    class Raises:
        def __arrow_c_stream__(self, requested_schema=None):
            raise RuntimeError("the producer failed")

    with pytest.raises(TypeError, match="no \"arrow_schema\" capsule"):
        _core.arrow_import(NoPair())
    with pytest.raises(RuntimeError, match="the producer failed"):
        _core.arrow_import(Raises())


def test_the_other_library_is_not_imported():
    """pyarrow in, pyarrow out, with polars never imported (and the reverse)."""
    code = (
        "import sys, numpy as np, {lib}, apportion\n"
        "x = {make}\n"
        "out = apportion.catalog.sma(x, timeperiod=3, runtime=apportion.Runtime('cpu', profiles=False, learn=False)).sma\n"
        "assert type(out).__module__.startswith('{lib}'), type(out)\n"
        "assert '{other}' not in sys.modules\n"
    )
    env = dict(os.environ)
    for lib, other, make in (("pyarrow", "polars", "pyarrow.array(np.arange(10.0))"), ("polars", "pyarrow", "polars.Series(np.arange(10.0))")):
        run = subprocess.run([sys.executable, "-c", code.format(lib=lib, other=other, make=make)], env=env, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
