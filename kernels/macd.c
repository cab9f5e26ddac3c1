/*
 * macd.c: MACD (moving average convergence/divergence), one tile of one series per call.
 *
 * What: with k(p) = 2 / (p + 1) and the EMA update e = (x - e) * k + e, the slow EMA is
 * seeded with the mean of the first `slow` samples and the fast EMA with the mean of the
 * `fast` samples ending at that seed index; macd = fast EMA - slow EMA from the seed index
 * on; the signal line is the EMA(signal) of macd, seeded with the mean of the first
 * `signal` macd values; hist = macd - signal. All three outputs are NaN before the signal
 * seed index, (slow-1)+(signal-1) on finite data. This is TA-Lib's definition.
 *
 * Non-finite samples are gaps: their outputs are NaN and the EMA states skip them, and the
 * seeds count finite samples only. On finite data this is exactly the definition above;
 * unlike TA-Lib, one NaN does not poison the rest of the series.
 *
 * Tile shape: tiles of apo_macd_tile_len() = max(16384, 16 H) outputs, where
 * H = apo_macd_warmup() is also the halo. The EMA is a recurrence, so a tile [begin, end)
 * re-runs the definition above on the sub-series starting at w0 = max(0, begin - H) and
 * emits [begin, end) only. For the first tile (w0 = 0) this is the definition itself. For
 * later tiles the seeds differ from the whole-series states, but their influence on the
 * outputs is multiplied by (1 - k)^steps: H adds D(p) = ceil(64 ln 2 / -ln(1 - k(p))) steps
 * for the slow EMA and for the signal EMA beyond their seed indices, so by `begin` each
 * seed's influence is below 2^-64 of the data scale, far below one rounding of the outputs.
 *
 * Determinism: the outputs of a tile depend on x, the parameters and `begin` only; no state
 * crosses tiles and the operation order is fixed (built with -ffp-contract=off). The
 * libm log in apo_macd_warmup only sizes the tile grid from the parameters.
 */
#include "kernels.h"

#include <assert.h>
#include <math.h>

/* Steps after which the EMA(p) forgets its seed to below 2^-64. */
static size_t decay_steps(size_t p) {
    const double k = 2.0 / ((double)p + 1.0);
    if (k >= 1.0) {
        /* An EMA of period 1 is the sample itself and forgets its seed at once. */
        return 0;
    }
    return (size_t)ceil(64.0 * log(2.0) / -log1p(-k));
}

size_t apo_macd_warmup(size_t fast, size_t slow, size_t signal) {
    assert(fast >= 1 && slow >= 1 && signal >= 1);
    if (fast > slow) {
        slow = fast;
    }
    return (slow - 1) + (signal - 1) + decay_steps(slow) + decay_steps(signal);
}

size_t apo_macd_tile_len(size_t fast, size_t slow, size_t signal) {
    size_t len = 16 * apo_macd_warmup(fast, slow, signal);
    return len > 16384 ? len : 16384;
}

static void emit_nan(size_t t, double *macd, double *signal_line, double *hist) {
    macd[t] = NAN;
    signal_line[t] = NAN;
    hist[t] = NAN;
}

/* A tile's EMA states once its seeds and warm-up are done: the steady loop goes on from
 * index t. The steady loop is the hot part of every tile; everything before is O(H). */
typedef struct macd_state {
    size_t t, end;
    double ef, es, eg;
    double *macd, *signal_line, *hist;
} macd_state;

typedef struct macd_rates {
    double kf, ks, kg;
} macd_rates;

/* Runs a tile up to its steady state. Returns 0 when the tile is already complete (its
 * outputs are all written), 1 when `st` holds the state to go on from. */
static int macd_prepare(const double *x, size_t begin, size_t end, size_t fast, size_t slow,
                        size_t signal, const macd_rates *r, double *macd, double *signal_line,
                        double *hist, macd_state *st) {
    const size_t h = apo_macd_warmup(fast, slow, signal);
    const size_t w0 = begin > h ? begin - h : 0;

    /* Phase 1: find the slow seed index, the index of the `slow`-th finite sample from w0,
     * and the index where the last `fast` of those finite samples start. */
    size_t t = w0;
    size_t seen = 0;
    size_t fast_from = w0;
    while (t < end && seen < slow) {
        if (isfinite(x[t])) {
            ++seen;
            if (seen == slow - fast + 1) {
                fast_from = t;
            }
        }
        if (seen < slow) {
            if (t >= begin) {
                emit_nan(t, macd, signal_line, hist);
            }
            ++t;
        }
    }
    if (t >= end) {
        return 0;
    }

    /* Seeds: plain means, summed in index order over the finite samples. */
    double sum_slow = 0.0, sum_fast = 0.0;
    for (size_t k = w0; k <= t; ++k) {
        const double v = x[k];
        if (isfinite(v)) {
            sum_slow += v;
            if (k >= fast_from) {
                sum_fast += v;
            }
        }
    }
    double es = sum_slow / (double)slow;
    double ef = sum_fast / (double)fast;

    /* Phase 2: the macd line exists from the seed index; the signal EMA is seeded with the
     * mean of the first `signal` macd values. Outputs stay NaN until then. */
    double sum_macd = ef - es;
    size_t nmacd = 1;
    while (nmacd < signal) {
        if (t >= begin) {
            emit_nan(t, macd, signal_line, hist);
        }
        ++t;
        if (t >= end) {
            return 0;
        }
        const double v = x[t];
        if (isfinite(v)) {
            ef = (v - ef) * r->kf + ef;
            es = (v - es) * r->ks + es;
            sum_macd += ef - es;
            ++nmacd;
        }
    }
    double eg = sum_macd / (double)signal;
    if (t >= begin) {
        const double m = ef - es;
        macd[t] = m;
        signal_line[t] = eg;
        hist[t] = m - eg;
    }

    /* Phase 3: the warm-up part before `begin` only updates the states. */
    for (++t; t < begin; ++t) {
        const double v = x[t];
        if (isfinite(v)) {
            ef = (v - ef) * r->kf + ef;
            es = (v - es) * r->ks + es;
            eg = ((ef - es) - eg) * r->kg + eg;
        }
    }
    *st = (macd_state){t, end, ef, es, eg, macd, signal_line, hist};
    return t < end;
}

/* One steady step of one tile at index st->t; the same operations in the same order for
 * the single and the paired loops, so both give the same bits. */
static inline void macd_step(const double *x, const macd_rates *r, macd_state *st) {
    const size_t t = st->t;
    const double v = x[t];
    if (isfinite(v)) {
        st->ef = (v - st->ef) * r->kf + st->ef;
        st->es = (v - st->es) * r->ks + st->es;
        const double m = st->ef - st->es;
        st->eg = (m - st->eg) * r->kg + st->eg;
        st->macd[t] = m;
        st->signal_line[t] = st->eg;
        st->hist[t] = m - st->eg;
    } else {
        emit_nan(t, st->macd, st->signal_line, st->hist);
    }
    st->t = t + 1;
}

static void macd_finish(const double *x, const macd_rates *r, macd_state *st) {
    while (st->t < st->end) {
        macd_step(x, r, st);
    }
}

static void macd_setup(size_t *fast, size_t *slow, size_t signal, macd_rates *r) {
    assert(*fast >= 1 && *slow >= 1 && signal >= 1);
    if (*fast > *slow) {
        size_t tmp = *fast;
        *fast = *slow;
        *slow = tmp;
    }
    r->kf = 2.0 / ((double)*fast + 1.0);
    r->ks = 2.0 / ((double)*slow + 1.0);
    r->kg = 2.0 / ((double)signal + 1.0);
}

void apo_macd_tile(const double *x, size_t n, size_t begin, size_t end, size_t fast, size_t slow,
                   size_t signal, double *macd, double *signal_line, double *hist) {
    assert(x != NULL && macd != NULL && signal_line != NULL && hist != NULL);
    assert(begin < end && end <= n);
    (void)n;
    macd_rates r;
    macd_setup(&fast, &slow, signal, &r);
    macd_state st;
    if (macd_prepare(x, begin, end, fast, slow, signal, &r, macd, signal_line, hist, &st)) {
        macd_finish(x, &r, &st);
    }
}

void apo_macd_tile_pair(const apo_macd_tile_args *a, const apo_macd_tile_args *b, size_t fast,
                        size_t slow, size_t signal) {
    macd_rates r;
    macd_setup(&fast, &slow, signal, &r);
    macd_state sa, sb;
    int live_a = macd_prepare(a->x, a->begin, a->end, fast, slow, signal, &r, a->macd,
                              a->signal_line, a->hist, &sa);
    int live_b = macd_prepare(b->x, b->begin, b->end, fast, slow, signal, &r, b->macd,
                              b->signal_line, b->hist, &sb);
    if (live_a && live_b) {
        /* The EMA update is a chain of three dependent operations; two independent tiles
         * in one loop keep the floating-point units busy while each chain waits. */
        size_t left_a = sa.end - sa.t, left_b = sb.end - sb.t;
        size_t both = left_a < left_b ? left_a : left_b;
        for (size_t i = 0; i < both; ++i) {
            macd_step(a->x, &r, &sa);
            macd_step(b->x, &r, &sb);
        }
    }
    if (live_a) {
        macd_finish(a->x, &r, &sa);
    }
    if (live_b) {
        macd_finish(b->x, &r, &sb);
    }
}
