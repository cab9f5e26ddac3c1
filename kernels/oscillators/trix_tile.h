/*
 * trix_tile.h: TRIX(timeperiod), TA-Lib's one-bar rate of change of a triple EMA.
 *
 * Definition (TA-Lib's): e1 = EMA(p) of x, e2 = EMA(p) of e1, e3 = EMA(p) of e2, each seeded
 * with the plain mean of the first p values of its input and then stepped `e = (v - e) * k + e`
 * with k = 2 / (p + 1), so e3 starts at 3 (p - 1); trix = ((e3 / e3') - 1) * 100, e3' the e3 of
 * the bar before, and 0 where e3' is 0 (TA-Lib's operation order). The lookback is
 * 3 (p - 1) + 1.
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
 * the two at a time); v[3] is the last e3.
 */
#ifndef APO_KERNELS_TRIX_TILE_H
#define APO_KERNELS_TRIX_TILE_H

#include "catalog.h"
#include "run_entries.h"

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
        double v = x[t];
        int ready = isfinite(v);
        /* e3 had a value before this bar: the rate of change has its denominator. */
        const int had_e3 = seen[2] == p;
        const double before = e[2];
        for (int s = 0; s < 3 && ready; s++) {
            if (seen[s] < p) {
                e[s] = e[s] + v;
                seen[s]++;
                ready = seen[s] == p;
                if (ready)
                    e[s] = e[s] / (double)p;
            } else {
                e[s] = (v - e[s]) * k + e[s];
            }
            v = e[s];
        }
        double y = NAN;
        if (ready && had_e3)
            y = before != 0.0 ? (e[2] / before - 1.0) * 100.0 : 0.0;
        if (t >= begin)
            out[t] = y;
    }
    r->t = end > r->t ? end : r->t;
    for (int s = 0; s < 3; s++) {
        r->n[s] = seen[s];
        r->v[s] = e[s];
    }
}

/* trix's tile and stream (catalog_table.h, RUN): apo__trix_tile, apo__trix_stream_start and
 * apo__trix_stream_run, from the tile's warm-up origin. */
APO_CAT_RUN_ENTRIES(trix, apo__cat_run_from(r, begin > io->h ? begin - io->h : 0),
                    apo__trix_run(io, begin, end, r))

#endif /* APO_KERNELS_TRIX_TILE_H */
