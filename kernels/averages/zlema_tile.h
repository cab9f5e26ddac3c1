/*
 * zlema_tile.h: ZLEMA(timeperiod), TA-Lib 0.8's zero-lag exponential moving average: the EMA
 * of rate k = 2/(p+1) of the de-lagged series `y[t] = 2 * x[t] - x[t - lag]`, lag = (p - 1) / 2
 * rounded down, seeded with the mean of the first p values of y (y[lag .. lag + p - 1], summed
 * in index order), then `e = (y - e) * k + e`, ema's order (ema_tile.h). Lookback lag + p - 1;
 * at p = 1 (lag 0, k = 1) the output is the sample itself, exactly.
 *
 * Tile: the definition re-run from w0 = max(0, begin - h), h = lag + p - 1 + D(2/(p+1))
 * (catalog_dispatch.c, EMA(1)), its first y at w0 + lag (y reads lag bars back): by `begin` the
 * restarted seed's weight is below 2^-64 of the data's scale, so a tile starting at 0 has the
 * definition's operations and later tiles agree with it to that weight.
 *
 * Tiles side by side (CPU): a call over several tiles of the grid (io->tile; the runtime joins a
 * row's tiles, catalog_table.h JOIN) runs up to APO_ZLEMA_LANES of their chains in one loop, as
 * ema's tiles run (ema_tile.h), each with the loop's operations in its order, so a tile's bits do
 * not depend on the tiles beside it.
 *
 * Gaps (rsi's rule): a y whose sample or lagged sample is not finite gives NaN and the EMA skips
 * it; the seed is the mean of the first p finite values. Stream: NONE (a piece re-runs its tile).
 */
#ifndef APO_KERNELS_ZLEMA_TILE_H
#define APO_KERNELS_ZLEMA_TILE_H

#include "catalog.h"
#include "window_sum.h"

/* A tile's run: the next bar, the values seen toward the seed, the seed's sum, the average. */
typedef struct apo__zlema_run {
    size_t t, seen;
    double sum, e;
} apo__zlema_run;

/* The run's start for the tile at `begin`: its first y at w0 + lag, its outputs before that NaN
 * (those from `begin` on, up to end). */
static inline APO_HD apo__zlema_run apo__zlema_start(const apo__cat_io *io, size_t begin,
                                                     size_t end, size_t lag) {
    const size_t w0 = begin > io->h ? begin - io->h : 0;
    apo__cat_nan_lead(io->out[0], begin, end, w0 + lag);
    const apo__zlema_run r = {w0 + lag, 0, 0.0, 0.0};
    return r;
}

/* The definition's loop from r->t to end, writing the outputs from `begin` on. */
static inline APO_HD void apo__zlema_steps(const apo__cat_io *io, size_t begin, size_t end,
                                           apo__zlema_run *r) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0], lag = (p - 1) / 2;
    const double pd = (double)p, k = 2.0 / (pd + 1.0);
    size_t seen = r->seen;
    double sum = r->sum, e = r->e;
    for (size_t t = r->t; t < end; t++) {
        const double y = 2.0 * x[t] - x[t - lag];
        double z = NAN;
        if (isfinite(y)) {
            if (seen < p) {
                sum = sum + y;
                if (++seen == p) {
                    e = sum / pd;
                    z = e;
                }
            } else {
                /* At p = 1 the step would round (y - e) + e; the average is y itself. */
                e = p > 1 ? (y - e) * k + e : y;
                z = e;
            }
        }
        if (t >= begin)
            out[t] = apo__canonical_nan(z);
    }
    r->t = end > r->t ? end : r->t;
    r->seen = seen;
    r->sum = sum;
    r->e = e;
}

#ifndef __CUDA_ARCH__
/* Tiles advanced side by side, as ema's (ema_tile.h: the chain is serial, the tiles of a grid
 * independent chains), and the bars of one pass. */
#define APO_ZLEMA_LANES 4
#define APO_ZLEMA_STRIDE 64

/* One tile of a call over several: its run, its tile's start and end. */
typedef struct apo__zlema_lane {
    apo__zlema_run r;
    size_t begin, end;
} apo__zlema_lane;

/* Drops the lanes whose runs have reached their tile's end. */
static inline void apo__zlema_leave(apo__zlema_lane *lane, size_t *n) {
    for (size_t i = 0; i < *n;)
        if (lane[i].r.t >= lane[i].end)
            lane[i] = lane[--*n];
        else
            i++;
}

/* The tiles of [begin, end) at the grid of length io->tile, up to APO_ZLEMA_LANES of them side
 * by side (p > 1). A lane takes the steady step over the bars from r.t on whose y are all
 * finite, once its seed is full: ys[lane][s] its de-lagged values, computed first, so that a gap
 * or an overflow stops the run there; a lane whose seed fills or whose next y is not finite
 * takes apo__zlema_steps over that one bar, alone. The steady step is the loop's, in its order,
 * so a tile's bits do not depend on the tiles beside it. */
static inline void apo__zlema_side_by_side(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    const size_t p = (size_t)io->p[0], lag = (p - 1) / 2;
    const double k = 2.0 / ((double)p + 1.0);
    double ys[APO_ZLEMA_LANES][APO_ZLEMA_STRIDE];
    double sink[APO_ZLEMA_LANES][APO_ZLEMA_STRIDE];
    apo__zlema_lane lane[APO_ZLEMA_LANES];
    size_t next = begin;
    while (next < end) {
        size_t n = 0;
        for (; n < APO_ZLEMA_LANES && next < end; n++) {
            lane[n].begin = next;
            next = apo__cat_grid_end(io, next, end);
            lane[n].end = next;
            lane[n].r = apo__zlema_start(io, lane[n].begin, lane[n].end, lag);
        }
        apo__zlema_leave(lane, &n);
        while (n > 0) {
            size_t m = APO_ZLEMA_STRIDE;
            for (size_t i = 0; i < n && m > 0; i++) {
                apo__zlema_run *r = &lane[i].r;
                const size_t b = lane[i].begin, t = r->t;
                /* The bars this lane can take in the steady step. */
                size_t stop = t + m < lane[i].end ? t + m : lane[i].end;
                if (t < b && stop > b)
                    stop = b;
                size_t u = t;
                if (r->seen >= p) {
                    for (size_t s = 0; s < stop - t; s++)
                        ys[i][s] = 2.0 * x[t + s] - x[t + s - lag];
                    /* A scan that vectorises, where a sum of y - y (0 while every y is
                     * finite) was a chain of dependent adds, a bar's add latency a lane. */
                    if (apo__block_finite(ys[i], 0, stop - t))
                        u = stop;
                    while (u < stop && isfinite(ys[i][u - t]))
                        u++;
                }
                if (u == t) {
                    /* A seed to fill or a gap: one bar the careful way. */
                    apo__zlema_steps(io, b, t + 1, r);
                    m = 0;
                } else {
                    m = u - t < m ? u - t : m;
                }
            }
            if (m > 0) {
                double *out[APO_ZLEMA_LANES];
                double e[APO_ZLEMA_LANES];
                for (size_t i = 0; i < n; i++) {
                    const size_t t = lane[i].r.t;
                    out[i] = t >= lane[i].begin ? io->out[0] + t : sink[i];
                    e[i] = lane[i].r.e;
                }
                for (size_t s = 0; s < m; s++)
                    for (size_t i = 0; i < n; i++) {
                        e[i] = (ys[i][s] - e[i]) * k + e[i];
                        out[i][s] = apo__canonical_nan(e[i]);
                    }
                for (size_t i = 0; i < n; i++) {
                    lane[i].r.t += m;
                    lane[i].r.e = e[i];
                }
            }
            apo__zlema_leave(lane, &n);
        }
    }
}
#endif

static inline APO_HD void apo__zlema_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const size_t p = (size_t)io->p[0], lag = (p - 1) / 2;
#ifndef __CUDA_ARCH__
    /* A call over several tiles of the grid (the runtime joins them: catalog_table.h, JOIN);
     * a GPU thread takes one tile (its launcher leaves io->tile 0). */
    if (p > 1 && apo__cat_spans_tiles(io, begin, end)) {
        apo__zlema_side_by_side(io, begin, end);
        return;
    }
#endif
    apo__zlema_run r = apo__zlema_start(io, begin, end, lag);
    apo__zlema_steps(io, begin, end, &r);
}

#endif /* APO_KERNELS_ZLEMA_TILE_H */
