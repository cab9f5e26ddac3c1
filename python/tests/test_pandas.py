"""pandas in, pandas out: a Series gives Series (same index and name), a DataFrame's columns
are its series and its outputs are DataFrames on the same index and columns."""

import numpy as np
import pytest

import apportion
from conftest import assert_bitwise

pd = pytest.importorskip("pandas")


def test_series_in_series_out(rt, walk):
    x = walk(0, 3000)
    idx = pd.date_range("2024-01-01", periods=len(x), freq="min")
    s = pd.Series(x, index=idx, name="close")
    b = apportion.bollinger(s, period=15, runtime=rt)
    assert isinstance(b.upper, pd.Series)
    assert b.upper.index.equals(idx) and b.upper.name == "close"
    assert_bitwise(b.upper.to_numpy(), apportion.bollinger(x, period=15, runtime=rt).upper)
    stats = apportion.returns_stats(s, runtime=rt)
    assert isinstance(stats.mean, float)


def test_frame_in_frame_out(rt, walk):
    x = walk(3, 2000)
    idx = pd.RangeIndex(100, 100 + 2000)
    df = pd.DataFrame(x.T, index=idx, columns=["a", "b", "c"])
    m = apportion.macd(df, runtime=rt)
    assert isinstance(m.macd, pd.DataFrame)
    assert m.macd.index.equals(idx) and list(m.macd.columns) == ["a", "b", "c"]
    ref = apportion.macd(x, runtime=rt, axis=-1)
    assert_bitwise(m.macd.to_numpy().T, ref.macd)
    stats = apportion.returns_stats(df, runtime=rt)
    assert isinstance(stats.max, pd.Series) and list(stats.max.index) == ["a", "b", "c"]
    assert_bitwise(stats.max.to_numpy(), apportion.returns_stats(x, runtime=rt, axis=-1).max)


def test_series_sweep_gives_frame_by_set(rt, walk):
    x = walk(0, 1500)
    s = pd.Series(x)
    b = apportion.bollinger(s, period=[10, 20], runtime=rt)
    assert isinstance(b.middle, pd.DataFrame)
    assert list(b.middle.columns) == [10, 20]
    assert_bitwise(b.middle[20].to_numpy(), apportion.bollinger(x, period=20, runtime=rt).middle)


def test_integer_series_is_converted(rt):
    s = pd.Series(np.arange(100, dtype=np.int64))
    b = apportion.bollinger(s, period=5, runtime=rt)
    assert b.middle.iloc[-1] == 97.0


def test_frame_sweep_gives_columns_by_set_and_series(rt, walk):
    x = walk(2, 1200)
    idx = pd.date_range("2024-01-01", periods=1200, freq="h")
    df = pd.DataFrame(x.T, index=idx, columns=["a", "b"])
    b = apportion.bollinger(df, period=[5, 30], runtime=rt)
    assert isinstance(b.upper, pd.DataFrame) and b.upper.index.equals(idx)
    # Columns: (set, series), sets outermost, as the sweep's output is set-major.
    assert list(b.upper.columns) == [(5, "a"), (5, "b"), (30, "a"), (30, "b")]
    for period in (5, 30):
        one = apportion.bollinger(x, period=period, runtime=rt, axis=-1)
        for r, name in enumerate(["a", "b"]):
            assert_bitwise(b.upper[(period, name)].to_numpy(), one.upper[r])
    stats = apportion.returns_stats(df, runtime=rt)
    assert list(stats.mean.index) == ["a", "b"]
