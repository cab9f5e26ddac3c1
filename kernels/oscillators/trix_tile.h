/*
 * trix_tile.h: TRIX(timeperiod), TA-Lib's one-bar rate of change of a triple EMA.
 *
 * Definition (TA-Lib's): e1 = EMA(p) of x, e2 = EMA(p) of e1, e3 = EMA(p) of e2, each seeded
 * with the plain mean of the first p values of its input and then stepped `e = (v - e) * k + e`
 * with k = 2 / (p + 1) (dema_tile.h's APO__EMA_STAGES), so e3 starts at 3 (p - 1);
 * trix = ((e3 / e3') - 1) * 100, e3' the e3 of the bar before, and 0 where e3' is 0 (TA-Lib's
 * operation order). The lookback is 3 (p - 1) + 1.
 *
 * Gaps: as the EMA chain's (dema_tile.h): a non-finite sample gives NaN and no stage moves, so
 * e3' is the e3 of the last finite sample; each gap before the seeds moves the first value one
 * sample later.
 *
 * Tile: the tile reruns the chain from w0 = max(0, begin - h), h = 3 (p - 1) + 1 + 4 D(k)
 * (the table's EMA(4), tema's margin: each stage's seed is forgotten to below 2^-64 before the
 * next stage's is, with a stage to spare for the chain's polynomial factor).
 *
 * Stream (RUN): apo__cat_run's n[s] counts the values stage s has seen and v[s] holds its
 * seed's sum while it has seen fewer than p, its average from then on (a stage needs one of
 * the two at a time); v[2], the last e3, is the next rate's denominator.
 *
 * On the CPU a row's tiles run side by side in vector lanes (apo__trix_round, as dema's and
 * tema's chains: dema_tile.h); a lone tile stays one chain (dispatch/catalog_split.h), whose
 * seeded stretches of finite samples run a loop without the seeds' tests (apo__trix_run: 0.80
 * of the time before at 1e4 bars, the same bits), and on the CPU take the rates of a chunk of
 * bars in vector lanes after its chain (apo__trix_steady_chunks: 0.88 of the time at 1e4).
 */
#ifndef APO_KERNELS_TRIX_TILE_H
#define APO_KERNELS_TRIX_TILE_H

#include "catalog.h"
#include "catalog_lanes.h"
#include "dema_tile.h"
#include "run_entries.h"

/* The rate of change of e3 from the e3 before it, TA-Lib's order: 0 where that e3 is 0. Every
 * scalar path's rate is this, and apo__trix_rate_tv's lanes take its operations. */
static APO_HD_STEP APO_HD double apo__trix_rate(double e3, double before) {
    return before != 0.0 ? (e3 / before - 1.0) * 100.0 : 0.0;
}

#ifdef APO_TILE_LANES
/* apo__trix_rate of each lane: the quotient taken in every lane, 0 selected where before is 0. */
static inline apo_tv apo__trix_rate_tv(apo_tv e3, apo_tv before) {
    const apo_tv zero = {0};
    return apo_tv_pick(before != zero, (e3 / before - 1.0) * 100.0, zero);
}

/* The steady stretch of apo__trix_run from t (every stage seeded, t an output) to end or the
 * first sample that is not finite, APO_TRIX_CHUNK bars at a time: the chain's e3 of each bar
 * first, then the chunk's rates in vector lanes, each the loop's operations on its own two e3,
 * so the same bits. Why: the loop's division, off the chain but scalar, held a bar to about 11
 * cycles where the chain's three steps take 9 (docs/perf-log/2026-12-06-zen3-finite-bits.md).
 * Returns the first bar not taken; e holds the stages after it. */
#define APO_TRIX_CHUNK 64
static inline size_t apo__trix_steady_chunks(const double *x, double *out, size_t t, size_t end,
                                             double k, double e[3]) {
    double e0 = e[0], e1 = e[1], e2 = e[2];
    double e3s[APO_TRIX_CHUNK + 1]; /* e3s[j + 1]: e3 after bar t + j; e3s[0] the one before */
    while (t < end) {
        const size_t n = end - t < APO_TRIX_CHUNK ? end - t : APO_TRIX_CHUNK;
        size_t j = 0;
        e3s[0] = e2;
        for (; j < n && isfinite(x[t + j]); j++) {
            e0 = (x[t + j] - e0) * k + e0; /* APO__EMA_STAGES seeded */
            e1 = (e0 - e1) * k + e1;
            e2 = (e1 - e2) * k + e2;
            e3s[j + 1] = e2;
        }
        size_t i = 0;
        for (; i + APO_TILE_LANES <= j; i += APO_TILE_LANES)
            apo_tv_store(out + t + i,
                         apo__trix_rate_tv(apo_tv_load(e3s + i + 1), apo_tv_load(e3s + i)));
        for (; i < j; i++)
            out[t + i] = apo__trix_rate(e3s[i + 1], e3s[i]);
        t += j;
        if (j < n)
            break;
    }
    e[0] = e0;
    e[1] = e1;
    e[2] = e2;
    return t;
}
#endif

/* The chain from r->t to end, writing from `begin` on. */
static inline APO_HD void apo__trix_run(const apo__cat_io *io, size_t begin, size_t end,
                                        apo__cat_run *r) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const double k = 2.0 / ((double)p + 1.0);
    size_t seen[3] = {r->n[0], r->n[1], r->n[2]};
    double e[3] = {r->v[0], r->v[1], r->v[2]};
    for (size_t t = r->t; t < end; t++) {
        if (seen[2] == p && t >= begin) {
            /* Every stage seeded and t an output: the loop's operations for finite samples,
             * without the seeds' and the output's tests at every bar. A gap returns to the
             * loop below. */
#ifdef APO_TILE_LANES
            t = apo__trix_steady_chunks(x, out, t, end, k, e);
#else
            double e0 = e[0], e1 = e[1], e2 = e[2];
            for (; t < end && isfinite(x[t]); t++) {
                const double before = e2;
                e0 = (x[t] - e0) * k + e0; /* APO__EMA_STAGES seeded */
                e1 = (e0 - e1) * k + e1;
                e2 = (e1 - e2) * k + e2;
                out[t] = apo__trix_rate(e2, before);
            }
            e[0] = e0;
            e[1] = e1;
            e[2] = e2;
#endif
            if (t >= end)
                break;
        }
        double v = x[t];
        int ready = isfinite(v);
        /* e3 had a value before this bar: the rate of change has its denominator. */
        const int had_e3 = seen[2] == p;
        const double before = e[2];
        APO__EMA_STAGES(v, 3, seen, e, e, p, (double)p, k, ready);
        double y = NAN;
        if (ready && had_e3)
            y = apo__trix_rate(e[2], before);
        if (t >= begin)
            out[t] = y;
    }
    r->t = end > r->t ? end : r->t;
    for (int s = 0; s < 3; s++) {
        r->n[s] = seen[s];
        r->v[s] = e[s];
    }
}

#ifdef APO_TILE_LANES
/* The round's steady steps from `step` to sd.to (catalog_lanes.h), every stage seeded and e3
 * with a value: apo__trix_round's operations for them, in the copy for sd.held (a constant). A
 * value that is not finite (a gap) stops it. Returns the first step not taken. */
static APO_CAT_SPECIALISED size_t apo__trix_steady_copy(const apo__cat_io *io,
                                                        const apo__cat_lanes *ln, size_t step,
                                                        const apo__cat_steady *sd, apo_tv k,
                                                        apo_tv e_io[3], const int held) {
    const double *x[APO_TILE_LANES];
    double *out[APO_TILE_LANES];
    apo__cat_lanes_rows(ln, sd, io->in[0], 0, x);
    apo__cat_lanes_outs(ln, io->out[0], out);
    apo_tv e[3] = {e_io[0], e_io[1], e_io[2]};
    for (; step < sd->to; step++) {
        apo_tv v = apo__cat_lanes_at(x, sd, step, held);
        if (!apo_tv_all_finite(v))
            break;
        const apo_tv before = e[2];
        for (int s = 0; s < 3; s++) { /* APO__EMA_STAGES seeded */
            e[s] = (v - e[s]) * k + e[s];
            v = e[s];
        }
        apo__cat_lanes_put(out, sd->stores, step, apo__trix_rate_tv(e[2], before));
    }
    for (int s = 0; s < 3; s++)
        e_io[s] = e[s];
    return step;
}

static inline size_t apo__trix_steady(const apo__cat_io *io, const apo__cat_lanes *ln, size_t step,
                                      const apo__cat_steady *sd, apo_tv k, apo_tv e[3]) {
    return sd->held ? apo__trix_steady_copy(io, ln, step, sd, k, e, 1)
                    : apo__trix_steady_copy(io, ln, step, sd, k, e, 0);
}

/* A round of up to APO_TILE_LANES tiles side by side, one per vector lane (catalog_lanes.h says
 * how the bits stay each tile's): each lane performs apo__trix_run's operations in its order,
 * the rate's guard a select. A lone tile is not cut (dispatch/catalog_split.h says why), so the
 * round records no edges. */
static inline void apo__trix_round(const apo__cat_io *io, const apo__tile_span *tiles,
                                   size_t count) {
    apo__cat_lanes ln;
    apo__cat_lanes_start_at(&ln, io, tiles, count, 0);
    const double *x = io->in[0];
    const size_t p = (size_t)io->p[0];
    const double k_one = 2.0 / ((double)p + 1.0);
    const apo_tv zero = {0}, k = zero + k_one, pd = zero + (double)p, nan = zero + (double)NAN;
    apo_tv e[3] = {zero, zero, zero};
    size_t seen[3] = {0, 0, 0}, step = 0;
    for (; step < ln.steps; step++) {
        const apo__cat_steady sd = seen[2] == p ? apo__cat_lanes_steady(&ln, tiles, step, NULL)
                                                : apo__cat_steady_none(step);
        if (sd.to > step) {
            const size_t next = apo__trix_steady(io, &ln, step, &sd, k, e);
            if (next > step) {
                step = next - 1; /* the loop's top takes `next` */
                continue;
            }
        }
        apo_tv v = apo__cat_lanes_load(x, &ln, step, 0);
        if (!apo_tv_all_finite(v))
            break;
        const int had_e3 = seen[2] == p;
        const apo_tv before = e[2];
        int ready = 1;
        APO__EMA_STAGES(v, 3, seen, e, e, p, pd, k, ready);
        apo_tv y = nan;
        if (ready && had_e3)
            y = apo__trix_rate_tv(e[2], before);
        apo__cat_lanes_store_inside(io->out[0], &ln, tiles, step, y);
    }
    apo__cat_lanes_stop(&ln, step, seen, 3);
    for (size_t j = 0; j < count; j++) {
        for (int s = 0; s < 3; s++)
            ln.run[j].v[s] = e[s][j];
        apo__trix_run(io, tiles[j].begin, tiles[j].end, &ln.run[j]);
    }
}
#endif

/* trix's tile and stream (catalog_table.h, RUN): apo__trix_tile, apo__trix_stream_start and
 * apo__trix_stream_run, from the tile's warm-up origin. */
APO_CAT_RUN_ENTRIES(trix, apo__cat_run_from_origin(io, begin, r), apo__trix_run(io, begin, end, r))

#endif /* APO_KERNELS_TRIX_TILE_H */
