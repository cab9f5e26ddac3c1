#!/usr/bin/env python3
"""A scored grid search against the two ways a user has without it (docs/perf-log/2026-11-23-scored-sweeps.md, "Scored
sweeps"): bollinger bands_revert over a grid of (period, nbdev_up) sets (nbdev_dn at its default, 2) on many series,
ending in one line of scores per set and series (docs/scores.md, "Scores").

1. apportion.score(): the whole grid, peak memory of the process read from the kernel
   (VmHWM), the rate in set-bars per second, and the size the grid's bands would take if
   they were materialised (3 outputs x 8 bytes per set-bar).
2. numba: the same rule and scores written directly (rolling sums, positions, returns, the
   scores) and compiled before timing, parallel over (set, series) with prange on the same
   cores, in the same run, on a slice of the grid of the same shape; and the careful rival of
   issue 55 on the whole grid: one job per (period, series) that computes the bands once and
   scores every width on them, with no division per bar.
3. Materialising: the existing sweep writing every band of a slice of the sets, then numpy
   scoring them (vectorised positions through a numba-free state loop are not possible for
   bands_revert, so the positions run in a Python-level loop over bars in blocks; only
   bands_zone's stateless positions vectorise), timed on a slice and quoted per set-bar.

Each rival's sharpe is compared with apportion's on the sets they share (max relative
difference printed), so a fast wrong answer is never a figure.

    V/bin/python bench/python/bench_scores.py [--series N] [--bars N] [--periods A:B:S]
        [--widths LIST] [--slice-sets N] [--skip-materialised] [--rounds N]
"""

import argparse
import math
import os
import resource
import time

import numpy as np

import apportion


def peak_rss_mb():
    """The process's peak resident memory so far (VmHWM), in MiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def walks(series, bars, seed=7):
    rng = np.random.default_rng(seed)
    x = np.empty((series, bars))
    for r in range(series):  # row by row: no second copy of the whole input
        x[r] = 100.0 + np.cumsum(rng.uniform(-0.5, 0.5, bars))
    return x


def numba_scorer():
    from numba import njit, prange

    @njit(cache=False, fastmath=False)
    def one(x, period, width, cost, ppy):
        n = x.shape[0]
        s = 0.0
        ss = 0.0
        pos = 0
        started = False
        bars = 0
        total = 0.0
        mean = 0.0
        m2 = 0.0
        peak = 0.0
        dd = 0.0
        trades = 0
        exposed = 0
        for t in range(n):
            v = x[t]
            s += v
            ss += v * v
            if t >= period:
                old = x[t - period]
                s -= old
                ss -= old * old
            if t < period - 1:
                continue
            mid = s / period
            var = ss / period - mid * mid
            sd = math.sqrt(var) if var > 0.0 else 0.0
            up = mid + width * sd
            lo = mid - 2.0 * sd  # nbdev_dn stays at its default, 2
            prev = pos
            if prev == 0:
                pos = 1 if v < lo else (-1 if v > up else 0)
            elif prev == 1:
                pos = 0 if v >= mid else 1
            else:
                pos = 0 if v <= mid else -1
            if started:
                change = abs(pos - prev)
                r = prev * (v / x[t - 1] - 1.0) - cost * change
                bars += 1
                total += r
                d = r - mean
                mean += d / bars
                m2 += d * (r - mean)
                if total > peak:
                    peak = total
                if peak - total > dd:
                    dd = peak - total
                trades += change != 0
                exposed += pos != 0
            started = True
        sdev = math.sqrt(m2 / bars) if bars > 0 else np.nan
        return (total / bars) / sdev * math.sqrt(ppy) if bars > 0 and sdev > 0 else np.nan

    @njit(parallel=True)
    def grid(x, periods, widths, cost, ppy):
        rows = x.shape[0]
        sets = periods.shape[0] * widths.shape[0]
        out = np.empty(sets * rows)
        for job in prange(sets * rows):
            s = job // rows
            r = job % rows
            out[job] = one(x[r], periods[s // widths.shape[0]], widths[s % widths.shape[0]], cost, ppy)
        return out

    return grid


def careful_numba_scorer():
    """The rival a careful quant writes (issue 55): one job per (period, series), parallel over
    the jobs with prange; the bands' mean and sd computed once per bar from running sums into
    two arrays, and every width scored on them in a loop of its own whose position and sums
    stay in registers; no division per bar (the period's reciprocal is taken once, the closes'
    changes once per series outside the jobs, and the spread is kept as sums of deviations
    from the first return, as apportion keeps it, divided once at the end). bands_revert,
    nbdev_dn at its default 2, as the first rival. (A first version kept every width's state
    in arrays inside one loop over bars: 1.6x slower.)"""
    from numba import njit, prange

    @njit(cache=False, fastmath=False)
    def one_period(x, move, period, widths, cost, ppy, out, row, rows):
        # The bands once: mean and sd of every bar from running sums (the period's reciprocal
        # taken once), kept in two arrays; then each width scores them in a loop of its own,
        # its position and sums in registers.
        n = x.shape[0]
        inv = 1.0 / period
        mid = np.empty(n)
        sdv = np.empty(n)
        s = 0.0
        ss = 0.0
        for t in range(n):
            v = x[t]
            s += v
            ss += v * v
            if t >= period:
                old = x[t - period]
                s -= old
                ss -= old * old
            m = s * inv
            var = ss * inv - m * m
            mid[t] = m
            sdv[t] = math.sqrt(var) if var > 0.0 else 0.0
        sqrt_ppy = math.sqrt(ppy)
        for j in range(widths.shape[0]):
            w = widths[j]
            pos = 0
            bars = 0
            trades = 0
            exposed = 0
            total = 0.0
            shift = 0.0
            dev_sum = 0.0
            dev_sq = 0.0
            peak = 0.0
            dd = 0.0
            for t in range(period - 1, n):
                v = x[t]
                m = mid[t]
                sd = sdv[t]
                up = m + w * sd
                lo = m - 2.0 * sd
                prev = pos
                if prev == 0:
                    pos = 1 if v < lo else (-1 if v > up else 0)
                elif prev == 1:
                    pos = 0 if v >= m else 1
                else:
                    pos = 0 if v <= m else -1
                if t >= period:
                    change = abs(pos - prev)
                    r = prev * move[t] - cost * change
                    if bars == 0:
                        shift = r
                    bars += 1
                    total += r
                    d = r - shift
                    dev_sum += d
                    dev_sq += d * d
                    if total > peak:
                        peak = total
                    if peak - total > dd:
                        dd = peak - total
                    trades += change != 0
                    exposed += pos != 0
            sharpe = np.nan
            if bars > 0:
                m2 = dev_sq - dev_sum * (dev_sum / bars)
                sdev = math.sqrt(m2 / bars) if m2 > 0 else 0.0
                if sdev > 0:
                    sharpe = (total / bars) / sdev * sqrt_ppy
            out[j * rows + row] = sharpe

    @njit(parallel=True)
    def grid(x, periods, widths, cost, ppy):
        rows = x.shape[0]
        nw = widths.shape[0]
        out = np.empty(periods.shape[0] * nw * rows)
        # The closes' changes once per series, shared by every period and width.
        move = np.zeros(x.shape)
        for r in prange(rows):
            for t in range(1, x.shape[1]):
                move[r, t] = x[r, t] / x[r, t - 1] - 1.0
        for job in prange(periods.shape[0] * rows):
            k = job // rows
            r = job % rows
            one_period(x[r], move[r], periods[k], widths, cost, ppy, out[k * nw * rows : (k + 1) * nw * rows], r, rows)
        return out

    return grid


def numpy_score_zone(x, bands, cost, ppy):
    """bands_zone scored in numpy over materialised bands (one series)."""
    upper, middle, lower = bands
    pos = np.where(x < lower, 1, np.where(x > upper, -1, 0))
    finite = np.isfinite(upper) & np.isfinite(middle) & np.isfinite(lower)
    t0 = int(np.argmax(finite))
    prev = pos[t0:-1]
    r = prev * (x[t0 + 1 :] / x[t0:-1] - 1.0) - cost * np.abs(pos[t0 + 1 :] - prev)
    sd = r.std()
    return r.mean() / sd * math.sqrt(ppy) if sd > 0 else np.nan


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--series", type=int, default=500)
    ap.add_argument("--bars", type=int, default=100_000)
    ap.add_argument("--periods", default="10:200:5", help="first:last:step, inclusive")
    ap.add_argument("--widths", default="1,1.5,2,2.5,3")
    ap.add_argument("--slice-sets", type=int, default=10, help="sets of the rivals' slice")
    ap.add_argument("--cost", type=float, default=0.0005)
    ap.add_argument("--skip-materialised", action="store_true")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds of the careful rival and apportion.score")
    args = ap.parse_args()
    a, b, step = (int(v) for v in args.periods.split(":"))
    periods = list(range(a, b + 1, step))
    widths = [float(w) for w in args.widths.split(",")]
    sets = len(periods) * len(widths)

    x = walks(args.series, args.bars)
    set_bars = sets * args.series * args.bars
    print(f"load average at start: {os.getloadavg()}")
    print(f"grid: {len(periods)} periods x {len(widths)} widths = {sets} sets, {args.series} series x {args.bars} bars")
    print(f"set-bars: {set_bars:.3e}; materialised bands would take {set_bars * 24 / 1e9:.1f} GB")
    rss_before = peak_rss_mb()

    rt = apportion.default_runtime()
    t0 = time.perf_counter()
    got = apportion.score(x, "bollinger", "bands_revert", period=periods, nbdev_up=widths, cost=args.cost, axis=1)
    t_apo = time.perf_counter() - t0
    print(f"apportion.score: {t_apo:.2f} s, {set_bars / t_apo / 1e6:.1f} M set-bars/s; "
          f"peak RSS {peak_rss_mb():.0f} MiB (input {x.nbytes / 2**20:.0f} MiB; before the call {rss_before:.0f} MiB)")
    # The labels name the cpu's vector path: the scripts/test.sh venv's wheel, where no GPU is
    # seen, is built with the sse2 path alone (python/tests/run.sh), not the wheel users get.
    print(f"devices: {[d['label'] for d in rt.devices()]}")

    # The rivals on a slice: the first --slice-sets periods at every width, all series.
    sp = periods[: max(1, args.slice_sets // len(widths))]
    slice_sets = len(sp) * len(widths)
    slice_bars = slice_sets * args.series * args.bars
    t0 = time.perf_counter()
    ours = apportion.score(x, "bollinger", "bands_revert", period=sp, nbdev_up=widths, cost=args.cost, axis=1)
    t_apo_slice = time.perf_counter() - t0

    grid = numba_scorer()
    grid(np.ascontiguousarray(x[:2, :1000]), np.array(sp[:1], dtype=np.int64), np.array(widths[:1]), args.cost, 252.0)  # compile, same types and layout
    t0 = time.perf_counter()
    nb = grid(x, np.array(sp, dtype=np.int64), np.array(widths), args.cost, 252.0)
    t_nb = time.perf_counter() - t0
    mine = ours["sharpe"].to_numpy()
    ok = np.isfinite(mine) & np.isfinite(nb)
    diff = np.max(np.abs(mine[ok] - nb[ok]) / np.maximum(np.abs(mine[ok]), 1e-12)) if ok.any() else float("nan")
    print(f"slice: {slice_sets} sets, {slice_bars:.3e} set-bars")
    print(f"  apportion: {t_apo_slice:.2f} s ({slice_bars / t_apo_slice / 1e6:.1f} M set-bars/s)")
    print(f"  numba (parallel, compiled before timing): {t_nb:.2f} s ({slice_bars / t_nb / 1e6:.1f} M set-bars/s); "
          f"apportion is {t_nb / t_apo_slice:.2f}x; sharpe max relative difference {diff:.2e} ({ok.sum()} of {len(mine)} compared)")

    # The careful rival (issue 55) on the whole grid against apportion.score on the same grid,
    # both after a first call (compilation, the runtime's start), in --rounds interleaved
    # rounds: medians.
    careful = careful_numba_scorer()
    careful(np.ascontiguousarray(x[:2, :1000]), np.array(periods[:1], dtype=np.int64), np.array(widths), args.cost, 252.0)
    t_cn, t_ap = [], []
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        got = apportion.score(x, "bollinger", "bands_revert", period=periods, nbdev_up=widths, cost=args.cost, axis=1)
        t_ap.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        cn = careful(x, np.array(periods, dtype=np.int64), np.array(widths), args.cost, 252.0)
        t_cn.append(time.perf_counter() - t0)
    med_cn, med_ap = float(np.median(t_cn)), float(np.median(t_ap))
    mine = got["sharpe"].to_numpy()
    ok = np.isfinite(mine) & np.isfinite(cn)
    diff = np.max(np.abs(mine[ok] - cn[ok]) / np.maximum(np.abs(mine[ok]), 1e-12)) if ok.any() else float("nan")
    print(f"whole grid, {args.rounds} interleaved rounds, medians: apportion.score {med_ap:.2f} s "
          f"({set_bars / med_ap / 1e6:.1f} M set-bars/s); careful numba (one job per period and series, bands "
          f"once, no division per bar; compiled before timing) {med_cn:.2f} s ({set_bars / med_cn / 1e6:.1f} M "
          f"set-bars/s): apportion.score is {med_cn / med_ap:.2f}x; sharpe max relative difference {diff:.2e} "
          f"({ok.sum()} of {len(mine)} compared)")

    if not args.skip_materialised:
        # Materialise one set's bands (the existing sweep path) and score in numpy, for
        # bands_zone (stateless, so numpy can do it); quoted per set-bar.
        zone = apportion.score(x, "bollinger", "bands_zone", period=sp[0], nbdev_up=widths[0], cost=args.cost, axis=1)
        t0 = time.perf_counter()
        bands = apportion.bollinger(x, period=sp[0], nbdev_up=widths[0], axis=1)
        sharpe = [numpy_score_zone(x[r], [b[r] for b in bands], args.cost, 252.0) for r in range(args.series)]
        t_mat = time.perf_counter() - t0
        t0 = time.perf_counter()
        apportion.score(x, "bollinger", "bands_zone", period=sp[0], nbdev_up=widths[0], cost=args.cost, axis=1)
        t_zone = time.perf_counter() - t0
        mine = zone["sharpe"].to_numpy()
        sharpe = np.array(sharpe)
        ok = np.isfinite(mine) & np.isfinite(sharpe)
        diff = np.max(np.abs(mine[ok] - sharpe[ok]) / np.maximum(np.abs(mine[ok]), 1e-12))
        one = args.series * args.bars
        print(f"  materialised + numpy (bands_zone, one set): {t_mat:.2f} s ({one / t_mat / 1e6:.1f} M set-bars/s) "
              f"against apportion.score bands_zone {t_zone:.2f} s: apportion is {t_mat / t_zone:.2f}x; "
              f"sharpe max relative difference {diff:.2e}")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
