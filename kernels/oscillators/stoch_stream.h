/*
 * stoch_stream.h: the stochastics' stream entries (stoch, stochf; catalog_table.h, the stream
 * column RUN), beside their tile (stoch_tile.h).
 *
 * Every output of the stochastics is a function of its windows' bars alone, so a stream could
 * resume them from the position alone, and did: a one-bar update ran the tile body over that
 * bar, which evaluated again every fastk and slowk value the new bar's means read (stoch at
 * (5, 3, 3): five fastk scans and four means for one bar). Here the run carries the last values
 * the next bar's means read in its apo__cat_run (v: stoch's last slowk_period - 1 fastk values,
 * then its last slowd_period - 1 slowk values; stochf's last fastd_period - 1 fastk values;
 * n[0] 1 when they are the values before r->t), so a bar costs one fastk scan and one mean
 * per output. The values are the tile's (apo__fastk_at is the scan of apo__fastk_finite and its
 * gap rule, apo__stoch_mean_of apo__stoch_means's double-double sum and quotient), and a value
 * before the first one the kernel defines is NaN, read only by outputs of the NaN lead, so an
 * update gives the tile's bits. A piece of more than APO_STOCH_CARRY_BARS bars, or periods
 * whose values do not fit the run, takes the tile body, and the next piece fills the values
 * again from the bars. These are the SMA's runs (matype 0); the entries, which take another
 * matype through kdj's body, are stoch_ma.h's.
 */
#ifndef APO_KERNELS_STOCH_STREAM_H
#define APO_KERNELS_STOCH_STREAM_H

#include "run_entries.h"
#include "stoch_tile.h"

/* The values a run carries (as many as apo__cat_run.v holds), and the longest piece run bar by
 * bar: a longer one takes the tile body's blocks, which run vectors of bars. */
#define APO_STOCH_CARRY (sizeof(((apo__cat_run *)0)->v) / sizeof(double))
#define APO_STOCH_CARRY_BARS 16

/* The mean of v[0 .. n), apo__stoch_means's operations at one bar: NaN where a value is not
 * finite. */
static inline APO_HD double apo__stoch_mean_of(const double *v, size_t n) {
    apo__dd s = apo__dd_make(0.0, 0.0);
    int finite = 1;
    for (size_t d = 0; d < n; d++) {
        s = apo__dd_add_d(s, v[d]);
        finite &= apo__finite(v[d]);
    }
    return finite ? apo__dd_div_d(s, (double)n).hi : (double)NAN;
}

/* fastk at bar t - back, NaN before the first bar it is defined at (fk - 1) or before bar 0. */
static inline APO_HD double apo__stoch_fastk_or_nan(const apo__cat_io *io, size_t t, size_t back,
                                                    size_t fk) {
    return t >= back && t - back + 1 >= fk ? apo__fastk_at(io, t - back, fk) : (double)NAN;
}

/* The mean of the n fastk values ending at bar t - back (stoch's slowk there: the tile's
 * apo__fastk_mean), NaN before the first bar it is defined at. */
static inline APO_HD double apo__stoch_slowk_or_nan(const apo__cat_io *io, size_t t, size_t back,
                                                    size_t fk, size_t n) {
    return t >= back && t - back >= (fk - 1) + (n - 1) ? apo__fastk_mean(io, t - back, fk, n)
                                                       : (double)NAN;
}

/* Drops the first of v[0 .. n] (n + 1 values). */
static inline APO_HD void apo__stoch_shift(double *v, size_t n) {
    for (size_t q = 0; q < n; q++)
        v[q] = v[q + 1];
}

static inline APO_HD void apo__stoch_run(const apo__cat_io *io, size_t end, apo__cat_run *r) {
    const size_t fk = (size_t)io->p[0], sk = (size_t)io->p[1], sd = (size_t)io->p[3];
    const size_t lookback = (fk - 1) + (sk - 1) + (sd - 1);
    if ((sk - 1) + (sd - 1) > APO_STOCH_CARRY || end - r->t > APO_STOCH_CARRY_BARS) {
        apo__stoch_sma_tile(io, r->t, end);
        r->t = end;
        r->n[0] = 0;
        return;
    }
    /* fast[0 .. sk - 1): fastk at t - sk + 1 .. t - 1, fast[sk - 1] the bar's own; slow alike
     * for slowk over sd. */
    double fast[APO_STOCH_CARRY + 1], slow[APO_STOCH_CARRY + 1];
    const size_t t0 = r->t;
    for (size_t q = 0; q + 1 < sk; q++)
        fast[q] = r->n[0] ? r->v[q] : apo__stoch_fastk_or_nan(io, t0, sk - 1 - q, fk);
    for (size_t q = 0; q + 1 < sd; q++)
        slow[q] = r->n[0] ? r->v[sk - 1 + q] : apo__stoch_slowk_or_nan(io, t0, sd - 1 - q, fk, sk);
    for (size_t t = t0; t < end; t++) {
        fast[sk - 1] = apo__stoch_fastk_or_nan(io, t, 0, fk);
        slow[sd - 1] = apo__stoch_mean_of(fast, sk);
        const int out = t >= lookback;
        io->out[0][t] = out ? slow[sd - 1] : (double)NAN;
        io->out[1][t] = out ? apo__stoch_mean_of(slow, sd) : (double)NAN;
        apo__stoch_shift(fast, sk - 1);
        apo__stoch_shift(slow, sd - 1);
    }
    for (size_t q = 0; q + 1 < sk; q++)
        r->v[q] = fast[q];
    for (size_t q = 0; q + 1 < sd; q++)
        r->v[sk - 1 + q] = slow[q];
    r->t = end;
    r->n[0] = 1;
}

static inline APO_HD void apo__stochf_run(const apo__cat_io *io, size_t end, apo__cat_run *r) {
    const size_t fk = (size_t)io->p[0], fd = (size_t)io->p[1];
    const size_t lookback = (fk - 1) + (fd - 1);
    if (fd - 1 > APO_STOCH_CARRY || end - r->t > APO_STOCH_CARRY_BARS) {
        apo__stochf_sma_tile(io, r->t, end);
        r->t = end;
        r->n[0] = 0;
        return;
    }
    double fast[APO_STOCH_CARRY + 1];
    const size_t t0 = r->t;
    for (size_t q = 0; q + 1 < fd; q++)
        fast[q] = r->n[0] ? r->v[q] : apo__stoch_fastk_or_nan(io, t0, fd - 1 - q, fk);
    for (size_t t = t0; t < end; t++) {
        fast[fd - 1] = apo__stoch_fastk_or_nan(io, t, 0, fk);
        const int out = t >= lookback;
        io->out[0][t] = out ? fast[fd - 1] : (double)NAN;
        io->out[1][t] = out ? apo__stoch_mean_of(fast, fd) : (double)NAN;
        apo__stoch_shift(fast, fd - 1);
    }
    for (size_t q = 0; q + 1 < fd; q++)
        r->v[q] = fast[q];
    r->t = end;
    r->n[0] = 1;
}

#endif /* APO_KERNELS_STOCH_STREAM_H */
