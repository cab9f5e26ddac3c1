/*
 * An update all or nothing (docs/streaming.md, "Errors", "Peek"): before a stream's series
 * move, a journal keeps what each of them will change, so that the stream can be put back
 * exactly, byte for byte of its saved state and of its running state. apo_stream_peek()
 * always puts it back; an update of a user kernel (whose tile function may fail) puts it back
 * when any series or set failed.
 *
 * What a series changes in an update: its bar count, its running state (resume_at and its
 * resume bytes, which are the whole state of a carried run, and such a run's state K bars
 * back where it keeps bars for revises), and its kept window only when
 * the window's first position moves (a tile filled: the bars the next tile no longer reads are
 * dropped). New bars go after the kept ones, where nothing the state holds lies, so a window
 * whose start stays is not copied: a journal costs a few words a series and, once a tile, the
 * kept window of a series whose tile fills.
 */
#ifndef APO_RUNTIME_STREAMING_STREAM_JOURNAL_H
#define APO_RUNTIME_STREAMING_STREAM_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "streaming/stream.h"

/* What one set's series were before an update (only those with new bars are filled). */
typedef struct apo__stream_journal {
    uint64_t *n, *resume_at;
    unsigned char *resume;     /* resume_stride bytes a series, or NULL */
    unsigned char *carry_base; /* a carried run's state K bars back, as resume, or NULL */
    double **window;           /* the kept window before it, where its start moves; else NULL */
    int broken;
} apo__stream_journal;

/* Keeps what the series of one set s that take new bars will change, s's room for them
 * already reserved (apo__stream_reserve_set). APO_ERR_OUT_OF_MEMORY: nothing is kept. */
apo_status apo__stream_journal_take(const apo_stream *s, const size_t *n_new,
                                    apo__stream_journal *j);

/* Puts the series of s back as the journal found them, and s's broken flag. */
void apo__stream_journal_restore(apo_stream *s, const size_t *n_new, const apo__stream_journal *j);

/* Frees what a journal of n_series series holds; a zeroed one is fine. */
void apo__stream_journal_free(apo__stream_journal *j, size_t n_series);

/* apo_stream_update() or, with peek, apo_stream_peek(), arguments already checked; `total`
 * the new bars of all series (a sweep's sets write their outputs `total` apart). A peek runs
 * on the calling thread, and leaves the stream as it was whatever happens. */
apo_status apo__stream_feed(apo_stream *s, const size_t *n_new, size_t total,
                            const double *const *inputs, double *const *outputs, int peek);

#endif
