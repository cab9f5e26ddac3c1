/*
 * ma_stream.h: ma's stream entries (catalog_table.h, the stream column RUN).
 *
 * ma at matype m is the tile of m's own catalog kernel on the io apo__ma_span builds
 * (ma_type.h, apo__ma_kind_io), so at the kinds whose kernels are a start and a run (SMA, EMA,
 * WMA, DEMA, TEMA, KAMA, T3, above period 1) ma's stream takes those kernels' stream entries
 * on that io: the same operations as its tile, so the same bits, and an update costs its new
 * bars as the kernel's own stream's does. The state is that kernel's apo__cat_run. Until
 * 2026-12-07 every update ran ma's tile from its warm-up (the tile so far; ma's default, SMA,
 * re-read its tile's bars up to the new one). At the other kinds (TRIMA, whose outputs each
 * read their own window; MAMA, which reads the row from its first bar; period 1, the sample
 * itself) an update runs apo__ma_span over its new positions from the tile's own warm-up, as
 * before. ma's row has no AHEAD: an SMA's or WMA's start reads the window before its tile, which
 * a run ahead would read before its bars arrive, so a recurrence's tile runs its warm-up at its
 * first bar (h bars once a tile).
 */
#ifndef APO_KERNELS_MA_STREAM_H
#define APO_KERNELS_MA_STREAM_H

#include "catalog.h"
#include "ma_type.h"
#include "run_entries.h"

/* The kinds whose kernels ma's stream takes: X(kind, name), APO_MA_<kind> and apo__<name>_*. */
#define APO__MA_CARRIED_KINDS(X)                                                                   \
    X(SMA, sma) X(EMA, ema) X(WMA, wma) X(DEMA, dema) X(TEMA, tema) X(KAMA, kama) X(T3, t3)

#define APO__MA_CARRIED_CASE(kind, name) case APO_MA_##kind:
#define APO__MA_START_CASE(kind, name)                                                             \
    case APO_MA_##kind:                                                                            \
        apo__##name##_stream_start(&k, begin, r);                                                  \
        break;
#define APO__MA_RUN_CASE(kind, name)                                                               \
    case APO_MA_##kind:                                                                            \
        apo__##name##_stream_run(&k, begin, end, r);                                               \
        break;

/* Whether ma at this matype and period takes its kind's stream entries. */
static inline APO_HD int apo__ma_carried(int matype, size_t p) {
    switch (matype) {
        APO__MA_CARRIED_KINDS(APO__MA_CARRIED_CASE)
        return p > 1;
    default:
        return 0;
    }
}

/* A stream's start of the tile at `begin`: the kind's own, or at `begin` where each update runs
 * apo__ma_span again. */
static inline APO_HD void apo__ma_stream_begin(const apo__cat_io *io, size_t begin,
                                               apo__cat_run *r) {
    const int matype = (int)io->p[1];
    const size_t p = (size_t)io->p[0];
    if (!apo__ma_carried(matype, p)) {
        apo__cat_run_from(r, begin);
        return;
    }
    const apo__cat_io k = apo__ma_kind_io(io->in[0], io->out[0], p, io->h);
    switch (matype) {
        APO__MA_CARRIED_KINDS(APO__MA_START_CASE)
    default:
        break;
    }
}

/* A stream's run of the tile at `begin` from r->t to `end`: the kind's own, or apo__ma_span over
 * the new positions [r->t, end) from the tile's own warm-up, begin less the halo: the kinds left
 * (TRIMA, MAMA, period 1) compute each output from its own window or from the row's first bar,
 * so a span from r->t has the tile's bits. */
static inline APO_HD void apo__ma_stream_go(const apo__cat_io *io, size_t begin, size_t end,
                                            apo__cat_run *r) {
    const int matype = (int)io->p[1];
    const size_t p = (size_t)io->p[0];
    if (!apo__ma_carried(matype, p)) {
        if (end > r->t) {
            apo__ma_span(matype, io->in[0], io->out[0], p, io->h + (r->t - begin), r->t, end);
            r->t = end;
        }
        return;
    }
    const apo__cat_io k = apo__ma_kind_io(io->in[0], io->out[0], p, io->h);
    switch (matype) {
        APO__MA_CARRIED_KINDS(APO__MA_RUN_CASE)
    default:
        break;
    }
}

APO_CAT_STREAM_ENTRIES(ma, apo__ma_stream_begin(io, begin, r), apo__ma_stream_go(io, begin, end, r))

#endif /* APO_KERNELS_MA_STREAM_H */
