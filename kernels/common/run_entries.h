/*
 * run_entries.h: the three entry points of a body whose stream is RUN (catalog_table.h, the
 * stream column), written once (APO_HD, shared by the CPU and CUDA).
 *
 * Such a body is a start at `begin` and a run to `end` (apo__cat_run, catalog.h); its tile is
 * one start and one run, and its stream calls the two apart. Every one of these bodies wrote
 * the same three wrappers around its own start and run; APO_CAT_RUN_ENTRIES writes them from
 * the two calls alone, so the tile and the stream cannot drift apart (the stream's resume is
 * bitwise the tile's only because the tile is exactly the start followed by the run).
 */
#ifndef APO_KERNELS_RUN_ENTRIES_H
#define APO_KERNELS_RUN_ENTRIES_H

#include "apo_hd.h"
#include "catalog.h"

/* Defines apo__<name>_stream_start(io, begin, r) and apo__<name>_stream_run(io, begin, end, r).
 * START is the start's call and RUN the run's, each written with the entry points' own parameter
 * names: io, begin and r for START; io, begin, end and r for RUN (a run that does not need
 * `begin` ignores it). `begin` is always the tile's start, also for a run resumed inside the
 * tile (a stream's, apo__cpu_catalog_resume; a GPU's piece run again, cuda/cut.cu): kama's run
 * places its folds from it, so a run given a later `begin` is another tile's. For a body whose tile
 * takes another way than the stream's (var, stddev and zscore by position at short periods) and
 * defines its own tile. */
#define APO_CAT_STREAM_ENTRIES(name, START, RUN)                                                   \
    static inline APO_HD void apo__##name##_stream_start(const apo__cat_io *io, size_t begin,      \
                                                         apo__cat_run *r) {                        \
        START;                                                                                     \
    }                                                                                              \
    static inline APO_HD void apo__##name##_stream_run(const apo__cat_io *io, size_t begin,        \
                                                       size_t end, apo__cat_run *r) {              \
        (void)begin;                                                                               \
        RUN;                                                                                       \
    }

/* The stream's entry points as APO_CAT_STREAM_ENTRIES and apo__<name>_tile(io, begin, end), the
 * start followed by the run: the same two calls, on a run of the tile's own (written out rather
 * than calling the stream's entry points, so that the tile inlines as it did when each body
 * wrote it by hand). */
#define APO_CAT_RUN_ENTRIES(name, START, RUN)                                                      \
    APO_CAT_STREAM_ENTRIES(name, START, RUN)                                                       \
    static inline APO_HD void apo__##name##_tile(const apo__cat_io *io, size_t begin,              \
                                                 size_t end) {                                     \
        apo__cat_run run;                                                                          \
        apo__cat_run *const r = &run;                                                              \
        START;                                                                                     \
        RUN;                                                                                       \
    }

/* For a body whose stream keeps a state of its own (the stream column OWN) in a struct
 * apo__<name>_stream, with apo__<name>_start(io, begin, s) and apo__<name>_run(io, stop, s):
 * defines apo__<name>_resume(io, s, fresh, begin, stop), a stream's piece (the start when `fresh`,
 * then the run to `stop`; catalog_dispatch.c calls it from the row), and apo__<name>_tile, one
 * start and one run to its end, so the tile and the stream cannot drift apart. */
#define APO_CAT_OWN_ENTRIES(name)                                                                  \
    static inline APO_HD void apo__##name##_resume(const apo__cat_io *io, apo__##name##_stream *s, \
                                                   int fresh, size_t begin, size_t stop) {         \
        if (fresh)                                                                                 \
            apo__##name##_start(io, begin, s);                                                     \
        apo__##name##_run(io, stop, s);                                                            \
    }                                                                                              \
    static inline APO_HD void apo__##name##_tile(const apo__cat_io *io, size_t begin,              \
                                                 size_t end) {                                     \
        apo__##name##_stream s;                                                                    \
        apo__##name##_start(io, begin, &s);                                                        \
        apo__##name##_run(io, end, &s);                                                            \
    }

#endif /* APO_KERNELS_RUN_ENTRIES_H */
