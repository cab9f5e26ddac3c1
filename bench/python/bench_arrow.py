#!/usr/bin/env python3
"""A long polars frame in, a polars frame out, against the same closes as numpy
(docs/python.md, "Long frames"; docs/PERF.md, "Arrow frames").

The frame holds TICKERS x BARS rows (ticker as an Int32 id, time, close), sorted by ticker
and time, as pl.read_parquet(...).sort(...) gives one. Two calls are timed, interleaved,
their medians reported:

- polars: ``bars.with_columns(apportion.catalog.rsi(bars, by="ticker", time="time").rsi)``,
  the frame's closes read in place (checked: the library's view has the frame's buffer
  address) and a polars frame out, the time check included;
- numpy: ``apportion.catalog.rsi(closes, axis=1)`` on the same closes as a tickers x bars
  array, numpy out.

The outputs are compared bit for bit first (#wrong). Run it on an idle machine:

    V/bin/python bench/python/bench_arrow.py [--tickers 500] [--bars 100000] [--rounds 5]
"""

import argparse
import statistics
import time

import numpy as np
import polars as pl

import apportion
from apportion import _arrays, _arrow


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tickers", type=int, default=500)
    parser.add_argument("--bars", type=int, default=100000)
    parser.add_argument("--rounds", type=int, default=5, help="interleaved runs of each call")
    parser.add_argument("--devices", default="cpu", help="the runtime's devices (APPORTION_DEVICES grammar)")
    args = parser.parse_args()

    rng = np.random.default_rng(56)
    closes = 100.0 + np.cumsum(rng.standard_normal((args.tickers, args.bars)), axis=1)
    bars = pl.DataFrame(
        {
            "ticker": pl.Series(np.repeat(np.arange(args.tickers, dtype=np.int32), args.bars)),
            "time": pl.Series(np.tile(np.arange(args.bars, dtype=np.int64), args.tickers)),
            "close": pl.Series(closes.reshape(-1)),
        }
    )
    rt = apportion.Runtime(args.devices, profiles=False, learn=False)

    group = _arrow.Grouped(bars, "ticker", "time")
    view, _ = _arrays.as_input(group.single("close"))
    frame_buffer = bars["close"].to_numpy(allow_copy=False).__array_interface__["data"][0]
    in_place = view.__array_interface__["data"][0] == frame_buffer and view.shape == closes.shape
    del group, view

    def polars_call():
        return bars.with_columns(apportion.catalog.rsi(bars, timeperiod=14, by="ticker", time="time", runtime=rt).rsi)

    def numpy_call():
        return apportion.catalog.rsi(closes, timeperiod=14, axis=1, runtime=rt).rsi

    out_frame, out_numpy = polars_call(), numpy_call()
    wrong = int(np.count_nonzero(out_frame["rsi"].to_numpy().view(np.uint64) != out_numpy.reshape(-1).view(np.uint64)))
    del out_frame, out_numpy

    times = {"polars": [], "numpy": []}
    for _ in range(args.rounds):
        for name, call in (("polars", polars_call), ("numpy", numpy_call)):
            t0 = time.perf_counter()
            result = call()
            times[name].append(time.perf_counter() - t0)
            del result

    print(f"rsi(14), {args.tickers} tickers x {args.bars} bars, devices {args.devices}, {args.rounds} interleaved rounds; #wrong {wrong}; closes read in place: {in_place}")
    for name, ts in times.items():
        print(f"{name:7s} median {statistics.median(ts) * 1e3:9.1f} ms  range {min(ts) * 1e3:.1f}-{max(ts) * 1e3:.1f} ms")
    ratio = statistics.median(times["polars"]) / statistics.median(times["numpy"])
    print(f"polars / numpy: {ratio:.3f}")
    return 0 if wrong == 0 and in_place else 1


if __name__ == "__main__":
    raise SystemExit(main())
