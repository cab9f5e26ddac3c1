/*
 * macdfix_tile.h: MACDFIX(signalperiod), TA-Lib's MACD with its fixed rates: the fast EMA of
 * rate 0.15 and the slow of 0.075 (not 2/13 and 2/27), seeded as MACD(12, 26) seeds them, and
 * the signal line the EMA(signalperiod) of macd; outputs macd, macdsignal, macdhist. The
 * lookback is 25 + (signalperiod - 1).
 *
 * The arithmetic is the built-in macd's (macd_tile.h: its seeds, steps, phases and gap rule,
 * docs/kernels.md "## macd") with these rates, so the two agree on everything but k.
 *
 * Tile: the tile reruns from w0 = max(0, begin - h), h = 25 + (signalperiod - 1) + D(0.075)
 * + D(2 / (signalperiod + 1)) (the table's MACDFIX halo, macd's rule with the slow rate
 * 0.075). Stream: NONE (a piece re-runs its tile from the start): macd's state between its
 * phases does not fit apo__cat_run.
 *
 * On the CPU a row's tiles take macd's rounds of vector lanes and a lone tile macd's cut into
 * pieces in lanes, checked bit for bit (apo__cpu_macdfix_tiles, dispatch/lanes_dispatch.c;
 * catalog_dispatch.c, builtin_body_tiles, with the measurements), at these rates: the bits of
 * this body, as macd's lanes have macd's.
 */
#ifndef APO_KERNELS_MACDFIX_TILE_H
#define APO_KERNELS_MACDFIX_TILE_H

#include "catalog.h"
#include "macd_tile.h"

/* TA-Lib's fixed rates and the periods whose means seed them. */
#define APO_MACDFIX_FAST_RATE 0.15
#define APO_MACDFIX_SLOW_RATE 0.075
#define APO_MACDFIX_FAST 12
#define APO_MACDFIX_SLOW 26

/* The rates at signalperiod `signal`. */
static inline APO_HD apo__macd_rates apo__macdfix_rates(size_t signal) {
    apo__macd_rates r;
    r.kf = APO_MACDFIX_FAST_RATE;
    r.ks = APO_MACDFIX_SLOW_RATE;
    r.kg = 2.0 / ((double)signal + 1.0);
    return r;
}

static inline APO_HD void apo__macdfix_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const size_t signal = (size_t)io->p[0];
    const apo__macd_rates r = apo__macdfix_rates(signal);
    apo__macd_tile_at(apo__in_at(io->in[0]), begin, end, APO_MACDFIX_FAST, APO_MACDFIX_SLOW, signal,
                      io->h, &r, apo__out_at(io->out[0]), apo__out_at(io->out[1]),
                      apo__out_at(io->out[2]));
}

#endif /* APO_KERNELS_MACDFIX_TILE_H */
