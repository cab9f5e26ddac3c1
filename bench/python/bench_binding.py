#!/usr/bin/env python3
"""The Python binding's cost per call, and bollinger against pandas (docs/python.md, "Bench").

1. Per-call overhead at 1e3 samples: the same bollinger workload called N times from a C
   loop inside the extension (apo_distribute_workload() alone) and from Python through
   apportion.bollinger() (argument handling, output allocation, the GIL released and
   taken back). The difference is the binding's cost; the target is under 5 us.
2. bollinger on 1e6 samples against pandas' rolling mean and std (ddof=0: population, as
   bollinger uses) on the same series, in the same run.

Each case checks its outputs before timing anything (#wrong counts mismatches). Run it on
an idle machine for figures:

    V/bin/python bench/python/bench_binding.py [--repeats N] [--devices LIST] [--json]
"""

import argparse
import json
import sys
import time

import numpy as np

import apportion


def best_of(fn, repeats, rounds=5):
    """Seconds per call of fn(), the best of `rounds` rounds of `repeats` calls."""
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(repeats):
            fn()
        best = min(best, (time.perf_counter() - t0) / repeats)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=20000, help="calls per round at 1e3 samples")
    parser.add_argument("--devices", default="cpu", help="device list (default: cpu)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    rows = []
    rng = np.random.default_rng(1)
    with apportion.Runtime(args.devices, profiles=False, learn=False) as rt:
        # ---- 1. per-call overhead at 1e3 -------------------------------------------------
        x = 100.0 + np.cumsum(rng.standard_normal(1000))
        params = {"period": 20.0, "nbdev_up": 2.0, "nbdev_dn": 2.0}
        ref = rt.compute("bollinger", x, **params)
        out = tuple(np.empty_like(x) for _ in range(3))
        got = apportion.bollinger(x, period=20, out=out, runtime=rt)
        wrong = sum(int(np.sum(a.view(np.uint64) != b.view(np.uint64))) for a, b in zip(got, ref))
        c_s = min(rt._time_c_calls("bollinger", [x], params, args.repeats) for _ in range(5))
        py_s = best_of(lambda: apportion.bollinger(x, period=20, runtime=rt), args.repeats)
        out_s = best_of(lambda: apportion.bollinger(x, period=20, out=out, runtime=rt), args.repeats)
        rows.append({"case": "C loop, apo_distribute_workload", "samples": 1000, "us": c_s * 1e6, "overhead_us": 0.0, "wrong": 0})
        rows.append({"case": "apportion.bollinger(x)", "samples": 1000, "us": py_s * 1e6, "overhead_us": (py_s - c_s) * 1e6, "wrong": wrong})
        rows.append({"case": "apportion.bollinger(x, out=...)", "samples": 1000, "us": out_s * 1e6, "overhead_us": (out_s - c_s) * 1e6, "wrong": wrong})

        # ---- 2. bollinger on 1e6 against pandas ------------------------------------------
        big = 100.0 + np.cumsum(rng.standard_normal(1_000_000))
        b = apportion.bollinger(big, period=20, runtime=rt)
        try:
            import pandas as pd
        except ImportError:
            pd = None
        if pd is not None:
            s = pd.Series(big)

            def pandas_bands():
                roll = s.rolling(20)
                mean, std = roll.mean(), roll.std(ddof=0)
                return mean + 2 * std, mean, mean - 2 * std

            upper, middle, lower = pandas_bands()
            # pandas keeps running sums (its rolling std drifts by ~1e-9 relative): values only.
            close = [np.allclose(mine[19:], theirs.to_numpy()[19:], rtol=1e-6, atol=1e-6) for mine, theirs in zip(b, (upper, middle, lower))]
            pd_wrong = close.count(False)
            pd_s = best_of(pandas_bands, 1, rounds=5)
        ap_s = best_of(lambda: apportion.bollinger(big, period=20, runtime=rt), 1, rounds=5)
        rows.append({"case": "apportion.bollinger, 1e6", "samples": 1_000_000, "us": ap_s * 1e6, "overhead_us": None, "wrong": 0})
        if pd is not None:
            rows.append({"case": "pandas rolling mean+std, 1e6", "samples": 1_000_000, "us": pd_s * 1e6, "overhead_us": None, "wrong": pd_wrong})
        devices = [d["id"] for d in rt.devices()]

    if args.json:
        print(json.dumps({"devices": devices, "rows": rows}, indent=2))
    else:
        print(f"devices: {','.join(devices)}")
        print(f"{'case':<34} {'samples':>9} {'time_us':>11} {'over_C_us':>10} {'#wrong':>7}")
        for r in rows:
            over = "" if r["overhead_us"] is None else f"{r['overhead_us']:.2f}"
            print(f"{r['case']:<34} {r['samples']:>9} {r['us']:>11.2f} {over:>10} {r['wrong']:>7}")
        overhead = rows[1]["overhead_us"]
        print(f"binding overhead at 1e3: {overhead:.2f} us per call (target < 5 us): {'met' if overhead < 5 else 'NOT met'}")
    return 1 if any(r["wrong"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
