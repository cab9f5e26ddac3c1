/*
 * macdext_tile.h: MACDEXT(fastperiod, fastmatype, slowperiod, slowmatype, signalperiod,
 * signalmatype), TA-Lib's MACD of any two moving averages with a signal line of a third:
 * macd = fast MA - slow MA, macdsignal = MA(signalperiod, signalmatype) of macd, macdhist =
 * macd - macdsignal.
 *
 * Definition (TA-Lib's): where slowperiod < fastperiod the periods are swapped, and their
 * matypes with them. L, the larger of the two averages' lookbacks (ma_type.h), is where the
 * macd line starts: each average is started at L as TA-Lib's MA started there (its own
 * computation from L - its lookback, so the one of the smaller lookback is seeded later than
 * it would be alone, as macd's fast EMA is); the signal line is the MA of the macd line taken
 * from L, so every output starts at L + the signal's lookback, the lookback.
 *
 * Tile: the macd line is a series computed here, which the signal average needs from its
 * warm-up before `begin` and which cannot be stored: it is generated in pieces of
 * APO_MACDEXT_PIECE bars into buffers on the stack, each average in pieces of its own
 * (ma_pieces.h, the bits of the matype's kernel whatever the pieces), and handed to the signal
 * average piece by piece (ma_series.h). A signal SMA or WMA reads the value leaving its window:
 * on the CPU, for signalperiod up to APO_MACDEXT_LAG_RING, the value the line gave that many
 * bars before, kept in a ring on the stack; else (and on a GPU, whose threads' local memory the
 * ring would grow) a second generator of the macd line, started at the same bar with the same
 * halo, runs signalperiod bars behind. Either gives the line's own values at those bars, so the
 * same bits. The halo is twice the largest of the three averages'
 * halos (lookback and warm-up: apo__macdext_half_halo): the signal's warm-up starts up to one
 * of them before `begin` and the line's averages warm up one more before that. Every output is
 * a function of the tile grid alone. signalmatype TRIMA or KAMA (at a period above 1) is
 * refused by the runtime and writes NaN here (ma_series.h says why).
 *
 * Gaps: each average's own rule (ma_type.h); the macd line is NaN where either average is,
 * and the signal takes such a value as a gap (ma_series.h).
 *
 * Stream: OWN since 2026-12-08 (NONE before: every update ran the tile again from its warm-up).
 * The tile is a start and a run over a state of its own, apo__macdext_stream (the line's
 * generators, the CPU's ring of the line's last 2,048 values, the signal's state: about 18 KB a
 * series on the CPU), which a stream keeps for each series and runs over each update's new bars
 * (apo__macdext_resume).
 */
#ifndef APO_KERNELS_MACDEXT_TILE_H
#define APO_KERNELS_MACDEXT_TILE_H

#include "catalog.h"
#include "ma_pieces.h"
#include "ma_series.h"
#include "run_entries.h"

/* The bars of a piece of the macd line. */
#define APO_MACDEXT_PIECE 128

/* The parameters with TA-Lib's swap applied. */
typedef struct apo__macdext_params {
    size_t fast, slow, signal;
    int fast_ma, slow_ma, signal_ma;
} apo__macdext_params;

static inline APO_HD apo__macdext_params apo__macdext_params_of(const double *p) {
    apo__macdext_params m;
    m.fast = (size_t)p[0];
    m.fast_ma = (int)p[1];
    m.slow = (size_t)p[2];
    m.slow_ma = (int)p[3];
    m.signal = (size_t)p[4];
    m.signal_ma = (int)p[5];
    if (m.slow < m.fast) {
        const size_t period = m.slow;
        const int matype = m.slow_ma;
        m.slow = m.fast;
        m.slow_ma = m.fast_ma;
        m.fast = period;
        m.fast_ma = matype;
    }
    return m;
}

/* L: where the macd line starts. */
static inline APO_HD size_t apo__macdext_line_start(const apo__macdext_params *m) {
    const size_t f = apo__ma_lookback(m->fast_ma, m->fast),
                 s = apo__ma_lookback(m->slow_ma, m->slow);
    return f > s ? f : s;
}

/* TA-Lib's lookback, from the table's parameters. */
static inline APO_HD size_t apo__macdext_lookback(size_t fast, size_t fast_ma, size_t slow,
                                                  size_t slow_ma, size_t signal, size_t signal_ma) {
    const double p[6] = {(double)fast,    (double)fast_ma, (double)slow,
                         (double)slow_ma, (double)signal,  (double)signal_ma};
    const apo__macdext_params m = apo__macdext_params_of(p);
    return apo__macdext_line_start(&m) + apo__ma_lookback(m.signal_ma, m.signal);
}

/* The macd line at absolute bars: the two averages in pieces, each over the close offset so
 * that it starts at L. */
typedef struct apo__macd_line {
    apo__ma_pieces fast, slow;
    size_t fast_off, slow_off; /* L less each average's lookback */
} apo__macd_line;

/* The line from bar `from` (>= L) on, its averages warming up from h before it. */
static inline APO_HD void apo__macd_line_start(apo__macd_line *g, const apo__macdext_params *m,
                                               const double *close, size_t h, size_t from) {
    const size_t line = apo__macdext_line_start(m);
    g->fast_off = line - apo__ma_lookback(m->fast_ma, m->fast);
    g->slow_off = line - apo__ma_lookback(m->slow_ma, m->slow);
    /* The rows are offset by the shift; the pieces' output rows are set per piece. */
    apo__ma_pieces_start(&g->fast, m->fast_ma, close + g->fast_off, NULL, m->fast, h,
                         from - g->fast_off);
    apo__ma_pieces_start(&g->slow, m->slow_ma, close + g->slow_off, NULL, m->slow, h,
                         from - g->slow_off);
}

/* The line at bars [t0, t1) (t0 where the last piece ended) into line[t - t0]; spare holds a
 * piece of the slow average. */
static inline APO_HD void apo__macd_line_run(apo__macd_line *g, size_t t0, size_t t1, double *line,
                                             double *spare) {
    /* Offset rows: each average writes its bar t to line[t - t0] or spare[t - t0]. */
    g->slow.io.out[0] = spare - (t0 - g->slow_off);
    apo__ma_pieces_run(&g->slow, t1 - g->slow_off);
    g->fast.io.out[0] = line - (t0 - g->fast_off);
    apo__ma_pieces_run(&g->fast, t1 - g->fast_off);
    for (size_t t = t0; t < t1; t++)
        line[t - t0] = apo__canonical_nan(line[t - t0] - spare[t - t0]);
}

/* The longest signal window whose leaving values a CPU tile keeps, in a stack ring of 16 KiB,
 * in place of the second generator (whose two averages cost as much as the line's own). */
#ifndef __CUDA_ARCH__
#define APO_MACDEXT_LAG_RING 2048
#endif

/* Where the signal reads the line leaving its window: one of the two, never both. */
typedef union apo__macdext_behind {
    apo__macd_line gen; /* signalperiod above APO_MACDEXT_LAG_RING, or a GPU's */
#ifdef APO_MACDEXT_LAG_RING
    double ring[APO_MACDEXT_LAG_RING]; /* the line at bar j in ring[j % APO_MACDEXT_LAG_RING] */
#endif
} apo__macdext_behind;

/* Whether the tile keeps the ring for a signal window of `signal` bars that lags. */
static inline APO_HD int apo__macdext_ringed(int lags, size_t signal) {
#ifdef APO_MACDEXT_LAG_RING
    return lags && signal <= APO_MACDEXT_LAG_RING;
#else
    (void)lags, (void)signal;
    return 0;
#endif
}

/* The line at bars [b0, b1) into old[j - b0]: in the piece at hand (line[j - t0], bars from t0
 * on) or, before t0, in the ring, which holds the APO_MACDEXT_LAG_RING bars before t0 that the
 * line gave (b0 is at least t0 - signalperiod and the line's first bar). */
static inline APO_HD void apo__macdext_lag_of_ring(const apo__macdext_behind *b, const double *line,
                                                   size_t t0, size_t b0, size_t b1, double *old) {
#ifdef APO_MACDEXT_LAG_RING
    for (size_t j = b0; j < b1; j++)
        old[j - b0] = j >= t0 ? line[j - t0] : b->ring[j % APO_MACDEXT_LAG_RING];
#else
    (void)b, (void)line, (void)t0, (void)b0, (void)b1, (void)old;
#endif
}

/* Keeps the line's bars [t0, t1) in the ring, after their piece has read it. */
static inline APO_HD void apo__macdext_ring_keep(apo__macdext_behind *b, const double *line,
                                                 size_t t0, size_t t1) {
#ifdef APO_MACDEXT_LAG_RING
    for (size_t t = t0; t < t1; t++)
        b->ring[t % APO_MACDEXT_LAG_RING] = line[t - t0];
#else
    (void)b, (void)line, (void)t0, (void)t1;
#endif
}

/*
 * Where a tile stands between two pieces: the line's generators, the signal, and the bars they
 * have reached. The tile is one start and one run to its end (apo__macdext_tile); a stream keeps
 * this as its state (the stream column OWN) and runs each update's piece (apo__macdext_resume).
 * Each piece goes on from where the last stopped, the averages' pieces and the signal value by
 * value, so a tile run in pieces of any lengths has the bits of the tile run whole.
 */
typedef struct apo__macdext_stream {
    apo__macd_line lead;
    apo__macdext_behind behind;
    apo__ma_series signal;
    size_t first;  /* the first output with a value, max(begin, lookback) */
    size_t from;   /* the first bar of the line the signal reads, where the generators start */
    size_t t;      /* the next output the NaN lead writes */
    size_t next;   /* the next bar the pieces take */
    int lags;      /* the signal reads the line leaving its window */
    int ringed;    /* ... from behind.ring (else from behind.gen) */
    int generates; /* the generators have started (once a piece reaches past `first`) */
} apo__macdext_stream;

/* The tile at `begin`: the signal's start (which reads nothing) and where the generators will
 * start; they start at the first piece that reaches past `first`, whose bars are then all
 * there. */
static inline APO_HD void apo__macdext_start(const apo__cat_io *io, size_t begin,
                                             apo__macdext_stream *s) {
    const apo__macdext_params m = apo__macdext_params_of(io->p);
    const size_t line = apo__macdext_line_start(&m);
    const size_t lookback = line + apo__ma_lookback(m.signal_ma, m.signal);
    s->first = begin > lookback ? begin : lookback;
    s->t = begin;
    s->generates = 0;
    /* The signal in the line's own indices (u = t - L), and the bar its warm-up starts at. */
    apo__ma_series_start(&s->signal, m.signal_ma, m.signal, io->h / 2, s->first - line);
    s->from = line + apo__ma_series_origin(&s->signal);
    s->next = s->from;
    s->lags = apo__ma_series_lags(m.signal_ma, m.signal);
    s->ringed = apo__macdext_ringed(s->lags, m.signal);
}

/* The line's rows for this piece (the stream's rows move between updates). */
static inline APO_HD void apo__macd_line_point(apo__macd_line *g, const double *close) {
    g->fast.io.in[0] = close + g->fast_off;
    g->slow.io.in[0] = close + g->slow_off;
}

/* apo__macd_line_point's pointers, and the ones its run sets, cleared. */
static inline APO_HD void apo__macd_line_unpoint(apo__macd_line *g) {
    g->fast.io.in[0] = g->slow.io.in[0] = NULL;
    g->fast.io.out[0] = g->slow.io.out[0] = NULL;
}

/* The state's pointers into the rows and the stack, cleared after a piece: the stream's rows
 * move between updates and a fork copies the state, so a pointer kept would lead into other
 * memory; each piece sets the ones it uses, and a state between pieces holds no address. */
static inline APO_HD void apo__macdext_unpoint(apo__macdext_stream *s) {
    apo__macd_line_unpoint(&s->lead);
    if (s->lags && !s->ringed)
        apo__macd_line_unpoint(&s->behind.gen);
    s->signal.io.in[0] = NULL;
    s->signal.io.out[0] = NULL;
}

/* The tile's outputs from where the state stands up to `stop`. */
static inline APO_HD void apo__macdext_run(const apo__cat_io *io, size_t stop,
                                           apo__macdext_stream *s) {
    size_t lead_end = s->t;
    for (int o = 0; o < 3; o++)
        lead_end = apo__cat_nan_lead(io->out[o], s->t, stop, s->first);
    s->t = lead_end;
    if (s->first >= stop)
        return;
    const apo__macdext_params m = apo__macdext_params_of(io->p);
    const size_t line = apo__macdext_line_start(&m);
    const size_t half = io->h / 2, from = s->from;
    if (!s->generates) {
        apo__macd_line_start(&s->lead, &m, io->in[0], half, from);
        if (s->lags && !s->ringed)
            apo__macd_line_start(&s->behind.gen, &m, io->in[0], half, from);
        s->generates = 1;
    }
    apo__macd_line_point(&s->lead, io->in[0]);
    if (s->lags && !s->ringed)
        apo__macd_line_point(&s->behind.gen, io->in[0]);
    /* sig holds a piece of the slow average too, until the signal's piece overwrites it: a GPU
     * thread keeps these buffers in its local memory, which every thread of the family's
     * launches reserves. */
    double macd[APO_MACDEXT_PIECE], old[APO_MACDEXT_PIECE], sig[APO_MACDEXT_PIECE];
    for (size_t t0 = s->next; t0 < stop; t0 = s->next) {
        const size_t t1 = stop - t0 > APO_MACDEXT_PIECE ? t0 + APO_MACDEXT_PIECE : stop;
        apo__macd_line_run(&s->lead, t0, t1, macd, sig);
        /* The values leaving the signal's window, signalperiod bars behind; those before
         * `from` never entered it and are not read. */
        if (s->lags && t1 > from + m.signal) {
            const size_t b0 = t0 > from + m.signal ? t0 - m.signal : from;
            double *at = old + (b0 + m.signal - t0);
            if (s->ringed)
                apo__macdext_lag_of_ring(&s->behind, macd, t0, b0, t1 - m.signal, at);
            else
                apo__macd_line_run(&s->behind.gen, b0, t1 - m.signal, at, sig);
        }
        if (s->ringed)
            apo__macdext_ring_keep(&s->behind, macd, t0, t1);
        apo__ma_series_run(&s->signal, macd, old, sig, t0 - line, t1 - line);
        for (size_t t = t0 > s->first ? t0 : s->first; t < t1; t++) {
            const double v = macd[t - t0], g = sig[t - t0];
            io->out[0][t] = v;
            io->out[1][t] = g;
            io->out[2][t] = apo__canonical_nan(v - g);
        }
        s->next = t1;
    }
    s->t = stop;
    apo__macdext_unpoint(s);
}

/* apo__macdext_resume, a stream's piece (the stream column OWN; nothing is taken ahead), and
 * apo__macdext_tile, one start and one run. */
APO_CAT_OWN_ENTRIES(macdext)

#endif /* APO_KERNELS_MACDEXT_TILE_H */
