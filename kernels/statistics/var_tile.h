/*
 * var_tile.h: VAR(timeperiod) and STDDEV(timeperiod, nbdev), TA-Lib's population variance
 * of the p samples ending at t, and its square root times nbdev; also ZSCORE's sums and
 * quotients (zscore_tile.h), which share the sliding design below at every period.
 *
 * Tile: halo p - 1, and apo__var_block_len(p) - 1 more where blocks run. Three designs, by the
 * period (docs/kernels.md "var"):
 *
 * Short windows (p <= APO_VAR_DIRECT_MAX) are evaluated directly, each from its own p
 * samples (var_direct.h): each output is a pure function of its window, so tiles, streams
 * and devices agree by construction, and the bars are independent, so the loops run across
 * bars in vector lanes. The relative error of the variance is about (p + 3) ulps (measured
 * 6e-16 at p = 5 on the tests' walks), where TA-Lib's running sums lose about mean^2 / var
 * ulps and grow with the series. The windows with a gap are NaN as SMA's are (window.h).
 *
 * Up to APO_VAR_BLOCKS_MAX, blocks of plain sums slid from a directly summed window, a bar
 * whose slide may have lost digits evaluated directly instead (var_blocks.h): each output
 * again a function of its data and index alone.
 *
 * Past it, and for ZSCORE at every period, the sums S1 = sum x and S2 = sum x^2 of the window
 * slide as double-doubles (dd.h; the squares exact by Dekker's product), evaluated exactly at
 * the tile's first clean window and slid with their rounding errors gathered beside them
 * (apo__dd_slide, window_sum.h: within about m^2 2^-106 of the data's scale after m steps);
 * S2 - S1^2 / p
 * is formed in double-double too, then rounded and divided by p, so the cancellation of
 * E[x^2] - mean^2, which costs TA-Lib's running sums about mean^2 / var ulps, costs here
 * about that many times m^2 2^-106 (2^-82 for a tile of 4096 steps) and an ulp: invisible
 * in double unless the window's spread is below about 1e-12 of its mean. A constant window (no
 * change of value inside it, tracked exactly) gives var 0 exactly; a negative rounding is clamped
 * to 0. Gaps as SMA (window.h). Positions t < p - 1 are NaN.
 */
#ifndef APO_KERNELS_VAR_TILE_H
#define APO_KERNELS_VAR_TILE_H

#include "run_entries.h"
#include "tile_vec.h"
#include "var_blocks.h"
#include "var_direct.h"
#include "window.h"
#include "window_sum.h"

/* VAR and STDDEV up to APO_VAR_BLOCKS_MAX, whose outputs are functions of their data and index
 * alone: each window evaluated directly, or in blocks. */
static inline APO_HD void apo__var_by_position(const double *x, size_t p, double nbdev,
                                               size_t begin, size_t end, double *out_var,
                                               double *out_sd) {
    if (p <= APO_VAR_DIRECT_MAX)
        apo__var_direct(x, p, nbdev, begin, end, out_var, out_sd);
    else
        apo__var_blocks(x, p, nbdev, begin, end, out_var, out_sd);
}

/* The tile's start of var, stddev and zscore (apo__cat_run: n[0] the last gap, n[1] whether
 * the double-doubles v[0] + v[1] (S1) and v[2] + v[3] (S2) are the last window's, n[2] one
 * past the last change of value, n[3] the first sample the tile reads). */
static inline APO_HD void apo__moments_start(const double *x, size_t p, size_t begin,
                                             apo__cat_run *r) {
    const size_t from = apo__window_from(begin, p);
    const double *const in[1] = {x};
    apo__cat_run_from(r, begin);
    r->n[0] = apo__last_gap(in, 1, from, begin);
    /* One past the last index k in (from, t] with x[k] != x[k-1]: the window of t is
     * constant when no such k lies inside it. */
    size_t chg = 0;
    for (size_t k = from + 1; k < begin; k++)
        if (x[k] != x[k - 1])
            chg = k + 1;
    r->n[2] = chg;
    r->n[3] = from;
}

/* ZSCORE's deviation x - S1 / p of the sample x, S1 its window's settled sum: in
 * double-double, so that a sample within 1e-6 sd of its mean keeps its digits. */
static inline APO_HD double apo__zscore_deviation(apo__dd s1, double pd, double x) {
    return apo__dd_add_d(apo__dd_neg(apo__dd_div_d(s1, pd)), x).hi;
}

/* ZSCORE from the deviation and the variance (0 for a constant window): 0 where the variance
 * is 0, the sample then being the mean. */
static inline APO_HD double apo__zscore_of(double dev, double var) {
    return var > 0.0 ? dev / sqrt(var) : 0.0;
}

/* out[k] = the ZSCORE of dev[k] and var[k] for k < n (apo__zscore_of), NaN as the NAN
 * constant: in lanes where the path has them, since the compiler does not widen the scalar
 * loop's square root (a libm call that may set errno): a 1e4-bar call took 126 us with the
 * scalar loop, 99 with the lanes (docs/perf-log/2026-11-25-catalog-round-7.md, "zscore and vwap").
 * The same operations lane for lane, so the same bits. */
static inline APO_HD void apo__zscore_out(const double *dev, const double *var, size_t n,
                                          double *out) {
    size_t k = 0;
#ifdef APO_TILE_LANES
    for (; k + APO_TILE_LANES <= n; k += APO_TILE_LANES) {
        const apo_tv v = apo_tv_load(var + k), d = apo_tv_load(dev + k);
        const apo_tv z = apo_tv_pick((apo_tm)(v > 0.0), d / apo_tv_sqrt(v), apo_tv_splat(0.0));
        apo_tv_store(out + k, apo_tv_pick((apo_tm)(z == z), z, apo_tv_splat(NAN)));
    }
#endif
    for (; k < n; k++)
        out[k] = apo__canonical_nan(apo__zscore_of(dev[k], var[k]));
}

/* The clean windows t .. e - 1 of apo__var_run, a block (window_sum.h) whose window before t
 * was clean and slid into s1 and s2: slides both, tracks *chg, writes the outputs, and
 * returns S1 and S2. The same operations as the loop's, sample by sample, so the same bits. */
static inline APO_HD apo__dd_pair apo__var_block(const double *x, size_t p, double nbdev, size_t t,
                                                 size_t e, apo__dd s1, apo__dd s2, size_t *chg,
                                                 double *out_var, double *out_sd, double *out_z) {
    const size_t n = e - t;
    const double pd = (double)p;
    apo__dd_block b1, b2;
    for (size_t k = 0; k < n; k++) {
        const double in = x[t + k], old = x[t + k - p];
        apo__dd_block_step(&b1, k, in, old);
        apo__dd_block_step_dd(&b2, k, apo__two_prod(in, in), apo__two_prod(old, old));
    }
    const apo__dd_pair slid = apo__dd_block_slide_two(s1, &b1, 0, s2, &b2, 1, t, n);
    s1 = slid.a;
    s2 = slid.b;
    /* The variances, then 0 where the window is constant (the loop's test of chg). */
    double var[APO_DD_FOLD], dev[APO_DD_FOLD];
    for (size_t k = 0; k < n; k++) {
        const apo__dd a1 = apo__dd_block_sum(&b1, k);
        const apo__dd m2 = apo__dd_add(apo__dd_block_sum(&b2, k),
                                       apo__dd_neg(apo__dd_div_d(apo__dd_mul(a1, a1), pd)));
        const double v = m2.hi / pd;
        var[k] = v > 0.0 ? v : 0.0;
    }
    if (out_z != NULL)
        for (size_t k = 0; k < n; k++)
            dev[k] = apo__zscore_deviation(apo__dd_block_sum(&b1, k), pd, x[t + k]);
    size_t c = *chg;
    for (size_t k = 0; k < n; k++) {
        c = x[t + k] != x[t + k - 1] ? t + k + 1 : c;
        var[k] = c + p > t + k + 2 ? var[k] : 0.0;
    }
    *chg = c;
    if (out_var != NULL)
        for (size_t k = 0; k < n; k++)
            out_var[t + k] = apo__canonical_nan(var[k]);
    if (out_sd != NULL)
        for (size_t k = 0; k < n; k++)
            out_sd[t + k] = apo__canonical_nan(sqrt(var[k]) * nbdev);
    if (out_z != NULL)
        apo__zscore_out(dev, var, n, out_z + t);
    return apo__dd_pair_of(s1, s2);
}

/* The loop from r->t to end: the variance into out_var, sqrt(var) * nbdev into out_sd and
 * ZSCORE into out_z (each NULL: not wanted). ZSCORE always slides: its deviation needs the
 * window's sum as a double-double, which the direct evaluation does not form. */
static inline APO_HD void apo__var_run(const double *x, size_t p, double nbdev, size_t end,
                                       double *out_var, double *out_sd, double *out_z,
                                       apo__cat_run *r) {
    if (p <= APO_VAR_BLOCKS_MAX && out_z == NULL) {
        /* Each window from its own samples or its block's: the run's state is its position
         * alone. */
        if (end > r->t) {
            apo__var_by_position(x, p, nbdev, r->t, end, out_var, out_sd);
            r->t = end;
        }
        return;
    }
    const size_t from = r->n[3];
    size_t bad = r->n[0];
    size_t chg = r->n[2];
    int valid = r->n[1] != 0;
    const double pd = (double)p;
    apo__dd s1 = apo__window_sum(r, 0), s2 = apo__window_sum(r, 1);
    size_t plain_until = 0;
    for (size_t t = r->t; t < end; t++) {
        const size_t e = apo__clean_block_end(&x, 1, valid, t, end, &plain_until);
        if (e > t) {
            const apo__dd_pair s =
                apo__var_block(x, p, nbdev, t, e, s1, s2, &chg, out_var, out_sd, out_z);
            s1 = s.a;
            s2 = s.b;
            t = e - 1;
            continue;
        }
        if (!isfinite(x[t]))
            bad = t + 1;
        if (t > from && x[t] != x[t - 1])
            chg = t + 1;
        if (!apo__window_clean(t, p, bad)) {
            if (out_var != NULL)
                out_var[t] = NAN;
            if (out_sd != NULL)
                out_sd[t] = NAN;
            if (out_z != NULL)
                out_z[t] = NAN;
            valid = 0;
            continue;
        }
        if (!valid) {
            s1 = apo__dd_sum(x, t + 1 - p, t + 1);
            s2 = apo__dd_sum_sq(x, t + 1 - p, t + 1);
            valid = 1;
        } else {
            s1 = apo__dd_slide(s1, x[t], x[t - p], t);
            s2 = apo__dd_slide_dd(s2, apo__two_prod(x[t], x[t]), apo__two_prod(x[t - p], x[t - p]),
                                  t);
        }
        double var = 0.0;
        const apo__dd a1 = apo__dd_settle(s1);
        if (chg + p > t + 2) {
            const apo__dd m2 = apo__dd_add(apo__dd_settle(s2),
                                           apo__dd_neg(apo__dd_div_d(apo__dd_mul(a1, a1), pd)));
            var = m2.hi / pd;
            var = var > 0.0 ? var : 0.0;
        }
        if (out_var != NULL)
            out_var[t] = apo__canonical_nan(var);
        if (out_sd != NULL)
            out_sd[t] = apo__canonical_nan(sqrt(var) * nbdev);
        if (out_z != NULL)
            out_z[t] = apo__canonical_nan(apo__zscore_of(apo__zscore_deviation(a1, pd, x[t]), var));
    }
    apo__window_keep(r, end, bad, valid);
    r->n[2] = chg;
    apo__window_keep_sum(r, 0, s1);
    apo__window_keep_sum(r, 1, s2);
}

static inline APO_HD void apo__var_body(const double *x, size_t p, double nbdev, size_t begin,
                                        size_t end, double *out_var, double *out_sd,
                                        double *out_z) {
    if (p <= APO_VAR_BLOCKS_MAX && out_z == NULL) {
        apo__var_by_position(x, p, nbdev, begin, end, out_var, out_sd);
        return;
    }
    apo__cat_run r;
    apo__moments_start(x, p, begin, &r);
    apo__var_run(x, p, nbdev, end, out_var, out_sd, out_z, &r);
}

static inline APO_HD void apo__var_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__var_body(io->in[0], (size_t)io->p[0], 1.0, begin, end, io->out[0], NULL, NULL);
}

static inline APO_HD void apo__stddev_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__var_body(io->in[0], (size_t)io->p[0], io->p[1], begin, end, NULL, io->out[0], NULL);
}

/* var's stream (catalog_table.h, RUN): apo__var_stream_start and apo__var_stream_run. */
APO_CAT_STREAM_ENTRIES(var, apo__moments_start(io->in[0], (size_t)io->p[0], begin, r),
                       apo__var_run(io->in[0], (size_t)io->p[0], 1.0, end, io->out[0], NULL, NULL,
                                    r))

/* stddev's stream (catalog_table.h, RUN): apo__stddev_stream_start and apo__stddev_stream_run. */
APO_CAT_STREAM_ENTRIES(stddev, apo__moments_start(io->in[0], (size_t)io->p[0], begin, r),
                       apo__var_run(io->in[0], (size_t)io->p[0], io->p[1], end, NULL, io->out[0],
                                    NULL, r))

#endif /* APO_KERNELS_VAR_TILE_H */
