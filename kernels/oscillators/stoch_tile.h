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
 * non-finite high, low or close) anywhere the output reads makes it NaN.
 */
#ifndef APO_KERNELS_STOCH_TILE_H
#define APO_KERNELS_STOCH_TILE_H

#include "catalog.h"
#include "dd.h"

/* fastk at i >= fk - 1, or NaN where one of its samples is not finite. */
static inline APO_HD double apo__fastk_at(const apo__cat_io *io, size_t i, size_t fk) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double hh = high[i + 1 - fk], ll = low[i + 1 - fk];
    int ok = isfinite(hh) && isfinite(ll) && isfinite(close[i]);
    for (size_t j = i + 2 - fk; j <= i; j++) {
        ok = ok && isfinite(high[j]) && isfinite(low[j]);
        hh = high[j] > hh ? high[j] : hh;
        ll = low[j] < ll ? low[j] : ll;
    }
    if (!ok)
        return NAN;
    const double diff = (hh - ll) / 100.0;
    return diff != 0.0 ? (close[i] - ll) / diff : 0.0;
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

static inline APO_HD void apo__stochf_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const size_t fk = (size_t)io->p[0], fd = (size_t)io->p[1];
    const size_t lookback = (fk - 1) + (fd - 1);
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
