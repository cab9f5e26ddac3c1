/*
 * ma_type.h: the moving average of TA-Lib's `matype` parameter (TA_MAType), for the kernels
 * that take one (ma, bbands, mavp, and the kernels built on them), over a span of a tile.
 *
 * What: matype 0 SMA, 1 EMA, 2 WMA, 3 DEMA, 4 TEMA, 5 TRIMA, 6 KAMA, 7 MAMA, 8 T3 (vfactor
 * 0.7, TA-Lib's MA's), each by its own catalog body (sma_tile.h, ema_tile.h, ...), so an
 * average taken through a matype has the bits of the catalog kernel of that name at the
 * same tile grid. MAMA is mama's first output at TA-Lib's default limits whatever the period
 * (TA-Lib's MA), which reads its row from the first bar: a kernel taking it at matype 7 is
 * whole-row at those parameters (apo__ma_whole_row; docs/kernels/overlap.md, "MAMA, and TA-Lib's
 * matype 7"). A period of 1 is the sample itself, as TA-Lib's MA gives it (NaN where the
 * sample is not finite).
 *
 * Halo: the average's lookback (apo__ma_lookback) plus the warm-up its kind needs
 * (apo__ma_warmup, dispatch/catalog_dispatch.c: nothing for the windows, D(k) per EMA stage
 * and one more for a chain, KAMA's slowest rate), which the host computes for the CPU and
 * the GPU alike; the bodies take it as io->h. MAMA has none: the runtime hands its kernel
 * whole rows instead.
 */
#ifndef APO_KERNELS_MA_TYPE_H
#define APO_KERNELS_MA_TYPE_H

#include "catalog.h"
#include "dema_tile.h"
#include "ema_tile.h"
#include "kama_tile.h"
#include "mama_tile.h"
#include "sma_tile.h"
#include "t3_tile.h"
#include "tema_tile.h"
#include "trima_tile.h"
#include "wma_tile.h"

/* TA-Lib's TA_MAType. */
enum {
    APO_MA_SMA = 0,
    APO_MA_EMA = 1,
    APO_MA_WMA = 2,
    APO_MA_DEMA = 3,
    APO_MA_TEMA = 4,
    APO_MA_TRIMA = 5,
    APO_MA_KAMA = 6,
    APO_MA_MAMA = 7,
    APO_MA_T3 = 8,
    APO_MA_TYPES = 9
};

/* T3's vfactor when TA-Lib's MA takes T3. */
#define APO_MA_T3_VFACTOR 0.7

/* 1 for a matype this catalog computes (every one of TA-Lib's), else 0. */
static inline APO_HD int apo__ma_supported(int matype) {
    return matype >= 0 && matype < APO_MA_TYPES;
}

/* 1 where MA(p, matype) reads its row from the first bar (MAMA but at period 1, which is the
 * sample itself), so that a kernel taking it is whole-row at those parameters. */
static inline APO_HD int apo__ma_whole_row(int matype, size_t p) {
    return matype == APO_MA_MAMA && p > 1;
}

/* TA-Lib's lookback of MA(p, matype): its NaN lead. A period of 1 has none. */
static inline APO_HD size_t apo__ma_lookback(int matype, size_t p) {
    if (p <= 1)
        return 0;
    switch (matype) {
    case APO_MA_DEMA:
        return 2 * (p - 1);
    case APO_MA_TEMA:
        return 3 * (p - 1);
    case APO_MA_KAMA:
        return p;
    case APO_MA_MAMA:
        return APO_MAMA_LOOKBACK;
    case APO_MA_T3:
        return 6 * (p - 1);
    default:
        return p - 1;
    }
}

/* The sample itself where it is finite, else NaN: MA at period 1. */
static inline APO_HD void apo__ma_identity(const double *x, double *out, size_t begin, size_t end) {
    for (size_t t = begin; t < end; t++)
        out[t] = isfinite(x[t]) ? x[t] : (double)NAN;
}

/* The io of the matype's own kernel (sma, ema, ...) over row x into row out at period p and
 * halo h: T3 at TA-Lib's MA vfactor, one tile (no tiles side by side). */
static inline APO_HD apo__cat_io apo__ma_kind_io(const double *x, double *out, size_t p, size_t h) {
    apo__cat_io io;
    memset(&io, 0, sizeof io);
    io.in[0] = x;
    io.out[0] = out;
    io.p[0] = (double)p;
    io.p[1] = APO_MA_T3_VFACTOR;
    io.h = h;
    io.tile = 0;
    return io;
}

/*
 * MA(p, matype) of row x into row out over [begin, end), both at absolute indices: reads x
 * from begin - h (h at least apo__ma_lookback + apo__ma_warmup of the same p and matype; a
 * longer one only forgets a recurrence's seed further), or from 0 where apo__ma_whole_row;
 * writes out[begin .. end) only.
 */
static inline APO_HD void apo__ma_span(int matype, const double *x, double *out, size_t p, size_t h,
                                       size_t begin, size_t end) {
    if (!apo__ma_supported(matype)) {
        for (size_t t = begin; t < end; t++)
            out[t] = NAN;
        return;
    }
    if (p <= 1) {
        apo__ma_identity(x, out, begin, end);
        return;
    }
    if (matype == APO_MA_MAMA) {
        apo__mama_span(x, out, begin, end);
        return;
    }
    const apo__cat_io io = apo__ma_kind_io(x, out, p, h);
    switch (matype) {
    case APO_MA_EMA:
        apo__ema_tile(&io, begin, end);
        break;
    case APO_MA_WMA:
        apo__wma_tile(&io, begin, end);
        break;
    case APO_MA_DEMA:
        apo__dema_tile(&io, begin, end);
        break;
    case APO_MA_TEMA:
        apo__tema_tile(&io, begin, end);
        break;
    case APO_MA_TRIMA:
        apo__trima_tile(&io, begin, end);
        break;
    case APO_MA_KAMA:
        apo__kama_tile(&io, begin, end);
        break;
    case APO_MA_T3:
        apo__t3_tile(&io, begin, end);
        break;
    default:
        apo__sma_tile(&io, begin, end);
        break;
    }
}

#endif /* APO_KERNELS_MA_TYPE_H */
