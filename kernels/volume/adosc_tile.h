/*
 * adosc_tile.h: ADOSC(fastperiod, slowperiod), TA-Lib's Chaikin A/D oscillator: the fast
 * minus the slow EMA of the accumulation/distribution line. Inputs high, low, close,
 * volume.
 *
 * Definition (TA-Lib's): AD += ((close - low) - (high - close)) / (high - low) * volume at
 * each bar where high - low > 0 (a bar with high <= low adds nothing); both EMAs are
 * seeded with the first AD value and then step e = (k * AD) + ((1 - k) * e), k = 2 / (n + 1),
 * in that order; the output fast - slow starts at max(fast, slow) - 1.
 *
 * Tiles: AD is a running sum from the series' first bar, but ADOSC does not depend on its
 * offset: both EMAs are seeded with the same AD value and are linear, so adding a constant
 * to every AD moves both by that constant and leaves their difference. A tile therefore
 * restarts AD at 0 at w0 = max(0, begin - h), h = max(fast, slow) - 1 + D(2 / (max + 1)),
 * and by `begin` the restarted seeds weigh below 2^-64; the first tile (w0 = 0) runs
 * TA-Lib's recursion itself and has its bits. Later tiles' AD is smaller than TA-Lib's
 * running AD, so they round less.
 *
 * Gaps: a bar with a non-finite high, low, close or volume gives NaN and adds nothing; the
 * EMAs do not step over it (the state skips it).
 */
#ifndef APO_KERNELS_ADOSC_TILE_H
#define APO_KERNELS_ADOSC_TILE_H

#include "catalog.h"
#include "flow.h"
#include "window.h"

/* The tile's start: the loop runs from w0 = max(0, begin - h) with nothing seen
 * (apo__cat_run: n[0] the bars seen, v[0] the A/D line, v[1] and v[2] the fast and slow
 * averages). */
static inline APO_HD void apo__adosc_start(const apo__cat_io *io, size_t begin, apo__cat_run *r) {
    apo__cat_run_from(r, begin > io->h ? begin - io->h : 0);
}

/* The loop from r->t to end, writing the positions from `begin` (the tile's) on. */
static inline APO_HD void apo__adosc_run(const apo__cat_io *io, size_t begin, size_t end,
                                         apo__cat_run *r) {
    double *out = io->out[0];
    const size_t fast = (size_t)io->p[0], slow = (size_t)io->p[1];
    const size_t lookback = (fast > slow ? fast : slow) - 1;
    const double fk = 2.0 / (double)(fast + 1), sk = 2.0 / (double)(slow + 1);
    const double fk1 = 1.0 - fk, sk1 = 1.0 - sk;
    size_t seen = r->n[0];
    double ad = r->v[0], fe = r->v[1], se = r->v[2];
    for (size_t t = r->t; t < end; t++) {
        double y = NAN;
        if (apo__all_finite_at(io->in, 4, t)) {
            ad = apo__ad_add(ad, io, t);
            if (seen == 0) {
                fe = ad;
                se = ad;
            } else {
                fe = (fk * ad) + (fk1 * fe);
                se = (sk * ad) + (sk1 * se);
            }
            seen++;
            if (seen > lookback)
                y = apo__canonical_nan(fe - se);
        }
        if (t >= begin)
            out[t] = y;
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = seen;
    r->v[0] = ad;
    r->v[1] = fe;
    r->v[2] = se;
}

static inline APO_HD void apo__adosc_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__cat_run r;
    apo__adosc_start(io, begin, &r);
    apo__adosc_run(io, begin, end, &r);
}

#endif /* APO_KERNELS_ADOSC_TILE_H */
