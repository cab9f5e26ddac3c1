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

/* apo__<name>_tile of every pattern, in TA-Lib's alphabetical order. */
APO_CANDLE_TILE(cdl2crows)
APO_CANDLE_TILE(cdl3blackcrows)
APO_CANDLE_TILE(cdl3inside)
APO_CANDLE_TILE(cdl3linestrike)
APO_CANDLE_TILE(cdl3outside)
APO_CANDLE_TILE(cdl3starsinsouth)
APO_CANDLE_TILE(cdl3whitesoldiers)
APO_CANDLE_TILE_PENETRATION(cdlabandonedbaby)
APO_CANDLE_TILE(cdladvanceblock)
APO_CANDLE_TILE(cdlbelthold)
APO_CANDLE_TILE(cdlbreakaway)
APO_CANDLE_TILE(cdlclosingmarubozu)
APO_CANDLE_TILE(cdlconcealbabyswall)
APO_CANDLE_TILE(cdlcounterattack)
APO_CANDLE_TILE_PENETRATION(cdldarkcloudcover)
APO_CANDLE_TILE(cdldoji)
APO_CANDLE_TILE(cdldojistar)
APO_CANDLE_TILE(cdldragonflydoji)
APO_CANDLE_TILE(cdlengulfing)
APO_CANDLE_TILE_PENETRATION(cdleveningdojistar)
APO_CANDLE_TILE_PENETRATION(cdleveningstar)
APO_CANDLE_TILE(cdlgapsidesidewhite)
APO_CANDLE_TILE(cdlgravestonedoji)
APO_CANDLE_TILE(cdlhammer)
APO_CANDLE_TILE(cdlhangingman)
APO_CANDLE_TILE(cdlharami)
APO_CANDLE_TILE(cdlharamicross)
APO_CANDLE_TILE(cdlhighwave)
APO_CANDLE_TILE(cdlhikkake)
APO_CANDLE_TILE(cdlhikkakemod)
APO_CANDLE_TILE(cdlhomingpigeon)
APO_CANDLE_TILE(cdlidentical3crows)
APO_CANDLE_TILE(cdlinneck)
APO_CANDLE_TILE(cdlinvertedhammer)
APO_CANDLE_TILE(cdlkicking)
APO_CANDLE_TILE(cdlkickingbylength)
APO_CANDLE_TILE(cdlladderbottom)
APO_CANDLE_TILE(cdllongleggeddoji)
APO_CANDLE_TILE(cdllongline)
APO_CANDLE_TILE(cdlmarubozu)
APO_CANDLE_TILE(cdlmatchinglow)
APO_CANDLE_TILE_PENETRATION(cdlmathold)
APO_CANDLE_TILE_PENETRATION(cdlmorningdojistar)
APO_CANDLE_TILE_PENETRATION(cdlmorningstar)
APO_CANDLE_TILE(cdlonneck)
APO_CANDLE_TILE(cdlpiercing)
APO_CANDLE_TILE(cdlrickshawman)
APO_CANDLE_TILE(cdlrisefall3methods)
APO_CANDLE_TILE(cdlseparatinglines)
APO_CANDLE_TILE(cdlshootingstar)
APO_CANDLE_TILE(cdlshortline)
APO_CANDLE_TILE(cdlspinningtop)
APO_CANDLE_TILE(cdlstalledpattern)
APO_CANDLE_TILE(cdlsticksandwich)
APO_CANDLE_TILE(cdltakuri)
APO_CANDLE_TILE(cdltasukigap)
APO_CANDLE_TILE(cdlthrusting)
APO_CANDLE_TILE(cdltristar)
APO_CANDLE_TILE(cdlunique3river)
APO_CANDLE_TILE(cdlupsidegap2crows)
APO_CANDLE_TILE(cdlxsidegap3methods)

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
