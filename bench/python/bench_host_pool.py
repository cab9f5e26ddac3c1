#!/usr/bin/env python3
"""bollinger on pageable numpy input with its outputs from the runtime's pool of pinned host
blocks against outputs in pageable memory (issue 51's item 6; docs/host-pool.md): the GPUs
write pinned outputs straight, pageable ones through the staging slots and a host copy.

Cases, each checked bit for bit against bollinger on the cpu alone (#wrong counts
mismatches), each a call whose outputs are dropped before the next, as a loop keeping only
what it needs does:
1. pool: outputs allocated by the call, from the pool (warm: its blocks pinned already);
2. plain, allocated each call: the pool's bound set to 0, so the call allocates plain
   memory, as before the pool (fresh pages each call);
3. pageable out=: numpy arrays allocated and touched once, written in place each call;
4. pool, first call: the pool emptied, one call that pins its blocks (the cost paid once).

    V/bin/python bench/python/bench_host_pool.py [--samples 1e8] [--repeats 10] [--devices cuda] [--json]

On simulated GPUs (docs/cuda.md, "A simulated CUDA runtime") it shows only that the cases
run and give the cpu's bits: their times say nothing of a GPU's.
"""

import argparse
import json
import sys
import time

import numpy as np

import apportion
from bench_binding import best_of

PARAMS = {"period": 20, "nbdev_up": 2, "nbdev_dn": 2}


def wrong(outputs, reference):
    """Values whose bits differ from the reference's."""
    return sum(int(np.sum(a.view(np.uint64) != b.view(np.uint64))) for a, b in zip(outputs, reference))


def pooled(outputs):
    """Whether every output lies in a pinned block of the pool."""
    return all(isinstance(o.base, apportion._core.HostBlock) and o.base.pinned for o in outputs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=float, default=1e8, help="samples of the one series (default 1e8)")
    parser.add_argument("--repeats", type=int, default=10, help="calls per round")
    parser.add_argument("--devices", default="cuda", help="the runtime's devices (default cuda: the GPUs alone)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    n = int(args.samples)
    x = 100.0 + np.cumsum(np.random.default_rng(1).standard_normal(n))
    with apportion.Runtime("cpu", use_gpu=False, profiles=False, learn=False) as cpu:
        reference = apportion.bollinger(x, runtime=cpu, **PARAMS)
    rows = []
    with apportion.Runtime(args.devices, profiles=False, learn=False) as rt:
        limit = rt.host_pool()["limit_bytes"]
        call = lambda **kw: apportion.bollinger(x, runtime=rt, **PARAMS, **kw)  # noqa: E731
        got = call()
        rows.append(("pool (warm)", best_of(call, args.repeats), wrong(got, reference), pooled(got)))
        rt.host_pool(limit_bytes=0)
        got = call()
        rows.append(("plain, allocated each call", best_of(call, args.repeats), wrong(got, reference), pooled(got)))
        out = tuple(np.ones(n) for _ in range(3))
        call(out=out)
        rows.append(("pageable out=", best_of(lambda: call(out=out), args.repeats), wrong(out, reference), False))
        del got
        rt.host_pool(limit_bytes=limit)
        t0 = time.perf_counter()
        got = call()
        rows.append(("pool, first call (pins)", time.perf_counter() - t0, wrong(got, reference), pooled(got)))
        gpu = next((d["label"] for d in rt.devices() if d["kind"] == "cuda"), "no GPU")
        pool = rt.host_pool()

    base = rows[1][1]
    if args.json:
        print(json.dumps({"gpu": gpu, "samples": n, "pool": pool, "rows": [{"case": c, "ms": s * 1e3, "vs_plain": s / base, "wrong": w, "pinned": p} for c, s, w, p in rows]}, indent=2))
    else:
        print(f"gpu: {gpu}   samples: {n}   devices: {args.devices}")
        print(f"{'case':<32} {'time_ms':>10} {'vs_plain':>9} {'#wrong':>7} {'pinned':>7}")
        for case, s, w, p in rows:
            print(f"{case:<32} {s * 1e3:>10.3f} {s / base:>9.3f} {w:>7} {str(p):>7}")
    return 1 if any(w for _, _, w, _ in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
