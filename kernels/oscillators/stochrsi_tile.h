/*
 * stochrsi_tile.h: STOCHRSI(timeperiod, fastk_period, fastd_period, fastd_matype), TA-Lib's
 * stochastic RSI: TA-Lib's STOCHF over the RSI, the RSI taken for its high, low and close.
 *
 * Definition (TA-Lib's): r the RSI(timeperiod) of the close (rsi_tile.h), defined from bar p;
 * fastk(t) = (r[t] - L) / ((H - L) / 100), H and L the largest and smallest r of the
 * fastk_period bars ending at t, 0 where H = L (stoch_tile.h's apo__fastk_of), defined from
 * F = p + fastk_period - 1; fastd the MA(fastd_period, fastd_matype) of fastk taken from F. Both
 * outputs start at F + the MA's lookback, TA-Lib's lookback.
 *
 * Tile: the RSI and fastk are series computed here, which fastd needs from its warm-up before
 * `begin` and which cannot be stored whole: a generator (apo__stochrsi_gen) runs the RSI's own
 * stream in pieces of APO_STOCHRSI_PIECE bars into a buffer, keeps the last APO_STOCHRSI_RING
 * values in a ring on the stack and scans the window of each fastk there (on the CPU a piece's
 * windows at once, in vector lanes: apo__stochrsi_fastk_piece), and hands fastk to fastd piece by
 * piece (ma_series.h). A fastd SMA or WMA reads the value leaving its window,
 * fastk fastd_period bars back: for fastd_period up to APO_STOCHRSI_LAG_RING from a ring of the
 * last fastk values the generator handed over (the very values fastd took then), above it from a
 * second generator started at the same bar running fastd_period bars behind (the same bits: the
 * same RSI stream from the same bar, the same scans). Halo: twice the larger of the RSI's halo (p +
 * D(1/p)) and fastd's (its lookback and warm-up), plus fastk_period - 1: fastd warms up from up to
 * one of them before `begin`, its first fastk reads fastk_period - 1 RSI values before that, and
 * the RSI warms up from one more before those (the table's STOCHRSI halo, catalog_dispatch.c).
 * Every output is a function of the tile grid alone. fastk_period above APO_STOCHRSI_RING, and
 * fastd_matype TRIMA or KAMA above fastd_period 1, are refused by the runtime; the body writes NaN
 * if called with them.
 *
 * Gaps: the RSI's rule (rsi_tile.h: NaN at a bar whose change is not finite, the averages skip
 * it); fastk is NaN where its window holds a NaN RSI (the windows' rule), fastd takes such a
 * value as a gap of its own kind (ma_series.h).
 *
 * Stream: OWN since 2026-12-08 (NONE before: every update ran the tile again from its warm-up).
 * The tile is a start and a run over a state of its own, apo__stochrsi_stream (the generators'
 * runs and rings, fastd's state), which a stream keeps for each series and runs over each
 * update's new bars (apo__stochrsi_resume): about 7 KB a series, where an update of the tile
 * body ran the tile's bars so far.
 */
#ifndef APO_KERNELS_STOCHRSI_TILE_H
#define APO_KERNELS_STOCHRSI_TILE_H

#include "catalog.h"
#include "ma_series.h"
#include "rsi_tile.h"
#include "run_entries.h"
#include "stoch_tile.h"

/* The longest fastk window the ring holds, and the bars of a piece: small, because a GPU thread
 * keeps both generators' buffers in its local memory, which every thread of the family's
 * launches reserves. */
#define APO_STOCHRSI_RING 256
#define APO_STOCHRSI_PIECE 128

/* The longest fastd_period whose leaving fastk values come from a ring rather than a second
 * generator. The ring shares the second generator's storage (apo__stochrsi_behind), which is
 * larger, so a GPU thread's local memory does not grow. */
#define APO_STOCHRSI_LAG_RING 256

/* The RSI of the close and fastk over it, from bar `from` on. */
typedef struct apo__stochrsi_gen {
    apo__cat_io io; /* the RSI's stream call */
    apo__cat_run r; /* its run state */
    size_t first;   /* the first RSI the generator produces */
    size_t next;    /* the next RSI it produces */
    size_t bad;     /* one past the last bar whose RSI is not finite, at least `first` */
    size_t fk;      /* fastk_period */
    double ring[APO_STOCHRSI_RING]; /* RSI at bar j in ring[j % APO_STOCHRSI_RING] */
    double rsi[APO_STOCHRSI_PIECE]; /* a piece of the RSI */
} apo__stochrsi_gen;

/* The generator whose first fastk is at bar `from` (>= its lookback), the RSI warming up from
 * h before the window of that fastk. */
static inline APO_HD void apo__stochrsi_gen_start(apo__stochrsi_gen *g, const double *close,
                                                  size_t p, size_t fk, size_t h, size_t from) {
    memset(&g->io, 0, sizeof g->io);
    g->io.in[0] = close;
    g->io.p[0] = (double)p;
    g->io.h = h;
    g->fk = fk;
    g->first = from + 1 - fk;
    g->next = g->first;
    g->bad = g->first;
    /* The start writes the RSI at `first` where it has no change yet: into the piece buffer,
     * through a row offset so that bar `first` is rsi[0]. */
    g->io.out[0] = g->rsi - g->first;
    apo__rsi_stream_start(&g->io, g->first, &g->r);
}

/* fastk at bar j from the ring, or NaN where its window holds a NaN RSI. */
static inline APO_HD double apo__stochrsi_fastk_at(const apo__stochrsi_gen *g, size_t j) {
    if (j + 1 < g->bad + g->fk)
        return NAN;
    const size_t from = j + 1 - g->fk;
    double hh = g->ring[from % APO_STOCHRSI_RING], ll = hh;
    for (size_t i = from + 1; i <= j; i++) {
        const double v = g->ring[i % APO_STOCHRSI_RING];
        hh = v > hh ? v : hh;
        ll = v < ll ? v : ll;
    }
    return apo__fastk_of(g->ring[j % APO_STOCHRSI_RING], hh, ll);
}

#ifndef __CUDA_ARCH__
/* The fastk of bars [lo, b) into k[j - t0], j >= lo >= a, from the piece rsi[0 .. b - a) of bars
 * [a, b) just produced, with the ring holding the RSI before a: apo__stochrsi_fastk_at's values,
 * the piece's bars side by side in stoch's scan (apo__fastk_scan: the same comparisons in the same
 * order, the same quotient), where the scalar scan of each window's ring slots and its quotient
 * took about a sixth of stochrsi's time at 1e4 bars. ok[j - a]: 1 where bar j's window holds no
 * NaN RSI (the others' values, scanned over a NaN, are replaced). A window starts at `first` or
 * later (j >= t0 >= the generator's first fastk bar), so the slots read before a are the ring's. */
static inline void apo__stochrsi_fastk_piece(const apo__stochrsi_gen *g, size_t a, size_t lo,
                                             size_t b, const unsigned char *ok, size_t t0,
                                             double *k) {
    const size_t fk = g->fk, n = b - a, w0 = lo - a;
    /* lin[i]: the RSI at bar a - (fk - 1) + i; the window of bar a + w is lin[w .. w + fk). */
    double lin[APO_STOCHRSI_RING - 1 + APO_STOCHRSI_PIECE];
    for (size_t i = w0; i < fk - 1; i++)
        lin[i] = g->ring[(a - (fk - 1) + i) % APO_STOCHRSI_RING];
    for (size_t w = 0; w < n; w++)
        lin[fk - 1 + w] = g->rsi[w];
    double hh[APO_STOCHRSI_PIECE], ll[APO_STOCHRSI_PIECE];
    /* Bar a + w's fastk at k[a + w - t0], w >= w0, so at index 0 or later. */
    double *kb = k + (lo - t0);
    apo__fastk_scan(lin + w0, lin + w0, lin + fk - 1 + w0, fk, n - w0, hh, ll, kb);
    for (size_t w = w0; w < n; w++)
        if (!ok[w])
            kb[w - w0] = NAN;
}
#endif

/* fastk at bars [t0, t1) into k[t - t0]: the RSI on to t1 (the first call also fills the ring
 * with the fastk_period - 1 values before t0). */
static inline APO_HD void apo__stochrsi_gen_run(apo__stochrsi_gen *g, size_t t0, size_t t1,
                                                double *k) {
    while (g->next < t1) {
        const size_t a = g->next, b = t1 - a > APO_STOCHRSI_PIECE ? a + APO_STOCHRSI_PIECE : t1;
        /* Offset row: the stream writes bar j to rsi[j - a]; the first piece keeps rsi[0], the
         * start's. */
        g->io.out[0] = g->rsi - a;
        apo__rsi_stream_run(&g->io, g->first, b, &g->r);
#ifndef __CUDA_ARCH__
        if (b > t0) {
            /* The fastk of the piece's bars from t0 in lanes (apo__stochrsi_fastk_piece), read
             * before the piece enters the ring (it reads the ring's slots before a). */
            const size_t lo = a > t0 ? a : t0;
            unsigned char ok[APO_STOCHRSI_PIECE];
            size_t bad = g->bad;
            for (size_t j = a; j < b; j++) {
                if (!isfinite(g->rsi[j - a]))
                    bad = j + 1;
                ok[j - a] = j + 1 >= bad + g->fk;
            }
            apo__stochrsi_fastk_piece(g, a, lo, b, ok, t0, k);
            for (size_t j = a; j < b; j++)
                g->ring[j % APO_STOCHRSI_RING] = g->rsi[j - a];
            g->bad = bad;
            g->next = b;
            continue;
        }
#endif
        for (size_t j = a; j < b; j++) {
            const double v = g->rsi[j - a];
            g->ring[j % APO_STOCHRSI_RING] = v;
            if (!isfinite(v))
                g->bad = j + 1;
            if (j >= t0)
                k[j - t0] = apo__stochrsi_fastk_at(g, j);
        }
        g->next = b;
    }
}

/* Where fastd reads the fastk leaving its window: one of the two, never both, so they share the
 * storage. */
typedef union apo__stochrsi_behind {
    apo__stochrsi_gen gen;              /* fastd_period above APO_STOCHRSI_LAG_RING */
    double ring[APO_STOCHRSI_LAG_RING]; /* fastk at bar j in ring[j % APO_STOCHRSI_LAG_RING] */
} apo__stochrsi_behind;

/* The fastk at bars [b0, b1) into old[j - b0], each either in the piece at hand (k[j - t0], bars
 * from t0 on) or, before t0, in the ring, which holds the fastk of the APO_STOCHRSI_LAG_RING bars
 * before t0 that were handed over (b0 >= t0 - fastd_period and at least the generator's first
 * bar, so each is there). */
static inline APO_HD void apo__stochrsi_lag_of_ring(const double *ring, const double *k, size_t t0,
                                                    size_t b0, size_t b1, double *old) {
    for (size_t j = b0; j < b1; j++)
        old[j - b0] = j >= t0 ? k[j - t0] : ring[j % APO_STOCHRSI_LAG_RING];
}

/*
 * Where a tile stands between two pieces: the generators, fastd, and the bars they have reached.
 * The tile is one start and one run to its end (apo__stochrsi_tile); a stream keeps this as its
 * state (the stream column OWN) and runs each update's piece (apo__stochrsi_resume). Every piece
 * of the loop goes on from where the last stopped, the RSI's stream, the scans and fastd bar by
 * bar, so a tile run in pieces of any lengths has the bits of the tile run whole.
 */
typedef struct apo__stochrsi_stream {
    apo__stochrsi_gen lead;
    apo__stochrsi_behind behind;
    apo__ma_series fastd;
    size_t first;  /* the first output with a value, max(begin, lookback) */
    size_t from;   /* the first fastk fastd reads, where the generators start */
    size_t t;      /* the next output the NaN lead writes */
    size_t next;   /* the next bar the pieces take */
    int lags;      /* fastd reads the fastk leaving its window */
    int ringed;    /* ... from behind.ring (else from behind.gen) */
    int generates; /* the generators have started (once a piece reaches past `first`) */
} apo__stochrsi_stream;

/* The tile at `begin`: fastd's start (which reads nothing) and where the generators will start;
 * they start at the first piece that reaches past `first`, whose bars are then all there. */
static inline APO_HD void apo__stochrsi_start(const apo__cat_io *io, size_t begin,
                                              apo__stochrsi_stream *s) {
    const size_t p = (size_t)io->p[0], fk = (size_t)io->p[1], fd = (size_t)io->p[2];
    const int matype = (int)io->p[3];
    const size_t fastk_start = p + fk - 1;
    const size_t lookback = fastk_start + apo__ma_lookback(matype, fd);
    const size_t half = (io->h - (fk - 1)) / 2;
    s->first = begin > lookback ? begin : lookback;
    s->t = begin;
    s->generates = 0;
    apo__ma_series_start(&s->fastd, matype, fd, half, s->first - fastk_start);
    s->from = fastk_start + apo__ma_series_origin(&s->fastd);
    s->next = s->from;
    s->lags = apo__ma_series_lags(matype, fd);
    /* A short lag reads the fastk the lead generator handed over, kept in a ring; a long one
     * runs a second generator behind. */
    s->ringed = s->lags && fd <= APO_STOCHRSI_LAG_RING;
}

/* The state's pointers into the rows and the stack, cleared after a piece: the stream's rows
 * move between updates and a fork copies the state, so a pointer kept would lead into other
 * memory; each piece sets the ones it uses, and a state between pieces holds no address. */
static inline APO_HD void apo__stochrsi_unpoint(apo__stochrsi_stream *s) {
    s->lead.io.in[0] = NULL;
    s->lead.io.out[0] = NULL;
    if (s->lags && !s->ringed) {
        s->behind.gen.io.in[0] = NULL;
        s->behind.gen.io.out[0] = NULL;
    }
    s->fastd.io.in[0] = NULL;
    s->fastd.io.out[0] = NULL;
}

/* The tile's outputs from where the state stands up to `stop`. */
static inline APO_HD void apo__stochrsi_run(const apo__cat_io *io, size_t stop,
                                            apo__stochrsi_stream *s) {
    const size_t p = (size_t)io->p[0], fk = (size_t)io->p[1], fd = (size_t)io->p[2];
    apo__cat_nan_lead(io->out[0], s->t, stop, s->first);
    s->t = apo__cat_nan_lead(io->out[1], s->t, stop, s->first);
    if (s->first >= stop)
        return;
    if (fk > APO_STOCHRSI_RING) {
        for (size_t t = s->t; t < stop; t++) {
            io->out[0][t] = NAN;
            io->out[1][t] = NAN;
        }
        s->t = stop;
        return;
    }
    const size_t fastk_start = p + fk - 1;
    const size_t half = (io->h - (fk - 1)) / 2;
    if (!s->generates) {
        apo__stochrsi_gen_start(&s->lead, io->in[0], p, fk, half, s->from);
        if (s->lags && !s->ringed)
            apo__stochrsi_gen_start(&s->behind.gen, io->in[0], p, fk, half, s->from);
        s->generates = 1;
    }
    s->lead.io.in[0] = io->in[0];
    if (s->lags && !s->ringed)
        s->behind.gen.io.in[0] = io->in[0];
    const size_t from = s->from;
    double k[APO_STOCHRSI_PIECE], old[APO_STOCHRSI_PIECE], d[APO_STOCHRSI_PIECE];
    for (size_t t0 = s->next; t0 < stop; t0 = s->next) {
        const size_t t1 = stop - t0 > APO_STOCHRSI_PIECE ? t0 + APO_STOCHRSI_PIECE : stop;
        apo__stochrsi_gen_run(&s->lead, t0, t1, k);
        /* The values leaving fastd's window, fastd_period bars behind; those before `from`
         * never entered it and are not read. */
        if (s->lags && t1 > from + fd) {
            const size_t b0 = t0 > from + fd ? t0 - fd : from;
            double *at = old + (b0 + fd - t0);
            if (s->ringed)
                apo__stochrsi_lag_of_ring(s->behind.ring, k, t0, b0, t1 - fd, at);
            else
                apo__stochrsi_gen_run(&s->behind.gen, b0, t1 - fd, at);
        }
        if (s->ringed)
            for (size_t t = t0; t < t1; t++)
                s->behind.ring[t % APO_STOCHRSI_LAG_RING] = k[t - t0];
        apo__ma_series_run(&s->fastd, k, old, d, t0 - fastk_start, t1 - fastk_start);
        for (size_t t = t0 > s->first ? t0 : s->first; t < t1; t++) {
            io->out[0][t] = k[t - t0];
            io->out[1][t] = d[t - t0];
        }
        s->next = t1;
    }
    s->t = stop;
    apo__stochrsi_unpoint(s);
}

/* apo__stochrsi_resume, a stream's piece (the stream column OWN; nothing is taken ahead), and
 * apo__stochrsi_tile, one start and one run. */
APO_CAT_OWN_ENTRIES(stochrsi)

#endif /* APO_KERNELS_STOCHRSI_TILE_H */
