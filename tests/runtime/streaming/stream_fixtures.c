/* What the stream tests share; see stream_fixtures.h. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "stream_fixtures.h"
#include "test_user_kernel.h"

#define TILE_EMA_HALO 40
#define TILE_EMA_TILE 500

uint64_t stream_rng(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *state) { return (double)(stream_rng(state) >> 11) * 0x1.0p-53; }

/* The recurrence restarts at each tile's start from `halo` samples before it, so its bits
 * depend on where the tiles begin; positions 0 to 2 are NaN by their absolute index. */
static apo_status tile_ema(const apo_kernel_call *call, void *user) {
    (void)user;
    const double *x = call->inputs[0] + call->row * call->cols;
    double *y = call->outputs[0] + call->row * call->cols;
    size_t from = call->begin > TILE_EMA_HALO ? call->begin - TILE_EMA_HALO : 0;
    double e = x[from];
    for (size_t t = from; t < call->end; t++) {
        e = e + (x[t] - e) / 8.0;
        if (t >= call->begin)
            y[t] = t < 3 ? NAN : e;
    }
    return APO_OK;
}

void stream_register_tile_ema(apo_runtime *rt) {
    apo_kernel_desc desc = test_user_kernel("tema_user", tile_ema, NULL, TILE_EMA_TILE);
    desc.halo = TILE_EMA_HALO;
    test_user_kernel_register(rt, &desc);
}

/* The sample plus its absolute position, halo 0: a view of the series that renumbered its
 * positions (from the kept window's start, say) would give other bits from the second tile
 * on, although the window holds every sample the kernel reads. */
static apo_status plus_position(const apo_kernel_call *call, void *user) {
    (void)user;
    const double *x = call->inputs[0] + call->row * call->cols;
    double *y = call->outputs[0] + call->row * call->cols;
    for (size_t t = call->begin; t < call->end; t++)
        y[t] = x[t] + (double)t;
    return APO_OK;
}

void stream_register_plus_position(apo_runtime *rt) {
    apo_kernel_desc desc = test_user_kernel("plus_position", plus_position, NULL, 300);
    test_user_kernel_register(rt, &desc);
}

/* One series' inputs by their names: a random walk as close, the bar's open, high and low
 * around it, positive volumes, a pair x, y that move together. */
static void fill_series(const apo_kernel_info *info, double *const *in, size_t cols,
                        uint64_t seed) {
    uint64_t st = seed;
    double close = 100.0, prev = 100.0;
    for (size_t t = 0; t < cols; t++) {
        prev = close;
        close += uniform(&st) - 0.5;
        double top = close > prev ? close : prev, bottom = close > prev ? prev : close;
        double walk2 = 0.5 * close + uniform(&st);
        for (size_t i = 0; i < info->n_inputs; i++) {
            const char *name = info->input_names[i];
            double v = close;
            if (strcmp(name, "open") == 0)
                v = prev;
            else if (strcmp(name, "high") == 0)
                v = top + uniform(&st);
            else if (strcmp(name, "low") == 0)
                v = bottom - uniform(&st);
            else if (strcmp(name, "volume") == 0)
                v = 1000.0 + 9000.0 * uniform(&st);
            else if (strcmp(name, "y") == 0)
                v = walk2;
            in[i][t] = v;
        }
    }
}

size_t stream_tile_of(const apo_stream *s) {
    size_t len = 0;
    cr_assert_eq(apo_stream_save(s, NULL, 0, &len), APO_OK, "%s", apo_last_error());
    unsigned char *buf = malloc(len);
    cr_assert_not_null(buf);
    cr_assert_eq(apo_stream_save(s, buf, len, &len), APO_OK, "%s", apo_last_error());
    uint64_t tile = 0;
    for (int i = 7; i >= 0; i--)
        tile = tile << 8 | buf[OFF_TILE + i];
    free(buf);
    return (size_t)tile;
}

apo_stream_desc stream_desc_of(const stream_case *c) {
    apo_stream_desc d = APO_STREAM_DESC_INIT;
    d.kernel = c->kernel;
    d.n_series = c->rows;
    d.params = c->params;
    d.n_params = c->n_params;
    return d;
}

int stream_kernel_streams(apo_runtime *rt, const char *name) {
    const apo_stream_desc d = stream_desc_named(name, 1);
    apo_stream *probe = NULL;
    if (apo_stream_create(rt, &d, &probe) != APO_OK)
        return 0;
    apo_stream_destroy(probe);
    return 1;
}

void stream_visit_streaming_kernels(apo_runtime *rt,
                                    void (*visit)(apo_runtime *rt, const char *name, void *ctx),
                                    void *ctx) {
    size_t count = 0;
    cr_assert_eq(apo_kernel_count(rt, &count), APO_OK);
    for (size_t k = 0; k < count; k++) {
        const char *name = NULL;
        cr_assert_eq(apo_kernel_name(rt, k, &name), APO_OK);
        if (stream_kernel_streams(rt, name))
            visit(rt, name, ctx);
    }
}

/* stream_each_kernel's check and its count of the kernels that stream. */
typedef struct sampled_check {
    void (*check)(apo_runtime *rt, const char *name);
    size_t streamed;
} sampled_check;

static void check_if_sampled(apo_runtime *rt, const char *name, void *ctx) {
    sampled_check *sc = ctx;
    if (test_stream_kernel_sampled(sc->streamed))
        sc->check(rt, name);
    sc->streamed++;
}

size_t stream_each_kernel(apo_runtime *rt, void (*check)(apo_runtime *rt, const char *name)) {
    sampled_check sc = {check, 0};
    stream_visit_streaming_kernels(rt, check_if_sampled, &sc);
    return sc.streamed;
}

void stream_check_each_per_bar_kernel(const char *devices,
                                      size_t (*check)(apo_runtime *rt, size_t i,
                                                      const apo_kernel_info *info),
                                      size_t at_least, const char *what) {
    apo_runtime *rt = test_runtime(devices);
    size_t n = 0, checked = 0;
    cr_assert_eq(apo_kernel_count(rt, &n), APO_OK);
    for (size_t i = 0; i < n; i++) {
        const char *name;
        cr_assert_eq(apo_kernel_name(rt, i, &name), APO_OK);
        apo_kernel_info info = APO_KERNEL_INFO_INIT;
        cr_assert_eq(apo_kernel_get(rt, name, &info), APO_OK, "%s", name);
        if (!stream_kernel_is_reduction(name) && test_stream_kernel_sampled(i))
            checked += check(rt, i, &info);
    }
    at_least = (at_least + TEST_STREAM_KERNEL_STRIDE - 1) / TEST_STREAM_KERNEL_STRIDE;
    cr_assert_geq(checked, at_least, "only %zu %s checked", checked, what);
    apo_runtime_destroy(rt);
}

apo_stream_desc stream_desc_named(const char *kernel, size_t n_series) {
    apo_stream_desc d = APO_STREAM_DESC_INIT;
    d.kernel = kernel;
    d.n_series = n_series;
    return d;
}

apo_sweep stream_grid_sweep(const apo_sweep_param *grid, size_t n_grid) {
    apo_sweep sw = APO_SWEEP_INIT;
    sw.grid = grid;
    sw.n_grid = n_grid;
    return sw;
}

void stream_check_every_kernel(void (*check)(apo_runtime *rt, const char *name)) {
    apo_runtime *rt = test_runtime("cpu");
    stream_register_tile_ema(rt);
    const size_t streamed = stream_each_kernel(rt, check);
    cr_assert_geq(streamed, 38, "only %zu kernels streamed", streamed);
    apo_runtime_destroy(rt);
}

apo_stream *stream_created(apo_runtime *rt, const apo_stream_desc *d) {
    apo_stream *s = NULL;
    cr_assert_eq(apo_stream_create(rt, d, &s), APO_OK, "%s: %s", d->kernel, apo_last_error());
    return s;
}

apo_stream *stream_for(apo_runtime *rt, const stream_case *c) {
    const apo_stream_desc d = stream_desc_of(c);
    return stream_created(rt, &d);
}

apo_status stream_case_init(stream_case *c, apo_runtime *rt, const char *kernel,
                            const apo_param *params, size_t n_params, size_t rows, size_t cols,
                            uint64_t data_seed, int gaps) {
    memset(c, 0, sizeof *c);
    c->kernel = kernel;
    if (n_params > 0)
        memcpy(c->params, params, n_params * sizeof *params);
    c->n_params = n_params;
    c->rows = rows;
    c->cols = cols;
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, kernel, &info), APO_OK, "%s", apo_last_error());
    c->n_inputs = info.n_inputs;
    c->n_outputs = info.n_outputs;
    for (size_t i = 0; i < c->n_inputs; i++)
        cr_assert_not_null(c->in[i] = malloc(rows * cols * sizeof(double)));
    for (size_t o = 0; o < c->n_outputs; o++)
        cr_assert_not_null(c->batch[o] = malloc(rows * cols * sizeof(double)));
    apo_stream *probe = stream_for(rt, c);
    c->tile = stream_tile_of(probe);
    apo_stream_destroy(probe);

    for (size_t r = 0; r < rows; r++) {
        double *row_in[APO_MAX_IO];
        for (size_t i = 0; i < c->n_inputs; i++)
            row_in[i] = c->in[i] + r * cols;
        fill_series(&info, row_in, cols, data_seed * 1000 + r);
        /* A flat stretch: every input constant over bars 60 to 139 of series 0. */
        for (size_t t = 60; (gaps & STREAM_FLAT) && r == 0 && t < 140 && t < cols; t++)
            for (size_t i = 0; i < c->n_inputs; i++)
                row_in[i][t] = row_in[i][59 % cols];
        /* A flat start: every input of series 3 as at bar 0 up to bar 139. */
        for (size_t t = 1; (gaps & STREAM_FLAT_START) && r == 3 && t < 140 && t < cols; t++)
            for (size_t i = 0; i < c->n_inputs; i++)
                row_in[i][t] = row_in[i][0];
        /* A jump of scale: every input of series 4 times 1e18 over bars 100 to 163. */
        for (size_t t = 100; (gaps & STREAM_SCALES) && r == 4 && t < 164 && t < cols; t++)
            for (size_t i = 0; i < c->n_inputs; i++)
                row_in[i][t] *= 1e18;
        /* Prices on a grid: every input of series 5 rounded to a quarter (exactly, in binary). */
        for (size_t t = 0; (gaps & STREAM_GRID) && r == 5 && t < cols; t++)
            for (size_t i = 0; i < c->n_inputs; i++)
                row_in[i][t] = floor(row_in[i][t] * 4.0 + 0.5) / 4.0;
        if (!(gaps & STREAM_GAPS))
            continue;
        uint64_t st = data_seed ^ (0xabcdULL + r);
        for (size_t t = 0; t < cols; t++) {
            int scattered = r == 1 && stream_rng(&st) % 50 == 0;
            int run = r == 2 && t + 10 >= c->tile && t < c->tile + 25;
            if (scattered || run)
                for (size_t i = 0; i < c->n_inputs; i++)
                    row_in[i][t] = NAN;
        }
    }

    const double *ins[APO_MAX_IO];
    double *outs[APO_MAX_IO];
    for (size_t i = 0; i < c->n_inputs; i++)
        ins[i] = c->in[i];
    for (size_t o = 0; o < c->n_outputs; o++)
        outs[o] = c->batch[o];
    apo_workload w = test_workload(kernel, rows, cols, ins, c->n_inputs, outs, c->n_outputs);
    w.params = c->params;
    w.n_params = n_params;
    w.learn = APO_SWITCH_OFF;
    apo_report report = APO_REPORT_INIT;
    return apo_distribute_workload(rt, &w, &report);
}

void stream_case_free(stream_case *c) {
    for (size_t i = 0; i < APO_MAX_IO; i++)
        free(c->in[i]), free(c->batch[i]);
    memset(c, 0, sizeof *c);
}

/* Bars series with `fed` bars gets next under the plan. */
static size_t plan_count(const stream_case *c, stream_plan plan, size_t r, size_t update,
                         size_t fed, uint64_t *st, size_t most) {
    size_t left = c->cols - fed;
    if (plan == PLAN_ONE_CHUNK)
        return left;
    if (plan == PLAN_EVERY_BAR) {
        size_t n = r == 0 ? 1 : update % (r + 2);
        return n < left ? n : left;
    }
    if (plan == PLAN_RANDOM) {
        size_t n = (size_t)(stream_rng(st) % (most + 1));
        return n < left ? n : left;
    }
    /* Bar by bar over the first bars (where outputs are NaN by their position) and within
     * 60 bars of each tile boundary; one update up to the next such stretch otherwise. */
    size_t into = fed % c->tile;
    if (fed < 150 || into < 60 || into >= c->tile - 60)
        return left > 0 ? 1 : 0;
    size_t next = fed - into + c->tile - 60;
    return (next < c->cols ? next : c->cols) - fed;
}

/* A stream read back from the bytes of `s`, which is destroyed. */
static apo_stream *reload(apo_stream *s, const stream_case *c, apo_runtime *rt) {
    size_t len = 0;
    cr_assert_eq(apo_stream_save(s, NULL, 0, &len), APO_OK, "%s", apo_last_error());
    unsigned char *buf = malloc(len);
    cr_assert_not_null(buf);
    cr_assert_eq(apo_stream_save(s, buf, len, &len), APO_OK, "%s", apo_last_error());
    apo_stream_destroy(s);
    apo_stream_desc d = stream_desc_of(c);
    apo_stream *loaded = NULL;
    cr_assert_eq(apo_stream_load(rt, &d, buf, len, &loaded), APO_OK, "%s", apo_last_error());
    free(buf);
    return loaded;
}

static void check_plan(apo_stream *s, const stream_case *c, stream_plan plan, uint64_t plan_seed,
                       size_t most, apo_runtime *reload_rt) {
    const size_t rows = c->rows, cols = c->cols;
    size_t *fed = calloc(rows, sizeof *fed), *n_new = calloc(rows, sizeof *n_new);
    double *got[APO_MAX_IO] = {0}, *pin[APO_MAX_IO] = {0}, *pout[APO_MAX_IO] = {0};
    cr_assert(fed != NULL && n_new != NULL);
    for (size_t o = 0; o < c->n_outputs; o++) {
        cr_assert_not_null(got[o] = malloc(rows * cols * sizeof(double)));
        cr_assert_not_null(pout[o] = malloc(rows * cols * sizeof(double)));
    }
    for (size_t i = 0; i < c->n_inputs; i++)
        cr_assert_not_null(pin[i] = malloc(rows * cols * sizeof(double)));
    uint64_t st = plan_seed;
    size_t updates = 0;
    for (;;) {
        size_t at = 0;
        int all_done = 1;
        for (size_t r = 0; r < rows; r++) {
            n_new[r] = plan_count(c, plan, r, updates, fed[r], &st, most);
            all_done = all_done && fed[r] == cols;
        }
        if (all_done)
            break;
        for (size_t r = 0; r < rows; r++) {
            for (size_t i = 0; i < c->n_inputs; i++)
                memcpy(pin[i] + at, c->in[i] + r * cols + fed[r], n_new[r] * sizeof(double));
            at += n_new[r];
        }
        const double *ins[APO_MAX_IO];
        for (size_t i = 0; i < c->n_inputs; i++)
            ins[i] = pin[i];
        apo_status status = apo_stream_update(s, n_new, ins, pout);
        cr_assert_eq(status, APO_OK, "%s: update %zu: %s", c->kernel, updates, apo_last_error());
        at = 0;
        for (size_t r = 0; r < rows; r++) {
            for (size_t o = 0; o < c->n_outputs; o++)
                memcpy(got[o] + r * cols + fed[r], pout[o] + at, n_new[r] * sizeof(double));
            at += n_new[r];
            fed[r] += n_new[r];
        }
        updates++;
        if (reload_rt != NULL)
            s = reload(s, c, reload_rt);
    }
    for (size_t r = 0; r < rows; r++) {
        uint64_t bars = 0;
        cr_assert_eq(apo_stream_bars(s, r, &bars), APO_OK);
        cr_assert_eq(bars, cols, "%s: series %zu has %llu bars, not %zu", c->kernel, r,
                     (unsigned long long)bars, cols);
    }
    for (size_t o = 0; o < c->n_outputs; o++)
        for (size_t e = 0; e < rows * cols; e++)
            if (memcmp(&got[o][e], &c->batch[o][e], sizeof(double)) != 0)
                cr_assert_fail("%s plan %d: output %zu, series %zu, bar %zu (tile %zu): "
                               "streamed %.17g, batch %.17g, after %zu updates",
                               c->kernel, (int)plan, o, e / cols, e % cols, c->tile, got[o][e],
                               c->batch[o][e], updates);
    for (size_t o = 0; o < APO_MAX_IO; o++)
        free(got[o]), free(pin[o]), free(pout[o]);
    free(fed), free(n_new);
    if (reload_rt != NULL)
        apo_stream_destroy(s);
}

void stream_check_plan(apo_stream *s, const stream_case *c, stream_plan plan, uint64_t plan_seed,
                       size_t most) {
    check_plan(s, c, plan, plan_seed, most, NULL);
}

void stream_check_plan_reloading(apo_stream *s, const stream_case *c, stream_plan plan,
                                 uint64_t plan_seed, size_t most, apo_runtime *rt) {
    check_plan(s, c, plan, plan_seed, most, rt);
}

unsigned char *stream_state_bytes(const apo_stream *s, size_t *len) {
    cr_assert_eq(apo_stream_save(s, NULL, 0, len), APO_OK, "%s", apo_last_error());
    unsigned char *buf = malloc(*len);
    cr_assert_not_null(buf);
    cr_assert_eq(apo_stream_save(s, buf, *len, len), APO_OK, "%s", apo_last_error());
    return buf;
}

size_t stream_far_step(size_t near) { return near / 24 > 97 ? near / 24 : 97; }

void stream_assert_state(const apo_stream *s, const unsigned char *want, size_t want_len,
                         const char *what) {
    size_t len = 0;
    unsigned char *now = stream_state_bytes(s, &len);
    size_t at = len;
    /* The first difference is looked for only where there is one (a byte loop over states of
     * megabytes at every step was a tenth of stream_revise's time). */
    if (len != want_len || memcmp(now, want, len) != 0)
        for (at = 0; at < len && at < want_len && now[at] == want[at];)
            at++;
    free(now);
    cr_assert(len == want_len && at == len,
              "%s: the saved state changed (%zu bytes, was %zu; first difference at byte %zu)",
              what, len, want_len, at);
}

void stream_feed_span(apo_stream *s, const stream_case *c, size_t from, size_t to,
                      double *const *got) {
    const size_t m = to - from, rows = c->rows;
    size_t *n_new = malloc(rows * sizeof *n_new);
    const double *in[APO_MAX_IO] = {0};
    double *out[APO_MAX_IO] = {0};
    cr_assert_not_null(n_new);
    for (size_t i = 0; i < c->n_inputs; i++) {
        double *p = malloc((rows * m + 1) * sizeof *p);
        cr_assert_not_null(p);
        for (size_t r = 0; r < rows; r++)
            memcpy(p + r * m, c->in[i] + r * c->cols + from, m * sizeof *p);
        in[i] = p;
    }
    for (size_t o = 0; o < c->n_outputs; o++)
        cr_assert_not_null(out[o] = malloc((rows * m + 1) * sizeof(double)));
    for (size_t r = 0; r < rows; r++)
        n_new[r] = m;
    cr_assert_eq(apo_stream_update(s, n_new, in, out), APO_OK, "%s: %s", c->kernel,
                 apo_last_error());
    for (size_t o = 0; o < c->n_outputs; o++)
        for (size_t r = 0; r < rows; r++)
            memcpy(got[o] + r * c->cols + from, out[o] + r * m, m * sizeof(double));
    for (size_t k = 0; k < APO_MAX_IO; k++)
        free((void *)in[k]), free(out[k]);
    free(n_new);
}

void stream_assert_span(const stream_case *c, double *const *got, size_t from, size_t to,
                        const char *what) {
    for (size_t o = 0; o < c->n_outputs; o++)
        for (size_t r = 0; r < c->rows; r++)
            for (size_t t = from; t < to; t++) {
                const double *g = &got[o][r * c->cols + t], *b = &c->batch[o][r * c->cols + t];
                if (memcmp(g, b, sizeof *g) != 0)
                    cr_assert_fail("%s, %s: output %zu, series %zu, bar %zu: streamed %.17g, "
                                   "batch %.17g",
                                   c->kernel, what, o, r, t, *g, *b);
            }
}

size_t stream_probe_tile(apo_runtime *rt, const char *kernel, const apo_param *params,
                         size_t n_params, size_t rows, uint64_t data_seed, apo_status *status) {
    stream_case c;
    const apo_status st =
        stream_case_init(&c, rt, kernel, params, n_params, rows, 64, data_seed, 0);
    const size_t tile = c.tile;
    stream_case_free(&c);
    if (status != NULL)
        *status = st;
    return tile;
}

size_t stream_case_over_tiles(stream_case *c, apo_runtime *rt, const char *kernel, size_t rows,
                              size_t tiles, size_t extra, uint64_t data_seed, apo_status *probed) {
    const size_t tile = stream_probe_tile(rt, kernel, NULL, 0, rows, data_seed, probed);
    cr_assert_eq(stream_case_init(c, rt, kernel, NULL, 0, rows, tiles * tile + extra, data_seed,
                                  STREAM_GAPS),
                 APO_OK, "%s: %s", kernel, apo_last_error());
    return tile;
}

void stream_each_case_over_tiles(apo_runtime *rt, const char *const *kernels, size_t n, size_t rows,
                                 size_t tiles, size_t extra, uint64_t data_seed,
                                 void (*check)(apo_runtime *rt, const stream_case *c,
                                               size_t tile)) {
    for (size_t k = 0; k < n; k++) {
        apo_status probed;
        stream_case c;
        const size_t tile =
            stream_case_over_tiles(&c, rt, kernels[k], rows, tiles, extra, data_seed, &probed);
        cr_assert_eq(probed, APO_OK, "%s: the probe of its tile: %s", kernels[k],
                     apo_status_name(probed));
        check(rt, &c, tile);
        stream_case_free(&c);
    }
}

void stream_check_plan_fresh(apo_runtime *rt, const stream_case *c, stream_plan plan,
                             uint64_t plan_seed, size_t most) {
    apo_stream *s = stream_for(rt, c);
    stream_check_plan(s, c, plan, plan_seed, most);
    apo_stream_destroy(s);
}

int stream_kernel_is_reduction(const char *name) {
    return strcmp(name, "returns_stats") == 0 || strcmp(name, "bootstrap") == 0;
}

uint64_t stream_state_fnv1a(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

int stream_user_rsi_revert(const double *in, const double *out, int prev, void *user) {
    (void)in, (void)user;
    const double v = out[0];
    if (isnan(v))
        return 0;
    if (prev > 0)
        return v >= 50.0 ? 0 : 1;
    if (prev < 0)
        return v <= 50.0 ? 0 : -1;
    return v < 30.0 ? 1 : v > 70.0 ? -1 : 0;
}
