/* A stream's series and its updates; see stream.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "catalog/call_span.h"
#include "streaming/stream.h"

/* A series length for the shape checks below: any length works, the kernels that stream
 * give every output the input's length and tile along it. */
#define APO_PROBE_COLS 1000
#define APO_LONG_SERIES ((size_t)1 << 40)

apo_status apo__stream_check_kernel(const apo__kernel *k, const double *params) {
    if (k->partial_len != 0)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_create: %s is a reduction (its outputs summarise whole "
                         "series), so a stream has no per-bar output to give; call "
                         "apo_distribute_workload over the history instead",
                         k->name);
    if (apo__kernel_whole_row_input(k))
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_create: %s reads whole series, so its state would grow "
                         "with the history; streams keep a bounded window",
                         k->name);
    if (k->run_tile == NULL || k->axis_len(k, params, APO_PROBE_COLS) != APO_PROBE_COLS)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_create: %s does not tile along the series", k->name);
    for (size_t o = 0; o < k->n_outputs; o++)
        if (k->output_cols(k, params, APO_PROBE_COLS, o) != APO_PROBE_COLS)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "apo_stream_create: output %s of %s is not one value per bar",
                             k->output_names[o], k->name);
    /* The kernel's own checks of its parameters, against a series longer than any window:
     * a stream's series have no length yet, and their first bars give what the batch gives
     * at the first bars of a long series (NaN until the window fills). */
    if (k->validate != NULL) {
        char err[256] = "";
        apo_status st = k->validate(k, params, 1, APO_LONG_SERIES, err, sizeof err);
        if (st != APO_OK)
            return apo__fail(st, "apo_stream_create: %s", err);
    }
    return APO_OK;
}

apo_status apo__stream_new(const apo__kernel *k, const double *params, size_t n_series,
                           uint64_t seed, apo_stream **out) {
    apo_stream *s = calloc(1, sizeof *s);
    if (s == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream: no memory for the stream");
    s->series = calloc(n_series, sizeof *s->series);
    if (s->series == NULL) {
        free(s);
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream: no memory for %zu series", n_series);
    }
    s->kernel = k;
    memcpy(s->params, params, sizeof s->params);
    s->seed = seed;
    s->n_series = n_series;
    s->tile = k->tile_len(k, params);
    s->halo = apo__kernel_halo(k, params);
    *out = s;
    return APO_OK;
}

uint64_t apo__stream_base(const apo_stream *s, uint64_t n) {
    uint64_t start = n - n % s->tile;
    return start > s->halo ? start - s->halo : 0;
}

size_t apo__stream_kept(const apo_stream *s, uint64_t n) {
    return (size_t)(n - apo__stream_base(s, n));
}

apo_status apo__stream_reserve(apo_stream *s, size_t r, size_t bars) {
    apo__stream_series *se = &s->series[r];
    if (bars <= se->cap)
        return APO_OK;
    size_t n_in = s->kernel->n_inputs;
    double *in = malloc(n_in * bars * sizeof *in);
    if (in == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream: no memory for %zu bars of series %zu",
                         bars, r);
    size_t kept = apo__stream_kept(s, se->n);
    for (size_t i = 0; i < n_in && kept > 0; i++)
        memcpy(in + i * bars, se->in + i * se->cap, kept * sizeof *in);
    free(se->in);
    se->in = in;
    se->cap = bars;
    return APO_OK;
}

/* Room for `bars` outputs of the current tile, per output. */
static apo_status reserve_scratch(apo_stream *s, size_t bars) {
    if (bars <= s->scratch_cap)
        return APO_OK;
    double *scratch = malloc(s->kernel->n_outputs * bars * sizeof *scratch);
    if (scratch == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream: no memory for %zu outputs", bars);
    free(s->scratch);
    s->scratch = scratch;
    s->scratch_cap = bars;
    return APO_OK;
}

/* A pointer that indexes like an array starting at position `first` of a series: element t
 * of the view is block[t - first]. The kernels mark and read positions by their absolute
 * index (a window's first full position, a recurrence's seed), so they must see them; the
 * CUDA backend's chunks are biased the same way (catalog/kernel.h). */
static double *biased(double *block, uint64_t first) {
    return (double *)((uintptr_t)block - (uintptr_t)first * sizeof(double));
}

/* The batch's tile of series `r`, from its start to position `end`, as one row of a call of
 * its own (a ragged row's call: rows 1, row 0; cols the bars so far). */
static apo_status run_current_tile(apo_stream *s, size_t r, uint64_t end) {
    const apo__kernel *k = s->kernel;
    apo__stream_series *se = &s->series[r];
    uint64_t start = se->n - se->n % s->tile; /* se->n: bars before this piece */
    uint64_t base = apo__stream_base(s, se->n);
    const double *inputs[APO_MAX_IO] = {0};
    double *outputs[APO_MAX_IO] = {0};
    for (size_t i = 0; i < k->n_inputs; i++)
        inputs[i] = biased(se->in + i * se->cap, base);
    for (size_t o = 0; o < k->n_outputs; o++)
        outputs[o] = biased(s->scratch + o * s->scratch_cap, start);
    apo__call call;
    memset(&call, 0, sizeof call);
    call.kernel = k;
    call.rows = 1;
    call.cols = (size_t)end;
    call.inputs = inputs;
    call.outputs = outputs;
    memcpy(call.params, s->params, sizeof call.params);
    call.seed = s->seed;
    apo__call_grid(&call);
    call.in_gpu = call.out_gpu = -1;
    /* No runtime call is running (call.rt NULL): a user kernel may call into its runtime
     * from a stream's update, which holds none of the runtime's locks. */
    call.rt = NULL;
    apo_status st = k->run_tile(&call, 0, (size_t)start, (size_t)end, NULL);
    if (st != APO_OK)
        return apo__fail(APO_ERR_KERNEL_FAILED,
                         "apo_stream_update: kernel %s failed with %s on series %zu, bars "
                         "%llu to %llu; the stream is now unusable",
                         k->name, apo_status_name(st), r, (unsigned long long)start,
                         (unsigned long long)end);
    return APO_OK;
}

/* Feeds m bars of series r, read from and written to offset `at` of the packed arrays, one
 * piece per tile met. */
static apo_status feed_series(apo_stream *s, size_t r, size_t m, size_t at,
                              const double *const *inputs, double *const *outputs) {
    const apo__kernel *k = s->kernel;
    apo__stream_series *se = &s->series[r];
    while (m > 0) {
        uint64_t start = se->n - se->n % s->tile;
        size_t done = (size_t)(se->n - start);
        size_t take = s->tile - done < m ? s->tile - done : m;
        size_t kept = apo__stream_kept(s, se->n);
        for (size_t i = 0; i < k->n_inputs; i++)
            memcpy(se->in + i * se->cap + kept, inputs[i] + at, take * sizeof(double));
        APO_CHECK(run_current_tile(s, r, se->n + take));
        for (size_t o = 0; o < k->n_outputs; o++)
            memcpy(outputs[o] + at, s->scratch + o * s->scratch_cap + done, take * sizeof(double));
        uint64_t old_base = apo__stream_base(s, se->n);
        se->n += take;
        at += take;
        m -= take;
        /* A full tile: the next one reads only the last `halo` bars of it. */
        size_t drop = (size_t)(apo__stream_base(s, se->n) - old_base);
        size_t left = kept + take - drop;
        if (drop > 0)
            for (size_t i = 0; i < k->n_inputs; i++)
                memmove(se->in + i * se->cap, se->in + i * se->cap + drop, left * sizeof(double));
    }
    return APO_OK;
}

apo_status apo__stream_feed(apo_stream *s, const size_t *n_new, const double *const *inputs,
                            double *const *outputs) {
    /* Every allocation first, so that a failure leaves every series where it was. */
    size_t widest = 0;
    for (size_t r = 0; r < s->n_series; r++) {
        if (n_new[r] == 0)
            continue;
        size_t kept = apo__stream_kept(s, s->series[r].n);
        size_t most = s->halo + s->tile;
        size_t need = n_new[r] < most - kept ? kept + n_new[r] : most;
        APO_CHECK(apo__stream_reserve(s, r, need));
        size_t done = (size_t)(s->series[r].n % s->tile);
        size_t span = n_new[r] < s->tile - done ? done + n_new[r] : s->tile;
        widest = span > widest ? span : widest;
    }
    APO_CHECK(reserve_scratch(s, widest));
    size_t at = 0;
    for (size_t r = 0; r < s->n_series; r++) {
        apo_status st = feed_series(s, r, n_new[r], at, inputs, outputs);
        if (st != APO_OK) {
            s->broken = 1;
            return st;
        }
        at += n_new[r];
    }
    return APO_OK;
}

void apo__stream_free(apo_stream *s) {
    if (s == NULL)
        return;
    for (size_t r = 0; r < s->n_series; r++)
        free(s->series[r].in);
    free(s->series);
    free(s->scratch);
    free(s);
}
