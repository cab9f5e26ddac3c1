/*
 * ht_tile.h: TA-Lib's Hilbert-transform cycle indicators, one input (close) each:
 * ht_dcperiod (the dominant cycle's smoothed period), ht_phasor (inphase, quadrature),
 * ht_dcphase (the dominant cycle's phase), ht_sine (sine, leadsine), ht_trendmode (1 in a
 * trend, 0 in a cycle, as a double) and ht_trendline, all from the transform of hilbert.h.
 * TA-Lib's lookbacks: 32 for ht_dcperiod and ht_phasor (the transform starts at bar 12), 63
 * for the others (it starts at bar 37).
 *
 * Tiles: the transform adapts its filters to its own period, so its state at t depends on
 * every bar before t, and no halo of fixed length reproduces it bit for bit. Every tile
 * therefore runs it from the row's first bar, storing nothing before `begin` (the kernels are
 * whole-row: catalog.h): the operations that give output t are one sequence whichever tile t
 * falls in, so the bits do not depend on the grid (docs/kernels/cycles.md, "Cycle indicators").
 *
 * Gaps: a bar with a non-finite close gives NaN and is taken out of the series: the clean
 * bars' outputs are the indicator of the series with its gap bars removed (obv's rule), the
 * lookback counted in clean bars.
 *
 * Streams carry the transform's state (APO_HT_CARRY doubles) and step it over the new bars
 * with the tile's own loop, so the streamed outputs are the batch's bits.
 */
#ifndef APO_KERNELS_HT_TILE_H
#define APO_KERNELS_HT_TILE_H

#include "catalog.h"
#include "hilbert.h"
#include "ht_trendline_lanes.h"

/* Which kernel a run writes. */
enum {
    APO__HT_DCPERIOD,
    APO__HT_PHASOR,
    APO__HT_DCPHASE,
    APO__HT_SINE,
    APO__HT_TRENDMODE,
    APO__HT_TRENDLINE
};

/* The kernels of lookback 63 start the transform at bar 37; all but ht_trendline run the
 * phase, the sines, the trend line and the mode (ht_trendline the trend line alone). */
static inline APO_HD int apo__ht_full(int kind) { return kind >= APO__HT_DCPHASE; }

/* Writes bar t's outputs of `kind` from the state (NaN while it is in its lookback). */
static inline APO_HD void apo__ht_store(const apo__cat_io *io, size_t t, int kind,
                                        const apo__ht_state *s, int ready) {
    double a = NAN, b = NAN;
    if (ready) {
        switch (kind) {
        case APO__HT_DCPERIOD:
            a = s->smooth_period;
            break;
        case APO__HT_PHASOR:
            a = s->i1, b = s->quad;
            break;
        case APO__HT_DCPHASE:
            a = s->phase;
            break;
        case APO__HT_SINE:
            a = s->sine, b = s->lead_sine;
            break;
        case APO__HT_TRENDMODE:
            a = s->trend;
            break;
        default:
            a = s->trendline;
            break;
        }
    }
    /* Prices near DBL_MAX may overflow into an arithmetic NaN, whose bits the CPU and the
     * GPU do not share (apo_hd.h). */
    io->out[0][t] = apo__canonical_nan(a);
    if (kind == APO__HT_PHASOR || kind == APO__HT_SINE)
        io->out[1][t] = apo__canonical_nan(b);
}

/* Steps the state over bar t of the row, writing its outputs if t is `begin` or later. */
static inline APO_HD void apo__ht_bar(apo__ht_state *s, const apo__cat_io *io, size_t t,
                                      size_t begin, int kind, apo__ht_wave *w) {
    const int full = apo__ht_full(kind);
    const size_t start = full ? APO_HT_LONG_START : APO_HT_SHORT_START;
    const size_t lookback = full ? APO_HT_LONG_LOOKBACK : APO_HT_SHORT_LOOKBACK;
    const double x = io->in[0][t];
    if (!isfinite(x)) {
        if (t >= begin)
            apo__ht_store(io, t, kind, s, 0);
        return;
    }
    const size_t n = (size_t)s->bars;
    if (kind == APO__HT_TRENDLINE)
        apo__ht_step_trendline(s, x, start);
    else if (full)
        apo__ht_step_cycle(s, x, start, w);
    else
        apo__ht_step_period(s, x, start);
    if (t >= begin)
        apo__ht_store(io, t, kind, s, n >= lookback);
}

/* Steps the state over bars [from, end), writing the outputs of those from `begin` on. The
 * tile and a stream's carried run both are this loop; on the CPU's vector paths ht_trendline
 * takes its trend lines a chunk at a time in lanes once the transform has started
 * (ht_trendline_lanes.h, the same bits). */
static inline APO_HD void apo__ht_run(apo__ht_state *s, const apo__cat_io *io, size_t from,
                                      size_t begin, size_t end, int kind) {
    apo__ht_wave w;
    w.n = -1;
    size_t t = from;
#ifdef APO_TILE_LANES
    if (kind == APO__HT_TRENDLINE) {
        for (; t < end && s->bars < (double)APO_HT_LONG_START; t++)
            apo__ht_bar(s, io, t, begin, kind, &w);
        apo__ht_trendline_chunks(s, io, t, begin, end);
        return;
    }
#endif
    for (; t < end; t++)
        apo__ht_bar(s, io, t, begin, kind, &w);
}

static inline APO_HD void apo__ht_tile(const apo__cat_io *io, size_t begin, size_t end, int kind) {
    apo__ht_state s;
    apo__ht_init(&s);
    apo__ht_run(&s, io, 0, begin, end, kind);
}

/* A stream's series fed on from bar `begin` to `stop` - 1, going on from the state `c` its
 * last piece left (all zeros before the first bar: the tile's start state). */
static inline void apo__ht_carry(const apo__cat_io *io, double *c, size_t begin, size_t stop,
                                 int kind) {
    apo__ht_state s;
    memcpy(&s, c, sizeof s);
    apo__ht_run(&s, io, begin, begin, stop, kind);
    memcpy(c, &s, sizeof s);
}

#define APO__HT_KERNEL(name, kind)                                                                 \
    static inline APO_HD void apo__##name##_tile(const apo__cat_io *io, size_t begin,              \
                                                 size_t end) {                                     \
        apo__ht_tile(io, begin, end, kind);                                                        \
    }                                                                                              \
    static inline void apo__##name##_carry(const apo__cat_io *io, double *c, size_t begin,         \
                                           size_t stop) {                                          \
        apo__ht_carry(io, c, begin, stop, kind);                                                   \
    }
APO__HT_KERNEL(ht_dcperiod, APO__HT_DCPERIOD)
APO__HT_KERNEL(ht_phasor, APO__HT_PHASOR)
APO__HT_KERNEL(ht_dcphase, APO__HT_DCPHASE)
APO__HT_KERNEL(ht_sine, APO__HT_SINE)
APO__HT_KERNEL(ht_trendmode, APO__HT_TRENDMODE)
APO__HT_KERNEL(ht_trendline, APO__HT_TRENDLINE)
#undef APO__HT_KERNEL

/* Doubles of the state each kernel's stream carries per series. */
#define APO_HT_DCPERIOD_CARRY APO_HT_CARRY
#define APO_HT_PHASOR_CARRY APO_HT_CARRY
#define APO_HT_DCPHASE_CARRY APO_HT_CARRY
#define APO_HT_SINE_CARRY APO_HT_CARRY
#define APO_HT_TRENDMODE_CARRY APO_HT_CARRY
#define APO_HT_TRENDLINE_CARRY APO_HT_CARRY

#endif /* APO_KERNELS_HT_TILE_H */
