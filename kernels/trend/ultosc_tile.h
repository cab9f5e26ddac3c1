/*
 * ultosc_tile.h: ULTOSC(timeperiod1, timeperiod2, timeperiod3), TA-Lib's ultimate oscillator.
 * Inputs high, low, close. Here, beside the true range it shares (trange_tile.h), rather than
 * among the oscillators, which come before the trend room.
 *
 * Definition (TA-Lib's): bar i's buying pressure is close[i] - min(low[i], close[i-1]) and
 * its true range trange's. The periods are sorted, s1 <= s2 <= s3 (TA-Lib sorts them too, so
 * the shortest window always weighs 4); a_k and b_k are the sums of the pressures and of the
 * true ranges of the s_k bars ending at t, in index order; then, from 0,
 * `osc += 4 * (a1 / b1)`, `osc += 2 * (a2 / b2)`, `osc += a3 / b3`, each term only where its
 * b_k > 0 (TA-Lib 0.8's exact test: a sum of ranges is 0 only when every range is), and
 * ULTOSC = 100 * (osc / 7), output from t = s3 (the lookback).
 *
 * Each output is evaluated from its own windows (s3 steps a bar, where TA-Lib slides its six
 * sums in double, whose roundings it carries on): a function of the window alone, so tiles
 * join and a stream keeps its position. A non-finite high, low or close among the s3 bars, or
 * in the close before them, gives NaN.
 */
#ifndef APO_KERNELS_ULTOSC_TILE_H
#define APO_KERNELS_ULTOSC_TILE_H

#include "trange_tile.h"

/* The three periods of io, shortest first. */
static inline APO_HD void apo__ultosc_periods(const apo__cat_io *io, size_t s[3]) {
    s[0] = (size_t)io->p[0];
    s[1] = (size_t)io->p[1];
    s[2] = (size_t)io->p[2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2 - i; j++)
            if (s[j] > s[j + 1]) {
                const size_t swap = s[j];
                s[j] = s[j + 1];
                s[j + 1] = swap;
            }
}

static inline APO_HD void apo__ultosc_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double *out = io->out[0];
    size_t s[3];
    apo__ultosc_periods(io, s);
    size_t t = apo__cat_nan_lead(out, begin, end, s[2]);
    for (; t < end; t++) {
        double a[3] = {0.0, 0.0, 0.0}, b[3] = {0.0, 0.0, 0.0};
        int clean = 1;
        for (size_t i = t + 1 - s[2]; i <= t; i++) {
            const double range = apo__true_range(high, low, close, i);
            const double before = close[i - 1], l = low[i];
            const double pressure = close[i] - (l < before ? l : before);
            clean &= isfinite(range) && isfinite(pressure);
            for (int k = 0; k < 3; k++)
                if (i + s[k] > t) {
                    a[k] = a[k] + pressure;
                    b[k] = b[k] + range;
                }
        }
        double osc = 0.0;
        if (b[0] > 0.0)
            osc = osc + 4.0 * (a[0] / b[0]);
        if (b[1] > 0.0)
            osc = osc + 2.0 * (a[1] / b[1]);
        if (b[2] > 0.0)
            osc = osc + a[2] / b[2];
        out[t] = clean ? 100.0 * (osc / 7.0) : (double)NAN;
    }
}

#endif /* APO_KERNELS_ULTOSC_TILE_H */
