/* Updates all or nothing, and peeks; see stream_journal.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "streaming/stream_journal.h"

typedef apo__stream_journal journal;

void apo__stream_journal_free(journal *j, size_t n_series) {
    for (size_t r = 0; j->window != NULL && r < n_series; r++)
        free(j->window[r]);
    free(j->n), free(j->resume_at), free(j->resume), free(j->carry_base), free(j->window);
    memset(j, 0, sizeof *j);
}

apo_status apo__stream_journal_take(const apo_stream *s, const size_t *n_new, journal *j) {
    const size_t rows = s->n_series, n_in = s->kernel->n_inputs;
    memset(j, 0, sizeof *j);
    j->n = malloc(rows * sizeof *j->n);
    j->resume_at = malloc(rows * sizeof *j->resume_at);
    j->window = calloc(rows, sizeof *j->window);
    j->resume = s->resume != NULL ? malloc(rows * s->resume_stride) : NULL;
    j->carry_base = s->carry_base != NULL ? malloc(rows * s->resume_stride) : NULL;
    int bad = j->n == NULL || j->resume_at == NULL || j->window == NULL ||
              (s->resume != NULL && j->resume == NULL) ||
              (s->carry_base != NULL && j->carry_base == NULL);
    for (size_t r = 0; r < rows && !bad; r++) {
        if (n_new[r] == 0)
            continue;
        const apo__stream_series *se = &s->series[r];
        j->n[r] = se->n;
        j->resume_at[r] = se->resume_at;
        if (j->resume != NULL)
            memcpy(j->resume + r * s->resume_stride, s->resume + r * s->resume_stride,
                   s->resume_stride);
        if (j->carry_base != NULL)
            memcpy(j->carry_base + r * s->resume_stride, s->carry_base + r * s->resume_stride,
                   s->resume_stride);
        const size_t kept = apo__stream_kept(s, se->n);
        if (kept == 0 || apo__stream_base(s, se->n + n_new[r]) == apo__stream_base(s, se->n))
            continue;
        if ((j->window[r] = malloc(n_in * kept * sizeof(double))) == NULL) {
            bad = 1;
            break;
        }
        for (size_t i = 0; i < n_in; i++)
            memcpy(j->window[r] + i * kept, se->in + i * se->cap, kept * sizeof(double));
    }
    j->broken = s->broken;
    if (bad) {
        apo__stream_journal_free(j, rows);
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream: no memory to journal %zu series",
                         rows);
    }
    return APO_OK;
}

/* The series' blocks are the ones they had when the journal was taken: an update's room is
 * reserved before, and feeding moves no block. */
void apo__stream_journal_restore(apo_stream *s, const size_t *n_new, const journal *j) {
    const size_t n_in = s->kernel->n_inputs;
    for (size_t r = 0; r < s->n_series; r++) {
        if (n_new[r] == 0)
            continue;
        apo__stream_series *se = &s->series[r];
        se->n = j->n[r];
        se->resume_at = j->resume_at[r];
        if (j->resume != NULL)
            memcpy(s->resume + r * s->resume_stride, j->resume + r * s->resume_stride,
                   s->resume_stride);
        if (j->carry_base != NULL)
            memcpy(s->carry_base + r * s->resume_stride, j->carry_base + r * s->resume_stride,
                   s->resume_stride);
        const size_t kept = apo__stream_kept(s, se->n);
        if (j->window[r] != NULL)
            for (size_t i = 0; i < n_in; i++)
                memcpy(se->in + i * se->cap, j->window[r] + i * kept, kept * sizeof(double));
    }
    s->broken = j->broken;
}

/* The sets of s: a sweep's, or s itself. */

apo_status apo__stream_feed(apo_stream *s, const size_t *n_new, size_t total,
                            const double *const *inputs, double *const *outputs, int peek) {
    const size_t n_sets = s->n_sets > 0 ? s->n_sets : 1;
    /* Every set's room before any set moves: a sweep's sets never disagree on their bars. */
    for (size_t k = 0; k < n_sets; k++)
        APO_CHECK(apo__stream_reserve_set(apo__stream_set(s, k), n_new));
    /* A built-in kernel does not fail on the calling thread, so its updates go unjournaled
     * (a journal would cost a one-bar update of thousands of series a copy of each running
     * state); a user kernel's tile function may fail on any series. */
    const int journaled = peek || !s->kernel->builtin;
    journal *js = journaled ? calloc(n_sets, sizeof *js) : NULL;
    if (journaled && js == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream: no memory to journal %zu sets",
                         n_sets);
    apo_status st = APO_OK;
    size_t taken = 0;
    for (size_t k = 0; k < n_sets && st == APO_OK; k++) {
        apo_stream *one = apo__stream_set(s, k);
        if (journaled && (st = apo__stream_journal_take(one, n_new, &js[k])) != APO_OK)
            break;
        taken += journaled;
        double *set_out[APO_MAX_IO];
        for (size_t o = 0; o < s->kernel->n_outputs; o++)
            set_out[o] = outputs[o] + k * total;
        st = apo__stream_feed_set(one, n_new, inputs, set_out, !peek);
    }
    if (journaled && (peek || st != APO_OK))
        for (size_t k = taken; k-- > 0;)
            apo__stream_journal_restore(apo__stream_set(s, k), n_new, &js[k]);
    else if (st != APO_OK && s->n_sets > 0)
        s->broken = 1;
    for (size_t k = 0; k < taken; k++)
        apo__stream_journal_free(&js[k], apo__stream_set(s, k)->n_series);
    free(js);
    return st;
}
