/*
 * bbands_stream.h: bbands' stream (catalog_table.h, the stream column OWN: a state of the
 * kernel's own, apo__bbands_stream, resumed by apo__bbands_resume).
 *
 * At matype 0 (the default) bbands' tile is the built-in bollinger's body (bbands_tile.h), whose
 * state between two pieces of a tile is bollinger's cursor (bollinger_tile.h: the window's
 * counts and its sliding run, more than an apo__cat_run holds); the stream keeps that cursor, as
 * bollinger's own stream does (averages/bollinger.c, apo__cpu_bollinger_resume), and a piece is
 * apo__bollinger_advance to its stop: the tile is the cursor from its `begin` advanced to its
 * end, so the bits are the tile's. At the other matypes the middle band is ma's stream over the
 * close (ma_stream.h, on the io of an ma call: the kind's own run where its kernel is a start and
 * a run, else its span from the tile's warm-up), and the bands of each new position are formed
 * from its own window (apo__bbands_around), so a piece costs its new bars as ma's stream does,
 * plus a window of timeperiod bars each. Until 2026-12-08 bbands' stream was NONE: every update
 * ran the tile again from its warm-up, the tile's bars so far.
 *
 * Nothing is taken ahead: a window's start reads the window before its tile.
 */
#ifndef APO_KERNELS_BBANDS_STREAM_H
#define APO_KERNELS_BBANDS_STREAM_H

#include "bbands_tile.h"
#include "bollinger_tile.h"
#include "catalog.h"
#include "ma_stream.h"
#include "ma_type.h"

/* What a bbands stream keeps for a series between two pieces: one of the two, by matype. */
typedef union apo__bbands_stream {
    apo__bollinger_cursor bands; /* matype 0: bollinger's cursor */
    apo__cat_run middle;         /* another matype: ma's run of the middle band */
} apo__bbands_stream;

/* The io of the ma call whose output is bbands' middle band: MA(timeperiod, matype) of the
 * close, with bbands' halo (the table's MA rule, the matype's kernel's halo). */
static inline APO_HD apo__cat_io apo__bbands_middle_io(const apo__cat_io *io) {
    apo__cat_io m;
    memset(&m, 0, sizeof m);
    m.in[0] = io->in[0];
    m.out[0] = io->out[1];
    m.p[0] = io->p[0];
    m.p[1] = io->p[3];
    m.h = io->h;
    return m;
}

/* The piece of the tile at `begin` up to `stop`: with `fresh` the state starts the tile, else
 * it goes on from the last piece's stop. The outputs are written from where the state stood
 * (from `begin` for a fresh one). */
static inline APO_HD void apo__bbands_resume(const apo__cat_io *io, apo__bbands_stream *s,
                                             int fresh, size_t begin, size_t stop) {
    const size_t p = (size_t)io->p[0];
    if ((int)io->p[3] == APO_MA_SMA) {
        if (fresh)
            apo__bollinger_cursor_init(&s->bands, begin, p);
        apo__bollinger_advance(apo__in_at(io->in[0]), stop, p, io->p[1], io->p[2], &s->bands,
                               apo__out_at(io->out[0]), apo__out_at(io->out[1]),
                               apo__out_at(io->out[2]));
        return;
    }
    const apo__cat_io m = apo__bbands_middle_io(io);
    if (fresh)
        apo__ma_stream_begin(&m, begin, &s->middle);
    /* A recurrence's run starts at its warm-up origin, before `begin`: no band there. */
    const size_t from = s->middle.t > begin ? s->middle.t : begin;
    apo__ma_stream_go(&m, begin, stop, &s->middle);
    if (stop > from)
        apo__bbands_around(io, from, stop);
}

#endif /* APO_KERNELS_BBANDS_STREAM_H */
