/*
 * stoch_tile.h: STOCHF(fastk_period, fastd_period, fastd_matype) and STOCH(fastk_period,
 * slowk_period, slowk_matype, slowd_period, slowd_matype), TA-Lib's stochastics, with
 * TA-Lib's default moving average, the SMA (matype 0, the only one offered).
 *
 * Definition: fastk(i) = (close[i] - L) / ((H - L) / 100), H and L the highest high and
 * lowest low of the fastk_period bars ending at i, 0 where H = L (TA-Lib's operation order);
 * STOCHF's fastd is the SMA(fastd_period) of fastk; STOCH's slowk is the SMA(slowk_period)
 * of fastk and slowd the SMA(slowd_period) of slowk. Every output is NaN before the
 * lookback, (fastk_period - 1) + (fastd_period - 1) for STOCHF and (fastk_period - 1) +
 * (slowk_period - 1) + (slowd_period - 1) for STOCH, as in TA-Lib.
 *
 * Tile: halo = lookback. Each mean is a double-double sum of its values (dd.h) divided by
 * its count, evaluated per output from fastk values that are themselves evaluated per bar
 * (a scan of fastk_period bars): O(fastk_period * slowk_period) per output, cheap at the
 * defaults (5, 3, 3), and no state crosses outputs, so nothing drifts. STOCH's slowd reads
 * the slowk values this tile has written and evaluates those before the tile. A gap (a
 * non-finite high, low or close) anywhere the output reads makes it NaN. Where the mean
 * periods fit APO_STOCH_RING, each bar's fastk (and slowk) is evaluated once and kept in a
 * small ring that the means read in the same order, instead of re-evaluating it for every
 * mean it enters (about 3x the work at the defaults), and the gaps of high and low are
 * tracked as bars arrive rather than re-tested in every scan; the values and sums are the
 * same.
 */
#ifndef APO_KERNELS_STOCH_TILE_H
#define APO_KERNELS_STOCH_TILE_H

#include "catalog.h"
#include "dd.h"
#include "window.h"

/* fastk at i >= fk - 1 from samples the caller knows are finite. */
static inline APO_HD double apo__fastk_finite(const apo__cat_io *io, size_t i, size_t fk) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double hh = high[i + 1 - fk], ll = low[i + 1 - fk];
    for (size_t j = i + 2 - fk; j <= i; j++) {
        hh = high[j] > hh ? high[j] : hh;
        ll = low[j] < ll ? low[j] : ll;
    }
    const double diff = (hh - ll) / 100.0;
    return diff != 0.0 ? (close[i] - ll) / diff : 0.0;
}

/* fastk at i >= fk - 1, or NaN where one of its samples is not finite. */
static inline APO_HD double apo__fastk_at(const apo__cat_io *io, size_t i, size_t fk) {
    int ok = isfinite(io->in[2][i]);
    for (size_t j = i + 1 - fk; j <= i; j++)
        ok = ok && isfinite(io->in[0][j]) && isfinite(io->in[1][j]);
    return ok ? apo__fastk_finite(io, i, fk) : (double)NAN;
}

/* apo__fastk_at for the bars j = from, from + 1, ... in turn: the gaps of high and low are
 * tracked as the bars arrive (window.h), so each sample is tested once, not fk times. */
typedef struct apo__fastk_run {
    size_t bad; /* one past the last bar with a non-finite high or low, 0: none */
} apo__fastk_run;

static inline APO_HD apo__fastk_run apo__fastk_run_from(const apo__cat_io *io, size_t from,
                                                        size_t fk) {
    apo__fastk_run r;
    r.bad = apo__last_gap(io->in, 2, from + 1 - fk, from);
    return r;
}

static inline APO_HD double apo__fastk_next(const apo__cat_io *io, apo__fastk_run *r, size_t j,
                                            size_t fk) {
    if (!apo__all_finite_at(io->in, 2, j))
        r->bad = j + 1;
    const int ok = apo__window_clean(j, fk, r->bad) & apo__finite(io->in[2][j]);
    return ok ? apo__fastk_finite(io, j, fk) : (double)NAN;
}

/* The SMA(n) of fastk ending at i >= fk + n - 2, or NaN. */
static inline APO_HD double apo__fastk_mean(const apo__cat_io *io, size_t i, size_t fk, size_t n) {
    apo__dd s = apo__dd_make(0.0, 0.0);
    for (size_t j = i + 1 - n; j <= i; j++) {
        const double v = apo__fastk_at(io, j, fk);
        if (!isfinite(v))
            return NAN;
        s = apo__dd_add_d(s, v);
    }
    return apo__dd_div_d(s, (double)n).hi;
}

/* Entries of the rings of fastk and slowk values; a power of two. Fixed, because a body
 * allocates nothing; small, because on the GPU each thread holds its rings. */
#define APO_STOCH_RING 64

/* apo__fastk_mean's SMA(n) ending at i, from the values kept at ring[j % APO_STOCH_RING]:
 * the same values summed in the same order, NaN where one is not finite. */
static inline APO_HD double apo__ring_mean(const double *ring, size_t i, size_t n) {
    apo__dd s = apo__dd_make(0.0, 0.0);
    for (size_t j = i + 1 - n; j <= i; j++) {
        const double v = ring[j & (APO_STOCH_RING - 1)];
        if (!isfinite(v))
            return NAN;
        s = apo__dd_add_d(s, v);
    }
    return apo__dd_div_d(s, (double)n).hi;
}

static inline APO_HD void apo__stochf_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const size_t fk = (size_t)io->p[0], fd = (size_t)io->p[1];
    const size_t lookback = (fk - 1) + (fd - 1);
    if (fd <= APO_STOCH_RING) {
        double ring[APO_STOCH_RING];
        const size_t first = begin > lookback ? begin : lookback;
        for (size_t t = begin; t < end && t < first; t++) {
            io->out[0][t] = NAN;
            io->out[1][t] = NAN;
        }
        /* A tile that ends in the lead has no fastk to compute, and the bars the first one
         * would read may not exist (a series shorter than the lookback). */
        if (first >= end)
            return;
        /* From the first fastk the first mean reads (>= fk - 1, as first >= lookback). */
        apo__fastk_run run = apo__fastk_run_from(io, first + 1 - fd, fk);
        for (size_t j = first + 1 - fd; j < end; j++) {
            const double v = apo__fastk_next(io, &run, j, fk);
            ring[j & (APO_STOCH_RING - 1)] = v;
            if (j >= first) {
                io->out[0][j] = v;
                io->out[1][j] = apo__ring_mean(ring, j, fd);
            }
        }
        return;
    }
    for (size_t t = begin; t < end; t++) {
        if (t < lookback) {
            io->out[0][t] = NAN;
            io->out[1][t] = NAN;
            continue;
        }
        io->out[0][t] = apo__fastk_at(io, t, fk);
        io->out[1][t] = apo__fastk_mean(io, t, fk, fd);
    }
}

static inline APO_HD void apo__stoch_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const size_t fk = (size_t)io->p[0], sk = (size_t)io->p[1], sd = (size_t)io->p[3];
    const size_t first_k = (fk - 1) + (sk - 1), lookback = first_k + (sd - 1);
    double *slowk = io->out[0], *slowd = io->out[1];
    if (sk <= APO_STOCH_RING && sd <= APO_STOCH_RING) {
        double fast[APO_STOCH_RING], slow[APO_STOCH_RING];
        const size_t first = begin > lookback ? begin : lookback;
        for (size_t t = begin; t < end && t < first; t++) {
            slowk[t] = NAN;
            slowd[t] = NAN;
        }
        if (first >= end)
            return; /* as in apo__stochf_tile */
        /* The first slowk the first slowd reads, and the first fastk that slowk reads
         * (>= fk - 1, as first >= lookback). */
        const size_t from_k = first + 1 - sd, from_f = from_k + 1 - sk;
        apo__fastk_run run = apo__fastk_run_from(io, from_f, fk);
        for (size_t j = from_f; j < end; j++) {
            fast[j & (APO_STOCH_RING - 1)] = apo__fastk_next(io, &run, j, fk);
            if (j < from_k)
                continue;
            const double k = apo__ring_mean(fast, j, sk);
            slow[j & (APO_STOCH_RING - 1)] = k;
            if (j >= first) {
                slowk[j] = k;
                slowd[j] = apo__ring_mean(slow, j, sd);
            }
        }
        return;
    }
    for (size_t t = begin; t < end; t++) {
        if (t < lookback) {
            slowk[t] = NAN;
            slowd[t] = NAN;
            continue;
        }
        slowk[t] = apo__fastk_mean(io, t, fk, sk);
        apo__dd s = apo__dd_make(0.0, 0.0);
        int ok = 1;
        for (size_t j = t + 1 - sd; j <= t && ok; j++) {
            /* slowk at j: this tile's output where it wrote it (not the NaN lead), else
             * evaluated here. */
            const double v =
                j >= begin && j >= lookback ? slowk[j] : apo__fastk_mean(io, j, fk, sk);
            ok = isfinite(v);
            s = apo__dd_add_d(s, v);
        }
        slowd[t] = ok ? apo__dd_div_d(s, (double)sd).hi : (double)NAN;
    }
}

#endif /* APO_KERNELS_STOCH_TILE_H */
