/*
 * rvi_tile.h: RVI(timeperiod, stddevperiod), TA-Lib 0.8's relative volatility index of the close:
 * RSI's ratio with each bar's population standard deviation over the s = stddevperiod closes
 * ending at it in place of the size of the move. Bar t's sigma goes to the up leg where
 * close[t] > close[t - 1], to the down leg where it is below, to neither on a tie; each leg is
 * Wilder's average of rate 1/p (p = timeperiod), seeded with the plain mean of the first p bars'
 * terms (from bar s - 1, the first full window) and stepped as rma's, TA-Lib 0.8's fused step
 * (wilder_step.h, rma_tile.h). The output is `100 * (up / (up + down))`, and 50 where both legs are
 * exactly 0 (TA-Lib's guard). Lookback (s - 1) + (p - 1).
 *
 * Sigma is var's window evaluated alone (var_blocks.h's apo__var_window: shifted by its newest
 * close, within about s / 8 + 8 ulps), a pure function of its s closes, so the legs take the
 * same terms whatever the grid; it costs O(s) a bar, against TA-Lib's running sums, which drift
 * with the series (docs/kernels/volume_statistics.md, "TA-Lib 0.8's newer functions, group 5").
 * On the CPU (APO_TILE_LANES) the sigmas of APO_TILE_LANES consecutive bars are taken side by
 * side, one vector lane a bar, each lane doing apo__var_window's operations in its order (the
 * same partials, the same combination, the same square root): the same bits, where one bar's
 * window at a time left the sums' short loops and their combination on the legs' chain
 * (a fifth of TA-Lib's speed at 1e6 bars on the Zen 4 VM, 2026-11-28). Once the legs are
 * seeded, blocks of APO_RVI_GROUP vectors whose sigmas are all finite also take the legs'
 * terms and the outputs in lanes, only the two Wilder steps a bar serial
 * (apo__rvi_steady_lanes; 0.6 of the time on the Zen 4 VM, 2026-12-03).
 *
 * Tile: the definition re-run from w0 = max(0, begin - h), h = (s - 1) + (p - 1) + D(1/p)
 * (catalog_dispatch.c, WILDER(1)), the first term at w0 + s - 1, whose window starts at w0: a tile
 * starting at 0 has the definition's operations, later tiles agree with it to 2^-64 of the scale.
 *
 * Gaps (rsi's rule): a window holding a non-finite close (which also covers the move, s >= 2)
 * gives NaN and both legs skip the bar; the seed takes the first p clean bars.
 *
 * Stream: RUN (run_entries.h): the two legs are the run's state; the start reads nothing and the
 * run writes only from `begin` on, so a stream carries the legs across updates (an update
 * costs its new bars' sigmas) and takes the next tile's run ahead (the row's AHEAD).
 */
#ifndef APO_KERNELS_RVI_TILE_H
#define APO_KERNELS_RVI_TILE_H

#include "catalog.h"
#include "partials.h"
#include "run_entries.h"
#include "tile_vec.h"
#include "var_blocks.h"
#include "wilder_step.h"

/* The two legs of RVI: the terms seen toward the seeds, then the averages. */
typedef struct {
    size_t seen;
    double up, down;
} apo__rvi_legs;

/* Takes bar t's sigma into the leg of its move; returns whether the legs are seeded after it. */
static inline APO_HD int apo__rvi_step(apo__rvi_legs *l, double sigma, double move, size_t p) {
    const double pd = (double)p;
    const double up = move > 0.0 ? sigma : 0.0, down = move < 0.0 ? sigma : 0.0;
    if (l->seen < p) {
        l->up = l->up + up;
        l->down = l->down + down;
        if (++l->seen == p) {
            l->up = l->up / pd;
            l->down = l->down / pd;
        }
    } else {
        const double keep = APO__WILDER_KEEP(pd), rest = 1.0 - keep;
        l->up = APO__WILDER_NEXT(fma, l->up, up, keep, rest);
        l->down = APO__WILDER_NEXT(fma, l->down, down, keep, rest);
    }
    return l->seen == p;
}

/* Bar t's output from its sigma, stepping the legs (NaN where they are not seeded or sigma is
 * not finite), written where t is in the tile. */
static inline APO_HD void apo__rvi_bar(apo__rvi_legs *legs, const double *x, double *out, size_t t,
                                       double sigma, size_t p, size_t begin) {
    double y = NAN;
    if (isfinite(sigma) && apo__rvi_step(legs, sigma, x[t] - x[t - 1], p)) {
        const double total = legs->up + legs->down;
        y = total == 0.0 ? 50.0 : 100.0 * (legs->up / total);
    }
    if (t >= begin)
        out[t] = apo__canonical_nan(y);
}

#ifdef APO_TILE_LANES
/* sqrt(apo__var_window(x + (t + k + 1 - s), s, inv_s)) in lane k: apo__var_window's two passes
 * over its eight partials, lane for lane, so the bits of the scalar sigma of each of the
 * APO_TILE_LANES bars from t on. */
static inline apo_tv apo__rvi_sigma_lanes(const double *x, size_t t, size_t s, double inv_s) {
    const double *w = x + (t + 1 - s); /* lane k's window starts at w + k */
    const size_t r = s % APO_PARTS;
    const apo_tv c = apo_tv_load(w + (s - 1)), inv = apo_tv_splat(inv_s);
    apo_tv a[APO_PARTS];
    for (size_t l = 0; l < APO_PARTS; l++)
        a[l] = apo_tv_splat(0.0);
    for (size_t l = 0; l < r; l++)
        a[l] += apo_tv_load(w + l) - c;
    for (size_t i = r; i < s; i += APO_PARTS)
        for (size_t l = 0; l < APO_PARTS; l++)
            a[l] += apo_tv_load(w + i + l) - c;
    const apo_tv mean = apo__parts_combine_tv(a) * inv;
    for (size_t l = 0; l < APO_PARTS; l++)
        a[l] = apo_tv_splat(0.0);
    for (size_t l = 0; l < r; l++) {
        const apo_tv d = (apo_tv_load(w + l) - c) - mean;
        a[l] += d * d;
    }
    for (size_t i = r; i < s; i += APO_PARTS)
        for (size_t l = 0; l < APO_PARTS; l++) {
            const apo_tv d = (apo_tv_load(w + i + l) - c) - mean;
            a[l] += d * d;
        }
    return apo_tv_sqrt(apo__parts_combine_tv(a) * inv);
}

/* Vectors of bars whose sigmas are taken before their legs step: their windows' sums are
 * independent of the legs' chain and of each other, so the core overlaps them. */
#define APO_RVI_GROUP 4

/* The nv vectors of bars from t on with their sigmas, once the legs are seeded, every sigma is
 * finite and every bar is in the tile (else 0, nothing done): each bar's terms (its sigma to
 * the leg of its move) and its output in vector lanes, only Wilder's two steps on the chain:
 * apo__rvi_bar's operations in its order, bar for bar, so its bits. One bar at a time, the
 * selects and the output's division waited on the chain at every step. */
static inline int apo__rvi_steady_lanes(apo__rvi_legs *legs, const double *x, double *out, size_t t,
                                        const apo_tv *sigma, size_t nv, size_t p, size_t begin) {
    if (legs->seen < p || t < begin)
        return 0;
    for (size_t v = 0; v < nv; v++)
        if (!apo_tm_all(apo_tv_finite(sigma[v])))
            return 0;
    const double pd = (double)p, keep = APO__WILDER_KEEP(pd), rest = 1.0 - keep;
    const apo_tv zero = apo_tv_splat(0.0);
    double u = legs->up, d = legs->down;
    for (size_t v = 0; v < nv; v++) {
        const size_t at = t + v * APO_TILE_LANES;
        const apo_tv move = apo_tv_load(x + at) - apo_tv_load(x + at - 1);
        const apo_tv up_in = apo_tv_pick(move > 0.0, sigma[v], zero),
                     down_in = apo_tv_pick(move < 0.0, sigma[v], zero);
        apo_tv up, down;
        for (size_t k = 0; k < APO_TILE_LANES; k++) {
            up[k] = u = APO__WILDER_NEXT(fma, u, up_in[k], keep, rest);
            down[k] = d = APO__WILDER_NEXT(fma, d, down_in[k], keep, rest);
        }
        const apo_tv total = up + down;
        const apo_tv y =
            apo_tv_pick(total == 0.0, apo_tv_splat(50.0), apo_tv_splat(100.0) * (up / total));
        apo_tv_store(out + at, apo_tv_or_nan(y == y, y));
    }
    legs->up = u;
    legs->down = d;
    return 1;
}
#endif

/* The definition's loop from r->t to end, writing from `begin` on: the tile's NaN lead, its bars
 * before the first full window at w0 + s - 1, where the run reaches it, then a bar at a time
 * (on the CPU vectors of bars where whole ones remain). The tile's start is the run at its
 * warm-up origin w0 with both legs empty (apo__cat_run: n[0] the terms seen toward the seeds,
 * v[0] and v[1] the up and down legs: their sums, then their averages). */
static inline APO_HD void apo__rvi_run(const apo__cat_io *io, size_t begin, size_t end,
                                       apo__cat_run *r) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0], s = (size_t)io->p[1];
    const double inv_s = 1.0 / (double)s;
    const size_t first = apo__cat_origin(io, begin) + s - 1;
    apo__rvi_legs legs = {r->n[0], r->v[0], r->v[1]};
    size_t t = r->t;
    if (t < first) {
        apo__cat_nan_lead(out, t > begin ? t : begin, end, first);
        t = first;
    }
#ifdef APO_TILE_LANES
    for (size_t nv = APO_RVI_GROUP; nv > 0; nv = nv > 1 ? 1 : 0)
        for (; t < end && end - t >= nv * APO_TILE_LANES; t += nv * APO_TILE_LANES) {
            apo_tv sigma[APO_RVI_GROUP];
            for (size_t v = 0; v < nv; v++)
                sigma[v] = apo__rvi_sigma_lanes(x, t + v * APO_TILE_LANES, s, inv_s);
            if (apo__rvi_steady_lanes(&legs, x, out, t, sigma, nv, p, begin))
                continue;
            for (size_t v = 0; v < nv; v++)
                for (size_t k = 0; k < APO_TILE_LANES; k++)
                    apo__rvi_bar(&legs, x, out, t + v * APO_TILE_LANES + k, sigma[v][k], p, begin);
        }
#endif
    for (; t < end; t++)
        apo__rvi_bar(&legs, x, out, t, sqrt(apo__var_window(x + (t + 1 - s), s, inv_s)), p, begin);
    r->t = end > r->t ? end : r->t;
    r->n[0] = legs.seen;
    r->v[0] = legs.up;
    r->v[1] = legs.down;
}

APO_CAT_RUN_ENTRIES(rvi, apo__cat_run_from_origin(io, begin, r), apo__rvi_run(io, begin, end, r))

#endif /* APO_KERNELS_RVI_TILE_H */
