/*
 * wma_tile.h: WMA(timeperiod), TA-Lib's weighted moving average: the samples of the window
 * ending at t weighted 1 (oldest) .. p (newest), divided by p (p + 1) / 2.
 *
 * Tile: halo p - 1. Up to APO_PLAIN_MAX samples, W and S are slid in plain double between
 * anchors where they are evaluated afresh (window_plain.h): within A^2 eps / (p + 1) + (A + p)
 * eps of the window's largest sample (A the anchors' spacing, 64 or 512), at about a third of
 * the double-doubles' cost. Longer windows:
 * the weighted sum W and the plain sum S are double-doubles (dd.h), evaluated exactly at the tile's
 * first clean window and slid with W' = W - S + p x_new, S' = S - x_old + x_new (the product p
 * x_new exact by Dekker's product) with their rounding errors gathered beside them (apo__dd_slide,
 * window_sum.h), so they stay within the cascaded-summation bound of the exact sums over the tile.
 * The output is W rounded to a double over p (p + 1) / 2, within an ulp of the exact average. Gaps
 * as SMA (window.h). Positions t < p - 1 are NaN.
 */
#ifndef APO_KERNELS_WMA_TILE_H
#define APO_KERNELS_WMA_TILE_H

#include "run_entries.h"
#include "window.h"
#include "window_plain.h"
#include "window_sum.h"

/* The tile's start (apo__cat_run: n[0] the position after the last gap, n[1] whether the
 * double-doubles v[0] + v[1] (S) and v[2] + v[3] (W) are the last window's; up to
 * APO_PLAIN_MAX, v[0] and v[1] the plain S and W, window_plain.h). */
static inline APO_HD void apo__wma_start(const apo__cat_io *io, size_t begin, apo__cat_run *r) {
    apo__window_start(io, 1, (size_t)io->p[0], begin, r);
}

/* The clean windows t .. e - 1 of apo__wma_run, a block (window_sum.h) whose window before t
 * was clean and slid into s and w: returns both slid over it; the same operations as the loop's,
 * sample by sample, so the same bits. W's step k takes out the sum S before step k, so S is slid
 * first. */
static inline APO_HD apo__dd_pair apo__wma_block(const double *x, size_t p, size_t t, size_t e,
                                                 apo__dd s, apo__dd w, double *out) {
    const size_t n = e - t;
    const double pd = (double)p, denom = pd * (pd + 1.0) / 2.0;
    const apo__dd s0 = s;
    apo__dd_block bs, bw, before;
    s = apo__dd_block_window_sum(s0, x, p, t, e, &bs);
    apo__dd_block_before(&bs, s0, n, &before);
    for (size_t k = 0; k < n; k++)
        apo__dd_block_step_dd(&bw, k, apo__two_prod(pd, x[t + k]),
                              apo__dd_make(before.h[k], before.l[k]));
    w = apo__dd_block_slide(w, &bw, t, n, 1);
    for (size_t k = 0; k < n; k++)
        out[t + k] = (bw.h[k] + bw.l[k]) / denom;
    return apo__dd_pair_of(s, w);
}

/* The loop from r->t to end. */
static inline APO_HD void apo__wma_run(const apo__cat_io *io, size_t end, apo__cat_run *r) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    if (p <= APO_PLAIN_MAX) {
        apo__plain_run(x, p, 1, end, out, r);
        return;
    }
    const double pd = (double)p, denom = pd * (pd + 1.0) / 2.0;
    size_t bad = r->n[0];
    int valid = r->n[1] != 0;
    apo__dd s = apo__window_sum(r, 0), w = apo__window_sum(r, 1);
    size_t plain_until = 0;
    for (size_t t = r->t; t < end; t++) {
        const size_t e = apo__clean_block_end(&x, 1, valid, t, end, &plain_until);
        if (e > t) {
            const apo__dd_pair sw = apo__wma_block(x, p, t, e, s, w, out);
            s = sw.a;
            w = sw.b;
            t = e - 1;
            continue;
        }
        if (!apo__window_step(isfinite(x[t]), out, t, p, &bad, &valid))
            continue;
        if (!valid) {
            s = apo__dd_sum(x, t + 1 - p, t + 1);
            w = apo__dd_make(0.0, 0.0);
            for (size_t i = 0; i < p; i++)
                w = apo__dd_add(w, apo__two_prod((double)(i + 1), x[t + 1 - p + i]));
            valid = 1;
        } else {
            w = apo__dd_slide_dd(w, apo__two_prod(pd, x[t]), s, t);
            s = apo__dd_slide(s, x[t], x[t - p], t);
        }
        out[t] = (w.hi + w.lo) / denom;
    }
    apo__window_keep(r, end, bad, valid);
    apo__window_keep_sum(r, 0, s);
    apo__window_keep_sum(r, 1, w);
}

/* wma's tile and stream (catalog_table.h, RUN): apo__wma_tile, apo__wma_stream_start and
 * apo__wma_stream_run, its start at `begin` and its run to `end`. */
APO_CAT_RUN_ENTRIES(wma, apo__wma_start(io, begin, r), apo__wma_run(io, end, r))

#endif /* APO_KERNELS_WMA_TILE_H */
