/*
 * correl_tile.h: CORREL(timeperiod), TA-Lib's Pearson correlation of the p pairs (x, y)
 * ending at t. Inputs x, y (TA-Lib's real0, real1).
 *
 * Definition: cov / sqrt(var_x var_y) with the centred sums of the window; 0 where either
 * series is constant in the window (TA-Lib gives 0 where var_x var_y is below 1e-8 in
 * magnitude instead).
 *
 * Tile: halo p - 1. Periods up to APO_PAIR_DIRECT_MAX evaluate each window from its own
 * samples (apo__correl_direct: the centred moments of pair_direct.h, two passes shifted by the
 * window's newest pair), each output a pure function of its window. Longer periods slide the
 * five sums as double-doubles (pair_sums.h), evaluated exactly at the first clean window and
 * slid with their errors gathered beside them (apo__pair_slide: the cascaded-summation bound
 * of window_sum.h), so the centred sums keep their digits. Either way a constant series in
 * the window is detected exactly, so its variance is 0 and never a rounding residue. The square
 * roots are taken apart (sqrt(var_x) * sqrt(var_y)), so their product cannot overflow. Gaps in
 * either input as SMA (window.h).
 */
#ifndef APO_KERNELS_CORREL_TILE_H
#define APO_KERNELS_CORREL_TILE_H

#include "catalog.h"
#include "pair_direct.h"
#include "pair_sums.h"
#include "window.h"

/* The bars begin .. end - 1 of a correl tile evaluated directly (p <= APO_PAIR_DIRECT_MAX):
 * NaN where a sample of the window is not finite (its series' sum of squares is NaN), else 0
 * where either series is constant in the window, else the quotient. */
static inline APO_HD void apo__correl_direct(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0], *y = io->in[1];
    const size_t p = (size_t)io->p[0];
    double *out = io->out[0];
    size_t t = apo__pair_warm_up(out, begin, end, p - 1);
    apo__pair_moments m;
    while (t < end) {
        const size_t n = end - t < APO_VAR_BLOCK ? end - t : APO_VAR_BLOCK;
        apo__pair_direct(x + t + 1 - p, y + t + 1 - p, p, 1.0 / (double)p, n, &m);
        /* The square roots in place (vectorised, apo__var_roots): a root is NaN, 0 or
         * positive exactly when its variance is. */
        apo__var_roots(m.vaa, n, 1.0);
        apo__var_roots(m.vbb, n, 1.0);
        for (size_t k = 0; k < n; k++) {
            const double sx = m.vaa[k], sy = m.vbb[k];
            const int gap = sx != sx || sy != sy;
            const int flat = m.moved_a[k] == 0 || m.moved_b[k] == 0 || !(sx > 0.0 && sy > 0.0);
            const double r = flat ? 0.0 : apo__canonical_nan(m.vab[k] / (sx * sy));
            out[t + k] = gap ? NAN : r;
        }
        t += n;
    }
}

/* The clean windows t .. e - 1 of a correl tile, a block (window_sum.h) whose window before t
 * was clean and slid into s: the same operations as the tile's loop, sample by sample, so
 * the same bits. *cx and *cy as there. */
static inline APO_HD void apo__correl_block(const apo__cat_io *io, size_t t, size_t e,
                                            apo__pair_sums *s, size_t *cx, size_t *cy) {
    const double *x = io->in[0], *y = io->in[1];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0], n = e - t;
    const double pd = (double)p;
    apo__pair_block b;
    for (size_t k = 0; k < n; k++)
        apo__pair_block_step(&b, k, x[t + k], y[t + k], x[t + k - p], y[t + k - p]);
    apo__pair_block_slide(s, &b, t, n);
    double vx[APO_DD_FOLD], vy[APO_DD_FOLD], cv[APO_DD_FOLD];
    for (size_t k = 0; k < n; k++) {
        vx[k] = apo__pair_block_centred(&b.saa, &b.sa, &b.sa, k, pd);
        vy[k] = apo__pair_block_centred(&b.sbb, &b.sb, &b.sb, k, pd);
        cv[k] = apo__pair_block_centred(&b.sab, &b.sa, &b.sb, k, pd);
    }
    for (size_t k = 0; k < n; k++) {
        *cx = x[t + k] != x[t + k - 1] ? t + k + 1 : *cx;
        *cy = y[t + k] != y[t + k - 1] ? t + k + 1 : *cy;
        const int constant = *cx + p <= t + k + 2 || *cy + p <= t + k + 2;
        out[t + k] = !constant && vx[k] > 0.0 && vy[k] > 0.0
                         ? apo__canonical_nan(cv[k] / (sqrt(vx[k]) * sqrt(vy[k])))
                         : 0.0;
    }
}

/* The tile's start (apo__pair_run): its window's origin, last gap and last changes of x and y
 * before `begin`. */
static inline APO_HD void apo__correl_start(const apo__cat_io *io, size_t begin, apo__pair_run *r) {
    const double *x = io->in[0], *y = io->in[1];
    const size_t from = apo__window_from(begin, (size_t)io->p[0]);
    apo__pair_run_from(r, begin, from);
    r->bad = apo__last_gap(io->in, 2, from, begin);
    /* One past the last index k in (from, t] where x (cx) or y (cy) changed value. */
    size_t cx = 0, cy = 0;
    for (size_t k = from + 1; k < begin; k++) {
        if (x[k] != x[k - 1])
            cx = k + 1;
        if (y[k] != y[k - 1])
            cy = k + 1;
    }
    r->chg[0] = cx;
    r->chg[1] = cy;
}

/* The loop from r->t to end. The state is held in locals meanwhile, so that the loop's
 * stores to out cannot be taken to alias it. */
static inline APO_HD void apo__correl_run(const apo__cat_io *io, size_t end, apo__pair_run *r) {
    if ((size_t)io->p[0] <= APO_PAIR_DIRECT_MAX) {
        /* Each window from its own samples: the run's state is its position alone. */
        if (end > r->t) {
            apo__correl_direct(io, r->t, end);
            r->t = end;
        }
        return;
    }
    const double *x = io->in[0], *y = io->in[1];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0], from = r->from;
    const double pd = (double)p;
    size_t bad = r->bad, cx = r->chg[0], cy = r->chg[1];
    int valid = r->valid;
    apo__pair_sums s = r->s;
    size_t plain_until = 0;
    for (size_t t = r->t; t < end; t++) {
        const size_t e = apo__clean_block_end(io->in, 2, valid, t, end, &plain_until);
        if (e > t) {
            apo__correl_block(io, t, e, &s, &cx, &cy);
            t = e - 1;
            continue;
        }
        if (!apo__all_finite_at(io->in, 2, t))
            bad = t + 1;
        if (t > from && x[t] != x[t - 1])
            cx = t + 1;
        if (t > from && y[t] != y[t - 1])
            cy = t + 1;
        if (!apo__window_clean(t, p, bad)) {
            out[t] = NAN;
            valid = 0;
            continue;
        }
        if (!valid) {
            apo__pair_clear(&s);
            for (size_t i = t + 1 - p; i <= t; i++)
                apo__pair_add(&s, x[i], y[i], 1.0);
            valid = 1;
        } else {
            apo__pair_slide(&s, x[t], y[t], x[t - p], y[t - p], t);
        }
        /* A series is constant in the window when its last change is at or before the
         * window's first index (var_tile.h). */
        if (cx + p <= t + 2 || cy + p <= t + 2) {
            out[t] = 0.0;
            continue;
        }
        const double vx = apo__pair_centred(s.saa, s.sa, s.sa, pd);
        const double vy = apo__pair_centred(s.sbb, s.sb, s.sb, pd);
        const double cv = apo__pair_centred(s.sab, s.sa, s.sb, pd);
        out[t] = vx > 0.0 && vy > 0.0 ? apo__canonical_nan(cv / (sqrt(vx) * sqrt(vy))) : 0.0;
    }
    apo__pair_run_keep(r, end, bad, cx, cy, valid, &s);
}

static inline APO_HD void apo__correl_tile(const apo__cat_io *io, size_t begin, size_t end) {
    if ((size_t)io->p[0] <= APO_PAIR_DIRECT_MAX) {
        apo__correl_direct(io, begin, end);
        return;
    }
    apo__pair_run r;
    apo__correl_start(io, begin, &r);
    apo__correl_run(io, end, &r);
}

#endif /* APO_KERNELS_CORREL_TILE_H */
