/*
 * A stream's large updates on the runtime's devices (docs/streaming.md, "Large updates"): the
 * series of an update that bring a whole tile or more, when they bring device_bars new bars
 * or more together, go to apo_distribute_workload() as one ragged batch call, which splits
 * them across the devices by measured speed like any call; the rest of the update stays on
 * the calling thread.
 *
 * Why the bits are the stream's: the batch's outputs are a pure function of the tile grid,
 * each tile reading its inputs from its start less the halo. Series r, at n bars, needs
 * positions from base = (n's tile start) - halo on, and the stream keeps exactly those. Its
 * row in the batch call starts at R, a multiple of the tile length L at or before base
 * (position 0 when the stream still keeps the whole history), so the row's tiles are the
 * series' own tiles; positions [R, base), which no tile from n's on reads, hold NaN. R is
 * taken at least halo + 1 bars before n's tile so that this tile, in the row as in the
 * series, starts past the halo and warms up from its inputs rather than from the series'
 * start. The tiles before n's tile compute throw-away values, at most about halo + L bars a
 * series; the outputs from n on are copied out. Only built-in kernels go (their tiles see
 * positions relative to the row; a user kernel may look at absolute ones), and of those not
 * obv and ad, whose running sum no row starting late can carry.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "core/stream_devices.h"
#include "streaming/stream.h"

/* Input doubles per batch call, per input: larger updates go in several calls, so that the
 * padded rows (every row is the longest one's stride) stay a bounded copy. */
#define APO_STREAM_BATCH_DOUBLES ((size_t)1 << 24)

/* The first position of series r's row: a tile boundary at least halo + 1 bars before the
 * tile that holds the series' next bar, or 0 while the stream keeps the whole history. */
static uint64_t row_first(const apo_stream *s, uint64_t n) {
    const uint64_t base = apo__stream_base(s, n);
    return base == 0 ? 0 : (base - 1) / s->tile * s->tile;
}

static size_t row_len(const apo_stream *s, size_t r, const size_t *n_new) {
    const uint64_t n = s->series[r].n;
    return (size_t)(n + n_new[r] - row_first(s, n));
}

/* Whether series r goes to the devices: a whole tile or more of new bars. */
static int takes(const apo_stream *s, size_t r, const size_t *n_new) { return n_new[r] >= s->tile; }

/*
 * One batch call over the series [r0, r1) that `takes`, rows of `cols` (the longest row):
 * rows built, the call run, and only when it succeeds the new outputs copied to the caller
 * (offsets at[r] into its packed arrays) and each series advanced.
 */
static apo_status run_batch(apo_stream *s, const size_t *n_new, const size_t *at, size_t r0,
                            size_t r1, size_t rows, size_t cols, const double *const *inputs,
                            double *const *outputs, unsigned char *done) {
    const apo__kernel *k = s->kernel;
    const size_t n_in = k->n_inputs, n_out = k->n_outputs, cells = rows * cols;
    double *in_buf = malloc(n_in * cells * sizeof *in_buf);
    double *out_buf = malloc(n_out * cells * sizeof *out_buf);
    size_t *lengths = malloc(rows * sizeof *lengths);
    size_t *series = malloc(rows * sizeof *series);
    if (in_buf == NULL || out_buf == NULL || lengths == NULL || series == NULL) {
        free(in_buf), free(out_buf), free(lengths), free(series);
        return apo__fail(APO_ERR_OUT_OF_MEMORY,
                         "apo_stream_update: no memory for a batch of %zu series of %zu bars", rows,
                         cols);
    }
    const double *in[APO_MAX_IO];
    double *out[APO_MAX_IO];
    for (size_t i = 0; i < n_in; i++)
        in[i] = in_buf + i * cells;
    for (size_t o = 0; o < n_out; o++)
        out[o] = out_buf + o * cells;

    size_t row = 0;
    for (size_t r = r0; r < r1; r++) {
        if (!takes(s, r, n_new))
            continue;
        const apo__stream_series *se = &s->series[r];
        const uint64_t first = row_first(s, se->n), base = apo__stream_base(s, se->n);
        const size_t pad = (size_t)(base - first), kept = apo__stream_kept(s, se->n);
        for (size_t i = 0; i < n_in; i++) {
            double *dst = in_buf + i * cells + row * cols;
            for (size_t t = 0; t < pad; t++)
                dst[t] = NAN;
            memcpy(dst + pad, se->in + i * se->cap, kept * sizeof *dst);
            memcpy(dst + pad + kept, inputs[i] + at[r], n_new[r] * sizeof *dst);
        }
        lengths[row] = pad + kept + n_new[r];
        series[row++] = r;
    }

    apo_param params[APO_MAX_PARAMS];
    for (size_t p = 0; p < k->n_params; p++)
        params[p] = (apo_param){k->params[p].name, s->params[p]};
    apo_workload w = APO_WORKLOAD_INIT;
    w.kernel = k->name;
    w.rows = rows;
    w.cols = cols;
    w.inputs = in;
    w.n_inputs = n_in;
    w.outputs = out;
    w.n_outputs = n_out;
    w.params = params;
    w.n_params = k->n_params;
    w.seed = s->seed;
    /* Rows of one length (series fed alike, at the same place of a tile) go as a plain call:
     * a ragged call resolves each row into a call of its own (docs/api.md, "Ragged rows"),
     * which for many rows of a few tiles costs more than the rows. */
    int uniform = 1;
    for (size_t j = 0; j < rows; j++)
        uniform &= lengths[j] == cols;
    w.row_lengths = uniform ? NULL : lengths;
    apo_status st = apo_distribute_workload(s->rt, &w, NULL);
    if (st == APO_OK) {
        for (size_t j = 0; j < rows; j++) {
            const size_t r = series[j];
            const uint64_t first = row_first(s, s->series[r].n);
            const size_t from = (size_t)(s->series[r].n - first);
            for (size_t o = 0; o < n_out; o++)
                memcpy(outputs[o] + at[r], out_buf + o * cells + j * cols + from,
                       n_new[r] * sizeof(double));
            const double *row_in[APO_MAX_IO];
            for (size_t i = 0; i < n_in; i++)
                row_in[i] = in_buf + i * cells + j * cols;
            apo__stream_advance(s, r, n_new[r], row_in, first);
            done[r] = 1;
        }
    }
    free(in_buf), free(out_buf), free(lengths), free(series);
    return st;
}

int apo__stream_runtime_has_others(const apo_runtime *rt) {
    size_t n = 0;
    if (apo_device_count(rt, &n) != APO_OK)
        return 0;
    for (size_t d = 0; d < n; d++) {
        apo_device_info info = APO_DEVICE_INFO_INIT;
        if (apo_device_get(rt, d, &info) == APO_OK && info.kind != APO_DEVICE_CPU)
            return 1;
    }
    return 0;
}

apo_status apo__stream_on_devices(apo_stream *s, const size_t *n_new, const double *const *inputs,
                                  double *const *outputs, unsigned char *done) {
    /* A carried run (obv, ad: catalog/kernel.h, resume_carries) has no kept bars to build
     * a row from, and a row starting at a tile boundary with NaN before it would restart
     * the sum there: its series stay on the calling thread, which costs them their new
     * bars only. */
    if (s->rt == NULL || !s->kernel->builtin || apo__stream_carry_len(s->kernel) > 0)
        return APO_OK;
    size_t bars = 0;
    for (size_t r = 0; r < s->n_series; r++)
        if (takes(s, r, n_new))
            bars += n_new[r];
    if (bars == 0 || bars < s->device_bars)
        return APO_OK;
    size_t *at = malloc(s->n_series * sizeof *at);
    if (at == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream_update: no memory for %zu series",
                         s->n_series);
    for (size_t r = 0, a = 0; r < s->n_series; r++) {
        at[r] = a;
        a += n_new[r];
    }
    /* Consecutive series in calls of at most APO_STREAM_BATCH_DOUBLES cells per input (one
     * series longer than that goes alone). A call that fails leaves its series and every
     * later one unfed, and the update stops there: nothing was written for them. */
    apo_status st = APO_OK;
    size_t r0 = 0;
    while (r0 < s->n_series && st == APO_OK) {
        size_t rows = 0, cols = 0, r1 = r0;
        for (; r1 < s->n_series; r1++) {
            if (!takes(s, r1, n_new))
                continue;
            const size_t len = row_len(s, r1, n_new);
            const size_t wider = len > cols ? len : cols;
            if (rows > 0 && (rows + 1) > APO_STREAM_BATCH_DOUBLES / wider)
                break;
            rows++;
            cols = wider;
        }
        if (rows > 0)
            st = run_batch(s, n_new, at, r0, r1, rows, cols, inputs, outputs, done);
        r0 = r1;
    }
    free(at);
    return st;
}
