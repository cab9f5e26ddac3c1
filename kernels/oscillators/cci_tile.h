/*
 * cci_tile.h: CCI(timeperiod), TA-Lib's commodity channel index. Inputs high, low, close.
 *
 * Definition: the typical price tp = (high + low + close) / 3 (TA-Lib's order); over the
 * window of p bars ending at t, its mean m and mean absolute deviation
 * md = sum |tp - m| / p; CCI = (tp[t] - m) / (0.015 * md), 0 where tp[t] = m or md = 0
 * (TA-Lib's rule).
 *
 * Tile: halo p - 1. The mean absolute deviation needs every tp of the window again for each
 * window, so the deviations are summed afresh for each window: O(p) per output, as in TA-Lib. The
 * sum of the typical prices is slid as SMA's (apo__dd_slide, window_sum.h), summed afresh
 * at the tile's first clean window and after a gap, and both sums gather their rounding
 * errors beside the running double (the cascaded-summation bound of window_sum.h) and are
 * divided by p in double-double (dd.h). A window holding a gap in any input gives NaN
 * (window.h).
 */
#ifndef APO_KERNELS_CCI_TILE_H
#define APO_KERNELS_CCI_TILE_H

#include "run_entries.h"
#include "window.h"
#include "window_sum.h"

/* The longest window the blocks take (apo__cci_block): its typical prices sit in a stack
 * scratch of APO_DD_FOLD + APO_CCI_BLOCK_MAX doubles. A longer window takes the loop's own
 * steps, which compute each typical price p times: at period 200, when the blocks stopped
 * at 64, cci ran at 0.74 of TA-Lib's speed (docs/PERF.md). A GPU thread keeps the smaller
 * scratch of local memory. */
#ifdef __CUDA_ARCH__
#define APO_CCI_BLOCK_MAX 64
#else
#define APO_CCI_BLOCK_MAX 512
#endif

/* The clean windows t .. e - 1 of apo__cci_run, a block (window_sum.h) whose window before t
 * was clean and slid into s, for p <= APO_CCI_BLOCK_MAX: returns s slid over it; the same
 * operations as the loop's, sample by sample, so the same bits. The typical prices of the block's
 * windows are computed once (the loop computes each p times), and the deviations of the block's
 * windows are gathered side by side: for each offset j in the window, one step of every window's
 * sum, a loop across windows that vectorises, where each window's own loop is a serial chain. */
static inline APO_HD apo__dd apo__cci_block(const apo__cat_io *io, size_t t, size_t e, apo__dd s) {
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0], n = e - t, first = t + 1 - p;
    const double pd = (double)p;
    double tp[APO_DD_FOLD + APO_CCI_BLOCK_MAX];
    for (size_t i = 0; i < n + p - 1; i++)
        tp[i] = apo__typical(io, first + i);
    /* Window k (ending at t + k) holds tp[k .. k + p); the sample leaving it is tp[k - 1],
     * before the block for k = 0. */
    apo__dd_block b;
    apo__dd_block_step(&b, 0, tp[p - 1], apo__typical(io, t - p));
    for (size_t k = 1; k < n; k++)
        apo__dd_block_step(&b, k, tp[k + p - 1], tp[k - 1]);
    s = apo__dd_block_slide(s, &b, t, n, 0);
    double m[APO_DD_FOLD], dev_hi[APO_DD_FOLD], dev_lo[APO_DD_FOLD];
    for (size_t k = 0; k < n; k++) {
        m[k] = apo__dd_div_d(apo__dd_block_sum(&b, k), pd).hi;
        dev_hi[k] = 0.0;
        dev_lo[k] = 0.0;
    }
    for (size_t j = 0; j < p; j++) {
        /* apo__dd_gather at sample first + k + j, its fold apart: at most one window of
         * the block folds at this offset. */
        for (size_t k = 0; k < n; k++) {
            const apo__dd a = apo__two_sum(dev_hi[k], fabs(tp[k + j] - m[k]));
            dev_hi[k] = a.hi;
            dev_lo[k] = dev_lo[k] + a.lo;
        }
        const size_t fold_k = (APO_DD_FOLD - (first + j) % APO_DD_FOLD) % APO_DD_FOLD;
        if (fold_k < n) {
            const apo__dd f = apo__two_sum(dev_hi[fold_k], dev_lo[fold_k]);
            dev_hi[fold_k] = f.hi;
            dev_lo[fold_k] = f.lo;
        }
    }
    for (size_t k = 0; k < n; k++) {
        const double md = apo__dd_div_d(apo__dd_settle(apo__dd_make(dev_hi[k], dev_lo[k])), pd).hi;
        const double d = tp[k + p - 1] - m[k];
        out[t + k] = d != 0.0 && md != 0.0 ? apo__canonical_nan(d / (0.015 * md)) : 0.0;
    }
    return s;
}

/* The loop from r->t to end, after apo__window_start over the 3 inputs (apo__cat_run: n[0]
 * the last gap, n[1] whether v[0] + v[1], the double-double sum of the typical prices, is
 * the last window's). */
static inline APO_HD void apo__cci_run(const apo__cat_io *io, size_t end, apo__cat_run *r) {
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const double pd = (double)p;
    size_t bad = r->n[0];
    int valid = r->n[1] != 0;
    apo__dd s = apo__window_sum(r, 0);
    size_t plain_until = 0;
    for (size_t t = r->t; t < end; t++) {
        /* Blocks only for windows that fit the block's scratch (apo__cci_block). */
        const size_t e = p <= APO_CCI_BLOCK_MAX
                             ? apo__clean_block_end(io->in, 3, valid, t, end, &plain_until)
                             : t;
        if (e > t) {
            s = apo__cci_block(io, t, e, s);
            t = e - 1;
            continue;
        }
        if (!apo__window_step(apo__all_finite_at(io->in, 3, t), out, t, p, &bad, &valid))
            continue;
        const double tp = apo__typical(io, t);
        if (!valid) {
            s = apo__dd_make(0.0, 0.0);
            for (size_t i = t + 1 - p; i <= t; i++)
                s = apo__dd_gather(s, apo__typical(io, i), i);
            valid = 1;
        } else {
            s = apo__dd_slide(s, tp, apo__typical(io, t - p), t);
        }
        const double m = apo__dd_div_d(apo__dd_settle(s), pd).hi;
        apo__dd dev = apo__dd_make(0.0, 0.0);
        for (size_t i = t + 1 - p; i <= t; i++)
            dev = apo__dd_gather(dev, fabs(apo__typical(io, i) - m), i);
        const double md = apo__dd_div_d(apo__dd_settle(dev), pd).hi;
        const double d = tp - m;
        out[t] = d != 0.0 && md != 0.0 ? apo__canonical_nan(d / (0.015 * md)) : 0.0;
    }
    apo__window_keep(r, end, bad, valid);
    apo__window_keep_sum(r, 0, s);
}

/* cci's tile and stream (catalog_table.h, RUN): apo__cci_tile, apo__cci_stream_start and
 * apo__cci_stream_run, its start at `begin` and its run to `end`. */
APO_CAT_RUN_ENTRIES(cci, apo__window_start(io, 3, (size_t)io->p[0], begin, r),
                    apo__cci_run(io, end, r))

#endif /* APO_KERNELS_CCI_TILE_H */
