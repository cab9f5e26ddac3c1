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
 * On the CPU a row's tiles run side by side in vector lanes (apo__zlema_round, as rma's and
 * dema's do, catalog_lanes.h), and a lone tile is cut into pieces in them
 * (dispatch/catalog_split.h): a tile's chain waits on a subtraction, a product and an addition
 * a bar, and a row of 1e4 bars at the default period is one tile.
 *
 * Gaps (rsi's rule): a y whose sample or lagged sample is not finite gives NaN and the EMA skips
 * it; the seed is the mean of the first p finite values.
 *
 * Stream: RUN. The stream's start stands at the warm-up origin w0 and reads and writes nothing
 * (the tile's writes its NaN lead), and its run writes the lead where a piece reaches it, then
 * runs the tile's loop from its first y: the tile's operations, so its bits, with an update
 * costing its new bars; a stream takes the next tile's run ahead (the row's AHEAD) while a
 * tile's last h bars arrive, and a GPU cuts its tiles as rma's (cuda/cut.cu).
 */
#ifndef APO_KERNELS_ZLEMA_TILE_H
#define APO_KERNELS_ZLEMA_TILE_H

#include "catalog.h"
#include "catalog_lanes.h"
#include "run_entries.h"

/* The tile's first y: its warm-up origin w0 plus the lag (y reads lag bars back). */
static inline APO_HD size_t apo__zlema_first(const apo__cat_io *io, size_t begin) {
    return apo__cat_origin(io, begin) + ((size_t)io->p[0] - 1) / 2;
}

/* The tile's start: the run from its first y (apo__cat_run: n[0] the values seen toward the
 * seed, v[0] the seed's sum, v[1] the average), its outputs before that NaN (those from `begin`
 * on, up to end). */
static inline APO_HD void apo__zlema_start(const apo__cat_io *io, size_t begin, size_t end,
                                           apo__cat_run *r) {
    const size_t first = apo__zlema_first(io, begin);
    apo__cat_nan_lead(io->out[0], begin, end, first);
    apo__cat_run_from(r, first);
}

/* One finite y through the run: while the seed fills, y adds to sum, and at the p-th value their
 * mean is the average; past it, ema's step (at p = 1 the average is y itself: the step would
 * round (y - e) + e). z, the output, is left as it is (NaN) while the seed fills. A macro, so
 * that a double and a vector of lanes (apo__zlema_round) take the same operations: y, sum, e,
 * pd, k and z of the one type; seen and p counts, one for all lanes. */
#define APO__ZLEMA_STEP(y, seen, p, sum, e, pd, k, z)                                              \
    do {                                                                                           \
        if ((seen) < (p)) {                                                                        \
            (sum) = (sum) + (y);                                                                   \
            if (++(seen) == (p)) {                                                                 \
                (e) = (sum) / (pd);                                                                \
                (z) = (e);                                                                         \
            }                                                                                      \
        } else {                                                                                   \
            (e) = (p) > 1 ? ((y) - (e)) * (k) + (e) : (y);                                         \
            (z) = (e);                                                                             \
        }                                                                                          \
    } while (0)

/* The definition's loop from r->t to end, writing the outputs from `begin` on. */
static inline APO_HD void apo__zlema_run(const apo__cat_io *io, size_t begin, size_t end,
                                         apo__cat_run *r) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0], lag = (p - 1) / 2;
    const double pd = (double)p, k = 2.0 / (pd + 1.0);
    size_t seen = r->n[0];
    double sum = r->v[0], e = r->v[1];
    for (size_t t = r->t; t < end; t++) {
        const double y = 2.0 * x[t] - x[t - lag];
        double z = NAN;
        if (isfinite(y))
            APO__ZLEMA_STEP(y, seen, p, sum, e, pd, k, z);
        if (t >= begin)
            out[t] = apo__canonical_nan(z);
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = seen;
    r->v[0] = sum;
    r->v[1] = e;
}

#ifdef APO_TILE_LANES
/* The round's steady steps from `step` to sd.to (catalog_lanes.h), every lane's seed full:
 * apo__zlema_round's operations for them, in the copy for sd.held (a constant). A y that is not
 * finite (a gap, or an overflow of 2 x) stops it. Returns the first step not taken. */
static APO_CAT_SPECIALISED size_t apo__zlema_steady_copy(const apo__cat_io *io,
                                                         const apo__cat_lanes *ln, size_t step,
                                                         const apo__cat_steady *sd, size_t lag,
                                                         apo_tv k, apo_tv *e_io, const int held) {
    const double *x[APO_TILE_LANES], *lagged[APO_TILE_LANES];
    double *out[APO_TILE_LANES];
    apo__cat_lanes_rows(ln, sd, io->in[0], 0, x);
    apo__cat_lanes_rows(ln, sd, io->in[0], lag, lagged);
    apo__cat_lanes_outs(ln, io->out[0], out);
    apo_tv e = *e_io;
    for (; step < sd->to; step++) {
        const apo_tv y =
            2.0 * apo__cat_lanes_at(x, sd, step, held) - apo__cat_lanes_at(lagged, sd, step, held);
        if (!apo_tv_all_finite(y))
            break;
        e = (y - e) * k + e;
        apo__cat_lanes_put(out, sd->stores, step, apo_tv_or_nan(e == e, e));
    }
    *e_io = e;
    return step;
}

static inline size_t apo__zlema_steady(const apo__cat_io *io, const apo__cat_lanes *ln, size_t step,
                                       const apo__cat_steady *sd, size_t lag, apo_tv k, apo_tv *e) {
    return sd->held ? apo__zlema_steady_copy(io, ln, step, sd, lag, k, e, 1)
                    : apo__zlema_steady_copy(io, ln, step, sd, lag, k, e, 0);
}

/* A round of up to APO_TILE_LANES tiles side by side, one per vector lane (catalog_lanes.h says
 * how the bits stay each tile's): each lane performs apo__zlema_run's operations in its order,
 * from its first y at its warm-up origin plus the lag (a lane past its tile's end re-reads its
 * last bar, whose y was finite). Until a lane meets a y that is not finite every lane has seen
 * as many values, so the seed's test is one for all; the round stops there and each tile's
 * scalar run goes on from its lane. At p = 1 (k = 1, the average the sample itself) every tile
 * takes its scalar run. edges: NULL, or one per tile for its run at its begin and end (a lone
 * tile's cut, catalog_split.h). */
static inline void apo__zlema_round(const apo__cat_io *io, const apo__tile_span *tiles,
                                    size_t count, apo__cat_edge *edges) {
    const size_t p = (size_t)io->p[0], lag = (p - 1) / 2;
    apo__cat_lanes ln;
    apo__cat_lanes_start_at(&ln, io, tiles, count, lag);
    const double *x = io->in[0];
    const apo_tv zero = {0}, pd = zero + (double)p, k = zero + 2.0 / ((double)p + 1.0),
                 nan = zero + (double)NAN;
    apo_tv sum = zero, e = zero;
    size_t seen = 0, step = 0;
    for (; p > 1 && step < ln.steps; step++) {
        if (edges != NULL && step == ln.edge_step)
            apo__cat_lanes_edges(&ln, tiles, step, &seen, 1, (const apo_tv[]){sum, e}, 2, edges);
        const apo__cat_steady sd =
            seen >= p ? apo__cat_lanes_steady(&ln, tiles, step, edges) : apo__cat_steady_none(step);
        if (sd.to > step) {
            const size_t next = apo__zlema_steady(io, &ln, step, &sd, lag, k, &e);
            if (next > step) {
                step = next - 1; /* the loop's top takes `next` */
                continue;
            }
        }
        const apo_tv y =
            2.0 * apo__cat_lanes_load(x, &ln, step, 0) - apo__cat_lanes_load(x, &ln, step, lag);
        if (!apo_tv_all_finite(y))
            break;
        apo_tv z = nan;
        APO__ZLEMA_STEP(y, seen, p, sum, e, pd, k, z);
        apo__cat_lanes_store(io->out[0], &ln, tiles, step, apo_tv_or_nan(z == z, z));
    }
    apo__cat_lanes_stop(&ln, step, &seen, 1);
    for (size_t j = 0; j < count; j++) {
        ln.run[j].v[0] = sum[j];
        ln.run[j].v[1] = e[j];
        apo__zlema_run(io, tiles[j].begin, tiles[j].end, &ln.run[j]);
        if (edges != NULL)
            apo__cat_lanes_tail(&ln, j, edges);
    }
}
#endif

static inline APO_HD void apo__zlema_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__cat_run r;
    apo__zlema_start(io, begin, end, &r);
    apo__zlema_run(io, begin, end, &r);
}

/* A stream's run from r->t, which its start put at the warm-up origin: the tile's NaN lead where
 * this piece reaches it (outputs from `begin` on), then the tile's loop from its first y. */
static inline APO_HD void apo__zlema_stream_go(const apo__cat_io *io, size_t begin, size_t end,
                                               apo__cat_run *r) {
    const size_t first = apo__zlema_first(io, begin);
    if (r->t < first) {
        const size_t to = first < end ? first : end;
        apo__cat_nan_lead(io->out[0], r->t > begin ? r->t : begin, to, first);
        r->t = to;
    }
    apo__zlema_run(io, begin, end, r);
}

APO_CAT_STREAM_ENTRIES(zlema, apo__cat_run_from_origin(io, begin, r),
                       apo__zlema_stream_go(io, begin, end, r))

#endif /* APO_KERNELS_ZLEMA_TILE_H */
