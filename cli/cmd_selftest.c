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
 *   every built-in kernel on host arrays, a repeat of the largest shape (whose report gives
 *   the overlap of transfers and compute), a small memory budget (--gpu-memory-mb) that
 *   must stage a larger workload in several chunks, and device-resident arrays
 *   (apo_distribute_workload_cuda);
 * - all devices together with uneven explicit ratios, when there are several;
 * - with two GPUs or more, outputs wanted on the first GPU and computed by all GPUs in
 *   equal shares, gathered once with NCCL and once with peer copies (apo_config.nccl).
 *
 * Only the public headers are used (apportion.h, apportion_cuda.h). The runtimes of the
 * self-test keep profiles off and learning off: a self-test must not change the stored
 * models. Docs: docs/cli.md.
 */
#include "cli.h"
#include "input.h"
#include "json_report.h"
#include "options.h"

#include <apportion_cuda.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ST_MAX_SHAPES CLI_SELFTEST_MAX_SHAPES
#define ST_BOOT_REPLICATES 32
#define ST_ALLOC_BYTES ((size_t)64 << 20)
#define ST_MIN_GPU_MB CLI_SELFTEST_MIN_GPU_MB
#define ST_MAX_GPU_MB CLI_SELFTEST_MAX_GPU_MB

static const char selftest_help[] =
    "Usage: apportion selftest [--sizes LIST] [--seed S] [--gpu-memory-mb N]\n"
    "                          [--devices LIST] [--json]\n"
    "\n"
    "Check every usable device against the CPU reference: each built-in kernel (bollinger,\n"
    "macd, returns_stats, bootstrap) on seeded random walks must give the bits of a run on\n"
    "the cpu alone. For each GPU also: discovery, an allocation, the overlap of transfers\n"
    "and compute, a small memory budget that must split the work into chunks, and arrays\n"
    "resident on the GPU. With two GPUs or more, outputs wanted on the first GPU and computed\n"
    "by all of them, gathered by NCCL and by peer copies. Without a GPU, says why and checks\n"
    "the cpu and simulated devices.\n"
    "\n"
    "Options:\n"
    "  --sizes LIST         shapes to check, comma separated: N (one series of N samples)\n"
    "                       or RxC (R series of C samples); default\n"
    "                       1,4095,4097,100003,1000003,3x50001\n"
    "  --seed S             seed of the random walks and of the workloads (default 1)\n"
    "  --gpu-memory-mb N    memory budget of the memory-guard check, MiB (default 8); its\n"
    "                       workload has 2*N MiB of input\n"
    "  --devices LIST       device list as in APPORTION_DEVICES (overrides it)\n"
    "  --json               print one JSON object with every check instead of the table\n"
    "  -h, --help           show this help\n"
    "\n"
    "APPORTION_DEVICES and APPORTION_USE_GPU apply: with APPORTION_USE_GPU=yes a missing GPU\n"
    "is an error. Profiles are neither read nor written.\n"
    "Exit status: 0 every check passed (warnings allowed), 1 a check failed or the runtime\n"
    "could not be created, 2 usage error.\n";

static const char default_sizes[] = "1,4095,4097,100003,1000003,3x50001";

/* ---- options ---------------------------------------------------------------------------- */

/* The option names of cli/options.h, shortened as the rest of this file uses them. */
typedef cli_shape st_shape;
typedef cli_selftest_options st_options;

/* One item of --sizes: "N" or "RxC", positive integers whose product fits. */
static int parse_shape(const char *item, st_shape *out) {
    char buf[64];
    if (strlen(item) >= sizeof buf)
        return -1;
    snprintf(buf, sizeof buf, "%s", item);
    char *x = strchr(buf, 'x');
    size_t rows = 1, cols = 0;
    if (x != NULL) {
        *x = '\0';
        if (cli_parse_size(buf, &rows) != 0 || cli_parse_size(x + 1, &cols) != 0)
            return -1;
    } else if (cli_parse_size(buf, &cols) != 0) {
        return -1;
    }
    if (rows == 0 || cols == 0 || cols > SIZE_MAX / sizeof(double) / rows)
        return -1;
    out->rows = rows;
    out->cols = cols;
    return 0;
}

static int parse_sizes(const char *text, st_options *o) {
    o->n_shapes = 0;
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        const size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        char item[64];
        if (len == 0)
            return cli_usage_error("selftest", "--sizes '%s': empty item", text);
        if (len >= sizeof item)
            return cli_usage_error("selftest", "--sizes: item '%.20s...' is too long", p);
        memcpy(item, p, len);
        item[len] = '\0';
        if (o->n_shapes == ST_MAX_SHAPES)
            return cli_usage_error("selftest", "--sizes: at most %d shapes", ST_MAX_SHAPES);
        if (parse_shape(item, &o->shapes[o->n_shapes]) != 0)
            return cli_usage_error(
                "selftest", "--sizes: '%s' is not a shape (N or RxC, positive integers)", item);
        o->n_shapes++;
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    return CLI_EXIT_OK;
}

void cli_selftest_options_init(st_options *o) {
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->gpu_mb = CLI_SELFTEST_DEFAULT_GPU_MB;
}

int cli_selftest_parse_options(int argc, char **argv, st_options *o) {
    const char *sizes = default_sizes;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int r;
#define VALUE(name) ((r = cli_value("selftest", argc, argv, &i, name, &v)) != 0)
        if (cli_flag(a, "--help") || cli_flag(a, "-h")) {
            fputs(selftest_help, stdout);
            return CLI_EXIT_OK;
        } else if (cli_flag(a, "--json")) {
            o->json = 1;
            continue;
        } else if (VALUE("--devices")) {
            if (r > 0)
                o->devices = v;
        } else if (VALUE("--sizes")) {
            if (r > 0)
                sizes = v;
        } else if (VALUE("--seed")) {
            if (r > 0 && cli_parse_u64(v, &o->seed) != 0)
                return cli_usage_error(
                    "selftest", "--seed '%s': expected an integer from 0 to 18446744073709551615",
                    v);
        } else if (VALUE("--gpu-memory-mb")) {
            if (r > 0 && (cli_parse_size(v, &o->gpu_mb) != 0 || o->gpu_mb < ST_MIN_GPU_MB ||
                          o->gpu_mb > ST_MAX_GPU_MB))
                return cli_usage_error("selftest",
                                       "--gpu-memory-mb '%s': expected an integer from %zu to %zu",
                                       v, ST_MIN_GPU_MB, ST_MAX_GPU_MB);
        } else if (a[0] == '-') {
            return cli_usage_error("selftest", "unknown option '%s'", a);
        } else {
            return cli_usage_error("selftest", "unexpected argument '%s'", a);
        }
#undef VALUE
        if (r < 0)
            return CLI_EXIT_USAGE;
    }
    int rc = parse_sizes(sizes, o);
    return rc == CLI_EXIT_OK ? -1 : rc;
}

/* ---- checks ----------------------------------------------------------------------------- */

typedef enum st_result { ST_PASS = 0, ST_FAIL = 1, ST_WARN = 2, ST_SKIP = 3 } st_result;

static const char *result_name(st_result r) {
    switch (r) {
    case ST_PASS:
        return "pass";
    case ST_FAIL:
        return "FAIL";
    case ST_WARN:
        return "warn";
    default:
        return "skip";
    }
}

typedef struct st_check {
    char check[24];  /* discovery, allocation, kernel, repeat, overlap, memory-guard, ... */
    char kernel[24]; /* "" when the check is not about one kernel */
    char device[APO_LABEL_MAX];
    char device_id[APO_ID_MAX];
    size_t rows, cols; /* 0 x 0 when the check has no shape */
    st_result result;
    char detail[512];
    double overlap;   /* NaN when not measured */
    int64_t chunks;   /* -1 when not known */
    int64_t differ;   /* values that differ bitwise; -1 when nothing was compared */
    int64_t compared; /* values compared */
} st_check;

/* A device under test: how it is named in the table and where it runs. */
typedef struct st_device {
    char name[APO_LABEL_MAX]; /* "cpu", "sim:a", "cuda:0" */
    char id[APO_ID_MAX];
    size_t index; /* in the main runtime */
    apo_device_kind kind;
} st_device;

typedef struct st_kernel {
    const char *name;
    size_t n_outputs;
    const char *output_names[APO_MAX_IO];
} st_kernel;

/* The reference outputs of one kernel on one shape, computed once. */
typedef struct st_ref {
    int state; /* 0 not computed, 1 computed, -1 failed or not applicable */
    char why[APO_LABEL_MAX * 2];
    apo_param params[3];
    size_t n_params;
    size_t n_outputs;
    size_t len[APO_MAX_IO];
    double *out[APO_MAX_IO];
} st_ref;

enum { ST_N_KERNELS = 4 };
static const char *const kernel_names[ST_N_KERNELS] = {"bollinger", "macd", "returns_stats",
                                                       "bootstrap"};

typedef struct st_ctx {
    st_options opt;
    apo_runtime *rt;  /* the devices a run would use */
    apo_runtime *ref; /* "cpu" */
    st_kernel kernels[ST_N_KERNELS];
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

/* Two poisons that no kernel writes, different on the two sides: a value left unwritten
 * on either side cannot compare equal. */
static const uint64_t poison_ref = 0x7ff4dead0000beefull;
static const uint64_t poison_dev = 0x7ff4dead0000cafeull;

static void fill_poison(double *p, size_t n, uint64_t bits) {
    for (size_t i = 0; i < n; i++)
        memcpy(&p[i], &bits, sizeof bits);
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
    printf("%-26s %-12s %-13s %-6s %s\n", what, k->device, size, result_name(k->result), k->detail);
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

static void check_init(st_check *k, const char *check, const char *kernel, const st_device *d,
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
    k->overlap = NAN;
    k->chunks = -1;
    k->differ = -1;
    k->compared = -1;
}

/* "<apo_last_error()> (APO_ERR_...)", or the status message when there is no detail. */
static void status_text(apo_status st, char *out, size_t size) {
    const char *detail = apo_last_error();
    snprintf(out, size, "%s (%s)", detail != NULL && detail[0] != '\0' ? detail : apo_strerror(st),
             apo_status_name(st));
}

static void set_detail(st_check *k, const char *fmt, ...) CLI_PRINTF(2, 3);
static void set_detail(st_check *k, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k->detail, sizeof k->detail, fmt, ap);
    va_end(ap);
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

static void workload_init(apo_workload *w, const char *kernel, st_shape sh, const double **in,
                          double **out, size_t n_out, const st_ref *ref, uint64_t seed) {
    apo_workload init = APO_WORKLOAD_INIT;
    *w = init;
    w->kernel = kernel;
    w->rows = sh.rows;
    w->cols = sh.cols;
    w->inputs = in;
    w->n_inputs = 1;
    w->outputs = out;
    w->n_outputs = n_out;
    w->params = ref->params;
    w->n_params = ref->n_params;
    w->seed = seed;
}

static void free_outputs(double **out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(out[i]);
        out[i] = NULL;
    }
}

/* Host outputs shaped like the reference's, filled with `poison`. Returns 0 or -1. */
static int alloc_outputs(const st_ref *ref, double **out, uint64_t poison) {
    for (size_t i = 0; i < ref->n_outputs; i++) {
        out[i] = malloc(ref->len[i] * sizeof(double));
        if (out[i] == NULL) {
            free_outputs(out, i);
            return -1;
        }
        fill_poison(out[i], ref->len[i], poison);
    }
    return 0;
}

/* The reference of kernel k on shape s, computed on first use on the "cpu" runtime. */
static const st_ref *get_ref(st_ctx *c, size_t s, size_t k) {
    st_ref *r = &c->refs[s][k];
    if (r->state != 0)
        return r;
    r->state = -1;
    const st_kernel *kd = &c->kernels[k];
    const st_shape sh = c->shapes[s];
    if (kernel_params(kd->name, sh, r->params, &r->n_params, r->why, sizeof r->why) != 0)
        return r;
    if (c->inputs[s] == NULL) {
        c->inputs[s] = malloc(sh.rows * sh.cols * sizeof(double));
        if (c->inputs[s] == NULL) {
            snprintf(r->why, sizeof r->why, "out of memory for the input (%zu x %zu)", sh.rows,
                     sh.cols);
            return r;
        }
        /* A fresh walk per shape: the seed moves with the shape's index. */
        cli_random_walk(c->inputs[s], sh.rows, sh.cols, c->opt.seed + s);
    }
    r->n_outputs = kd->n_outputs;
    const double *in[1] = {c->inputs[s]};
    apo_workload w;
    workload_init(&w, kd->name, sh, in, r->out, r->n_outputs, r, c->opt.seed);
    for (size_t i = 0; i < r->n_outputs; i++) {
        size_t orows = 0, ocols = 0;
        apo_status st = apo_output_shape(c->ref, &w, i, &orows, &ocols);
        if (st != APO_OK) {
            char text[APO_LABEL_MAX];
            status_text(st, text, sizeof text);
            snprintf(r->why, sizeof r->why, "invalid workload: %s", text);
            return r;
        }
        r->len[i] = orows * ocols;
    }
    if (alloc_outputs(r, r->out, poison_ref) != 0) {
        snprintf(r->why, sizeof r->why, "out of memory for the reference outputs");
        return r;
    }
    apo_status st = apo_distribute_workload(c->ref, &w, NULL);
    if (st != APO_OK) {
        char text[APO_LABEL_MAX];
        status_text(st, text, sizeof text);
        snprintf(r->why, sizeof r->why, "the cpu reference failed: %s", text);
        free_outputs(r->out, r->n_outputs);
        return r;
    }
    r->state = 1;
    return r;
}

/* Compares every output value bitwise; fills k->differ, k->compared and, when some value
 * differs, a detail naming the first. Returns the count of differing values. */
static int64_t compare(const st_kernel *kd, const st_ref *ref, double *const *got, st_check *k) {
    const size_t rows = k->rows > 0 ? k->rows : 1;
    int64_t differ = 0, compared = 0;
    size_t first_out = 0, first_i = 0;
    for (size_t o = 0; o < ref->n_outputs; o++) {
        for (size_t i = 0; i < ref->len[o]; i++) {
            if (memcmp(&ref->out[o][i], &got[o][i], sizeof(double)) != 0) {
                if (differ == 0) {
                    first_out = o;
                    first_i = i;
                }
                differ++;
            }
        }
        compared += (int64_t)ref->len[o];
    }
    k->differ = differ;
    k->compared = compared;
    if (differ > 0) {
        uint64_t a, b;
        memcpy(&a, &ref->out[first_out][first_i], sizeof a);
        memcpy(&b, &got[first_out][first_i], sizeof b);
        const char *unwritten = b == poison_dev ? " (never written)" : "";
        /* Every output has `rows` rows (indicators: cols values each; reductions: one). */
        const size_t per_row = ref->len[first_out] / rows;
        set_detail(k,
                   "%lld of %lld values differ; first %s[row %zu][%zu]: %.17g (0x%016llx) vs "
                   "cpu %.17g (0x%016llx)%s",
                   (long long)differ, (long long)compared, kd->output_names[first_out],
                   first_i / per_row, first_i % per_row, got[first_out][first_i],
                   (unsigned long long)b, ref->out[first_out][first_i], (unsigned long long)a,
                   unwritten);
    }
    return differ;
}

/* The report entry of device kind `kind` (the first one), or NULL. */
static const apo_device_report *report_device(const apo_report *rep, apo_device_kind kind) {
    for (size_t i = 0; i < rep->n_devices && i < APO_MAX_DEVICES; i++)
        if (rep->devices[i].kind == kind)
            return &rep->devices[i];
    return NULL;
}

/* (h2d + kernel + d2h) / wall of one device's report: above 1 when phases overlapped. */
static double overlap_of(const apo_device_report *d) {
    if (d == NULL || !(d->wall_ms > 0.0))
        return NAN;
    return (d->h2d_ms + d->kernel_ms + d->d2h_ms) / d->wall_ms;
}

/*
 * Runs kernel k on shape s on `rt` with host arrays (ratios optional) and compares with the
 * reference. `gpu` names the device kind whose report entry must show the whole work done
 * without failure (APO_DEVICE_CUDA for GPU runs), or -1. Fills k and returns the report.
 */
static void check_host_run(st_ctx *c, apo_runtime *rt, size_t s, size_t ki, const double *ratios,
                           size_t n_ratios, int gpu, st_check *k, apo_report *rep) {
    const st_kernel *kd = &c->kernels[ki];
    const st_ref *ref = get_ref(c, s, ki);
    if (ref->state != 1) {
        k->result = ST_SKIP;
        set_detail(k, "%s", ref->why);
        return;
    }
    double *out[APO_MAX_IO] = {0};
    if (alloc_outputs(ref, out, poison_dev) != 0) {
        k->result = ST_FAIL;
        set_detail(k, "out of memory for the outputs");
        return;
    }
    const double *in[1] = {c->inputs[s]};
    apo_workload w;
    workload_init(&w, kd->name, c->shapes[s], in, out, ref->n_outputs, ref, c->opt.seed);
    w.ratios = ratios;
    w.n_ratios = n_ratios;
    if (ratios != NULL)
        w.split = APO_SPLIT_TIME;
    apo_report init = APO_REPORT_INIT;
    *rep = init;
    apo_status st = apo_distribute_workload(rt, &w, rep);
    if (st != APO_OK) {
        char text[APO_LABEL_MAX * 2];
        status_text(st, text, sizeof text);
        k->result = ST_FAIL;
        set_detail(k, "the run failed: %s", text);
        free_outputs(out, ref->n_outputs);
        return;
    }
    if (compare(kd, ref, out, k) > 0) {
        k->result = ST_FAIL;
        free_outputs(out, ref->n_outputs);
        return;
    }
    free_outputs(out, ref->n_outputs);
    k->result = ST_PASS;
    if (gpu >= 0) {
        const apo_device_report *d = report_device(rep, (apo_device_kind)gpu);
        if (d == NULL || d->failed || d->elements != rep->elements) {
            k->result = ST_FAIL;
            set_detail(k,
                       "bitwise equal, but the GPU did not compute the work: %s (elements "
                       "%llu of %llu)",
                       d == NULL   ? "not in the report"
                       : d->failed ? d->failure
                                   : "partial",
                       d != NULL ? (unsigned long long)d->elements : 0ull,
                       (unsigned long long)rep->elements);
            return;
        }
        k->chunks = (int64_t)d->chunks;
        k->overlap = overlap_of(d);
        set_detail(k, "bitwise equal (%lld values); %llu chunk(s), wall %.3f ms",
                   (long long)k->compared, (unsigned long long)d->chunks, d->wall_ms);
        return;
    }
    set_detail(k, "bitwise equal (%lld values)", (long long)k->compared);
}

/* ---- the devices ------------------------------------------------------------------------ */

static int runtime_for(const char *devices, apo_use_gpu use_gpu, size_t gpu_mb, apo_runtime **rt,
                       char *err, size_t err_size) {
    apo_config config = APO_CONFIG_INIT;
    config.devices = devices;
    config.use_gpu = use_gpu;
    config.profiles = APO_SWITCH_OFF;
    config.learn = APO_SWITCH_OFF;
    config.gpu_memory_mb = gpu_mb;
    *rt = NULL;
    apo_status st = apo_runtime_create(&config, rt);
    if (st != APO_OK) {
        status_text(st, err, err_size);
        return -1;
    }
    return 0;
}

/* The index of the first CUDA device of rt, or -1. */
static long cuda_index(const apo_runtime *rt) {
    size_t n = 0;
    if (apo_device_count(rt, &n) != APO_OK)
        return -1;
    for (size_t i = 0; i < n; i++) {
        apo_device_info info = APO_DEVICE_INFO_INIT;
        if (apo_device_get(rt, i, &info) == APO_OK && info.kind == APO_DEVICE_CUDA)
            return (long)i;
    }
    return -1;
}

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
            check_init(&k, "kernel", c->kernels[ki].name, d, c->shapes[s]);
            progress(c, c->kernels[ki].name, d->name, c->shapes[s]);
            check_host_run(c, c->rt, s, ki, ratios, n_devices, -1, &k, &rep);
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
            check_init(&k, "split", c->kernels[ki].name, &all, c->shapes[s]);
            progress(c, c->kernels[ki].name, "all devices", c->shapes[s]);
            check_host_run(c, c->rt, s, ki, ratios, n_devices, -1, &k, &rep);
            if (k.result == ST_PASS) {
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
                size_t len = strlen(k.detail);
                snprintf(k.detail + len, sizeof k.detail - len,
                         "; ratios %s in device order, %zu of %zu devices computed", list, used,
                         n_devices);
            }
            add_check(c, &k);
        }
    }
}

static void check_discovery(st_ctx *c, const st_device *d, const apo_device_info *info) {
    st_check k;
    check_init(&k, "discovery", NULL, d, (st_shape){0, 0});
    const unsigned long long total = (unsigned long long)(info->memory_total_bytes >> 20);
    const unsigned long long free_mb = (unsigned long long)(info->memory_free_bytes >> 20);
    set_detail(&k,
               "%s, %s, compute capability %d.%d, %d multiprocessors, %d copy engines, "
               "memory %llu MiB free of %llu MiB",
               info->id, info->label, info->compute_capability_major,
               info->compute_capability_minor, info->multiprocessors, info->copy_engines, free_mb,
               total);
    const int sane = strncmp(info->id, "GPU-", 4) == 0 && info->compute_capability_major > 0 &&
                     info->memory_total_bytes > 0 && info->multiprocessors > 0 &&
                     info->memory_free_bytes <= info->memory_total_bytes;
    k.result = sane ? ST_PASS : ST_FAIL;
    if (!sane) {
        size_t len = strlen(k.detail);
        snprintf(k.detail + len, sizeof k.detail - len,
                 " (expected a GPU-<uuid> id, a compute capability, multiprocessors and memory)");
    }
    add_check(c, &k);
}

/* apo_cuda_malloc of ST_ALLOC_BYTES, a pattern written and read back, apo_cuda_free. */
static void check_allocation(st_ctx *c, const st_device *d, const apo_device_info *info) {
    st_check k;
    check_init(&k, "allocation", NULL, d, (st_shape){0, 0});
    const size_t bytes = ST_ALLOC_BYTES;
    if (info->memory_free_bytes < 2 * (uint64_t)bytes) {
        k.result = ST_SKIP;
        set_detail(&k, "only %llu MiB free", (unsigned long long)(info->memory_free_bytes >> 20));
        add_check(c, &k);
        return;
    }
    const size_t n = bytes / sizeof(uint64_t);
    uint64_t *host = malloc(bytes), *back = malloc(bytes);
    void *dev = NULL;
    char text[APO_LABEL_MAX * 2];
    if (host == NULL || back == NULL) {
        k.result = ST_FAIL;
        set_detail(&k, "out of host memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        host[i] = cli_splitmix64(c->opt.seed, i);
        back[i] = ~host[i];
    }
    apo_status st = apo_cuda_malloc(c->rt, d->index, bytes, &dev);
    if (st != APO_OK || dev == NULL) {
        status_text(st, text, sizeof text);
        k.result = ST_FAIL;
        set_detail(&k, "apo_cuda_malloc of %zu MiB: %s", bytes >> 20, text);
        goto done;
    }
    st = apo_cuda_memcpy(c->rt, d->index, dev, host, bytes, APO_COPY_HOST_TO_DEVICE);
    if (st == APO_OK)
        st = apo_cuda_memcpy(c->rt, d->index, back, dev, bytes, APO_COPY_DEVICE_TO_HOST);
    if (st != APO_OK) {
        status_text(st, text, sizeof text);
        k.result = ST_FAIL;
        set_detail(&k, "apo_cuda_memcpy: %s", text);
        goto done;
    }
    if (memcmp(host, back, bytes) != 0) {
        k.result = ST_FAIL;
        set_detail(&k, "%zu MiB written and read back differ", bytes >> 20);
        goto done;
    }
    st = apo_cuda_free(c->rt, d->index, dev);
    dev = NULL;
    if (st != APO_OK) {
        status_text(st, text, sizeof text);
        k.result = ST_FAIL;
        set_detail(&k, "apo_cuda_free: %s", text);
        goto done;
    }
    k.result = ST_PASS;
    set_detail(&k, "%zu MiB allocated, written, read back equal and freed", bytes >> 20);
done:
    if (dev != NULL)
        apo_cuda_free(c->rt, d->index, dev);
    free(host);
    free(back);
    add_check(c, &k);
}

/* Where check_resident() puts the arrays and how it splits the work. */
typedef struct st_placement {
    size_t gpu;           /* device index of the GPU holding the outputs */
    int inputs_on_gpu;    /* the input in its memory too (else host memory) */
    const double *ratios; /* explicit ratios, or NULL */
    size_t n_ratios;
} st_placement;

/* Kernel k on shape s with the outputs (and, if asked, the input) in the memory of one GPU
 * of `rt`; *rep gets the run's report. */
static void check_resident(st_ctx *c, apo_runtime *rt, const st_placement *at, size_t s, size_t ki,
                           st_check *k, apo_report *rep) {
    const size_t gi = at->gpu;
    const st_kernel *kd = &c->kernels[ki];
    const st_ref *ref = get_ref(c, s, ki);
    if (ref->state != 1) {
        k->result = ST_SKIP;
        set_detail(k, "%s", ref->why);
        return;
    }
    const st_shape sh = c->shapes[s];
    double *host[APO_MAX_IO] = {0};
    double *dev_out[APO_MAX_IO] = {0};
    void *dev_in = NULL;
    char text[APO_LABEL_MAX * 2];
    apo_status st = APO_OK;
    const char *what = "";
    if (alloc_outputs(ref, host, poison_dev) != 0) {
        k->result = ST_FAIL;
        set_detail(k, "out of host memory");
        return;
    }
    const size_t in_bytes = sh.rows * sh.cols * sizeof(double);
    if (at->inputs_on_gpu) {
        what = "apo_cuda_malloc (input)";
        st = apo_cuda_malloc(rt, gi, in_bytes, &dev_in);
        if (st == APO_OK) {
            what = "apo_cuda_memcpy (input)";
            st = apo_cuda_memcpy(rt, gi, dev_in, c->inputs[s], in_bytes, APO_COPY_HOST_TO_DEVICE);
        }
    }
    for (size_t o = 0; o < ref->n_outputs && st == APO_OK; o++) {
        void *p = NULL;
        what = "apo_cuda_malloc (outputs)";
        st = apo_cuda_malloc(rt, gi, ref->len[o] * sizeof(double), &p);
        dev_out[o] = p;
        /* Poisoned on the GPU too, so an element the run does not write cannot pass. */
        if (st == APO_OK) {
            what = "apo_cuda_memcpy (poison)";
            st = apo_cuda_memcpy(rt, gi, p, host[o], ref->len[o] * sizeof(double),
                                 APO_COPY_HOST_TO_DEVICE);
        }
    }
    apo_report init = APO_REPORT_INIT;
    *rep = init;
    if (st == APO_OK) {
        const double *in[1] = {at->inputs_on_gpu ? dev_in : c->inputs[s]};
        apo_workload w;
        workload_init(&w, kd->name, sh, in, dev_out, ref->n_outputs, ref, c->opt.seed);
        w.ratios = at->ratios;
        w.n_ratios = at->n_ratios;
        apo_cuda_placement where = APO_CUDA_PLACEMENT_INIT;
        where.inputs_device = at->inputs_on_gpu ? (int)gi : -1;
        where.outputs_device = (int)gi;
        what = "apo_distribute_workload_cuda";
        st = apo_distribute_workload_cuda(rt, &w, &where, rep);
        for (size_t o = 0; o < ref->n_outputs && st == APO_OK; o++) {
            what = "apo_cuda_memcpy (outputs)";
            st = apo_cuda_memcpy(rt, gi, host[o], dev_out[o], ref->len[o] * sizeof(double),
                                 APO_COPY_DEVICE_TO_HOST);
        }
        if (st == APO_OK) {
            const apo_device_report *d = report_device(rep, APO_DEVICE_CUDA);
            if (d != NULL) {
                k->chunks = (int64_t)d->chunks;
                k->overlap = overlap_of(d);
            }
        }
    }
    if (st != APO_OK) {
        status_text(st, text, sizeof text);
        k->result = ST_FAIL;
        set_detail(k, "%s: %s", what, text);
    } else if (compare(kd, ref, host, k) > 0) {
        k->result = ST_FAIL;
    } else {
        k->result = ST_PASS;
        set_detail(k, "bitwise equal (%lld values), %s in GPU memory", (long long)k->compared,
                   at->inputs_on_gpu ? "input and outputs" : "outputs");
    }
    apo_cuda_free(rt, gi, dev_in);
    for (size_t o = 0; o < ref->n_outputs; o++)
        apo_cuda_free(rt, gi, dev_out[o]);
    free_outputs(host, ref->n_outputs);
}

/* Overlap verdict: above 1 means transfers and compute ran at the same time. A warning,
 * not a failure, otherwise (docs/cli.md says why). */
static void overlap_verdict(st_check *k, double overlap, int64_t chunks) {
    if (isnan(overlap)) {
        k->result = ST_WARN;
        set_detail(k, "no timing in the report");
    } else if (overlap > 1.0) {
        k->result = ST_PASS;
        set_detail(k, "(h2d + kernel + d2h) / wall = %.2f over %lld chunk(s)", overlap,
                   (long long)chunks);
    } else {
        k->result = ST_WARN;
        set_detail(k,
                   "(h2d + kernel + d2h) / wall = %.2f over %lld chunk(s): transfers and compute "
                   "did not overlap%s",
                   overlap, (long long)chunks,
                   chunks <= 1 ? " (one chunk: nothing to overlap at this size)" : "");
    }
}

static void check_gpu(st_ctx *c, const st_device *d, const apo_device_info *info) {
    check_discovery(c, d, info);
    check_allocation(c, d, info);

    char spec[APO_ID_MAX + 8], err[APO_LABEL_MAX * 2];
    snprintf(spec, sizeof spec, "cuda:%s", d->id);
    apo_runtime *rt = NULL;
    st_check k;
    if (runtime_for(spec, APO_USE_GPU_YES, 0, &rt, err, sizeof err) != 0 || cuda_index(rt) < 0) {
        check_init(&k, "runtime", NULL, d, (st_shape){0, 0});
        k.result = ST_FAIL;
        set_detail(&k, "a runtime on %s: %s", spec, rt == NULL ? err : "it has no GPU");
        add_check(c, &k);
        apo_runtime_destroy(rt);
        return;
    }
    const size_t gi = (size_t)cuda_index(rt);

    /* Every kernel on every shape, host arrays. */
    for (size_t s = 0; s < c->opt.n_shapes; s++) {
        for (size_t ki = 0; ki < ST_N_KERNELS; ki++) {
            apo_report rep;
            check_init(&k, "kernel", c->kernels[ki].name, d, c->shapes[s]);
            progress(c, c->kernels[ki].name, d->name, c->shapes[s]);
            check_host_run(c, rt, s, ki, NULL, 0, APO_DEVICE_CUDA, &k, &rep);
            add_check(c, &k);
        }
    }

    /* The largest shape again: the same bits a second time, and its overlap. */
    const size_t big = c->largest;
    for (size_t ki = 0; ki < ST_N_KERNELS; ki++) {
        apo_report rep;
        check_init(&k, "repeat", c->kernels[ki].name, d, c->shapes[big]);
        progress(c, "repeat", d->name, c->shapes[big]);
        check_host_run(c, rt, big, ki, NULL, 0, APO_DEVICE_CUDA, &k, &rep);
        add_check(c, &k);
        /* The streaming indicators are where transfers dominate. */
        if (k.result == ST_PASS && ki < 2) {
            const double ov = k.overlap;
            const int64_t chunks = k.chunks;
            check_init(&k, "overlap", c->kernels[ki].name, d, c->shapes[big]);
            k.overlap = ov;
            k.chunks = chunks;
            overlap_verdict(&k, ov, chunks);
            add_check(c, &k);
        }
    }

    /* The memory guard: a budget of gpu_mb MiB and a workload of 2 * gpu_mb MiB of input,
     * which must be staged in several chunks and give the same bits. */
    apo_runtime *guard = NULL;
    const size_t gs = c->opt.n_shapes; /* the guard's shape slot */
    if (runtime_for(spec, APO_USE_GPU_YES, c->opt.gpu_mb, &guard, err, sizeof err) != 0 ||
        cuda_index(guard) < 0) {
        check_init(&k, "memory-guard", NULL, d, c->shapes[gs]);
        k.result = ST_FAIL;
        set_detail(&k, "a runtime on %s with gpu_memory_mb %zu: %s", spec, c->opt.gpu_mb,
                   guard == NULL ? err : "it has no GPU");
        add_check(c, &k);
    } else {
        for (size_t ki = 0; ki < 3; ki++) {
            apo_report rep;
            check_init(&k, "memory-guard", c->kernels[ki].name, d, c->shapes[gs]);
            progress(c, "memory guard", d->name, c->shapes[gs]);
            check_host_run(c, guard, gs, ki, NULL, 0, APO_DEVICE_CUDA, &k, &rep);
            if (k.result == ST_PASS) {
                const int64_t chunks = k.chunks;
                const double in_mb =
                    (double)(c->shapes[gs].rows * c->shapes[gs].cols) * 8.0 / 1048576.0;
                if (chunks <= 1) {
                    k.result = ST_FAIL;
                    set_detail(&k,
                               "bitwise equal, but %lld chunk for %.1f MiB of input under a "
                               "budget of %zu MiB: the budget was not applied",
                               (long long)chunks, in_mb, c->opt.gpu_mb);
                } else {
                    set_detail(&k,
                               "bitwise equal (%lld values) under a %zu MiB budget: %.1f MiB "
                               "of input in %lld chunks, overlap %.2f",
                               (long long)k.compared, c->opt.gpu_mb, in_mb, (long long)chunks,
                               k.overlap);
                }
            }
            add_check(c, &k);
        }
    }
    apo_runtime_destroy(guard);

    /* Device-resident input and outputs. */
    for (size_t s = 0; s < c->opt.n_shapes; s++) {
        for (size_t ki = 0; ki < ST_N_KERNELS; ki++) {
            const st_placement at = {gi, 1, NULL, 0};
            apo_report rep;
            check_init(&k, "resident", c->kernels[ki].name, d, c->shapes[s]);
            progress(c, "resident", d->name, c->shapes[s]);
            check_resident(c, rt, &at, s, ki, &k, &rep);
            add_check(c, &k);
        }
    }
    apo_runtime_destroy(rt);
}

/* With two GPUs or more: outputs wanted on the first GPU, computed by every GPU of the
 * machine in equal shares, gathered once by NCCL and once by peer copies (apo_config.nccl);
 * both must give the cpu's bits, and the NCCL run must have used NCCL. */
static void check_gather(st_ctx *c) {
    double ratios[APO_MAX_DEVICES];
    for (size_t i = 0; i < APO_MAX_DEVICES; i++)
        ratios[i] = 1.0;
    st_device all;
    memset(&all, 0, sizeof all);
    snprintf(all.name, sizeof all.name, "all GPUs");
    snprintf(all.id, sizeof all.id, "cuda");
    const apo_switch paths[2] = {APO_SWITCH_ON, APO_SWITCH_OFF};
    const char *const names[2] = {"gather-nccl", "gather-peer"};
    for (int p = 0; p < 2; p++) {
        apo_config config = APO_CONFIG_INIT;
        config.devices = "cuda";
        config.use_gpu = APO_USE_GPU_YES;
        config.profiles = APO_SWITCH_OFF;
        config.learn = APO_SWITCH_OFF;
        config.nccl = paths[p];
        apo_runtime *rt = NULL;
        size_t gpus = 0;
        apo_status st = apo_runtime_create(&config, &rt);
        if (st == APO_OK)
            st = apo_device_count(rt, &gpus);
        for (size_t ki = 0; ki < ST_N_KERNELS; ki++) {
            st_check k;
            check_init(&k, names[p], c->kernels[ki].name, &all, c->shapes[c->largest]);
            progress(c, names[p], all.name, c->shapes[c->largest]);
            if (st != APO_OK) {
                char text[APO_LABEL_MAX * 2];
                status_text(st, text, sizeof text);
                k.result = ST_FAIL;
                set_detail(&k, "runtime on every GPU: %s", text);
                add_check(c, &k);
                continue;
            }
            const st_placement at = {0, 0, ratios, gpus};
            apo_report rep;
            check_resident(c, rt, &at, c->largest, ki, &k, &rep);
            if (k.result == ST_PASS) {
                size_t helpers = 0;
                for (size_t i = 1; i < rep.n_devices && i < APO_MAX_DEVICES; i++)
                    helpers += rep.devices[i].elements > 0;
                const apo_gather want = p == 0 ? APO_GATHER_NCCL : APO_GATHER_PEER;
                size_t len = strlen(k.detail);
                snprintf(k.detail + len, sizeof k.detail - len,
                         "; %zu other GPU(s) computed, gathered by %s in %.3f ms", helpers,
                         apo_gather_name(rep.gather), rep.gather_ms);
                if (helpers > 0 && rep.gather != want) {
                    k.result = ST_FAIL;
                    len = strlen(k.detail);
                    snprintf(k.detail + len, sizeof k.detail - len, ", not by %s",
                             apo_gather_name(want));
                }
            }
            add_check(c, &k);
        }
        apo_runtime_destroy(rt);
    }
}

/* ---- output ----------------------------------------------------------------------------- */

static json_t *check_json(const st_check *k) {
    json_t *o = json_object();
    json_object_set_new(o, "check", json_string(k->check));
    json_object_set_new(o, "kernel", k->kernel[0] ? json_string(k->kernel) : json_null());
    json_object_set_new(o, "device", cli_json_string(k->device));
    json_object_set_new(o, "device_id", cli_json_string(k->device_id));
    json_object_set_new(o, "rows", k->rows > 0 ? cli_json_u64(k->rows) : json_null());
    json_object_set_new(o, "cols", k->rows > 0 ? cli_json_u64(k->cols) : json_null());
    const char *r = k->result == ST_PASS   ? "pass"
                    : k->result == ST_FAIL ? "fail"
                    : k->result == ST_WARN ? "warn"
                                           : "skip";
    json_object_set_new(o, "result", json_string(r));
    json_object_set_new(o, "detail", cli_json_string(k->detail));
    json_object_set_new(o, "values_compared",
                        k->compared >= 0 ? json_integer(k->compared) : json_null());
    json_object_set_new(o, "values_differ", k->differ >= 0 ? json_integer(k->differ) : json_null());
    json_object_set_new(o, "chunks", k->chunks >= 0 ? json_integer(k->chunks) : json_null());
    json_object_set_new(o, "overlap", cli_json_number(k->overlap));
    return o;
}

typedef struct st_counts {
    size_t pass, fail, warn, skip;
} st_counts;

static st_counts count_checks(const st_ctx *c) {
    st_counts n = {0, 0, 0, 0};
    for (size_t i = 0; i < c->n_checks; i++) {
        switch (c->checks[i].result) {
        case ST_PASS:
            n.pass++;
            break;
        case ST_FAIL:
            n.fail++;
            break;
        case ST_WARN:
            n.warn++;
            break;
        default:
            n.skip++;
        }
    }
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
    const st_counts n = count_checks(c);
    if (c->opt.json) {
        json_t *o = json_object();
        json_object_set_new(o, "ok", json_boolean(n.fail == 0));
        json_object_set_new(o, "gpu_available", json_boolean(gpus > 0));
        json_object_set_new(o, "gpu_count", cli_json_u64(gpus));
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
        printf("%s\n", n.fail == 0 ? "selftest passed" : "selftest FAILED");
        if (fflush(stdout) != 0) {
            cli_error("cannot write to standard output");
            return CLI_EXIT_FAILURE;
        }
    }
    return n.fail == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

static void free_ctx(st_ctx *c) {
    for (size_t s = 0; s <= ST_MAX_SHAPES; s++) {
        free(c->inputs[s]);
        for (size_t k = 0; k < ST_N_KERNELS; k++)
            free_outputs(c->refs[s][k].out, APO_MAX_IO);
    }
    free(c->checks);
    apo_runtime_destroy(c->rt);
    apo_runtime_destroy(c->ref);
}

static int selftest(st_ctx *c) {
    char err[APO_LABEL_MAX * 2];
    /* The devices a run would use, from the environment; APPORTION_USE_GPU=yes without a
     * GPU fails here (exit 1). */
    apo_config config = APO_CONFIG_INIT;
    config.devices = c->opt.devices;
    config.profiles = APO_SWITCH_OFF;
    config.learn = APO_SWITCH_OFF;
    apo_status st = apo_runtime_create(&config, &c->rt);
    if (st != APO_OK)
        return cli_status_error(st, "cannot create the runtime");
    if (runtime_for("cpu", APO_USE_GPU_NO, 0, &c->ref, err, sizeof err) != 0) {
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
        c->kernels[k].name = kernel_names[k];
        c->kernels[k].n_outputs = info.n_outputs < APO_MAX_IO ? info.n_outputs : APO_MAX_IO;
        for (size_t o = 0; o < c->kernels[k].n_outputs; o++)
            c->kernels[k].output_names[o] = info.output_names[o];
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
