/*
 * bench_auto_profile.c: apo-bench-auto-profile, what apo_profile_auto_balance() learns about
 * this machine's devices for one kernel and what the runtime then decides at each size
 * (docs/perf-log/2026-11-21-balancing.md, section "Balancing").
 *
 * It profiles the kernel at the given sizes on a runtime whose profile files are off (or,
 * with --profile-dir, kept in that folder: never in the user's default place), prints each
 * device's fitted model t(n) = latency + n * cost, and for each size
 *   - the plan (apo_plan_workload): the devices chosen, their shares and elements, and the
 *     predicted makespan;
 *   - the CPU-or-GPU decision of apo_should_use_gpu() from the thresholds;
 *   - correctness, then the measured makespan: one call with explicit equal ratios gives the
 *     reference outputs, then `--calls` calls with the planned split must give the same bits
 *     (#wrong counts the elements that do not), and their median makespan is set beside the
 *     prediction. Online refinement is off, so the calls follow the profile and do not move
 *     the plan they are compared with.
 * Exit status: 0, 1 on a library error or #wrong > 0, 2 on a usage error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "options.h"

#define PROG "apo-bench-auto-profile"
#define MAX_SIZES 64

const char bench_prog[] = PROG;

typedef struct options {
    uint64_t sizes[MAX_SIZES];
    size_t n_sizes;
    const char *kernel;
    unsigned runs; /* 0: the library's default */
    int calls;
    const char *devices;
    const char *profile_dir;
    const char *json, *csv;
} options;

/* Each argument of --sizes. */
static int parse_size(const char *text, void *options_) {
    options *o = options_;
    double d;
    if (o->n_sizes == MAX_SIZES || bench_parse_count(text, 1, 1e12, &d) != 0) {
        fprintf(stderr, PROG ": bad size \"%s\" (at most %d sizes of 1 .. 1e12)\n", text,
                MAX_SIZES);
        return BENCH_OPT_REPORTED;
    }
    o->sizes[o->n_sizes++] = (uint64_t)d;
    return 0;
}

#define OPT(...) BENCH_OPTION(options, __VA_ARGS__)

static const bench_option option_rows[] = {
    {"--sizes", "N N ...", BENCH_OPT_EACH, 0, 0, 0,
     "profiling sizes in samples (one series), at least two distinct", parse_size},
    OPT("--kernel", "K", TEXT, 0, 0, kernel,
        "kernel to profile (default bollinger; its default parameters)"),
    OPT("--runs", "N", UINT, 1, 1000, runs,
        "timed runs per device and size (default: the library's, 5)"),
    OPT("--devices", "LIST", TEXT, 0, 0, devices,
        "device list as in APPORTION_DEVICES (default: the environment,\n"
        "else auto)"),
    OPT("--profile-dir", "DIR", TEXT, 0, 0, profile_dir,
        "keep the profiles in DIR/multigpu.json and DIR/thresholds.json\n"
        "(default: profile files off, models in memory only)"),
    OPT("--calls", "N", INT, 0, 100000, calls,
        "measured calls per size after the check (default 5; 0: none)"),
    OPT("--json", "FILE", TEXT, 0, 0, json, "everything, as JSON"),
    OPT("--csv", "FILE", TEXT, 0, 0, csv, "one row per size and device"),
};

#undef OPT

static const bench_option_table option_table = {"--sizes N N [N ...] [options]", option_rows,
                                                sizeof option_rows / sizeof option_rows[0], 21};

/* Reads the options. The model has two unknowns: it needs runs at two different sizes at
 * least. Returns 0 or -1 (after the message and the usage). */
static int read_options(int argc, char **argv, options *o) {
    if (bench_options_parse(&option_table, argc, argv, o) != 0)
        return -1;
    size_t distinct = 0;
    for (size_t i = 0; i < o->n_sizes; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= o->sizes[j] == o->sizes[i];
        distinct += !seen;
    }
    if (distinct < 2) {
        fprintf(stderr, PROG ": --sizes needs at least two distinct sizes\n");
        bench_options_usage(&option_table, stderr);
        return -1;
    }
    return 0;
}

static void progress(void *user, size_t done, size_t total, const char *what) {
    (void)user;
    fprintf(stderr, "\r" PROG ": profiling %zu/%zu %-40.40s", done, total, what ? what : "");
    if (done == total)
        fprintf(stderr, "\n");
}

static json_t *num_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* What one size gave. */
typedef struct size_result {
    uint64_t size;
    apo_plan_info plan;
    int plan_ok;
    char plan_problem[160]; /* the plan contradicts itself or the call; "" when it does not */
    char decision[256];     /* "cpu", "gpu" or "n/a: why" */
    double measured_ms;     /* median makespan of the planned calls; NaN when none */
    uint64_t measured_elements[APO_MAX_DEVICES];
    long wrong;
} size_result;

/* Checks the plan against itself: the elements add up, the shares sum to one, and a device
 * with no share gets no elements. */
static void check_plan(const apo_plan_info *p, char *problem, size_t size) {
    uint64_t sum = 0;
    double share_sum = 0;
    for (size_t i = 0; i < p->n_devices; i++) {
        sum += p->device_elements[i];
        share_sum += p->shares[i];
        if (p->shares[i] == 0 && p->device_elements[i] != 0) {
            snprintf(problem, size, "device %zu has share 0 but %llu elements", i,
                     (unsigned long long)p->device_elements[i]);
            return;
        }
    }
    if (sum != p->elements)
        snprintf(problem, size, "device elements sum to %llu, not %llu", (unsigned long long)sum,
                 (unsigned long long)p->elements);
    else if (fabs(share_sum - 1.0) > 1e-9)
        snprintf(problem, size, "shares sum to %.12f", share_sum);
}

/* ---- main: the steps ---------------------------------------------------------------------- */

/* Everything one run holds. */
typedef struct profile_run {
    const options *opt;
    apo_runtime *rt;
    size_t n_dev;
    char ids[APO_MAX_DEVICES][APO_ID_MAX];
    apo_kernel_info ki;
    apo_profile_result prof;
    uint64_t max_size;
    double *input, *out[APO_MAX_IO], *ref[APO_MAX_IO];
    double *equal; /* explicit equal ratios, the reference call's */
    double *times; /* makespans of one size's calls */
    size_result *res;
    json_t *jroot;
    int lib_failed;
    long total_wrong;
} profile_run;

/* The runtime, its profile files off or in --profile-dir; online refinement off, so the
 * calls follow the profile and do not move the plan they are compared with. */
static int open_runtime(profile_run *p) {
    const options *o = p->opt;
    static char mg_path[APO_PATH_MAX], th_path[APO_PATH_MAX];
    apo_config cfg = APO_CONFIG_INIT;
    cfg.devices = o->devices;
    cfg.learn = APO_SWITCH_OFF;
    cfg.profiles = APO_SWITCH_OFF;
    if (o->profile_dir != NULL) {
        snprintf(mg_path, sizeof mg_path, "%s/multigpu.json", o->profile_dir);
        snprintf(th_path, sizeof th_path, "%s/thresholds.json", o->profile_dir);
        cfg.multigpu_path = mg_path;
        cfg.thresholds_path = th_path;
        cfg.profiles = APO_SWITCH_ON;
    }
    if (bench_check(apo_runtime_create(&cfg, &p->rt), "apo_runtime_create") ||
        bench_check(apo_device_count(p->rt, &p->n_dev), "apo_device_count") ||
        bench_check(apo_kernel_get(p->rt, o->kernel, &p->ki), "apo_kernel_get"))
        return -1;
    return 0;
}

/* The header: the kernel and sizes, the devices, the runtime's warnings and the profiles.
 * Returns 0 or -1. */
static int print_header(profile_run *p) {
    const options *o = p->opt;
    char load[64];
    bench_load_average(load, sizeof load);
    printf("# " PROG " (apportion %s), load average %s\n", apo_version(), load);
    printf("# kernel %s (default parameters), sizes", o->kernel);
    for (size_t i = 0; i < o->n_sizes; i++)
        printf(" %llu", (unsigned long long)o->sizes[i]);
    printf(" (one series each), runs %s\n", o->runs ? "given" : "library default");
    printf("# devices \"%s\":\n", o->devices ? o->devices : "(default)");
    /* The object owns the array from here, so an early exit frees it with the root. */
    json_t *jdevs = json_array();
    json_object_set_new(p->jroot, "devices", jdevs);
    for (size_t i = 0; i < p->n_dev; i++) {
        apo_device_info di = APO_DEVICE_INFO_INIT;
        if (bench_check(apo_device_get(p->rt, i, &di), "apo_device_get"))
            return -1;
        printf("#   %zu: %-14s %s\n", i, di.id, di.label);
        snprintf(p->ids[i], sizeof p->ids[i], "%s", di.id);
        json_array_append_new(jdevs, json_pack("{s:s,s:s,s:s}", "id", di.id, "label", di.label,
                                               "kind", apo_device_kind_name(di.kind)));
    }
    size_t n_warn = 0;
    apo_runtime_warning_count(p->rt, &n_warn);
    for (size_t i = 0; i < n_warn; i++) {
        const char *msg;
        if (apo_runtime_warning(p->rt, i, &msg) == APO_OK)
            printf("# runtime warning: %s\n", msg);
    }
    apo_profile_files pf = APO_PROFILE_FILES_INIT;
    if (o->profile_dir == NULL)
        printf("# profiles: off (models in memory only; no file is read or written)\n");
    else if (apo_profile_files_get(p->rt, &pf) == APO_OK)
        printf("# profiles: %s (%s), %s (%s)\n", pf.multigpu_path,
               apo_profile_state_name(pf.multigpu_state), pf.thresholds_path,
               apo_profile_state_name(pf.thresholds_state));
    return 0;
}

static json_t *model_json(const apo_device_model *m) {
    return json_pack("{s:s,s:s,s:b,s:o,s:o,s:o,s:I,s:I}", "id", m->id, "label", m->label, "valid",
                     m->valid, "latency_ms", num_or_null(m->valid ? m->latency_ms : NAN),
                     "ms_per_melem", num_or_null(m->valid ? m->ms_per_melem : NAN), "ratio",
                     num_or_null(m->ratio), "samples", (json_int_t)m->samples, "dropped",
                     (json_int_t)m->dropped);
}

/* Step 1: apo_profile_auto_balance() at the sizes, then each device's fitted model. Returns 0
 * or -1 (a failure other than the files'). */
static int run_profile(profile_run *p) {
    const options *o = p->opt;
    apo_profile_options po = APO_PROFILE_OPTIONS_INIT;
    po.tag = o->kernel;
    po.kernel = o->kernel;
    po.sample_size = p->max_size;
    po.sizes = o->sizes;
    po.n_sizes = o->n_sizes;
    po.runs = o->runs;
    po.seed = 7;
    if (isatty(STDERR_FILENO))
        po.progress = progress;
    double t0 = bench_now();
    apo_status pst = apo_profile_auto_balance(p->rt, &po, &p->prof);
    double prof_s = bench_now() - t0;
    if (pst == APO_ERR_IO) {
        /* Profiled and applied in memory; only the files failed. Carry on and say so. */
        fprintf(stderr, PROG ": profile files not written: %s\n", apo_last_error());
        p->lib_failed = 1;
    } else if (bench_check(pst, "apo_profile_auto_balance")) {
        return -1;
    }
    const apo_profile_result *prof = &p->prof;
    printf("\n# fitted models t(n) = latency + n * cost (%u runs per device and size, took %.1f "
           "ms; profile files %s)\n",
           prof->runs, prof_s * 1e3, prof->written ? "written" : "not written");
    printf("%-16s %12s %14s %10s %8s %8s  %s\n", "# device", "latency_ms", "ms_per_melem", "ratio",
           "samples", "dropped", "label");
    json_t *jmodels = json_array();
    for (size_t i = 0; i < prof->n_devices; i++) {
        const apo_device_model *m = &prof->devices[i];
        if (m->valid)
            printf("%-16s %12.5f %14.5f %10.4f %8llu %8llu  %s\n", m->id, m->latency_ms,
                   m->ms_per_melem, m->ratio, (unsigned long long)m->samples,
                   (unsigned long long)m->dropped, m->label);
        else
            printf("%-16s %12s %14s %10s %8llu %8llu  %s (no model)\n", m->id, "-", "-", "-",
                   (unsigned long long)m->samples, (unsigned long long)m->dropped, m->label);
        json_array_append_new(jmodels, model_json(m));
    }
    printf("# predicted makespan at %llu samples with the solved split: %.4f ms\n",
           (unsigned long long)prof->sample_size, prof->predicted_ms);
    json_object_set_new(
        p->jroot, "profile",
        json_pack("{s:f,s:I,s:I,s:o,s:b,s:o}", "seconds", prof_s, "runs", (json_int_t)prof->runs,
                  "sample_size", (json_int_t)prof->sample_size, "predicted_ms",
                  num_or_null(prof->predicted_ms), "written", prof->written, "models", jmodels));
    return 0;
}

/* The input (one walk of the largest size; a shorter series is its prefix), the outputs of
 * that size and the reference outputs, the equal ratios and the calls' times. Returns 0 or
 * -1. */
static int alloc_buffers(profile_run *p) {
    p->input = malloc(p->max_size * sizeof *p->input);
    if (p->input == NULL)
        return -1;
    bench_fill_walk(p->input, 1, p->max_size, 0x5eedf00dull);
    for (size_t o = 0; o < p->ki.n_outputs; o++) {
        apo_workload w = bench_workload(p->opt->kernel, 1, p->max_size, NULL, 1);
        size_t r, c;
        if (bench_check(apo_output_shape(p->rt, &w, o, &r, &c), "apo_output_shape"))
            return -1;
        if ((p->out[o] = malloc(r * c * sizeof(double))) == NULL ||
            (p->ref[o] = malloc(r * c * sizeof(double))) == NULL)
            return -1;
    }
    p->equal = malloc(p->n_dev * sizeof *p->equal);
    p->times = malloc(((size_t)p->opt->calls + 1) * sizeof *p->times);
    if (p->equal == NULL || p->times == NULL)
        return -1;
    for (size_t i = 0; i < p->n_dev; i++)
        p->equal[i] = 1.0;
    return 0;
}

/* apo_should_use_gpu()'s answer at r's size: "cpu", "gpu", "n/a: why" or "error: status". */
static void decide(profile_run *p, size_result *r) {
    int use_gpu = 0;
    apo_status gst = apo_should_use_gpu(p->rt, p->opt->kernel, NULL, 0, r->size, &use_gpu);
    if (gst == APO_OK)
        snprintf(r->decision, sizeof r->decision, "%s", use_gpu ? "gpu" : "cpu");
    else if (gst == APO_ERR_NOT_FOUND)
        snprintf(r->decision, sizeof r->decision, "n/a: %s", apo_last_error());
    else {
        snprintf(r->decision, sizeof r->decision, "error: %s", apo_status_name(gst));
        bench_check(gst, "apo_should_use_gpu");
        p->lib_failed = 1;
    }
}

/* The planned calls of one size: each must give the reference's bits and follow the plan. */
static void time_planned_calls(profile_run *p, apo_workload *w, const size_t *len, size_result *r) {
    const size_t n_out = p->ki.n_outputs;
    w->outputs = p->out;
    w->ratios = NULL;
    w->n_ratios = 0;
    int n_times = 0;
    for (int c = 0; c < p->opt->calls; c++) {
        for (size_t o = 0; o < n_out; o++)
            memset(p->out[o], 0xA5, len[o] * sizeof(double));
        apo_report rep = APO_REPORT_INIT;
        if (bench_check(apo_distribute_workload(p->rt, w, &rep), "apo_distribute_workload")) {
            p->lib_failed = 1;
            break;
        }
        for (size_t o = 0; o < n_out; o++)
            for (size_t i = 0; i < len[o]; i++)
                r->wrong += memcmp(&p->out[o][i], &p->ref[o][i], sizeof(double)) != 0;
        p->times[n_times++] = rep.makespan_ms;
        for (size_t i = 0; i < rep.n_devices && i < APO_MAX_DEVICES; i++)
            r->measured_elements[i] = rep.devices[i].elements;
        /* The plan is what the call does: with refinement off nothing moves it. */
        for (size_t i = 0; i < rep.n_devices && r->plan_problem[0] == '\0'; i++)
            if (rep.devices[i].elements != r->plan.device_elements[i])
                snprintf(r->plan_problem, sizeof r->plan_problem,
                         "call %d gave %s %llu elements, the plan %llu", c + 1, rep.devices[i].id,
                         (unsigned long long)rep.devices[i].elements,
                         (unsigned long long)r->plan.device_elements[i]);
    }
    if (n_times > 0)
        r->measured_ms = bench_median(p->times, (size_t)n_times);
}

/* Correctness, then the measured makespan: the equal split's outputs are the reference.
 * Returns 0, SIZE_SKIP (no row: the reference call failed) or SIZE_STOP (no more sizes). */
enum { SIZE_SKIP = 1, SIZE_STOP = -1 };
static int check_and_time(profile_run *p, apo_workload *w, size_result *r) {
    size_t len[APO_MAX_IO];
    for (size_t o = 0; o < p->ki.n_outputs; o++) {
        size_t orow, ocol;
        if (bench_check(apo_output_shape(p->rt, w, o, &orow, &ocol), "apo_output_shape"))
            return SIZE_STOP;
        len[o] = orow * ocol;
    }
    w->outputs = p->ref;
    w->ratios = p->equal;
    w->n_ratios = p->n_dev;
    if (bench_check(apo_distribute_workload(p->rt, w, NULL), "apo_distribute_workload (equal)")) {
        p->lib_failed = 1;
        return SIZE_SKIP;
    }
    time_planned_calls(p, w, len, r);
    return 0;
}

/* Step 2 at one size: the plan, the decision, then the calls. Returns as check_and_time. */
static int run_size(profile_run *p, uint64_t size, size_result *r) {
    const double *in[1] = {p->input};
    r->size = size;
    r->measured_ms = NAN;
    apo_workload w = bench_workload(p->opt->kernel, 1, (size_t)r->size, in, 1);
    w.tag = p->opt->kernel;
    w.outputs = p->out;
    w.n_outputs = p->ki.n_outputs;
    w.seed = 20261121;
    r->plan = (apo_plan_info)APO_PLAN_INFO_INIT;
    if (bench_check(apo_plan_workload(p->rt, &w, &r->plan), "apo_plan_workload")) {
        p->lib_failed = 1;
        return SIZE_SKIP;
    }
    r->plan_ok = 1;
    check_plan(&r->plan, r->plan_problem, sizeof r->plan_problem);
    decide(p, r);
    if (p->opt->calls > 0) {
        int st = check_and_time(p, &w, r);
        if (st != 0)
            return st;
    }
    p->total_wrong += r->wrong;
    if (r->plan_problem[0] != '\0')
        p->lib_failed = 1;
    return 0;
}

/* One size's row of the table, and its JSON. */
static json_t *print_size(const profile_run *p, const size_result *r) {
    char meas[32] = "-";
    if (isfinite(r->measured_ms))
        snprintf(meas, sizeof meas, "%.4f", r->measured_ms);
    const int na = strncmp(r->decision, "n/a", 3) == 0;
    printf("%-12llu %-8s %-5s %13.4f %12s %8ld %-10s ", (unsigned long long)r->size,
           apo_ratio_source_name(r->plan.ratio_source), apo_split_name(r->plan.split_axis),
           r->plan.predicted_ms, meas, r->wrong, na ? "n/a" : r->decision);
    json_t *jd = json_array();
    for (size_t i = 0; i < r->plan.n_devices; i++) {
        printf(" %s %.4f (%llu)", p->ids[i], r->plan.shares[i],
               (unsigned long long)r->plan.device_elements[i]);
        json_array_append_new(jd, json_pack("{s:s,s:f,s:I}", "id", p->ids[i], "share",
                                            r->plan.shares[i], "elements",
                                            (json_int_t)r->plan.device_elements[i]));
    }
    printf("\n");
    if (na)
        printf("#   decision %s\n", r->decision);
    if (r->plan_problem[0] != '\0')
        printf("#   PLAN PROBLEM: %s\n", r->plan_problem);
    fflush(stdout);
    return json_pack("{s:I,s:s,s:s,s:o,s:o,s:s,s:I,s:o,s:o}", "size", (json_int_t)r->size, "source",
                     apo_ratio_source_name(r->plan.ratio_source), "split_axis",
                     apo_split_name(r->plan.split_axis), "predicted_ms",
                     num_or_null(r->plan.predicted_ms), "measured_ms", num_or_null(r->measured_ms),
                     "decision", r->decision, "wrong", (json_int_t)r->wrong, "plan_problem",
                     r->plan_problem[0] ? json_string(r->plan_problem) : json_null(), "devices",
                     jd);
}

/* Step 2: a row per size. */
static void run_sizes(profile_run *p) {
    printf("\n# per size: plan (apo_plan_workload), decision (apo_should_use_gpu), then %d calls "
           "with the planned split after one equal-split reference call\n",
           p->opt->calls);
    printf("# #wrong = output elements of the planned calls not bitwise equal to the equal "
           "split's\n");
    printf("%-12s %-8s %-5s %13s %12s %8s %-10s  %s\n", "# size", "source", "axis", "predicted_ms",
           "measured_ms", "#wrong", "decision", "devices: share (elements)");
    json_t *jsizes = json_array();
    for (size_t k = 0; k < p->opt->n_sizes; k++) {
        const int st = run_size(p, p->opt->sizes[k], &p->res[k]);
        if (st == SIZE_STOP)
            break;
        if (st == 0)
            json_array_append_new(jsizes, print_size(p, &p->res[k]));
    }
    json_object_set_new(p->jroot, "sizes", jsizes);
}

/* --csv: one row per size and device. Returns 0 or -1. */
static int write_csv(const profile_run *p, const char *path) {
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, PROG ": cannot write %s\n", path);
        return -1;
    }
    fprintf(f, "size,source,predicted_ms,measured_ms,decision,device,share,elements,"
               "latency_ms,ms_per_melem,dropped\n");
    for (size_t k = 0; k < p->opt->n_sizes; k++) {
        const size_result *r = &p->res[k];
        if (!r->plan_ok)
            continue;
        for (size_t i = 0; i < r->plan.n_devices && i < p->prof.n_devices; i++) {
            const apo_device_model *m = &p->prof.devices[i];
            /* The decision may carry a reason with commas: quote it. */
            fprintf(f, "%llu,%s,%.6f,%.6f,\"", (unsigned long long)r->size,
                    apo_ratio_source_name(r->plan.ratio_source), r->plan.predicted_ms,
                    r->measured_ms);
            for (const char *c = r->decision; *c; c++) {
                if (*c == '"')
                    fputc('"', f);
                fputc(*c, f);
            }
            fprintf(f, "\",%s,%.6f,%llu,%.6f,%.6f,%llu\n", m->id, r->plan.shares[i],
                    (unsigned long long)r->plan.device_elements[i], m->valid ? m->latency_ms : NAN,
                    m->valid ? m->ms_per_melem : NAN, (unsigned long long)m->dropped);
        }
    }
    return fclose(f) != 0 ? -1 : 0;
}

/* The last lines, the CSV and JSON files, and the exit status: 1 on a library error or a
 * wrong output. */
static int finish(profile_run *p) {
    const options *o = p->opt;
    char load[64];
    printf("# total #wrong: %ld%s\n", p->total_wrong,
           p->lib_failed ? "; a library call FAILED" : "");
    bench_load_average(load, sizeof load);
    printf("# load average at the end: %s\n", load);
    int exit_code = p->total_wrong != 0 || p->lib_failed ? 1 : 0;
    if (o->csv != NULL && write_csv(p, o->csv) != 0)
        exit_code = 1;
    if (o->json != NULL) {
        json_object_set_new(p->jroot, "program", json_string(PROG));
        json_object_set_new(p->jroot, "library_version", json_string(apo_version()));
        json_object_set_new(p->jroot, "kernel", json_string(o->kernel));
        json_object_set_new(p->jroot, "total_wrong", json_integer(p->total_wrong));
        json_object_set_new(p->jroot, "library_error", json_boolean(p->lib_failed));
        if (json_dump_file(p->jroot, o->json, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0) {
            fprintf(stderr, PROG ": cannot write %s\n", o->json);
            exit_code = 1;
        }
    }
    return exit_code;
}

static void close_run(profile_run *p) {
    json_decref(p->jroot);
    for (size_t o = 0; o < APO_MAX_IO; o++) {
        free(p->out[o]);
        free(p->ref[o]);
    }
    free(p->input);
    free(p->equal);
    free(p->times);
    free(p->res);
    apo_runtime_destroy(p->rt);
}

int main(int argc, char **argv) {
    options opt = {.kernel = "bollinger", .calls = 5};
    if (read_options(argc, argv, &opt) != 0)
        return 2;
    static profile_run p;
    p.opt = &opt;
    p.prof = (apo_profile_result)APO_PROFILE_RESULT_INIT;
    p.ki = (apo_kernel_info)APO_KERNEL_INFO_INIT;
    for (size_t i = 0; i < opt.n_sizes; i++)
        p.max_size = opt.sizes[i] > p.max_size ? opt.sizes[i] : p.max_size;
    p.res = calloc(opt.n_sizes, sizeof *p.res);
    p.jroot = json_object();
    int exit_code = 1;
    if (p.res != NULL && p.jroot != NULL && open_runtime(&p) == 0 && print_header(&p) == 0 &&
        run_profile(&p) == 0 && alloc_buffers(&p) == 0) {
        run_sizes(&p);
        exit_code = finish(&p);
    }
    close_run(&p);
    return exit_code;
}
