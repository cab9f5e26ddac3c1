/*
 * bbands_tile.h: BBANDS(timeperiod, nbdevup, nbdevdn, matype), TA-Lib's Bollinger bands:
 * middleband = MA(timeperiod, matype) of the close, sd the population standard deviation of
 * the p samples ending at t (about their own mean, whatever the matype, as TA-Lib's STDDEV),
 * upperband = middle + nbdevup sd, lowerband = middle - nbdevdn sd; NaN before the average's
 * lookback.
 *
 * matype 0 (the default) is the built-in bollinger's body itself (bollinger_tile.h), so
 * bbands there has bollinger's bits and its gap rule (a window holding a NaN gives NaN
 * bands and middle; one holding infinities of one sign only, that infinity as the middle).
 * Another matype takes its average from ma_type.h (its gap rule) and sd from each window
 * afresh: shifted by the window's newest sample c, the mean of x - c, then the mean of the
 * squared deviations from it (nothing cancels, about p ulps of the variance; a constant
 * window gives 0 exactly); a window holding a gap gives NaN bands.
 *
 * bollinger's body exists once per translation unit, with the stores its unit chose
 * (bollinger_tile.h): the bands by default, the pass's mean and sd where the unit included
 * bollinger_pass_tile.h first (the scored kernels, scores/scored.cu). In such a unit bbands
 * forms the bands from the pass's values with the default stores' operations, so both give
 * the same bits.
 */
#ifndef APO_KERNELS_BBANDS_TILE_H
#define APO_KERNELS_BBANDS_TILE_H

#include "bollinger_pass_flat.h"
#include "bollinger_tile.h"
#include "ma_type.h"

/* The population standard deviation of the p samples ending at t, NaN where one is not
 * finite. */
static inline APO_HD double apo__bbands_sd(const double *x, size_t p, size_t t) {
    const double c = x[t], inv = 1.0 / (double)p;
    double s = 0.0;
    for (size_t i = t + 1 - p; i <= t; i++)
        s = s + (x[i] - c);
    const double m = s * inv;
    double q = 0.0;
    for (size_t i = t + 1 - p; i <= t; i++) {
        const double d = (x[i] - c) - m;
        q = q + d * d;
    }
    return apo__canonical_nan(sqrt(q * inv));
}

#ifdef APO_BOLLINGER_PASS_STORES_H
/* bollinger's bands from its pass: "upper" holds each window's sd (or the flat marker, or
 * NaN where it has none) and "middle" its mean; the bands as the default stores form them. */
static inline APO_HD void apo__bbands_bollinger(const double *x, size_t begin, size_t end, size_t p,
                                                double up, double dn, double *upper, double *middle,
                                                double *lower) {
    apo__bollinger_tile(apo__in_at(x), begin, end, p, 0.0, 0.0, apo__out_at(upper),
                        apo__out_at(middle), apo__out_at(upper));
    for (size_t t = begin; t < end; t++) {
        const double sd = upper[t], mean = middle[t];
        if (sd == APO_BOLLINGER_PASS_FLAT) {
            upper[t] = lower[t] = mean;
        } else if (isnan(sd)) {
            upper[t] = lower[t] = NAN;
        } else {
            upper[t] = apo__canonical_nan(mean + up * sd);
            middle[t] = apo__canonical_nan(mean);
            lower[t] = apo__canonical_nan(mean - dn * sd);
        }
    }
}
#else
static inline APO_HD void apo__bbands_bollinger(const double *x, size_t begin, size_t end, size_t p,
                                                double up, double dn, double *upper, double *middle,
                                                double *lower) {
    apo__bollinger_tile(apo__in_at(x), begin, end, p, up, dn, apo__out_at(upper),
                        apo__out_at(middle), apo__out_at(lower));
}
#endif

/* TA-Lib's lookback: the middle's, or the deviation's window p - 1 where that is longer (MAMA,
 * matype 7, whose lookback is 32 at any period; TA-Lib then leads all three outputs with
 * p - 1 NaN). */
static inline APO_HD size_t apo__bbands_lookback(int matype, size_t p) {
    const size_t middle = apo__ma_lookback(matype, p);
    return p > 0 && p - 1 > middle ? p - 1 : middle;
}

/* At a matype other than 0, the bands over [from, end) around the middle already written there:
 * NaN where the middle is or before the first full window, else middle +- nbdev * sd of the
 * window. Each position reads its own window only, so the tile and a stream's pieces
 * (bbands_stream.h) compute it over any split of the positions with the same bits. */
static inline APO_HD void apo__bbands_around(const apo__cat_io *io, size_t from, size_t end) {
    const double *x = io->in[0];
    const size_t p = (size_t)io->p[0];
    const double up = io->p[1], dn = io->p[2];
    for (size_t t = from; t < end; t++) {
        const double mid = io->out[1][t];
        if (isnan(mid) || t + 1 < p) {
            io->out[0][t] = NAN;
            io->out[1][t] = NAN;
            io->out[2][t] = NAN;
            continue;
        }
        const double sd = apo__bbands_sd(x, p, t);
        io->out[0][t] = apo__canonical_nan(mid + up * sd);
        io->out[2][t] = apo__canonical_nan(mid - dn * sd);
    }
}

static inline APO_HD void apo__bbands_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *x = io->in[0];
    const size_t p = (size_t)io->p[0];
    const double up = io->p[1], dn = io->p[2];
    const int matype = (int)io->p[3];
    if (matype == APO_MA_SMA) {
        apo__bbands_bollinger(x, begin, end, p, up, dn, io->out[0], io->out[1], io->out[2]);
        return;
    }
    apo__ma_span(matype, x, io->out[1], p, io->h, begin, end);
    apo__bbands_around(io, begin, end);
}

#endif /* APO_KERNELS_BBANDS_TILE_H */
