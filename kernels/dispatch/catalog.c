/*
 * catalog.c: the host side of the catalog kernels (catalog.h): lookbacks, halos and tile
 * lengths from the parameters, and the CPU's tile call, which runs the same APO_HD bodies
 * (kernels/<room>/<name>_tile.h) as the CUDA launchers.
 *
 * The decay steps of the recurrences use libm's log and log1p: they size the halo and the
 * tile grid only and never enter per-sample arithmetic, and the host computes them for the
 * CPU and the GPU alike (the launchers get io->h from here).
 */
#include "catalog.h"

#include <assert.h>
#include <math.h>

#include "averages_tiles.h"
#include "oscillators_tiles.h"
#include "statistics_tiles.h"
#include "trend_tiles.h"
#include "volume_tiles.h"

size_t apo__decay_steps(double k) {
    if (k >= 1.0)
        return 0;
    return (size_t)ceil(64.0 * log(2.0) / -log1p(-k));
}

apo__cat_family apo__catalog_family(apo__cat_id id) {
    /* The kernels added after the first blocks, by id (their blocks in catalog.h). */
    switch (id) {
    case APO_CAT_ZSCORE:
        return APO_CAT_STATISTICS;
    case APO_CAT_PLUS_DI:
    case APO_CAT_MINUS_DI:
    case APO_CAT_ADX:
        return APO_CAT_TREND;
    case APO_CAT_MFI:
    case APO_CAT_VWAP:
    case APO_CAT_ADOSC:
    case APO_CAT_OBV:
    case APO_CAT_AD:
        return APO_CAT_VOLUME;
    case APO_CAT_KAMA:
        return APO_CAT_AVERAGES;
    default:
        break;
    }
    if (id <= APO_CAT_TEMA)
        return APO_CAT_AVERAGES;
    if (id <= APO_CAT_STOCH)
        return APO_CAT_OSCILLATORS;
    if (id <= APO_CAT_BETA)
        return APO_CAT_STATISTICS;
    return APO_CAT_TREND;
}

int apo__catalog_whole_row(apo__cat_id id) { return id == APO_CAT_OBV || id == APO_CAT_AD; }

size_t apo__catalog_lookback(apo__cat_id id, const double *params) {
    const size_t p = (size_t)params[0];
    switch (id) {
    case APO_CAT_OBV:
    case APO_CAT_AD:
        /* No parameter (params[0] is unset): a value from the first bar on. */
        return 0;
    case APO_CAT_MOM:
    case APO_CAT_ROC:
    case APO_CAT_RSI:
    case APO_CAT_CMO:
    case APO_CAT_ATR:
    case APO_CAT_NATR:
    case APO_CAT_BETA:
    case APO_CAT_AROON:
    case APO_CAT_PLUS_DI:
    case APO_CAT_MINUS_DI:
    case APO_CAT_MFI:
    case APO_CAT_KAMA:
        return p;
    case APO_CAT_ADX:
        return 2 * p - 1;
    case APO_CAT_ADOSC: {
        /* TA-Lib's: the EMA lookback of the slower period. */
        const size_t q = (size_t)params[1];
        return (p > q ? p : q) - 1;
    }
    case APO_CAT_TRANGE:
        return 1;
    case APO_CAT_DEMA:
        return 2 * (p - 1);
    case APO_CAT_STOCHF:
        return (p - 1) + ((size_t)params[1] - 1);
    case APO_CAT_STOCH:
        return (p - 1) + ((size_t)params[1] - 1) + ((size_t)params[3] - 1);
    case APO_CAT_TEMA:
        return 3 * (p - 1);
    default:
        return p - 1;
    }
}

size_t apo__catalog_halo(apo__cat_id id, const double *params) {
    const size_t lookback = apo__catalog_lookback(id, params);
    const double p = params[0];
    switch (id) {
    case APO_CAT_EMA:
        return lookback + apo__decay_steps(2.0 / (p + 1.0));
    case APO_CAT_DEMA:
        return lookback + 3 * apo__decay_steps(2.0 / (p + 1.0));
    case APO_CAT_TEMA:
        return lookback + 4 * apo__decay_steps(2.0 / (p + 1.0));
    case APO_CAT_RSI:
    case APO_CAT_CMO:
    case APO_CAT_ATR:
    case APO_CAT_NATR:
    case APO_CAT_PLUS_DI:
    case APO_CAT_MINUS_DI:
        return lookback + apo__decay_steps(1.0 / p);
    case APO_CAT_ADX:
        /* The DIs forget their seed, then ADX its own. */
        return lookback + 2 * apo__decay_steps(1.0 / p);
    case APO_CAT_ADOSC: {
        const double slowest = p > params[1] ? p : params[1];
        return lookback + apo__decay_steps(2.0 / (slowest + 1.0));
    }
    case APO_CAT_KAMA: {
        /* KAMA's slowest rate: an efficiency ratio of 0. */
        const double slowest = 2.0 / (30.0 + 1.0);
        return lookback + apo__decay_steps(slowest * slowest);
    }
    default:
        return lookback;
    }
}

size_t apo__catalog_tile_len(apo__cat_id id, const double *params) {
    /* A whole-row tile costs its prefix too: with long tiles a row of n samples costs about
     * n + n^2 / 131072 steps, 8.6 single passes at a million samples (4096-sample tiles would
     * make that 123). */
    if (apo__catalog_whole_row(id))
        return APO_CAT_WHOLE_ROW_TILE;
    const size_t len = 16 * (apo__catalog_halo(id, params) + 1);
    return len > 4096 ? len : 4096;
}

void apo__cpu_catalog_tile(apo__cat_id id, const apo__cat_io *io, size_t begin, size_t end) {
    assert(io != NULL && begin < end && id < APO_CAT_COUNT);
    switch (apo__catalog_family(id)) {
    case APO_CAT_AVERAGES:
        apo__averages_tile((int)id, io, begin, end);
        break;
    case APO_CAT_OSCILLATORS:
        apo__oscillators_tile((int)id, io, begin, end);
        break;
    case APO_CAT_STATISTICS:
        apo__statistics_tile((int)id, io, begin, end);
        break;
    case APO_CAT_TREND:
        apo__trend_tile((int)id, io, begin, end);
        break;
    case APO_CAT_VOLUME:
        apo__volume_tile((int)id, io, begin, end);
        break;
    }
}
