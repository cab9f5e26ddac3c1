/*
 * `apportion selftest`: checks every usable device against the CPU reference and reports.
 *
 * The reference is a runtime on the single device "cpu". Every other device of the runtime
 * that a run would use (APPORTION_DEVICES, else auto) is checked on seeded random walks of
 * several shapes, kernel by kernel, bit for bit (memcmp of every output value):
 *
 * - the cpu and sim devices of that runtime, each given the whole workload by explicit
 *   one-hot ratios;
 * - each GPU on a runtime of its own ("cuda:<uuid>"): discovery, an allocation round trip,
 *   every built-in kernel on host arrays, a repeat of the largest shape, a small memory
 *   budget (--gpu-memory-mb) that must stage a larger workload in several chunks (whose
 *   report gives the overlap of transfers and compute), and device-resident arrays
 *   (apo_distribute_workload_cuda);
 * - all devices together with uneven explicit ratios, when there are several;
 * - with two GPUs or more, outputs wanted on the first GPU and computed by all GPUs in
 *   equal shares, gathered once with NCCL and once with peer copies (apo_config.nccl).
 *
 * This file holds the plan (which check runs on which device and shape, with which workload)
 * and the report (table or JSON); the options are in selftest_options.c. The checks
 * themselves, how a workload is run, compared and judged, are those of the gpu suite:
 * checks/gpu_checks.h, whose verdicts become the rows.
 *
 * Only the public headers are used (apportion.h, apportion_cuda.h), here and in the checks.
 * The runtimes of the self-test keep profiles off and learning off: a self-test must not
 * change the stored models. Docs: docs/cli.md.
 */
#include "cli.h"
#include "gpu_checks.h"
#include "input.h"
#include "json_report.h"
#include "options.h"
#include "random_walk.h"
#include "splitmix64.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ST_MAX_SHAPES CLI_SELFTEST_MAX_SHAPES
#define ST_BOOT_REPLICATES 32
#define ST_ALLOC_BYTES ((size_t)64 << 20)

/* The options (selftest_options.c) under the shorter names the rest of this file uses. */
typedef cli_shape st_shape;
typedef cli_selftest_options st_options;

/* ---- the report ------------------------------------------------------------------------- */

/* One row of the report: what was checked, where and on which shape, and its verdict. */
typedef struct st_check {
    char check[24];  /* discovery, allocation, kernel, repeat, overlap, memory-guard, ... */
    char kernel[24]; /* "" when the check is not about one kernel */
    char device[APO_LABEL_MAX];
    char device_id[APO_ID_MAX];
    size_t rows, cols; /* 0 x 0 when the check has no shape */
    long gpu;          /* the index of the GPU checked alone, else -1 */
    chk_verdict v;
} st_check;

/* A device under test: how it is named in the table and where it runs. */
typedef struct st_device {
    char name[APO_LABEL_MAX]; /* "cpu", "sim:a", "cuda:0" */
    char id[APO_ID_MAX];
    size_t index; /* in the main runtime */
    apo_device_kind kind;
} st_device;

/* The reference outputs of one kernel on one shape, computed once. */
typedef struct st_ref {
    int state; /* 0 not computed, 1 computed, -1 failed or not applicable */
    char why[sizeof(((chk_verdict *)0)->message)];
    chk_job job;
} st_ref;

enum { ST_N_KERNELS = 4 };
static const char *const kernel_names[ST_N_KERNELS] = {"bollinger", "macd", "returns_stats",
                                                       "bootstrap"};

typedef struct st_ctx {
    st_options opt;
    apo_runtime *rt;                              /* the devices a run would use */
    apo_runtime *ref;                             /* "cpu" */
    double *inputs[ST_MAX_SHAPES + 1];            /* per shape; the last is the guard's */
    st_shape shapes[ST_MAX_SHAPES + 1];           /* opt.shapes, then the guard's */
    st_ref refs[ST_MAX_SHAPES + 1][ST_N_KERNELS]; /* per shape and kernel */
    size_t largest;                               /* index of the largest shape */
    st_check *checks;
    size_t n_checks, cap_checks;
    int table_started;
    int progress;
    int out_of_memory;
} st_ctx;

static const char *result_name(chk_result r) {
    switch (r) {
    case CHK_PASS:
        return "pass";
    case CHK_FAIL:
        return "FAIL";
    case CHK_WARN:
        return "warn";
    default:
        return "skip";
    }
}

static void print_table_header(st_ctx *c) {
    if (c->opt.json || c->table_started)
        return;
    c->table_started = 1;
    printf("\n%-26s %-12s %-13s %-6s %s\n", "check", "device", "size", "result", "detail");
}

static void progress(st_ctx *c, const char *what, const char *device, st_shape sh) {
    if (!c->progress)
        return;
    fprintf(stderr, "\r%-78s\rselftest: %s on %s, %zu x %zu...", "", what, device, sh.rows,
            sh.cols);
    fflush(stderr);
}

static void progress_clear(st_ctx *c) {
    if (!c->progress)
        return;
    fprintf(stderr, "\r%-78s\r", "");
    fflush(stderr);
}

static void print_check(st_ctx *c, const st_check *k) {
    if (c->opt.json)
        return;
    progress_clear(c);
    print_table_header(c);
    char what[64], size[48];
    if (k->kernel[0] != '\0')
        snprintf(what, sizeof what, "%s %s", k->check, k->kernel);
    else
        snprintf(what, sizeof what, "%s", k->check);
    if (k->rows > 0)
        snprintf(size, sizeof size, "%zux%zu", k->rows, k->cols);
    else
        snprintf(size, sizeof size, "-");
    printf("%-26s %-12s %-13s %-6s %s\n", what, k->device, size, result_name(k->v.result),
           k->v.message);
    fflush(stdout);
}

/* Appends a check (copied) and prints its row. */
static void add_check(st_ctx *c, const st_check *k) {
    if (c->n_checks == c->cap_checks) {
        size_t cap = c->cap_checks ? 2 * c->cap_checks : 64;
        st_check *p = realloc(c->checks, cap * sizeof *p);
        if (p == NULL) {
            c->out_of_memory = 1;
            return;
        }
        c->checks = p;
        c->cap_checks = cap;
    }
    c->checks[c->n_checks++] = *k;
    print_check(c, k);
}

/* A bounded copy that always terminates dst. */
static void copy_str(char *dst, size_t size, const char *src) {
    const size_t n = strnlen(src, size - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* A row about to be checked: its names and shape, and a passed verdict with no figures. */
static void row_init(st_check *k, const char *check, const char *kernel, const st_device *d,
                     st_shape sh) {
    memset(k, 0, sizeof *k);
    copy_str(k->check, sizeof k->check, check);
    copy_str(k->kernel, sizeof k->kernel, kernel != NULL ? kernel : "");
    if (d != NULL) {
        copy_str(k->device, sizeof k->device, d->name);
        copy_str(k->device_id, sizeof k->device_id, d->id);
    }
    k->rows = sh.rows;
    k->cols = sh.cols;
    k->gpu = d != NULL && d->kind == APO_DEVICE_CUDA ? (long)d->index : -1;
    chk_verdict_init(&k->v);
}

/* ---- workloads -------------------------------------------------------------------------- */

/* The shape's parameters of a kernel, or a reason why the kernel does not apply. */
static int kernel_params(const char *kernel, st_shape sh, apo_param *params, size_t *n_params,
                         char *why, size_t why_size) {
    *n_params = 0;
    if (strcmp(kernel, "bollinger") == 0) {
        if (sh.cols < 2) {
            snprintf(why, why_size, "a series of %zu sample is shorter than any period (>= 2)",
                     sh.cols);
            return -1;
        }
        /* The default period, or the whole series when that is shorter. */
        params[0] = (apo_param){"period", sh.cols < 20 ? (double)sh.cols : 20.0};
        *n_params = 1;
    } else if (strcmp(kernel, "bootstrap") == 0) {
        if (sh.cols < 2) {
            snprintf(why, why_size, "bootstrap needs 2 samples per row (one return)");
            return -1;
        }
        params[0] = (apo_param){"replicates", ST_BOOT_REPLICATES};
        *n_params = 1;
    }
    return 0;
}

/* The reference of kernel k on shape s, computed on first use on the "cpu" runtime. */
static const st_ref *get_ref(st_ctx *c, size_t s, size_t k) {
    st_ref *r = &c->refs[s][k];
    if (r->state != 0)
        return r;
    r->state = -1;
    const st_shape sh = c->shapes[s];
    apo_param params[1];
    size_t n_params = 0;
    if (kernel_params(kernel_names[k], sh, params, &n_params, r->why, sizeof r->why) != 0)
        return r;
    if (c->inputs[s] == NULL) {
        c->inputs[s] = malloc(sh.rows * sh.cols * sizeof(double));
        if (c->inputs[s] == NULL) {
            snprintf(r->why, sizeof r->why, "out of memory for the input (%zu x %zu)", sh.rows,
                     sh.cols);
            return r;
        }
        /* A fresh walk per shape: the seed moves with the shape's index. */
        apo__random_walk(c->inputs[s], sh.rows, sh.cols, c->opt.seed + s);
    }
    chk_verdict v;
    chk_job_init(&r->job, c->ref, kernel_names[k], sh.rows, sh.cols, c->inputs[s], params, n_params,
                 c->opt.seed, &v);
    if (v.result == CHK_PASS)
        chk_reference(&r->job, c->ref, &v);
    if (v.result != CHK_PASS) {
        snprintf(r->why, sizeof r->why, "%s", v.message);
        chk_job_free(&r->job);
        return r;
    }
    r->state = 1;
    return r;
}

/* The reference of kernel k on shape s and a job `got` for the side under test; NULL with
 * the verdict saying why not (a skip when there is no reference). */
static const st_ref *prepare(st_ctx *c, size_t s, size_t k, chk_job *got, apo_report *rep,
                             chk_verdict *v) {
    const apo_report init = APO_REPORT_INIT;
    *rep = init;
    memset(got, 0, sizeof *got);
    const st_ref *ref = get_ref(c, s, k);
    if (ref->state != 1) {
        chk_verdict_set(v, CHK_SKIP, "%s", ref->why);
        return NULL;
    }
    chk_job_init_like(got, &ref->job, v);
    return v->result == CHK_PASS ? ref : NULL;
}

/* Kernel k on shape s on rt with host arrays (explicit ratios, split along time, when given),
 * compared with the reference. */
static void run_host(st_ctx *c, apo_runtime *rt, size_t s, size_t k, const double *ratios,
                     size_t n_ratios, apo_report *rep, chk_verdict *v) {
    chk_job got;
    const st_ref *ref = prepare(c, s, k, &got, rep, v);
    if (ref != NULL)
        chk_host_run(rt, &ref->job, &got, ratios, n_ratios,
                     ratios != NULL ? APO_SPLIT_TIME : APO_SPLIT_AUTO, rep, v);
    chk_job_free(&got);
}

/* Kernel k on shape s on rt with arrays in GPU memory as `at` says, compared likewise. */
static void run_resident(st_ctx *c, apo_runtime *rt, const chk_placement *at, size_t s, size_t k,
                         apo_report *rep, chk_verdict *v) {
    chk_job got;
    const st_ref *ref = prepare(c, s, k, &got, rep, v);
    if (ref != NULL)
        chk_resident(rt, &ref->job, &got, at, rep, v);
    chk_job_free(&got);
}

/* ---- the devices ------------------------------------------------------------------------ */

static void short_name(const apo_device_info *info, char *out, size_t size) {
    if (info->kind == APO_DEVICE_CUDA) {
        /* Labels read "cuda:N <name>": the table shows "cuda:N". */
        size_t n = strcspn(info->label, " ");
        snprintf(out, size, "%.*s", (int)n, info->label);
    } else {
        snprintf(out, size, "%s", info->id);
    }
}

/* Kernel checks of a cpu or sim device of the main runtime: the whole work by one-hot
 * ratios. */
static void check_host_device(st_ctx *c, const st_device *d, size_t n_devices) {
    double ratios[APO_MAX_DEVICES];
    for (size_t i = 0; i < n_devices; i++)
        ratios[i] = i == d->index ? 1.0 : 0.0;
    for (size_t s = 0; s < c->opt.n_shapes; s++) {
        for (size_t ki = 0; ki < ST_N_KERNELS; ki++) {
            st_check k;
            apo_report rep;
            row_init(&k, "kernel", kernel_names[ki], d, c->shapes[s]);
            progress(c, kernel_names[ki], d->name, c->shapes[s]);
            run_host(c, c->rt, s, ki, ratios, n_devices, &rep, &k.v);
            add_check(c, &k);
        }
    }
}

/* Every device of the main runtime at once, with uneven explicit ratios. */
static void check_split(st_ctx *c, size_t n_devices) {
    double ratios[APO_MAX_DEVICES];
    for (size_t i = 0; i < n_devices; i++)
        ratios[i] = (double)(i + 1);
    st_device all;
    memset(&all, 0, sizeof all);
    snprintf(all.name, sizeof all.name, "all");
    snprintf(all.id, sizeof all.id, "all");
    for (size_t s = 0; s < c->opt.n_shapes; s++) {
        for (size_t ki = 0; ki < ST_N_KERNELS; ki++) {
            st_check k;
            apo_report rep;
            row_init(&k, "split", kernel_names[ki], &all, c->shapes[s]);
            progress(c, kernel_names[ki], "all devices", c->shapes[s]);
            run_host(c, c->rt, s, ki, ratios, n_devices, &rep, &k.v);
            if (k.v.result == CHK_PASS) {
                size_t used = 0;
                for (size_t i = 0; i < rep.n_devices && i < APO_MAX_DEVICES; i++)
                    used += rep.devices[i].elements > 0;
                char list[64];
                if (n_devices <= 8) {
                    size_t o = 0;
                    for (size_t i = 0; i < n_devices; i++)
                        o += (size_t)snprintf(list + o, sizeof list - o, "%s%zu", i ? ":" : "",
                                              i + 1);
                } else {
                    snprintf(list, sizeof list, "1:2:...:%zu", n_devices);
                }
                chk_verdict_append(&k.v, "; ratios %s in device order, %zu of %zu devices computed",
                                   list, used, n_devices);
            }
            add_check(c, &k);
        }
    }
}

/* The allocation row: a round trip of ST_ALLOC_BYTES of seeded bits through the GPU. */
static void check_allocation(st_ctx *c, const st_device *d) {
    st_check k;
    row_init(&k, "allocation", NULL, d, (st_shape){0, 0});
    const size_t n = ST_ALLOC_BYTES / sizeof(uint64_t);
    uint64_t *pattern = malloc(ST_ALLOC_BYTES);
    if (pattern == NULL) {
        chk_verdict_set(&k.v, CHK_FAIL, "out of host memory");
    } else {
        for (size_t i = 0; i < n; i++)
            pattern[i] = apo__splitmix64(c->opt.seed, i);
        chk_round_trip(c->rt, d->index, pattern, ST_ALLOC_BYTES, 0, &k.v);
    }
    free(pattern);
    add_check(c, &k);
}

/* A runtime on the one GPU `spec` with a staging budget of gpu_mb MiB (0: the default), or
 * NULL after a failed row `check` that says why. */
static apo_runtime *gpu_runtime(st_ctx *c, const st_device *d, const char *spec, size_t gpu_mb,
                                const char *check, st_shape sh) {
    apo_runtime *rt = NULL;
    apo_status st = chk_runtime(spec, APO_USE_GPU_YES, gpu_mb, APO_SWITCH_UNSET, &rt);
    if (st == APO_OK && chk_first_gpu(rt) >= 0)
        return rt;
    char why[APO_LABEL_MAX * 2] = "it has no GPU";
    if (st != APO_OK)
        chk_status_text(st, why, sizeof why);
    st_check k;
    row_init(&k, check, NULL, d, sh);
    if (gpu_mb > 0)
        chk_verdict_set(&k.v, CHK_FAIL, "a runtime on %s with gpu_memory_mb %zu: %s", spec, gpu_mb,
                        why);
    else
        chk_verdict_set(&k.v, CHK_FAIL, "a runtime on %s: %s", spec, why);
    add_check(c, &k);
    apo_runtime_destroy(rt);
    return NULL;
}

static void check_gpu(st_ctx *c, const st_device *d, const apo_device_info *info) {
    st_check k;
    row_init(&k, "discovery", NULL, d, (st_shape){0, 0});
    chk_discovery(info, &k.v);
    add_check(c, &k);
    check_allocation(c, d);

    char spec[APO_ID_MAX + 8];
    snprintf(spec, sizeof spec, "cuda:%s", d->id);
    apo_runtime *rt = gpu_runtime(c, d, spec, 0, "runtime", (st_shape){0, 0});
    if (rt == NULL)
        return;
    const size_t gi = (size_t)chk_first_gpu(rt);

    /* Every kernel on every shape, host arrays. */
    for (size_t s = 0; s < c->opt.n_shapes; s++) {
        for (size_t ki = 0; ki < ST_N_KERNELS; ki++) {
            apo_report rep;
            row_init(&k, "kernel", kernel_names[ki], d, c->shapes[s]);
            progress(c, kernel_names[ki], d->name, c->shapes[s]);
            run_host(c, rt, s, ki, NULL, 0, &rep, &k.v);
            chk_gpu_computed_all(&rep, &k.v);
            add_check(c, &k);
        }
    }

    /* The largest shape again: the same bits a second time. */
    const size_t big = c->largest;
    for (size_t ki = 0; ki < ST_N_KERNELS; ki++) {
        apo_report rep;
        row_init(&k, "repeat", kernel_names[ki], d, c->shapes[big]);
        progress(c, "repeat", d->name, c->shapes[big]);
        run_host(c, rt, big, ki, NULL, 0, &rep, &k.v);
        chk_gpu_computed_all(&rep, &k.v);
        add_check(c, &k);
    }

    /* The memory guard: a budget of gpu_mb MiB and a workload of 2 * gpu_mb MiB of input,
     * which must be staged in several chunks and give the same bits. Its runs also judge the
     * overlap: chunks are whole waves of tiles over the SMs (docs/cuda.md, "The pipeline"),
     * so a default shape of a million samples is one chunk under the full budget, and only
     * the small budget's slots cut it into enough chunks to overlap anything. */
    const size_t gs = c->opt.n_shapes; /* the guard's shape slot */
    apo_runtime *guard = gpu_runtime(c, d, spec, c->opt.gpu_mb, "memory-guard", c->shapes[gs]);
    for (size_t ki = 0; ki < 3 && guard != NULL; ki++) {
        apo_report rep;
        row_init(&k, "memory-guard", kernel_names[ki], d, c->shapes[gs]);
        progress(c, "memory guard", d->name, c->shapes[gs]);
        run_host(c, guard, gs, ki, NULL, 0, &rep, &k.v);
        chk_gpu_computed_all(&rep, &k.v);
        chk_staged_in_chunks(&rep, c->opt.gpu_mb, &k.v);
        add_check(c, &k);
        /* The streaming indicators are where transfers dominate. */
        if (k.v.result == CHK_PASS && ki < 2) {
            const chk_verdict run = k.v;
            row_init(&k, "overlap", kernel_names[ki], d, c->shapes[gs]);
            chk_overlap(&run, &k.v);
            add_check(c, &k);
        }
    }
    apo_runtime_destroy(guard);

    /* Device-resident input and outputs. */
    const chk_placement at = {gi, 1, 1, NULL, 0, 0, 0};
    for (size_t s = 0; s < c->opt.n_shapes; s++) {
        for (size_t ki = 0; ki < ST_N_KERNELS; ki++) {
            apo_report rep;
            row_init(&k, "resident", kernel_names[ki], d, c->shapes[s]);
            progress(c, "resident", d->name, c->shapes[s]);
            run_resident(c, rt, &at, s, ki, &rep, &k.v);
            add_check(c, &k);
        }
    }
    apo_runtime_destroy(rt);
}

/* With two GPUs or more: outputs wanted on the first GPU, computed by every GPU of the
 * machine in equal shares, gathered once by NCCL and once by peer copies (apo_config.nccl);
 * both must give the cpu's bits, and the NCCL run must have used NCCL when the library has
 * it. */
static void check_gather(st_ctx *c) {
    double ratios[APO_MAX_DEVICES];
    for (size_t i = 0; i < APO_MAX_DEVICES; i++)
        ratios[i] = 1.0;
    st_device all;
    memset(&all, 0, sizeof all);
    snprintf(all.name, sizeof all.name, "all GPUs");
    snprintf(all.id, sizeof all.id, "cuda");
    const apo_switch paths[2] = {APO_SWITCH_ON, APO_SWITCH_OFF};
    /* A library built without NCCL (-Dnccl=disabled, the simulated GPUs' build) gathers by
     * peer copies whatever the switch says. */
#ifdef APO_CLI_HAVE_NCCL
    const apo_gather expected[2] = {APO_GATHER_NCCL, APO_GATHER_PEER};
#else
    const apo_gather expected[2] = {APO_GATHER_PEER, APO_GATHER_PEER};
#endif
    const char *const names[2] = {"gather-nccl", "gather-peer"};
    for (int p = 0; p < 2; p++) {
        apo_runtime *rt = NULL;
        size_t gpus = 0;
        apo_status st = chk_runtime("cuda", APO_USE_GPU_YES, 0, paths[p], &rt);
        if (st == APO_OK)
            st = apo_device_count(rt, &gpus);
        char why[APO_LABEL_MAX * 2] = "";
        if (st != APO_OK)
            chk_status_text(st, why, sizeof why);
        const chk_placement at = {0, 0, 1, ratios, gpus, 0, 0};
        for (size_t ki = 0; ki < ST_N_KERNELS; ki++) {
            st_check k;
            apo_report rep;
            row_init(&k, names[p], kernel_names[ki], &all, c->shapes[c->largest]);
            progress(c, names[p], all.name, c->shapes[c->largest]);
            if (st != APO_OK) {
                chk_verdict_set(&k.v, CHK_FAIL, "runtime on every GPU: %s", why);
            } else {
                run_resident(c, rt, &at, c->largest, ki, &rep, &k.v);
                chk_gather(&rep, 0, expected[p], &k.v);
            }
            add_check(c, &k);
        }
        apo_runtime_destroy(rt);
    }
}

/* ---- output ----------------------------------------------------------------------------- */

static json_t *check_json(const st_check *k) {
    const chk_verdict *v = &k->v;
    json_t *o = json_object();
    json_object_set_new(o, "check", json_string(k->check));
    json_object_set_new(o, "kernel", k->kernel[0] ? json_string(k->kernel) : json_null());
    json_object_set_new(o, "device", cli_json_string(k->device));
    json_object_set_new(o, "device_id", cli_json_string(k->device_id));
    json_object_set_new(o, "rows", k->rows > 0 ? cli_json_u64(k->rows) : json_null());
    json_object_set_new(o, "cols", k->rows > 0 ? cli_json_u64(k->cols) : json_null());
    const char *r = v->result == CHK_PASS   ? "pass"
                    : v->result == CHK_FAIL ? "fail"
                    : v->result == CHK_WARN ? "warn"
                                            : "skip";
    json_object_set_new(o, "result", json_string(r));
    json_object_set_new(o, "detail", cli_json_string(v->message));
    json_object_set_new(o, "values_compared",
                        v->compared >= 0 ? json_integer(v->compared) : json_null());
    json_object_set_new(o, "values_differ", v->differ >= 0 ? json_integer(v->differ) : json_null());
    json_object_set_new(o, "chunks", v->chunks >= 0 ? json_integer(v->chunks) : json_null());
    json_object_set_new(o, "overlap", cli_json_number(v->overlap));
    return o;
}

/* The counts of every check, and how many GPUs passed at least one check of their own. */
static chk_counts count_checks(const st_ctx *c, size_t *gpus_passed) {
    chk_counts n = {0, 0, 0, 0};
    unsigned char passed[APO_MAX_DEVICES] = {0};
    for (size_t i = 0; i < c->n_checks; i++) {
        const st_check *k = &c->checks[i];
        chk_count(&n, k->v.result);
        if (k->gpu >= 0 && k->gpu < APO_MAX_DEVICES && k->v.result == CHK_PASS)
            passed[k->gpu] = 1;
    }
    *gpus_passed = 0;
    for (size_t i = 0; i < APO_MAX_DEVICES; i++)
        *gpus_passed += passed[i];
    return n;
}

/* "reason; reason" from the runtime's warnings that name the GPU, or the device-list
 * explanation when there is none. */
static void no_gpu_reason(const apo_runtime *rt, char *out, size_t size) {
    size_t n = 0, o = 0;
    out[0] = '\0';
    apo_runtime_warning_count(rt, &n);
    for (size_t i = 0; i < n; i++) {
        const char *w = NULL;
        if (apo_runtime_warning(rt, i, &w) != APO_OK || w == NULL || strstr(w, "GPU") == NULL)
            continue;
        int wrote = snprintf(out + o, size - o, "%s%s", o ? "; " : "", w);
        if (wrote < 0 || (size_t)wrote >= size - o)
            return;
        o += (size_t)wrote;
    }
    if (o == 0)
        snprintf(out, size,
                 "no GPU selected: APPORTION_DEVICES or APPORTION_USE_GPU keep to the "
                 "CPU and simulated devices");
}

static int finish(st_ctx *c, size_t gpus, const char *reason, const apo_device_info *devs,
                  size_t n_devices, const char *ref_label) {
    progress_clear(c);
    if (c->out_of_memory) {
        cli_error("out of memory while recording the checks");
        return CLI_EXIT_FAILURE;
    }
    size_t gpus_passed = 0;
    const chk_counts n = count_checks(c, &gpus_passed);
    /* Never "passed" on GPU checks that all skipped (checks/gpu_checks.h). */
    const chk_overall verdict = chk_overall_verdict(&n, gpus, gpus_passed);
    const int exit_ok = chk_overall_exit(verdict) == 0;
    if (c->opt.json) {
        json_t *o = json_object();
        json_object_set_new(o, "ok", json_boolean(exit_ok));
        json_object_set_new(o, "verdict", json_string(chk_overall_name(verdict)));
        json_object_set_new(o, "gpu_available", json_boolean(gpus > 0));
        json_object_set_new(o, "gpu_count", cli_json_u64(gpus));
        json_object_set_new(o, "gpus_passed", cli_json_u64(gpus_passed));
        json_object_set_new(o, "no_gpu_reason", gpus > 0 ? json_null() : cli_json_string(reason));
        json_object_set_new(o, "seed", cli_json_u64(c->opt.seed));
        json_t *sizes = json_array();
        for (size_t s = 0; s < c->opt.n_shapes; s++)
            json_array_append_new(sizes, json_pack("{s:o,s:o}", "rows",
                                                   cli_json_u64(c->opt.shapes[s].rows), "cols",
                                                   cli_json_u64(c->opt.shapes[s].cols)));
        json_object_set_new(o, "sizes", sizes);
        json_object_set_new(o, "gpu_memory_mb", cli_json_u64(c->opt.gpu_mb));
        json_object_set_new(o, "reference", cli_json_string(ref_label));
        json_t *devices = json_array();
        for (size_t i = 0; i < n_devices; i++)
            json_array_append_new(devices,
                                  json_pack("{s:o,s:o,s:s}", "id", cli_json_string(devs[i].id),
                                            "label", cli_json_string(devs[i].label), "kind",
                                            apo_device_kind_name(devs[i].kind)));
        json_object_set_new(o, "devices", devices);
        json_object_set_new(o, "warnings", cli_runtime_warnings_json(c->rt));
        json_t *checks = json_array();
        for (size_t i = 0; i < c->n_checks; i++)
            json_array_append_new(checks, check_json(&c->checks[i]));
        json_object_set_new(o, "checks", checks);
        json_object_set_new(o, "passed", cli_json_u64(n.pass));
        json_object_set_new(o, "failed", cli_json_u64(n.fail));
        json_object_set_new(o, "warned", cli_json_u64(n.warn));
        json_object_set_new(o, "skipped", cli_json_u64(n.skip));
        int rc = cli_json_print(o);
        json_decref(o);
        if (rc != CLI_EXIT_OK)
            return rc;
    } else {
        printf("\n%zu checks: %zu passed, %zu failed, %zu warnings, %zu skipped\n", c->n_checks,
               n.pass, n.fail, n.warn, n.skip);
        if (gpus == 0)
            printf("no GPU was checked: no GPU found (%s)\n", reason);
        switch (verdict) {
        case CHK_OVERALL_PASSED:
            printf("selftest passed\n");
            break;
        case CHK_OVERALL_FAILED:
            printf("selftest FAILED\n");
            break;
        case CHK_OVERALL_NO_GPU:
            printf("selftest: no GPU to check; the cpu and simulated devices gave the reference's "
                   "bits\n");
            break;
        case CHK_OVERALL_NOTHING_PASSED:
            printf("selftest FAILED: no check passed (every one was skipped)\n");
            break;
        case CHK_OVERALL_GPU_UNCHECKED:
            printf("selftest INCOMPLETE: %zu of %zu GPU(s) passed no check: each of their "
                   "checks was skipped or only warned\n",
                   gpus - gpus_passed, gpus);
            break;
        }
        if (fflush(stdout) != 0) {
            cli_error("cannot write to standard output");
            return CLI_EXIT_FAILURE;
        }
    }
    return exit_ok ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

static void free_ctx(st_ctx *c) {
    for (size_t s = 0; s <= ST_MAX_SHAPES; s++) {
        free(c->inputs[s]);
        for (size_t k = 0; k < ST_N_KERNELS; k++)
            chk_job_free(&c->refs[s][k].job);
    }
    free(c->checks);
    apo_runtime_destroy(c->rt);
    apo_runtime_destroy(c->ref);
}

static int selftest(st_ctx *c) {
    /* The devices a run would use, from the environment; APPORTION_USE_GPU=yes without a
     * GPU fails here (exit 1). */
    apo_status st = chk_runtime(c->opt.devices, APO_USE_GPU_UNSET, 0, APO_SWITCH_UNSET, &c->rt);
    if (st != APO_OK)
        return cli_status_error(st, "cannot create the runtime");
    st = chk_runtime("cpu", APO_USE_GPU_NO, 0, APO_SWITCH_UNSET, &c->ref);
    if (st != APO_OK) {
        char err[APO_LABEL_MAX * 2];
        chk_status_text(st, err, sizeof err);
        cli_error("cannot create the cpu reference runtime: %s", err);
        return CLI_EXIT_FAILURE;
    }
    if (!c->opt.json)
        cli_print_runtime_warnings(c->rt);

    for (size_t k = 0; k < ST_N_KERNELS; k++) {
        apo_kernel_info info = APO_KERNEL_INFO_INIT;
        st = apo_kernel_get(c->ref, kernel_names[k], &info);
        if (st != APO_OK)
            return cli_status_error(st, "a built-in kernel is missing");
    }

    /* Shapes: the user's, then the memory guard's (2 * gpu_mb MiB of input, off the tile
     * grid by an odd amount). */
    for (size_t s = 0; s < c->opt.n_shapes; s++) {
        c->shapes[s] = c->opt.shapes[s];
        const st_shape a = c->shapes[s], b = c->shapes[c->largest];
        if ((double)a.rows * (double)a.cols > (double)b.rows * (double)b.cols)
            c->largest = s;
    }
    c->shapes[c->opt.n_shapes] = (st_shape){1, c->opt.gpu_mb * 262144 + 12345};

    size_t n = 0, gpus = 0;
    st = apo_device_count(c->rt, &n);
    if (st == APO_OK)
        st = apo_gpu_count(c->rt, &gpus);
    if (st != APO_OK)
        return cli_status_error(st, "cannot query the devices");
    if (n > APO_MAX_DEVICES)
        n = APO_MAX_DEVICES;
    apo_device_info devs[APO_MAX_DEVICES];
    st_device tested[APO_MAX_DEVICES];
    for (size_t i = 0; i < n; i++) {
        apo_device_info init = APO_DEVICE_INFO_INIT;
        devs[i] = init;
        st = apo_device_get(c->rt, i, &devs[i]);
        if (st != APO_OK)
            return cli_status_error(st, "cannot describe a device");
        memset(&tested[i], 0, sizeof tested[i]);
        short_name(&devs[i], tested[i].name, sizeof tested[i].name);
        snprintf(tested[i].id, sizeof tested[i].id, "%s", devs[i].id);
        tested[i].index = i;
        tested[i].kind = devs[i].kind;
    }
    apo_device_info ref_info = APO_DEVICE_INFO_INIT;
    if (apo_device_get(c->ref, 0, &ref_info) != APO_OK)
        snprintf(ref_info.label, sizeof ref_info.label, "cpu");

    char reason[2048];
    no_gpu_reason(c->rt, reason, sizeof reason);
    if (!c->opt.json) {
        printf("selftest: reference %s; seed %llu; sizes", ref_info.label,
               (unsigned long long)c->opt.seed);
        for (size_t s = 0; s < c->opt.n_shapes; s++)
            printf("%s %zux%zu", s ? "," : "", c->opt.shapes[s].rows, c->opt.shapes[s].cols);
        printf("\ndevices:");
        for (size_t i = 0; i < n; i++)
            printf("%s %s", i ? "," : "", devs[i].label);
        printf("\n");
        if (gpus == 0)
            printf("no GPU found: %s\nchecking the cpu and simulated devices only\n", reason);
        else
            printf("GPUs found: %zu\n", gpus);
        fflush(stdout);
    }

    for (size_t i = 0; i < n; i++) {
        if (tested[i].kind == APO_DEVICE_CUDA)
            check_gpu(c, &tested[i], &devs[i]);
        else
            check_host_device(c, &tested[i], n);
    }
    if (n > 1)
        check_split(c, n);
    if (gpus > 1)
        check_gather(c);
    return finish(c, gpus, reason, devs, n, ref_info.label);
}

int cli_cmd_selftest(int argc, char **argv) {
    st_ctx *c = calloc(1, sizeof *c);
    if (c == NULL) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    cli_selftest_options_init(&c->opt);
    int rc = cli_selftest_parse_options(argc, argv, &c->opt);
    if (rc < 0) {
        c->progress = !c->opt.json && cli_stderr_is_tty();
        rc = selftest(c);
        /* With --json the warnings belong in the object; when there is none (a failure
         * before it), they go to stderr rather than being lost. */
        if (rc != CLI_EXIT_OK && c->opt.json && c->n_checks == 0)
            cli_print_runtime_warnings(c->rt);
    }
    free_ctx(c);
    free(c);
    return rc;
}
