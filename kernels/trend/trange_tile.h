/*
 * trange_tile.h: TRANGE, TA-Lib's true range, max(high - low, |high - close[t-1]|,
 * |low - close[t-1]|) in TA-Lib's order of comparison. Inputs high, low, close. Halo 1;
 * position 0 is NaN. A non-finite high[t], low[t] or close[t-1] gives NaN.
 */
#ifndef APO_KERNELS_TRANGE_TILE_H
#define APO_KERNELS_TRANGE_TILE_H

#include "catalog.h"
#include "tile_vec.h"

/* Bars per block of the vector loop below (a multiple of every path's lanes). */
#define APO_TRANGE_BLOCK 512

/* The true range of a bar's high h and low l and the close c before, or NaN where one of them
 * is not finite. Written as selects, with the finiteness test without short-circuits and applied
 * last, so that a loop of it has no branch and vectorizes (the values compared are finite or
 * infinite, never NaN, where the result is kept). */
static inline APO_HD double apo__true_range_values(double h, double l, double c) {
    const int ok = apo__finite(h) & apo__finite(l) & apo__finite(c);
    double greatest = h - l;
    const double a = fabs(c - h);
    greatest = a > greatest ? a : greatest;
    const double b = fabs(l - c);
    greatest = b > greatest ? b : greatest;
    return ok ? greatest : (double)NAN;
}

/* The true range at t >= 1. */
static APO_HD_STEP APO_HD double apo__true_range(const double *high, const double *low,
                                                 const double *close, size_t t) {
    return apo__true_range_values(high[t], low[t], close[t - 1]);
}

#ifdef APO_TILE_LANES
/* apo__true_range lane for lane of each lane's high h, low l and previous close c: the same
 * subtractions, the sign bit cleared as fabs clears it, the same strict comparisons as
 * selects, and the finiteness of the three samples as (v - v) summed, +0 when all are finite
 * and NaN when one is not. gcc leaves the scalar function's loop scalar (it keeps the
 * function out of line), which made trange twice TA-Lib's time. apo__true_range_vec takes
 * APO_TILE_LANES consecutive positions from t; the Wilder lanes (trange_lanes.h) each lane's
 * own position. */
static inline apo_tv apo__true_range_of_finite(apo_tv h, apo_tv l, apo_tv c) {
    apo_tv greatest = h - l;
    const apo_tv a = apo_tv_abs(c - h);
    greatest = apo_tv_above_or(a, greatest);
    const apo_tv b = apo_tv_abs(l - c);
    return apo_tv_above_or(b, greatest);
}

static inline apo_tv apo__true_range_of(apo_tv h, apo_tv l, apo_tv c) {
    const apo_tm ok = ((h - h) + (l - l) + (c - c)) == 0.0;
    return apo_tv_pick(ok, apo__true_range_of_finite(h, l, c), apo_tv_splat(NAN));
}

/* The lanes' bits as unsigned integers, whose addition wraps where a signed one would
 * overflow (undefined behaviour, which the sanitizer build reports). */
typedef uint64_t apo__trange_bits __attribute__((vector_size(APO_TILE_LANES * sizeof(uint64_t))));

/* Sign bits set in the lanes of samples that are not finite: an exponent of all ones plus
 * one unit of exponent carries into the sign bit, any other exponent does not. Integer
 * work, three operations a sample against the five of (v - v) summed and its compare. */
static inline apo_tm apo__trange_gap_carry(apo_tv v) {
    const apo__trange_bits exponent = (apo__trange_bits)apo_tv_splat(INFINITY);
    const apo__trange_bits unit = (apo__trange_bits)apo_tv_splat(0x1p-1022);
    return (apo_tm)(((apo__trange_bits)v & exponent) + unit);
}

static inline apo_tv apo__true_range_vec(const double *high, const double *low, const double *close,
                                         size_t t) {
    return apo__true_range_of(apo_tv_load(high + t), apo_tv_load(low + t),
                              apo_tv_load(close + t - 1));
}
#endif

static inline APO_HD void apo__trange_tile(const apo__cat_io *io, size_t begin, size_t end) {
    size_t t = begin;
    if (t == 0)
        io->out[0][t++] = NAN;
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double *out = io->out[0];
#ifdef APO_TILE_LANES
    /* Blocks of whole vectors, up to APO_TRANGE_BLOCK bars: the true ranges without the
     * finiteness test, and the block computed again with the test when a bar may hold a
     * sample that is not finite. Where every sample is finite the test keeps the value
     * computed, so the bits are apo__true_range's. Which bars may: those whose range is not
     * finite, or whose previous close is NaN. A high or low that is NaN or infinite makes
     * the range so (h - l is, and the selects keep a NaN, since no comparison with it is
     * true); an infinite close makes |c - h| infinite, which the selects take; only a NaN
     * close loses its comparisons and leaves h - l. So the range's own gap test and one
     * compare of the close replace the three samples' tests (a finite bar whose range
     * overflows is computed again too, to the same bits).
     * On a span of two blocks or more the bars before the outputs reach a 64-byte line
     * take the scalar function first, so that no vector store straddles two lines (a
     * series' first output is its NaN, which would put every store one double past a
     * line); the scalar function's bits are the vectors'. */
    if (end - t >= 2 * APO_TRANGE_BLOCK)
        for (const size_t head = t + apo__doubles_to_line(out + t); t < head; t++)
            out[t] = apo__true_range(high, low, close, t);
    while (end - t >= APO_TILE_LANES) {
        size_t n = (end - t) / APO_TILE_LANES * APO_TILE_LANES;
        const size_t stop = t + (n < APO_TRANGE_BLOCK ? n : APO_TRANGE_BLOCK);
        apo_tm carry = apo_tm_zero();
        for (size_t i = t; i < stop; i += APO_TILE_LANES) {
            const apo_tv h = apo_tv_load(high + i), l = apo_tv_load(low + i),
                         c = apo_tv_load(close + i - 1);
            const apo_tv range = apo__true_range_of_finite(h, l, c);
            apo_tv_store(out + i, range);
            carry |= apo__trange_gap_carry(range) | (apo_tm)(c != c);
        }
        if (apo_tm_any(carry))
            for (size_t i = t; i < stop; i += APO_TILE_LANES)
                apo_tv_store(out + i, apo__true_range_vec(high, low, close, i));
        t = stop;
    }
#endif
    for (; t < end; t++)
        out[t] = apo__true_range(high, low, close, t);
}

#endif /* APO_KERNELS_TRANGE_TILE_H */
