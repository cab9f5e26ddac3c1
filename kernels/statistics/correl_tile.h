/*
 * correl_tile.h: CORREL(timeperiod), TA-Lib's Pearson correlation of the p pairs (x, y)
 * ending at t. Inputs x, y (TA-Lib's real0, real1).
 *
 * Definition: cov / sqrt(var_x var_y) with the centred sums of the window; 0 where either
 * series is constant in the window (TA-Lib gives 0 where var_x var_y is below 1e-8 in
 * magnitude instead).
 *
 * Design (docs/kernels.md "CORREL"). Up to APO_CORREL_DIRECT_MAX each bar is evaluated from
 * its own window (pair_direct.h's two passes). Then up to APO_CORREL_BLOCKS_MAX the bars are cut
 * into blocks of apo__correl_block_len(p) bars anchored to absolute positions
 * (shifted_blocks.h). A block's first window is summed directly, each series shifted by a value
 * near its mean, apo__shifted_center (five plain double sums: dx, dy, dx^2, dy^2, dx dy with
 * d = sample - c), and those sums are slid bar by bar to the block's end (O(1) a bar, as
 * TA-Lib's five sums). A running bound on the slide's rounding (apo__shifted_bounds,
 * shifted_blocks.h) says at each bar whether its centred sums keep the digits that an absolute
 * error of 2 APO_CORREL_MARGIN on r needs; where they may not (a nearly flat stretch after a jump,
 * a constant series, a gap, an overflow) the bar is evaluated from its own window instead
 * (pair_direct.h's two passes), which also gives a constant series' exact 0 and a gap's NaN.
 * Every output is so a function of its data and its absolute index alone: the same whatever
 * the tiles, streams or devices. Longer periods slide the five sums as double-doubles
 * (pair_sums.h), evaluated exactly at the first clean window and slid with their errors
 * gathered beside them (apo__pair_slide: the cascaded-summation bound of window_sum.h), a
 * constant series detected exactly by the last index where it changed. The square roots are
 * taken apart (sqrt(var_x) * sqrt(var_y)), so their product cannot overflow. Gaps in either
 * input as SMA (window.h).
 *
 * Tile: halo p - 1, and apo__correl_block_len(p) - 1 more up to APO_CORREL_BLOCKS_MAX, so that
 * a tile starting inside a block reaches the block's first window.
 */
#ifndef APO_KERNELS_CORREL_TILE_H
#define APO_KERNELS_CORREL_TILE_H

#include "pair_direct.h"
#include "pair_sums.h"
#include "shifted_blocks.h"
#include "window.h"

/* The longest period whose every bar is evaluated from its own window (pair_direct.h): up to
 * it the two passes cost less than a block (docs/PERF.md: 6.1 ns a bar at 5 against 13.4,
 * even near 11), the more so as short windows fall back often (1 bar in 8 at period 8). */
#define APO_CORREL_DIRECT_MAX 11

/* The longest period evaluated in blocks, var's (var_blocks.h): the direct sum of a block's
 * first window costs p / 64 pairs a bar past period 160, and its rounding grows as 3p / 8 ulps.
 * With blocks of 16 the limit was 512, past which the double-double slide (pair_sums.h) was
 * faster (16 ns a bar at 512 against its 34, 66 at 1000); in blocks of 64, 1024 runs at 0.83 of
 * TA-Lib's speed where the double-doubles run at 0.31 (docs/perf-log/2026-11-25-catalog-round-8.md,
 * "correl in blocks up to 1024"). */
#define APO_CORREL_BLOCKS_MAX 1024

/* The blocks' lengths: 16 bars below period 48, 32 below 160, then 64. A longer block sums
 * fewer windows directly (p / len pairs a bar), but its bound grows by 3 ulps a slid bar while
 * the walks drift from the block's shift, and the cancellation in sxx - sx^2 / p, which the
 * bound multiplies, grows with the drift: a bar falls back where either series' bound fails,
 * each about as often as var's (var_blocks.h), and correl's fallback costs two passes over the
 * window's pairs, so its blocks stay at 16 up to period 47. At 16 bars the two passes of a
 * direct sum cost about p / 16 pairs a bar: 512 / 16 kept period 512 at 0.6 of TA-Lib's
 * speed, now 64 bars (docs/perf-log/2026-11-25-catalog-round-8.md, "var and stddev in blocks"). */
static inline APO_HD size_t apo__correl_block_len(size_t p) {
    return p < 48 ? 16 : p < 160 ? 32 : 64;
}

/* The bound on the error of r that a slid bar may reach: half of each series' share (the
 * test's tolerance is 1e-12 absolute, correl lying in [-1, 1]). */
#define APO_CORREL_MARGIN 2.5e-13

/* The five sums of the windows of a block's bars (bar k of the block at index k), shifted by
 * the pair (cx, cy) of the block's first bar, and the running largest sums of squares. */
typedef struct apo__correl_sums {
    double sx[APO_SHIFTED_BLOCK_MAX_LEN], sy[APO_SHIFTED_BLOCK_MAX_LEN];
    double sxx[APO_SHIFTED_BLOCK_MAX_LEN], syy[APO_SHIFTED_BLOCK_MAX_LEN],
        sxy[APO_SHIFTED_BLOCK_MAX_LEN];
    double top_xx[APO_SHIFTED_BLOCK_MAX_LEN], top_yy[APO_SHIFTED_BLOCK_MAX_LEN];
} apo__correl_sums;

/* The five partial sums (dx, dy, dx^2, dy^2, dx dy) of one window, partial l at index l. */
typedef struct apo__correl_parts {
    double x[APO_PARTS], y[APO_PARTS], xx[APO_PARTS], yy[APO_PARTS], xy[APO_PARTS];
} apo__correl_parts;

/* Adds one sample's five shifted terms to partial l. */
static inline APO_HD void apo__correl_parts_add(apo__correl_parts *a, size_t l, double dx,
                                                double dy) {
    a->x[l] += dx;
    a->y[l] += dy;
    a->xx[l] += dx * dx;
    a->yy[l] += dy * dy;
    a->xy[l] += dx * dy;
}

/* The window's samples 0 .. r - 1 (r = p % 8) go one to a partial, partial l taking sample l
 * (added to 0.0, as every partial's first term); sample r + 8 j + l then goes to partial l.
 * One by one. */
static inline APO_HD void apo__correl_parts_scalar(const double *x, const double *y, size_t p,
                                                   double cx, double cy, apo__correl_parts *a) {
    const size_t r = p % APO_PARTS;
    for (size_t l = 0; l < APO_PARTS; l++)
        a->x[l] = a->y[l] = a->xx[l] = a->yy[l] = a->xy[l] = 0.0;
    for (size_t l = 0; l < r; l++)
        apo__correl_parts_add(a, l, x[l] - cx, y[l] - cy);
    for (size_t i = r; i < p; i += APO_PARTS)
        for (size_t l = 0; l < APO_PARTS; l++)
            apo__correl_parts_add(a, l, x[i + l] - cx, y[i + l] - cy);
}

#ifdef APO_TILE_LANES
/* The same in vector lanes (p >= 8, so the first 8 samples are the window's): each lane
 * performs what the scalar loop does for its partial, a lane past r of the first 8 samples
 * adding +0 to 0.0 where the scalar loop adds nothing (the same +0). */
static inline void apo__correl_parts_lanes(const double *x, const double *y, size_t p, double cx,
                                           double cy, apo__correl_parts *a) {
    enum { V = APO_PARTS / APO_TILE_LANES };
    static const int64_t lane_no[APO_PARTS] = {0, 1, 2, 3, 4, 5, 6, 7};
    const size_t r = p % APO_PARTS;
    const apo_tv zero = {0}, vcx = zero + cx, vcy = zero + cy;
    apo_tv ax[V], ay[V], axx[V], ayy[V], axy[V];
    for (size_t v = 0; v < V; v++) {
        apo_tm keep;
        memcpy(&keep, lane_no + v * APO_TILE_LANES, sizeof keep);
        keep = keep < (int64_t)r;
        const apo_tv dx = (apo_tv)((apo_tm)(apo_tv_load(x + v * APO_TILE_LANES) - vcx) & keep);
        const apo_tv dy = (apo_tv)((apo_tm)(apo_tv_load(y + v * APO_TILE_LANES) - vcy) & keep);
        ax[v] = zero + dx;
        ay[v] = zero + dy;
        axx[v] = zero + dx * dx;
        ayy[v] = zero + dy * dy;
        axy[v] = zero + dx * dy;
    }
    for (size_t i = r; i < p; i += APO_PARTS)
        for (size_t v = 0; v < V; v++) {
            const apo_tv dx = apo_tv_load(x + i + v * APO_TILE_LANES) - vcx;
            const apo_tv dy = apo_tv_load(y + i + v * APO_TILE_LANES) - vcy;
            ax[v] += dx;
            ay[v] += dy;
            axx[v] += dx * dx;
            ayy[v] += dy * dy;
            axy[v] += dx * dy;
        }
    for (size_t v = 0; v < V; v++) {
        apo_tv_store(a->x + v * APO_TILE_LANES, ax[v]);
        apo_tv_store(a->y + v * APO_TILE_LANES, ay[v]);
        apo_tv_store(a->xx + v * APO_TILE_LANES, axx[v]);
        apo_tv_store(a->yy + v * APO_TILE_LANES, ayy[v]);
        apo_tv_store(a->xy + v * APO_TILE_LANES, axy[v]);
    }
}
#endif

/* The five sums of the window x[0 .. p - 1], y[the same] shifted by (cx, cy) into bar 0 of
 * s. */
static APO_CAT_SPECIALISED APO_HD void apo__correl_window(const double *x, const double *y,
                                                          size_t p, double cx, double cy,
                                                          apo__correl_sums *s) {
    apo__correl_parts a;
#ifdef APO_TILE_LANES
    if (p >= APO_PARTS)
        apo__correl_parts_lanes(x, y, p, cx, cy, &a);
    else
#endif
        apo__correl_parts_scalar(x, y, p, cx, cy, &a);
    s->sx[0] = apo__parts_combine(a.x);
    s->sy[0] = apo__parts_combine(a.y);
    s->sxx[0] = apo__parts_combine(a.xx);
    s->syy[0] = apo__parts_combine(a.yy);
    s->sxy[0] = apo__parts_combine(a.xy);
}

/* Slides the sums of bar 0 to bars 1 .. n - 1 of the block starting at b, shifted by (cx, cy):
 * each bar adds its new pair's shifted terms less the terms of the pair leaving the window. The
 * terms of all bars first (a loop over the bars, which vectorises), then the five running sums. */
static inline APO_HD void apo__correl_slide(const double *x, const double *y, size_t b, size_t p,
                                            size_t n, double cx, double cy, apo__correl_sums *s) {
    double gx[APO_SHIFTED_BLOCK_MAX_LEN], gy[APO_SHIFTED_BLOCK_MAX_LEN],
        gxx[APO_SHIFTED_BLOCK_MAX_LEN], gyy[APO_SHIFTED_BLOCK_MAX_LEN],
        gxy[APO_SHIFTED_BLOCK_MAX_LEN];
    for (size_t k = 1; k < n; k++) {
        const double nx = x[b + k] - cx, ny = y[b + k] - cy;
        const double ox = x[b + k - p] - cx, oy = y[b + k - p] - cy;
        gx[k] = nx - ox;
        gy[k] = ny - oy;
        gxx[k] = nx * nx - ox * ox;
        gyy[k] = ny * ny - oy * oy;
        gxy[k] = nx * ny - ox * oy;
    }
    s->top_xx[0] = s->sxx[0];
    s->top_yy[0] = s->syy[0];
    for (size_t k = 1; k < n; k++) {
        s->sx[k] = s->sx[k - 1] + gx[k];
        s->sy[k] = s->sy[k - 1] + gy[k];
        s->sxx[k] = s->sxx[k - 1] + gxx[k];
        s->syy[k] = s->syy[k - 1] + gyy[k];
        s->sxy[k] = s->sxy[k - 1] + gxy[k];
        /* A NaN sum leaves the largest as it was; its centred sum is NaN and fails the bound. */
        s->top_xx[k] = s->sxx[k] > s->top_xx[k - 1] ? s->sxx[k] : s->top_xx[k - 1];
        s->top_yy[k] = s->syy[k] > s->top_yy[k - 1] ? s->syy[k] : s->top_yy[k - 1];
    }
}

/* r from bar k's moments in m (pair_direct.h) and their roots sx, sy: NaN where a sample of
 * the window is not finite (its series' sum of squares is NaN), else 0 where either series is
 * constant in the window, else the quotient. */
static inline APO_HD double apo__correl_quotient(const apo__pair_moments *m, size_t k, double sx,
                                                 double sy) {
    const int gap = sx != sx || sy != sy;
    const int flat = m->moved_a[k] == 0 || m->moved_b[k] == 0 || !(sx > 0.0 && sy > 0.0);
    const double r = flat ? 0.0 : apo__canonical_nan(m->vab[k] / (sx * sy));
    return gap ? NAN : r;
}

/* Bar t's r from its own window alone. */
static inline APO_HD double apo__correl_alone(const double *x, const double *y, size_t p,
                                              size_t t) {
    apo__pair_moments m;
    apo__pair_direct_block(x + t + 1 - p, y + t + 1 - p, p, 1.0 / (double)p, 0, 1, &m);
    return apo__correl_quotient(&m, 0, sqrt(m.vaa[0]), sqrt(m.vbb[0]));
}

/* The bars begin .. end - 1 of a short period's tile (p <= APO_CORREL_DIRECT_MAX), each from
 * its own window, the windows of APO_VAR_BLOCK bars at a time in vector lanes. */
static inline APO_HD void apo__correl_direct(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0], *y = io->in[1];
    const size_t p = (size_t)io->p[0];
    double *out = io->out[0];
    size_t t = apo__cat_nan_lead(out, begin, end, p - 1);
    apo__pair_moments m;
    while (t < end) {
        const size_t n = end - t < APO_VAR_BLOCK ? end - t : APO_VAR_BLOCK;
        apo__pair_direct(x + t + 1 - p, y + t + 1 - p, p, 1.0 / (double)p, n, &m);
        /* The square roots in place (vectorised, apo__var_roots): a root is NaN, 0 or
         * positive exactly when its variance is. */
        apo__var_roots(m.vaa, n, 1.0);
        apo__var_roots(m.vbb, n, 1.0);
        for (size_t k = 0; k < n; k++)
            out[t + k] = apo__correl_quotient(&m, k, m.vaa[k], m.vbb[k]);
        t += n;
    }
}

/* Bars from .. b + n - 1 of the block starting at b (n <= apo__correl_block_len(p)): the slid
 * sums' r where the bound allows it, else the bar's own window's. */
static inline APO_HD void apo__correl_block_out(const apo__cat_io *io, const double *e, size_t b,
                                                size_t from, size_t n) {
    const double *x = io->in[0], *y = io->in[1];
    const size_t p = (size_t)io->p[0];
    double *out = io->out[0];
    apo__correl_sums s;
    const size_t len = apo__correl_block_len(p);
    const double cx = apo__shifted_center(x, b, p, len), cy = apo__shifted_center(y, b, p, len);
    apo__correl_window(x + b + 1 - p, y + b + 1 - p, p, cx, cy, &s);
    apo__correl_slide(x, y, b, p, n, cx, cy, &s);
    const double inv_p = 1.0 / (double)p;
    double rx[APO_SHIFTED_BLOCK_MAX_LEN], ry[APO_SHIFTED_BLOCK_MAX_LEN],
        cov[APO_SHIFTED_BLOCK_MAX_LEN];
    int64_t ok[APO_SHIFTED_BLOCK_MAX_LEN];
    for (size_t k = 0; k < n; k++) {
        rx[k] = s.sxx[k] - s.sx[k] * s.sx[k] * inv_p;
        ry[k] = s.syy[k] - s.sy[k] * s.sy[k] * inv_p;
        cov[k] = s.sxy[k] - s.sx[k] * s.sy[k] * inv_p;
        ok[k] = (e[k] * s.top_xx[k] + APO_SHIFTED_TINY < APO_CORREL_MARGIN * rx[k]) &
                (e[k] * s.top_yy[k] + APO_SHIFTED_TINY < APO_CORREL_MARGIN * ry[k]);
    }
    /* The quotients of the block's bars rounded up to 8, in vector lanes where there are lanes
     * (a bar past n divides 0 by 1): garbage where a bar failed the bound, never read. */
    const size_t padded = (n + 7) / 8 * 8;
    for (size_t k = n; k < padded; k++) {
        rx[k] = ry[k] = 1.0;
        cov[k] = 0.0;
    }
    size_t k = 0;
#ifdef APO_TILE_LANES
    for (; k < padded; k += APO_TILE_LANES) {
        const apo_tv root_x = apo_tv_sqrt(apo_tv_load(rx + k));
        const apo_tv root_y = apo_tv_sqrt(apo_tv_load(ry + k));
        apo_tv_store(cov + k, apo_tv_load(cov + k) / (root_x * root_y));
    }
#endif
    for (; k < padded; k++)
        cov[k] = cov[k] / (sqrt(rx[k]) * sqrt(ry[k]));
    for (size_t k = from - b; k < n; k++)
        out[b + k] = ok[k] ? cov[k] : apo__correl_alone(x, y, p, b + k);
}

static inline APO_HD void apo__correl_blocks(const apo__cat_io *io, size_t begin, size_t end) {
    const size_t p = (size_t)io->p[0];
    size_t t = apo__cat_nan_lead(io->out[0], begin, end, p - 1);
    const size_t len = apo__correl_block_len(p);
    double e[APO_SHIFTED_BLOCK_MAX_LEN];
    apo__shifted_bounds(p, len, e);
    while (t < end) {
        const size_t b = apo__shifted_anchor(t, p, len);
        const size_t block_end = b - b % len + len;
        /* A whole block's loops get a constant count, which the compiler unrolls: with a
         * count it only knew at run time, period 30 ran 1.3 times slower. */
        if (block_end - b == len && block_end <= end && len == 16)
            apo__correl_block_out(io, e, b, t, 16);
        else if (block_end - b == len && block_end <= end && len == 32)
            apo__correl_block_out(io, e, b, t, 32);
        else if (block_end - b == len && block_end <= end && len == 64)
            apo__correl_block_out(io, e, b, t, 64);
        else
            apo__correl_block_out(io, e, b, t, (block_end < end ? block_end : end) - b);
        t = block_end;
    }
}

/* The clean windows t .. e - 1 of a correl tile, a block (window_sum.h) whose window before t
 * was clean and slid into s: the same operations as the tile's loop, sample by sample, so
 * the same bits. *cx and *cy as there. */
static inline APO_HD void apo__correl_long_block(const apo__cat_io *io, size_t t, size_t e,
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

/* Past APO_CORREL_BLOCKS_MAX: the start of a run of double-double sums (apo__pair_run): its
 * window's origin, last gap and last changes of x and y before `begin`. */
static inline APO_HD void apo__correl_long_start(const apo__cat_io *io, size_t begin,
                                                 apo__pair_run *r) {
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

/* That run's loop from r->t to end. The state is held in locals meanwhile, so that the loop's
 * stores to out cannot be taken to alias it. */
static inline APO_HD void apo__correl_long_run(const apo__cat_io *io, size_t end,
                                               apo__pair_run *r) {
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
            apo__correl_long_block(io, t, e, &s, &cx, &cy);
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

/* correl's stream (catalog_table.h, PAIR) and tile: its windows of p pairs. */
APO_PAIR_ENTRIES(correl, APO_CORREL_BLOCKS_MAX, APO_CORREL_DIRECT_MAX, 0)

#endif /* APO_KERNELS_CORREL_TILE_H */
