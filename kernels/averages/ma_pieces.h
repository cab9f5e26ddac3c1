/*
 * ma_pieces.h: TA-Lib's MA(p, matype) of a row (ma_type.h) taken in pieces, each piece going
 * on from where the last one stopped, for the tile bodies that need two averages of the same
 * bars side by side and have only their output rows to hold them (apo, ppo, macdext).
 *
 * What: apo__ma_pieces_start(m, matype, x, out, p, h, begin) sets up the average of x whose
 * outputs from `begin` go to out (absolute indices); apo__ma_pieces_run(m, end) writes
 * out[done .. end), done where the last piece stopped. The kinds that stream as a start and a
 * run (sma, ema, wma, dema, tema, kama, t3: catalog_table.h, RUN) take each piece from the run
 * state the last one left, which performs the operations of the tile run whole (catalog.h,
 * apo__cat_run); trima and period 1 evaluate each output from its own window or sample. So
 * whatever the pieces, the outputs have the bits of apo__ma_span over [begin, end), the bits
 * of the matype's own kernel at that tile (ma_type.h).
 *
 * The bodies write a piece, read it back and reuse the rows: a kind never reads its own
 * outputs, so a row may be overwritten between pieces. MAMA (7) writes NaN, as in ma_type.h.
 */
#ifndef APO_KERNELS_MA_PIECES_H
#define APO_KERNELS_MA_PIECES_H

#include "ma_type.h"

typedef struct apo__ma_pieces {
    apo__cat_io io; /* the average's own call: x, out, p, T3's vfactor, h */
    apo__cat_run r; /* a streaming kind's run state */
    int matype;
    size_t begin; /* the first output */
    size_t done;  /* outputs written so far: [begin, done) */
} apo__ma_pieces;

/* 1 for a kind whose outputs are taken by its stream's run (RUN in catalog_table.h). */
static inline APO_HD int apo__ma_pieces_streams(const apo__ma_pieces *m) {
    return (size_t)m->io.p[0] > 1 && apo__ma_supported(m->matype) && m->matype != APO_MA_TRIMA;
}

static inline APO_HD void apo__ma_pieces_start(apo__ma_pieces *m, int matype, const double *x,
                                               double *out, size_t p, size_t h, size_t begin) {
    memset(&m->io, 0, sizeof m->io);
    m->io.in[0] = x;
    m->io.out[0] = out;
    m->io.p[0] = (double)p;
    m->io.p[1] = APO_MA_T3_VFACTOR;
    m->io.h = h;
    m->io.tile = 0;
    m->matype = matype;
    m->begin = begin;
    m->done = begin;
    apo__cat_run_from(&m->r, begin);
    if (!apo__ma_pieces_streams(m))
        return;
    switch (matype) {
    case APO_MA_EMA:
        apo__ema_stream_start(&m->io, begin, &m->r);
        break;
    case APO_MA_WMA:
        apo__wma_stream_start(&m->io, begin, &m->r);
        break;
    case APO_MA_DEMA:
        apo__dema_stream_start(&m->io, begin, &m->r);
        break;
    case APO_MA_TEMA:
        apo__tema_stream_start(&m->io, begin, &m->r);
        break;
    case APO_MA_KAMA:
        apo__kama_stream_start(&m->io, begin, &m->r);
        break;
    case APO_MA_T3:
        apo__t3_stream_start(&m->io, begin, &m->r);
        break;
    default:
        apo__sma_stream_start(&m->io, begin, &m->r);
        break;
    }
}

/* The next piece: out[done .. end). */
static inline APO_HD void apo__ma_pieces_run(apo__ma_pieces *m, size_t end) {
    if (end <= m->done)
        return;
    if (!apo__ma_pieces_streams(m)) {
        apo__ma_span(m->matype, m->io.in[0], m->io.out[0], (size_t)m->io.p[0], m->io.h, m->done,
                     end);
        m->done = end;
        return;
    }
    switch (m->matype) {
    case APO_MA_EMA:
        apo__ema_stream_run(&m->io, m->begin, end, &m->r);
        break;
    case APO_MA_WMA:
        apo__wma_stream_run(&m->io, m->begin, end, &m->r);
        break;
    case APO_MA_DEMA:
        apo__dema_stream_run(&m->io, m->begin, end, &m->r);
        break;
    case APO_MA_TEMA:
        apo__tema_stream_run(&m->io, m->begin, end, &m->r);
        break;
    case APO_MA_KAMA:
        apo__kama_stream_run(&m->io, m->begin, end, &m->r);
        break;
    case APO_MA_T3:
        apo__t3_stream_run(&m->io, m->begin, end, &m->r);
        break;
    default:
        apo__sma_stream_run(&m->io, m->begin, end, &m->r);
        break;
    }
    m->done = end;
}

#endif /* APO_KERNELS_MA_PIECES_H */
