/*
 * The catalog's CUDA sources (kernels/<room>/<room>.cu, one launcher per family, catalog_launch.h)
 * run on the host through the SIMT layer (docs/simt.md): every
 * catalog kernel, at its defaults and at other parameters, on bars with gaps, infinities and
 * flat stretches, through its family's real launcher, must give the bits of the CPU's tile
 * (apo__cpu_catalog_tile) in every position of the views the runtime hands a launcher (the
 * whole chunk, and one row from its second tile to its last tile's start), and leave every
 * position outside the view as it found it. Beside them, the same rows on every vector path the
 * CPU has (avx2, avx512), in tile groups as the runtime hands them, must give those sse2 bits.
 *
 * The kernels' parameters are written here rather than read from the runtime's descriptors:
 * the runtime of a CUDA build links the same launchers compiled by nvcc, whose symbols would
 * clash with these. A parameter list that the descriptors would refuse still runs (the bodies
 * take any values), so the table only has to be a fair choice, not the defaults exactly.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_cuda.h"
#include "catalog_dispatch.h"
#include "catalog_shapes.h"
#include "cpu_isa.h"
#include "cut.h"
#include "helpers.h"
#include "simt_api.h"
#include "simt_bars.h"

#define ROWS 3

/* Parameters by kernel, in the descriptors' order (runtime/catalog/catalog_kernels.c): TA-Lib's
 * defaults, a second set with other periods, and for the kernels whose long windows take
 * other code (a slide of double-doubles, plain slides up to APO_PLAIN_MAX and
 * APO_LINREG_PLAIN_MAX, cci's blocks, which a GPU thread takes only up to 64, var's, correl's
 * and beta's longer blocks, which a GPU thread takes one at a time) a third set past those
 * limits (0: none). */
typedef struct cat_params {
    apo__cat_id id;
    size_t n;
    double defaults[APO_CAT_MAX_PAR], other[APO_CAT_MAX_PAR], longer[APO_CAT_MAX_PAR];
} cat_params;

static const cat_params table[] = {
    {APO_CAT_SMA, 1, {30}, {7}, {600}}, /* window_plain.h: anchors 512 apart */
    {APO_CAT_EMA, 1, {30}, {5}, {0}},
    {APO_CAT_WMA, 1, {30}, {9}, {300}},
    {APO_CAT_DEMA, 1, {30}, {6}, {0}},
    {APO_CAT_TEMA, 1, {30}, {4}, {0}},
    {APO_CAT_MOM, 1, {10}, {1}, {0}},
    {APO_CAT_ROC, 1, {10}, {3}, {0}},
    {APO_CAT_RSI, 1, {14}, {2}, {0}},
    {APO_CAT_CMO, 1, {14}, {9}, {0}},
    {APO_CAT_WILLR, 1, {14}, {40}, {0}},
    {APO_CAT_CCI, 1, {14}, {20}, {100}},
    {APO_CAT_STOCHF, 3, {5, 3, 0}, {14, 5, 0}, {0}},
    {APO_CAT_STOCH, 5, {5, 3, 0, 3, 0}, {9, 4, 0, 2, 0}, {0}},
    {APO_CAT_STDDEV, 2, {5, 1}, {21, 2}, {40, 1}},
    {APO_CAT_VAR, 2, {5, 1}, {1, 1}, {200, 1}}, /* var_blocks.h: blocks of 64 */
    {APO_CAT_MAX, 1, {30}, {3}, {0}},
    {APO_CAT_MIN, 1, {30}, {3}, {0}},
    /* linearreg: 14 each window's sum, 200 and 30 shifted plain sums slid between anchors 64 and
     * 32 bars apart, 2100 (past APO_LINREG_PLAIN_MAX) the double-double slide. */
    {APO_CAT_LINEARREG, 1, {14}, {200}, {2100}},
    {APO_CAT_LINEARREG_SLOPE, 1, {14}, {3}, {30}},
    {APO_CAT_CORREL, 1, {30}, {8}, {200}}, /* blocks of 64 (correl_tile.h) */
    {APO_CAT_BETA, 1, {5}, {12}, {512}},   /* blocks, a GPU thread's returns filling their room */
    {APO_CAT_TRANGE, 0, {0}, {0}, {0}},
    {APO_CAT_ATR, 1, {14}, {1}, {0}},
    {APO_CAT_NATR, 1, {14}, {5}, {0}},
    {APO_CAT_AROON, 1, {14}, {25}, {0}},
    {APO_CAT_ZSCORE, 1, {20}, {4}, {50}},
    {APO_CAT_PLUS_DI, 1, {14}, {1}, {0}},
    {APO_CAT_MINUS_DI, 1, {14}, {7}, {0}},
    {APO_CAT_ADX, 1, {14}, {5}, {0}},
    {APO_CAT_MFI, 1, {14}, {3}, {100}},
    {APO_CAT_MVWAP, 1, {14}, {2}, {100}},
    {APO_CAT_KAMA, 1, {30}, {10}, {0}},
    {APO_CAT_ADOSC, 2, {3, 10}, {5, 20}, {0}},
    {APO_CAT_OBV, 0, {0}, {0}, {0}},
    {APO_CAT_AD, 0, {0}, {0}, {0}},
    {APO_CAT_PLUS_DM, 1, {14}, {1}, {0}},
    {APO_CAT_MINUS_DM, 1, {14}, {6}, {0}},
    {APO_CAT_DX, 1, {14}, {4}, {0}},
    {APO_CAT_ADXR, 1, {14}, {3}, {0}},
    {APO_CAT_AROONOSC, 1, {14}, {25}, {0}},
    {APO_CAT_BOP, 0, {0}, {0}, {0}},
    {APO_CAT_IMI, 1, {14}, {3}, {0}},
    {APO_CAT_ULTOSC, 3, {7, 14, 28}, {20, 2, 9}, {0}},
    {APO_CAT_ROCP, 1, {10}, {1}, {0}},
    {APO_CAT_ROCR, 1, {10}, {2}, {0}},
    {APO_CAT_ROCR100, 1, {10}, {4}, {0}},
    {APO_CAT_AVGPRICE, 0, {0}, {0}, {0}},
    {APO_CAT_MEDPRICE, 0, {0}, {0}, {0}},
    {APO_CAT_TYPPRICE, 0, {0}, {0}, {0}},
    {APO_CAT_WCLPRICE, 0, {0}, {0}, {0}},
    {APO_CAT_ADD, 0, {0}, {0}, {0}},
    {APO_CAT_SUB, 0, {0}, {0}, {0}},
    {APO_CAT_MULT, 0, {0}, {0}, {0}},
    {APO_CAT_DIV, 0, {0}, {0}, {0}},
    {APO_CAT_SUM, 1, {30}, {7}, {0}},
    {APO_CAT_MINMAX, 1, {30}, {3}, {300}}, /* past APO_EXTREME_SPAN_MAX: tracked */
    {APO_CAT_CEIL, 0, {0}, {0}, {0}},
    {APO_CAT_FLOOR, 0, {0}, {0}, {0}},
    {APO_CAT_SQRT, 0, {0}, {0}, {0}},
    {APO_CAT_EXP, 0, {0}, {0}, {0}},
    {APO_CAT_LN, 0, {0}, {0}, {0}},
    {APO_CAT_LOG10, 0, {0}, {0}, {0}},
    {APO_CAT_SINH, 0, {0}, {0}, {0}},
    {APO_CAT_COSH, 0, {0}, {0}, {0}},
    {APO_CAT_TANH, 0, {0}, {0}, {0}},
    {APO_CAT_HT_DCPERIOD, 0, {0}, {0}, {0}},
    {APO_CAT_HT_DCPHASE, 0, {0}, {0}, {0}},
    {APO_CAT_HT_PHASOR, 0, {0}, {0}, {0}},
    {APO_CAT_HT_SINE, 0, {0}, {0}, {0}},
    {APO_CAT_HT_TRENDMODE, 0, {0}, {0}, {0}},
    {APO_CAT_HT_TRENDLINE, 0, {0}, {0}, {0}},
    {APO_CAT_TRIMA, 1, {30}, {8}, {0}},
    {APO_CAT_T3, 2, {5, 0.7}, {3, 0.4}, {0}},
    {APO_CAT_MIDPOINT, 1, {14}, {3}, {0}},
    {APO_CAT_MIDPRICE, 1, {14}, {5}, {0}},
    {APO_CAT_MA, 2, {30, 0}, {9, 8}, {10, 6}}, /* matype 8 (t3) and 6 (kama) */
    {APO_CAT_MAVP, 3, {2, 30, 0}, {2, 9, 1}, {3, 7, 5}},
    {APO_CAT_ACCBANDS, 1, {20}, {4}, {0}},
    {APO_CAT_BBANDS, 4, {5, 2, 2, 0}, {9, 1.5, 2, 3}, {12, 2, 1, 8}},
    {APO_CAT_TRIX, 1, {30}, {4}, {0}},
    {APO_CAT_MACDFIX, 1, {9}, {3}, {0}},
    /* TA-Lib's candlestick patterns (kernels/candles/): inputs open, high, low, close read from
     * the bars' first four columns, which makes odd candles but the same bits to compare; the
     * penetration at its default and at 0. */
    {APO_CAT_CDL2CROWS, 0, {0}, {0}, {0}},
    {APO_CAT_CDL3BLACKCROWS, 0, {0}, {0}, {0}},
    {APO_CAT_CDL3INSIDE, 0, {0}, {0}, {0}},
    {APO_CAT_CDL3LINESTRIKE, 0, {0}, {0}, {0}},
    {APO_CAT_CDL3OUTSIDE, 0, {0}, {0}, {0}},
    {APO_CAT_CDL3STARSINSOUTH, 0, {0}, {0}, {0}},
    {APO_CAT_CDL3WHITESOLDIERS, 0, {0}, {0}, {0}},
    {APO_CAT_CDLABANDONEDBABY, 1, {0.3}, {0}, {0}},
    {APO_CAT_CDLADVANCEBLOCK, 0, {0}, {0}, {0}},
    {APO_CAT_CDLBELTHOLD, 0, {0}, {0}, {0}},
    {APO_CAT_CDLBREAKAWAY, 0, {0}, {0}, {0}},
    {APO_CAT_CDLCLOSINGMARUBOZU, 0, {0}, {0}, {0}},
    {APO_CAT_CDLCONCEALBABYSWALL, 0, {0}, {0}, {0}},
    {APO_CAT_CDLCOUNTERATTACK, 0, {0}, {0}, {0}},
    {APO_CAT_CDLDARKCLOUDCOVER, 1, {0.5}, {0}, {0}},
    {APO_CAT_CDLDOJI, 0, {0}, {0}, {0}},
    {APO_CAT_CDLDOJISTAR, 0, {0}, {0}, {0}},
    {APO_CAT_CDLDRAGONFLYDOJI, 0, {0}, {0}, {0}},
    {APO_CAT_CDLENGULFING, 0, {0}, {0}, {0}},
    {APO_CAT_CDLEVENINGDOJISTAR, 1, {0.3}, {0}, {0}},
    {APO_CAT_CDLEVENINGSTAR, 1, {0.3}, {0}, {0}},
    {APO_CAT_CDLGAPSIDESIDEWHITE, 0, {0}, {0}, {0}},
    {APO_CAT_CDLGRAVESTONEDOJI, 0, {0}, {0}, {0}},
    {APO_CAT_CDLHAMMER, 0, {0}, {0}, {0}},
    {APO_CAT_CDLHANGINGMAN, 0, {0}, {0}, {0}},
    {APO_CAT_CDLHARAMI, 0, {0}, {0}, {0}},
    {APO_CAT_CDLHARAMICROSS, 0, {0}, {0}, {0}},
    {APO_CAT_CDLHIGHWAVE, 0, {0}, {0}, {0}},
    {APO_CAT_CDLHIKKAKE, 0, {0}, {0}, {0}},
    {APO_CAT_CDLHIKKAKEMOD, 0, {0}, {0}, {0}},
    {APO_CAT_CDLHOMINGPIGEON, 0, {0}, {0}, {0}},
    {APO_CAT_CDLIDENTICAL3CROWS, 0, {0}, {0}, {0}},
    {APO_CAT_CDLINNECK, 0, {0}, {0}, {0}},
    {APO_CAT_CDLINVERTEDHAMMER, 0, {0}, {0}, {0}},
    {APO_CAT_CDLKICKING, 0, {0}, {0}, {0}},
    {APO_CAT_CDLKICKINGBYLENGTH, 0, {0}, {0}, {0}},
    {APO_CAT_CDLLADDERBOTTOM, 0, {0}, {0}, {0}},
    {APO_CAT_CDLLONGLEGGEDDOJI, 0, {0}, {0}, {0}},
    {APO_CAT_CDLLONGLINE, 0, {0}, {0}, {0}},
    {APO_CAT_CDLMARUBOZU, 0, {0}, {0}, {0}},
    {APO_CAT_CDLMATCHINGLOW, 0, {0}, {0}, {0}},
    {APO_CAT_CDLMATHOLD, 1, {0.5}, {0}, {0}},
    {APO_CAT_CDLMORNINGDOJISTAR, 1, {0.3}, {0}, {0}},
    {APO_CAT_CDLMORNINGSTAR, 1, {0.3}, {0}, {0}},
    {APO_CAT_CDLONNECK, 0, {0}, {0}, {0}},
    {APO_CAT_CDLPIERCING, 0, {0}, {0}, {0}},
    {APO_CAT_CDLRICKSHAWMAN, 0, {0}, {0}, {0}},
    {APO_CAT_CDLRISEFALL3METHODS, 0, {0}, {0}, {0}},
    {APO_CAT_CDLSEPARATINGLINES, 0, {0}, {0}, {0}},
    {APO_CAT_CDLSHOOTINGSTAR, 0, {0}, {0}, {0}},
    {APO_CAT_CDLSHORTLINE, 0, {0}, {0}, {0}},
    {APO_CAT_CDLSPINNINGTOP, 0, {0}, {0}, {0}},
    {APO_CAT_CDLSTALLEDPATTERN, 0, {0}, {0}, {0}},
    {APO_CAT_CDLSTICKSANDWICH, 0, {0}, {0}, {0}},
    {APO_CAT_CDLTAKURI, 0, {0}, {0}, {0}},
    {APO_CAT_CDLTASUKIGAP, 0, {0}, {0}, {0}},
    {APO_CAT_CDLTHRUSTING, 0, {0}, {0}, {0}},
    {APO_CAT_CDLTRISTAR, 0, {0}, {0}, {0}},
    {APO_CAT_CDLUNIQUE3RIVER, 0, {0}, {0}, {0}},
    {APO_CAT_CDLUPSIDEGAP2CROWS, 0, {0}, {0}, {0}},
    {APO_CAT_CDLXSIDEGAP3METHODS, 0, {0}, {0}, {0}},
    {APO_CAT_LINEARREG_INTERCEPT, 1, {14}, {200}, {2100}},
    {APO_CAT_TSF, 1, {14}, {30}, {2100}},
    {APO_CAT_AVGDEV, 1, {14}, {3}, {0}},
    {APO_CAT_SAR, 2, {0.02, 0.2}, {0.3, 0.25}, {0}},
    {APO_CAT_SAREXT,
     8,
     {0, 0, 0.02, 0.02, 0.2, 0.02, 0.02, 0.2},
     {-120, 0.01, 0.03, 0.01, 0.15, 0.05, 0.04, 0.3},
     {0}},
    {APO_CAT_NVI, 0, {0}, {0}, {0}},
    {APO_CAT_PVI, 0, {0}, {0}, {0}},
    {APO_CAT_LINEARREG_ANGLE, 1, {14}, {30}, {2100}},
    /* apo and ppo: the defaults (SMA), EMA with swapped periods, KAMA and T3 (streamed kinds
     * taken in pieces, ma_pieces.h) and TRIMA (windows). */
    {APO_CAT_APO, 3, {12, 26, 0}, {26, 12, 1}, {5, 10, 6}},
    {APO_CAT_PPO, 3, {12, 26, 0}, {4, 9, 8}, {6, 9, 5}},
    {APO_CAT_ACOS, 0, {0}, {0}, {0}},
    {APO_CAT_ASIN, 0, {0}, {0}, {0}},
    {APO_CAT_ATAN, 0, {0}, {0}, {0}},
    {APO_CAT_COS, 0, {0}, {0}, {0}},
    {APO_CAT_SIN, 0, {0}, {0}, {0}},
    {APO_CAT_TAN, 0, {0}, {0}, {0}},
    {APO_CAT_MAXINDEX, 1, {30}, {2}, {300}}, /* scans of 300 samples */
    {APO_CAT_MININDEX, 1, {30}, {3}, {0}},
    {APO_CAT_MINMAXINDEX, 1, {30}, {5}, {0}},
    {APO_CAT_MAMA, 2, {0.5, 0.05}, {0.9, 0.2}, {0}},
    {APO_CAT_MARKETFI, 0, {0}, {0}, {0}},
    {APO_CAT_PVT, 0, {0}, {0}, {0}},
    {APO_CAT_ADR, 1, {14}, {1}, {300}},
    {APO_CAT_CMF, 1, {20}, {2}, {300}},
    {APO_CAT_RVOL, 1, {20}, {1}, {300}},
    {APO_CAT_EFI, 1, {13}, {1}, {200}},
    {APO_CAT_PVO, 3, {12, 26, 1}, {26, 5, 0}, {3, 60, 2}},
    /* TA-Lib 0.8's newer momentum kernels: the defaults, other periods (ao's and ac's
     * inverted), and fosc past tsf's direct windows (its slide between anchors). */
    {APO_CAT_QSTICK, 1, {10}, {1}, {0}},
    {APO_CAT_AO, 2, {5, 34}, {9, 3}, {0}},
    {APO_CAT_AC, 3, {5, 34, 5}, {7, 3, 2}, {0}},
    {APO_CAT_DPO, 1, {20}, {3}, {0}},
    {APO_CAT_CMOU, 1, {14}, {2}, {0}},
    {APO_CAT_ER, 1, {10}, {2}, {0}},
    {APO_CAT_VHF, 1, {28}, {5}, {0}},
    {APO_CAT_COPPOCK, 3, {10, 11, 14}, {1, 5, 2}, {0}},
    {APO_CAT_ERI, 1, {13}, {1}, {0}},
    {APO_CAT_TSI, 2, {25, 13}, {3, 2}, {0}},
    {APO_CAT_VORTEX, 1, {14}, {1}, {0}},
    {APO_CAT_FOSC, 1, {5}, {2}, {60}},
    /* macdext: the defaults (SMA: the signal through the line generated again behind), swapped
     * periods of T3 and WMA with a DEMA signal, a KAMA and a TRIMA line with a T3 signal. */
    {APO_CAT_MACDEXT, 6, {12, 0, 26, 0, 9, 0}, {26, 2, 12, 8, 5, 3}, {5, 6, 10, 5, 4, 8}},
    /* stochrsi: the defaults (an SMA fastd through the generator behind), a WMA and a T3 fastd. */
    {APO_CAT_STOCHRSI, 4, {14, 5, 3, 0}, {9, 7, 5, 2}, {6, 30, 4, 8}},
    {APO_CAT_WAD, 0, {0}, {0}, {0}},
    {APO_CAT_FRACTAL, 2, {2, 2}, {1, 1}, {5, 3}},
    {APO_CAT_PERCENTILE, 2, {30, 50}, {5, 0}, {100, 7}},
    {APO_CAT_CUMSUM, 0, {0}, {0}, {0}},
    {APO_CAT_DONCHIAN, 1, {20}, {2}, {300}},
    {APO_CAT_VWMA, 1, {30}, {1}, {300}},
    {APO_CAT_RMA, 1, {30}, {1}, {200}},
    {APO_CAT_ZLEMA, 1, {30}, {1}, {200}},
    {APO_CAT_PERCENTRANK, 1, {100}, {2}, {300}},
    {APO_CAT_HMA, 1, {20}, {3}, {200}},
    {APO_CAT_MASSI, 2, {9, 25}, {2, 2}, {30, 200}},
    {APO_CAT_CVI, 2, {10, 10}, {2, 1}, {200, 30}},
    {APO_CAT_KC, 3, {20, 10, 2}, {2, 1, -1.5}, {200, 30, 2}},
    {APO_CAT_SUPERTREND, 2, {10, 3}, {2, 0}, {200, 1.5}},
    {APO_CAT_HA, 0, {0}, {0}, {0}},
    {APO_CAT_RVI, 2, {14, 10}, {1, 2}, {200, 30}},
    {APO_CAT_SMI, 4, {13, 2, 25, 9}, {2, 2, 2, 2}, {30, 10, 3, 20}},
    {APO_CAT_KDJ, 5, {9, 3, 13, 3, 13}, {14, 5, 1, 20, 11}, {40, 1, 13, 30, 10}},
    {APO_CAT_VWAP, 0, {0}, {0}, {0}},
};
#define N_TABLE (sizeof table / sizeof table[0])

/* The bars of simt_bars.h, ROWS of them. */
static void make_bars(size_t cols, double **in) { cr_assert(simt_bars(ROWS, cols, in)); }

static double *poisoned(size_t n) {
    double *p = malloc(n * sizeof *p);
    cr_assert_not_null(p);
    for (size_t i = 0; i < n; i++)
        p[i] = simt_poison();
    return p;
}

typedef int (*family_launcher)(int id, const apo__cuda_view *v, const apo__cat_io *base,
                               void *stream);

static family_launcher launcher_of(apo__cat_id id) {
    switch (apo__catalog_family(id)) {
    case APO_CAT_AVERAGES:
        return apo__cuda_averages;
    case APO_CAT_OSCILLATORS:
        return apo__cuda_oscillators;
    case APO_CAT_STATISTICS:
        return apo__cuda_statistics;
    case APO_CAT_TREND:
        return apo__cuda_trend;
    case APO_CAT_VOLUME:
        return apo__cuda_volume;
    case APO_CAT_TRANSFORMS:
        return apo__cuda_transforms;
    case APO_CAT_CYCLES:
        return apo__cuda_cycles;
    case APO_CAT_CANDLES:
        return apo__cuda_candles;
    }
    return NULL;
}

/* The io of the whole arrays (row 0), parameters p and the kernel's halo: the kernel's own
 * inputs and outputs alone (catalog_shapes.h), the others NULL, as the runtime leaves them
 * (runtime/catalog/catalog_kernels.c), since the staged anchored launch sizes a warp's shared
 * memory by them (anchor_stage.h). */
static apo__cat_io io_of(apo__cat_id id, double *const *in, double *const *out, const double *p,
                         size_t n) {
    apo__cat_io io;
    memset(&io, 0, sizeof io);
    for (size_t i = 0; i < shapes[id].n_in; i++)
        io.in[i] = in[i];
    for (size_t o = 0; o < shapes[id].n_out; o++)
        io.out[o] = out[o];
    for (size_t k = 0; k < n; k++)
        io.p[k] = p[k];
    io.h = apo__catalog_halo(id, io.p);
    return io;
}

/* io for row r of arrays of `cols` columns. */
static apo__cat_io row_io(const apo__cat_io *io, double *const *in, double *const *out, size_t r,
                          size_t cols) {
    apo__cat_io row = *io;
    for (int i = 0; i < APO_CAT_MAX_IN; i++)
        row.in[i] = io->in[i] != NULL ? in[i] + r * cols : NULL;
    for (int o = 0; o < APO_CAT_MAX_OUT; o++)
        row.out[o] = io->out[o] != NULL ? out[o] + r * cols : NULL;
    return row;
}

/* Every output's array, n doubles of poison; and their release. */
static void poisoned_outputs(double **out, size_t n) {
    for (int o = 0; o < APO_CAT_MAX_OUT; o++)
        out[o] = poisoned(n);
}

static void free_outputs(double **out) {
    for (int o = 0; o < APO_CAT_MAX_OUT; o++)
        free(out[o]);
}

/* Kernel id at parameters p (n of them) through its family's launcher on view v into got; a
 * launch that fails fails the test, named by `what`. */
static void launch(apo__cat_id id, const apo__cuda_view *v, double *const *in, double *const *got,
                   const double *p, size_t n, const char *what) {
    apo__cat_io base = io_of(id, in, got, p, n);
    const int rc = launcher_of(id)((int)id, v, &base, NULL);
    cr_assert_eq(rc, 0, "%s: launch failed (%d): %s", what, rc, simt_last_failure());
}

/* The positions of got (rows x cols, every output) that differ from ref inside view v, or
 * from the poison outside it; the first one is told on stderr, named by `what`. */
static size_t wrong_positions(double *const *ref, double *const *got, size_t rows, size_t cols,
                              const apo__cuda_view *v, const char *what) {
    size_t wrong = 0;
    for (int o = 0; o < APO_CAT_MAX_OUT; o++)
        for (size_t r = 0; r < rows; r++)
            for (size_t t = 0; t < cols; t++) {
                const int inside =
                    r >= v->row0 && r < v->row0 + v->rows && t >= v->begin && t < v->end;
                const double want = inside ? ref[o][r * cols + t] : simt_poison();
                if (!simt_same_bits(got[o][r * cols + t], want) && wrong++ == 0)
                    fprintf(stderr, "%s output %d row %zu t %zu: %.17g, cpu %.17g%s\n", what, o, r,
                            t, got[o][r * cols + t], want, inside ? "" : " (outside the view)");
            }
    return wrong;
}

/* The options of the catalog's tests: most of the catalog's kernels have no barrier, warp
 * exchange or async copy, so their first block runs as CUDA threads do, the later ones in turn
 * on this thread (the simulated runtime's choice), where a host thread for each of the
 * thread-per-position launch's CUDA threads took a test past 25 minutes under
 * ThreadSanitizer. The staged kernels (var, stddev and the linearreg family in blocks:
 * kernels/cuda/stage.h) exchange values within warps: on a host thread per CUDA thread every
 * exchange woke a block of threads, 10 to 21 CPU seconds a parameter list, 180 of the every-
 * kernel case's 206, almost all in the system's scheduler. Outside the sanitizers the blocks'
 * threads are fibers in a random serial order (the simulated runtime's choice too), which switch at
 * the same points in an order drawn from the seed, every interleaving of the phases between
 * barriers possible (78 CPU seconds for the file, from about 250). TSan, which does not follow
 * fibers, keeps a host thread per CUDA thread, at one kernel in eight (helpers.h), and so does
 * ASan, which clears the shadow of a fiber's whole stack at every switch: with fibers the
 * every-kernel case took 201 s of user and 354 of system time under ASan+UBSan. */
static void set_catalog_options(uint64_t seed, int first_block_only) {
#if defined(APO_TEST_TSAN) || defined(__SANITIZE_ADDRESS__)
    const simt_options o = {SIMT_FREE, SIMT_COPIES_RANDOM, seed, 0, first_block_only, 0};
#else
    const simt_options o = {SIMT_SERIAL_RANDOM, SIMT_COPIES_RANDOM, seed, 0, first_block_only, 1};
#endif
    simt_set_options(&o);
}

/* Kernel id's tile length at parameters p (n_p of them), the others 0 as io_of leaves them. */
static size_t tile_of(apo__cat_id id, const double *p, size_t n_p) {
    double all[APO_CAT_MAX_PAR] = {0};
    for (size_t k = 0; k < n_p && k < APO_CAT_MAX_PAR; k++)
        all[k] = p[k];
    return apo__catalog_tile_len(id, all);
}

/* The CPU's outputs of kernel id at parameters p (n_p of them) on rows x cols bars into fresh
 * poisoned arrays ref, each row computed tile by tile (tiles of `tile` bars; the kernel's own
 * length where 0), as the runtime hands them out. */
static void cpu_reference(apo__cat_id id, const double *p, size_t n_p, double *const *in,
                          double **ref, size_t rows, size_t cols, size_t tile) {
    poisoned_outputs(ref, rows * cols);
    apo__cat_io io = io_of(id, in, ref, p, n_p);
    if (tile == 0)
        tile = tile_of(id, p, n_p);
    for (size_t r = 0; r < rows; r++) {
        apo__cat_io row = row_io(&io, in, ref, r, cols);
        for (size_t b = 0; b < cols; b += tile)
            apo__cpu_catalog_tile(id, &row, b, b + tile < cols ? b + tile : cols);
    }
}

/* Runs one kernel at one parameter list: the CPU tile by tile over every row, then each view
 * through the SIMT layer into fresh poisoned outputs, compared position by position. Returns
 * the positions that differ. */
static size_t check_kernel(apo__cat_id id, const double *p, size_t n_p, double *const *in,
                           size_t cols) {
    double *ref[APO_CAT_MAX_OUT], *got[APO_CAT_MAX_OUT];
    cpu_reference(id, p, n_p, in, ref, ROWS, cols, 0);
    const size_t tile = tile_of(id, p, n_p);

    const size_t tiles = (cols + tile - 1) / tile;
    apo__cuda_view views[2];
    memset(views, 0, sizeof views);
    size_t n_views = 1;
    views[0].rows = ROWS;
    views[0].end = cols;
    if (tiles >= 3) {
        views[1].row0 = 1;
        views[1].rows = 1;
        views[1].begin = tile;
        views[1].end = (tiles - 1) * tile;
        n_views = 2;
    }
    size_t wrong = 0;
    for (size_t v = 0; v < n_views; v++) {
        views[v].cols = cols;
        views[v].out_cols = cols;
        views[v].tile = tile;
        poisoned_outputs(got, ROWS * cols);
        char what[64];
        snprintf(what, sizeof what, "kernel %d view %zu", (int)id, v);
        launch(id, &views[v], in, got, p, n_p, what);
        wrong += wrong_positions(ref, got, ROWS, cols, &views[v], what);
        free_outputs(got);
    }
    free_outputs(ref);
    return wrong;
}

/* A row's parameter lists, each on three tiles and a part of bars. */
static void check_row(const cat_params *row) {
    const apo__cat_id id = row->id;
    for (int variant = 0; variant < 3; variant++) {
        if (variant == 2 && row->longer[0] == 0)
            continue;
        const double *p = variant == 0 ? row->defaults : variant == 1 ? row->other : row->longer;
        double full[APO_CAT_MAX_PAR] = {0};
        memcpy(full, p, row->n * sizeof *p);
        /* Three tiles and a part, so that the second view has a middle. */
        const size_t cols = 3 * apo__catalog_tile_len(id, full) + 137;
        double *in[APO_CAT_MAX_IN];
        make_bars(cols, in);
        const size_t wrong = check_kernel(id, p, row->n, in, cols);
        cr_expect_eq(wrong, 0, "kernel %d, %s parameters: %zu positions differ", (int)id,
                     variant == 0   ? "default"
                     : variant == 1 ? "other"
                                    : "longer",
                     wrong);
        for (int i = 0; i < APO_CAT_MAX_IN; i++)
            free(in[i]);
    }
}

Test(catalog_simt, every_catalog_kernel_gives_the_cpu_bits_through_its_family_launcher,
     .timeout = 600) {
    cr_assert_eq(N_TABLE, APO_CAT_COUNT, "the table has %zu kernels, the catalog %d", N_TABLE,
                 (int)APO_CAT_COUNT);
    set_catalog_options(7, 1);
    for (size_t k = 0; k < N_TABLE; k++) {
        cr_assert_eq(table[k].id, (apo__cat_id)k, "the table is not in apo__cat_id order at %zu",
                     k);
        /* Under TSan one kernel in eight (helpers.h): each CUDA thread is a host thread, and
         * every kernel's launch goes through the same SIMT scheduling; the plain and ASan
         * builds run every kernel. */
        if (test_kernel_sampled(k))
            check_row(&table[k]);
    }
}

/* Kernel id at parameters p (n_p of them) on rows x cols bars on path isa, into fresh poisoned
 * arrays out: each row's tiles handed over in groups of up to 16 as the runtime hands them
 * (runtime/catalog/catalog_kernels.c: apo__cpu_catalog_tiles_on, with the lanes and rounds of
 * the kernels that have them). */
static void cpu_on_path(apo__cat_id id, const double *p, size_t n_p, double *const *in,
                        double **out, size_t rows, size_t cols, int isa) {
    poisoned_outputs(out, rows * cols);
    const apo__cat_io io = io_of(id, in, out, p, n_p);
    const size_t tile = tile_of(id, p, n_p);
    for (size_t r = 0; r < rows; r++) {
        const apo__cat_io row = row_io(&io, in, out, r, cols);
        for (size_t b = 0; b < cols;) {
            apo__tile_span spans[16];
            size_t n = 0;
            for (; b < cols && n < 16; b += tile, n++)
                spans[n] = (apo__tile_span){r, b, b + tile < cols ? b + tile : cols};
            apo__cpu_catalog_tiles_on(id, &row, spans, n, isa);
        }
    }
}

/* The vector paths: each row's tiles on every path this CPU has (avx2, avx512) give the bits
 * of the sse2 tiles that the launchers above are held to, at every position, for every kernel
 * at each of its parameter lists. A compiler that fuses a multiply into an add on one path
 * (GCC 12 forms fmaddsub from a complex product's shape under -ffp-contract=off: hilbert.h)
 * is caught here, on the machine whose path it is. */
Test(catalog_simt, every_vector_path_gives_the_bits_of_sse2, .timeout = 600) {
    for (size_t k = 0; k < N_TABLE; k++) {
        const cat_params *row = &table[k];
        if (!test_kernel_sampled(k))
            continue;
        for (int variant = 0; variant < 3; variant++) {
            if (variant == 2 && row->longer[0] == 0)
                continue;
            const double *p = variant == 0   ? row->defaults
                              : variant == 1 ? row->other
                                             : row->longer;
            const size_t cols = 3 * tile_of(row->id, p, row->n) + 137;
            double *in[APO_CAT_MAX_IN], *ref[APO_CAT_MAX_OUT], *got[APO_CAT_MAX_OUT];
            make_bars(cols, in);
            cpu_reference(row->id, p, row->n, in, ref, ROWS, cols, 0);
            apo__cuda_view whole;
            memset(&whole, 0, sizeof whole);
            whole.rows = ROWS;
            whole.end = cols;
            for (int isa = APO_CPU_ISA_SSE2 + 1; isa <= APO_CPU_ISA_LAST; isa++) {
                if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
                    continue;
                char what[96];
                snprintf(what, sizeof what, "kernel %d (parameters %d) on %s", (int)row->id,
                         variant, apo__cpu_isa_name((apo__cpu_isa)isa));
                cpu_on_path(row->id, p, row->n, in, got, ROWS, cols, isa);
                const size_t wrong = wrong_positions(ref, got, ROWS, cols, &whole, what);
                cr_expect_eq(wrong, 0, "%s: %zu positions differ from sse2's", what, wrong);
                free_outputs(got);
            }
            free_outputs(ref);
            for (int i = 0; i < APO_CAT_MAX_IN; i++)
                free(in[i]);
        }
    }
}

/* TA-Lib's matype 7 (MAMA) in ma and bbands, whose tiles then run from the row's first bar
 * (averages/ma_type.h): the CPU's bits through the averages' launcher too. */
Test(catalog_simt, matype_7_gives_the_cpu_bits, .timeout = 600) {
    static const cat_params matype_7[] = {
        {APO_CAT_MA, 2, {30, 7}, {2, 7}, {0}},
        {APO_CAT_BBANDS, 4, {5, 2, 2, 7}, {50, 1.5, 2, 7}, {0}},
    };
    set_catalog_options(7, 1);
    for (size_t k = 0; k < sizeof matype_7 / sizeof matype_7[0]; k++)
        check_row(&matype_7[k]);
}

/* kdj's averages of ma_series.h's kinds (kdj_tile.h's pieces, k generated again behind an SMA or
 * WMA d): SMA of both, WMA with DEMA, TEMA with T3; T3 with WMA, Wilder's with SMA, SMA with
 * EMA; and the kinds that read their series several distances back (ma_series_lagged.h): TRIMA
 * with KAMA, HMA with ZLEMA, KAMA with HMA (five k generators behind d), ZLEMA with TRIMA, TRIMA
 * with HMA at period 2, HMA 25 with Wilder's; and stoch and stochf at matypes other than 0, which
 * take kdj's body (oscillators/stoch_ma.h), a GPU thread's call one tile of it. */
Test(catalog_simt, kdj_and_stochastic_kinds_give_the_cpu_bits, .timeout = 600) {
    static const cat_params kinds[] = {
        {APO_CAT_KDJ, 5, {9, 3, 0, 3, 0}, {14, 5, 2, 4, 3}, {5, 4, 4, 6, 8}},
        {APO_CAT_KDJ, 5, {9, 3, 8, 7, 2}, {5, 10, 13, 7, 0}, {3, 6, 0, 25, 1}},
        {APO_CAT_KDJ, 5, {9, 3, 5, 3, 6}, {5, 4, 9, 3, 12}, {14, 10, 6, 9, 9}},
        {APO_CAT_KDJ, 5, {3, 7, 12, 6, 5}, {9, 2, 5, 2, 9}, {9, 25, 9, 4, 13}},
        {APO_CAT_STOCH, 5, {5, 3, 1, 3, 1}, {14, 5, 2, 4, 3}, {9, 3, 5, 3, 6}},
        {APO_CAT_STOCHF, 3, {5, 3, 1}, {9, 4, 4}, {5, 12, 6}},
    };
    set_catalog_options(7, 1);
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        check_row(&kinds[k]);
}

/* The position-independent kernels' launch (a thread per position, catalog_launch.h) on a view of
 * many short rows: 40 rows of 37 positions from position 5 are 1,480 items, one block of 256
 * threads, so each thread's stride is 6 rows and 34 positions and its walk crosses rows at every
 * step. Every position inside the view has the bits of one CPU call over its row, every other
 * keeps its poison. */
Test(catalog_simt, the_position_launch_walks_many_short_rows, .timeout = 300) {
    static const cat_params kernels[] = {
        {APO_CAT_ADD, 0, {0}, {0}, {0}},          {APO_CAT_ACOS, 0, {0}, {0}, {0}},
        {APO_CAT_MIDPOINT, 1, {14}, {0}, {0}},    {APO_CAT_IMI, 1, {14}, {0}, {0}},
        {APO_CAT_CDLENGULFING, 0, {0}, {0}, {0}},
    };
    enum { rows = 42, cols = 50 };
    set_catalog_options(11, 0);
    double *in[APO_CAT_MAX_IN];
    cr_assert(simt_bars(rows, cols, in));
    apo__cuda_view v;
    memset(&v, 0, sizeof v);
    v.row0 = 1;
    v.rows = 40;
    v.begin = 5;
    v.end = 42;
    v.cols = v.out_cols = cols;
    v.tile = 4096;
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        const apo__cat_id id = kernels[k].id;
        cr_assert(apo__catalog_gpu_per_position(id), "kernel %d does not take the launch", (int)id);
        double *ref[APO_CAT_MAX_OUT], *got[APO_CAT_MAX_OUT];
        cpu_reference(id, kernels[k].defaults, kernels[k].n, in, ref, rows, cols, cols);
        poisoned_outputs(got, rows * cols);
        char what[64];
        snprintf(what, sizeof what, "kernel %d", (int)id);
        launch(id, &v, in, got, kernels[k].defaults, kernels[k].n, what);
        const size_t wrong = wrong_positions(ref, got, rows, cols, &v, what);
        cr_expect_eq(wrong, 0, "kernel %d: %zu positions differ", (int)id, wrong);
        free_outputs(ref);
        free_outputs(got);
    }
    for (int i = 0; i < APO_CAT_MAX_IN; i++)
        free(in[i]);
}

/* The anchored kernels' launch (a thread per block between anchors, catalog_launch.h) on tiles
 * whose length is not a multiple of the spacing (100 bars, anchors 16 to 64 apart), so that a
 * tile's first block starts between anchors and a tile may end inside a block, on a view of
 * five rows from position 37 (inside the first tile) to 870 (inside the ninth). Every position
 * inside the view has the bits of the CPU's tile (the tiles of the grid, each one CPU call),
 * every other keeps its poison: staged, and a thread per block with the grid as sized and capped
 * at one block. */
Test(catalog_simt, the_anchored_launch_cuts_tiles_at_their_anchors, .timeout = 300) {
    static const cat_params kernels[] = {
        {APO_CAT_SMA, 1, {30}, {0}, {0}},
        {APO_CAT_WMA, 1, {100}, {0}, {0}},
        {APO_CAT_VAR, 2, {200, 1}, {0}, {0}},
        {APO_CAT_LINEARREG, 1, {14}, {0}, {0}},
        {APO_CAT_CORREL, 1, {30}, {0}, {0}},
        {APO_CAT_BETA, 1, {40}, {0}, {0}},
        {APO_CAT_MA, 2, {20, 2}, {0}, {0}},
        /* var at a period whose regions fit the staged launch (at 200 they do not). */
        {APO_CAT_VAR, 2, {5, 1}, {0}, {0}},
        /* Windows shorter than the eight partials of a direct sum (window_plain.h). */
        {APO_CAT_SMA, 1, {5}, {0}, {0}},
        {APO_CAT_WMA, 1, {3}, {0}, {0}},
    };
    enum { rows = 7, cols = 900, tile = 100 };
    set_catalog_options(13, 1);
    double *in[APO_CAT_MAX_IN];
    cr_assert(simt_bars(rows, cols, in));
    apo__cuda_view v;
    memset(&v, 0, sizeof v);
    v.row0 = 1;
    v.rows = 5;
    v.begin = 37;
    v.end = 870;
    v.cols = v.out_cols = cols;
    v.tile = tile;
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        const apo__cat_id id = kernels[k].id;
        cr_assert(!apo__catalog_position_independent(id), "kernel %d is marked", (int)id);
        double *ref[APO_CAT_MAX_OUT], *got[APO_CAT_MAX_OUT];
        poisoned_outputs(ref, rows * cols);
        poisoned_outputs(got, rows * cols);
        const apo__cat_io io = io_of(id, in, ref, kernels[k].defaults, kernels[k].n);
        for (size_t r = v.row0; r < v.row0 + v.rows; r++) {
            apo__cat_io row = row_io(&io, in, ref, r, cols);
            for (size_t b = v.begin; b < v.end; b = (b / tile + 1) * tile) {
                const size_t e = (b / tile + 1) * tile;
                apo__cpu_catalog_tile(id, &row, b, e < v.end ? e : v.end);
            }
        }
        /* Staged (anchor_stage.h), then a thread per block with the grid as the launch sizes
         * it (2 blocks here) and capped at one block (APPORTION_CUDA_BLOCKS_PER_SM): the
         * grid-stride loops must take every item. */
        static const struct {
            int variant;
            unsigned int cap;
        } runs[] = {{APO_CUDA_KERNELS_STAGED, 0},
                    {APO_CUDA_KERNELS_SIMPLE, 0},
                    {APO_CUDA_KERNELS_SIMPLE, 1}};
        for (size_t run = 0; run < sizeof runs / sizeof runs[0]; run++) {
            char what[64];
            snprintf(what, sizeof what, "kernel %d, %s, grid cap %u", (int)id,
                     runs[run].variant == APO_CUDA_KERNELS_STAGED ? "staged" : "simple",
                     runs[run].cap);
            for (int out = 0; out < APO_CAT_MAX_OUT; out++)
                for (size_t i = 0; i < rows * cols; i++)
                    got[out][i] = simt_poison();
            apo__cuda_kernels_set(runs[run].variant);
            apo__cuda_anchored_grid_set(runs[run].cap);
            launch(id, &v, in, got, kernels[k].defaults, kernels[k].n, what);
            apo__cuda_anchored_grid_set(0);
            apo__cuda_kernels_set(APO_CUDA_KERNELS_STAGED);
            size_t wrong = 0;
            for (int out = 0; out < APO_CAT_MAX_OUT; out++)
                for (size_t i = 0; i < rows * cols; i++)
                    wrong += !simt_same_bits(got[out][i], ref[out][i]);
            cr_expect_eq(wrong, 0, "%s: %zu positions differ", what, wrong);
        }
        free_outputs(ref);
        free_outputs(got);
    }
    for (int i = 0; i < APO_CAT_MAX_IN; i++)
        free(in[i]);
}

/* The cut launch (kernels/cuda/cut.cu; docs/cuda.md, "Lone tiles cut into pieces"): every
 * kernel with a cut, at its defaults, on rows of a tile and a half, must give the CPU's tile
 * bits (a) on the plain walk of row 0 alone, where the pieces' warm-ups forget their seeds and
 * nearly every piece stands, (b) on the three rows of simt_bars (NaN runs, an infinity, a flat
 * stretch, lone NaN closes), and (c) on bars with a spike of 1e300 five bars into each tile,
 * which no warm-up forgets to the bit: a piece whose warm-up starts after the spike, while the
 * spike's trace in the tile's run is still above its last bit, has a head unlike that run and
 * is run again from the tail before it (from an eighth of the pieces for t3, whose trace fades
 * soonest, to nearly all for the DMs, dx and adx). The launch's counts say
 * so: a check that always passed, or never ran a piece again, fails (c) by its counts and its
 * bits, and one that ran every piece again fails (a). A kernel with the trait whose stream
 * re-ran its tiles (NONE: no resume state) would not be cut (rma, zlema and efi until
 * 2026-12-07; none today). Under the simple kernels (APPORTION_CUDA_KERNELS=simple) no kernel
 * is cut. */
Test(catalog_simt, lone_tiles_cut_into_pieces_give_the_cpu_bits, .timeout = 600) {
    set_catalog_options(19, 1);
    for (size_t k = 0; k < N_TABLE; k++) {
        const apo__cat_id id = table[k].id;
        if (!apo__catalog_gpu_cuts(id))
            continue;
        const size_t tile = tile_of(id, table[k].defaults, table[k].n);
        const size_t cols = tile + tile / 2;
        double *bars[APO_CAT_MAX_IN] = {0}, *spiked[APO_CAT_MAX_IN] = {0};
        make_bars(cols, bars);
        make_bars(cols, spiked);
        for (size_t i = 0; i < SIMT_BARS_INPUTS; i++)
            for (size_t r = 0; r < ROWS; r++)
                spiked[i][r * cols + 5] = spiked[i][r * cols + tile + 5] = 1e300;
        static const char *const data_names[] = {"walk", "bars", "spiked"};
        for (int data = 0; data < 3; data++) {
            double *const *in = data == 2 ? spiked : bars;
            double *ref[APO_CAT_MAX_OUT], *got[APO_CAT_MAX_OUT];
            cpu_reference(id, table[k].defaults, table[k].n, in, ref, ROWS, cols, tile);
            poisoned_outputs(got, ROWS * cols);
            apo__cuda_view v;
            memset(&v, 0, sizeof v);
            v.rows = data == 0 ? 1 : ROWS;
            v.end = v.cols = v.out_cols = cols;
            v.tile = tile;
            apo__cat_io base = io_of(id, in, got, table[k].defaults, table[k].n);
            size_t pieces[2] = {0, 0};
            /* The simple kernels keep a thread a tile (APPORTION_CUDA_KERNELS=simple): no cut. */
            apo__cuda_kernels_set(APO_CUDA_KERNELS_SIMPLE);
            const int simple = apo__cuda_catalog_cut((int)id, &v, &base, NULL, pieces);
            apo__cuda_kernels_set(APO_CUDA_KERNELS_STAGED);
            cr_expect_eq(simple, APO_CUDA_NOT_CUT, "kernel %d: cut under the simple kernels (%d)",
                         (int)id, simple);
            const int rc = apo__cuda_catalog_cut((int)id, &v, &base, NULL, pieces);
            char what[96];
            snprintf(what, sizeof what, "kernel %d, %s: %zu pieces, %zu run again", (int)id,
                     data_names[data], pieces[0], pieces[1]);
            if (apo__catalog_resume_size(id) == 0) {
                cr_expect_eq(rc, APO_CUDA_NOT_CUT, "%s: cut (%d)", what, rc);
            } else {
                cr_assert_eq(rc, 0, "%s: launch failed (%d): %s", what, rc, simt_last_failure());
                const size_t wrong = wrong_positions(ref, got, ROWS, cols, &v, what);
                cr_expect_eq(wrong, 0, "%s: %zu positions differ", what, wrong);
                /* Two tiles a row, the first cut in at least 4. */
                cr_expect(pieces[0] >= v.rows * 5, "%s: not cut", what);
                const size_t cuts = pieces[0] - 2 * v.rows;
                if (data == 0)
                    cr_expect(pieces[1] * 4 <= cuts, "%s: most pieces run again", what);
                if (data == 2)
                    cr_expect(pieces[1] >= 2 * v.rows, "%s: too few pieces run again", what);
            }
            free_outputs(ref);
            free_outputs(got);
        }
        for (int i = 0; i < APO_CAT_MAX_IN; i++) {
            free(bars[i]);
            free(spiked[i]);
        }
    }
}

/* The launchers' refusals: a view without inputs or outputs, or tiles of 0, is
 * cudaErrorInvalidValue (1); an empty view launches nothing and succeeds. */
Test(catalog_simt, the_launchers_refuse_what_no_chunk_can_be, .timeout = 120) {
    double x[16] = {0}, y[16];
    apo__cat_io io;
    memset(&io, 0, sizeof io);
    io.in[0] = x;
    io.out[0] = y;
    io.p[0] = 3;
    apo__cuda_view v;
    memset(&v, 0, sizeof v);
    v.rows = 1;
    v.cols = v.out_cols = v.end = 16;
    v.tile = 0;
    cr_assert_eq(apo__cuda_averages(APO_CAT_SMA, &v, &io, NULL), 1);
    v.tile = 8;
    apo__cat_io no_out = io;
    no_out.out[0] = NULL;
    cr_assert_eq(apo__cuda_averages(APO_CAT_SMA, &v, &no_out, NULL), 1);
    v.begin = v.end;
    cr_assert_eq(apo__cuda_averages(APO_CAT_SMA, &v, &io, NULL), 0);
}
