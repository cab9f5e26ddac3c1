/*
 * index_tile.h: MAXINDEX(timeperiod), MININDEX(timeperiod) and MINMAXINDEX(timeperiod) (outputs
 * minidx, maxidx, TA-Lib's order): TA-Lib's index of the highest (lowest) sample of the p samples
 * ending at t, as a double, and the bar number from the row's first bar (TA-Lib's absolute
 * position in its input array). The lookback is p - 1.
 *
 * Definition (TA-Lib's tracking, whose ties are its own): from the first full window on, the
 * tracker keeps an index h and its sample v. When h has left the window [t - p + 1, t], the
 * window is scanned again from its oldest sample, taking a later one only where it is greater
 * (so the first of equal extremes); else the new sample replaces h where it is greater or
 * equal (so the latest). Which of two equal extremes a window gives thus depends on whether
 * its tracker came by a scan or by a new sample, which depends on the tracking before it,
 * arbitrarily far back (a flat stretch gives its first sample or its latest for as long as it
 * lasts, according to how it began): no bounded window gives TA-Lib's integers.
 *
 * Tiles: so every tile replays the tracking from the row's first full window (the kernel is
 * whole-row: catalog.h), writing nothing before `begin`; the steps that give output t are one
 * sequence whichever tile t falls in, so the bits do not depend on the grid, and consecutive
 * tiles join. A scan costs p comparisons and comes once the extreme has left the window: at
 * worst (a monotone row, against the extreme) every bar, as in TA-Lib.
 *
 * Gaps: the tracking runs over the row as it is, non-finite samples included and compared as
 * TA-Lib compares them (a NaN is never greater, nor greater or equal; a scan that starts at a
 * NaN keeps it until it leaves), and output t is NaN where the window holds a non-finite
 * sample (window.h's rule). So a clean window's index is TA-Lib's on the same row, gaps and
 * all, and once a gap has left the window the tracker holds the window's true extreme again.
 *
 * Streams carry the tracker (apo__maxindex_carry), and the last APO_INDEX_RING samples for the
 * scans, which read the window: a stream takes periods up to APO_INDEX_STREAM_PERIOD_MAX
 * (catalog_table.h; a longer one is refused when the stream is created).
 */
#ifndef APO_KERNELS_INDEX_TILE_H
#define APO_KERNELS_INDEX_TILE_H

#include "catalog.h"

/* The samples a stream's state keeps for the scans, and the doubles it carries in all: the
 * two trackers (index + 1, 0 for none; and the sample), the last non-finite bar + 1 (0: none),
 * then the ring (bar j at slot j mod APO_INDEX_RING). */
#define APO_INDEX_RING (APO_INDEX_STREAM_PERIOD_MAX - 1)
#define APO_INDEX_HEAD 5
#define APO_MAXINDEX_CARRY (APO_INDEX_HEAD + APO_INDEX_RING)
#define APO_MININDEX_CARRY APO_MAXINDEX_CARRY
#define APO_MINMAXINDEX_CARRY APO_MAXINDEX_CARRY

/* Where the samples come from: the row from bar `from` on, and before it (a stream's earlier
 * bars) the ring, NULL in a tile. */
typedef struct apo__index_src {
    const double *x;
    size_t from;
    const double *ring;
} apo__index_src;

static inline APO_HD double apo__index_sample(const apo__index_src *s, size_t i) {
    return i >= s->from ? s->x[i] : s->ring[i % APO_INDEX_RING];
}

/* One tracker: its index + 1 (0 before the first window) and its sample. */
typedef struct apo__index_tracker {
    size_t at;
    double v;
} apo__index_tracker;

/* a beyond b in the tracker's sense: greater for the maximum (sign 1), less for the minimum;
 * false when either is NaN, as TA-Lib's comparisons are. */
static inline APO_HD int apo__index_beyond(double a, double b, int sign) {
    return sign > 0 ? a > b : a < b;
}

/* A scan's step to sample i: i becomes the extreme where x is beyond it (the first of equal
 * extremes stays). */
static inline APO_HD void apo__index_scan_step(size_t *best, double *v, size_t i, double x,
                                               int sign) {
    if (apo__index_beyond(x, *v, sign)) {
        *best = i;
        *v = x;
    }
}

/* The scan's steps over x[i .. t] from the extreme (best, v) so far, in two passes that give
 * the steps' answer. The steps move the extreme only to a sample beyond it, so they end on the
 * first sample equal (==) to the extreme m of the samples beyond v, or where none is, on
 * (best, v) as it was; a NaN is never beyond, and nothing is beyond a NaN v. The first pass
 * finds m in four independent chains of a comparison and a select, where the steps in order
 * are one chain of them; the second finds the first sample equal to m. Which of two zeros of
 * different signs m is does not matter: they compare equal, and the extreme taken is the
 * sample the steps would take, so its bits too. */
static inline APO_HD void apo__index_scan_row(size_t *best, double *v, const double *x, size_t i,
                                              size_t t, int sign) {
    double m[4] = {*v, *v, *v, *v};
    size_t j = i;
    for (; j + 3 <= t; j += 4)
        for (int c = 0; c < 4; c++)
            m[c] = apo__index_beyond(x[j + c], m[c], sign) ? x[j + c] : m[c];
    for (; j <= t; j++)
        m[0] = apo__index_beyond(x[j], m[0], sign) ? x[j] : m[0];
    double top = m[0];
    for (int c = 1; c < 4; c++)
        top = apo__index_beyond(m[c], top, sign) ? m[c] : top;
    if (!apo__index_beyond(top, *v, sign))
        return;
    for (j = i; x[j] != top; j++) {
    }
    *best = j;
    *v = x[j];
}

/* The window [oldest, t] scanned from its oldest sample. The samples before s->from (a
 * stream's earlier bars) come from the ring, the rest from the row itself: a tile's scan is
 * then over x alone, with no test of where each sample lives. The same answer as TA-Lib's
 * steps in order (apo__index_scan_row), so the same index. */
static inline APO_HD void apo__index_scan(apo__index_tracker *k, const apo__index_src *s,
                                          size_t oldest, size_t t, int sign) {
    size_t best = oldest;
    double v = apo__index_sample(s, oldest);
    size_t i = oldest + 1;
    for (; i <= t && i < s->from; i++)
        apo__index_scan_step(&best, &v, i, s->ring[i % APO_INDEX_RING], sign);
    if (i <= t)
        apo__index_scan_row(&best, &v, s->x, i, t, sign);
    k->at = best + 1;
    k->v = v;
}

/* The tracker stepped to bar t of a window of p samples (t >= p - 1): a scan when its extreme
 * has left the window (the first of equal extremes), else the new sample where it is at least
 * the extreme (the latest; `>=` and `<=` are false for a NaN, as TA-Lib's are). The new
 * sample's test selects rather than branches: on a walk it goes either way at random, and as
 * a branch it cost a fifth of the time at 1e6 bars on the Zen 3 VM (docs/kernels/talib.md). */
static inline APO_HD void apo__index_step(apo__index_tracker *k, const apo__index_src *s, size_t t,
                                          size_t p, int sign) {
    const size_t oldest = t + 1 - p;
    if (k->at == 0 || k->at - 1 < oldest) {
        apo__index_scan(k, s, oldest, t, sign);
        return;
    }
    const double x = apo__index_sample(s, t);
    const int take = sign > 0 ? x >= k->v : x <= k->v;
    k->at = take ? t + 1 : k->at;
    k->v = take ? x : k->v;
}

/* The whole state: the trackers of the maximum and the minimum, and the last non-finite bar
 * + 1 (0: none), which says whether a window is clean. */
typedef struct apo__index_state {
    apo__index_tracker hi, lo;
    size_t bad;
} apo__index_state;

/* What a kernel tracks: the maximum (its output 0), the minimum (its output 0) or both (the
 * minimum's index to output 0, the maximum's to output 1, TA-Lib's order). */
enum { APO_INDEX_MAX = 1, APO_INDEX_MIN = 2, APO_INDEX_BOTH = 3 };

/* Steps the state over bars [from, end), writing the outputs of those from `begin` on; bars
 * before the first full window (t < p - 1) are NaN and step nothing but the gap mark. The tile
 * and a stream's carried run both are this loop, so they take the same steps at every bar.
 * Specialised by `what` (APO_CAT_SPECIALISED): left to gcc once the scans took two passes, it
 * kept one copy for minmaxindex that tested `what` at every bar, which then ran slower than
 * with the one-pass scans. */
static APO_CAT_SPECIALISED APO_HD void apo__index_run(apo__index_state *st, const apo__cat_io *io,
                                                      const apo__index_src *src, int what,
                                                      size_t from, size_t begin, size_t end) {
    const size_t p = (size_t)io->p[0];
    double *const out0 = io->out[0];
    double *const out1 = what == APO_INDEX_BOTH ? io->out[1] : NULL;
    for (size_t t = from; t < end; t++) {
        if (!apo__finite(src->x[t]))
            st->bad = t + 1;
        const int full = t + 1 >= p;
        if (full && (what & APO_INDEX_MAX))
            apo__index_step(&st->hi, src, t, p, 1);
        if (full && (what & APO_INDEX_MIN))
            apo__index_step(&st->lo, src, t, p, -1);
        if (t < begin)
            continue;
        /* The indices are below 2^53, so a signed conversion gives them exactly, without the
         * unsigned one's test of the top bit. */
        const int clean = full && st->bad + p <= t + 1;
        if (what == APO_INDEX_BOTH) {
            out0[t] = clean ? (double)(int64_t)(st->lo.at - 1) : NAN;
            out1[t] = clean ? (double)(int64_t)(st->hi.at - 1) : NAN;
        } else {
            const apo__index_tracker *k = what == APO_INDEX_MAX ? &st->hi : &st->lo;
            out0[t] = clean ? (double)(int64_t)(k->at - 1) : NAN;
        }
    }
}

static APO_CAT_SPECIALISED APO_HD void apo__index_tile(const apo__cat_io *io, int what,
                                                       size_t begin, size_t end) {
    apo__index_state st;
    st.hi.at = st.lo.at = 0;
    st.hi.v = st.lo.v = 0.0;
    st.bad = 0;
    apo__index_src src;
    src.x = io->in[0];
    src.from = 0;
    src.ring = NULL;
    apo__index_run(&st, io, &src, what, 0, begin, end);
}

static inline APO_HD void apo__maxindex_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__index_tile(io, APO_INDEX_MAX, begin, end);
}

static inline APO_HD void apo__minindex_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__index_tile(io, APO_INDEX_MIN, begin, end);
}

static inline APO_HD void apo__minmaxindex_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__index_tile(io, APO_INDEX_BOTH, begin, end);
}

/*
 * A stream's series fed on from bar `begin` to `stop` - 1, going on from the state `c` its last
 * piece left at `begin` (all zeros before the first bar: the tile's start state): c[0], c[1]
 * the maximum's tracker, c[2], c[3] the minimum's, c[4] the gap mark, then the ring of the
 * last APO_INDEX_RING samples, which the scans read before `begin` (p - 1 of them at most,
 * the stream's period being at most APO_INDEX_STREAM_PERIOD_MAX). The indices are below 2^53,
 * so exact as doubles. The state is the tile's at `begin`, so the outputs are the bits of any
 * tile holding them.
 */
static inline void apo__index_carry(const apo__cat_io *io, int what, double *c, size_t begin,
                                    size_t stop) {
    apo__index_state st;
    st.hi.at = (size_t)c[0];
    st.hi.v = c[1];
    st.lo.at = (size_t)c[2];
    st.lo.v = c[3];
    st.bad = (size_t)c[4];
    double *ring = c + APO_INDEX_HEAD;
    apo__index_src src;
    src.x = io->in[0];
    src.from = begin;
    src.ring = ring;
    apo__index_run(&st, io, &src, what, begin, begin, stop);
    c[0] = (double)st.hi.at;
    c[1] = st.hi.v;
    c[2] = (double)st.lo.at;
    c[3] = st.lo.v;
    c[4] = (double)st.bad;
    const size_t keep_from = stop - begin > APO_INDEX_RING ? stop - APO_INDEX_RING : begin;
    for (size_t j = keep_from; j < stop; j++)
        ring[j % APO_INDEX_RING] = io->in[0][j];
}

static inline void apo__maxindex_carry(const apo__cat_io *io, double *c, size_t begin,
                                       size_t stop) {
    apo__index_carry(io, APO_INDEX_MAX, c, begin, stop);
}

static inline void apo__minindex_carry(const apo__cat_io *io, double *c, size_t begin,
                                       size_t stop) {
    apo__index_carry(io, APO_INDEX_MIN, c, begin, stop);
}

static inline void apo__minmaxindex_carry(const apo__cat_io *io, double *c, size_t begin,
                                          size_t stop) {
    apo__index_carry(io, APO_INDEX_BOTH, c, begin, stop);
}

#endif /* APO_KERNELS_INDEX_TILE_H */
