/*
 * candles_fixtures.h: what the tests of TA-Lib's candlestick patterns share (test_candles.c,
 * test_candles_textbook.c): the table of the 61 patterns, TA-Lib's own outputs on the series of
 * tests/data/talib_candles.bin (scripts/talib-candle-fixture.py wrote it with TA-Lib 0.8.1), and
 * a pattern run over its tile grid.
 */
#ifndef APO_TEST_CANDLES_FIXTURES_H
#define APO_TEST_CANDLES_FIXTURES_H

#include <stddef.h>

#include "catalog_dispatch.h"

/* A pattern: its catalog id, TA-Lib's name in lower case, and TA-Lib's default penetration
 * (0: the pattern takes none). */
typedef struct candle_pattern {
    apo__cat_id id;
    const char *name;
    double penetration;
} candle_pattern;

#define N_CANDLE_PATTERNS 61
extern const candle_pattern candle_patterns[N_CANDLE_PATTERNS];

/* The fixture: n bars (open, high, low, close, in that order in bars[]) and TA-Lib's output
 * of each pattern of the table at every bar (0 before its lookback, as TA-Lib's wrapper
 * gives), with the penetration TA-Lib ran with (-1: none). */
typedef struct candle_fixture {
    size_t n;
    double *bars[4];
    int *talib[N_CANDLE_PATTERNS];
    double penetration[N_CANDLE_PATTERNS];
} candle_fixture;

/* Reads tests/data/talib_candles.bin, asserting its shape and that its patterns are the
 * table's, in its order. */
void candle_fixture_load(candle_fixture *f);
void candle_fixture_free(candle_fixture *f);

/* The io of pattern k on bars[] (n each) into out, at penetration pen. */
apo__cat_io candle_io(const candle_pattern *k, double *const *bars, double *out, double pen);

/* Pattern k over [0, n) in the tiles of its grid, the tiles backwards. */
void candle_run_grid(const candle_pattern *k, double *const *bars, size_t n, double *out,
                     double pen);

#endif
