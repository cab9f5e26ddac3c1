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

static void usage(FILE *f) {
    fprintf(f,
            "usage: " PROG " --sizes N N [N ...] [options]\n"
            "  --sizes N N ...    profiling sizes in samples (one series), at least two distinct\n"
            "  --kernel K         kernel to profile (default bollinger; its default parameters)\n"
            "  --runs N           timed runs per device and size (default: the library's, 5)\n"
            "  --devices LIST     device list as in APPORTION_DEVICES (default: the environment,\n"
            "                     else auto)\n"
            "  --profile-dir DIR  keep the profiles in DIR/multigpu.json and DIR/thresholds.json\n"
            "                     (default: profile files off, models in memory only)\n"
            "  --calls N          measured calls per size after the check (default 5; 0: none)\n"
            "  --json FILE        everything, as JSON\n"
            "  --csv FILE         one row per size and device\n"
            "  --help\n");
}

static int parse_options(int argc, char **argv, options *o) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        double d;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        }
        if (strcmp(a, "--sizes") == 0) {
            /* Every following argument that is not an option is a size. */
            while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) {
                if (o->n_sizes == MAX_SIZES || bench_parse_count(argv[i + 1], 1, 1e12, &d) != 0) {
                    fprintf(stderr, PROG ": bad size \"%s\" (at most %d sizes of 1 .. 1e12)\n",
                            argv[i + 1], MAX_SIZES);
                    return -1;
                }
                o->sizes[o->n_sizes++] = (uint64_t)d;
                i++;
            }
            continue;
        }
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL) {
            fprintf(stderr, PROG ": unknown option or missing value: %s\n", a);
            return -1;
        } else if (strcmp(a, "--kernel") == 0) {
            o->kernel = v;
        } else if (strcmp(a, "--runs") == 0 && bench_parse_count(v, 1, 1000, &d) == 0) {
            o->runs = (unsigned)d;
        } else if (strcmp(a, "--calls") == 0 && bench_parse_count(v, 0, 100000, &d) == 0) {
            o->calls = (int)d;
        } else if (strcmp(a, "--devices") == 0) {
            o->devices = v;
        } else if (strcmp(a, "--profile-dir") == 0) {
            o->profile_dir = v;
        } else if (strcmp(a, "--json") == 0) {
            o->json = v;
        } else if (strcmp(a, "--csv") == 0) {
            o->csv = v;
        } else {
            fprintf(stderr, PROG ": bad option or value: %s %s\n", a, v);
            return -1;
        }
        i++;
    }
    /* The model has two unknowns: it needs runs at two different sizes at least. */
    size_t distinct = 0;
    for (size_t i = 0; i < o->n_sizes; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= o->sizes[j] == o->sizes[i];
        distinct += !seen;
    }
    if (distinct < 2) {
        fprintf(stderr, PROG ": --sizes needs at least two distinct sizes\n");
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

int main(int argc, char **argv) {
    options opt = {.kernel = "bollinger", .calls = 5};
    if (parse_options(argc, argv, &opt) != 0) {
        usage(stderr);
        return 2;
    }
    int lib_failed = 0;
    long total_wrong = 0;
    uint64_t max_size = 0;
    for (size_t i = 0; i < opt.n_sizes; i++)
        max_size = opt.sizes[i] > max_size ? opt.sizes[i] : max_size;

    char mg_path[APO_PATH_MAX], th_path[APO_PATH_MAX];
    apo_config cfg = APO_CONFIG_INIT;
    cfg.devices = opt.devices;
    cfg.learn = APO_SWITCH_OFF;
    if (opt.profile_dir != NULL) {
        snprintf(mg_path, sizeof mg_path, "%s/multigpu.json", opt.profile_dir);
        snprintf(th_path, sizeof th_path, "%s/thresholds.json", opt.profile_dir);
        cfg.multigpu_path = mg_path;
        cfg.thresholds_path = th_path;
        cfg.profiles = APO_SWITCH_ON;
    } else {
        cfg.profiles = APO_SWITCH_OFF;
    }

    apo_runtime *rt = NULL;
    double *input = NULL;
    double *out[APO_MAX_IO] = {0}, *ref[APO_MAX_IO] = {0};
    size_result *res = calloc(opt.n_sizes, sizeof *res);
    json_t *jroot = json_object();
    apo_profile_result prof = APO_PROFILE_RESULT_INIT;
    apo_kernel_info ki = APO_KERNEL_INFO_INIT;
    size_t n_dev = 0;
    static char ids[APO_MAX_DEVICES][APO_ID_MAX];
    int exit_code = 1;
    if (res == NULL || jroot == NULL)
        goto out;
    if (bench_check(apo_runtime_create(&cfg, &rt), "apo_runtime_create") ||
        bench_check(apo_device_count(rt, &n_dev), "apo_device_count") ||
        bench_check(apo_kernel_get(rt, opt.kernel, &ki), "apo_kernel_get"))
        goto out;

    char load[64];
    bench_load_average(load, sizeof load);
    printf("# " PROG " (apportion %s), load average %s\n", apo_version(), load);
    printf("# kernel %s (default parameters), sizes", opt.kernel);
    for (size_t i = 0; i < opt.n_sizes; i++)
        printf(" %llu", (unsigned long long)opt.sizes[i]);
    printf(" (one series each), runs %s\n", opt.runs ? "given" : "library default");
    printf("# devices \"%s\":\n", opt.devices ? opt.devices : "(default)");
    /* The object owns the array from here, so an early exit frees it with the root. */
    json_t *jdevs = json_array();
    json_object_set_new(jroot, "devices", jdevs);
    for (size_t i = 0; i < n_dev; i++) {
        apo_device_info di = APO_DEVICE_INFO_INIT;
        if (bench_check(apo_device_get(rt, i, &di), "apo_device_get"))
            goto out;
        printf("#   %zu: %-14s %s\n", i, di.id, di.label);
        snprintf(ids[i], sizeof ids[i], "%s", di.id);
        json_array_append_new(jdevs, json_pack("{s:s,s:s,s:s}", "id", di.id, "label", di.label,
                                               "kind", apo_device_kind_name(di.kind)));
    }
    size_t n_warn = 0;
    apo_runtime_warning_count(rt, &n_warn);
    for (size_t i = 0; i < n_warn; i++) {
        const char *msg;
        if (apo_runtime_warning(rt, i, &msg) == APO_OK)
            printf("# runtime warning: %s\n", msg);
    }
    if (opt.profile_dir != NULL) {
        apo_profile_files pf = APO_PROFILE_FILES_INIT;
        if (apo_profile_files_get(rt, &pf) == APO_OK)
            printf("# profiles: %s (%s), %s (%s)\n", pf.multigpu_path,
                   apo_profile_state_name(pf.multigpu_state), pf.thresholds_path,
                   apo_profile_state_name(pf.thresholds_state));
    } else {
        printf("# profiles: off (models in memory only; no file is read or written)\n");
    }

    /* 1. Profile. */
    apo_profile_options po = APO_PROFILE_OPTIONS_INIT;
    po.tag = opt.kernel;
    po.kernel = opt.kernel;
    po.sample_size = max_size;
    po.sizes = opt.sizes;
    po.n_sizes = opt.n_sizes;
    po.runs = opt.runs;
    po.seed = 7;
    if (isatty(STDERR_FILENO))
        po.progress = progress;
    double t0 = bench_now();
    apo_status pst = apo_profile_auto_balance(rt, &po, &prof);
    double prof_s = bench_now() - t0;
    if (pst == APO_ERR_IO) {
        /* Profiled and applied in memory; only the files failed. Carry on and say so. */
        fprintf(stderr, PROG ": profile files not written: %s\n", apo_last_error());
        lib_failed = 1;
    } else if (bench_check(pst, "apo_profile_auto_balance")) {
        goto out;
    }
    printf("\n# fitted models t(n) = latency + n * cost (%u runs per device and size, took %.1f "
           "ms; profile files %s)\n",
           prof.runs, prof_s * 1e3, prof.written ? "written" : "not written");
    printf("%-16s %12s %14s %10s %8s %8s  %s\n", "# device", "latency_ms", "ms_per_melem", "ratio",
           "samples", "dropped", "label");
    json_t *jmodels = json_array();
    for (size_t i = 0; i < prof.n_devices; i++) {
        const apo_device_model *m = &prof.devices[i];
        if (m->valid)
            printf("%-16s %12.5f %14.5f %10.4f %8llu %8llu  %s\n", m->id, m->latency_ms,
                   m->ms_per_melem, m->ratio, (unsigned long long)m->samples,
                   (unsigned long long)m->dropped, m->label);
        else
            printf("%-16s %12s %14s %10s %8llu %8llu  %s (no model)\n", m->id, "-", "-", "-",
                   (unsigned long long)m->samples, (unsigned long long)m->dropped, m->label);
        json_array_append_new(jmodels,
                              json_pack("{s:s,s:s,s:b,s:o,s:o,s:o,s:I,s:I}", "id", m->id, "label",
                                        m->label, "valid", m->valid, "latency_ms",
                                        num_or_null(m->valid ? m->latency_ms : NAN), "ms_per_melem",
                                        num_or_null(m->valid ? m->ms_per_melem : NAN), "ratio",
                                        num_or_null(m->ratio), "samples", (json_int_t)m->samples,
                                        "dropped", (json_int_t)m->dropped));
    }
    printf("# predicted makespan at %llu samples with the solved split: %.4f ms\n",
           (unsigned long long)prof.sample_size, prof.predicted_ms);
    json_object_set_new(
        jroot, "profile",
        json_pack("{s:f,s:I,s:I,s:o,s:b,s:o}", "seconds", prof_s, "runs", (json_int_t)prof.runs,
                  "sample_size", (json_int_t)prof.sample_size, "predicted_ms",
                  num_or_null(prof.predicted_ms), "written", prof.written, "models", jmodels));

    /* 2. Per size: plan, decision, correctness, then the measured makespan. */
    size_t n_out = ki.n_outputs, len_max[APO_MAX_IO] = {0};
    input = malloc(max_size * sizeof *input);
    if (input == NULL)
        goto out;
    bench_fill_walk(input, 1, max_size, 0x5eedf00dull);
    const double *in[1] = {input};
    for (size_t o = 0; o < n_out; o++) {
        apo_workload w = APO_WORKLOAD_INIT;
        w.kernel = opt.kernel;
        w.rows = 1;
        w.cols = max_size;
        w.n_inputs = 1;
        size_t r, c;
        if (bench_check(apo_output_shape(rt, &w, o, &r, &c), "apo_output_shape"))
            goto out;
        len_max[o] = r * c;
        if ((out[o] = malloc(len_max[o] * sizeof(double))) == NULL ||
            (ref[o] = malloc(len_max[o] * sizeof(double))) == NULL)
            goto out;
    }
    double *equal = malloc(n_dev * sizeof *equal);
    double *times = malloc(((size_t)opt.calls + 1) * sizeof *times);
    if (equal == NULL || times == NULL) {
        free(equal);
        free(times);
        goto out;
    }
    for (size_t i = 0; i < n_dev; i++)
        equal[i] = 1.0;

    printf("\n# per size: plan (apo_plan_workload), decision (apo_should_use_gpu), then %d calls "
           "with the planned split after one equal-split reference call\n",
           opt.calls);
    printf("# #wrong = output elements of the planned calls not bitwise equal to the equal "
           "split's\n");
    printf("%-12s %-8s %-5s %13s %12s %8s %-10s  %s\n", "# size", "source", "axis", "predicted_ms",
           "measured_ms", "#wrong", "decision", "devices: share (elements)");
    json_t *jsizes = json_array();
    for (size_t k = 0; k < opt.n_sizes; k++) {
        size_result *r = &res[k];
        r->size = opt.sizes[k];
        r->measured_ms = NAN;
        apo_workload w = APO_WORKLOAD_INIT;
        w.kernel = opt.kernel;
        w.tag = opt.kernel;
        w.rows = 1;
        w.cols = (size_t)r->size;
        w.inputs = in;
        w.n_inputs = 1;
        w.outputs = out;
        w.n_outputs = n_out;
        w.seed = 20261121;

        r->plan = (apo_plan_info)APO_PLAN_INFO_INIT;
        if (bench_check(apo_plan_workload(rt, &w, &r->plan), "apo_plan_workload")) {
            lib_failed = 1;
            continue;
        }
        r->plan_ok = 1;
        check_plan(&r->plan, r->plan_problem, sizeof r->plan_problem);

        int use_gpu = 0;
        apo_status gst = apo_should_use_gpu(rt, opt.kernel, NULL, 0, r->size, &use_gpu);
        if (gst == APO_OK)
            snprintf(r->decision, sizeof r->decision, "%s", use_gpu ? "gpu" : "cpu");
        else if (gst == APO_ERR_NOT_FOUND)
            snprintf(r->decision, sizeof r->decision, "n/a: %s", apo_last_error());
        else {
            snprintf(r->decision, sizeof r->decision, "error: %s", apo_status_name(gst));
            bench_check(gst, "apo_should_use_gpu");
            lib_failed = 1;
        }

        if (opt.calls > 0) {
            size_t len[APO_MAX_IO];
            for (size_t o = 0; o < n_out; o++) {
                size_t orow, ocol;
                if (bench_check(apo_output_shape(rt, &w, o, &orow, &ocol), "apo_output_shape"))
                    goto out_sizes;
                len[o] = orow * ocol;
            }
            /* Correctness before timing: the equal split's outputs are the reference. */
            w.outputs = ref;
            w.ratios = equal;
            w.n_ratios = n_dev;
            if (bench_check(apo_distribute_workload(rt, &w, NULL),
                            "apo_distribute_workload (equal)")) {
                lib_failed = 1;
                continue;
            }
            w.outputs = out;
            w.ratios = NULL;
            w.n_ratios = 0;
            int n_times = 0;
            for (int c = 0; c < opt.calls; c++) {
                for (size_t o = 0; o < n_out; o++)
                    memset(out[o], 0xA5, len[o] * sizeof(double));
                apo_report rep = APO_REPORT_INIT;
                if (bench_check(apo_distribute_workload(rt, &w, &rep), "apo_distribute_workload")) {
                    lib_failed = 1;
                    break;
                }
                for (size_t o = 0; o < n_out; o++)
                    for (size_t i = 0; i < len[o]; i++)
                        r->wrong += memcmp(&out[o][i], &ref[o][i], sizeof(double)) != 0;
                times[n_times++] = rep.makespan_ms;
                for (size_t i = 0; i < rep.n_devices && i < APO_MAX_DEVICES; i++)
                    r->measured_elements[i] = rep.devices[i].elements;
                /* The plan is what the call does: with refinement off nothing moves it. */
                for (size_t i = 0; i < rep.n_devices && r->plan_problem[0] == '\0'; i++)
                    if (rep.devices[i].elements != r->plan.device_elements[i])
                        snprintf(r->plan_problem, sizeof r->plan_problem,
                                 "call %d gave %s %llu elements, the plan %llu", c + 1,
                                 rep.devices[i].id, (unsigned long long)rep.devices[i].elements,
                                 (unsigned long long)r->plan.device_elements[i]);
            }
            if (n_times > 0) {
                r->measured_ms = bench_median(times, (size_t)n_times);
            }
        }
        total_wrong += r->wrong;
        if (r->plan_problem[0] != '\0')
            lib_failed = 1;

        char meas[32] = "-";
        if (isfinite(r->measured_ms))
            snprintf(meas, sizeof meas, "%.4f", r->measured_ms);
        printf("%-12llu %-8s %-5s %13.4f %12s %8ld %-10s ", (unsigned long long)r->size,
               apo_ratio_source_name(r->plan.ratio_source), apo_split_name(r->plan.split_axis),
               r->plan.predicted_ms, meas, r->wrong,
               strncmp(r->decision, "n/a", 3) == 0 ? "n/a" : r->decision);
        json_t *jd = json_array();
        for (size_t i = 0; i < r->plan.n_devices; i++) {
            printf(" %s %.4f (%llu)", ids[i], r->plan.shares[i],
                   (unsigned long long)r->plan.device_elements[i]);
            json_array_append_new(jd, json_pack("{s:s,s:f,s:I}", "id", ids[i], "share",
                                                r->plan.shares[i], "elements",
                                                (json_int_t)r->plan.device_elements[i]));
        }
        printf("\n");
        if (strncmp(r->decision, "n/a", 3) == 0)
            printf("#   decision %s\n", r->decision);
        if (r->plan_problem[0] != '\0')
            printf("#   PLAN PROBLEM: %s\n", r->plan_problem);
        fflush(stdout);
        json_array_append_new(
            jsizes,
            json_pack("{s:I,s:s,s:s,s:o,s:o,s:s,s:I,s:o,s:o}", "size", (json_int_t)r->size,
                      "source", apo_ratio_source_name(r->plan.ratio_source), "split_axis",
                      apo_split_name(r->plan.split_axis), "predicted_ms",
                      num_or_null(r->plan.predicted_ms), "measured_ms", num_or_null(r->measured_ms),
                      "decision", r->decision, "wrong", (json_int_t)r->wrong, "plan_problem",
                      r->plan_problem[0] ? json_string(r->plan_problem) : json_null(), "devices",
                      jd));
    }
out_sizes:
    free(equal);
    free(times);
    json_object_set_new(jroot, "sizes", jsizes);
    printf("# total #wrong: %ld%s\n", total_wrong, lib_failed ? "; a library call FAILED" : "");
    bench_load_average(load, sizeof load);
    printf("# load average at the end: %s\n", load);

    exit_code = total_wrong != 0 || lib_failed ? 1 : 0;
    if (opt.csv != NULL) {
        FILE *f = fopen(opt.csv, "w");
        if (f == NULL) {
            fprintf(stderr, PROG ": cannot write %s\n", opt.csv);
            exit_code = 1;
        } else {
            fprintf(f, "size,source,predicted_ms,measured_ms,decision,device,share,elements,"
                       "latency_ms,ms_per_melem,dropped\n");
            for (size_t k = 0; k < opt.n_sizes; k++) {
                const size_result *r = &res[k];
                if (!r->plan_ok)
                    continue;
                for (size_t i = 0; i < r->plan.n_devices && i < prof.n_devices; i++) {
                    const apo_device_model *m = &prof.devices[i];
                    /* The decision may carry a reason with commas: quote it. */
                    fprintf(f, "%llu,%s,%.6f,%.6f,\"", (unsigned long long)r->size,
                            apo_ratio_source_name(r->plan.ratio_source), r->plan.predicted_ms,
                            r->measured_ms);
                    for (const char *p = r->decision; *p; p++) {
                        if (*p == '"')
                            fputc('"', f);
                        fputc(*p, f);
                    }
                    fprintf(f, "\",%s,%.6f,%llu,%.6f,%.6f,%llu\n", m->id, r->plan.shares[i],
                            (unsigned long long)r->plan.device_elements[i],
                            m->valid ? m->latency_ms : NAN, m->valid ? m->ms_per_melem : NAN,
                            (unsigned long long)m->dropped);
                }
            }
            if (fclose(f) != 0)
                exit_code = 1;
        }
    }
    if (opt.json != NULL) {
        json_object_set_new(jroot, "program", json_string(PROG));
        json_object_set_new(jroot, "library_version", json_string(apo_version()));
        json_object_set_new(jroot, "kernel", json_string(opt.kernel));
        json_object_set_new(jroot, "total_wrong", json_integer(total_wrong));
        json_object_set_new(jroot, "library_error", json_boolean(lib_failed));
        if (json_dump_file(jroot, opt.json, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0) {
            fprintf(stderr, PROG ": cannot write %s\n", opt.json);
            exit_code = 1;
        }
    }

out:
    json_decref(jroot);
    for (size_t o = 0; o < APO_MAX_IO; o++) {
        free(out[o]);
        free(ref[o]);
    }
    free(input);
    free(res);
    apo_runtime_destroy(rt);
    return exit_code;
}
