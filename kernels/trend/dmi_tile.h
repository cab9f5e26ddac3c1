/*
 * dmi_tile.h: PLUS_DI(timeperiod), MINUS_DI(timeperiod), ADX(timeperiod), DX(timeperiod) and
 * ADXR(timeperiod), TA-Lib's directional movement system (Wilder). Inputs high, low, close.
 *
 * Definition (TA-Lib's): at t >= 1, up = high[t] - high[t-1], down = low[t-1] - low[t];
 * +DM = up where up > 0 and up > down, else 0; -DM = down where down > 0 and down > up,
 * else 0; TR the true range (trange_tile.h). The smoothed sums are seeded with the plain
 * sum of the first p - 1 values (t = 1 .. p-1), then S = S - S / p + v from t = p on, in
 * that order; +DI = 100 * (S+DM / STR), -DI = 100 * (S-DM / STR) (0 where STR is 0), output
 * from t = p. DX = 100 * (|-DI - +DI| / (-DI + +DI)), undefined where the sum is 0. ADX is
 * seeded with the sum of the p DX of t = p .. 2p-1 (an undefined DX adds nothing) divided by
 * p, output at 2p - 1, then ADX = (ADX * (p - 1) + DX) / p, kept where DX is undefined.
 * TA-Lib's tests of "zero" (below 1e-8) are exact tests of 0 here, as in ATR and NATR.
 *
 * Gaps: a non-finite high or low at t or t - 1, or close at t - 1, makes (DM, TR) at t a
 * gap: NaN, and the sums skip it (the seeds are the first finite values), as ATR does.
 *
 * DX(timeperiod) is ADX's DX, output from t = p; where it is undefined it repeats the last
 * output (0 before any), as TA-Lib's TA_DX does. ADXR(timeperiod) is below apo__adxr_tile.
 *
 * Tile: recurrences. A tile re-runs the definition from w0 = max(0, begin - h); h =
 * p + D(1/p) for the DIs and 2p - 1 + 2 D(1/p) for ADX (the DIs' seed forgotten, then
 * ADX's own), so the restarted seeds weigh below 2^-64 by `begin`. The first tile has
 * TA-Lib's operation order and so its bits.
 */
#ifndef APO_KERNELS_DMI_TILE_H
#define APO_KERNELS_DMI_TILE_H

#include "run_entries.h"
#include "trange_tile.h"

/* Which output a DMI body writes. */
enum { APO_DMI_PLUS, APO_DMI_MINUS, APO_DMI_ADX, APO_DMI_DX, APO_DMI_ADXR };

/* v where keep is 1, else +0.0. */
static inline APO_HD double apo__keep_if(double v, int keep) {
    return apo__double_of(apo__bits_of(v) & (0 - (uint64_t)keep));
}

/* The smoothed sums' step at the seen-th bar, written once for a double and for a vector of
 * tiles' lanes (dmi_lanes.h), so both perform the same operations: plain sums before the p-th
 * bar, then S - S / p + v. plus_di reads no -DM sum and minus_di no +DM sum: those chains (a
 * divide per bar each) stay at 0. */
#define APO__DMI_SUMS(which, seen, p, pd, sp, sm, str, pdm, mdm, tr)                               \
    do {                                                                                           \
        if ((seen) < (p)) {                                                                        \
            if ((which) != APO_DMI_MINUS)                                                          \
                (sp) = (sp) + (pdm);                                                               \
            if ((which) != APO_DMI_PLUS)                                                           \
                (sm) = (sm) + (mdm);                                                               \
            (str) = (str) + (tr);                                                                  \
        } else {                                                                                   \
            if ((which) != APO_DMI_MINUS)                                                          \
                (sp) = (sp) - (sp) / (pd) + (pdm);                                                 \
            if ((which) != APO_DMI_PLUS)                                                           \
                (sm) = (sm) - (sm) / (pd) + (mdm);                                                 \
            (str) = (str) - (str) / (pd) + (tr);                                                   \
        }                                                                                          \
    } while (0)

/* Where one DMI recurrence stands: the bars and the DX seen, the three smoothed sums and ADX
 * (dx: DX's last output, which an undefined DX repeats). */
typedef struct apo__dmi_state {
    size_t seen, dx_seen;
    double sp, sm, str, adx;
} apo__dmi_state;

/* The recurrence's step at bar t (t >= 1): its output there, NaN where it has none (a gap, or
 * before the lookback). DX's output is ADX's DX, or the last output where it is undefined (0
 * before any: TA-Lib's TA_DX), kept in s->adx. */
static APO_CAT_SPECIALISED APO_HD double apo__dmi_step(const double *high, const double *low,
                                                       const double *close, size_t t, size_t p,
                                                       int which, apo__dmi_state *s) {
    const double pd = (double)p, keep = pd - 1.0;
    const double tr = apo__true_range(high, low, close, t);
    const double up = high[t] - high[t - 1], down = low[t - 1] - low[t];
    if (!(isfinite(tr) && isfinite(up) && isfinite(down)))
        return NAN;
    /* Selects on the bits: a branch on the direction of a random walk's move is mispredicted
     * every other bar. */
    const double pdm = apo__keep_if(up, (up > 0.0) & (up > down));
    const double mdm = apo__keep_if(down, (down > 0.0) & (down > up));
    s->seen++;
    APO__DMI_SUMS(which, s->seen, p, pd, s->sp, s->sm, s->str, pdm, mdm, tr);
    if (s->seen < p)
        return NAN;
    const double plus = s->str != 0.0 ? 100.0 * (s->sp / s->str) : 0.0;
    const double minus = s->str != 0.0 ? 100.0 * (s->sm / s->str) : 0.0;
    if (which == APO_DMI_PLUS)
        return plus;
    if (which == APO_DMI_MINUS)
        return minus;
    const double sum = minus + plus;
    const int defined = s->str != 0.0 && sum != 0.0;
    const double dx = defined ? 100.0 * (fabs(minus - plus) / sum) : 0.0;
    if (which == APO_DMI_DX) {
        if (defined)
            s->adx = dx;
        return s->adx;
    }
    s->dx_seen++;
    if (s->dx_seen <= p) {
        if (defined)
            s->adx = s->adx + dx;
        if (s->dx_seen < p)
            return NAN;
        s->adx = s->adx / pd;
        return s->adx;
    }
    if (defined)
        s->adx = (s->adx * keep + dx) / pd;
    return s->adx;
}

/* The loop from r->t to end after apo__cat_run_start_changes, writing the positions from
 * `begin` (the tile's) on (apo__cat_run: n[0] the bars seen, n[1] the DX seen, v[0], v[1],
 * v[2] the sums of +DM, -DM and TR, v[3] ADX, or DX's last output; plus_di keeps v[1] at 0,
 * minus_di v[0]). */
static APO_CAT_SPECIALISED APO_HD void apo__dmi_run(const apo__cat_io *io, size_t begin, size_t end,
                                                    int which, apo__cat_run *r) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    apo__dmi_state s = {r->n[0], r->n[1], r->v[0], r->v[1], r->v[2], r->v[3]};
    for (size_t t = r->t; t < end; t++) {
        const double y = apo__dmi_step(high, low, close, t, p, which, &s);
        if (t >= begin)
            out[t] = apo__canonical_nan(y);
    }
    r->t = end > r->t ? end : r->t;
    r->n[0] = s.seen;
    r->n[1] = s.dx_seen;
    r->v[0] = s.sp;
    r->v[1] = s.sm;
    r->v[2] = s.str;
    r->v[3] = s.adx;
}

/* plus_di's tile and stream (catalog_table.h, RUN): apo__plus_di_tile, apo__plus_di_stream_start
 * and apo__plus_di_stream_run. */
APO_CAT_RUN_ENTRIES(plus_di, apo__cat_run_start_changes(io, begin, r),
                    apo__dmi_run(io, begin, end, APO_DMI_PLUS, r))

/* minus_di's tile and stream (catalog_table.h, RUN): apo__minus_di_tile, apo__minus_di_stream_start
 * and apo__minus_di_stream_run. */
APO_CAT_RUN_ENTRIES(minus_di, apo__cat_run_start_changes(io, begin, r),
                    apo__dmi_run(io, begin, end, APO_DMI_MINUS, r))

/* adx's tile and stream (catalog_table.h, RUN): apo__adx_tile, apo__adx_stream_start and
 * apo__adx_stream_run. */
APO_CAT_RUN_ENTRIES(adx, apo__cat_run_start_changes(io, begin, r),
                    apo__dmi_run(io, begin, end, APO_DMI_ADX, r))

/* dx's tile and stream (catalog_table.h, RUN): apo__dx_tile, apo__dx_stream_start and
 * apo__dx_stream_run. */
APO_CAT_RUN_ENTRIES(dx, apo__cat_run_start_changes(io, begin, r),
                    apo__dmi_run(io, begin, end, APO_DMI_DX, r))

#ifdef APO_TILE_LANES
/* On the CPU, the lagging recurrence is not run: it starts at the leading one's origin with
 * the same empty state and steps the same bars, so its ADX at t - (p - 1) is the leading one's
 * there to the bit, which a ring of the leading one's last p - 1 outputs on the stack keeps,
 * for one recurrence's work where the GPU does two. The most p - 1 it holds (4 KiB; a
 * longer lag runs both recurrences, as the GPU does): */
#define APO_ADXR_RING 512

/* ADXR from position t to end, writing from `begin` on: `lead` is the leading recurrence
 * before t, ring[u % (p - 1)] its output at u for each of the p - 1 positions u before t
 * (NaN at u <= w0, where the scalar tile's lagging recurrence has none). */
static inline void apo__adxr_ring_run(const apo__cat_io *io, size_t begin, size_t end, size_t t,
                                      apo__dmi_state *lead, double *ring) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0], lag = p - 1;
    size_t at = t % lag;
    for (; t < end; t++) {
        const double now = apo__dmi_step(high, low, close, t, p, APO_DMI_ADX, lead);
        const double before = ring[at];
        ring[at] = now;
        at = at + 1 == lag ? 0 : at + 1;
        if (t >= begin)
            out[t] = apo__canonical_nan((before + now) / 2.0);
    }
}
#endif

/* ADXR(timeperiod) = (ADX[t - (p - 1)] + ADX[t]) / 2 (TA-Lib's), NaN where either is. Two ADX
 * recurrences run from the tile's one warm-up origin, the second p - 1 bars behind the first:
 * its ADX at t - (p - 1) is the first's there, so no past ADX is kept (a GPU thread has no
 * room for p of them), for twice ADX's work; the CPU keeps them (APO_ADXR_RING above). The
 * halo is ADX's plus p - 1, so the lagging recurrence has forgotten its seeds by
 * `begin - (p - 1)` as ADX's tile has by `begin`.
 *
 * Stream: OWN since 2026-12-08 (NONE before: every update ran the tile again), the two
 * recurrences' states and the next position (apo__adxr_stream, 104 bytes), which do not fit one
 * apo__cat_run: an update runs both over its new bars (apo__adxr_two_run), the tile's own loop
 * where the CPU keeps no ring, and with the ring's bits. */
typedef struct apo__adxr_stream {
    apo__dmi_state lead, behind;
    size_t t; /* the next position */
} apo__adxr_stream;

/* The tile at `begin`: both recurrences empty at the warm-up origin w0, the first output at w0
 * (which has no change) NaN where the tile starts there. */
static inline APO_HD void apo__adxr_start(const apo__cat_io *io, size_t begin,
                                          apo__adxr_stream *s) {
    const apo__dmi_state empty = {0, 0, 0.0, 0.0, 0.0, 0.0};
    const size_t w0 = apo__cat_origin(io, begin);
    s->lead = empty;
    s->behind = empty;
    s->t = w0 + 1;
    if (begin == w0)
        io->out[0][begin] = NAN;
}

/* Positions s->t to `end` of the tile at `begin`, both recurrences stepped, the outputs written
 * from `begin` on. */
static inline APO_HD void apo__adxr_two_run(const apo__cat_io *io, size_t begin, size_t end,
                                            apo__adxr_stream *s) {
    const double *high = io->in[0], *low = io->in[1], *close = io->in[2];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0], lag = p - 1;
    const size_t w0 = apo__cat_origin(io, begin);
    for (size_t t = s->t; t < end; t++) {
        const double now = apo__dmi_step(high, low, close, t, p, APO_DMI_ADX, &s->lead);
        double before = NAN;
        if (t > w0 + lag)
            before = apo__dmi_step(high, low, close, t - lag, p, APO_DMI_ADX, &s->behind);
        if (t >= begin)
            out[t] = apo__canonical_nan((before + now) / 2.0);
    }
    s->t = end > s->t ? end : s->t;
}

/* A stream's piece of the tile at `begin` up to `stop` (the stream column OWN): with `fresh` the
 * state starts the tile, else it goes on from the last piece's stop. Nothing is taken ahead. */
static inline APO_HD void apo__adxr_resume(const apo__cat_io *io, apo__adxr_stream *s, int fresh,
                                           size_t begin, size_t stop) {
    if (fresh)
        apo__adxr_start(io, begin, s);
    apo__adxr_two_run(io, begin, stop, s);
}

static inline APO_HD void apo__adxr_tile(const apo__cat_io *io, size_t begin, size_t end) {
    apo__adxr_stream s;
    apo__adxr_start(io, begin, &s);
#ifdef APO_TILE_LANES
    const size_t lag = (size_t)io->p[0] - 1;
    if (lag <= APO_ADXR_RING) {
        double ring[APO_ADXR_RING];
        for (size_t i = 0; i < lag; i++)
            ring[i] = NAN;
        apo__adxr_ring_run(io, begin, end, s.t, &s.lead, ring);
        return;
    }
#endif
    apo__adxr_two_run(io, begin, end, &s);
}

#endif /* APO_KERNELS_DMI_TILE_H */
