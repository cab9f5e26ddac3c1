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
 * Gaps (rsi's rule): a bar whose range is not finite gives NaN and E skips it (E at that bar is
 * its value before it); the seed is the mean of the first p finite ranges. Stream: NONE (a piece
 * re-runs its tile).
 */
#ifndef APO_KERNELS_CVI_TILE_H
#define APO_KERNELS_CVI_TILE_H

#include "adr_tile.h"
#include "catalog.h"
#include "ema_tile.h"
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

static inline APO_HD void apo__cvi_tile(const apo__cat_io *io, size_t begin, size_t end) {
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0], r = (size_t)io->p[1];
    const double k = 2.0 / ((double)p + 1.0);
    const size_t w0 = begin > io->h ? begin - io->h : 0;
    apo__cvi_ema now = {0, 0.0, 0.0}, lagged = {0, 0.0, 0.0};
#ifndef __CUDA_ARCH__
    size_t scanned_until = 0; /* bars before it: a block found with a gap, stepped one by one */
#endif
    for (size_t t = w0; t < end; t++) {
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
}

#endif /* APO_KERNELS_CVI_TILE_H */
