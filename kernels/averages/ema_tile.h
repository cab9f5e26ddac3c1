/*
 * ema_tile.h: EMA(timeperiod), TA-Lib's exponential moving average.
 *
 * Definition: k = 2 / (p + 1); the seed is the plain mean of the first p samples (summed
 * in index order in double, divided by p), output at index p - 1; then e = (x - e) * k + e,
 * written exactly in that form, as TA-Lib does, so a tile starting at 0 has TA-Lib's bits.
 *
 * Gaps: a non-finite sample gives a NaN output and the state skips it; the seed is the
 * mean of the first p finite samples.
 *
 * Tile: a recurrence, so a tile re-runs the definition from w0 = max(0, begin - h),
 * h = (p - 1) + D(k) (catalog_dispatch.c): by `begin` the restarted seed's weight is below 2^-64
 * of the data scale, and the outputs are a pure function of the tile grid.
 *
 * Tiles side by side: the chain `(x - e)*k + e` is serial, three dependent operations a bar
 * as in TA-Lib's loop, so one tile cannot run faster than TA-Lib. But the tiles of a grid
 * are independent chains: a call over several tiles (io->tile, the grid's tile length; the
 * runtime joins consecutive tiles, apo__catalog_tiles_join) runs up to APO_EMA_LANES of them
 * in one loop, one bar of each per pass, so their chains overlap. Each tile performs the
 * operations apo__ema_run performs, in its order, so a tile's bits do not depend on the
 * tiles beside it.
 */
#ifndef APO_KERNELS_EMA_TILE_H
#define APO_KERNELS_EMA_TILE_H

#include "catalog.h"
#include "window_sum.h"

/* The tile's start: the loop runs from w0 with an empty seed (apo__cat_run: n[0] the
 * samples seen, v[0] the seed's sum, v[1] the average). */
static inline APO_HD void apo__ema_start(const apo__cat_io *io, size_t begin, apo__cat_run *r) {
    apo__cat_run_from_origin(io, begin, r);
}

/* One sample v through an EMA of period p and rate k: a finite v joins the seed's sum while
 * it fills, and the mean of its p values starts the average; then e = (v - e) k + e. Returns
 * the average after v, NaN while the seed fills or where v is not finite (which moves
 * nothing). The step of apo__ema_run, and of any body that runs EMAs of its own beside each
 * other (apo_tile.h), so that they have ema's bits. */
static APO_HD_STEP APO_HD double apo__ema_take(double v, size_t p, double k, size_t *seen,
                                               double *sum, double *e) {
    if (!isfinite(v))
        return NAN;
    if (*seen < p) {
        *sum = *sum + v;
        if (++*seen < p)
            return NAN;
        *e = *sum / (double)p;
        return *e;
    }
    *e = (v - *e) * k + *e;
    return *e;
}

/* One EMA step of a stage that holds one value, its seed's sum while `seen` < `p` and its
 * average after: at the p-th value the mean of the sum, after it the step, for the bodies whose
 * EMAs keep one value a stage (tsi, smi, efi). Their step is TA-Lib 0.8's fused one, as its
 * TSI, SMI and EFI built for FMA compute it, `fma(k, v - e, e)`: a written fma, one rounding
 * on every device (apo_hd.h), through `fused` (fma for doubles, apo_tv_fma for lanes); ema's
 * own step (apo__ema_take) stays TA-Lib's unfused one, which TA-Lib 0.8.1's EMA gives. A
 * macro, so that a double and a vector of lanes take the same operations: e, v, pd (p as a
 * double) and k of the one type, seen and p counts. */
#define APO__EMA_FUSED(fused, e, v, k) fused((k), (v) - (e), (e))
#define APO__EMA_STAGE_BY(fused, e, v, seen, p, pd, k)                                             \
    ((seen) < (p) ? ((seen) + 1 == (p) ? ((e) + (v)) / (pd) : (e) + (v))                           \
                  : APO__EMA_FUSED(fused, e, v, k))
#define APO__EMA_STAGE(e, v, seen, p, pd, k) APO__EMA_STAGE_BY(fma, e, v, seen, p, pd, k)
#define APO__EMA_STAGE_TV(e, v, seen, p, pd, k) APO__EMA_STAGE_BY(apo_tv_fma, e, v, seen, p, pd, k)

/* The stage's step on doubles. */
static inline APO_HD double apo__ema_stage(double e, double v, size_t seen, size_t p, double k) {
    return APO__EMA_STAGE(e, v, seen, p, (double)p, k);
}

/* The loop from r->t to end, writing the positions from `begin` (the tile's) on. */
static inline APO_HD void apo__ema_run(const apo__cat_io *io, size_t begin, size_t end,
                                       apo__cat_run *r) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const double k = 2.0 / ((double)p + 1.0);
    size_t seen = r->n[0];
    double sum = r->v[0], e = r->v[1];
    for (size_t t = r->t; t < end; t++) {
        const double y = apo__ema_take(x[t], p, k, &seen, &sum, &e);
        if (t >= begin)
            out[t] = y;
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = seen;
    r->v[0] = sum;
    r->v[1] = e;
}

/* Tiles advanced side by side, and the bars of one pass without a test per bar. */
#define APO_EMA_LANES 4
#define APO_EMA_STRIDE 64

/* One tile of a call over several: its run, its tile's start and end. */
typedef struct apo__ema_lane {
    apo__cat_run r;
    size_t begin, end;
} apo__ema_lane;

/* m bars of each of the n lanes whose seeds are full and whose samples there are finite:
 * the steady step of apo__ema_run, one bar of every lane at a time. A lane still in its
 * warm-up (before its tile's begin) writes into its row of sink. */
static inline APO_HD void apo__ema_lanes_steady(const apo__cat_io *io, apo__ema_lane *lane,
                                                size_t n, size_t m, double k,
                                                double sink[][APO_EMA_STRIDE]) {
    const double *x[APO_EMA_LANES];
    double *y[APO_EMA_LANES];
    double e[APO_EMA_LANES];
    for (size_t i = 0; i < n; i++) {
        const size_t t = lane[i].r.t;
        x[i] = io->in[0] + t;
        y[i] = t >= lane[i].begin ? io->out[0] + t : sink[i];
        e[i] = lane[i].r.v[1];
    }
    for (size_t s = 0; s < m; s++)
        for (size_t i = 0; i < n; i++) {
            e[i] = (x[i][s] - e[i]) * k + e[i];
            y[i][s] = e[i];
        }
    for (size_t i = 0; i < n; i++) {
        lane[i].r.t += m;
        lane[i].r.v[1] = e[i];
    }
}

/* The tiles of [begin, end) at the grid of length io->tile, up to APO_EMA_LANES of them side
 * by side. A lane whose seed is not full, or whose next bars hold a gap, takes apo__ema_run's
 * own steps over them, alone; the others then advance together by the bars all of them have
 * before their next such point (the end of a warm-up, of the tile, of APO_EMA_STRIDE bars). */
static inline APO_HD void apo__ema_side_by_side(const apo__cat_io *io, size_t begin, size_t end) {
    const size_t p = (size_t)io->p[0];
    const double k = 2.0 / ((double)p + 1.0);
    double sink[APO_EMA_LANES][APO_EMA_STRIDE];
    apo__ema_lane lane[APO_EMA_LANES];
    size_t next = begin;
    while (next < end) {
        size_t n = 0;
        for (; n < APO_EMA_LANES && next < end; n++) {
            lane[n].begin = next;
            next = apo__cat_grid_end(io, next, end);
            lane[n].end = next;
            apo__ema_start(io, lane[n].begin, &lane[n].r);
        }
        while (n > 0) {
            size_t m = APO_EMA_STRIDE;
            for (size_t i = 0; i < n; i++) {
                apo__cat_run *r = &lane[i].r;
                const size_t b = lane[i].begin;
                /* The bars this lane can take in the steady step. */
                size_t stop = r->t + m < lane[i].end ? r->t + m : lane[i].end;
                if (r->t < b && stop > b)
                    stop = b;
                const double *x = io->in[0];
                size_t u = r->t;
                if (r->n[0] >= p) {
                    if (apo__block_finite(x, u, stop))
                        u = stop;
                    while (u < stop && isfinite(x[u]))
                        u++;
                }
                if (u == r->t) {
                    /* A seed to fill or a gap: one bar the careful way. */
                    apo__ema_run(io, b, r->t + 1, r);
                    m = 0;
                } else {
                    m = u - r->t < m ? u - r->t : m;
                }
            }
            if (m > 0)
                apo__ema_lanes_steady(io, lane, n, m, k, sink);
            /* Lanes at their tile's end leave. */
            for (size_t i = 0; i < n;)
                if (lane[i].r.t >= lane[i].end)
                    lane[i] = lane[--n];
                else
                    i++;
        }
    }
}

static inline APO_HD void apo__ema_tile(const apo__cat_io *io, size_t begin, size_t end) {
#ifndef __CUDA_ARCH__
    /* A GPU thread takes one tile (its launcher leaves io->tile 0): the lanes' scratch would
     * only weigh on its stack. */
    if (apo__cat_spans_tiles(io, begin, end)) {
        apo__ema_side_by_side(io, begin, end);
        return;
    }
#endif
    apo__cat_run r;
    apo__ema_start(io, begin, &r);
    apo__ema_run(io, begin, end, &r);
}

/* ema's stream (catalog_table.h, RUN): its start at `begin` and its run to `end`. */
static inline APO_HD void apo__ema_stream_start(const apo__cat_io *io, size_t begin,
                                                apo__cat_run *r) {
    apo__ema_start(io, begin, r);
}

static inline APO_HD void apo__ema_stream_run(const apo__cat_io *io, size_t begin, size_t end,
                                              apo__cat_run *r) {
    apo__ema_run(io, begin, end, r);
}

#endif /* APO_KERNELS_EMA_TILE_H */
