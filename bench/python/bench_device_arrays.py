#!/usr/bin/env python3
"""bollinger on device arrays from Python against the same device-resident call in a C loop
(issue 51's target: from CuPy or PyTorch arrays, within 10% of the C time at 1e8 samples;
docs/python.md, "Device arrays").

Cases, each checked bit for bit against bollinger on the host arrays (cpu) before it is
timed (#wrong counts mismatches), but the C loop, whose outputs the extension keeps:
1. C loop: the runtime's apo_distribute_workload_cuda() on the device arrays, repeated
   inside the extension into outputs allocated once (the same library call as case 2's);
2. apportion.bollinger(d, out=...): DeviceArrays in and out, the binding's cost alone;
3. apportion.bollinger(d): outputs allocated (apo_cuda_malloc) and freed every call;
4. and 5. CuPy arrays and PyTorch tensors in and out (out=), where installed.

    V/bin/python bench/python/bench_device_arrays.py [--samples 1e8] [--repeats 20] [--json]
"""

import argparse
import json
import sys

import numpy as np

import apportion
from bench_binding import best_of  # each call returns once its GPU work is done: wall time is the call's

PARAMS = {"period": 20, "nbdev_up": 2, "nbdev_dn": 2}


def wrong(outputs, reference):
    """Values whose bits differ from the reference's."""
    return sum(int(np.sum(np.asarray(a).view(np.uint64) != b.view(np.uint64))) for a, b in zip(outputs, reference))


def library_cases(rt, x, reference, repeats):
    """(case, seconds per call, #wrong) for cases 4 and 5, where CuPy or PyTorch is there."""
    cases = []
    try:
        import cupy as cp
    except ImportError:
        cp = None
    if cp is not None:
        d = cp.asarray(x)
        out = tuple(cp.empty_like(d) for _ in range(3))
        apportion.bollinger(d, out=out, runtime=rt, **PARAMS)
        bad = wrong([cp.asnumpy(o) for o in out], reference)
        cases.append(("cupy in, cupy out=", best_of(lambda: apportion.bollinger(d, out=out, runtime=rt, **PARAMS), repeats), bad))
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.cuda.is_available():
        d = torch.as_tensor(x, device="cuda")
        out = tuple(torch.empty_like(d) for _ in range(3))
        apportion.bollinger(d, out=out, runtime=rt, **PARAMS)
        bad = wrong([o.cpu().numpy() for o in out], reference)
        cases.append(("torch in, torch out=", best_of(lambda: apportion.bollinger(d, out=out, runtime=rt, **PARAMS), repeats), bad))
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=float, default=1e8, help="samples of the one series (default 1e8)")
    parser.add_argument("--repeats", type=int, default=20, help="calls per round")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    n = int(args.samples)
    x = 100.0 + np.cumsum(np.random.default_rng(1).standard_normal(n))
    with apportion.Runtime("cpu", profiles=False, learn=False) as cpu:
        reference = apportion.bollinger(x, runtime=cpu, **PARAMS)
    rows = []
    with apportion.Runtime(profiles=False, learn=False) as rt:
        d = rt.to_device(x)
        c_s = min(rt._time_c_calls("bollinger", [d], {k: float(v) for k, v in PARAMS.items()}, args.repeats) for _ in range(3))
        out = tuple(rt.to_device(np.zeros(n)) for _ in range(3))
        apportion.bollinger(d, out=out, runtime=rt, **PARAMS)
        bad = wrong([o.copy_to_host() for o in out], reference)
        rows.append(("C loop, apo_distribute_workload_cuda", c_s, 0))
        rows.append(("DeviceArray in, DeviceArray out=", best_of(lambda: apportion.bollinger(d, out=out, runtime=rt, **PARAMS), args.repeats), bad))
        fresh = apportion.bollinger(d, runtime=rt, **PARAMS)
        rows.append(("DeviceArray in, outputs allocated", best_of(lambda: apportion.bollinger(d, runtime=rt, **PARAMS), args.repeats), wrong([o.copy_to_host() for o in fresh], reference)))
        rows.extend(library_cases(rt, x, reference, args.repeats))
        gpu = rt.devices()[d.device]["label"]

    if args.json:
        print(json.dumps({"gpu": gpu, "samples": n, "rows": [{"case": c, "ms": s * 1e3, "vs_c": s / c_s, "wrong": w} for c, s, w in rows]}, indent=2))
    else:
        print(f"gpu: {gpu}   samples: {n}")
        print(f"{'case':<40} {'time_ms':>10} {'vs_C':>7} {'#wrong':>7}")
        for case, s, w in rows:
            print(f"{case:<40} {s * 1e3:>10.3f} {s / c_s:>7.3f} {w:>7}")
        worst = max(s for case, s, _ in rows[1:] if "allocated" not in case) / c_s
        print(f"Python device arrays with out= within 10% of the C loop: {'met' if worst <= 1.10 else 'NOT met'} ({worst:.3f}x)")
    return 1 if any(w for _, _, w in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
