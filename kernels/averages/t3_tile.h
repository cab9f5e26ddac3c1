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
 */
#ifndef APO_KERNELS_T3_TILE_H
#define APO_KERNELS_T3_TILE_H

#include "catalog.h"
#include "run_entries.h"

#define APO_T3_STAGES 6

static inline APO_HD void apo__t3_start(const apo__cat_io *io, size_t begin, apo__cat_run *r) {
    apo__cat_run_from(r, begin > io->h ? begin - io->h : 0);
}

/* One finite sample v through the chain: the seeded stages step, the filling one adds v (or
 * the value its stage before just took). Returns 1 when every stage is seeded. */
static inline APO_HD int apo__t3_push(double v, size_t p, double k, double one_minus_k,
                                      size_t *stage, size_t *seen, double *e) {
    for (size_t s = 0; s < APO_T3_STAGES; s++) {
        if (s < *stage) {
            e[s] = k * v + one_minus_k * e[s];
            v = e[s];
            continue;
        }
        e[s] = e[s] + v;
        if (++*seen < p)
            return 0;
        e[s] = e[s] / (double)p;
        v = e[s];
        *stage = s + 1;
        *seen = 0;
        if (s + 1 < APO_T3_STAGES)
            e[s + 1] = 0.0;
    }
    return 1;
}

/* The loop from r->t to end, writing the positions from `begin` on. */
static inline APO_HD void apo__t3_run(const apo__cat_io *io, size_t begin, size_t end,
                                      apo__cat_run *r) {
    const double *x = io->in[0];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const double a = io->p[1];
    const double k = 2.0 / ((double)p + 1.0), one_minus_k = 1.0 - k;
    const double a2 = a * a;
    const double c1 = 0.0 - a2 * a;
    const double c2 = 3.0 * (a2 - c1);
    const double c3 = (0.0 - 6.0) * a2 - 3.0 * (a - c1);
    const double c4 = 1.0 + 3.0 * a - c1 + 3.0 * a2;
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
            else if (apo__t3_push(v, p, k, one_minus_k, &stage, &seen, e))
                y = c1 * e[5] + c2 * e[4] + c3 * e[3] + c4 * e[2];
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

/* t3's tile and stream (catalog_table.h, RUN): apo__t3_tile, apo__t3_stream_start and
 * apo__t3_stream_run, its start at `begin` and its run to `end`. */
APO_CAT_RUN_ENTRIES(t3, apo__t3_start(io, begin, r), apo__t3_run(io, begin, end, r))

#endif /* APO_KERNELS_T3_TILE_H */
