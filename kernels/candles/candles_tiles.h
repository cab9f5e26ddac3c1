/*
 * candles_tiles.h: TA-Lib's candlestick patterns' tile bodies (candle_tile.h's loop over each
 * pattern of patterns_*.h) behind one switch over the family's rows of the table
 * (catalog_table.h), which the CPU (dispatch/catalog_dispatch.c) and this family's CUDA launcher
 * (candles.cu) both call.
 */
#ifndef APO_KERNELS_CANDLES_TILES_H
#define APO_KERNELS_CANDLES_TILES_H

#include "candle_tile.h"
#include "catalog.h"
#include "patterns_more.h"

/* apo__<name>_tile of every pattern, in TA-Lib's alphabetical order, with the averaged measures
 * its settings use (candle_settings.h), whose means its tile computes by blocks. */
APO_CANDLE_TILE(cdl2crows, APO_CDL_USES(BODY10))
APO_CANDLE_TILE(cdl3blackcrows, APO_CDL_USES(RANGE10))
APO_CANDLE_TILE(cdl3inside, APO_CDL_USES(BODY10))
APO_CANDLE_TILE(cdl3linestrike, APO_CDL_USES(RANGE5))
APO_CANDLE_TILE(cdl3outside, 0)
APO_CANDLE_TILE(cdl3starsinsouth, APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE10))
APO_CANDLE_TILE(cdl3whitesoldiers,
                APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE10) | APO_CDL_USES(RANGE5))
APO_CANDLE_TILE_PENETRATION(cdlabandonedbaby, APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE10))
APO_CANDLE_TILE(cdladvanceblock,
                APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE5) | APO_CDL_USES(SHADOWS10))
APO_CANDLE_TILE(cdlbelthold, APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE10))
APO_CANDLE_TILE(cdlbreakaway, APO_CDL_USES(BODY10))
APO_CANDLE_TILE(cdlclosingmarubozu, APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE10))
APO_CANDLE_TILE(cdlconcealbabyswall, APO_CDL_USES(RANGE10))
APO_CANDLE_TILE(cdlcounterattack, APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE5))
APO_CANDLE_TILE_PENETRATION(cdldarkcloudcover, APO_CDL_USES(BODY10))
APO_CANDLE_TILE(cdldoji, APO_CDL_USES(RANGE10))
APO_CANDLE_TILE(cdldojistar, APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE10))
APO_CANDLE_TILE(cdldragonflydoji, APO_CDL_USES(RANGE10))
APO_CANDLE_TILE(cdlengulfing, 0)
APO_CANDLE_TILE_PENETRATION(cdleveningdojistar, APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE10))
APO_CANDLE_TILE_PENETRATION(cdleveningstar, APO_CDL_USES(BODY10))
APO_CANDLE_TILE(cdlgapsidesidewhite, APO_CDL_USES(RANGE5))
APO_CANDLE_TILE(cdlgravestonedoji, APO_CDL_USES(RANGE10))
APO_CANDLE_TILE(cdlhammer, APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE10) | APO_CDL_USES(RANGE5))
APO_CANDLE_TILE(cdlhangingman, APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE10) | APO_CDL_USES(RANGE5))
APO_CANDLE_TILE(cdlharami, APO_CDL_USES(BODY10))
APO_CANDLE_TILE(cdlharamicross, APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE10))
APO_CANDLE_TILE(cdlhighwave, APO_CDL_USES(BODY10))
#ifdef __CUDA_ARCH__
APO_CANDLE_TILE(cdlhikkake, 0)
APO_CANDLE_TILE(cdlhikkakemod, APO_CDL_USES(RANGE5))
#else
/* On the CPU each bar's pattern once a block (patterns_more.h), where each value read four. */
#define APO__CDL_HIKKAKE_TILE(name, uses, modified)                                                \
    APO_CANDLE_TILE_BLOCK(name, uses, int pat[APO_CDL_BLOCK + APO_CDL_HIKKAKE_BEFORE],             \
                          apo__cdl_hikkake_patterns(b, block_first, stop, (modified), pat),        \
                          apo__cdl_hikkake_from(b, t, block_first, pat))
APO__CDL_HIKKAKE_TILE(cdlhikkake, 0, 0)
APO__CDL_HIKKAKE_TILE(cdlhikkakemod, APO_CDL_USES(RANGE5), 1)
#undef APO__CDL_HIKKAKE_TILE
#endif
APO_CANDLE_TILE(cdlhomingpigeon, APO_CDL_USES(BODY10))
APO_CANDLE_TILE(cdlidentical3crows, APO_CDL_USES(RANGE10) | APO_CDL_USES(RANGE5))
APO_CANDLE_TILE(cdlinneck, APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE5))
APO_CANDLE_TILE(cdlinvertedhammer, APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE10))
APO_CANDLE_TILE(cdlkicking, APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE10))
APO_CANDLE_TILE(cdlkickingbylength, APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE10))
APO_CANDLE_TILE(cdlladderbottom, APO_CDL_USES(RANGE10))
APO_CANDLE_TILE(cdllongleggeddoji, APO_CDL_USES(RANGE10))
APO_CANDLE_TILE(cdllongline, APO_CDL_USES(BODY10) | APO_CDL_USES(SHADOWS10))
APO_CANDLE_TILE(cdlmarubozu, APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE10))
APO_CANDLE_TILE(cdlmatchinglow, APO_CDL_USES(RANGE5))
APO_CANDLE_TILE_PENETRATION(cdlmathold, APO_CDL_USES(BODY10))
APO_CANDLE_TILE_PENETRATION(cdlmorningdojistar, APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE10))
APO_CANDLE_TILE_PENETRATION(cdlmorningstar, APO_CDL_USES(BODY10))
APO_CANDLE_TILE(cdlonneck, APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE5))
APO_CANDLE_TILE(cdlpiercing, APO_CDL_USES(BODY10))
APO_CANDLE_TILE(cdlrickshawman, APO_CDL_USES(RANGE10) | APO_CDL_USES(RANGE5))
APO_CANDLE_TILE(cdlrisefall3methods, APO_CDL_USES(BODY10))
APO_CANDLE_TILE(cdlseparatinglines,
                APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE10) | APO_CDL_USES(RANGE5))
APO_CANDLE_TILE(cdlshootingstar, APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE10))
APO_CANDLE_TILE(cdlshortline, APO_CDL_USES(BODY10) | APO_CDL_USES(SHADOWS10))
APO_CANDLE_TILE(cdlspinningtop, APO_CDL_USES(BODY10))
APO_CANDLE_TILE(cdlstalledpattern,
                APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE10) | APO_CDL_USES(RANGE5))
APO_CANDLE_TILE(cdlsticksandwich, APO_CDL_USES(RANGE5))
APO_CANDLE_TILE(cdltakuri, APO_CDL_USES(RANGE10))
APO_CANDLE_TILE(cdltasukigap, APO_CDL_USES(RANGE5))
APO_CANDLE_TILE(cdlthrusting, APO_CDL_USES(BODY10) | APO_CDL_USES(RANGE5))
APO_CANDLE_TILE(cdltristar, APO_CDL_USES(RANGE10))
APO_CANDLE_TILE(cdlunique3river, APO_CDL_USES(BODY10))
APO_CANDLE_TILE(cdlupsidegap2crows, APO_CDL_USES(BODY10))
APO_CANDLE_TILE(cdlxsidegap3methods, 0)

static inline APO_HD void apo__candles_tile(int id, const apo__cat_io *io, size_t begin,
                                            size_t end) {
    switch (id) {
#define APO__CANDLES_CASE(ID, name, room, ...)                                                     \
    APO_CAT_WHEN(room, candles)(case APO_CAT_##ID : apo__##name##_tile(io, begin, end); break;)
        APO_CATALOG(APO__CANDLES_CASE)
#undef APO__CANDLES_CASE
    default:
        break;
    }
}

#endif /* APO_KERNELS_CANDLES_TILES_H */
