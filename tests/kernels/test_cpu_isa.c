/*
 * test_cpu_isa.c: the vector paths of the CPU kernels (docs/kernels.md, "Vector paths").
 *
 * Every path this machine supports (sse2 always; avx2 and avx512 where the CPU has them),
 * on the same inputs, must give bitwise the outputs of the scalar single-tile functions,
 * whose accuracy test_kernels.c checks against long-double references: bollinger, macd and
 * returns_stats, on random walks and on walks with NaN, infinities, zeros, constant
 * stretches, repeated values and huge values; at periods and lengths that reach every
 * branch (exact restarts, sliding, constant windows, tiles shorter than a round, short last
 * tiles, several rows, groups of tiles of mixed rows and lengths, in any order), with
 * bollinger's and macd's outputs stored both ways (streaming stores or ordinary ones).
 * Then the runtime: APPORTION_CPU_ISA forces a path, the cpu device's label names it, a
 * value that is not a path and a path the CPU lacks are warned about, and
 * apo_distribute_workload() gives the same bits on every path.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apportion.h"
#include "helpers.h"
#include "kernels.h"
#include "reference.h"

/* ---- inputs ----------------------------------------------------------------------------- */

enum flavour {
    PLAIN,       /* a random walk near 100 */
    SPECIALS,    /* NaN, +inf, -inf and zeros sprinkled in */
    STRETCHES,   /* runs of repeated values, some longer than the periods */
    STEPS,       /* a walk on a coarse grid: many equal neighbours, windows of tiny variance */
    HUGE,        /* values near 1e150 with rare jumps: sums and squares near overflow */
    OVERFLOW,    /* finite values near +-1e308 alternating: sums overflow, NaN from arithmetic */
    INFINITE_M2, /* values in [1e300, 1.5e300]: runs slide on with an infinite M2, and nbdev 0
                    makes NaN bands from 0 * inf, which the tile bodies canonicalise */
    CROSSING,    /* a walk around zero: bollinger's runs without a shift (K = 0), where the
                    difference of two samples rounds, beside shifted ones */
    DIPS,        /* a walk near 100 with rare samples near 1: a lane's run loses its shift
                    in the middle of a round of shifted ones */
    FLAVOURS
};

static const char *const flavour_names[FLAVOURS] = {"plain",       "specials", "stretches",
                                                    "steps",       "huge",     "overflow",
                                                    "infinite_m2", "crossing", "dips"};

/* rows x cols of the flavour, row r from its own seeded walk. */
static double *make_input(enum flavour f, size_t rows, size_t cols, uint64_t seed) {
    double *x = malloc((rows * cols > 0 ? rows * cols : 1) * sizeof *x);
    cr_assert_not_null(x);
    for (size_t r = 0; r < rows; r++) {
        double *row = x + r * cols;
        apo__test_random_walk(seed + r, cols, 100.0, 0.25, row);
        for (size_t t = 0; t < cols; t++) {
            const double u = apo__test_uniform(seed + 1000 + r, t);
            switch (f) {
            case PLAIN:
                break;
            case SPECIALS:
                if (u < 0.002)
                    row[t] = NAN;
                else if (u < 0.003)
                    row[t] = INFINITY;
                else if (u < 0.004)
                    row[t] = -INFINITY;
                else if (u < 0.005)
                    row[t] = 0.0;
                break;
            case STRETCHES:
                if (u < 0.01 && t > 0) {
                    const size_t len = 1 + (size_t)(apo__test_uniform(seed + 2000 + r, t) * 80.0);
                    for (size_t k = 0; k < len && t + k < cols; k++)
                        row[t + k] = row[t - 1];
                    t += len;
                }
                break;
            case STEPS:
                row[t] = floor(row[t] * 4.0) / 4.0;
                break;
            case HUGE:
                row[t] = row[t] * 1e148 * (u < 0.001 ? 1e3 : 1.0);
                break;
            case OVERFLOW:
                row[t] = (t % 2 ? -1e308 : 1e308) * (0.5 + 0.5 * u);
                break;
            case INFINITE_M2:
                row[t] = 1e300 * (1.0 + 0.5 * u);
                break;
            case CROSSING:
                row[t] -= 100.0;
                break;
            case DIPS:
                if (u < 0.002)
                    row[t] *= 0.01;
                break;
            case FLAVOURS:
                break;
            }
        }
    }
    return x;
}

static double *poisoned(size_t n) {
    double *p = malloc((n > 0 ? n : 1) * sizeof *p);
    cr_assert_not_null(p);
    for (size_t i = 0; i < n; i++)
        p[i] = -12345.678;
    return p;
}

/* The tiles of rows x cols with tiles of `len`, in row order, into spans (returns the count);
 * `order` 1 lists them backwards, 2 interleaves the rows (row-major by tile index). */
static size_t make_spans(size_t rows, size_t cols, size_t len, int order, apo__tile_span *spans,
                         size_t max) {
    const size_t per_row = (cols + len - 1) / len;
    size_t n = 0;
    for (size_t a = 0; a < (order == 2 ? per_row : rows); a++) {
        for (size_t b = 0; b < (order == 2 ? rows : per_row); b++) {
            const size_t r = order == 2 ? b : a, k = order == 2 ? a : b;
            cr_assert_lt(n, max);
            spans[n].row = r;
            spans[n].begin = k * len;
            spans[n].end = (k + 1) * len < cols ? (k + 1) * len : cols;
            n++;
        }
    }
    if (order == 1) {
        for (size_t i = 0; i < n / 2; i++) {
            apo__tile_span t = spans[i];
            spans[i] = spans[n - 1 - i];
            spans[n - 1 - i] = t;
        }
    }
    return n;
}

/* How many tiles go to one group call: a lone tile (the scalar function), rounds that fit
 * each path's lanes exactly or partly (2, 3: the avx2 path within avx512; 5, 7: part of an
 * avx512 round), and big groups whose last round is short. The test cases' tile lengths
 * give short rows several tiles too: any grid is a valid grid for the tile functions (the
 * runtime's own lengths are covered by the runtime tests below). */
static const size_t groupings[] = {1, 2, 3, 5, 7, 8, 64};
#define N_GROUPINGS (sizeof groupings / sizeof groupings[0])

/* Which outputs differ: the index of the first element whose bits differ, or n. */
static size_t first_difference(const double *a, const double *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(double)) != 0)
            return i;
    return n;
}

/* Odd variants store bollinger's and macd's outputs with streaming stores, however small the
 * arrays (kernels.h, APO_*_STREAM_MIN_BYTES), even ones with ordinary stores: every
 * grouping gets both across the three orders. The arrays of malloc() are aligned to 16
 * bytes only, so on the wider paths some outputs stream and others fall back to ordinary
 * stores within one call, which is covered too. */
static void streaming_for(size_t variant) {
    apo__bollinger_stream_min_bytes = variant % 2 == 1 ? 0 : SIZE_MAX;
    apo__macd_stream_min_bytes = variant % 2 == 1 ? 0 : SIZE_MAX;
}

static void streaming_as_built(void) {
    apo__bollinger_stream_min_bytes = APO_BOLLINGER_STREAM_MIN_BYTES;
    apo__macd_stream_min_bytes = APO_MACD_STREAM_MIN_BYTES;
}

/* ---- the kernels, path by path ---------------------------------------------------------- */

static size_t paths_checked;

static void check_bollinger(enum flavour f, size_t rows, size_t cols, size_t period, double up,
                            double dn, size_t len) {
    const size_t n = rows * cols;
    double *x = make_input(f, rows, cols, 17 + period);
    double *want[3], *got[3];
    for (int k = 0; k < 3; k++)
        want[k] = poisoned(n);
    for (size_t r = 0; r < rows; r++)
        for (size_t b = 0; b < cols; b += len)
            apo__cpu_bollinger_tile(x + r * cols, cols, b, b + len < cols ? b + len : cols, period,
                                    up, dn, want[0] + r * cols, want[1] + r * cols,
                                    want[2] + r * cols);
    apo__tile_span spans[512];
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        for (size_t variant = 0; variant < 3 * N_GROUPINGS; variant++) {
            const int order = (int)(variant / N_GROUPINGS);
            const size_t count = make_spans(rows, cols, len, order, spans, 512);
            const size_t group = groupings[variant % N_GROUPINGS];
            for (int k = 0; k < 3; k++)
                got[k] = poisoned(n);
            streaming_for(variant);
            for (size_t g = 0; g < count; g += group)
                apo__cpu_bollinger_tiles(x, rows, cols, spans + g,
                                         count - g < group ? count - g : group, period, up, dn,
                                         got[0], got[1], got[2], (apo__cpu_isa)isa);
            streaming_as_built();
            for (int k = 0; k < 3; k++) {
                const size_t i = first_difference(want[k], got[k], n);
                cr_assert_eq(i, n,
                             "bollinger %s %zux%zu period %zu nbdev %g/%g tiles of %zu, path %s, "
                             "order %d: output %d, element %zu: %a, scalar tiles give %a",
                             flavour_names[f], rows, cols, period, up, dn, len,
                             apo__cpu_isa_name((apo__cpu_isa)isa), order, k, i,
                             i < n ? got[k][i] : 0.0, i < n ? want[k][i] : 0.0);
                free(got[k]);
            }
            paths_checked++;
        }
    }
    for (int k = 0; k < 3; k++)
        free(want[k]);
    free(x);
}

Test(cpu_isa, bollinger_every_path_gives_the_bits_of_the_scalar_tiles, .timeout = 300) {
    static const struct {
        size_t rows, cols, period, len;
    } shapes[] = {
        {1, 100003, 20, 4096}, /* the runtime's grid for period 20, short last tile */
        {5, 9001, 2, 4096},    /* period 2: short runs, many restarts */
        {3, 12288, 3, 4096},   /* whole tiles only */
        {7, 5000, 50, 700},    /* tiles shorter than a round's stagger, several per row */
        {2, 20011, 300, 4800}, /* the runtime's grid for period 300 */
        {9, 37, 5, 16},        /* a few windows per tile */
        {4, 3, 2, 1},          /* one-sample tiles, the first ones without a full window */
        {2, 9, 1, 4},          /* period 1: every window is constant */
        {1, 20000, 1000, 16000},
    };
    static const double nbdev[][2] = {{2.0, 2.0}, {1.5, -0.5}, {0.0, 0.0}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int f = 0; f < FLAVOURS; f++)
            check_bollinger((enum flavour)f, shapes[s].rows, shapes[s].cols, shapes[s].period,
                            nbdev[s % 3][0], nbdev[s % 3][1], shapes[s].len);
    cr_assert_gt(paths_checked, 0);
}

static void check_macd(enum flavour f, size_t rows, size_t cols, size_t fast, size_t slow,
                       size_t signal, size_t len) {
    const size_t n = rows * cols;
    double *x = make_input(f, rows, cols, 29 + fast + slow);
    double *want[3], *got[3];
    for (int k = 0; k < 3; k++)
        want[k] = poisoned(n);
    for (size_t r = 0; r < rows; r++)
        for (size_t b = 0; b < cols; b += len)
            apo__cpu_macd_tile(x + r * cols, cols, b, b + len < cols ? b + len : cols, fast, slow,
                               signal, want[0] + r * cols, want[1] + r * cols, want[2] + r * cols);
    apo__tile_span spans[512];
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        for (size_t variant = 0; variant < 3 * N_GROUPINGS; variant++) {
            const int order = (int)(variant / N_GROUPINGS);
            const size_t count = make_spans(rows, cols, len, order, spans, 512);
            const size_t group = groupings[variant % N_GROUPINGS];
            for (int k = 0; k < 3; k++)
                got[k] = poisoned(n);
            streaming_for(variant);
            for (size_t g = 0; g < count; g += group)
                apo__cpu_macd_tiles(x, rows, cols, spans + g, count - g < group ? count - g : group,
                                    fast, slow, signal, got[0], got[1], got[2], (apo__cpu_isa)isa);
            streaming_as_built();
            for (int k = 0; k < 3; k++) {
                const size_t i = first_difference(want[k], got[k], n);
                cr_assert_eq(i, n,
                             "macd %s %zux%zu %zu/%zu/%zu tiles of %zu, path %s, order %d: "
                             "output %d, element %zu: %a, scalar tiles give %a",
                             flavour_names[f], rows, cols, fast, slow, signal, len,
                             apo__cpu_isa_name((apo__cpu_isa)isa), order, k, i,
                             i < n ? got[k][i] : 0.0, i < n ? want[k][i] : 0.0);
                free(got[k]);
            }
            paths_checked++;
        }
    }
    for (int k = 0; k < 3; k++)
        free(want[k]);
    free(x);
}

Test(cpu_isa, macd_every_path_gives_the_bits_of_the_scalar_tiles, .timeout = 300) {
    static const struct {
        size_t rows, cols, fast, slow, signal, len;
    } cases[] = {
        {1, 70001, 12, 26, 9, 16384}, /* the runtime's grid, warm-up 809, short last tile */
        {3, 20000, 26, 12, 9, 3000},  /* swapped periods; warm-up longer than a tile */
        {5, 4000, 2, 3, 1, 500},      {2, 9000, 5, 35, 1, 2000}, {4, 300, 1, 1, 1, 64},
        {2, 5000, 3, 10, 16, 1024},   {9, 40, 2, 3, 1, 7}, /* tiles that end inside the seeds */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int f = 0; f < FLAVOURS; f++)
            check_macd((enum flavour)f, cases[c].rows, cases[c].cols, cases[c].fast, cases[c].slow,
                       cases[c].signal, cases[c].len);
    cr_assert_gt(paths_checked, 0);
}

static void check_returns_stats(enum flavour f, size_t rows, size_t cols, size_t len) {
    double *x = make_input(f, rows, cols, 41 + cols);
    const size_t per_row = (cols + len - 1) / len, tiles = rows * per_row;
    apo__moments *want = calloc(tiles, sizeof *want), *got = calloc(tiles, sizeof *got);
    cr_assert(want != NULL && got != NULL);
    for (size_t r = 0; r < rows; r++)
        for (size_t k = 0; k < per_row; k++)
            apo__cpu_returns_stats_tile(x + r * cols, cols, k * len,
                                        (k + 1) * len < cols ? (k + 1) * len : cols,
                                        &want[r * per_row + k]);
    apo__tile_span spans[512];
    const size_t count = make_spans(rows, cols, len, 0, spans, 512);
    cr_assert_eq(count, tiles);
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        /* With enough scratch (one division per sample), none, and too little (both fall
         * back to dividing twice); in groups of every size. */
        const size_t enough = len * apo__cpu_isa_lanes((apo__cpu_isa)isa);
        const size_t scratch_lens[] = {enough, 0, enough / 2};
        double *scratch = malloc(enough * sizeof *scratch);
        cr_assert_not_null(scratch);
        for (size_t s = 0; s < 3; s++) {
            for (size_t gi = 0; gi < N_GROUPINGS; gi++) {
                const size_t group = groupings[gi];
                memset(got, 0x5a, tiles * sizeof *got);
                for (size_t g = 0; g < count; g += group)
                    apo__cpu_returns_stats_tiles(
                        x, rows, cols, spans + g, count - g < group ? count - g : group, got + g,
                        scratch_lens[s] > 0 ? scratch : NULL, scratch_lens[s], (apo__cpu_isa)isa);
                for (size_t t = 0; t < tiles; t++)
                    cr_assert(memcmp(&want[t], &got[t], sizeof want[t]) == 0,
                              "returns_stats %s %zux%zu tiles of %zu, path %s, scratch %zu, "
                              "groups of %zu: tile %zu differs (count %g/%g mean %a/%a m2 %a/%a)",
                              flavour_names[f], rows, cols, len,
                              apo__cpu_isa_name((apo__cpu_isa)isa), scratch_lens[s], group, t,
                              got[t].count, want[t].count, got[t].mean, want[t].mean, got[t].m2,
                              want[t].m2);
                paths_checked++;
            }
        }
        free(scratch);
    }
    free(want);
    free(got);
    free(x);
}

Test(cpu_isa, returns_stats_every_path_gives_the_bits_of_the_scalar_tiles, .timeout = 300) {
    static const size_t shapes[][3] = {
        {1, 100003, 8192},            /* the runtime's grid, short last tile */
        {7, 10000, 8192},             /* batch rows: a full and a short tile each */
        {3, 1000, 97},     {5, 2, 1}, /* tiles of one sample: the first has no return */
        {2, 1, 1},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int f = 0; f < FLAVOURS; f++)
            check_returns_stats((enum flavour)f, shapes[s][0], shapes[s][1], shapes[s][2]);
    cr_assert_gt(paths_checked, 0);
}

/* The paths are what this build and CPU have: sse2 always, and on x86-64 the others the CPU
 * reports (the test then exercises them all). */
Test(cpu_isa, paths_and_their_names, .timeout = 60) {
    cr_assert(apo__cpu_isa_supported(APO_CPU_ISA_SSE2));
    cr_assert(!apo__cpu_isa_supported(APO_CPU_ISA_AUTO));
    cr_assert_eq(apo__cpu_isa_resolve(APO_CPU_ISA_AUTO), apo__cpu_isa_best());
    cr_assert_eq(apo__cpu_isa_resolve(APO_CPU_ISA_SSE2), APO_CPU_ISA_SSE2);
    cr_assert(apo__cpu_isa_supported(apo__cpu_isa_best()));
    cr_assert_str_eq(apo__cpu_isa_name(APO_CPU_ISA_SSE2), "sse2");
    cr_assert_str_eq(apo__cpu_isa_name(APO_CPU_ISA_AVX2), "avx2");
    cr_assert_str_eq(apo__cpu_isa_name(APO_CPU_ISA_AVX512), "avx512");
    cr_assert_eq(apo__cpu_isa_lanes(APO_CPU_ISA_AVX512), 8);
    char have[64];
    apo__cpu_isa_list_supported(have, sizeof have);
    cr_assert_eq(strncmp(have, "sse2", 4), 0, "%s", have);
    cr_log_info("vector paths on this machine: %s", have);
}

/* ---- the runtime ---------------------------------------------------------------------- */

/* A runtime on `devices` with APPORTION_CPU_ISA set to `isa` (NULL: unset). */
static apo_runtime *runtime_with_isa(const char *devices, const char *isa) {
    if (isa != NULL)
        cr_assert_eq(setenv("APPORTION_CPU_ISA", isa, 1), 0);
    else
        cr_assert_eq(unsetenv("APPORTION_CPU_ISA"), 0);
    apo_runtime *rt = test_runtime(devices);
    cr_assert_eq(unsetenv("APPORTION_CPU_ISA"), 0);
    return rt;
}

static void cpu_label(apo_runtime *rt, char *out, size_t size) {
    apo_device_info info = APO_DEVICE_INFO_INIT;
    cr_assert_eq(apo_device_get(rt, 0, &info), APO_OK);
    cr_assert_eq(info.kind, APO_DEVICE_CPU);
    snprintf(out, size, "%s", info.label);
}

static int has_warning(apo_runtime *rt, const char *text) {
    size_t n = 0;
    cr_assert_eq(apo_runtime_warning_count(rt, &n), APO_OK);
    for (size_t i = 0; i < n; i++) {
        const char *w = NULL;
        if (apo_runtime_warning(rt, i, &w) == APO_OK && w != NULL && strstr(w, text) != NULL)
            return 1;
    }
    return 0;
}

Test(cpu_isa, the_variable_forces_a_path_and_the_label_names_it, .timeout = 60) {
    char label[APO_LABEL_MAX], want[64];
    apo_runtime *rt = runtime_with_isa("cpu:threads=2", NULL);
    cpu_label(rt, label, sizeof label);
    snprintf(want, sizeof want, "cpu (2 threads, %s)", apo__cpu_isa_name(apo__cpu_isa_best()));
    cr_assert_str_eq(label, want);
    apo_runtime_destroy(rt);

    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
        const char *name = apo__cpu_isa_name((apo__cpu_isa)isa);
        rt = runtime_with_isa("cpu:threads=1", name);
        cpu_label(rt, label, sizeof label);
        char warned[64];
        snprintf(warned, sizeof warned, "APPORTION_CPU_ISA=%s ignored", name);
        if (apo__cpu_isa_supported((apo__cpu_isa)isa)) {
            snprintf(want, sizeof want, "cpu (1 thread, %s)", name);
            cr_assert(!has_warning(rt, warned), "%s", name);
        } else {
            /* A path the CPU lacks: warned about, and the fastest it has is used. */
            snprintf(want, sizeof want, "cpu (1 thread, %s)",
                     apo__cpu_isa_name(apo__cpu_isa_best()));
            cr_assert(has_warning(rt, warned), "no warning for %s", name);
            cr_log_info("this CPU lacks the %s path: its warning was checked", name);
        }
        cr_assert_str_eq(label, want);
        apo_runtime_destroy(rt);
    }

    /* auto and the words in any case; a value that is no path is warned about. */
    rt = runtime_with_isa("cpu:threads=1", "AUTO");
    cr_assert(!has_warning(rt, "APPORTION_CPU_ISA"));
    apo_runtime_destroy(rt);
    rt = runtime_with_isa("cpu:threads=1", "SSE2");
    cpu_label(rt, label, sizeof label);
    cr_assert_str_eq(label, "cpu (1 thread, sse2)");
    apo_runtime_destroy(rt);
    rt = runtime_with_isa("cpu:threads=1", "avx1024");
    cr_assert(has_warning(rt, "APPORTION_CPU_ISA=\"avx1024\" ignored: expected auto, sse2, avx2 "
                              "or avx512"));
    cpu_label(rt, label, sizeof label);
    snprintf(want, sizeof want, "cpu (1 thread, %s)", apo__cpu_isa_name(apo__cpu_isa_best()));
    cr_assert_str_eq(label, want);
    apo_runtime_destroy(rt);
}

/* Through apo_distribute_workload(): the cpu alone (both threads), and the cpu with two sim
 * devices splitting the series in time, on each supported path, against the sse2 path. */
Test(cpu_isa, every_path_gives_the_same_bits_through_the_runtime, .timeout = 300) {
    static const struct {
        const char *kernel;
        size_t rows, cols;
    } jobs[] = {
        {"bollinger", 1, 300007}, {"bollinger", 40, 10000},     {"macd", 1, 200003},
        {"macd", 30, 10000},      {"returns_stats", 1, 300007}, {"returns_stats", 40, 10000},
    };
    static const char *const setups[] = {"cpu:threads=2", "cpu,sim:a,sim:b"};
    for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++) {
        for (size_t s = 0; s < 2; s++) {
            test_job ref;
            apo_runtime *base = runtime_with_isa(setups[s], "sse2");
            test_job_init(&ref, base, jobs[j].kernel, jobs[j].rows, jobs[j].cols, 77 + j);
            if (s == 1) {
                static const double ratios[] = {0.5, 0.3, 0.2};
                ref.w.ratios = ratios;
                ref.w.split = APO_SPLIT_TIME;
            }
            cr_assert_eq(test_job_run(&ref, base, NULL), APO_OK, "%s", apo_last_error());
            for (int isa = APO_CPU_ISA_AVX2; isa <= APO_CPU_ISA_LAST; isa++) {
                if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
                    continue;
                apo_runtime *rt = runtime_with_isa(setups[s], apo__cpu_isa_name((apo__cpu_isa)isa));
                test_job got;
                test_job_init(&got, rt, jobs[j].kernel, jobs[j].rows, jobs[j].cols, 77 + j);
                got.w.ratios = ref.w.ratios;
                got.w.split = ref.w.split;
                cr_assert_eq(test_job_run(&got, rt, NULL), APO_OK, "%s", apo_last_error());
                for (size_t o = 0; o < got.w.n_outputs; o++)
                    cr_assert_eq(test_bitwise_diff(&ref, &got, o), 0,
                                 "%s %zux%zu on %s, path %s: output %zu differs from sse2's",
                                 jobs[j].kernel, jobs[j].rows, jobs[j].cols, setups[s],
                                 apo__cpu_isa_name((apo__cpu_isa)isa), o);
                test_job_free(&got);
                apo_runtime_destroy(rt);
            }
            test_job_free(&ref);
            apo_runtime_destroy(base);
        }
    }
}
