/*
 * adosc_tile.h: ADOSC(fastperiod, slowperiod), TA-Lib's Chaikin A/D oscillator: the fast
 * minus the slow EMA of the accumulation/distribution line. Inputs high, low, close,
 * volume.
 *
 * Definition (TA-Lib's): AD += ((close - low) - (high - close)) / (high - low) * volume at
 * each bar where high - low > 0 (a bar with high <= low adds nothing); both EMAs are
 * seeded with the first AD value and then step e = (k * AD) + ((1 - k) * e), k = 2 / (n + 1),
 * in that order; the output fast - slow starts at max(fast, slow) - 1.
 *
 * Tiles: AD is a running sum from the series' first bar, but ADOSC does not depend on its
 * offset: both EMAs are seeded with the same AD value and are linear, so adding a constant
 * to every AD moves both by that constant and leaves their difference. A tile therefore
 * restarts AD at 0 at w0 = max(0, begin - h), h = max(fast, slow) - 1 + D(2 / (max + 1)),
 * and by `begin` the restarted seeds weigh below 2^-64; the first tile (w0 = 0) runs
 * TA-Lib's recursion itself and has its bits. Later tiles' AD is smaller than TA-Lib's
 * running AD, so they round less.
 *
 * Gaps: a bar with a non-finite high, low, close or volume gives NaN and adds nothing; the
 * EMAs do not step over it (the state skips it).
 */
#ifndef APO_KERNELS_ADOSC_TILE_H
#define APO_KERNELS_ADOSC_TILE_H

#include "flow.h"
#include "run_entries.h"
#include "window.h"

/* The tile's start: the loop runs from w0 = max(0, begin - h) with nothing seen
 * (apo__cat_run: n[0] the bars seen, v[0] the A/D line, v[1] and v[2] the fast and slow
 * averages). */
static inline APO_HD void apo__adosc_start(const apo__cat_io *io, size_t begin, apo__cat_run *r) {
    apo__cat_run_from_origin(io, begin, r);
}

/* The rates of the two averages: k and 1 - k, fast then slow. */
typedef struct apo__adosc_rates {
    double fk, fk1, sk, sk1;
} apo__adosc_rates;

/* The two averages' rates 2 / (period + 1) and their complements, as TA-Lib computes them. */
static inline APO_HD apo__adosc_rates apo__adosc_rates_of(size_t fast, size_t slow) {
    apo__adosc_rates k;
    k.fk = 2.0 / (double)(fast + 1);
    k.sk = 2.0 / (double)(slow + 1);
    k.fk1 = 1.0 - k.fk;
    k.sk1 = 1.0 - k.sk;
    return k;
}

#ifdef APO_TILE_LANES
/* The A/D line and its two averages, as the vector path carries them between calls. */
typedef struct apo__adosc_line {
    double ad, fe, se;
} apo__adosc_line;

/* Bars per call of the vector path (apo__adosc_block). */
#define APO_ADOSC_BLOCK 256

/* The serial part of a vector of bars: the A/D line and both averages stepped by the A/D
 * steps step[], the scalar loop's operations; fast - slow written to y[] unless y is NULL. */
static inline void apo__adosc_chain(apo__adosc_line *s, apo__adosc_rates k, const double *step,
                                    double *y) {
    double ad = s->ad, fe = s->fe, se = s->se;
    for (int i = 0; i < APO_TILE_LANES; i++) {
        ad += step[i];
        fe = (k.fk * ad) + (k.fk1 * fe);
        se = (k.sk * ad) + (k.sk1 * se);
        if (y != NULL)
            y[i] = fe - se;
    }
    s->ad = ad;
    s->fe = fe;
    s->se = se;
}

/* The A/D line and both averages (*line) stepped over the n bars from t (whole
 * vectors) on the assumption that none has a gap, both averages being past their seed;
 * returns n, or 0 when a bar had a gap after all (the state left; outputs written may be
 * wrong and the caller rewrites them). Why one gap test for the block: the loop is bound by
 * its instructions, not by the chain (the A/D add, then each average's multiply and add, six
 * cycles a bar): a test and a NaN fix a vector, and an exact stop at the first gap, took
 * 3.4 to 4.0 ns a bar against TA-Lib's fused scalar loop's 2.2 (docs/PERF.md). The steps are
 * those of apo__ad_steps on finite bars (-0.0 where the range is not positive), so the chain
 * has the scalar loop's bits. Outputs fast - slow are written where out is not NULL, NaN
 * made canonical only when the block ends with a non-finite average: an average that turns
 * infinite or NaN stays so (k * ad + (1 - k) * e with e infinite or NaN), and fast - slow of
 * two finite averages is never NaN. */
static inline size_t apo__adosc_block_clean(apo__adosc_line *line, const apo__cat_io *io,
                                            apo__adosc_rates k, size_t t, size_t n, double *out) {
    const double *high = io->in[0] + t, *low = io->in[1] + t, *close = io->in[2] + t,
                 *vol = io->in[3] + t;
    apo__adosc_line s = *line;
    apo_tv gaps = apo_tv_splat(0.0);
    for (size_t j = 0; j < n; j += APO_TILE_LANES) {
        double step[APO_TILE_LANES];
        apo_tv_store(step, apo__ad_steps_clean(high, low, close, vol, j, &gaps));
        apo__adosc_chain(&s, k, step, out != NULL ? out + t + j : NULL);
    }
    if (!apo_tm_all((apo_tm)(gaps == 0.0)))
        return 0;
    if (out != NULL && !(isfinite(s.fe) && isfinite(s.se)))
        for (size_t j = 0; j < n; j++)
            out[t + j] = apo__canonical_nan(out[t + j]);
    *line = s;
    return n;
}

/* As apo__adosc_block_clean, but stopping before the first vector holding a gap: returns how
 * many bars (0: the scalar loop must take bar t). */
static inline size_t apo__adosc_block_to_gap(apo__adosc_line *line, const apo__cat_io *io,
                                             apo__adosc_rates k, size_t t, size_t n, double *out) {
    apo__adosc_line s = *line;
    size_t j = 0;
    for (; j < n; j += APO_TILE_LANES) {
        const apo_tm clean = apo__flow_finite(io->in, 4, t + j);
        if (!apo_tm_all(clean))
            break;
        /* Through memory, not lanes: the extracts and inserts held so many registers that
         * an average spilled, and the store and load sat on its chain. */
        double step[APO_TILE_LANES], y[APO_TILE_LANES];
        apo_tv_store(step, apo__ad_steps(io, t + j));
        apo__adosc_chain(&s, k, step, y);
        if (out != NULL)
            apo_tv_store(out + t + j, apo__flow_output(clean, apo_tv_load(y)));
    }
    *line = s;
    return j;
}

/* Both averages stepped over the bars t .. in whole vectors, up to APO_ADOSC_BLOCK of them
 * before stop: a block without gaps at once, else up to its first gap; returns how many. The
 * A/D steps are computed in lanes, off the chain, which is then the scalar loop's add and two
 * averages a bar: the same bits. */
static inline size_t apo__adosc_block(apo__adosc_line *line, const apo__cat_io *io,
                                      apo__adosc_rates k, size_t t, size_t stop, double *out) {
    const size_t left = (stop - t) / APO_TILE_LANES * APO_TILE_LANES;
    const size_t n = left < APO_ADOSC_BLOCK ? left : APO_ADOSC_BLOCK;
    const size_t done = apo__adosc_block_clean(line, io, k, t, n, out);
    return done > 0 ? done : apo__adosc_block_to_gap(line, io, k, t, n, out);
}
#endif

/* The loop from r->t to end, writing the positions from `begin` (the tile's) on. The vector
 * path takes the blocks apo__adosc_block accepts; a block it refuses is stepped bar by bar,
 * as the GPU steps all. */
static inline APO_HD void apo__adosc_run(const apo__cat_io *io, size_t begin, size_t end,
                                         apo__cat_run *r) {
    double *out = io->out[0];
    const size_t fast = (size_t)io->p[0], slow = (size_t)io->p[1];
    const size_t lookback = (fast > slow ? fast : slow) - 1;
    const apo__adosc_rates k = apo__adosc_rates_of(fast, slow);
    size_t seen = r->n[0];
    double ad = r->v[0], fe = r->v[1], se = r->v[2];
    size_t t = r->t;
    while (t < end) {
        /* Up to the tile's begin while warming up (outputs are written from there on), and
         * never past end: a stream runs the next tile's warm-up ahead, bar by bar, with end
         * before that tile's begin and the later bars not yet arrived. */
        const size_t stop = t < begin && begin < end ? begin : end;
        size_t plain_until = stop;
#ifdef APO_TILE_LANES
        if (seen > lookback) {
            apo__adosc_line line = {ad, fe, se};
            const size_t n = apo__adosc_block(&line, io, k, t, stop, t < begin ? NULL : out);
            if (n > 0) {
                ad = line.ad;
                fe = line.fe;
                se = line.se;
                seen += n;
                t += n;
                continue;
            }
        }
        /* Refused: during the lookback, the next bar by the scalar step; else the vector
         * holding a gap, or the last bars that fill no vector. */
        if (seen <= lookback)
            plain_until = t + 1;
        else if (t + APO_TILE_LANES < stop)
            plain_until = t + APO_TILE_LANES;
#endif
        for (; t < plain_until; t++) {
            double y = NAN;
            if (apo__all_finite_at(io->in, 4, t)) {
                ad = apo__ad_add(ad, io, t);
                if (seen == 0) {
                    fe = ad;
                    se = ad;
                } else {
                    fe = (k.fk * ad) + (k.fk1 * fe);
                    se = (k.sk * ad) + (k.sk1 * se);
                }
                seen++;
                if (seen > lookback)
                    y = apo__canonical_nan(fe - se);
            }
            if (t >= begin)
                out[t] = y;
        }
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = seen;
    r->v[0] = ad;
    r->v[1] = fe;
    r->v[2] = se;
}

/* adosc's tile and stream (catalog_table.h, RUN): apo__adosc_tile, apo__adosc_stream_start and
 * apo__adosc_stream_run, its start at `begin` and its run to `end`. */
APO_CAT_RUN_ENTRIES(adosc, apo__adosc_start(io, begin, r), apo__adosc_run(io, begin, end, r))

#endif /* APO_KERNELS_ADOSC_TILE_H */
