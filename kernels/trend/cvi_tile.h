/*
 * cvi_tile.h: CVI(timeperiod, rocperiod), TA-Lib 0.8's Chaikin volatility: the rate of change,
 * in percent, over r = rocperiod bars of E, the EMA of rate k = 2/(p+1) of the bar's range
 * high - low (adr's apo__bar_range): `100 * ((E[t] - E[t-r]) / E[t-r])`, and 0 where E[t-r] is
 * exactly 0 (TA-Lib's guard). E is ema's: seeded with the mean of the first p ranges (summed in
 * index order), then `e = fma(k, range - e, e)`, the fused step of TA-Lib 0.8's build for FMA
 * (apo__cvi_ema_next). Lookback (p - 1) + r.
 *
 * Tile: the definition re-run from w0 = max(0, begin - h), h = (p - 1) + r + D(2/(p+1))
 * (catalog_dispatch.c, EMA(1)), so a tile starting at 0 has the definition's operations and later
 * tiles agree with it to 2^-64 of the scale. E[t - r] needs no ring of r values: a second copy
 * of the same recurrence, started at the same w0, runs r bars behind the first, and since both
 * take the same operations over the same ranges it holds E[t - r]'s bits exactly. On the CPU,
 * once both are seeded, blocks of up to APO_CVI_STEADY_BLOCK bars whose ranges are all finite
 * run a loop of the same operations without the per-bar tests (apo__cvi_steady: 0.84 of the
 * tile's time at 1e4 bars, 0.90 at 1e6 with the next block asked for ahead).
 *
 * Tiles side by side (CPU): a row's tiles run as rounds of vector lanes, one tile a lane
 * (apo__cvi_round, catalog_lanes.h), each lane with apo__cvi_run's operations, so a tile's bits
 * do not depend on the tiles beside it. One tile's chain waits on a subtraction and a fused
 * multiply-add a bar, which TA-Lib's loop waits on too; four tiles' chains advance for the
 * latency of one, and the quotient's division is a vector's. Its tiles are four halos long, at
 * least 2048 bars (SIDE_BY_SIDE), so a row of 1e4 bars is a round of four and a tile. On the
 * Zen 4 VM (2026-12-03): 0.58 of the single tiles' time at 1e4 bars, 0.67 at 1e6, on avx2; on
 * eight halved lanes about twice avx2's time at 1e5 and 1e6, slower than the single tiles, so
 * Zen 4 runs them on avx2 (docs/perf-log/2026-12-03-zen4-cvi-scores.md).
 *
 * Gaps (rsi's rule): a bar whose range is not finite gives NaN and E skips it (E at that bar is
 * its value before it); the seed is the mean of the first p finite ranges.
 *
 * Stream: RUN (run_entries.h). The start reads nothing and the run writes only from `begin` on
 * (its lagged copy starts at w0 + r of the tile whose `begin` it is given, the tile's), so a
 * stream carries both EMAs across updates, an update costing its new bars, and takes the next
 * tile's run ahead (the row's AHEAD) while a tile's last h bars arrive.
 */
#ifndef APO_KERNELS_CVI_TILE_H
#define APO_KERNELS_CVI_TILE_H

#include "adr_tile.h"
#include "catalog.h"
#include "catalog_lanes.h"
#include "ema_tile.h"
#include "run_entries.h"
#include "window_plain.h"

/* One EMA of the ranges: the ranges seen toward the seed, the seed's sum and the average. */
typedef struct {
    size_t seen;
    double sum, e;
} apo__cvi_ema;

/* A seeded EMA e moved by a finite range: TA-Lib 0.8's fused step, as its CVI built for FMA
 * computes it (ema_tile.h's APO__EMA_FUSED). */
static inline APO_HD double apo__cvi_ema_next(double e, double range, double k) {
    return APO__EMA_FUSED(fma, e, range, k);
}

/* CVI from E at t (a) and at t - r (b): 0 where b is exactly 0. The quotient is taken whatever
 * b is, then selected (a division under the condition stays a branch, which keeps the steady
 * loop's stores waiting on it). */
static inline APO_HD double apo__cvi_of(double a, double b) {
    const double q = 100.0 * ((a - b) / b);
    return b != 0.0 ? q : 0.0;
}

/* Takes bar t's range into a; returns whether a is seeded after it. */
static inline APO_HD int apo__cvi_ema_step(apo__cvi_ema *a, double range, size_t p, double k) {
    if (isfinite(range)) {
        if (a->seen < p) {
            a->sum = a->sum + range;
            if (++a->seen == p)
                a->e = a->sum / (double)p;
        } else {
            a->e = apo__cvi_ema_next(a->e, range, k);
        }
    }
    return a->seen == p;
}

/* Bars a steady stretch takes at most before its ranges are scanned again. */
#define APO_CVI_STEADY_BLOCK 256

/* Whether the ranges of bars [from, to) are all finite: a scan without a branch a bar, which
 * gcc vectorises. */
static inline APO_HD int apo__cvi_ranges_finite(const apo__cat_io *io, size_t from, size_t to) {
    int finite = 1;
    for (size_t i = from; i < to; i++) {
        const double x = apo__bar_range(io, i);
        finite &= (x - x) == 0.0;
    }
    return finite;
}

/* Bars [t, e) once both EMAs are seeded, t is an output and every range the bars read (theirs
 * and those r before them) is finite: the generic loop's operations for that case, without its
 * tests, so the same bits; each EMA's chain a subtraction, a product and an addition a bar,
 * the two side by side, and the quotient off them. */
static inline APO_HD void apo__cvi_steady(const apo__cat_io *io, size_t t, size_t e, size_t r,
                                          double k, apo__cvi_ema *now, apo__cvi_ema *lagged) {
    double *out = io->out[0];
    double a = now->e, b = lagged->e;
    for (; t < e; t++) {
        a = apo__cvi_ema_next(a, apo__bar_range(io, t), k);
        b = apo__cvi_ema_next(b, apo__bar_range(io, t - r), k);
        out[t] = apo__canonical_nan(apo__cvi_of(a, b));
    }
    now->e = a;
    lagged->e = b;
}

/* The tile's start: both EMAs empty at its warm-up origin w0. */
static inline APO_HD void apo__cvi_start(const apo__cat_io *io, size_t begin, apo__cat_run *run) {
    apo__cat_run_from_origin(io, begin, run);
}

/* The definition's loop from run->t to end, writing the positions from `begin` on. The run
 * keeps E in n[0] (its ranges seen toward the seed), v[0] (the seed's sum) and v[1] (E), and
 * the copy r bars behind in n[1], v[2] and v[3]; the copy takes its first range at w0 + r. */
static inline APO_HD void apo__cvi_run(const apo__cat_io *io, size_t begin, size_t end,
                                       apo__cat_run *run) {
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0], r = (size_t)io->p[1];
    const double k = 2.0 / ((double)p + 1.0);
    const size_t w0 = apo__cat_origin(io, begin);
    apo__cvi_ema now = {run->n[0], run->v[0], run->v[1]};
    apo__cvi_ema lagged = {run->n[1], run->v[2], run->v[3]};
#ifndef __CUDA_ARCH__
    size_t scanned_until = 0; /* bars before it: a block found with a gap, stepped one by one */
#endif
    for (size_t t = run->t; t < end; t++) {
#ifndef __CUDA_ARCH__
        /* On the CPU only: a GPU thread's tile would read its block twice (the scan, then the
         * loop) for a loop the GPU does not need (its threads run many tiles at once); the
         * steps are the same, so the same bits (catalog_simt checks the two). */
        if (t >= begin && t >= scanned_until && now.seen == p && lagged.seen == p) {
            const size_t e = end - t < APO_CVI_STEADY_BLOCK ? end : t + APO_CVI_STEADY_BLOCK;
            if (apo__cvi_ranges_finite(io, t - r, e)) {
                /* The next block's lines asked for while this one is computed: the scan above
                 * met them first and waited on the memory there (at a million bars a quarter
                 * of the tile's time), the loop after it on nothing. */
                if (end - e >= APO_CVI_STEADY_BLOCK)
                    apo__plain_prefetch_inputs(io->in, 2, out, e, APO_CVI_STEADY_BLOCK);
                apo__cvi_steady(io, t, e, r, k, &now, &lagged);
                t = e - 1;
                continue;
            }
            scanned_until = e;
        }
#endif
        const double range = apo__bar_range(io, t);
        const int seeded = apo__cvi_ema_step(&now, range, p, k);
        int lag_seeded = 0;
        if (t >= w0 + r)
            lag_seeded = apo__cvi_ema_step(&lagged, apo__bar_range(io, t - r), p, k);
        if (t < begin)
            continue;
        double z = NAN;
        if (isfinite(range) && seeded && lag_seeded)
            z = apo__cvi_of(now.e, lagged.e);
        out[t] = apo__canonical_nan(z);
    }
    run->t = end > run->t ? end : run->t;
    run->n[0] = now.seen;
    run->n[1] = lagged.seen;
    run->v[0] = now.sum;
    run->v[1] = now.e;
    run->v[2] = lagged.sum;
    run->v[3] = lagged.e;
}

#ifdef APO_TILE_LANES
/* apo__cvi_of in every lane: the quotient taken, then 0 where E r bars back is exactly 0, and
 * the NaN made canonical (a lane's operations are the scalar body's). */
static inline apo_tv apo__cvi_of_tv(apo_tv a, apo_tv b) {
    const apo_tv zero = {0};
    const apo_tv y = apo_tv_pick(b != 0.0, 100.0 * ((a - b) / b), zero);
    return apo_tv_or_nan(y == y, y);
}

/* The round's steady steps from `step` to sd.to (catalog_lanes.h), both EMAs seeded in every
 * lane: apo__cvi_round's operations for them, in the copy for sd.held (a constant). A range,
 * now or r bars back, that is not finite stops it, and the round's loop takes that step.
 * Returns the first step not taken. */
static APO_CAT_SPECIALISED size_t apo__cvi_steady_copy(const apo__cat_io *io,
                                                       const apo__cat_lanes *ln, size_t step,
                                                       const apo__cat_steady *sd, apo_tv k,
                                                       apo_tv *e_io, apo_tv *lagged_io,
                                                       const int held) {
    const size_t r = (size_t)io->p[1];
    const double *high[APO_TILE_LANES], *low[APO_TILE_LANES];
    const double *high_back[APO_TILE_LANES], *low_back[APO_TILE_LANES];
    double *out[APO_TILE_LANES];
    apo__cat_lanes_rows(ln, sd, io->in[0], 0, high);
    apo__cat_lanes_rows(ln, sd, io->in[1], 0, low);
    apo__cat_lanes_rows(ln, sd, io->in[0], r, high_back);
    apo__cat_lanes_rows(ln, sd, io->in[1], r, low_back);
    apo__cat_lanes_outs(ln, io->out[0], out);
    apo_tv e = *e_io, lagged = *lagged_io;
    /* APO_CAT_BLOCK steps at a time: the same operations, the ranges computed on the samples
     * of a block (apo__cat_lanes_terms_block, on the 4-lane path one load a lane, with the rows
     * asked for ahead, and one transpose a range), and one test of the block's ranges. A block that
     * fails it is left to the loop below, which takes its steps one by one and stops at the range
     * not finite. */
    while (step + APO_CAT_BLOCK <= sd->to) {
        apo_tv h[APO_CAT_BLOCK], l[APO_CAT_BLOCK], hb[APO_CAT_BLOCK], lb[APO_CAT_BLOCK],
            y[APO_CAT_BLOCK];
        apo__cat_lanes_terms_block(high, sd, step, held, h);
        apo__cat_lanes_terms_block(low, sd, step, held, l);
        apo__cat_lanes_terms_block(high_back, sd, step, held, hb);
        apo__cat_lanes_terms_block(low_back, sd, step, held, lb);
        apo_tv gaps = {0};
        for (size_t j = 0; j < APO_CAT_BLOCK; j++) {
            h[j] = h[j] - l[j];    /* the range */
            hb[j] = hb[j] - lb[j]; /* the range r bars back */
            gaps = gaps + (h[j] - h[j]) + (hb[j] - hb[j]);
        }
        apo__cat_lanes_terms_steps(h);
        apo__cat_lanes_terms_steps(hb);
        if (!apo_tv_all_finite(gaps))
            break;
        for (size_t j = 0; j < APO_CAT_BLOCK; j++) {
            e = APO__EMA_FUSED(apo_tv_fma, e, h[j], k);
            lagged = APO__EMA_FUSED(apo_tv_fma, lagged, hb[j], k);
            y[j] = apo__cvi_of_tv(e, lagged);
        }
        apo__cat_lanes_put_block(out, sd->stores, step, y);
        step += APO_CAT_BLOCK;
    }
    for (; step < sd->to; step++) {
        const apo_tv range =
            apo__cat_lanes_at(high, sd, step, held) - apo__cat_lanes_at(low, sd, step, held);
        const apo_tv range_back = apo__cat_lanes_at(high_back, sd, step, held) -
                                  apo__cat_lanes_at(low_back, sd, step, held);
        /* 0 in every lane when both ranges are finite there, else NaN somewhere. */
        if (!apo_tv_all_finite((range - range) + (range_back - range_back)))
            break;
        e = APO__EMA_FUSED(apo_tv_fma, e, range, k);
        lagged = APO__EMA_FUSED(apo_tv_fma, lagged, range_back, k);
        apo__cat_lanes_put(out, sd->stores, step, apo__cvi_of_tv(e, lagged));
    }
    *e_io = e;
    *lagged_io = lagged;
    return step;
}

static inline size_t apo__cvi_steady_lanes(const apo__cat_io *io, const apo__cat_lanes *ln,
                                           size_t step, const apo__cat_steady *sd, apo_tv k,
                                           apo_tv *e, apo_tv *lagged) {
    return sd->held ? apo__cvi_steady_copy(io, ln, step, sd, k, e, lagged, 1)
                    : apo__cvi_steady_copy(io, ln, step, sd, k, e, lagged, 0);
}

/* A round of up to APO_TILE_LANES tiles side by side, one per vector lane (catalog_lanes.h says
 * how the bits stay each tile's): each lane performs apo__cvi_run's operations in its order.
 * One tile's two EMAs wait on a subtraction and a fused multiply-add a bar each, and the
 * quotient on a division: in lanes, the chains of several tiles advance for the latency of one
 * and the division is a vector's. Every lane starts at its warm-up origin, and the copy r bars
 * behind at step r of every lane. The round stops before the first step where a lane's range,
 * or the range r bars back that the copy takes, is not finite, and each tile's scalar run goes
 * on from its lane. No edges: a lone tile is not cut (apo__catalog_cuts). */
static inline void apo__cvi_round(const apo__cat_io *io, const apo__tile_span *tiles,
                                  size_t count) {
    apo__cat_lanes ln;
    apo__cat_lanes_start_at(&ln, io, tiles, count, 0);
    const size_t p = (size_t)io->p[0], r = (size_t)io->p[1];
    const apo_tv zero = {0}, nan = zero + (double)NAN, pd = zero + (double)p,
                 k = zero + 2.0 / ((double)p + 1.0);
    /* Each EMA as ema_tile.h's stage holds it: the seed's sum until its p-th range, then the
     * average (apo__cvi_ema_step's operations, the sum and the average in one vector). */
    apo_tv e = zero, lagged = zero;
    size_t seen[2] = {0, 0}, step = 0; /* E's and the copy's: n[0 .. 1] */
    for (; step < ln.steps; step++) {
        const apo__cat_steady sd = seen[0] == p && seen[1] == p
                                       ? apo__cat_lanes_steady(&ln, tiles, step, NULL)
                                       : apo__cat_steady_none(step);
        if (sd.to > step) {
            const size_t next = apo__cvi_steady_lanes(io, &ln, step, &sd, k, &e, &lagged);
            if (next > step) {
                step = next - 1; /* the loop's top takes `next` */
                continue;
            }
        }
        const apo_tv range = apo__cat_lanes_load(io->in[0], &ln, step, 0) -
                             apo__cat_lanes_load(io->in[1], &ln, step, 0);
        if (!apo_tv_all_finite(range))
            break;
        const int lags = step >= r;
        apo_tv range_back = zero;
        if (lags) {
            range_back = apo__cat_lanes_load(io->in[0], &ln, step, r) -
                         apo__cat_lanes_load(io->in[1], &ln, step, r);
            if (!apo_tv_all_finite(range_back))
                break;
        }
        e = APO__EMA_STAGE_TV(e, range, seen[0], p, pd, k);
        seen[0] += seen[0] < p;
        if (lags) {
            lagged = APO__EMA_STAGE_TV(lagged, range_back, seen[1], p, pd, k);
            seen[1] += seen[1] < p;
        }
        const apo_tv y = seen[0] == p && seen[1] == p ? apo__cvi_of_tv(e, lagged) : nan;
        apo__cat_lanes_store(io->out[0], &ln, tiles, step, y);
    }
    apo__cat_lanes_stop(&ln, step, seen, 2);
    /* The scalar run reads the sum before the seed is full and the average after: a lane's
     * vector is whichever of them the stage holds. */
    for (size_t j = 0; j < count; j++) {
        ln.run[j].v[0] = ln.run[j].v[1] = e[j];
        ln.run[j].v[2] = ln.run[j].v[3] = lagged[j];
        apo__cvi_run(io, tiles[j].begin, tiles[j].end, &ln.run[j]);
    }
}
#endif

APO_CAT_RUN_ENTRIES(cvi, apo__cvi_start(io, begin, r), apo__cvi_run(io, begin, end, r))

#endif /* APO_KERNELS_CVI_TILE_H */
