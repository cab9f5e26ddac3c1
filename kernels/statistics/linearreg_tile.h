/*
 * linearreg_tile.h: LINEARREG, LINEARREG_SLOPE, LINEARREG_INTERCEPT, TSF and LINEARREG_ANGLE
 * (timeperiod), TA-Lib's least-squares line through the p samples ending at t against their bar
 * index: its value at t, its slope per bar, its value at the window's first bar and at t + 1 (the
 * forecast), and its slope's angle in degrees.
 *
 * Definition: with the window's samples y_j at j = 0 (oldest) .. p-1 (newest), S = sum y_j
 * and W = sum j y_j, the slope is (W - ((p-1)/2) S) / (p (p^2 - 1) / 12) and the value at t
 * is S / p + slope (p-1)/2, the mean plus the slope times the distance from the window's
 * middle to its end.
 *
 * Tile: halo p - 1. Up to APO_LINEARREG_DIRECT_MAX samples each output is its window's
 * weighted sum (linearreg_direct.h): within about 3 p eps of the window's largest |y| (the
 * slope: of that over p), with no state. Up to APO_LINREG_PLAIN_MAX the window's sums, shifted
 * by one of its samples, slide in plain double between anchors (linearreg_plain.h: within
 * 2.5e-13 of those scales, a first-order bound). Longer windows: S and W are double-doubles (dd.h),
 * evaluated exactly at the first clean window and slid with W' = W - S + y_old + (p-1) y_new and S'
 * = S - y_old + y_new, their rounding errors gathered beside them (apo__dd_slide, window_sum.h:
 * within the cascaded-summation bound over the tile), so the numerator, which cancels (W is about
 * (p-1)/2 S), keeps its digits; it is then rounded to a double and divided, within an ulp
 * of the exact slope. Gaps as SMA
 * (window.h). Positions t < p - 1 are NaN.
 */
#ifndef APO_KERNELS_LINEARREG_TILE_H
#define APO_KERNELS_LINEARREG_TILE_H

#include "linearreg_direct.h"
#include "linearreg_plain.h"
#include "run_entries.h"
#include "window.h"
#include "window_sum.h"

/* The slope of a window from its settled S (ss) and its slid W. */
static inline APO_HD double apo__linearreg_slope(apo__dd ss, apo__dd w, size_t p) {
    const double pd = (double)p, half = (pd - 1.0) / 2.0;
    const double denom = pd * (pd * pd - 1.0) / 12.0;
    /* (p-1)/2 S exactly: the half-integer times each part of S. */
    const apo__dd hs = apo__dd_add(apo__two_prod(half, ss.hi), apo__two_prod(half, ss.lo));
    return apo__dd_add(apo__dd_settle(w), apo__dd_neg(hs)).hi / denom;
}

/* The line's value (the `what` of linearreg_direct.h) from its settled S (ss) and its slope: the
 * mean plus the slope times the distance from the window's middle to the bar it is taken at, a
 * half-integer, so the product is exact. */
static inline APO_HD double apo__linearreg_value(apo__dd ss, double slope, size_t p, int what) {
    const double pd = (double)p;
    const double at = what == APO_LINREG_INTERCEPT ? -((pd - 1.0) / 2.0)
                      : what == APO_LINREG_TSF     ? (pd + 1.0) / 2.0
                                                   : (pd - 1.0) / 2.0;
    return apo__dd_add(apo__dd_div_d(ss, pd), apo__two_prod(slope, at)).hi;
}

/* The clean windows t .. e - 1 of apo__linearreg_run, a block (window_sum.h) whose window
 * before t was clean and slid into s and w: returns both slid over it; the same operations as the
 * loop's, sample by sample, so the same bits. W's step k takes out the sum S before step k, so S is
 * slid first. */
static inline APO_HD apo__dd_pair apo__linearreg_block(const double *x, size_t p, int what,
                                                       size_t t, size_t e, apo__dd s, apo__dd w,
                                                       double *out) {
    const size_t n = e - t;
    const double pd = (double)p;
    const apo__dd s0 = s;
    apo__dd_block bs, bw, before;
    s = apo__dd_block_window_sum(s0, x, p, t, e, &bs);
    apo__dd_block_before(&bs, s0, n, &before);
    for (size_t k = 0; k < n; k++)
        apo__dd_block_step_dd(&bw, k,
                              apo__dd_add_d(apo__two_prod(pd - 1.0, x[t + k]), x[t + k - p]),
                              apo__dd_make(before.h[k], before.l[k]));
    w = apo__dd_block_slide(w, &bw, t, n, 1);
    double slope[APO_DD_FOLD];
    for (size_t k = 0; k < n; k++)
        slope[k] =
            apo__linearreg_slope(apo__dd_block_sum(&bs, k), apo__dd_make(bw.h[k], bw.l[k]), p);
    if (what == APO_LINREG_ANGLE)
        for (size_t k = 0; k < n; k++)
            slope[k] = apo__linreg_finish(slope[k], what);
    else if (what != APO_LINREG_SLOPE)
        for (size_t k = 0; k < n; k++)
            slope[k] = apo__linearreg_value(apo__dd_block_sum(&bs, k), slope[k], p, what);
    for (size_t k = 0; k < n; k++)
        out[t + k] = apo__canonical_nan(slope[k]);
    return apo__dd_pair_of(s, w);
}

static inline APO_HD void apo__linearreg_run(const apo__cat_io *io, size_t end, int what,
                                             apo__cat_run *r) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    if (p <= APO_LINEARREG_DIRECT_MAX) {
        apo__linreg_direct_run(x, p, what, end, out, r);
        return;
    }
    if (p <= APO_LINREG_PLAIN_MAX) {
        apo__linreg_plain_run(x, p, what, end, out, r);
        return;
    }
    const double pd = (double)p;
    size_t bad = r->n[0];
    int valid = r->n[1] != 0;
    apo__dd s = apo__window_sum(r, 0), w = apo__window_sum(r, 1);
    size_t plain_until = 0;
    for (size_t t = r->t; t < end; t++) {
        const size_t e = apo__clean_block_end(&x, 1, valid, t, end, &plain_until);
        if (e > t) {
            const apo__dd_pair sw = apo__linearreg_block(x, p, what, t, e, s, w, out);
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
            for (size_t j = 1; j < p; j++)
                w = apo__dd_add(w, apo__two_prod((double)j, x[t + 1 - p + j]));
            valid = 1;
        } else {
            const double old = x[t - p];
            w = apo__dd_slide_dd(w, apo__dd_add_d(apo__two_prod(pd - 1.0, x[t]), old), s, t);
            s = apo__dd_slide(s, x[t], old, t);
        }
        const apo__dd ss = apo__dd_settle(s);
        const double slope = apo__linearreg_slope(ss, w, p);
        out[t] = apo__canonical_nan(what == APO_LINREG_SLOPE || what == APO_LINREG_ANGLE
                                        ? apo__linreg_finish(slope, what)
                                        : apo__linearreg_value(ss, slope, p, what));
    }
    apo__window_keep(r, end, bad, valid);
    apo__window_keep_sum(r, 0, s);
    apo__window_keep_sum(r, 1, w);
}

/* The tile body of each output of the line and its stream (catalog_table.h, RUN; run_entries.h):
 * its start at `begin` and its run to `end`, one set for each kernel of the family, which differ
 * in `what` alone. */
#define APO__LINREG_KERNEL(name, what)                                                             \
    APO_CAT_RUN_ENTRIES(name, apo__window_start(io, 1, (size_t)io->p[0], begin, r),                \
                        apo__linearreg_run(io, end, what, r))

APO__LINREG_KERNEL(linearreg, APO_LINREG_VALUE)
APO__LINREG_KERNEL(linearreg_slope, APO_LINREG_SLOPE)
APO__LINREG_KERNEL(linearreg_intercept, APO_LINREG_INTERCEPT)
APO__LINREG_KERNEL(tsf, APO_LINREG_TSF)
APO__LINREG_KERNEL(linearreg_angle, APO_LINREG_ANGLE)

#endif /* APO_KERNELS_LINEARREG_TILE_H */
