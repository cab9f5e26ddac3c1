/*
 * mama_tile.h: TA-Lib's MESA adaptive moving average (MAMA, John Ehlers), one input (close),
 * parameters fastlimit and slowlimit, outputs mama and fama (the following average), lookback
 * 32 (docs/kernels/overlap.md, "MAMA, and TA-Lib's matype 7"), and TA-Lib's MA at matype 7, which
 * is mama's first output at fastlimit 0.5 and slowlimit 0.05 (apo__mama_span, for ma_type.h).
 *
 * What: the transform of common/hilbert.h, the same step ht_dcperiod and ht_phasor run (from bar
 * 12), gives each clean bar its in-phase I1 and quadrature Q1. The phase is atan(Q1 / I1) in
 * degrees (0 where I1 is 0); its fall since the last bar, at least 1, sets the rate
 * alpha = fastlimit / fall, held at slowlimit or above (fastlimit where the fall is 1); then
 * mama = alpha x + (1 - alpha) mama and fama = (alpha / 2) mama + (1 - alpha / 2) fama, both
 * from 0 at the transform's start bar, as TA-Lib starts them. The rate reads the transform and
 * never feeds it, so the transform's steps are ht_dcperiod's to the bit.
 *
 * Tiles, gaps and streams are the cycle family's (cycles/ht_tile.h): every tile runs from the
 * row's first bar (whole-row; ma and bbands at matype 7 are whole-row too, by their parameters:
 * apo__catalog_whole_row_at), a bar with a non-finite close gives NaN and is taken out of the
 * series, and a stream carries the state (APO_MAMA_CARRY doubles) and steps it with the tile's
 * own loop.
 */
#ifndef APO_KERNELS_MAMA_TILE_H
#define APO_KERNELS_MAMA_TILE_H

#include "catalog.h"
#include "hilbert.h"

/* The transform's first bar and TA-Lib's lookback, those of ht_dcperiod. */
#define APO_MAMA_START APO_HT_SHORT_START
#define APO_MAMA_LOOKBACK APO_HT_SHORT_LOOKBACK
/* TA-Lib's defaults, which its MA takes at matype 7. */
#define APO_MAMA_FAST_LIMIT 0.5
#define APO_MAMA_SLOW_LIMIT 0.05

typedef struct apo__mama_state {
    apo__ht_state ht;
    double phase; /* the last bar's phase, degrees */
    double mama, fama;
} apo__mama_state;

/* Doubles of the state a stream carries per series. */
#define APO_MAMA_CARRY (sizeof(apo__mama_state) / sizeof(double))

/* The averages' step at a bar the transform has just stepped (I1 and Q1 in s->ht). */
static inline APO_HD void apo__mama_average(apo__mama_state *s, double x, double fast_limit,
                                            double slow_limit) {
    const double deg = 180.0 / APO_TRIG_PI_HI;
    const double phase = s->ht.i1 != 0.0 ? apo__atan(s->ht.quad / s->ht.i1) * deg : 0.0;
    double fall = s->phase - phase;
    s->phase = phase;
    if (fall < 1.0)
        fall = 1.0;
    double alpha = fast_limit;
    if (fall > 1.0) {
        alpha = fast_limit / fall;
        if (alpha < slow_limit)
            alpha = slow_limit;
    }
    s->mama = alpha * x + (1.0 - alpha) * s->mama;
    const double half = 0.5 * alpha;
    s->fama = half * s->mama + (1.0 - half) * s->fama;
}

/* Steps the state over bars [from, end), writing the outputs of those from `begin` on (fama
 * only where io->out[1] is given: MA at matype 7 has mama alone): the tile's loop and a
 * stream's carried run (cycles/ht_tile.h's apo__ht_run, with the averages' step). */
static inline APO_HD void apo__mama_run(apo__mama_state *s, const apo__cat_io *io, size_t from,
                                        size_t begin, size_t end) {
    const double fast_limit = io->p[0], slow_limit = io->p[1];
    for (size_t t = from; t < end; t++) {
        const double x = io->in[0][t];
        double mama = NAN, fama = NAN;
        if (isfinite(x)) {
            const size_t n = (size_t)s->ht.bars;
            if (apo__ht_step_period(&s->ht, x, APO_MAMA_START))
                apo__mama_average(s, x, fast_limit, slow_limit);
            if (n >= APO_MAMA_LOOKBACK)
                mama = s->mama, fama = s->fama;
        }
        if (t >= begin) {
            /* Prices near DBL_MAX may overflow into an arithmetic NaN (apo_hd.h). */
            io->out[0][t] = apo__canonical_nan(mama);
            if (io->out[1] != NULL)
                io->out[1][t] = apo__canonical_nan(fama);
        }
    }
}

static inline APO_HD void apo__mama_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__mama_state s;
    memset(&s, 0, sizeof s);
    apo__mama_run(&s, io, 0, begin, end);
}

/* MA(matype 7) of row x into row out over [begin, end): mama at TA-Lib's default limits, run
 * from the row's first bar as the kernel's tile. */
static inline APO_HD void apo__mama_span(const double *x, double *out, size_t begin, size_t end) {
    apo__cat_io io;
    memset(&io, 0, sizeof io);
    io.in[0] = x;
    io.out[0] = out;
    io.p[0] = APO_MAMA_FAST_LIMIT;
    io.p[1] = APO_MAMA_SLOW_LIMIT;
    apo__mama_tile(&io, begin, end);
}

/* A stream's series fed on from bar `begin` to `stop` - 1, going on from the state `c` its
 * last piece left (all zeros before the first bar: the tile's start state). */
static inline void apo__mama_carry(const apo__cat_io *io, double *c, size_t begin, size_t stop) {
    apo__mama_state s;
    memcpy(&s, c, sizeof s);
    apo__mama_run(&s, io, begin, begin, stop);
    memcpy(c, &s, sizeof s);
}

#endif /* APO_KERNELS_MAMA_TILE_H */
