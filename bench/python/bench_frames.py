#!/usr/bin/env python3
"""polars-talib and pandas-ta against apportion's catalog on a multi-ticker frame
(docs/perf-log/2026-11-26-vectorbt-frames.md): the same bars of many tickers, several
indicators, each library in processes of its own and in its own layout, the outputs
compared with apportion's before any figure is printed.

- apportion: one (tickers x bars) array per input, a call per indicator (axis=1), every
  ticker in one call;
- polars-talib (TA-Lib 0.8.1 inside): a long frame (ticker, high, low, close) sorted by
  ticker, each indicator an expression `.over("ticker")` in a `select` of its own (polars
  picks its threads);
- pandas-ta (its own pandas and numpy code: no TA-Lib in its environment): a long pandas
  frame, `groupby("ticker")`, the functions on each ticker's columns.

The frames are built and a first round is run before timing; each timed round is every
indicator once, and a library's figure per indicator is the median over its rounds and
processes. polars-talib
must match apportion within 1e-9 relative (TA-Lib 0.8's own contract) with the same NaN
warm-up; pandas-ta's definitions differ in places (its seeds and smoothing), so its
differences are printed, over every bar and over the bars after --settled, not checked.

    BUILD/python-venv/bin/python bench/python/bench_frames.py [--tickers N] [--bars N]
        [--rounds N] [--runs N] [--cache DIR] [--peers-python PY]

Exit status: 0, 1 when polars-talib disagrees, 77 when the peers cannot be installed.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from statistics import median

sys.dont_write_bytecode = True  # importing peer_envs leaves no __pycache__ in the repository
import peer_envs  # noqa: E402

# The indicators, at TA-Lib's defaults: name -> (apportion's outputs in order).
INDICATORS = {
    "sma": ("sma",),
    "ema": ("ema",),
    "rsi": ("rsi",),
    "bbands": ("upper", "middle", "lower"),
    "macd": ("macd", "signal", "hist"),
    "atr": ("atr",),
}


def make_bars(tickers, bars, seed):
    """high, low, close of geometric walks, one ticker a row."""
    import numpy as np

    rng = np.random.default_rng(seed)
    close = np.empty((tickers, bars))
    high = np.empty((tickers, bars))
    low = np.empty((tickers, bars))
    for r in range(tickers):
        close[r] = 100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.01, bars)))
        high[r] = close[r] * (1.0 + rng.uniform(0.0, 0.01, bars))
        low[r] = close[r] * (1.0 - rng.uniform(0.0, 0.01, bars))
    return high, low, close


# ---------------------------------------------------------------------------------------------
# Each library's calls: (prepare(high, low, close) -> its layout, {indicator: fn(layout) -> outputs}).


def apportion_calls():
    import apportion

    def prepare(high, low, close):
        return high, low, close

    return prepare, {
        "sma": lambda d: apportion.sma(d[2], timeperiod=30, axis=1),
        "ema": lambda d: apportion.ema(d[2], timeperiod=30, axis=1),
        "rsi": lambda d: apportion.rsi(d[2], timeperiod=14, axis=1),
        "bbands": lambda d: apportion.bollinger(d[2], period=20, nbdev_up=2, nbdev_dn=2, axis=1),
        "macd": lambda d: apportion.macd(d[2], fast=12, slow=26, signal=9, axis=1),
        "atr": lambda d: apportion.atr(high=d[0], low=d[1], close=d[2], timeperiod=14, axis=1),
    }


def polars_calls():
    import numpy as np
    import polars as pl
    import polars_talib  # noqa: F401  (registers the .ta namespace)

    def prepare(high, low, close):
        t, n = close.shape
        return pl.DataFrame({"ticker": np.repeat(np.arange(t, dtype=np.int32), n), "high": high.ravel(),
                             "low": low.ravel(), "close": close.ravel()}), (t, n)

    def unpack(frame, shape, names):
        col = frame.to_series(0)
        if col.dtype == pl.Struct:
            return tuple(col.struct.field(f).to_numpy().reshape(shape) for f in names)
        return (col.to_numpy().reshape(shape),)

    c = pl.col("close")
    exprs = {
        "sma": (c.ta.sma(30), None),
        "ema": (c.ta.ema(30), None),
        "rsi": (c.ta.rsi(14), None),
        "bbands": (c.ta.bbands(20, 2.0, 2.0), ("upperband", "middleband", "lowerband")),
        "macd": (c.ta.macd(12, 26, 9), ("macd", "macdsignal", "macdhist")),
        "atr": (c.ta.atr(pl.col("high"), pl.col("low"), 14), None),
    }
    return prepare, {k: (lambda d, e=e, f=f: unpack(d[0].select(e.over("ticker")), d[1], f))
                     for k, (e, f) in exprs.items()}


def pandas_ta_calls():
    import numpy as np
    import pandas as pd
    import pandas_ta as ta

    def prepare(high, low, close):
        t, n = close.shape
        frame = pd.DataFrame({"ticker": np.repeat(np.arange(t), n), "high": high.ravel(), "low": low.ravel(),
                              "close": close.ravel()})
        return frame, (t, n)

    def each(d, fn):
        frame, shape = d
        outs = [fn(g) for _, g in frame.groupby("ticker", sort=False)]
        if isinstance(outs[0], pd.Series):
            return (np.stack([o.to_numpy(dtype=float) for o in outs]),)
        return tuple(np.stack([o.iloc[:, j].to_numpy(dtype=float) for o in outs]) for j in range(outs[0].shape[1]))

    def bbands(g):  # columns lower, mid, upper, bandwidth, percent; ddof 0 as TA-Lib (its default is 1)
        b = ta.bbands(g["close"], length=20, lower_std=2.0, upper_std=2.0, ddof=0)
        return b.iloc[:, [2, 1, 0]]

    return prepare, {
        "sma": lambda d: each(d, lambda g: ta.sma(g["close"], length=30)),
        "ema": lambda d: each(d, lambda g: ta.ema(g["close"], length=30)),
        "rsi": lambda d: each(d, lambda g: ta.rsi(g["close"], length=14)),
        "bbands": lambda d: each(d, bbands),
        "macd": lambda d: each(d, lambda g: ta.macd(g["close"], fast=12, slow=26, signal=9).iloc[:, [0, 2, 1]]),
        "atr": lambda d: each(d, lambda g: ta.atr(g["high"], g["low"], g["close"], length=14)),
    }


LIBRARIES = {"apportion": apportion_calls, "polars-talib": polars_calls, "pandas-ta": pandas_ta_calls}


def versions(kind):
    if kind == "apportion":
        return {}
    if kind == "polars-talib":
        import polars
        import polars_talib

        return {"polars": polars.__version__, "talib": polars_talib.__talib_version__}
    import pandas
    import pandas_ta

    return {"pandas-ta": pandas_ta.version, "pandas": pandas.__version__}


def worker(args):
    import numpy as np

    data = np.load(args.data)
    prepare, calls = LIBRARIES[args.worker]()
    layout = prepare(data["high"], data["low"], data["close"])
    for fn in calls.values():  # a first round, untimed: imports, numba's compilation, first touch
        fn(layout)
    times = {k: [] for k in calls}
    outputs = {}
    for r in range(args.rounds):
        for k, fn in calls.items():
            t0 = time.perf_counter()
            got = fn(layout)
            times[k].append(time.perf_counter() - t0)
            if r == 0:
                for name, values in zip(INDICATORS[k], got):
                    outputs[f"{k}.{name}"] = np.asarray(values, dtype=np.float64)
    np.savez(args.out, **outputs)
    print(json.dumps({"times": times, "versions": versions(args.worker)}))


# ---------------------------------------------------------------------------------------------
# The driver.


def run_worker(python, kind, data, rounds, out, env):
    cmd = [python, os.path.abspath(__file__), "--worker", kind, "--data", data, "--rounds", str(rounds), "--out", out]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"the {kind} worker failed (exit {done.returncode})")
    return json.loads(done.stdout.strip().splitlines()[-1])


def differences(np, mine, theirs, settled):
    """(largest relative difference where both are finite, the same after bar `settled`,
    positions finite on one side only)."""
    ok = np.isfinite(mine) & np.isfinite(theirs)
    rel = np.where(ok, np.abs(mine - theirs) / np.maximum(np.abs(mine), 1e-12), 0.0)
    return float(rel.max()), float(rel[:, settled:].max()), int((np.isfinite(mine) != np.isfinite(theirs)).sum())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tickers", type=int, default=50)
    ap.add_argument("--bars", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=5, help="timed rounds in each process")
    ap.add_argument("--runs", type=int, default=3, help="processes of each library, interleaved")
    ap.add_argument("--settled", type=int, default=1000, help="the first bar of the settled differences")
    ap.add_argument("--seed", type=int, default=5)
    peer_envs.add_options(ap)
    ap.add_argument("--worker", choices=tuple(LIBRARIES), help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)

    import numpy as np

    if args.bars <= args.settled or args.bars < 100 or args.tickers < 1 or args.rounds < 1 or args.runs < 1:
        raise SystemExit("need bars >= 100 and above --settled, and at least one ticker, round and run")
    print(f"# load average at start: {os.getloadavg()}; {os.cpu_count()} cores")
    peer = peer_envs.ready("frames", args)
    if peer is None:
        return 77
    cache, peers_python = peer
    print(f"# {args.tickers} tickers x {args.bars} bars; {', '.join(INDICATORS)} at TA-Lib's defaults (sma and ema 30); "
          f"{args.rounds} rounds in each of {args.runs} processes per library, interleaved")
    with tempfile.TemporaryDirectory(prefix="apo-bench-frames.") as tmp:
        data = os.path.join(tmp, "bars.npz")
        high, low, close = make_bars(args.tickers, args.bars, args.seed)
        np.savez(data, high=high, low=low, close=close)
        env = peer_envs.worker_env(cache)
        pythons = {"apportion": sys.executable, "polars-talib": peers_python, "pandas-ta": peers_python}
        kinds = list(LIBRARIES)
        times = {k: {i: [] for i in INDICATORS} for k in kinds}
        info = {}
        for r in range(args.runs):
            for kind in kinds[r % len(kinds):] + kinds[: r % len(kinds)]:  # the order rotates
                got = run_worker(pythons[kind], kind, data, args.rounds, os.path.join(tmp, f"{kind}-{r}.npz"),
                                 dict(os.environ) if kind == "apportion" else env)
                info[kind] = got["versions"]
                for i, ts in got["times"].items():
                    times[kind][i] += ts
            print(f"# run {r} done, load {os.getloadavg()[0]:.2f}", flush=True)
        outs = {k: dict(np.load(os.path.join(tmp, f"{k}-0.npz"))) for k in kinds}
    print(f"# polars-talib: {info['polars-talib']}; pandas-ta: {info['pandas-ta']}")
    failed = False
    print(f"{'output':<14} {'peer':<13} {'max_rel':>9} {'settled':>9} {'nan_only_one':>12}")
    for key, mine in outs["apportion"].items():
        for peer in ("polars-talib", "pandas-ta"):
            worst, late, nan_one = differences(np, mine, outs[peer][key], args.settled)
            bad = peer == "polars-talib" and (worst > 1e-9 or nan_one > 0)
            failed |= bad
            print(f"{key:<14} {peer:<13} {worst:9.2e} {late:9.2e} {nan_one:12d}" + (" WRONG" if bad else ""))
    print(f"{'indicator':<10}" + "".join(f" {k + ' ms':>16}" for k in kinds) + "   apportion is (x polars-talib, x pandas-ta)")
    for i in INDICATORS:
        med = {k: median(times[k][i]) * 1e3 for k in kinds}
        print(f"{i:<10}" + "".join(f" {med[k]:16.3f}" for k in kinds)
              + f"   {med['polars-talib'] / med['apportion']:.2f}x, {med['pandas-ta'] / med['apportion']:.2f}x")
    total = {k: sum(median(times[k][i]) for i in INDICATORS) * 1e3 for k in kinds}
    print(f"{'all':<10}" + "".join(f" {total[k]:16.3f}" for k in kinds)
          + f"   {total['polars-talib'] / total['apportion']:.2f}x, {total['pandas-ta'] / total['apportion']:.2f}x")
    print(f"# load average at end: {os.getloadavg()}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
