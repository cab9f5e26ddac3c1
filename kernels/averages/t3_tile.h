/*
 * t3_tile.h: T3(timeperiod, vfactor), Tillson's average as TA-Lib defines it.
 *
 * Definition: six EMAs in a chain, e1 of the samples, e2 of e1, ..., e6 of e5, each of rate
 * k = 2 / (p + 1) and stepped as TA-Lib writes it, e = (k * v) + ((1 - k) * e); each stage is
 * seeded with the plain mean of the first p values of its input (the stage before's seed and
 * the p - 1 values after it), so e6 starts at 6 (p - 1). With a = vfactor, c1 = -a^3,
 * c2 = 3 (a^2 - c1), c3 = -6 a^2 - 3 (a - c1), c4 = 1 + 3 a - c1 + 3 a^2 (TA-Lib's
 * operation order) and T3 = c1 e6 + c2 e5 + c3 e4 + c4 e3. p = 1 is the sample itself
 * (TA-Lib's). A tile starting at 0 has TA-Lib's bits.
 *
 * Gaps: a non-finite sample gives NaN and no stage moves (as dema_tile.h).
 *
 * Tile: a recurrence, re-run from w0 = max(0, begin - h), h = 6 (p - 1) + 7 D(k)
 * (catalog_dispatch.c, the rule EMA(7)): every stage forgets the seed it restarted with, with a
 * stage of margin for the chain's polynomial factor, as dema's and tema's halos.
 *
 * State (apo__cat_run): n[0] the stage whose seed is filling (6 once all are seeded), n[1] the
 * values it has seen; v[s] is e(s + 1) below that stage and the seed's running sum at it. Only
 * one seed fills at a time, so six doubles hold the chain.
 *
 * On the CPU a row's tiles run side by side in vector lanes, and a lone tile is cut into
 * pieces in them (apo__t3_round, as dema's and tema's chains: dema_tile.h).
 */
#ifndef APO_KERNELS_T3_TILE_H
#define APO_KERNELS_T3_TILE_H

#include "catalog.h"
#include "catalog_lanes.h"
#include "run_entries.h"

#define APO_T3_STAGES 6

static inline APO_HD void apo__t3_start(const apo__cat_io *io, size_t begin, apo__cat_run *r) {
    apo__cat_run_from_origin(io, begin, r);
}

/* One finite sample v through the chain: the seeded stages step, the filling one adds v (or
 * the value its stage before just took); `full` becomes 1 when every stage is seeded, else 0.
 * A macro so that a double (apo__t3_run) and a vector of lanes (apo__t3_round) take the same
 * operations: v, k, one_minus_k, pd (p as a double), zero and e[] are of the one type; stage,
 * seen and p are counts, one for all lanes. */
#define APO__T3_PUSH(v, p, pd, k, one_minus_k, zero, stage, seen, e, full)                         \
    do {                                                                                           \
        (full) = 1;                                                                                \
        for (size_t s_ = 0; s_ < APO_T3_STAGES; s_++) {                                            \
            if (s_ < (stage)) {                                                                    \
                (e)[s_] = (k) * (v) + (one_minus_k) * (e)[s_];                                     \
                (v) = (e)[s_];                                                                     \
                continue;                                                                          \
            }                                                                                      \
            (e)[s_] = (e)[s_] + (v);                                                               \
            if (++(seen) < (p)) {                                                                  \
                (full) = 0;                                                                        \
                break;                                                                             \
            }                                                                                      \
            (e)[s_] = (e)[s_] / (pd);                                                              \
            (v) = (e)[s_];                                                                         \
            (stage) = s_ + 1;                                                                      \
            (seen) = 0;                                                                            \
            if (s_ + 1 < APO_T3_STAGES)                                                            \
                (e)[s_ + 1] = (zero);                                                              \
        }                                                                                          \
    } while (0)

/* c1 .. c4 of vfactor a, in TA-Lib's operation order. */
static inline APO_HD void apo__t3_coefficients(double a, double c[4]) {
    const double a2 = a * a;
    c[0] = 0.0 - a2 * a;
    c[1] = 3.0 * (a2 - c[0]);
    c[2] = (0.0 - 6.0) * a2 - 3.0 * (a - c[0]);
    c[3] = 1.0 + 3.0 * a - c[0] + 3.0 * a2;
}

/* The loop from r->t to end, writing the positions from `begin` on. */
static inline APO_HD void apo__t3_run(const apo__cat_io *io, size_t begin, size_t end,
                                      apo__cat_run *r) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const double k = 2.0 / ((double)p + 1.0), one_minus_k = 1.0 - k;
    double c[4];
    apo__t3_coefficients(io->p[1], c);
    size_t stage = r->n[0], seen = r->n[1];
    double e[APO_T3_STAGES];
    for (int s = 0; s < APO_T3_STAGES; s++)
        e[s] = r->v[s];
    for (size_t t = r->t; t < end; t++) {
        const double v = x[t];
        double y = NAN;
        if (isfinite(v)) {
            if (p == 1)
                y = v;
            else {
                double u = v;
                int full;
                APO__T3_PUSH(u, p, (double)p, k, one_minus_k, 0.0, stage, seen, e, full);
                if (full)
                    y = c[0] * e[5] + c[1] * e[4] + c[2] * e[3] + c[3] * e[2];
            }
        }
        if (t >= begin)
            out[t] = y;
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = stage;
    r->n[1] = seen;
    for (int s = 0; s < APO_T3_STAGES; s++)
        r->v[s] = e[s];
}

#ifdef APO_TILE_LANES
/* The round's steady steps from `step` to sd.to (catalog_lanes.h), every stage seeded:
 * apo__t3_round's operations for them, in the copy for sd.held (a constant). A sample that is
 * not finite (a gap) stops it. Returns the first step not taken. */
static APO_CAT_SPECIALISED size_t apo__t3_steady_copy(const apo__cat_io *io,
                                                      const apo__cat_lanes *ln, size_t step,
                                                      const apo__cat_steady *sd, apo_tv k,
                                                      apo_tv one_minus_k, const double c[4],
                                                      apo_tv e_io[APO_T3_STAGES], const int held) {
    const double *x[APO_TILE_LANES];
    double *out[APO_TILE_LANES];
    apo__cat_lanes_rows(ln, sd, io->in[0], 0, x);
    apo__cat_lanes_outs(ln, io->out[0], out);
    apo_tv e[APO_T3_STAGES];
    for (int s = 0; s < APO_T3_STAGES; s++)
        e[s] = e_io[s];
    for (; step < sd->to; step++) {
        apo_tv v = apo__cat_lanes_at(x, sd, step, held);
        if (!apo_tv_all_finite(v))
            break;
        for (int s = 0; s < APO_T3_STAGES; s++) { /* APO__T3_PUSH, every stage seeded */
            e[s] = k * v + one_minus_k * e[s];
            v = e[s];
        }
        apo__cat_lanes_put(out, sd->stores, step,
                           c[0] * e[5] + c[1] * e[4] + c[2] * e[3] + c[3] * e[2]);
    }
    for (int s = 0; s < APO_T3_STAGES; s++)
        e_io[s] = e[s];
    return step;
}

static inline size_t apo__t3_steady(const apo__cat_io *io, const apo__cat_lanes *ln, size_t step,
                                    const apo__cat_steady *sd, apo_tv k, apo_tv one_minus_k,
                                    const double c[4], apo_tv e[APO_T3_STAGES]) {
    return sd->held ? apo__t3_steady_copy(io, ln, step, sd, k, one_minus_k, c, e, 1)
                    : apo__t3_steady_copy(io, ln, step, sd, k, one_minus_k, c, e, 0);
}

/* A round of up to APO_TILE_LANES tiles side by side, one per vector lane (catalog_lanes.h says
 * how the bits stay each tile's): each lane performs apo__t3_run's operations in its order
 * (APO__T3_PUSH, one source for both). Until a lane meets a gap every lane is at the same
 * stage and count, so the seeds' tests are one for all. At p = 1 (the sample itself) there is
 * no chain, and the tiles take their scalar runs. edges: NULL, or one per tile for its run at
 * its begin and end (a lone tile's cut, catalog_split.h). */
static inline void apo__t3_round(const apo__cat_io *io, const apo__tile_span *tiles, size_t count,
                                 apo__cat_edge *edges) {
    apo__cat_lanes ln;
    apo__cat_lanes_start_at(&ln, io, tiles, count, 0);
    const double *x = io->in[0];
    const size_t p = (size_t)io->p[0];
    const double k_one = 2.0 / ((double)p + 1.0);
    double c_one[4];
    apo__t3_coefficients(io->p[1], c_one);
    const apo_tv zero = {0}, k = zero + k_one, one_minus_k = zero + (1.0 - k_one),
                 pd = zero + (double)p, nan = zero + (double)NAN;
    apo_tv e[APO_T3_STAGES] = {zero, zero, zero, zero, zero, zero};
    size_t counts[2] = {0, 0}, step = 0; /* the stage filling and its values seen, as n[0 .. 1] */
    for (; step < ln.steps && p > 1; step++) {
        if (edges != NULL && step == ln.edge_step)
            apo__cat_lanes_edges(&ln, tiles, step, counts, 2, e, APO_T3_STAGES, edges);
        const apo__cat_steady sd = counts[0] == APO_T3_STAGES
                                       ? apo__cat_lanes_steady(&ln, tiles, step, edges)
                                       : apo__cat_steady_none(step);
        if (sd.to > step) {
            const size_t next = apo__t3_steady(io, &ln, step, &sd, k, one_minus_k, c_one, e);
            if (next > step) {
                step = next - 1; /* the loop's top takes `next` */
                continue;
            }
        }
        apo_tv v = apo__cat_lanes_load(x, &ln, step, 0);
        if (!apo_tv_all_finite(v))
            break;
        int full;
        APO__T3_PUSH(v, p, pd, k, one_minus_k, zero, counts[0], counts[1], e, full);
        apo_tv y = nan;
        if (full)
            y = c_one[0] * e[5] + c_one[1] * e[4] + c_one[2] * e[3] + c_one[3] * e[2];
        apo__cat_lanes_store_inside(io->out[0], &ln, tiles, step, y);
    }
    apo__cat_lanes_stop(&ln, step, counts, 2);
    for (size_t j = 0; j < count; j++) {
        for (int s = 0; s < APO_T3_STAGES; s++)
            ln.run[j].v[s] = e[s][j];
        apo__t3_run(io, tiles[j].begin, tiles[j].end, &ln.run[j]);
        if (edges != NULL)
            apo__cat_lanes_tail(&ln, j, edges);
    }
}
#endif

/* t3's tile and stream (catalog_table.h, RUN): apo__t3_tile, apo__t3_stream_start and
 * apo__t3_stream_run, its start at `begin` and its run to `end`. */
APO_CAT_RUN_ENTRIES(t3, apo__t3_start(io, begin, r), apo__t3_run(io, begin, end, r))

#endif /* APO_KERNELS_T3_TILE_H */
