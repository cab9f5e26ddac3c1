/*
 * sma_tile.h: SMA(timeperiod), the mean of the `p` samples ending at t (TA-Lib's SMA).
 *
 * Tile: halo p - 1. Up to APO_PLAIN_MAX samples the window sum is slid in plain double
 * between anchors where it is evaluated afresh (window_plain.h): within (A + p) eps of the
 * window's largest sample (A the anchors' spacing, 64 or 512), at about a third of the
 * double-doubles' cost. Longer windows:
 * the window sum is a double-double (dd.h): summed exactly at the tile's
 * first clean window, then slid by the difference of the new sample and the old one with the
 * rounding errors gathered beside the running sum (apo__dd_slide, window_sum.h), so it
 * stays within the cascaded-summation bound (about n^2 2^-106 of the data's scale over n
 * steps) of the exact sum over the whole tile; the mean is that sum
 * rounded to a double and divided by p, two roundings, so within an ulp of the exact mean
 * (a double-double quotient would halve that at several times the cost per sample: its
 * dependent chain is long enough to hold the loop back). A window
 * holding a non-finite sample gives NaN and the next clean window is summed afresh
 * (window.h). Positions t < p - 1 are NaN.
 */
#ifndef APO_KERNELS_SMA_TILE_H
#define APO_KERNELS_SMA_TILE_H

#include "run_entries.h"
#include "window.h"
#include "window_plain.h"
#include "window_sum.h"

/* The tile's start (apo__cat_run: n[0] the position after the last gap, n[1] whether v[0] +
 * v[1], the double-double window sum, is the last window's; up to APO_PLAIN_MAX, v[0] the
 * plain sum, window_plain.h). */
static inline APO_HD void apo__sma_start(const apo__cat_io *io, size_t begin, apo__cat_run *r) {
    const size_t p = (size_t)io->p[0];
    r->t = begin;
    r->n[0] = apo__last_gap(io->in, 1, apo__window_from(begin, p), begin);
    r->n[1] = 0;
    r->v[0] = 0.0;
    r->v[1] = 0.0;
}

/* The clean windows t .. e - 1 of apo__window_dd_run, a block (window_sum.h) whose window before t
 * was clean and slid into s: returns s slid over it; the same operations as the loop's, sample by
 * sample, so the same bits; each output is the sum divided by pd. */
static inline APO_HD apo__dd apo__sma_block(const double *x, size_t p, size_t t, size_t e,
                                            apo__dd s, double pd, double *out) {
    apo__dd_block b;
    s = apo__dd_block_window_sum(s, x, p, t, e, &b);
    for (size_t k = 0; k < e - t; k++)
        out[t + k] = (b.h[k] + b.l[k]) / pd;
    return s;
}

/* The double-doubles' loop from r->t to end, each output the window's sum divided by pd (p for
 * the mean; 1 for SUM, transforms/sum_tile.h, whose quotient is the sum itself). */
static inline APO_HD void apo__window_dd_run(const apo__cat_io *io, size_t end, double pd,
                                             apo__cat_run *r) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    size_t bad = r->n[0];
    int valid = r->n[1] != 0;
    apo__dd s = apo__window_sum(r, 0);
    size_t plain_until = 0;
    for (size_t t = r->t; t < end; t++) {
        const size_t e = apo__clean_block_end(&x, 1, valid, t, end, &plain_until);
        if (e > t) {
            s = apo__sma_block(x, p, t, e, s, pd, out);
            t = e - 1;
            continue;
        }
        if (!apo__window_step(isfinite(x[t]), out, t, p, &bad, &valid))
            continue;
        if (!valid) {
            s = apo__dd_sum(x, t + 1 - p, t + 1);
            valid = 1;
        } else {
            s = apo__dd_slide(s, x[t], x[t - p], t);
        }
        out[t] = (s.hi + s.lo) / pd;
    }
    apo__window_keep(r, end, bad, valid);
    apo__window_keep_sum(r, 0, s);
}

/* The loop from r->t to end. */
static inline APO_HD void apo__sma_run(const apo__cat_io *io, size_t end, apo__cat_run *r) {
    const size_t p = (size_t)io->p[0];
    if (p <= APO_PLAIN_MAX) {
        apo__plain_run(io->in[0], p, 0, end, io->out[0], r);
        return;
    }
    apo__window_dd_run(io, end, (double)p, r);
}

/* sma's tile and stream (catalog_table.h, RUN): apo__sma_tile, apo__sma_stream_start and
 * apo__sma_stream_run, its start at `begin` and its run to `end`. */
APO_CAT_RUN_ENTRIES(sma, apo__sma_start(io, begin, r), apo__sma_run(io, end, r))

#endif /* APO_KERNELS_SMA_TILE_H */
