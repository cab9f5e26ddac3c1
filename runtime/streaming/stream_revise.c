/* Revises of a stream's last bars, and streams resumed from a window; see stream_revise.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "streaming/stream_revise.h"

apo_status apo__stream_check_revise(size_t revise, const char *call) {
    if (revise > APO_STREAM_MAX_REVISE)
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "%s: revise_bars is %zu, more than %zu", call,
                         revise, APO_STREAM_MAX_REVISE);
    return APO_OK;
}

/* The sets of s: a sweep's, or s itself. */

/* Writes the packed inputs over the last k[r] kept bars of every series of one set, the bars
 * they replace first copied to `keep` (packed alike) unless it is NULL. */
static void swap_bars(apo_stream *s, const size_t *k, const double *const *inputs, double *keep) {
    const size_t n_in = s->kernel->n_inputs;
    size_t at = 0, total = 0;
    for (size_t r = 0; r < s->n_series; r++)
        total += k[r];
    for (size_t r = 0; r < s->n_series; r++) {
        apo__stream_series *se = &s->series[r];
        const size_t last = apo__stream_kept(s, se->n) - k[r];
        for (size_t i = 0; i < n_in && k[r] > 0; i++) {
            double *bars = se->in + i * se->cap + last;
            if (keep != NULL)
                memcpy(keep + i * total + at, bars, k[r] * sizeof(double));
            memcpy(bars, inputs[i] + at, k[r] * sizeof(double));
        }
        at += k[r];
    }
}

apo_status apo__stream_revise(apo_stream *s, const size_t *k, size_t total,
                              const double *const *inputs, double *const *outputs) {
    const size_t n_sets = s->n_sets > 0 ? s->n_sets : 1, n_in = s->kernel->n_inputs;
    const apo_stream *one = apo__stream_set(s, 0);
    for (size_t r = 0; r < s->n_series; r++) {
        const uint64_t n = one->series[r].n;
        if (k[r] > one->revise || k[r] > n)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "apo_stream_revise: series %zu has %llu bars and the stream keeps "
                             "%zu for revises (desc.revise_bars), so its last %zu cannot be "
                             "revised; nothing was changed",
                             r, (unsigned long long)n, one->revise, k[r]);
    }
    /* The old bars of every set, to put back if a user kernel fails on any series. */
    double *old = total <= SIZE_MAX / sizeof *old / n_in / n_sets
                      ? malloc(n_sets * n_in * total * sizeof *old)
                      : NULL;
    if (old == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream_revise: no memory for %zu bars", total);
    apo_status st = APO_OK;
    for (size_t j = 0; j < n_sets && st == APO_OK; j++)
        st = apo__stream_reserve_rerun(apo__stream_set(s, j), apo__stream_set(s, j)->tile);
    size_t swapped = 0;
    for (size_t j = 0; j < n_sets && st == APO_OK; j++) {
        apo_stream *set = apo__stream_set(s, j);
        swap_bars(set, k, inputs, old + j * n_in * total);
        swapped++;
        size_t at = 0;
        for (size_t r = 0; r < s->n_series && st == APO_OK; r++) {
            double *out[APO_MAX_IO];
            for (size_t o = 0; o < s->kernel->n_outputs; o++)
                out[o] = outputs[o] + j * total;
            if (k[r] > 0)
                st = apo__stream_rerun(set, r, set->series[r].n - k[r], out, at);
            at += k[r];
        }
    }
    if (st != APO_OK)
        for (size_t j = 0; j < swapped; j++) {
            const double *back[APO_MAX_IO];
            for (size_t i = 0; i < n_in; i++)
                back[i] = old + j * n_in * total + i * total;
            swap_bars(apo__stream_set(s, j), k, back, NULL);
        }
    free(old);
    return st;
}

size_t apo__stream_resume_needs(const apo_stream *s, uint64_t n) {
    size_t most = 0;
    for (size_t j = 0; j < (s->n_sets > 0 ? s->n_sets : 1); j++) {
        const apo_stream *set = apo__stream_set(s, j);
        const size_t kept = apo__stream_kept(set, n);
        most = kept > most ? kept : most;
    }
    return most;
}

apo_status apo__stream_resume_fill(apo_stream *s, const uint64_t *first, const size_t *n_bars,
                                   const double *const *inputs) {
    if (apo__stream_carry_len(s->kernel) > 0)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_resume: %s carries its state (a running sum, a path, a "
                         "transform) from the series' first bar, which no window of bars holds; "
                         "feed it the whole history with apo_stream_update instead",
                         s->kernel->name);
    for (size_t r = 0; r < s->n_series; r++) {
        if (first[r] > UINT64_MAX - n_bars[r])
            return apo__fail(APO_ERR_OVERFLOW, "apo_stream_resume: series %zu's position overflows",
                             r);
        const uint64_t n = first[r] + n_bars[r];
        const size_t need = apo__stream_resume_needs(s, n);
        if (n_bars[r] < need)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "apo_stream_resume: series %zu, %llu bars long, needs its last %zu "
                             "bars (apo_stream_resume_needs), and %zu were given",
                             r, (unsigned long long)n, need, n_bars[r]);
    }
    const size_t n_sets = s->n_sets > 0 ? s->n_sets : 1;
    for (size_t j = 0; j < n_sets; j++) {
        apo_stream *set = apo__stream_set(s, j);
        set->room = 0; /* its series move: the next update passes over them (reserve_update) */
        size_t at = 0;
        for (size_t r = 0; r < s->n_series; r++) {
            apo__stream_series *se = &set->series[r];
            const uint64_t n = first[r] + n_bars[r];
            const size_t kept = apo__stream_kept(set, n);
            /* Reserved while the series is empty: there is nothing of it to keep yet. */
            APO_CHECK(apo__stream_reserve(set, r, kept));
            se->n = n;
            /* A series that keeps nothing may have no buffer: memcpy takes no NULL. */
            for (size_t i = 0; i < s->kernel->n_inputs && kept > 0; i++)
                memcpy(se->in + i * se->cap, inputs[i] + at + (n_bars[r] - kept),
                       kept * sizeof(double));
            at += n_bars[r];
        }
    }
    return APO_OK;
}
