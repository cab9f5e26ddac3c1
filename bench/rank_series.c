/*
 * rank_series.c: apo-bench-balance --rank-series N, ranks whose speed is set from outside
 * (docs/perf-log/2026-11-23-ranks-unequal-speed.md, section "Ranks of unequal speed";
 * scripts/cluster-bench.sh sets it with cgroup cpu quotas and cpusets). Run under mpirun with two
 * ranks or more: ranks above 0 serve, rank 0 makes N calls of one series on one joined runtime and
 * prints each.
 *
 * Two devices: rank 0's one device and rank 1. The bench cannot know how fast a throttled
 * rank is, nor when its quota is rewritten, so both come from outside and from measurement:
 * before each call the weights file (one number per device: its share of a core, as the
 * script set it) is read again. The first call that sees a changed file is the first call
 * run wholly after the change (the script rewrites the quota, then the file), and before it
 * a sweep of static splits (rank 1's share from 0 by 0.05) finds the best one for the new
 * speeds, by measurement: an MPI rank's round trip costs more than its compute, so a split
 * by quotas alone is not the best one.
 * Each call balanced by the runtime (online refinement from nothing, profile files off) is
 * followed at once by one call at that best static split, so that the two see the machine
 * in the same moments: on a shared machine a rank's speed moves by tens of percent from one
 * second to the next, and a yardstick measured earlier is no yardstick.
 * Before each balanced call, the models as they stand predict each device's time for the
 * elements the plan gives it; the call's measured time is set beside it.
 *
 * Figures, from the calls (the script only sets quotas): the median of static_ms /
 * learned_ms from call 5 on ("relative efficiency": 1 is as good as the static split); the
 * median |predicted / actual - 1| of the next call; after a weight drops, the calls until
 * the device's share has moved three quarters of the way to its new static share; after a
 * weight rises on a device the models starved (share at most 2% in the three calls before),
 * the calls until it gets half its static share again.
 *
 * Correctness first: every call's outputs are compared bitwise with the first call's; any
 * difference makes the program exit 1. Targets are reported, not asserted.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define RS_MAX_DEV 8
#define RS_SWEEP_STEP 0.05
#define RS_SWEEP_CALLS 3
#define RS_SWEEP_STOP 1.5
#define RS_FROM_CALL 5 /* figures from this call on (1-based): the models' start is aside */

#define TARGET_REL_EFF 0.93
#define TARGET_PRED 0.25
#define TARGET_FOLLOW 5
#define TARGET_PROBE 10

typedef struct rs_call {
    double weight[RS_MAX_DEV];
    double learned_ms, learned_eff, static_ms, static_eff;
    double share[RS_MAX_DEV], static_share[RS_MAX_DEV];
    double device_ms[RS_MAX_DEV], pred_ms[RS_MAX_DEV];
    uint64_t elements[RS_MAX_DEV];
} rs_call;

typedef struct rs_run {
    apo_runtime *rt;
    const char *kernel;
    size_t n, n_out, n_dev;
    char ids[RS_MAX_DEV][APO_ID_MAX];
    const double *input;
    double *out[APO_MAX_IO], *ref[APO_MAX_IO];
    int have_ref;
    long wrong;
} rs_run;

/* One call under `tag`; `ratios` NULL: the runtime's balance. With `plan`, the call is
 * planned first and pred[d] is what device d's model says for the elements the plan gives
 * it, before the call moves the model. Outputs checked bitwise against the run's first
 * call. Returns 1 on failure. */
static int rs_call_once(rs_run *r, const char *tag, const double *ratios, apo_report *rep,
                        apo_plan_info *plan, double *pred) {
    const double *inputs[1] = {r->input};
    apo_workload w = bench_workload(r->kernel, 1, r->n, inputs, 1);
    w.tag = tag;
    w.outputs = r->out;
    w.n_outputs = r->n_out;
    w.split = APO_SPLIT_TIME;
    w.seed = 20261123;
    w.ratios = ratios;
    w.n_ratios = ratios != NULL ? r->n_dev : 0;
    if (plan != NULL && apo_plan_workload(r->rt, &w, plan) != APO_OK)
        plan->n_devices = 0;
    for (size_t d = 0; plan != NULL && d < r->n_dev; d++)
        pred[d] = d < plan->n_devices && plan->device_elements[d] > 0
                      ? bench_stored_prediction(r->rt, tag, d, (double)plan->device_elements[d])
                      : NAN;
    *rep = (apo_report)APO_REPORT_INIT;
    if (bench_check(apo_distribute_workload(r->rt, &w, rep), "apo_distribute_workload"))
        return 1;
    for (size_t o = 0; o < r->n_out; o++) {
        if (!r->have_ref)
            memcpy(r->ref[o], r->out[o], r->n * sizeof(double));
        for (size_t i = 0; i < r->n; i++)
            r->wrong += memcmp(&r->out[o][i], &r->ref[o][i], sizeof(double)) != 0;
    }
    r->have_ref = 1;
    return 0;
}

/* Reads one weight per device from `path` into w; keeps w as it was when the file is
 * missing or short (the script writes it whole with a rename, so a read never sees half). */
static void rs_read_weights(const char *path, size_t n_dev, double *w) {
    FILE *f = path != NULL ? fopen(path, "r") : NULL;
    if (f == NULL)
        return;
    double v[RS_MAX_DEV];
    size_t k = 0;
    while (k < n_dev && fscanf(f, "%lf", &v[k]) == 1 && v[k] > 0)
        k++;
    fclose(f);
    if (k == n_dev)
        memcpy(w, v, n_dev * sizeof *w);
}

static const char *rs_list(const double *v, size_t n, const char *fmt, char *buf, size_t size) {
    size_t len = 0;
    buf[0] = '\0';
    for (size_t d = 0; d < n && len < size; d++) {
        if (d > 0)
            len += (size_t)snprintf(buf + len, size - len, "/");
        if (len < size)
            len += (size_t)snprintf(buf + len, size - len, fmt, v[d]);
    }
    return buf;
}

static void rs_target(int *missed, int pass, const char *what, double value, const char *unit) {
    printf("# target %s: %s %.3g%s\n", pass ? "met   " : "MISSED", what, value, unit);
    *missed += !pass;
}

/* The figures of the series (see the top of the file); prints them and the targets. */
static int rs_summary(const rs_run *r, const rs_call *c, int n_calls, int *missed) {
    double rel[4096], err[4096], eff[4096];
    int m = 0, e = 0;
    for (int k = RS_FROM_CALL - 1; k < n_calls && m < 4096; k++) {
        rel[m] = c[k].static_ms / c[k].learned_ms;
        eff[m++] = c[k].learned_eff;
        for (size_t d = 0; d < r->n_dev && e < 4096; d++)
            if (isfinite(c[k].pred_ms[d]) && c[k].elements[d] > 0)
                err[e++] = fabs(c[k].device_ms[d] / c[k].pred_ms[d] - 1.0);
    }
    double worst_err = 0;
    for (int i = 0; i < e; i++)
        worst_err = fmax(worst_err, err[i]);
    double med_rel = bench_median(rel, (size_t)m), med_eff = bench_median(eff, (size_t)m);
    double med_err = bench_median(err, (size_t)e);
    printf(
        "# from call %d: relative efficiency (static_ms / learned_ms) median %.3f; the runtime's "
        "balance_efficiency median %.3f\n",
        RS_FROM_CALL, med_rel, med_eff);
    printf("# next-call prediction: median |device_ms / pred_ms - 1| %.3f, worst %.3f (%d device "
           "times)\n",
           med_err, worst_err, e);
    rs_target(missed, med_rel >= TARGET_REL_EFF, "relative efficiency >= 0.93:", med_rel, "");
    rs_target(missed, med_err <= TARGET_PRED, "median prediction error <= 25%:", med_err * 100,
              "%");
    /* Weight changes: the first call that read the new weights. */
    for (int k = 1; k < n_calls; k++) {
        for (size_t d = 0; d < r->n_dev; d++) {
            if (c[k].weight[d] == c[k - 1].weight[d])
                continue;
            double before = c[k - 1].share[d], target = c[k].static_share[d];
            int at = -1;
            if (c[k].weight[d] < c[k - 1].weight[d]) {
                for (int j = k; j < n_calls && at < 0; j++)
                    if (fabs(c[j].share[d] - target) <= 0.25 * fabs(before - target))
                        at = j - k;
                printf("# %s cut from weight %.2f to %.2f at call %d: share %.3f -> static %.3f, "
                       "followed after %s%d call(s)\n",
                       r->ids[d], c[k - 1].weight[d], c[k].weight[d], k + 1, before, target,
                       at < 0 ? "more than " : "", at < 0 ? n_calls - k : at);
                if (fabs(before - target) < 0.02)
                    printf("# (its share was already the new best static one: nothing to "
                           "follow, no target)\n");
                else
                    rs_target(missed, at >= 0 && at <= TARGET_FOLLOW,
                              "share follows a cut within 5 calls:", at < 0 ? INFINITY : at,
                              " calls");
            } else {
                int starved = k >= 3;
                for (int j = k - 3; j < k && starved; j++)
                    starved = c[j].share[d] <= 0.02;
                for (int j = k; j < n_calls && at < 0; j++)
                    if (c[j].share[d] >= 0.5 * c[j].static_share[d])
                        at = j - k;
                printf("# %s raised from weight %.2f to %.2f at call %d (%s before): share %.3f, "
                       "static %.3f, back to half of it after %s%d call(s)\n",
                       r->ids[d], c[k - 1].weight[d], c[k].weight[d], k + 1,
                       starved ? "starved" : "not starved", before, target,
                       at < 0 ? "more than " : "", at < 0 ? n_calls - k : at);
                if (starved && target < 0.02)
                    printf("# (the best static split gives it nothing either: no target)\n");
                else if (starved)
                    rs_target(missed, at >= 0 && at <= TARGET_PROBE,
                              "a starved rank is probed back within 10 calls:",
                              at < 0 ? INFINITY : at, " calls");
            }
        }
    }
    return 0;
}

/* The best static split for the speeds of this moment: rank 1's share from 0 up in steps of
 * RS_SWEEP_STEP, RS_SWEEP_CALLS calls each (median makespan), stopping once past the best
 * and slower than RS_SWEEP_STOP times it (beyond the best, a slow rank's larger share only
 * costs more; the stop keeps a rank at 1% of a core from taking minutes). */
static int rs_sweep(rs_run *r, double *best_share, double *best_ms) {
    double ms[RS_SWEEP_CALLS], best = INFINITY, best_s = 0;
    apo_report rep;
    for (int i = 0; i * RS_SWEEP_STEP <= 1.0 + 1e-9; i++) {
        double s1 = i * RS_SWEEP_STEP, ratios[2] = {1.0 - s1, s1};
        for (int k = 0; k < RS_SWEEP_CALLS; k++) {
            if (rs_call_once(r, "cb-static", ratios, &rep, NULL, NULL))
                return 1;
            ms[k] = rep.makespan_ms;
        }
        double m = bench_median(ms, RS_SWEEP_CALLS);
        if (m < best) {
            best = m;
            best_s = s1;
        } else if (m > RS_SWEEP_STOP * best) {
            break;
        }
    }
    best_share[0] = 1.0 - best_s;
    best_share[1] = best_s;
    *best_ms = best;
    return 0;
}

static int rs_series(rs_run *r, int n_calls, const char *weights, FILE *csv) {
    char a[256], b[256];
    apo_report rep;
    printf("# call  weights        learned_ms  eff    static_ms  eff    rel    shares (learned | "
           "static)           device_ms | pred_ms\n");
    if (csv != NULL)
        fprintf(csv, "call,weights,learned_ms,learned_eff,static_ms,static_eff,rel_eff,shares,"
                     "static_shares,elements,device_ms,pred_ms\n");
    rs_call *calls = calloc((size_t)n_calls, sizeof *calls);
    if (calls == NULL)
        return 1;
    double w[RS_MAX_DEV], w_swept[RS_MAX_DEV], static_share[RS_MAX_DEV] = {0}, static_ms = NAN;
    for (size_t d = 0; d < r->n_dev; d++)
        w[d] = w_swept[d] = 1.0;
    int failed = 0, k;
    for (k = 0; k < n_calls && !failed; k++) {
        rs_call *c = &calls[k];
        rs_read_weights(weights, r->n_dev, w);
        memcpy(c->weight, w, sizeof w);
        if (k == 0 || memcmp(w, w_swept, sizeof w) != 0) {
            /* A new regime: its best static split, measured now. */
            failed |= rs_sweep(r, static_share, &static_ms);
            memcpy(w_swept, w, sizeof w);
            printf("# weights %s: best static split %s (%.2f ms), swept before call %d\n",
                   rs_list(w, r->n_dev, "%.2f", a, sizeof a),
                   rs_list(static_share, r->n_dev, "%.2f", b, sizeof b), static_ms, k + 1);
        }
        memcpy(c->static_share, static_share, sizeof static_share);

        apo_plan_info plan = APO_PLAN_INFO_INIT;
        double pred[RS_MAX_DEV];
        failed |= rs_call_once(r, "cb-learned", NULL, &rep, &plan, pred);
        for (size_t d = 0; d < r->n_dev && !failed; d++) {
            c->share[d] = rep.devices[d].share;
            c->elements[d] = rep.devices[d].elements;
            c->device_ms[d] = rep.devices[d].wall_ms;
            /* The prediction is the plan's (made before the call, from the models as they
             * stood); a call that probed a starved device differs from its plan. */
            c->pred_ms[d] =
                d < plan.n_devices && plan.device_elements[d] == c->elements[d] ? pred[d] : NAN;
        }
        c->learned_ms = rep.makespan_ms;
        c->learned_eff = rep.balance_efficiency;
        failed |= !failed && rs_call_once(r, "cb-static", c->static_share, &rep, NULL, NULL);
        c->static_ms = rep.makespan_ms;
        c->static_eff = rep.balance_efficiency;
        if (failed)
            break;
        char s1[96], s2[96], s3[96], s4[96], s5[64];
        printf("%6d  %-13s %10.2f %6.3f %10.2f %6.3f %6.3f  %s | %s  %s | %s\n", k + 1,
               rs_list(w, r->n_dev, "%.2f", s5, sizeof s5), c->learned_ms, c->learned_eff,
               c->static_ms, c->static_eff, c->static_ms / c->learned_ms,
               rs_list(c->share, r->n_dev, "%.3f", s1, sizeof s1),
               rs_list(c->static_share, r->n_dev, "%.3f", s2, sizeof s2),
               rs_list(c->device_ms, r->n_dev, "%.2f", s3, sizeof s3),
               rs_list(c->pred_ms, r->n_dev, "%.2f", s4, sizeof s4));
        fflush(stdout);
        if (csv != NULL) {
            double el[RS_MAX_DEV];
            for (size_t d = 0; d < r->n_dev; d++)
                el[d] = (double)c->elements[d];
            fprintf(csv, "%d,%s,%.4f,%.5f,%.4f,%.5f,%.5f,", k + 1, s5, c->learned_ms,
                    c->learned_eff, c->static_ms, c->static_eff, c->static_ms / c->learned_ms);
            fprintf(csv, "%s,%s,%s,", s1, s2, rs_list(el, r->n_dev, "%.0f", a, sizeof a));
            fprintf(csv, "%s,%s\n", s3, s4);
            fflush(csv); /* the script counts the rows to know when to cut a quota */
        }
    }
    int missed = 0;
    if (!failed)
        rs_summary(r, calls, k, &missed);
    printf("# %d target(s) missed; %ld output element(s) not bitwise equal to the first call's\n",
           missed, r->wrong);
    free(calls);
    return failed;
}

int bench_rank_series(const char *kernel, double size, int n_calls, const char *weights,
                      const char *csv_path) {
    apo_config cfg = APO_CONFIG_INIT;
    cfg.mpi = APO_SWITCH_ON;
    cfg.profiles = APO_SWITCH_OFF; /* the user's profile files are neither read nor written */
    cfg.learn = APO_SWITCH_ON;
    rs_run r;
    memset(&r, 0, sizeof r);
    r.kernel = kernel;
    r.n = (size_t)size;
    if (bench_check(apo_runtime_create(&cfg, &r.rt), "apo_runtime_create"))
        return 1;
    apo_cluster_info info = APO_CLUSTER_INFO_INIT;
    if (bench_check(apo_cluster_info_get(r.rt, &info), "apo_cluster_info_get")) {
        apo_runtime_destroy(r.rt);
        return 1;
    }
    if (info.role == APO_CLUSTER_SERVER) {
        int st = bench_check(apo_cluster_serve(r.rt), "apo_cluster_serve");
        apo_runtime_destroy(r.rt);
        return st;
    }
    apo_device_count(r.rt, &r.n_dev);
    apo_kernel_info ki = APO_KERNEL_INFO_INIT;
    if (info.role != APO_CLUSTER_COORDINATOR || info.joined == 0 || r.n_dev != 2 ||
        bench_check(apo_kernel_get(r.rt, kernel, &ki), "apo_kernel_get")) {
        fprintf(stderr,
                "%s --rank-series: needs mpirun with two ranks and one device on each (role %d, "
                "%zu ranks joined, %zu devices)\n",
                bench_prog, (int)info.role, info.joined, r.n_dev);
        apo_runtime_destroy(r.rt);
        return 1;
    }
    r.n_out = ki.n_outputs;
    double *input = malloc(r.n * sizeof *input);
    int failed = input == NULL;
    for (size_t o = 0; o < r.n_out && !failed; o++) {
        r.out[o] = calloc(r.n, sizeof(double)); /* touched now: warm from the first call */
        r.ref[o] = malloc(r.n * sizeof(double));
        failed |= r.out[o] == NULL || r.ref[o] == NULL;
    }
    FILE *csv = !failed && csv_path != NULL ? fopen(csv_path, "w") : NULL;
    if (failed || (csv_path != NULL && csv == NULL)) {
        fprintf(stderr, "%s --rank-series: %s\n", bench_prog,
                failed ? "out of memory" : "cannot write the CSV");
        failed = 1;
    } else {
        bench_fill_walk(input, 1, r.n, 0x5eedba1aull);
        r.input = input;
        char load[64];
        bench_load_average(load, sizeof load);
        printf("# apo-bench-balance --rank-series (apportion %s): %s, %zu samples, %d calls, %d "
               "ranks on %s, load %s\n",
               apo_version(), kernel, r.n, n_calls, info.ranks, info.host, load);
        for (size_t d = 0; d < r.n_dev; d++) {
            apo_device_info di = APO_DEVICE_INFO_INIT;
            apo_device_get(r.rt, d, &di);
            snprintf(r.ids[d], sizeof r.ids[d], "%s", di.id);
            printf("#   device %zu: %s\n", d, di.label);
        }
        printf("# each call balanced by the runtime (learned) is followed by one at the best "
               "static split, swept when the weights change;\n"
               "#   rel = static_ms / learned_ms; pred_ms = the models' time for the planned "
               "elements, before the call\n");
        failed = rs_series(&r, n_calls, weights, csv);
        bench_load_average(load, sizeof load);
        printf("# load at the end %s\n", load);
    }
    if (csv != NULL)
        fclose(csv);
    free(input);
    for (size_t o = 0; o < r.n_out; o++) {
        free(r.out[o]);
        free(r.ref[o]);
    }
    apo_runtime_destroy(r.rt);
    return failed || r.wrong != 0;
}
