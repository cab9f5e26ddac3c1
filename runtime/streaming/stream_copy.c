/* A stream's independent copy; see stream_copy.h. */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "streaming/stream_copy.h"

/* A copy of a stream of one set. */
static apo_status copy_set(const apo_stream *s, apo_stream **out) {
    apo_stream *c = NULL;
    APO_CHECK(apo__stream_new(s->kernel, s->params, s->n_series, s->seed, s->revise, &c));
    const size_t n_in = s->kernel->n_inputs;
    for (size_t r = 0; r < s->n_series; r++) {
        const apo__stream_series *from = &s->series[r];
        apo__stream_series *to = &c->series[r];
        const size_t kept = apo__stream_kept(s, from->n);
        /* Reserved while the copy's series is empty: there is nothing of it to keep yet. */
        apo_status st = apo__stream_reserve(c, r, kept);
        if (st != APO_OK) {
            apo__stream_free(c);
            return st;
        }
        to->n = from->n;
        to->resume_at = from->resume_at;
        /* A series that keeps nothing may have no buffer: memcpy takes no NULL. */
        for (size_t i = 0; i < n_in && kept > 0; i++)
            memcpy(to->in + i * to->cap, from->in + i * from->cap, kept * sizeof(double));
    }
    /* The running states: a cache of the kept bars, or a carried run's whole state. */
    if (s->resume != NULL)
        memcpy(c->resume, s->resume, s->n_series * s->resume_stride);
    if (s->carry_base != NULL)
        memcpy(c->carry_base, s->carry_base, s->n_series * s->resume_stride);
    c->rt = s->rt;
    c->device_bars = s->device_bars;
    c->cpu_isa = s->cpu_isa;
    c->cpu_isa_named = s->cpu_isa_named;
    c->batch = s->batch;
    *out = c;
    return APO_OK;
}

apo_status apo__stream_copy(const apo_stream *s, apo_stream **out) {
    if (s->n_sets == 0)
        return copy_set(s, out);
    apo_stream **sets = calloc(s->n_sets, sizeof *sets);
    if (sets == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream_fork: no memory for %zu sets",
                         s->n_sets);
    for (size_t k = 0; k < s->n_sets; k++) {
        apo_status st = copy_set(s->sets[k], &sets[k]);
        if (st != APO_OK) {
            apo__stream_free_sets(sets, s->n_sets);
            return st;
        }
    }
    APO_CHECK(apo__stream_sweep_of(sets, s->n_sets, out));
    (*out)->rt = s->rt;
    (*out)->device_bars = s->device_bars;
    (*out)->cpu_isa = s->cpu_isa;
    (*out)->cpu_isa_named = s->cpu_isa_named;
    (*out)->batch = s->batch;
    return APO_OK;
}
