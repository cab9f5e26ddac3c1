/*
 * gpu_fixtures.c: what the files of the gpu suite share (gpu_fixtures.h), and their main.
 *
 * Each file of the suite (test_gpu.c, test_gpu_resident.c, test_gpu_caller.c) is its own
 * executable linked with this file, whose main decides before Criterion starts: without a
 * usable GPU it exits 77, which meson reports as SKIP, unless a GPU is required
 * (APPORTION_USE_GPU=yes): then it fails with exit 1. Every case also skips on its own when
 * the runtime finds no GPU (gpu_runtime_or_skip), so a case run alone behaves too.
 */
#include "gpu_fixtures.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

/* ---- runtimes --------------------------------------------------------------------------- */

/* Usable GPUs as a runtime on "cuda" (use_gpu AUTO) sees them; `why` gets the runtime's
 * warnings when there is none. Returns (size_t)-1 when the runtime cannot be created. */
static size_t probe_gpus(char *why, size_t why_size) {
    apo_runtime *rt = NULL;
    why[0] = '\0';
    apo_status st = chk_runtime("cuda", APO_USE_GPU_AUTO, 0, APO_SWITCH_UNSET, &rt);
    if (st != APO_OK) {
        snprintf(why, why_size, "%s: %s", apo_status_name(st), apo_last_error());
        return (size_t)-1;
    }
    size_t gpus = 0, n_warn = 0, o = 0;
    apo_gpu_count(rt, &gpus);
    apo_runtime_warning_count(rt, &n_warn);
    for (size_t i = 0; i < n_warn && o < why_size; i++) {
        const char *w = NULL;
        if (apo_runtime_warning(rt, i, &w) == APO_OK && w != NULL) {
            int n = snprintf(why + o, why_size - o, "%s%s", o ? "; " : "", w);
            o = n < 0 ? why_size : o + (size_t)n;
        }
    }
    apo_runtime_destroy(rt);
    return gpus;
}

/* The start of every case: the GPU runtime ("cuda", use_gpu AUTO), or a skip. */
apo_runtime *gpu_runtime_or_skip(void) {
    apo_runtime *rt = NULL;
    apo_status st = chk_runtime("cuda", APO_USE_GPU_AUTO, 0, APO_SWITCH_UNSET, &rt);
    cr_assert_eq(st, APO_OK, "runtime on cuda: %s", apo_last_error());
    size_t gpus = 0;
    cr_assert_eq(apo_gpu_count(rt, &gpus), APO_OK);
    if (gpus == 0) {
        apo_runtime_destroy(rt);
        cr_skip_test("no usable GPU");
    }
    return rt;
}

apo_runtime *runtime_on(const char *devices, size_t gpu_mb) {
    apo_runtime *rt = NULL;
    apo_status st =
        chk_runtime(devices, strcmp(devices, "cpu") == 0 ? APO_USE_GPU_NO : APO_USE_GPU_YES, gpu_mb,
                    APO_SWITCH_UNSET, &rt);
    cr_assert_eq(st, APO_OK, "runtime on %s: %s: %s", devices, apo_status_name(st),
                 apo_last_error());
    return rt;
}

void open_runtimes(apo_runtime **cpu, apo_runtime **test, const char *devices, size_t gpu_mb) {
    *test = gpu_runtime_or_skip();
    if (devices != NULL) {
        apo_runtime_destroy(*test);
        *test = runtime_on(devices, gpu_mb);
    }
    *cpu = runtime_on("cpu", 0);
}

void close_runtimes(apo_runtime *cpu, apo_runtime *test) {
    apo_runtime_destroy(test);
    apo_runtime_destroy(cpu);
}

size_t device_count(const apo_runtime *rt) {
    size_t n = 0;
    cr_assert_eq(apo_device_count(rt, &n), APO_OK);
    return n;
}

apo_device_kind device_kind(const apo_runtime *rt, size_t i) {
    apo_device_info info = APO_DEVICE_INFO_INIT;
    cr_assert_eq(apo_device_get(rt, i, &info), APO_OK);
    return info.kind;
}

/* Index of the first GPU of rt. */
size_t first_gpu(const apo_runtime *rt) {
    const long g = chk_first_gpu(rt);
    cr_assert_geq(g, 0, "the runtime has no GPU");
    return (size_t)g;
}

size_t ratios_by_kind(const apo_runtime *rt, double gpu_share, double cpu_share,
                      double ratios[APO_MAX_DEVICES]) {
    const size_t n = device_count(rt);
    for (size_t i = 0; i < n; i++)
        ratios[i] = device_kind(rt, i) == APO_DEVICE_CUDA ? gpu_share : cpu_share;
    return n;
}

uint64_t gpu_tiles_of(const apo_report *rep) {
    uint64_t tiles = 0;
    for (size_t i = 0; i < rep->n_devices; i++)
        if (rep->devices[i].kind == APO_DEVICE_CUDA)
            tiles += rep->devices[i].tiles;
    return tiles;
}

/* ---- workloads -------------------------------------------------------------------------- */

/* Shapes with several tiles per row, ragged last tiles, sizes just off the tile, rows > 1,
 * and the smallest series each kernel accepts. */
const gcase cases[] = {
    {"bollinger", 1, 2, "period", 2},
    {"bollinger", 1, 4095, NULL, 0},
    {"bollinger", 1, 4097, NULL, 0},
    {"bollinger", 1, 3 * 4096 + 123, "period", 20},
    {"bollinger", 3, 9001, "period", 2},
    {"bollinger", 40, 700, "period", 700},
    {"bollinger", 1, 1000003, NULL, 0},
    {"macd", 1, 1, NULL, 0},
    {"macd", 1, 2 * 16384 + 77, NULL, 0},
    {"macd", 5, 20000, "signal", 1},
    {"macd", 3, 50001, NULL, 0},
    {"macd", 1, 1000003, NULL, 0},
    {"returns_stats", 1, 1, NULL, 0},
    {"returns_stats", 1, 5 * 8192 + 5, NULL, 0},
    {"returns_stats", 37, 3000, NULL, 0},
    {"returns_stats", 1, 1000003, NULL, 0},
    {"bootstrap", 1, 3000, "replicates", 203},
    {"bootstrap", 3, 500, "replicates", 64},
    {"bootstrap", 2, 100003, "replicates", 24},
    /* Two catalog recurrences with a cut, whose tiles a GPU cuts into pieces on threads of
     * their own (kernels/cuda/cut.cu): rsi's tiles of 3,065 bars, dema's of 32,912. */
    {"rsi", 3, 9001, NULL, 0},
    {"dema", 1, 70001, NULL, 0},
};
const size_t n_gpu_cases = sizeof cases / sizeof cases[0];

double *walk(size_t rows, size_t cols, uint64_t seed) {
    double *x = malloc(rows * cols * sizeof *x);
    cr_assert_not_null(x);
    for (size_t r = 0; r < rows; r++)
        apo__test_random_walk(seed + r, cols, 100.0, 1.0, x + r * cols);
    return x;
}

void walk_case_open(walk_case *w, size_t rows, size_t cols, uint64_t seed) {
    open_runtimes(&w->cpu, &w->gpu, NULL, 0);
    w->rows = rows;
    w->cols = cols;
    w->x = walk(rows, cols, seed);
}

void walk_case_close(walk_case *w) {
    free(w->x);
    close_runtimes(w->cpu, w->gpu);
}

/* ---- a call's outputs --------------------------------------------------------------------- */

double *poisoned_output(apo_runtime *rt, const apo_workload *w, size_t o, size_t *len) {
    size_t r = 0, c = 0;
    cr_assert_eq(apo_output_shape(rt, w, o, &r, &c), APO_OK, "%s", apo_last_error());
    *len = r * c;
    double *out = malloc(*len * sizeof *out);
    cr_assert_not_null(out);
    for (size_t i = 0; i < *len; i++)
        out[i] = -12345.678;
    return out;
}

/* ---- verdicts to Criterion -------------------------------------------------------------- */

/* Fails the case with the verdict's message, naming the job and `what`, or skips it; a pass
 * or a warning goes on (no check these cases call warns). */
void assert_verdict(const chk_verdict *v, const chk_job *j, const char *what) {
    if (v->result == CHK_SKIP)
        cr_skip_test("%s: %s", what, v->message);
    if (j != NULL)
        cr_assert(v->result != CHK_FAIL, "%s %zux%zu %s: %s", j->w.kernel, j->w.rows, j->w.cols,
                  what, v->message);
    else
        cr_assert(v->result != CHK_FAIL, "%s: %s", what, v->message);
}

void jobs_init_params(chk_job *ref, chk_job *got, apo_runtime *cpu, const char *kernel, size_t rows,
                      size_t cols, const double *x, const apo_param *params, size_t n_params) {
    chk_verdict v;
    chk_job_init(ref, cpu, kernel, rows, cols, x, params, n_params, 42, &v);
    assert_verdict(&v, ref, "job");
    chk_reference(ref, cpu, &v);
    assert_verdict(&v, ref, "cpu reference");
    chk_job_init_like(got, ref, &v);
    assert_verdict(&v, got, "job");
}

/* The reference of case c on input x, run on `cpu`, and a job for the side under test. */
void jobs_init(chk_job *ref, chk_job *got, apo_runtime *cpu, const gcase *c, const double *x) {
    const apo_param param = {c->param, c->value};
    jobs_init_params(ref, got, cpu, c->kernel, c->rows, c->cols, x, &param,
                     c->param != NULL ? 1 : 0);
}

void jobs_free(chk_job *ref, chk_job *got) {
    chk_job_free(ref);
    chk_job_free(got);
}

void case_jobs_open(case_jobs *cj, apo_runtime *cpu, const gcase *c, uint64_t seed) {
    cj->x = walk(c->rows, c->cols, seed);
    jobs_init(&cj->ref, &cj->got, cpu, c, cj->x);
}

void case_jobs_close(case_jobs *cj) {
    jobs_free(&cj->ref, &cj->got);
    free(cj->x);
    cj->x = NULL;
}

chk_verdict assert_run(apo_runtime *rt, const chk_job *ref, chk_job *got, const run_how *how,
                       apo_report *rep, const char *fmt, ...) {
    apo_report own;
    if (rep == NULL)
        rep = &own;
    chk_verdict v;
    if (how->at != NULL)
        chk_resident(rt, ref, got, how->at, rep, &v);
    else
        chk_host_run(rt, ref, got, how->ratios, how->n_ratios, how->split, rep, &v);
    if (how->then != NULL)
        how->then(rep, &v);
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    assert_verdict(&v, got, what);
    return v;
}

/* Free memory of runtime device g (a GPU), as discovery saw it. */
double gpu_free_bytes(const apo_runtime *rt, size_t g) {
    apo_device_info info = APO_DEVICE_INFO_INIT;
    cr_assert_eq(apo_device_get(rt, g, &info), APO_OK);
    return (double)info.memory_free_bytes;
}

/* ---- main: exit 77 (skip) without a GPU, 1 when one is required ----------------------- */

/* The name of this executable, for its messages (the suite has several). */
static const char *program_name(const char *argv0) {
    const char *slash = argv0 != NULL ? strrchr(argv0, '/') : NULL;
    return slash != NULL ? slash + 1 : argv0 != NULL ? argv0 : "test_gpu";
}

int main(int argc, char *argv[]) {
    const char *name = program_name(argc > 0 ? argv[0] : NULL);
    /* A GPU required by the environment (APPORTION_USE_GPU=yes) must not be skipped: the
     * runtime refuses to start without one, and so does the suite. */
    apo_runtime *required = NULL;
    apo_status st = chk_runtime("cuda", APO_USE_GPU_UNSET, 0, APO_SWITCH_UNSET, &required);
    if (st == APO_ERR_GPU_REQUIRED) {
        fprintf(stderr, "%s: FAILED: a GPU is required but none is usable: %s (%s)\n", name,
                apo_last_error(), apo_status_name(st));
        return 1;
    }
    apo_runtime_destroy(required);
    char why[1024];
    const size_t gpus = probe_gpus(why, sizeof why);
    if (gpus == (size_t)-1) {
        fprintf(stderr, "%s: cannot create a runtime on \"cuda\": %s\n", name, why);
        return 1;
    }
    if (gpus == 0) {
        fprintf(stderr, "%s: skipped: no usable GPU (%s)\n", name,
                why[0] != '\0' ? why : "no reason given");
        return 77;
    }
    struct criterion_test_set *tests = criterion_initialize();
    int result = 0;
    if (criterion_handle_args(argc, argv, true))
        result = !criterion_run_all_tests(tests);
    criterion_finalize(tests);
    return result;
}
