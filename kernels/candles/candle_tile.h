/*
 * candle_tile.h: the one tile loop of every candlestick pattern (docs/kernels/candles.md,
 * "Candlestick patterns"). A pattern is a function apo__<name>_at(bars, t[, penetration]) giving
 * TA-Lib's integer at bar t from the bars t - lookback .. t alone; the loop stores it as a double.
 *
 * The lookback is the halo (the row's halo rule is WINDOW, so io->h is the lookback): the first
 * lookback outputs are NaN, TA-Lib's lead. Gaps: a bar whose open, high, low or close is not
 * finite makes NaN every output whose lookback + 1 bars hold it, and no other; the loop tracks
 * the first bar whose window is clean again, from the lookback bars before the tile, so each
 * output is a function of its own window and the tiles, streams (POSITION) and devices agree.
 */
#ifndef APO_KERNELS_CANDLE_TILE_H
#define APO_KERNELS_CANDLE_TILE_H

#include "candle_means.h"
#include "candle_settings.h"
#include "catalog.h"

/* The catalog's inputs as bars. */
static inline APO_HD apo__candle_bars apo__candle_bars_of(const apo__cat_io *io) {
    apo__candle_bars b;
    b.open = io->in[0];
    b.high = io->in[1];
    b.low = io->in[2];
    b.close = io->in[3];
    return b;
}

/* 1 when the four prices of bar j are finite. */
static APO_CAT_SPECIALISED APO_HD int apo__candle_clean(const apo__candle_bars *b, size_t j) {
    return apo__finite(b->open[j]) & apo__finite(b->high[j]) & apo__finite(b->low[j]) &
           apo__finite(b->close[j]);
}

/* The first bar at or after `from` whose window of lookback + 1 bars holds no gap seen in the
 * bars [from - lookback, from) (from >= lookback). */
static inline APO_HD size_t apo__candle_first_clean(const apo__candle_bars *b, size_t from,
                                                    size_t lookback) {
    size_t clean = from;
    for (size_t j = from - lookback; j < from; j++)
        if (!apo__candle_clean(b, j))
            clean = j + lookback + 1;
    return clean;
}

/* 1 when bars [from, end) hold no gap: a loop without branches, which the CPU runs in vector
 * lanes. */
static APO_CAT_SPECIALISED APO_HD int apo__candle_all_clean(const apo__candle_bars *b, size_t from,
                                                            size_t end) {
    int clean = 1;
    for (size_t j = from; j < end; j++)
        clean &= apo__candle_clean(b, j);
    return clean;
}

/*
 * The tile body apo__<name>_tile of a pattern: NaN before the lookback and where the window
 * holds a gap, else the pattern's value. The outputs go by blocks of APO_CDL_BLOCK bars: the
 * means of the measures the pattern uses (`uses`, APO_CDL_USES bits; a measure left out is
 * summed afresh where the pattern asks for it, with the same bits) for the block's candles, then
 * the pattern bar by bar; where the block's window holds no gap and none before it reaches in, the
 * bars skip the gap test. APO_CANDLE_TILE for the patterns without parameter,
 * APO_CANDLE_TILE_PENETRATION for those that take TA-Lib's penetration (the first parameter),
 * APO_CANDLE_TILE_BLOCK for those that compute something once a block: `state` declares it
 * (before the blocks), `prepare` computes it for the block's bars [block_first, stop) after
 * their means, and `call` reads it.
 */
#define APO_CANDLE_TILE_BLOCK(name, uses, state, prepare, call)                                    \
    static inline APO_HD void apo__##name##_tile(const apo__cat_io *io, size_t begin,              \
                                                 size_t end) {                                     \
        const apo__candle_bars bars = apo__candle_bars_of(io);                                     \
        const size_t lookback = io->h;                                                             \
        double *out = io->out[0];                                                                  \
        size_t t = apo__cat_nan_lead(out, begin, end, lookback);                                   \
        if (t >= end)                                                                              \
            return;                                                                                \
        size_t clean = apo__candle_first_clean(&bars, t, lookback);                                \
        apo__candle_block blk;                                                                     \
        state;                                                                                     \
        while (t < end) {                                                                          \
            const size_t stop = end - t < APO_CDL_BLOCK ? end : t + APO_CDL_BLOCK;                 \
            const apo__candle_bars with_means =                                                    \
                apo__cdl_with_means(bars, (uses), t - lookback, stop, &blk);                       \
            const apo__candle_bars *const b = &with_means;                                         \
            const size_t block_first = t;                                                          \
            (void)block_first;                                                                     \
            prepare;                                                                               \
            if (t >= clean && apo__candle_all_clean(b, t, stop)) {                                 \
                for (; t < stop; t++)                                                              \
                    out[t] = (double)(call);                                                       \
                continue;                                                                          \
            }                                                                                      \
            for (; t < stop; t++) {                                                                \
                if (!apo__candle_clean(b, t))                                                      \
                    clean = t + lookback + 1;                                                      \
                out[t] = t >= clean ? (double)(call) : (double)NAN;                                \
            }                                                                                      \
        }                                                                                          \
    }
#define APO_CANDLE_TILE(name, uses)                                                                \
    APO_CANDLE_TILE_BLOCK(name, uses, (void)0, (void)0, apo__##name##_at(b, t))
#define APO_CANDLE_TILE_PENETRATION(name, uses)                                                    \
    APO_CANDLE_TILE_BLOCK(name, uses, (void)0, (void)0, apo__##name##_at(b, t, io->p[0]))

#endif /* APO_KERNELS_CANDLE_TILE_H */
