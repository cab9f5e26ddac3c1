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
 * Tile shape: tiles of apo__macd_tile_len() = max(16384, 16 H) outputs, where
 * H = apo__macd_warmup() is also the halo. The EMA is a recurrence, so a tile [begin, end)
 * re-runs the definition above on the sub-series starting at w0 = max(0, begin - H) and
 * emits [begin, end) only. For the first tile (w0 = 0) this is the definition itself. For
 * later tiles the seeds differ from the whole-series states, but their influence on the
 * outputs is multiplied by (1 - k)^steps: H adds D(p) = ceil(64 ln 2 / -ln(1 - k(p))) steps
 * for the slow EMA and for the signal EMA beyond their seed indices, so by `begin` each
 * seed's influence is below 2^-64 of the data scale, far below one rounding of the outputs.
 *
 * Code: the tile body is the APO_HD inline apo__macd_tile of macd_tile.h, which the CUDA
 * kernel (macd.cu) calls too. This file keeps what needs libm or runs only on the host: the
 * warm-up H (apo__macd_warmup, with log and log1p), which it computes here and passes to the
 * shared body, the tile length and the precondition checks. Several tiles at once on a
 * vector path: macd_lanes.h and lanes_dispatch.c, which also cuts a lone tile into pieces
 * run side by side and checked bit for bit against each other (apo__cpu_macd_split_tile).
 *
 * Determinism: the outputs of a tile depend on x, the parameters and `begin` only; no state
 * crosses tiles and the operation order is fixed (built with -ffp-contract=off, and nvcc
 * -fmad=false for the shared body). The libm log in apo__macd_warmup only sizes the tile
 * grid and the warm-up from the parameters, and is evaluated on the host for both the CPU
 * and the CUDA kernels, so both re-read the same samples.
 */
#include "macd.h"

#include "macd_tile.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* Steps after which the EMA(p) forgets its seed to below 2^-64. */
static size_t decay_steps(size_t p) {
    const double k = 2.0 / ((double)p + 1.0);
    if (k >= 1.0) {
        /* An EMA of period 1 is the sample itself and forgets its seed at once. */
        return 0;
    }
    return (size_t)ceil(64.0 * log(2.0) / -log1p(-k));
}

size_t apo__macd_warmup(size_t fast, size_t slow, size_t signal) {
    assert(fast >= 1 && slow >= 1 && signal >= 1);
    if (fast > slow) {
        slow = fast;
    }
    return (slow - 1) + (signal - 1) + decay_steps(slow) + decay_steps(signal);
}

size_t apo__macd_tile_len(size_t fast, size_t slow, size_t signal) {
    size_t len = 16 * apo__macd_warmup(fast, slow, signal);
    return len > 16384 ? len : 16384;
}

void apo__cpu_macd_tile(const double *x, size_t n, size_t begin, size_t end, size_t fast,
                        size_t slow, size_t signal, double *macd, double *signal_line,
                        double *hist) {
    assert(x != NULL && macd != NULL && signal_line != NULL && hist != NULL);
    assert(begin < end && end <= n);
    assert(fast >= 1 && slow >= 1 && signal >= 1);
    (void)n;
    /* apo__macd_warmup takes the larger of fast and slow itself, so it needs no swap. */
    const size_t h = apo__macd_warmup(fast, slow, signal);
    apo__macd_tile(x, begin, end, fast, slow, signal, h, macd, signal_line, hist);
}

/*
 * What a resumed macd tile keeps, laid out for the one-bar update of a live feed, which
 * finds the state of each of thousands of series out of the caches: a piece within a tile
 * reads and writes only `hot`, the first 64 bytes (one cache line when the caller aligns the
 * state to 64 bytes, as streams do), so one bar costs one line of state instead of four.
 * The rest is read at a tile's start and while the next tile is warmed up ahead.
 *
 * A tile starts by running the definition over its warm-up (the H positions before it),
 * which is most of a one-bar update's cost at a tile's first bar; so while the last H bars
 * of a tile arrive, the next tile's seeds and warm-up steps are taken bar by bar, each
 * exactly as apo__macd_prepare would take it at the next tile's start, and that tile starts
 * from them.
 */
typedef struct macd_hot {
    uint64_t t;         /* the current tile's next position */
    double ef, es, eg;  /* its EMAs there */
    apo__macd_rates r;  /* kf, ks, kg */
    uint64_t warm_from; /* the first position whose bar the next tile's warm-up reads */
} macd_hot;

typedef struct macd_resume {
    macd_hot hot;
    size_t fast, slow, signal, h, tile; /* fast <= slow, as apo__macd_setup leaves them */
    size_t begin;                       /* the current tile's start */
    apo__macd_state next;               /* the next tile's state at next.t, when next_ready */
    int next_ready;                     /* 0 (a zeroed state): none yet */
} macd_resume;

static_assert(sizeof(macd_hot) == 64, "a one-bar macd update reads one line of state");
static_assert(offsetof(macd_resume, hot) == 0, "the hot line comes first");

size_t apo__cpu_macd_resume_size(void) { return sizeof(macd_resume); }

size_t apo__cpu_macd_resume_hot_size(void) { return sizeof(macd_hot); }

/* The current tile's steady state as apo__macd_finish takes it, writing up to `stop`. */
static apo__macd_state steady_of(const macd_hot *hot, size_t stop, double *macd,
                                 double *signal_line, double *hist) {
    apo__macd_state st = {.t = (size_t)hot->t,
                          .end = stop,
                          .ef = hot->ef,
                          .es = hot->es,
                          .eg = hot->eg,
                          .macd = macd,
                          .signal_line = signal_line,
                          .hist = hist};
    return st;
}

static void keep_steady(macd_hot *hot, const apo__macd_state *st) {
    hot->t = st->t;
    hot->ef = st->ef;
    hot->es = st->es;
    hot->eg = st->eg;
}

/* Takes the next tile's state as far as position stop - 1, the bars there are: its seeds
 * once they are all in (apo__macd_prepare with no warm-up steps, which stops at its `end`),
 * then one warm-up step per bar. */
static void macd_warm_ahead(const double *x, size_t stop, macd_resume *rs, double *macd,
                            double *signal_line, double *hist) {
    const size_t next_begin = rs->begin + rs->tile;
    if (stop <= rs->hot.warm_from || stop > next_begin)
        return;
    /* No output is written: every position the seeding passes is before next_begin. */
    if (!rs->next_ready)
        rs->next_ready =
            apo__macd_prepare(x, next_begin, stop, rs->fast, rs->slow, rs->signal, rs->h,
                              &rs->hot.r, 0, macd, signal_line, hist, &rs->next);
    while (rs->next_ready && rs->next.t < stop)
        apo__macd_warm_step(x, &rs->hot.r, &rs->next);
}

int apo__cpu_macd_resume(const double *x, size_t begin, size_t stop, size_t fast, size_t slow,
                         size_t signal, void *state, int fresh, double *macd, double *signal_line,
                         double *hist) {
    assert(x != NULL && state != NULL && macd != NULL && signal_line != NULL && hist != NULL);
    assert(fast >= 1 && slow >= 1 && signal >= 1);
    macd_resume *rs = state;
    apo__macd_state st;
    if (fresh) {
        /* The state warmed ahead by the last tile, if it reached this tile's start. */
        const int ahead = rs->next_ready && rs->begin + rs->tile == begin && rs->next.t == begin;
        if (ahead) {
            st = rs->next;
        } else {
            rs->h = apo__macd_warmup(fast, slow, signal);
            rs->tile = apo__macd_tile_len(fast, slow, signal);
            apo__macd_setup(&fast, &slow, signal, &rs->hot.r);
            rs->fast = fast, rs->slow = slow, rs->signal = signal;
        }
        rs->begin = begin;
        rs->next_ready = 0;
        const size_t next_begin = begin + rs->tile;
        rs->hot.warm_from = next_begin > rs->h ? next_begin - rs->h : 0;
        assert(begin < stop);
        /* 0: the outputs up to stop are written, but the tile may not have reached its
         * steady state, so there is no state to go on from. */
        if (!ahead && !apo__macd_prepare(x, begin, stop, rs->fast, rs->slow, rs->signal, rs->h,
                                         &rs->hot.r, 1, macd, signal_line, hist, &st))
            return 0;
        keep_steady(&rs->hot, &st);
    }
    /* The outputs may have moved since the last piece; the state's position has not. */
    st = steady_of(&rs->hot, stop, macd, signal_line, hist);
    apo__macd_finish(x, &rs->hot.r, &st);
    keep_steady(&rs->hot, &st);
    /* Past the hot line only while the next tile's warm-up bars arrive. */
    if (stop > rs->hot.warm_from)
        macd_warm_ahead(x, stop, rs, macd, signal_line, hist);
    return 1;
}
