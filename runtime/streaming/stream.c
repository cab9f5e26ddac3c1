/* A stream's series and its updates; see stream.h. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "catalog/call_span.h"
#include "cpu_isa.h"
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
    /* A whole-row kernel streams only by carrying its run (obv, ad: kernel.h,
     * resume_carries); any other would need the whole history kept. */
    if (apo__kernel_whole_row_input(k, params) && apo__stream_carry_len(k) == 0)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_stream_create: %s reads whole series, so its state would grow "
                         "with the history; streams keep a bounded window",
                         k->name);
    if (k->stream_check != NULL) {
        char err[256] = "";
        apo_status st = k->stream_check(k, params, err, sizeof err);
        if (st != APO_OK)
            return apo__fail(st, "apo_stream_create: %s", err);
    }
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

size_t apo__stream_carry_len(const apo__kernel *k) {
    if (!k->resume_carries || k->resume_tile == NULL || k->resume_size == NULL)
        return 0;
    return k->resume_size(k) / sizeof(double);
}

apo_status apo__stream_new(const apo__kernel *k, const double *params, size_t n_series,
                           uint64_t seed, size_t revise, apo_stream **out) {
    apo_stream *s = calloc(1, sizeof *s);
    if (s == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream: no memory for the stream");
    s->series = calloc(n_series, sizeof *s->series);
    if (s->series == NULL) {
        free(s);
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream: no memory for %zu series", n_series);
    }
    if (k->resume_tile != NULL && k->resume_size(k) > 0) {
        /* Each series' state starts a cache line, so that the lines a one-bar update reads
         * are as few as the state's layout allows (macd: one; kernel.h, resume_hot_size),
         * which is what a cold update waits for. Zeros: no state, and a carried run's state
         * before the series' first bar. */
        s->resume_stride =
            (k->resume_size(k) + APO_STREAM_LINE - 1) / APO_STREAM_LINE * APO_STREAM_LINE;
        s->resume_hot = k->resume_hot_size != NULL ? k->resume_hot_size(k) : s->resume_stride;
        s->resume = n_series <= SIZE_MAX / s->resume_stride
                        ? aligned_alloc(APO_STREAM_LINE, n_series * s->resume_stride)
                        : NULL;
        if (s->resume != NULL)
            memset(s->resume, 0, n_series * s->resume_stride);
        /* A carried run's state K bars back, for revises: zeros, the state before bar 0. */
        if (s->resume != NULL && revise > 0 && apo__stream_carry_len(k) > 0)
            s->carry_base = calloc(n_series, s->resume_stride);
        if (s->resume == NULL ||
            (revise > 0 && apo__stream_carry_len(k) > 0 && s->carry_base == NULL)) {
            free(s->resume);
            free(s->series);
            free(s);
            return apo__fail(APO_ERR_OUT_OF_MEMORY,
                             "apo_stream: no memory for the running state of %zu series", n_series);
        }
    }
    for (size_t r = 0; r < n_series; r++)
        s->series[r].resume_at = APO_STREAM_NO_RESUME;
    s->kernel = k;
    memcpy(s->params, params, sizeof s->params);
    s->seed = seed;
    s->n_series = n_series;
    s->revise = revise;
    s->tile = k->tile_len(k, params);
    s->halo = apo__kernel_halo(k, params);
    s->carried = apo__stream_carry_len(k);
    *out = s;
    return APO_OK;
}

/* A pointer that indexes like an array starting at position `first` of a series: element t
 * of the view is block[t - first]. The kernels mark and read positions by their absolute
 * index (a window's first full position, a recurrence's seed), so they must see them; the
 * CUDA backend's chunks are biased the same way (catalog/kernel.h). */
static double *biased(double *block, uint64_t first) {
    return (double *)((uintptr_t)block - (uintptr_t)first * sizeof(double));
}

/* The same for an array the kernel only reads (the caller's inputs). */
static const double *biased_in(const double *block, uint64_t first) {
    return (const double *)((uintptr_t)block - (uintptr_t)first * sizeof(double));
}

/* The call a stream hands its kernel: one row of `cols` bars (a ragged row's call: rows 1,
 * row 0), on views that index positions from the series' first bar. Its tile grid is left
 * unset (apo__call_grid): resume_tile needs none, and it costs macd two logarithms, which
 * would be most of a one-bar update. */
static void stream_call(const apo_stream *s, apo__call *call, const double **inputs,
                        double **outputs, uint64_t cols) {
    memset(call, 0, sizeof *call);
    call->kernel = s->kernel;
    call->rows = 1;
    call->cols = (size_t)cols;
    call->inputs = inputs;
    call->outputs = outputs;
    memcpy(call->params, s->params, sizeof call->params);
    call->seed = s->seed;
    /* Host arrays, and no runtime call is running (no ctx->rt): a user kernel may call into
     * its runtime from a stream's update, which holds none of the runtime's locks. */
    call->ctx = &apo__call_ctx_host;
}

static apo_status kernel_failed(const apo_stream *s, apo_status st, size_t r, uint64_t from,
                                uint64_t to) {
    return apo__fail(APO_ERR_KERNEL_FAILED,
                     "apo_stream: kernel %s failed with %s on series %zu, bars %llu to %llu; "
                     "the update was undone, the stream is as it was before it",
                     s->kernel->name, apo_status_name(st), r, (unsigned long long)from,
                     (unsigned long long)to);
}

/*
 * The call every series of one update hands a resuming kernel alike (stream_call), made once
 * an update rather than once a series: its inputs and outputs point at `in` and `out`, which
 * each series' piece fills with its own views, as it sets `cols`. It carries the stream's
 * tile length and halo (apo__call.known_tile), which a catalog kernel would otherwise work
 * out again from its parameters at every series, logarithms included.
 */
typedef struct feed_call {
    apo__call call;
    const double *in[APO_MAX_IO];
    double *out[APO_MAX_IO];
} feed_call;

static void feed_call_init(const apo_stream *s, feed_call *fc) {
    memset(fc->in, 0, sizeof fc->in);
    memset(fc->out, 0, sizeof fc->out);
    stream_call(s, &fc->call, fc->in, fc->out, 0);
    fc->call.known_tile = s->tile;
    fc->call.known_halo = s->halo;
}

/* Steps a carried run's `state` over m bars from position `first`: inputs in[i][at ..
 * at + m), outputs out[o][at .. at + m) (feed_carried's run, on views that index positions
 * from the series' first bar). */
static void run_carried(const apo_stream *s, unsigned char *state, const double *const *in,
                        double *const *out, size_t at, uint64_t first, size_t m, feed_call *fc) {
    const apo__kernel *k = s->kernel;
    for (size_t i = 0; i < k->n_inputs; i++)
        fc->in[i] = biased_in(in[i] + at, first);
    for (size_t o = 0; o < k->n_outputs; o++)
        fc->out[o] = biased(out[o] + at, first);
    fc->call.cols = (size_t)(first + m);
    (void)k->resume_tile(&fc->call, state, 0, (size_t)first, (size_t)(first + m));
}

/* Where series of n bars stands: its current tile's start, and the first bar it keeps
 * (apo__stream_base, taken from the start where the stream keeps no bars for revises, so
 * that a one-bar update of a series divides once). Not for a carried run. */
static void series_place(const apo_stream *s, uint64_t n, uint64_t *start, uint64_t *base) {
    *start = n - n % s->tile;
    *base = s->revise > 0 ? apo__stream_base(s, n) : *start > s->halo ? *start - s->halo : 0;
}

/* The batch's tile of series `r`, from its start `start` to position `end`, its kept bars
 * from `base` on. */
static apo_status run_current_tile(apo_stream *s, size_t r, uint64_t start, uint64_t base,
                                   uint64_t end, feed_call *fc) {
    const apo__kernel *k = s->kernel;
    apo__stream_series *se = &s->series[r];
    if (s->resume != NULL) {
        for (size_t i = 0; i < k->n_inputs; i++)
            fc->in[i] = biased(se->in + i * se->cap, base);
        for (size_t o = 0; o < k->n_outputs; o++)
            fc->out[o] = biased(s->scratch + o * s->scratch_cap, start);
        fc->call.cols = (size_t)end;
        /* Goes on from the series' state where it stands at se->n in this tile; a new tile,
         * or no state, starts from the tile's start (the bits are the same either way). */
        unsigned char *state = s->resume + r * s->resume_stride;
        if (se->resume_at != se->n)
            memset(state, 0, s->resume_stride); /* what resume_tile takes as "nothing" */
        const int fresh = se->resume_at != se->n || se->n == start;
        const int goes_on = k->resume_tile(&fc->call, state, fresh, (size_t)start, (size_t)end);
        se->resume_at = goes_on ? end : APO_STREAM_NO_RESUME;
        return APO_OK;
    }
    /* A kernel that does not resume (a user kernel's tile function) gets a call of its own,
     * its grid set, as the batch gives it. */
    const double *inputs[APO_MAX_IO] = {0};
    double *outputs[APO_MAX_IO] = {0};
    for (size_t i = 0; i < k->n_inputs; i++)
        inputs[i] = biased(se->in + i * se->cap, base);
    for (size_t o = 0; o < k->n_outputs; o++)
        outputs[o] = biased(s->scratch + o * s->scratch_cap, start);
    apo__call call;
    stream_call(s, &call, inputs, outputs, end);
    apo__call_grid(&call);
    apo_status st = k->run_tile(&call, 0, (size_t)start, (size_t)end, NULL);
    return st == APO_OK ? APO_OK : kernel_failed(s, st, r, start, end);
}

apo_status apo__stream_rerun(apo_stream *s, size_t r, uint64_t from, double *const *outputs,
                             size_t at) {
    const apo__kernel *k = s->kernel;
    apo__stream_series *se = &s->series[r];
    const uint64_t n = se->n, base = apo__stream_base(s, n);
    if (s->carried > 0) {
        /* The run from its state K bars back over the kept bars, the revised ones among them. */
        feed_call fc;
        feed_call_init(s, &fc);
        unsigned char *live = s->resume + r * s->resume_stride;
        memcpy(live, s->carry_base + r * s->resume_stride, s->resume_stride);
        const double *in[APO_MAX_IO];
        double *out[APO_MAX_IO];
        for (size_t i = 0; i < k->n_inputs; i++)
            in[i] = se->in + i * se->cap;
        for (size_t o = 0; o < k->n_outputs; o++)
            out[o] = s->scratch + o * s->scratch_cap;
        run_carried(s, live, in, out, 0, base, (size_t)(n - base), &fc);
        for (size_t o = 0; o < k->n_outputs; o++)
            memcpy(outputs[o] + at, out[o] + (from - base), (size_t)(n - from) * sizeof(double));
        return APO_OK;
    }
    assert(from <= n && from - from % s->tile >= base + (base > 0 ? s->halo : 0));
    const double *inputs[APO_MAX_IO] = {0};
    for (size_t i = 0; i < k->n_inputs; i++)
        inputs[i] = biased(se->in + i * se->cap, base);
    /* Each tile the positions meet, from its start: the batch's computation of it, the
     * kernel's state restarted there, stopped at n where n falls inside it. */
    se->resume_at = APO_STREAM_NO_RESUME;
    for (uint64_t start = from - from % s->tile; start < n; start += s->tile) {
        const uint64_t end = n - start < s->tile ? n : start + s->tile;
        double *out[APO_MAX_IO] = {0};
        for (size_t o = 0; o < k->n_outputs; o++)
            out[o] = biased(s->scratch + o * s->scratch_cap, start);
        apo__call call;
        stream_call(s, &call, inputs, out, end);
        if (s->resume != NULL) {
            unsigned char *state = s->resume + r * s->resume_stride;
            memset(state, 0, s->resume_stride); /* "nothing": a run from the tile's start */
            (void)k->resume_tile(&call, state, 1, (size_t)start, (size_t)end);
        } else {
            apo__call_grid(&call);
            apo_status st = k->run_tile(&call, 0, (size_t)start, (size_t)end, NULL);
            if (st != APO_OK)
                return kernel_failed(s, st, r, start, end);
        }
        const uint64_t lo = from > start ? from : start;
        for (size_t o = 0; o < k->n_outputs; o++)
            memcpy(outputs[o] + at + (lo - from), s->scratch + o * s->scratch_cap + (lo - start),
                   (size_t)(end - lo) * sizeof(double));
    }
    return APO_OK;
}

/*
 * Feeds `tiles` whole tiles of series r from a tile boundary (the series at se->n, its kept
 * bars the halo before it), through the kernel's run_tiles: the tiles side by side in the
 * lanes of a vector, each with the bits of its run_tile (catalog/kernel.h), written straight
 * into the caller's outputs at `at`. So a long update costs about what the batch costs for
 * its bars. Any vector path gives the same bits; the stream takes its runtime's (cpu_isa).
 */
static apo_status feed_whole_tiles(apo_stream *s, size_t r, size_t tiles, size_t at,
                                   const double *const *inputs, double *const *outputs) {
    const apo__kernel *k = s->kernel;
    apo__stream_series *se = &s->series[r];
    const size_t bars = tiles * s->tile;
    const uint64_t base = apo__stream_base(s, se->n);
    const size_t kept = apo__stream_kept(s, se->n), len = kept + bars;
    const double *in[APO_MAX_IO] = {0};
    double *out[APO_MAX_IO] = {0};
    for (size_t i = 0; i < k->n_inputs; i++) {
        double *b = s->bulk + i * s->bulk_cap;
        memcpy(b, se->in + i * se->cap, kept * sizeof *b);
        memcpy(b + kept, inputs[i] + at, bars * sizeof *b);
        in[i] = biased(b, base);
    }
    for (size_t o = 0; o < k->n_outputs; o++)
        out[o] = biased(outputs[o] + at, se->n);
    apo__call call;
    stream_call(s, &call, in, out, se->n + bars);
    apo__call_grid(&call);
    const uint64_t first = se->n / s->tile;
    /* The runtime's host path as its cpu device takes it: the one APPORTION_CPU_ISA named,
     * else the kernel's faster one (kernel.h, path); every path gives the same bits. */
    const int widest = s->cpu_isa != APO_CPU_ISA_AUTO ? s->cpu_isa : (int)apo__cpu_isa_best();
    const int isa = apo__kernel_path(&call, widest, s->cpu_isa_named);
    apo_status st = k->run_tiles(&call, first, first + tiles, isa, NULL, 0);
    if (st != APO_OK)
        return kernel_failed(s, st, r, se->n, se->n + bars);
    se->n += bars;
    /* The next tile reads the last halo bars of these, as a kept window. */
    const size_t keep = apo__stream_kept(s, se->n);
    for (size_t i = 0; i < k->n_inputs; i++)
        memcpy(se->in + i * se->cap, s->bulk + i * s->bulk_cap + len - keep, keep * sizeof(double));
    se->resume_at = APO_STREAM_NO_RESUME;
    return APO_OK;
}

/* feed_carried's part for a stream that keeps its last K bars for revises: the run goes on
 * over the new bars as without them, the state K bars back takes the kept bars that leave
 * (the scratch takes their outputs, given before), and the last K bars are kept. */
static void feed_carried_kept(apo_stream *s, size_t r, size_t m, size_t at,
                              const double *const *inputs, double *const *outputs, feed_call *fc) {
    const size_t n_in = s->kernel->n_inputs, n_out = s->kernel->n_outputs, K = s->revise;
    apo__stream_series *se = &s->series[r];
    const uint64_t n0 = se->n;
    const size_t kept = (size_t)(n0 - apo__stream_base(s, n0));
    unsigned char *live = s->resume + r * s->resume_stride,
                  *base = s->carry_base + r * s->resume_stride;
    if (m >= K) {
        /* The state K bars back is the run's own at bar n0 + m - K. */
        if (m > K)
            run_carried(s, live, inputs, outputs, at, n0, m - K, fc);
        memcpy(base, live, s->resume_stride);
        run_carried(s, live, inputs, outputs, at + m - K, n0 + m - K, K, fc);
        for (size_t i = 0; i < n_in; i++)
            memcpy(se->in + i * se->cap, inputs[i] + at + m - K, K * sizeof(double));
    } else {
        const size_t leave = kept + m > K ? kept + m - K : 0;
        const double *in[APO_MAX_IO];
        double *out[APO_MAX_IO];
        for (size_t i = 0; i < n_in; i++)
            in[i] = se->in + i * se->cap;
        for (size_t o = 0; o < n_out; o++)
            out[o] = s->scratch + o * s->scratch_cap;
        if (leave > 0)
            run_carried(s, base, in, out, 0, n0 - kept, leave, fc);
        run_carried(s, live, inputs, outputs, at, n0, m, fc);
        for (size_t i = 0; i < n_in; i++) {
            double *w = se->in + i * se->cap;
            memmove(w, w + leave, (kept - leave) * sizeof *w);
            memcpy(w + kept - leave, inputs[i] + at, m * sizeof *w);
        }
    }
    se->n += m;
}

/*
 * Feeds m bars of series r of a kernel whose run carries across tiles (kernel.h,
 * resume_carries: obv, ad), straight from and into the caller's packed arrays at `at`. The
 * batch's output t of such a kernel is one fixed sequence of operations over bars 0 .. t
 * (its tiles re-run the sum from the row's first bar, never restarting it), so the state
 * the last update left at bar se->n, stepped over the new bars, performs exactly that
 * sequence: the bits are the batch's, wherever its tiles or this update's bounds fall. So
 * the state is never reset at a tile boundary (that would be another indicator), and no
 * bar is kept: the new ones are all the run reads (but the last K of a stream that keeps them
 * for revises, feed_carried_kept).
 */
static void feed_carried(apo_stream *s, size_t r, size_t m, size_t at, const double *const *inputs,
                         double *const *outputs, feed_call *fc) {
    apo__stream_series *se = &s->series[r];
    if (m == 0)
        return;
    if (s->revise > 0) {
        feed_carried_kept(s, r, m, at, inputs, outputs, fc);
        return;
    }
    run_carried(s, s->resume + r * s->resume_stride, inputs, outputs, at, se->n, m, fc);
    se->n += m;
}

/* Copies `n` doubles: a one-bar update's single value without a call into libc, which a
 * one-bar update of thousands of series would make per input and output of each. */
static void copy_bars(double *to, const double *from, size_t n) {
    if (n == 1)
        *to = *from;
    else
        memcpy(to, from, n * sizeof *to);
}

/* Feeds m bars of series r, read from and written to offset `at` of the packed arrays, one
 * piece per tile met. */
static apo_status feed_series(apo_stream *s, size_t r, size_t m, size_t at,
                              const double *const *inputs, double *const *outputs, feed_call *fc) {
    const apo__kernel *k = s->kernel;
    apo__stream_series *se = &s->series[r];
    if (s->carried > 0) {
        feed_carried(s, r, m, at, inputs, outputs, fc);
        return APO_OK;
    }
    while (m > 0) {
        uint64_t start, base;
        series_place(s, se->n, &start, &base);
        size_t done = (size_t)(se->n - start);
        if (done == 0 && m >= s->tile && k->run_tiles != NULL) {
            size_t tiles =
                m / s->tile < APO_STREAM_BULK_TILES ? m / s->tile : APO_STREAM_BULK_TILES;
            APO_CHECK(feed_whole_tiles(s, r, tiles, at, inputs, outputs));
            at += tiles * s->tile;
            m -= tiles * s->tile;
            continue;
        }
        size_t take = s->tile - done < m ? s->tile - done : m;
        size_t kept = (size_t)(se->n - base);
        for (size_t i = 0; i < k->n_inputs; i++)
            copy_bars(se->in + i * se->cap + kept, inputs[i] + at, take);
        APO_CHECK(run_current_tile(s, r, start, base, se->n + take, fc));
        for (size_t o = 0; o < k->n_outputs; o++)
            copy_bars(outputs[o] + at, s->scratch + o * s->scratch_cap + done, take);
        se->n += take;
        at += take;
        m -= take;
        /* A full tile: the next one reads only the last `halo` bars of it. Without revises
         * the first bar kept moves only then. */
        const int moves = s->revise > 0 || done + take == s->tile;
        size_t drop = moves ? (size_t)(apo__stream_base(s, se->n) - base) : 0;
        size_t left = kept + take - drop;
        if (drop > 0)
            for (size_t i = 0; i < k->n_inputs; i++)
                memmove(se->in + i * se->cap, se->in + i * se->cap + drop, left * sizeof(double));
    }
    return APO_OK;
}

void apo__stream_free_sets(apo_stream **sets, size_t n_sets) {
    for (size_t j = 0; sets != NULL && j < n_sets; j++)
        apo__stream_free(sets[j]);
    free(sets);
}

apo_status apo__stream_sweep_of(apo_stream **sets, size_t n_sets, apo_stream **out) {
    apo_stream *s = calloc(1, sizeof *s);
    if (s == NULL) {
        apo__stream_free_sets(sets, n_sets);
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream: no memory for the sweep's stream");
    }
    s->kernel = sets[0]->kernel;
    memcpy(s->params, sets[0]->params, sizeof s->params);
    s->seed = sets[0]->seed;
    s->n_series = sets[0]->n_series;
    s->tile = sets[0]->tile;
    s->halo = sets[0]->halo;
    s->carried = sets[0]->carried;
    s->n_sets = n_sets;
    s->sets = sets;
    *out = s;
    return APO_OK;
}

void apo__stream_advance(apo_stream *s, size_t r, size_t m, const double *const *row,
                         uint64_t first) {
    apo__stream_series *se = &s->series[r];
    se->n += m;
    const uint64_t base = apo__stream_base(s, se->n);
    const size_t keep = apo__stream_kept(s, se->n);
    for (size_t i = 0; i < s->kernel->n_inputs; i++)
        memcpy(se->in + i * se->cap, row[i] + (base - first), keep * sizeof(double));
    se->resume_at = APO_STREAM_NO_RESUME;
}

/* Series ahead of the one being fed whose lines are asked for early (prefetch_series). */
#define APO_STREAM_PREFETCH_AHEAD 8
/* Where prefetch_series asks those lines to go: __builtin_prefetch's locality 1, the L2 cache
 * (x86's prefetcht2), not the L1. */
#define APO_STREAM_PREFETCH_TO 1
/* The most lines of an input's window asked for whole (APO_RESUME_READS_WINDOW). */
#define APO_STREAM_WINDOW_LINES 4

/*
 * Asks the memory for the lines series r's next bar touches, before it is fed: where its new
 * bar goes in each input's kept bars, what the kernel reads before it (apo__kernel.resume_reads:
 * the bar a window of halo + 1 lets go, nothing for a recurrence, or a short window's every
 * line), and the hot part of its running state. A live feed updates
 * thousands of series a minute apart, with other work between updates, so each series' lines have
 * left the caches, and fed one after another each series would wait for them in turn; asked for a
 * few series ahead, the waits overlap (docs/perf-log/2026-11-23-stream-updates.md, "Stream
 * updates": the cold rows). Only a hint: nothing is read here.
 *
 * The lines are asked into the L2 cache, not the L1 (APO_STREAM_PREFETCH_TO): a kernel whose
 * pieces go side by side takes eight series' bars in a few nanoseconds each and asks for
 * eight series' lines as fast, more misses than the L1 tracks at once, and a hint into the L1
 * then holds the core until one ends. A group update of 5,000 symbols x 10 indicators spent
 * 13.6% of its samples on these hints with cci's, mfi's, atr's and ema's lanes and was slower
 * than before them; with the hints into the L2, faster than before them in every round on the
 * Zen 4 VM (docs/perf-log/2026-12-06-zen4-cci-lanes.md).
 */
static void prefetch_series(const apo_stream *s, size_t r) {
#if defined(__GNUC__)
    /* A compiler barrier: the feed of the series before is not moved past these hints, nor
     * they before it. Inlined into feed_update without it, GCC 12 scheduled them among the
     * loads and stores of that feed, and a one-bar group update of 5,000 symbols x 10
     * indicators took 13 to 16 ms of CPU where it takes 8 to 10 with it
     * (docs/perf-log/2026-11-26-stream-latency-2.md). */
    __asm__ volatile("" ::: "memory");
    const apo__stream_series *se = &s->series[r];
    if (se->in != NULL) {
        const size_t kept = apo__stream_kept(s, se->n);
        const apo__resume_reads reads = s->kernel->resume_reads;
        /* A window read whole, if its lines are few; a longer one as a sliding window. */
        const int whole = reads == APO_RESUME_READS_WINDOW &&
                          s->halo < APO_STREAM_WINDOW_LINES * APO_STREAM_LINE / sizeof(double);
        for (size_t i = 0; i < s->kernel->n_inputs; i++) {
            const double *next = se->in + i * se->cap + kept;
            __builtin_prefetch(next, 1, APO_STREAM_PREFETCH_TO);
            if (reads == APO_RESUME_READS_NEW_ONLY || kept <= s->halo)
                continue;
            if (whole)
                for (size_t b = 0; b < s->halo; b += APO_STREAM_LINE / sizeof(double))
                    __builtin_prefetch(next - s->halo + b, 0, APO_STREAM_PREFETCH_TO);
            else
                __builtin_prefetch(next - s->halo - 1, 0, APO_STREAM_PREFETCH_TO);
        }
    }
    /* Only the lines a piece within a tile reads (kernel.h, resume_hot_size): asking for
     * the others too would queue misses the update never waits for ahead of those it does. */
    if (s->resume != NULL)
        for (size_t b = 0; b < s->resume_hot; b += APO_STREAM_LINE)
            __builtin_prefetch(s->resume + r * s->resume_stride + b, 1, APO_STREAM_PREFETCH_TO);
#else
    (void)s, (void)r;
#endif
}

/*
 * Asks the memory for the packed new bars of the series whose bars start at `at` (the
 * caller's arrays, read once an update). A one-bar update of thousands of series reads each
 * input's array straight through, but one line of it a few series' feeds apart, too sparse
 * for the hardware's prefetch to lead; asked a few series ahead, a multi-input kernel's
 * update waited less (stoch, atr and mfi alone 10 to 33% faster at 5,000 series, cci 2%:
 * docs/perf-log/2026-12-05-xeon-stream-cache-sets.md). Only a hint.
 */
static void prefetch_packed(const apo_stream *s, const double *const *inputs, size_t at) {
#if defined(__GNUC__)
    __asm__ volatile("" ::: "memory"); /* as in prefetch_series */
    for (size_t i = 0; i < s->kernel->n_inputs; i++)
        __builtin_prefetch(inputs[i] + at, 0);
#else
    (void)s, (void)inputs, (void)at;
#endif
}

/* Series whose one-bar pieces wait to go to the kernel's resume_lanes together (kernel.h),
 * and which series each lane is. */
typedef struct lane_batch {
    apo__resume_lanes lanes;
    size_t series[APO_RESUME_LANES];
    int isa; /* the host path the stream takes (APPORTION_CPU_ISA's, else the widest) */
} lane_batch;

/* Whether series r's m new bars are a piece that resume_lanes takes beside other series' in
 * a stream whose kernel has them (feed_range): one bar, neither the first of its tile (which
 * starts the tile's state) nor the last (after which the kept bars move), its state going on
 * from where it stands. */
static int lane_piece(const apo_stream *s, size_t r, size_t m) {
    const apo__stream_series *se = &s->series[r];
    if (m != 1 || se->resume_at != se->n)
        return 0;
    const uint64_t done = se->n % s->tile;
    return done != 0 && done + 1 < s->tile;
}

/* Takes series r's new bar (at offset `at` of the packed arrays) into its kept bars and its
 * piece into the batch, its outputs written by the kernel straight into the caller's arrays:
 * what feed_series does before run_current_tile. */
static void lane_add(apo_stream *s, lane_batch *b, size_t r, size_t at, const double *const *inputs,
                     double *const *outputs) {
    const apo__kernel *k = s->kernel;
    apo__stream_series *se = &s->series[r];
    uint64_t start, base;
    series_place(s, se->n, &start, &base);
    const size_t kept = (size_t)(se->n - base), l = b->lanes.n++;
    for (size_t i = 0; i < k->n_inputs; i++) {
        se->in[i * se->cap + kept] = inputs[i][at];
        b->lanes.in[l][i] = biased(se->in + i * se->cap, base);
    }
    for (size_t o = 0; o < k->n_outputs; o++)
        b->lanes.out[l][o] = biased(outputs[o] + at, se->n);
    b->lanes.state[l] = s->resume + r * s->resume_stride;
    b->lanes.tile[l] = (size_t)start;
    b->lanes.stop[l] = (size_t)se->n + 1;
    b->series[l] = r;
}

/* The batch's pieces, through the kernel's resume_lanes; each series then stands a bar on,
 * its state going on there. */
static void lane_flush(apo_stream *s, lane_batch *b, const apo__call *call) {
    if (b->lanes.n == 0)
        return;
    s->kernel->resume_lanes(call, &b->lanes, b->isa);
    for (size_t l = 0; l < b->lanes.n; l++) {
        apo__stream_series *se = &s->series[b->series[l]];
        se->n++;
        se->resume_at = se->n;
    }
    b->lanes.n = 0;
}

/* Asks the memory for what series r + APO_STREAM_PREFETCH_AHEAD's update reads (feed_range):
 * its lines, and its packed new bars at *at_ahead, which moves past them. */
static void prefetch_ahead(const apo_stream *s, size_t r, const size_t *n_new,
                           const double *const *inputs, size_t *at_ahead, size_t *packed_next) {
    const size_t ahead = r + APO_STREAM_PREFETCH_AHEAD;
    if (ahead >= s->n_series || n_new[ahead] == 0)
        return;
    prefetch_series(s, ahead);
    /* Once a line's worth of bars (every line of a one-bar update's arrays); a kernel of one
     * input reads one array, whose lines the hardware leads well. */
    if (s->kernel->n_inputs > 1 && *at_ahead >= *packed_next) {
        prefetch_packed(s, inputs, *at_ahead);
        *packed_next = *at_ahead + APO_STREAM_LINE / sizeof(double);
    }
    *at_ahead += n_new[ahead];
}

/* Feeds series [from, to) of a stream of one set on the calling thread, their room reserved,
 * series `from`'s bars at offset `at` of the packed arrays; those done[r] marks (the batch
 * hook fed them; done may be NULL) are skipped. The one-bar pieces that a kernel's
 * resume_lanes takes go to it APO_RESUME_LANES series at a time (lane_piece). */
static apo_status feed_range(apo_stream *s, const size_t *n_new, const double *const *inputs,
                             double *const *outputs, size_t from, size_t to, size_t at,
                             const unsigned char *done) {
    feed_call fc;
    feed_call_init(s, &fc);
    const int by_lanes =
        s->kernel->resume_lanes != NULL && s->resume != NULL && s->carried == 0 && s->revise == 0;
    lane_batch lanes;
    lanes.lanes.n = 0;
    lanes.isa = !by_lanes                        ? APO_CPU_ISA_SSE2
                : s->cpu_isa != APO_CPU_ISA_AUTO ? s->cpu_isa
                                                 : (int)apo__cpu_isa_best();
    /* Where series `ahead`'s new bars are in the packed arrays, and the position from which
     * the next of their lines is asked for. */
    size_t at_ahead = at, packed_next = 0;
    for (size_t r = from; r < s->n_series && r < from + APO_STREAM_PREFETCH_AHEAD; r++) {
        if (r < to)
            prefetch_series(s, r);
        at_ahead += n_new[r];
    }
    for (size_t r = from; r < to; r++) {
        prefetch_ahead(s, r, n_new, inputs, &at_ahead, &packed_next);
        apo_status st = APO_OK;
        if (done != NULL && done[r]) {
        } else if (by_lanes && lane_piece(s, r, n_new[r])) {
            lane_add(s, &lanes, r, at, inputs, outputs);
            if (lanes.lanes.n == APO_RESUME_LANES)
                lane_flush(s, &lanes, &fc.call);
        } else {
            st = feed_series(s, r, n_new[r], at, inputs, outputs, &fc);
        }
        if (st != APO_OK) {
            lane_flush(s, &lanes, &fc.call);
            s->broken = 1;
            return st;
        }
        at += n_new[r];
    }
    lane_flush(s, &lanes, &fc.call);
    return APO_OK;
}

apo_status apo__stream_feed_range(apo_stream *s, const size_t *n_new, const double *const *inputs,
                                  double *const *outputs, size_t from, size_t to, size_t at) {
    return feed_range(s, n_new, inputs, outputs, from, to, at, NULL);
}

/* Feeds every series of a stream of one set, its room reserved: with `on_devices`, those the
 * batch hook takes first (it changes no series unless it succeeds), then the others on this
 * thread. */
static apo_status feed_update(apo_stream *s, const size_t *n_new, const double *const *inputs,
                              double *const *outputs, int on_devices) {
    unsigned char *done = NULL;
    /* device_bars SIZE_MAX (the default where the cpu is the only device) hands nothing
     * over: skipping the hook spares a one-bar update an allocation and a pass over the
     * series (docs/perf-log/2026-11-26-stream-latency.md). */
    if (s->batch != NULL && on_devices && s->device_bars != SIZE_MAX) {
        done = calloc(s->n_series, 1);
        if (done == NULL)
            return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_stream: no memory for %zu series",
                             s->n_series);
        apo_status st = s->batch(s, n_new, inputs, outputs, done);
        if (st != APO_OK) {
            /* A batch that fed some series before one failed leaves the series apart. */
            for (size_t r = 0; r < s->n_series; r++)
                s->broken |= done[r];
            free(done);
            return st;
        }
    }
    apo_status st = feed_range(s, n_new, inputs, outputs, 0, s->n_series, 0, done);
    free(done);
    return st;
}

apo_status apo__stream_feed_set(apo_stream *s, const size_t *n_new, const double *const *inputs,
                                double *const *outputs, int on_devices) {
    return feed_update(s, n_new, inputs, outputs, on_devices);
}

void apo__stream_free(apo_stream *s) {
    if (s == NULL)
        return;
    apo__stream_free_sets(s->sets, s->n_sets);
    apo__stream_free_windows(s);
    free(s->series);
    free(s->scratch);
    free(s->resume);
    free(s->carry_base);
    free(s->bulk);
    free(s);
}
