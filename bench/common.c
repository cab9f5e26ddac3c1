/*
 * common.c: the helpers every apo-bench-* program shares (declared in bench.h): timing and
 * statistics, option parsing, the load average, the error check and the seeded prices.
 * libc, the public header and kernels/common/random_walk.h only, no OpenMP.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "random_walk.h"

double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double bench_thread_cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double bench_process_cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, size_t n) {
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double bench_min(const double *v, size_t n) {
    if (n == 0)
        return NAN;
    double m = v[0];
    for (size_t i = 1; i < n; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

int bench_check(apo_status st, const char *what) {
    if (st == APO_OK)
        return 0;
    fprintf(stderr, "%s: %s failed: %s: %s\n", bench_prog, what, apo_status_name(st),
            apo_last_error());
    return 1;
}

apo_status bench_runtime(const char *devices, apo_runtime **rt) {
    apo_config c = APO_CONFIG_INIT;
    c.devices = devices;
    c.profiles = APO_SWITCH_OFF;
    c.learn = APO_SWITCH_OFF;
    *rt = NULL;
    return apo_runtime_create(&c, rt);
}

apo_workload bench_workload(const char *kernel, size_t rows, size_t cols,
                            const double *const *inputs, size_t n_inputs) {
    apo_workload w = APO_WORKLOAD_INIT;
    w.kernel = kernel;
    w.rows = rows;
    w.cols = cols;
    w.inputs = inputs;
    w.n_inputs = n_inputs;
    return w;
}

int bench_parse_count(const char *s, double lo, double hi, double *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !(v >= lo && v <= hi) || v != floor(v))
        return -1;
    *out = v;
    return 0;
}

int bench_selected(const char *list, const char *name) {
    if (list == NULL)
        return 1;
    size_t len;
    for (const char *p = list, *item; (item = bench_list_next(&p, &len)) != NULL;)
        if (bench_item_is(item, len, name))
            return 1;
    return 0;
}

const char *bench_list_next(const char **p, size_t *len) {
    if (*p == NULL || **p == '\0')
        return NULL;
    const char *item = *p;
    const char *comma = strchr(item, ',');
    *len = comma ? (size_t)(comma - item) : strlen(item);
    *p = item + *len + (comma != NULL);
    return item;
}

int bench_item_is(const char *item, size_t len, const char *name) {
    return strlen(name) == len && strncmp(item, name, len) == 0;
}

int bench_item_copy(char *buf, size_t size, const char *item, size_t len) {
    if (len >= size)
        return -1;
    memcpy(buf, item, len);
    buf[len] = '\0';
    return 0;
}

const char *bench_list_unknown(const char *list, const char *(*name_of)(size_t i), size_t n,
                               size_t *len) {
    for (const char *p = list, *item; (item = bench_list_next(&p, len)) != NULL;) {
        int known = 0;
        for (size_t i = 0; i < n && !known; i++)
            known = bench_item_is(item, *len, name_of(i));
        if (!known)
            return item;
    }
    return NULL;
}

double bench_stored_prediction(apo_runtime *rt, const char *tag, size_t d, double n) {
    size_t count = 0;
    if (apo_profile_entry_count(rt, &count) != APO_OK)
        return NAN;
    for (size_t i = 0; i < count; i++) {
        apo_profile_entry e = APO_PROFILE_ENTRY_INIT;
        if (apo_profile_entry_get(rt, i, &e) == APO_OK && strcmp(e.tag, tag) == 0 &&
            d < e.n_devices && e.devices[d].valid)
            return e.devices[d].latency_ms + n * 1e-6 * e.devices[d].ms_per_melem;
    }
    return NAN;
}

void bench_load_average(char *buf, size_t size) {
    snprintf(buf, size, "?");
    FILE *f = fopen("/proc/loadavg", "r");
    if (f == NULL)
        return;
    double l1, l5, l15;
    if (fscanf(f, "%lf %lf %lf", &l1, &l5, &l15) == 3)
        snprintf(buf, size, "%.2f %.2f %.2f", l1, l5, l15);
    fclose(f);
}

void bench_fill_walk(double *x, size_t rows, size_t cols, uint64_t seed) {
    apo__random_walk(x, rows, cols, seed);
    /* The walk's steps, scaled to 5e-4, become log-price increments: prices stay positive,
     * so the references' relative tolerances and the returns mean what they do on real
     * series, as they would not where an arithmetic walk crosses zero. */
    const size_t n = rows * cols;
    for (size_t i = 0; i < n; i++)
        x[i] = 100.0 * exp(5e-4 * (x[i] - 100.0));
}

/* A uniform draw in [0, 1) keyed by (seed, i) alone (a splitmix64 finaliser). */
static double bars_draw(uint64_t seed, uint64_t i) {
    uint64_t z = seed * 0xD1B54A32D192ED03ull + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-53;
}

void bench_fill_bars(const double *close, size_t rows, size_t cols, double *open, double *high,
                     double *low, double *volume) {
    for (size_t r = 0; r < rows; r++) {
        const double *c = close + r * cols;
        for (size_t t = 0; t < cols; t++) {
            const size_t i = r * cols + t;
            const double o = t > 0 ? c[t - 1] : c[t];
            const double hi = o > c[t] ? o : c[t], lo = o > c[t] ? c[t] : o;
            if (open != NULL)
                open[i] = o;
            if (high != NULL)
                high[i] = hi * (1 + 5e-4 * bars_draw(1, i));
            if (low != NULL)
                low[i] = lo * (1 - 5e-4 * bars_draw(2, i));
            if (volume != NULL)
                volume[i] = 1000 + 9000 * bars_draw(3, i);
        }
    }
}
