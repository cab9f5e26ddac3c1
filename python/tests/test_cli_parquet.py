"""`apportion run` and `stream` on Parquet files (docs/cli/run.md, "Parquet"): a Parquet file
written by pyarrow or polars gives byte for byte the outputs of the same data written as
CSV by hand here, for a kernel of one input and an OHLCV kernel over tickers, with nulls
and dates; and it is refused where the CSV is, in the same words. The tool reads Parquet
through the Python named by APPORTION_PYTHON: this venv's, which has pyarrow.

The refusals that need no pyarrow (no interpreter, no pyarrow, not Parquet) are
tests/cli/test_cli_run_parquet.c's."""

import math
import os
import subprocess
import sys

import pytest

pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (python/tests/run.sh installs it from PyPI when reachable)")
pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed")
pl = pytest.importorskip("polars", reason="polars is not installed (python/tests/run.sh installs it from PyPI when reachable)")

import datetime as dt  # noqa: E402


@pytest.fixture()
def tool():
    path = os.environ.get("APPORTION_CLI")
    if not path:
        pytest.skip("the apportion tool is not known (APPORTION_CLI unset)")

    def run(*args, check=True):
        env = dict(os.environ, APPORTION_PYTHON=sys.executable, APPORTION_PROFILES="off")
        p = subprocess.run([path, *args], capture_output=True, env=env)
        if check:
            assert p.returncode == 0, p.stderr.decode()
        return p

    return run


def walk(n, seed):
    """A random walk from a small LCG: values with many digits, none repeating."""
    x, out = 100.0, []
    for _ in range(n):
        seed = (seed * 1103515245 + 12345) % 2**31
        x += (seed / 2**31 - 0.5) * 0.7
        out.append(x)
    return out


def field(v):
    """A cell of the hand-written CSV: a number in Python's shortest exact form, a null empty,
    text quoted."""
    if v is None:
        return ""
    if isinstance(v, str):
        return '"' + v.replace('"', '""') + '"'
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else ("nan" if v != v else ("inf" if v > 0 else "-inf"))
    return str(v)


def write_csv(path, columns):
    """columns: {name: list of cells}, every cell already text or a value for field()."""
    names = list(columns)
    rows = zip(*columns.values())
    with open(path, "w") as f:
        f.write(",".join(names) + "\n")
        for row in rows:
            f.write(",".join(field(v) for v in row) + "\n")


def same_folders(a, b):
    names = sorted(os.listdir(a))
    assert names == sorted(os.listdir(b)) and names
    for name in names:
        with open(os.path.join(a, name), "rb") as fa, open(os.path.join(b, name), "rb") as fb:
            assert fa.read() == fb.read(), name


def closes(n=60, seed=3):
    c = walk(n, seed)
    c[7] = None  # a null: a gap, as an empty CSV field is with --missing-as-nan
    c[n // 2] = float("nan")
    return c


def test_one_input_from_pyarrow_matches_csv_with_nulls_and_dates(tool, tmp_path):
    days = [dt.date(2024, 1, 1) + dt.timedelta(days=i) for i in range(60)]
    close = closes()
    pq.write_table(pa.table({"date": pa.array(days, pa.date32()), "close": pa.array(close, pa.float64())}),
                   tmp_path / "in.parquet")
    write_csv(tmp_path / "in.csv", {"date": [d.isoformat() for d in days], "close": close})
    for src in ("in.parquet", "in.csv"):
        tool("run", "--kernel", "bollinger", "--param", "period=5", "--devices", "cpu", "--no-learn",
             "--missing-as-nan", "--input", str(tmp_path / src), "--output", str(tmp_path / ("out-" + src)),
             "--format", "csv")
    same_folders(tmp_path / "out-in.parquet", tmp_path / "out-in.csv")
    # The dates reach the outputs as the CSV's text.
    assert (tmp_path / "out-in.parquet" / "upper.csv").read_text().splitlines()[1].startswith("2024-01-01,")


def test_columns_without_text_are_left_out(tool, tmp_path):
    """A list column first and bytes that are not UTF-8: left out, never taken for the dates;
    the rest reads as its CSV twin, and naming one is refused as a missing column."""
    days = [dt.date(2024, 5, 1) + dt.timedelta(days=i) for i in range(40)]
    close = walk(40, 9)
    pq.write_table(pa.table({"tags": pa.array([[i] for i in range(40)]), "date": days, "close": close,
                             "raw": pa.array([b"\xff"] * 40, pa.binary())}), tmp_path / "in.parquet")
    write_csv(tmp_path / "in.csv", {"date": [d.isoformat() for d in days], "close": close})
    for src in ("in.parquet", "in.csv"):
        tool("run", "--kernel", "sma", "--param", "timeperiod=3", "--devices", "cpu", "--no-learn", "--input",
             str(tmp_path / src), "--output", str(tmp_path / ("out-" + src)), "--format", "csv")
    same_folders(tmp_path / "out-in.parquet", tmp_path / "out-in.csv")
    assert 'no column named "tags"' in refusal(tool, tmp_path, "--column", "tags")


def ohlcv(tickers, n, seed):
    """A long frame: (ticker, time, open, high, low, close, volume), tickers interleaved."""
    rows = {k: [] for k in ("ticker", "time", "open", "high", "low", "close", "volume")}
    for t, name in enumerate(tickers):
        c = walk(n - 5 * t, seed + t)
        for i, x in enumerate(c):
            rows["ticker"].append(name)
            rows["time"].append(dt.datetime(2024, 3, 1, 9, 30) + dt.timedelta(hours=i))
            rows["open"].append(x - 0.1)
            rows["high"].append(x + 0.5)
            rows["low"].append(x - 0.5)
            rows["close"].append(None if i == 11 else x)
            rows["volume"].append(1000 + 37 * i)
    return rows


def test_ohlcv_tickers_from_polars_match_csv(tool, tmp_path):
    rows = ohlcv(["AAA", "BB,B"], 50, 11)
    frame = pl.DataFrame(rows).with_columns(pl.col("time").dt.replace_time_zone("UTC"))
    frame.write_parquet(tmp_path / "in.parquet")
    text = dict(rows, time=[t.strftime("%Y-%m-%d %H:%M:%SZ") for t in rows["time"]])
    write_csv(tmp_path / "in.csv", text)
    for src in ("in.parquet", "in.csv"):
        tool("run", "--kernel", "mfi", "--param", "timeperiod=6", "--devices", "cpu", "--no-learn",
             "--missing-as-nan", "--group-by", "ticker", "--input", str(tmp_path / src),
             "--output", str(tmp_path / ("out-" + src)), "--format", "csv")
    same_folders(tmp_path / "out-in.parquet", tmp_path / "out-in.csv")


def test_stream_reads_parquet_as_csv(tool, tmp_path):
    days = [dt.datetime(2024, 1, 1) + dt.timedelta(days=i) for i in range(40)]
    close = walk(40, 5)
    pq.write_table(pa.table({"date": pa.array(days, pa.timestamp("ns")), "close": close}), tmp_path / "in.parquet")
    write_csv(tmp_path / "in.csv", {"date": [d.date().isoformat() for d in days], "close": close})
    outs = [tool("stream", "--state", str(tmp_path / (src + ".state")), "--kernel", "sma", "--param", "timeperiod=4",
                 "--devices", "cpu", "--input", str(tmp_path / src)).stdout
            for src in ("in.parquet", "in.csv")]
    assert outs[0] == outs[1] and outs[0]


def refusal(tool, tmp_path, *args):
    """Runs on in.parquet and in.csv; both refused (exit 2, no output folder), with one text."""
    said = []
    for src in ("in.parquet", "in.csv"):
        out = tmp_path / ("refused-" + src)
        p = tool("run", "--kernel", "sma", "--devices", "cpu", "--no-learn", "--input", str(tmp_path / src),
                 "--output", str(out), *args, check=False)
        assert p.returncode == 2, p.stderr.decode()
        assert not out.exists()
        said.append(p.stderr.decode().replace(str(tmp_path / src), "FILE"))
    assert said[0] == said[1]
    return said[0]


def test_refusals_are_the_csv_ones(tool, tmp_path):
    close = closes(20)
    names = ["a", "b", "c", 'd"', "e"] * 4
    pq.write_table(pa.table({"close": close, "name": names}), tmp_path / "in.parquet")
    write_csv(tmp_path / "in.csv", {"close": close, "name": names})
    # A null without --missing-as-nan.
    assert "--missing-as-nan" in refusal(tool, tmp_path, "--column", "close")
    # A column that is not there.
    assert 'no column named "volume"' in refusal(tool, tmp_path, "--column", "volume")
    # A text column.
    assert 'expected a number, got "a"' in refusal(tool, tmp_path, "--column", "name")


def test_corrupt_parquet_is_refused(tool, tmp_path):
    (tmp_path / "in.parquet").write_bytes(b"PAR1" + b"\0" * 20)
    out = tmp_path / "out"
    p = tool("run", "--kernel", "sma", "--devices", "cpu", "--input", str(tmp_path / "in.parquet"), "--output",
             str(out), check=False)
    assert p.returncode == 2
    assert "not a Parquet file that pyarrow can read" in p.stderr.decode()
    assert not out.exists()
