#!/usr/bin/env python3
"""vectorbt's parameter sweep against apportion.score() (docs/perf-log/2026-11-26-vectorbt-frames.md):
a long-only price cross on the simple moving average over a grid of periods on many tickers,
ending in per-set statistics, on vectorbt (its portfolio simulation) and on apportion.score()
(docs/scores.md), the same closes and the same rule, each in processes of its own so that
each one's peak memory is its own.

The rule: long from the close of a bar whose close is above its SMA(period), flat from the
close of a bar whose close is not (apportion's `price_cross` on sma with side=1; in vectorbt
entries = close > sma, exits = the rest, through Portfolio.from_signals at the close).
Where the two define a statistic alike they must agree (the bench exits 1 otherwise); where
they do not, the bench converts apportion's figures into vectorbt's definition (bench/README.md,
"bench_vectorbt.py"):

- total return: vectorbt's compounded value, apportion's `price_cross/compound` total;
- max drawdown: vectorbt's (value / peak - 1, <= 0) is minus apportion's compounded drawdown;
- Sharpe: vectorbt's is over every bar (the warm-up's zero returns included) with the sample
  deviation (ddof 1); apportion's over the scored bars with the population deviation; the
  bench derives vectorbt's from apportion's mean, sd and bars;
- trades: apportion counts position changes at scored bars (an entry and an exit each), so
  it is compared with vectorbt's orders filled after the first bar of finite SMA; vectorbt's
  trade count (round trips, the last maybe open) is printed beside it;
- fees: only with --cost 0 (the default) are the returns the same bar by bar: apportion
  subtracts the cost from the bar's simple return (an entry on the first bar of finite SMA
  pays none), vectorbt buys cash / (1 + fee) worth. With --cost the bench prints the
  differences and checks the trade counts only.

    BUILD/python-venv/bin/python bench/python/bench_vectorbt.py [--tickers N] [--bars N]
        [--periods A:B] [--cost C] [--runs N] [--cache DIR] [--peers-python PY]

Exit status: 0, 1 when the two disagree, 77 when vectorbt cannot be installed (no PyPI).
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

PPY = 252  # daily bars: both annualise the Sharpe ratio by sqrt(252)


def peak_rss_mib():
    """The process's peak resident memory so far (VmHWM), in MiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def rss_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def make_closes(tickers, bars, seed):
    """Geometric random walks, one ticker a row: 1% daily moves from 100."""
    import numpy as np

    rng = np.random.default_rng(seed)
    x = np.empty((tickers, bars))
    for r in range(tickers):
        x[r] = 100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.01, bars)))
    return x


# ---------------------------------------------------------------------------------------------
# The workers: each runs in a process of its own, prints one JSON line, saves its statistics.


def apportion_sweep(apportion, x, periods, cost):
    return apportion.score(x, "sma", "price_cross/compound", timeperiod=periods, side=1, cost=cost,
                           periods_per_year=PPY, axis=1)


def work_apportion(x, periods, cost):
    import numpy as np

    import apportion

    # The process's first scored call pays a fixed cost (0.6 to 1.3 s on a loaded 2-core VM; a
    # second call of any scored kernel about 1 ms): taken on a small slice and timed apart, as
    # vectorbt's compilation is.
    t0 = time.perf_counter()
    apportion_sweep(apportion, np.ascontiguousarray(x[:2, :300]), periods[:2], cost)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    got = apportion_sweep(apportion, x, periods, cost)
    wall = time.perf_counter() - t0
    stats = {k: got[k].to_numpy(dtype="float64") for k in ("total", "mean", "sd", "sharpe", "max_drawdown", "trades", "bars")}
    return wall, stats, {"devices": [d["id"] for d in apportion.default_runtime().devices()], "first_call_s": first}


def vectorbt_sweep(vbt, np, pd, x, periods, cost):
    """What a vectorbt user writes: the indicator over the grid, signals, the portfolio, the
    statistics. Returns them in apportion's order (set slowest, then ticker)."""
    close = pd.DataFrame(x.T, index=pd.date_range("2000-01-03", periods=x.shape[1], freq="D"))
    ma = vbt.MA.run(close, window=periods)
    entries = ma.close_above(ma.ma)
    exits = ~entries
    pf = vbt.Portfolio.from_signals(ma.close, entries, exits, fees=cost, freq="1D", init_cash=100.0)
    total = pf.total_return().to_numpy()
    drawdown = pf.max_drawdown().to_numpy()
    sharpe = pf.sharpe_ratio(year_freq=f"{PPY}D").to_numpy()
    round_trips = pf.trades.count().to_numpy()
    orders = pf.orders.values  # records: col, idx, ...
    return total, drawdown, sharpe, round_trips, orders


def work_vectorbt(x, periods, cost):
    import numpy as np
    import pandas as pd
    import vectorbt as vbt

    # Compile vectorbt's numba functions on a small slice of the same types first, as a user's
    # second run finds them compiled (numba's cache is the peers' cache folder).
    t0 = time.perf_counter()
    vectorbt_sweep(vbt, np, pd, np.ascontiguousarray(x[:2, :300]), periods[:2], cost)
    first = time.perf_counter() - t0
    before = rss_mib()
    t0 = time.perf_counter()
    total, drawdown, sharpe, round_trips, orders = vectorbt_sweep(vbt, np, pd, x, periods, cost)
    wall = time.perf_counter() - t0
    tickers = x.shape[0]
    first_finite = np.repeat(np.asarray(periods) - 1, tickers)  # sma's first finite bar, per column
    late = orders["idx"] > first_finite[orders["col"]]
    scored_orders = np.bincount(orders["col"][late], minlength=len(total)).astype(float)
    stats = dict(total=total, max_drawdown=drawdown, sharpe=sharpe, round_trips=round_trips.astype(float),
                 scored_orders=scored_orders)
    return wall, stats, {"vectorbt": vbt.__version__, "numba": __import__("numba").__version__,
                         "numpy": np.__version__, "pandas": pd.__version__, "rss_before_mib": before,
                         "first_call_s": first}


def worker(args):
    import numpy as np

    x = np.load(args.data)
    periods = [int(p) for p in args.periods_list.split(",")]
    loaded = rss_mib()
    fn = work_apportion if args.worker == "apportion" else work_vectorbt
    wall, stats, info = fn(x, periods, args.cost)
    np.savez(args.out, **stats)
    info.update(wall_s=wall, peak_rss_mib=peak_rss_mib(), rss_after_load_mib=loaded)
    print(json.dumps(info))


# ---------------------------------------------------------------------------------------------
# The driver.


def run_worker(python, kind, data, periods, cost, out, env):
    cmd = [python, os.path.abspath(__file__), "--worker", kind, "--data", data,
           "--periods-list", ",".join(map(str, periods)), "--cost", repr(cost), "--out", out]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    process_s = time.perf_counter() - t0
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"the {kind} worker failed (exit {done.returncode})")
    info = json.loads(done.stdout.strip().splitlines()[-1])
    info["process_s"] = process_s
    return info


def vectorbt_from_apportion(np, a, bars):
    """apportion's statistics in vectorbt's definitions (the module's docstring)."""
    n = float(bars)
    s1 = a["mean"] * a["bars"]
    s2 = (a["sd"] ** 2 + a["mean"] ** 2) * a["bars"]
    mean_all = s1 / n
    var1 = (s2 - s1 * mean_all) / (n - 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):  # vectorbt: +inf where the deviation is 0
        sharpe = np.where(var1 > 0.0, mean_all / np.sqrt(var1) * np.sqrt(PPY), np.inf)
    return {"total": a["total"], "max_drawdown": -a["max_drawdown"], "sharpe": sharpe,
            "scored_orders": a["trades"]}


def compare(np, a, v, bars, cost):
    """(lines, failed): the largest difference of each statistic, relative where the values
    are away from 0."""
    mine = vectorbt_from_apportion(np, a, bars)
    lines, failed = [], False
    for key, tol in (("total", 1e-9), ("max_drawdown", 1e-9), ("sharpe", 1e-9), ("scored_orders", 0.0)):
        p, q = mine[key], v[key]
        both_nan = np.isnan(p) & np.isnan(q)
        ok = np.isfinite(p) & np.isfinite(q)
        mismatched_nan = int((~both_nan & ~ok).sum())
        diff = np.abs(p[ok] - q[ok]) / np.maximum(np.abs(q[ok]), 1e-3) if ok.any() else np.zeros(1)
        worst = float(diff.max())
        checked = key == "scored_orders" or cost == 0.0
        bad = checked and (worst > tol or mismatched_nan > 0)
        failed |= bad
        lines.append(f"  {key:<14} largest difference {worst:.2e} over {int(ok.sum())} sets x tickers, "
                     f"NaN on one side only: {mismatched_nan}"
                     + ("" if checked else " (not checked: fees defined differently)") + (" WRONG" if bad else ""))
    return lines, failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tickers", type=int, default=100)
    ap.add_argument("--bars", type=int, default=2520, help="bars per ticker (2,520: ten years of days)")
    ap.add_argument("--periods", default="2:101", help="first:last SMA period, inclusive, step 1")
    ap.add_argument("--cost", type=float, default=0.0, help="fee per unit of position change (vectorbt's fees)")
    ap.add_argument("--runs", type=int, default=3, help="interleaved runs of each, the order alternating")
    ap.add_argument("--seed", type=int, default=11)
    peer_envs.add_options(ap)
    ap.add_argument("--worker", choices=("apportion", "vectorbt"), help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    ap.add_argument("--periods-list", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)

    import numpy as np

    first, last = (int(v) for v in args.periods.split(":"))
    periods = list(range(first, last + 1))
    if first < 2 or last < first or last >= args.bars:
        raise SystemExit(f"--periods {args.periods}: need 2 <= first <= last < bars ({args.bars})")
    if not 0.0 <= args.cost < 1.0:
        raise SystemExit(f"--cost {args.cost}: need 0 <= cost < 1")
    print(f"# load average at start: {os.getloadavg()}; {os.cpu_count()} cores")
    peer = peer_envs.ready("vectorbt", args)
    if peer is None:
        return 77
    cache, vbt_python = peer
    sets = len(periods)
    print(f"# grid: sma periods {first}..{last} ({sets} sets) x {args.tickers} tickers x {args.bars} bars "
          f"= {sets * args.tickers * args.bars:.3e} set-bars; rule: long while close > sma, cost {args.cost}")
    with tempfile.TemporaryDirectory(prefix="apo-bench-vectorbt.") as tmp:
        data = os.path.join(tmp, "closes.npy")
        np.save(data, make_closes(args.tickers, args.bars, args.seed))
        envs = {"apportion": dict(os.environ), "vectorbt": peer_envs.worker_env(cache)}
        pythons = {"apportion": sys.executable, "vectorbt": vbt_python}
        runs = {"apportion": [], "vectorbt": []}
        for r in range(args.runs):
            order = ("apportion", "vectorbt") if r % 2 == 0 else ("vectorbt", "apportion")
            for kind in order:
                out = os.path.join(tmp, f"{kind}-{r}.npz")
                info = run_worker(pythons[kind], kind, data, periods, args.cost, out, envs[kind])
                runs[kind].append(info)
                print(f"# run {r} {kind:<9}: {info['wall_s']:.3f} s, peak RSS {info['peak_rss_mib']:.0f} MiB "
                      f"(after loading the closes {info['rss_after_load_mib']:.0f}), first call on a small slice "
                      f"{info['first_call_s']:.2f} s, process {info['process_s']:.1f} s; "
                      f"load {os.getloadavg()[0]:.2f}", flush=True)
        a = dict(np.load(os.path.join(tmp, "apportion-0.npz")))
        v = dict(np.load(os.path.join(tmp, "vectorbt-0.npz")))
        for r in range(1, args.runs):  # every run gives the same numbers
            for kind, first_run in (("apportion", a), ("vectorbt", v)):
                again = np.load(os.path.join(tmp, f"{kind}-{r}.npz"))
                if not all(np.array_equal(first_run[k], again[k], equal_nan=True) for k in first_run):
                    print(f"# {kind}'s run {r} gave other numbers than its run 0")
    lines, failed = compare(np, a, v, args.bars, args.cost)
    vi = runs["vectorbt"][0]
    print(f"# vectorbt {vi['vectorbt']} (numba {vi['numba']}, numpy {vi['numpy']}, pandas {vi['pandas']}); "
          f"apportion on {runs['apportion'][0]['devices']}")
    print("# statistics, apportion's converted to vectorbt's definitions against vectorbt's:")
    print("\n".join(lines))
    print(f"#   round trips (vectorbt's trade count), median over sets x tickers: {median(list(v['round_trips']))}")
    wall = {k: median([i["wall_s"] for i in runs[k]]) for k in runs}
    peak = {k: median([i["peak_rss_mib"] for i in runs[k]]) for k in runs}
    print(f"{'':<10} {'wall_s(med)':>12} {'range':>17} {'peak_MiB(med)':>14} {'set-bars/s':>11}")
    for k in ("apportion", "vectorbt"):
        ws = [i["wall_s"] for i in runs[k]]
        print(f"{k:<10} {wall[k]:12.3f} {min(ws):8.3f}-{max(ws):<8.3f} {peak[k]:14.0f} "
              f"{sets * args.tickers * args.bars / wall[k]:11.3e}")
    print(f"# apportion is {wall['vectorbt'] / wall['apportion']:.2f}x vectorbt's speed (target 5x), "
          f"in {peak['apportion'] / peak['vectorbt']:.3f} of its peak memory (target <= 0.1)")
    print(f"# load average at end: {os.getloadavg()}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
