/*
 * eri_tile.h: ERI(timeperiod), TA-Lib 0.8's Elder ray index: the distances of the bar's
 * extremes from the EMA(p) of the close, bullpower = high - EMA and bearpower = low - EMA.
 * Inputs high, low, close; outputs bullpower, bearpower; lookback p - 1 (the EMA's).
 *
 * The EMA is the catalog's ema body (averages/ema_tile.h: TA-Lib's seed and step, its gap
 * rule and its tiles), run into the bearpower row and then turned into the two powers, so
 * ERI's EMA has ema's bits over the same grid. At p = 1 the EMA is the close itself, as TA-Lib
 * takes it (ema's step `(x - e)*1 + e` may differ from x in its last bit). Gaps: a non-finite
 * close is ema's gap (NaN, the state skips it); a non-finite high or low makes its power NaN.
 * The stream is ema's run (RUN), each piece's powers formed as it ends.
 *
 * Consecutive tiles of a row come to the CPU as one call over their union (the JOIN trait,
 * catalog_table.h), whose EMAs run side by side as ema's do (apo__ema_side_by_side: each tile
 * from its own start, so each with its own bits), and then the powers: one tile's chain waits
 * on three dependent operations a bar, which held eri at 0.6 to 0.7 of TA-Lib. The powers
 * then take a vector of bars at a time (apo__eri_powers_lanes).
 */
#ifndef APO_KERNELS_ERI_TILE_H
#define APO_KERNELS_ERI_TILE_H

#include "catalog.h"
#include "ema_tile.h"
#include "tile_vec.h"

/* The call of ema on ERI's close, into the bearpower row. */
static inline APO_HD apo__cat_io apo__eri_ema_io(const apo__cat_io *io) {
    apo__cat_io e = *io;
    e.in[0] = io->in[2];
    e.out[0] = io->out[1];
    return e;
}

#ifdef APO_TILE_LANES
/* apo__eri_powers' bars from `from` on in vector lanes, a bar a lane (the same subtraction and
 * the same NaN in each); returns the first bar left to it. One bar at a time, its finiteness
 * tests took a branch each and half of a 1e4-bar call on the Zen 3 VM. */
static inline size_t apo__eri_powers_lanes(const apo__cat_io *io, size_t from, size_t end) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double *bull = io->out[0], *bear = io->out[1];
    const double *ema = io->p[0] == 1.0 ? close : bear;
    size_t t = from;
    for (; t < end && end - t >= APO_TILE_LANES; t += APO_TILE_LANES) {
        const apo_tv e = apo_tv_load(ema + t), h = apo_tv_load(high + t), l = apo_tv_load(low + t);
        const apo_tm ok = apo_tv_finite(e);
        apo_tv_store(bull + t, apo_tv_or_nan(ok & apo_tv_finite(h), h - e));
        apo_tv_store(bear + t, apo_tv_or_nan(ok & apo_tv_finite(l), l - e));
    }
    return t;
}
#endif

/* The powers of [from, end) from the EMA in the bearpower row (the close itself at p = 1). */
static inline APO_HD void apo__eri_powers(const apo__cat_io *io, size_t from, size_t end) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double *bull = io->out[0], *bear = io->out[1];
    const int copy = io->p[0] == 1.0;
#ifdef APO_TILE_LANES
    from = apo__eri_powers_lanes(io, from, end);
#endif
    for (size_t t = from; t < end; t++) {
        const double e = copy ? (apo__finite(close[t]) ? close[t] : (double)NAN) : bear[t];
        const double h = high[t], l = low[t];
        const int ok = apo__finite(e);
        bull[t] = ok & apo__finite(h) ? h - e : (double)NAN;
        bear[t] = ok & apo__finite(l) ? l - e : (double)NAN;
    }
}

static inline APO_HD void apo__eri_stream_start(const apo__cat_io *io, size_t begin,
                                                apo__cat_run *r) {
    const apo__cat_io e = apo__eri_ema_io(io);
    apo__ema_start(&e, begin, r);
}

static inline APO_HD void apo__eri_stream_run(const apo__cat_io *io, size_t begin, size_t end,
                                              apo__cat_run *r) {
    const size_t from = r->t > begin ? r->t : begin;
    if (io->p[0] != 1.0) {
        const apo__cat_io e = apo__eri_ema_io(io);
        apo__ema_run(&e, begin, end, r);
    } else {
        r->t = end;
    }
    apo__eri_powers(io, from, end);
}

static inline APO_HD void apo__eri_tile(const apo__cat_io *io, size_t begin, size_t end) {
#ifndef __CUDA_ARCH__
    /* Several tiles (a GPU thread takes one: its launcher leaves io->tile 0). */
    if (io->p[0] != 1.0 && apo__cat_spans_tiles(io, begin, end)) {
        const apo__cat_io e = apo__eri_ema_io(io);
        apo__ema_side_by_side(&e, begin, end);
        apo__eri_powers(io, begin, end);
        return;
    }
#endif
    apo__cat_run r;
    apo__eri_stream_start(io, begin, &r);
    apo__eri_stream_run(io, begin, end, &r);
}

#endif /* APO_KERNELS_ERI_TILE_H */
