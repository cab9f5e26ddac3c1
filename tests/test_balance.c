/*
 * Balancing through the public API, on sim devices and the virtual clock, where a device
 * takes exactly `latency + elements / rate` and measurements carry no noise:
 *
 * - online refinement converges from equal shares, follows a device that slows down, and
 *   never changes a bit of the outputs while the split moves;
 * - profiling recovers the sim devices' true models, and the solved split leaves out a
 *   device whose latency exceeds what it could save (the CPU-or-GPU decision);
 * - explicit ratios (per workload, or forced per tag) override the models;
 * - a device its model leaves without work is probed on one learning call in ten, with at
 *   most 2% of the elements, never without learning or against given ratios, and is back
 *   in use the call after a probe finds it fast;
 * - profiles persist across runtimes, go stale when the device set changes, and a corrupt
 *   file is ignored with one warning;
 * - apo_should_use_gpu() interpolates thresholds.json as documented.
 *
 * The workload is one long series of 2e6 samples (returns_stats tiles of 8192 samples, so
 * rounding shares to whole tiles costs well under 1% of balance).
 */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp */
#include <criterion/criterion.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

#define SAMPLES 2000000
#define SET_128                                                                                    \
    "sim:a:rate=1e8:latency=50us,sim:b:rate=2e8:latency=50us,sim:c:rate=8e8:latency=50us"
#define FLIP_SET "sim:fast:rate=1e9:latency=20ms,sim:slow:rate=1e8"

static double rel_err(double got, double want) {
    if (want == 0)
        return fabs(got);
    return fabs(got - want) / fabs(want);
}

/* ---- set-up --------------------------------------------------------------------------- */

/* A temporary folder for the tests that use profile files, removed after each. */
static char tmpdir[64];
static char multigpu_path[128], thresholds_path[128];

static void make_tmpdir(void) {
    const char *tmp = getenv("TMPDIR"); /* scripts/test.sh gives a private one */
    snprintf(tmpdir, sizeof tmpdir, "%s/apo-test-balance-XXXXXX",
             tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    cr_assert_not_null(mkdtemp(tmpdir), "mkdtemp");
    snprintf(multigpu_path, sizeof multigpu_path, "%s/multigpu.json", tmpdir);
    snprintf(thresholds_path, sizeof thresholds_path, "%s/thresholds.json", tmpdir);
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void remove_tmpdir(void) {
    if (tmpdir[0] != '\0' && strstr(tmpdir, "XXXXXX") == NULL)
        nftw(tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    tmpdir[0] = '\0';
}

/* A runtime on `devices` with the virtual sim clock. With `files`, profiles are on and
 * both paths point into the temporary folder; otherwise profiles are off. */
static apo_runtime *runtime(const char *devices, apo_switch learn, int files) {
    apo_config config = APO_CONFIG_INIT;
    config.devices = devices;
    config.sim_clock = APO_SIM_CLOCK_VIRTUAL;
    config.learn = learn;
    config.profiles = files ? APO_SWITCH_ON : APO_SWITCH_OFF;
    if (files) {
        config.multigpu_path = multigpu_path;
        config.thresholds_path = thresholds_path;
    }
    apo_runtime *rt = NULL;
    apo_status st = apo_runtime_create(&config, &rt);
    cr_assert_eq(st, APO_OK, "runtime on \"%s\": %s: %s", devices, apo_status_name(st),
                 apo_last_error());
    return rt;
}

/* One series of n samples of returns_stats, split along time. */
static void job_init(test_job *job, apo_runtime *rt, const char *kernel, size_t n) {
    test_job_init(job, rt, kernel, 1, n, 11);
    job->w.split = APO_SPLIT_TIME;
}

static apo_report run(test_job *job, apo_runtime *rt) {
    apo_report report = APO_REPORT_INIT;
    apo_status st = test_job_run(job, rt, &report);
    cr_assert_eq(st, APO_OK, "call: %s: %s", apo_status_name(st), apo_last_error());
    cr_assert_eq(report.elements, (uint64_t)job->w.rows * job->w.cols);
    cr_assert(report.virtual_clock, "every device is simulated on the virtual clock");
    return report;
}

static void profile(apo_runtime *rt, const char *tag, apo_profile_result *result) {
    static const uint64_t sizes[3] = {200000, 1000000, 4000000};
    apo_profile_options opt = APO_PROFILE_OPTIONS_INIT;
    opt.tag = tag;
    opt.kernel = "returns_stats";
    opt.sizes = sizes;
    opt.n_sizes = 3;
    opt.sample_size = 4000000;
    opt.runs = 3;
    opt.seed = 5;
    apo_profile_result r = APO_PROFILE_RESULT_INIT;
    apo_status st = apo_profile_auto_balance(rt, &opt, &r);
    cr_assert_eq(st, APO_OK, "profile: %s: %s", apo_status_name(st), apo_last_error());
    if (result != NULL)
        *result = r;
}

/* Checks a profiled model against the sim truth (rate in elements per second). */
static void check_model(const apo_device_model *m, const char *id, double latency_ms, double rate) {
    cr_assert_str_eq(m->id, id);
    cr_assert_eq(m->valid, 1, "%s: model valid", id);
    double want_cost = 1e9 / rate; /* ms per million elements */
    cr_assert(fabs(m->latency_ms - latency_ms) <= 0.02 * latency_ms + 1e-3,
              "%s: latency %.6g ms, true %.6g ms", id, m->latency_ms, latency_ms);
    cr_assert(rel_err(m->ms_per_melem, want_cost) <= 0.02, "%s: %.6g ms per Melem, true %.6g", id,
              m->ms_per_melem, want_cost);
    cr_assert_eq(m->dropped, 0, "%s: noiseless runs, none is an outlier (%llu dropped)", id,
                 (unsigned long long)m->dropped);
    cr_assert_eq(m->samples, 9, "%s: 3 sizes x 3 runs kept, samples %llu", id,
                 (unsigned long long)m->samples);
}

/* The plan of a workload of n samples without buffers. */
static apo_plan_info plan_of(apo_runtime *rt, const char *tag, size_t n) {
    apo_kernel_info info = APO_KERNEL_INFO_INIT;
    cr_assert_eq(apo_kernel_get(rt, "returns_stats", &info), APO_OK);
    apo_workload w = APO_WORKLOAD_INIT;
    w.kernel = "returns_stats";
    w.tag = tag;
    w.rows = 1;
    w.cols = n;
    w.n_inputs = 1;
    w.n_outputs = info.n_outputs;
    w.split = APO_SPLIT_TIME;
    apo_plan_info plan = APO_PLAN_INFO_INIT;
    apo_status st = apo_plan_workload(rt, &w, &plan);
    cr_assert_eq(st, APO_OK, "plan of %zu: %s: %s", n, apo_status_name(st), apo_last_error());
    uint64_t sum = 0;
    for (size_t i = 0; i < plan.n_devices; i++)
        sum += plan.device_elements[i];
    cr_assert_eq(sum, (uint64_t)n, "the plan places every element");
    cr_assert_eq(plan.elements, (uint64_t)n);
    return plan;
}

/* Saved outputs of a first call, for bitwise comparison with later ones. */
typedef struct saved {
    size_t n;
    double *out[APO_MAX_IO];
    size_t len[APO_MAX_IO];
} saved;

static void save(saved *s, const test_job *job) {
    s->n = job->w.n_outputs;
    for (size_t i = 0; i < s->n; i++) {
        s->len[i] = job->output_len[i];
        s->out[i] = malloc(s->len[i] * sizeof(double));
        cr_assert_not_null(s->out[i]);
        memcpy(s->out[i], job->outputs[i], s->len[i] * sizeof(double));
    }
}

static void check_same(const saved *s, const test_job *job, int call) {
    for (size_t i = 0; i < s->n; i++) {
        cr_assert_eq(job->output_len[i], s->len[i]);
        cr_assert_eq(memcmp(job->outputs[i], s->out[i], s->len[i] * sizeof(double)), 0,
                     "call %d: output %zu differs bitwise from the first call's", call + 1, i);
    }
}

static void saved_free(saved *s) {
    for (size_t i = 0; i < s->n; i++)
        free(s->out[i]);
}

static void series_text(char *buf, size_t size, const double *v, int n) {
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%.4f ", v[i]);
}

/* ---- online refinement ---------------------------------------------------------------- */

Test(balance, online_refinement_converges_from_equal_shares, .timeout = 120) {
    apo_runtime *rt = runtime(SET_128, APO_SWITCH_ON, 0);
    apo_plan_info p0 = plan_of(rt, NULL, SAMPLES);
    cr_assert_eq(p0.ratio_source, APO_RATIOS_EQUAL, "nothing known yet: %s",
                 apo_ratio_source_name(p0.ratio_source));

    enum { CALLS = 12 };
    test_job job;
    job_init(&job, rt, "returns_stats", SAMPLES);
    double eff[CALLS], span[CALLS];
    uint64_t first_elements[3] = {0};
    int split_moved = 0;
    saved first = {0};
    for (int c = 0; c < CALLS; c++) {
        apo_report r = run(&job, rt);
        eff[c] = r.balance_efficiency;
        span[c] = r.makespan_ms;
        cr_assert_eq(r.ratio_source, c == 0 ? APO_RATIOS_EQUAL : APO_RATIOS_ONLINE,
                     "call %d: ratio source %s", c + 1, apo_ratio_source_name(r.ratio_source));
        if (c == 0) {
            save(&first, &job);
            for (int d = 0; d < 3; d++)
                first_elements[d] = r.devices[d].elements;
        } else {
            check_same(&first, &job, c);
            for (int d = 0; d < 3; d++)
                split_moved |= r.devices[d].elements != first_elements[d];
        }
    }
    char text[256];
    series_text(text, sizeof text, eff, CALLS);
    cr_log_info("online efficiency by call: %s", text);
    cr_assert(split_moved, "the split never moved from equal shares");
    for (int c = 4; c < CALLS; c++)
        cr_assert_geq(eff[c], 0.97, "efficiency %.4f at call %d (series %s)", eff[c], c + 1, text);
    for (int c = 1; c < CALLS; c++)
        cr_assert_leq(span[c], span[0] * (1 + 1e-12),
                      "call %d makespan %.4f ms worse than the equal split's %.4f ms", c + 1,
                      span[c], span[0]);

    apo_plan_info p1 = plan_of(rt, NULL, SAMPLES);
    cr_assert_eq(p1.ratio_source, APO_RATIOS_ONLINE, "plan after learning: %s",
                 apo_ratio_source_name(p1.ratio_source));
    /* Converged: close to rates 1:2:8 (the 50 us latencies shift it slightly). */
    const double want[3] = {1.0 / 11, 2.0 / 11, 8.0 / 11};
    for (int d = 0; d < 3; d++)
        cr_assert(fabs(p1.shares[d] - want[d]) < 0.01, "converged share %d: %.4f, about %.4f", d,
                  p1.shares[d], want[d]);
    saved_free(&first);
    test_job_free(&job);
    apo_runtime_destroy(rt);
}

Test(balance, outputs_stay_bitwise_identical_while_the_split_moves, .timeout = 240) {
    /* A single sim device gives the reference (one device, no split at all). */
    apo_runtime *one = runtime("sim:solo", APO_SWITCH_OFF, 0);
    test_job ref;
    job_init(&ref, one, "bollinger", SAMPLES);
    run(&ref, one);
    apo_runtime_destroy(one);

    apo_runtime *rt = runtime(SET_128, APO_SWITCH_ON, 0);
    test_job job;
    job_init(&job, rt, "bollinger", SAMPLES);
    uint64_t seen[6][3];
    int distinct = 0;
    for (int c = 0; c < 6; c++) {
        apo_report r = run(&job, rt);
        for (size_t i = 0; i < job.w.n_outputs; i++)
            cr_assert_eq(test_bitwise_diff(&ref, &job, i), 0,
                         "call %d: output %zu differs from the single-device run", c + 1, i);
        for (int d = 0; d < 3; d++)
            seen[c][d] = r.devices[d].elements;
        int fresh = 1;
        for (int e = 0; e < c; e++)
            fresh &= memcmp(seen[e], seen[c], sizeof seen[c]) != 0;
        distinct += fresh;
    }
    cr_assert_geq(distinct, 3, "only %d distinct splits in 6 calls: nothing was proven", distinct);
    test_job_free(&job);
    test_job_free(&ref);
    apo_runtime_destroy(rt);
}

Test(balance, follows_a_device_that_slows_down, .timeout = 120) {
    apo_runtime *rt =
        runtime("sim:a:rate=4e8,sim:b:rate=4e8:slow_after=6:slow_rate=2e8", APO_SWITCH_ON, 0);
    enum { CALLS = 15 };
    test_job job;
    job_init(&job, rt, "returns_stats", SAMPLES);
    double eff[CALLS];
    for (int c = 0; c < CALLS; c++) {
        apo_report r = run(&job, rt);
        eff[c] = r.balance_efficiency;
        if (c == 5) {
            /* b's sixth call: it runs at half its rate, unforeseen. */
            cr_assert(rel_err(r.devices[1].throughput, 2e8) < 1e-6,
                      "b slowed down at its sixth call: throughput %.6g", r.devices[1].throughput);
        }
    }
    char text[256];
    series_text(text, sizeof text, eff, CALLS);
    cr_log_info("efficiency by call, b slows at call 6: %s", text);
    for (int c = 0; c < 5; c++)
        cr_assert_geq(eff[c], 0.97, "before the slowdown, call %d: %.4f (series %s)", c + 1, eff[c],
                      text);
    cr_assert_lt(eff[5], 0.9, "the slowdown call is unbalanced (series %s)", text);
    /* Back within 5 calls (call 11 at the latest), and it stays there. */
    for (int c = 10; c < CALLS; c++)
        cr_assert_geq(eff[c], 0.97, "call %d after the slowdown: %.4f (series %s)", c + 1, eff[c],
                      text);
    test_job_free(&job);
    apo_runtime_destroy(rt);
}

Test(balance, online_refinement_finds_the_latency_flip, .timeout = 120) {
    /* Without a profile: calls of 1e6 samples learn that the fast device's 20 ms latency
     * exceeds the slow device's 10 ms alone, then calls of 1e7 bring it back in. */
    apo_runtime *rt = runtime(FLIP_SET, APO_SWITCH_ON, 0);
    test_job small, large;
    job_init(&small, rt, "returns_stats", 1000000);
    job_init(&large, rt, "returns_stats", 10000000);
    for (int c = 0; c < 5; c++) {
        apo_report r = run(&small, rt);
        if (c >= 3) {
            cr_assert_eq(r.devices[0].elements, 0, "call %d: the fast device computed %llu", c + 1,
                         (unsigned long long)r.devices[0].elements);
            cr_assert(rel_err(r.makespan_ms, 10.0) < 0.02, "call %d: makespan %.4f ms", c + 1,
                      r.makespan_ms);
        }
    }
    for (int c = 0; c < 3; c++) {
        apo_report r = run(&large, rt);
        if (c >= 1) {
            cr_assert_gt(r.devices[0].elements, 0, "1e7, call %d: the fast device is back", c + 1);
            cr_assert_geq(r.balance_efficiency, 0.97, "1e7, call %d: efficiency %.4f", c + 1,
                          r.balance_efficiency);
        }
    }
    test_job_free(&small);
    test_job_free(&large);
    apo_runtime_destroy(rt);
}

Test(balance, learning_off_keeps_equal_shares, .timeout = 60) {
    apo_runtime *rt = runtime(SET_128, APO_SWITCH_OFF, 0);
    test_job job;
    job_init(&job, rt, "returns_stats", SAMPLES);
    for (int c = 0; c < 5; c++) {
        apo_report r = run(&job, rt);
        cr_assert_eq(r.ratio_source, APO_RATIOS_EQUAL, "call %d: %s", c + 1,
                     apo_ratio_source_name(r.ratio_source));
        for (int d = 0; d < 3; d++)
            cr_assert(fabs(r.devices[d].share - 1.0 / 3) < 1e-12, "call %d device %d share %.17g",
                      c + 1, d, r.devices[d].share);
    }
    test_job_free(&job);
    apo_runtime_destroy(rt);
}

Test(balance, models_are_learned_per_tag, .timeout = 60) {
    apo_runtime *rt = runtime(SET_128, APO_SWITCH_ON, 0);
    test_job job;
    job_init(&job, rt, "returns_stats", SAMPLES);
    job.w.tag = "first";
    for (int c = 0; c < 3; c++)
        run(&job, rt);
    job.w.tag = "second";
    apo_report r = run(&job, rt);
    cr_assert_eq(r.ratio_source, APO_RATIOS_EQUAL, "a new tag starts from equal shares: %s",
                 apo_ratio_source_name(r.ratio_source));
    job.w.tag = "first";
    r = run(&job, rt);
    cr_assert_eq(r.ratio_source, APO_RATIOS_ONLINE, "the first tag kept its models: %s",
                 apo_ratio_source_name(r.ratio_source));
    test_job_free(&job);
    apo_runtime_destroy(rt);
}

/* ---- profiling ------------------------------------------------------------------------ */

Test(balance, profiled_models_match_the_sim_and_leave_out_a_high_latency_device, .timeout = 120) {
    apo_runtime *rt = runtime(FLIP_SET, APO_SWITCH_OFF, 0);
    apo_profile_result res;
    profile(rt, "returns_stats", &res);
    cr_assert_eq(res.n_devices, 2);
    check_model(&res.devices[0], "sim:fast", 20.0, 1e9);
    check_model(&res.devices[1], "sim:slow", 0.0, 1e8);
    cr_assert_eq(res.sample_size, 4000000);
    /* At 4e6: T = (4e6 + 0.02 / 1e-9) / 1.1e9 = 21.818 ms; fast (T - 20 ms) / 1 ns = 1.818e6
     * elements (0.4545), slow 0.5454. */
    double T = 2.4e7 / 1.1e9;
    cr_assert(rel_err(res.predicted_ms, T * 1e3) < 0.02, "predicted %.6g ms, true %.6g",
              res.predicted_ms, T * 1e3);
    cr_assert(fabs(res.devices[0].ratio - (T - 0.02) / 1e-9 / 4e6) < 0.01, "fast ratio %.4f",
              res.devices[0].ratio);
    cr_assert(fabs(res.devices[1].ratio - T / 1e-8 / 4e6) < 0.01, "slow ratio %.4f",
              res.devices[1].ratio);

    /* 1e6: the slow device alone takes 10 ms, less than the fast one's 20 ms latency. */
    apo_plan_info p = plan_of(rt, NULL, 1000000);
    cr_assert_eq(p.ratio_source, APO_RATIOS_PROFILE, "%s", apo_ratio_source_name(p.ratio_source));
    cr_assert_eq(p.shares[0], 0.0, "fast share at 1e6: %.6g", p.shares[0]);
    cr_assert_eq(p.device_elements[0], 0);
    cr_assert_eq(p.device_elements[1], 1000000);
    cr_assert(rel_err(p.predicted_ms, 10.0) < 0.02, "predicted %.6g ms, true 10", p.predicted_ms);

    /* 1e7: both, T = 3e7 / 1.1e9 = 27.27 ms, fast 0.7273 of the work. */
    p = plan_of(rt, NULL, 10000000);
    cr_assert_eq(p.ratio_source, APO_RATIOS_PROFILE);
    T = 3e7 / 1.1e9;
    cr_assert(fabs(p.shares[0] - (T - 0.02) / 1e-9 / 1e7) < 0.01, "fast share at 1e7: %.4f",
              p.shares[0]);
    cr_assert(fabs(p.shares[1] - T / 1e-8 / 1e7) < 0.01, "slow share at 1e7: %.4f", p.shares[1]);
    cr_assert_gt(p.device_elements[0], 0);
    cr_assert_gt(p.device_elements[1], 0);
    cr_assert(rel_err(p.predicted_ms, T * 1e3) < 0.02, "predicted %.6g ms, true %.6g",
              p.predicted_ms, T * 1e3);

    /* Just either side of the flip (2e6 elements: the slow device alone takes 20 ms). */
    p = plan_of(rt, NULL, 1800000);
    cr_assert_eq(p.device_elements[0], 0, "fast device used below the flip");
    p = plan_of(rt, NULL, 2400000);
    cr_assert_gt(p.device_elements[0], 0, "fast device unused above the flip");

    /* And a real call at 1e6 does what the plan said. */
    test_job job;
    job_init(&job, rt, "returns_stats", 1000000);
    apo_report r = run(&job, rt);
    cr_assert_eq(r.ratio_source, APO_RATIOS_PROFILE);
    cr_assert_eq(r.devices[0].elements, 0, "the fast device computed %llu elements",
                 (unsigned long long)r.devices[0].elements);
    cr_assert(rel_err(r.makespan_ms, 10.0) < 0.02, "makespan %.6g ms", r.makespan_ms);
    test_job_free(&job);
    apo_runtime_destroy(rt);
}

Test(balance, profiled_split_is_balanced, .timeout = 120) {
    apo_runtime *rt = runtime(SET_128, APO_SWITCH_OFF, 0);
    apo_profile_result res;
    profile(rt, "returns_stats", &res);
    cr_assert_eq(res.n_devices, 3);
    check_model(&res.devices[0], "sim:a", 0.05, 1e8);
    check_model(&res.devices[1], "sim:b", 0.05, 2e8);
    check_model(&res.devices[2], "sim:c", 0.05, 8e8);

    test_job job;
    job_init(&job, rt, "returns_stats", SAMPLES);
    apo_report r = run(&job, rt);
    cr_assert_eq(r.ratio_source, APO_RATIOS_PROFILE, "%s", apo_ratio_source_name(r.ratio_source));
    cr_assert_geq(r.balance_efficiency, 0.98, "efficiency %.4f", r.balance_efficiency);
    /* The closed form: T = (N + sum L r) / sum r, share_i = (T - L) r_i / N. */
    const double rate[3] = {1e8, 2e8, 8e8};
    double T = (SAMPLES + 50e-6 * 1.1e9) / 1.1e9;
    for (int d = 0; d < 3; d++) {
        double want = (T - 50e-6) * rate[d] / SAMPLES;
        cr_assert(fabs(r.devices[d].share - want) < 0.005, "share %d: %.5f, want %.5f", d,
                  r.devices[d].share, want);
    }
    test_job_free(&job);
    apo_runtime_destroy(rt);
}

/* ---- explicit ratios ------------------------------------------------------------------ */

static void check_shares(const apo_report *r, const double *want, const char *what) {
    for (size_t d = 0; d < r->n_devices; d++) {
        cr_assert(fabs(r->devices[d].share - want[d]) < 1e-12, "%s: share %zu = %.17g, want %.17g",
                  what, d, r->devices[d].share, want[d]);
        double elems = want[d] * (double)r->elements;
        cr_assert(fabs((double)r->devices[d].elements - elems) <= 2.0 * (double)r->tile,
                  "%s: device %zu computed %llu elements for a share of %.0f", what, d,
                  (unsigned long long)r->devices[d].elements, elems);
    }
}

Test(balance, explicit_ratios_override_profile_online_and_forced, .timeout = 120) {
    apo_runtime *rt = runtime(SET_128, APO_SWITCH_ON, 0);
    profile(rt, "returns_stats", NULL);
    test_job job;
    job_init(&job, rt, "returns_stats", SAMPLES);
    run(&job, rt);
    run(&job, rt);

    const double ratios[3] = {3, 1, 1};
    const double want[3] = {0.6, 0.2, 0.2};
    job.w.ratios = ratios;
    job.w.n_ratios = 3;
    apo_report r = run(&job, rt);
    cr_assert_eq(r.ratio_source, APO_RATIOS_EXPLICIT, "%s", apo_ratio_source_name(r.ratio_source));
    check_shares(&r, want, "workload ratios over a profile and learning");

    const char *ids[2] = {"sim:b", "sim:c"};
    const double forced[2] = {1, 1};
    cr_assert_eq(apo_set_ratios(rt, "returns_stats", ids, forced, 2), APO_OK, "%s",
                 apo_last_error());
    r = run(&job, rt);
    cr_assert_eq(r.ratio_source, APO_RATIOS_EXPLICIT);
    check_shares(&r, want, "workload ratios over forced ones");

    /* Without workload ratios the forced ones apply. */
    job.w.ratios = NULL;
    job.w.n_ratios = 0;
    r = run(&job, rt);
    cr_assert_eq(r.ratio_source, APO_RATIOS_EXPLICIT);
    const double half[3] = {0, 0.5, 0.5};
    check_shares(&r, half, "forced ratios over a profile and learning");
    test_job_free(&job);
    apo_runtime_destroy(rt);
}

Test(balance, set_ratios_forces_shares_per_tag_and_clears, .timeout = 60) {
    apo_runtime *rt = runtime(SET_128, APO_SWITCH_OFF, 0);
    const char *ids[2] = {"sim:c", "sim:a"};
    const double ratios[2] = {3, 1};
    cr_assert_eq(apo_set_ratios(rt, "returns_stats", ids, ratios, 2), APO_OK, "%s",
                 apo_last_error());

    test_job job;
    job_init(&job, rt, "returns_stats", SAMPLES);
    apo_report r = run(&job, rt);
    cr_assert_eq(r.ratio_source, APO_RATIOS_EXPLICIT, "%s", apo_ratio_source_name(r.ratio_source));
    const double want[3] = {0.25, 0, 0.75};
    check_shares(&r, want, "forced 1:0:3");
    cr_assert_eq(r.devices[1].elements, 0, "a device not named gets nothing");

    apo_plan_info p = plan_of(rt, NULL, SAMPLES);
    cr_assert_eq(p.ratio_source, APO_RATIOS_EXPLICIT);
    cr_assert_eq(p.device_elements[1], 0);
    cr_assert(fabs(p.shares[2] - 0.75) < 1e-12, "planned share %.17g", p.shares[2]);

    /* Another tag is not affected. */
    job.w.tag = "other";
    r = run(&job, rt);
    cr_assert_eq(r.ratio_source, APO_RATIOS_EQUAL, "another tag: %s",
                 apo_ratio_source_name(r.ratio_source));
    job.w.tag = NULL;

    /* Refused: unknown device, a device twice, negative, not finite, all zero. */
    const char *unknown[1] = {"sim:nope"};
    const double one[1] = {1};
    cr_assert_eq(apo_set_ratios(rt, "returns_stats", unknown, one, 1), APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(apo_last_error(), "sim:nope") != NULL, "the message names it: %s",
              apo_last_error());
    const char *twice[2] = {"sim:a", "sim:a"};
    const double two[2] = {1, 1};
    cr_assert_eq(apo_set_ratios(rt, "returns_stats", twice, two, 2), APO_ERR_INVALID_ARGUMENT);
    const double negative[2] = {1, -1};
    cr_assert_eq(apo_set_ratios(rt, "returns_stats", ids, negative, 2), APO_ERR_INVALID_ARGUMENT);
    const double nan_ratio[2] = {1, NAN};
    cr_assert_eq(apo_set_ratios(rt, "returns_stats", ids, nan_ratio, 2), APO_ERR_INVALID_ARGUMENT);
    const double zero[2] = {0, 0};
    cr_assert_eq(apo_set_ratios(rt, "returns_stats", ids, zero, 2), APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(apo_set_ratios(rt, NULL, ids, ratios, 2), APO_ERR_NULL);
    cr_assert_eq(apo_set_ratios(NULL, "returns_stats", ids, ratios, 2), APO_ERR_NULL);
    cr_assert_eq(apo_set_ratios(rt, "returns_stats", NULL, ratios, 2), APO_ERR_NULL);

    /* n = 0 clears: back to equal shares (learning off, no profile). */
    cr_assert_eq(apo_set_ratios(rt, "returns_stats", NULL, NULL, 0), APO_OK, "%s",
                 apo_last_error());
    r = run(&job, rt);
    cr_assert_eq(r.ratio_source, APO_RATIOS_EQUAL, "after clearing: %s",
                 apo_ratio_source_name(r.ratio_source));
    test_job_free(&job);
    apo_runtime_destroy(rt);
}

/* ---- profile files -------------------------------------------------------------------- */

#define PAIR "sim:a:rate=1e8,sim:b:rate=4e8"

static int find_entry(apo_runtime *rt, const char *tag, apo_profile_entry *entry) {
    size_t count = 0;
    cr_assert_eq(apo_profile_entry_count(rt, &count), APO_OK, "%s", apo_last_error());
    for (size_t i = 0; i < count; i++) {
        apo_profile_entry e = APO_PROFILE_ENTRY_INIT;
        cr_assert_eq(apo_profile_entry_get(rt, i, &e), APO_OK, "%s", apo_last_error());
        if (strcmp(e.tag, tag) == 0) {
            *entry = e;
            return 1;
        }
    }
    return 0;
}

static apo_profile_files files_of(apo_runtime *rt) {
    apo_profile_files f = APO_PROFILE_FILES_INIT;
    cr_assert_eq(apo_profile_files_get(rt, &f), APO_OK, "%s", apo_last_error());
    cr_assert_str_eq(f.multigpu_path, multigpu_path);
    cr_assert_str_eq(f.thresholds_path, thresholds_path);
    return f;
}

static apo_ratio_source first_call_source(apo_runtime *rt) {
    test_job job;
    job_init(&job, rt, "returns_stats", SAMPLES);
    apo_report r = run(&job, rt);
    test_job_free(&job);
    return r.ratio_source;
}

Test(balance, a_profile_persists_and_goes_stale_with_another_device_set, .timeout = 120,
     .init = make_tmpdir, .fini = remove_tmpdir) {
    apo_runtime *rt = runtime(PAIR, APO_SWITCH_OFF, 1);
    apo_profile_files f = files_of(rt);
    cr_assert_eq(f.multigpu_state, APO_PROFILE_MISSING, "no file yet: %s",
                 apo_profile_state_name(f.multigpu_state));
    apo_profile_result res;
    profile(rt, "returns_stats", &res);
    cr_assert_eq(res.written, 1, "both files written");
    apo_runtime_destroy(rt);
    cr_assert_eq(access(multigpu_path, F_OK), 0, "multigpu.json exists");
    cr_assert_eq(access(thresholds_path, F_OK), 0, "thresholds.json exists");

    /* The same devices: loaded, current, and used from the first call. */
    rt = runtime(PAIR, APO_SWITCH_OFF, 1);
    f = files_of(rt);
    cr_assert_eq(f.multigpu_state, APO_PROFILE_LOADED, "%s: %s",
                 apo_profile_state_name(f.multigpu_state), f.multigpu_message);
    apo_profile_entry e;
    cr_assert(find_entry(rt, "returns_stats", &e), "the profiled tag is stored");
    cr_assert_eq(e.stale, 0, "same devices, not stale: %s", e.stale_reason);
    cr_assert_eq(e.source, APO_RATIOS_PROFILE, "%s", apo_ratio_source_name(e.source));
    cr_assert_eq(e.n_devices, 2);
    cr_assert_str_eq(e.devices[0].id, "sim:a");
    cr_assert_str_eq(e.devices[1].id, "sim:b");
    cr_assert(rel_err(e.devices[0].ms_per_melem, 10.0) < 0.02, "a: %.6g ms/Melem",
              e.devices[0].ms_per_melem);
    cr_assert(rel_err(e.devices[1].ms_per_melem, 2.5) < 0.02, "b: %.6g ms/Melem",
              e.devices[1].ms_per_melem);
    cr_assert(fabs(e.devices[1].ratio - 0.8) < 0.01, "b's ratio %.4f", e.devices[1].ratio);
    apo_ratio_source src = first_call_source(rt);
    cr_assert_eq(src, APO_RATIOS_PROFILE, "first call with the profile loaded: %s",
                 apo_ratio_source_name(src));
    apo_runtime_destroy(rt);

    /* Another device set: the entry is stale and not used. */
    rt = runtime(PAIR ",sim:z", APO_SWITCH_OFF, 1);
    f = files_of(rt);
    cr_assert_eq(f.multigpu_state, APO_PROFILE_LOADED, "%s: %s",
                 apo_profile_state_name(f.multigpu_state), f.multigpu_message);
    cr_assert(find_entry(rt, "returns_stats", &e), "the entry is still listed");
    cr_assert_eq(e.stale, 1, "sim:z was not profiled: the entry is stale");
    cr_assert_neq(e.stale_reason[0], '\0', "a stale entry says why");
    src = first_call_source(rt);
    cr_assert_eq(src, APO_RATIOS_EQUAL, "first call with a stale profile: %s",
                 apo_ratio_source_name(src));
    apo_runtime_destroy(rt);
}

Test(balance, a_corrupt_profile_is_ignored_with_one_warning, .timeout = 60, .init = make_tmpdir,
     .fini = remove_tmpdir) {
    FILE *fp = fopen(multigpu_path, "w");
    cr_assert_not_null(fp);
    fputs("{\"format\": \"apportion.multigpu/1\", \"workloads\": {\"x\": [1, 2,\x01 garbage", fp);
    fclose(fp);

    apo_runtime *rt = runtime(PAIR, APO_SWITCH_OFF, 1);
    apo_profile_files f = files_of(rt);
    cr_assert_eq(f.multigpu_state, APO_PROFILE_IGNORED, "%s",
                 apo_profile_state_name(f.multigpu_state));
    cr_assert_neq(f.multigpu_message[0], '\0', "an ignored file says why");
    size_t count = 0, mentions = 0;
    cr_assert_eq(apo_runtime_warning_count(rt, &count), APO_OK);
    for (size_t i = 0; i < count; i++) {
        const char *msg = NULL;
        cr_assert_eq(apo_runtime_warning(rt, i, &msg), APO_OK);
        mentions += strstr(msg, multigpu_path) != NULL;
    }
    cr_assert_eq(mentions, 1, "%zu warnings name %s (of %zu)", mentions, multigpu_path, count);

    apo_ratio_source src = first_call_source(rt);
    cr_assert_eq(src, APO_RATIOS_EQUAL, "%s", apo_ratio_source_name(src));
    src = first_call_source(rt);
    cr_assert_eq(src, APO_RATIOS_EQUAL, "%s", apo_ratio_source_name(src));
    apo_runtime_destroy(rt);
}

Test(balance, online_refinement_is_stored_at_destroy, .timeout = 120, .init = make_tmpdir,
     .fini = remove_tmpdir) {
    apo_runtime *rt = runtime(PAIR, APO_SWITCH_ON, 1);
    test_job job;
    job_init(&job, rt, "returns_stats", SAMPLES);
    for (int c = 0; c < 4; c++)
        run(&job, rt);
    test_job_free(&job);
    apo_runtime_destroy(rt);

    rt = runtime(PAIR, APO_SWITCH_OFF, 1);
    apo_profile_files f = files_of(rt);
    cr_assert_eq(f.multigpu_state, APO_PROFILE_LOADED, "%s: %s",
                 apo_profile_state_name(f.multigpu_state), f.multigpu_message);
    apo_profile_entry e;
    cr_assert(find_entry(rt, "returns_stats", &e), "the refined models were stored");
    cr_assert_eq(e.source, APO_RATIOS_ONLINE, "%s", apo_ratio_source_name(e.source));
    cr_assert_eq(e.stale, 0, "%s", e.stale_reason);
    cr_assert_eq(e.n_devices, 2);
    for (size_t d = 0; d < 2; d++)
        cr_assert(e.devices[d].valid && e.devices[d].ms_per_melem > 0, "device %zu model", d);
    /* Rates 1e8 and 4e8, no latency: the refined costs are the sim's. */
    cr_assert(rel_err(e.devices[0].ms_per_melem, 10.0) < 0.02, "a: %.6g ms/Melem",
              e.devices[0].ms_per_melem);
    cr_assert(rel_err(e.devices[1].ms_per_melem, 2.5) < 0.02, "b: %.6g ms/Melem",
              e.devices[1].ms_per_melem);
    apo_runtime_destroy(rt);
}

/* ---- exploration (docs/scheduling.md) -------------------------------------------------- */

/* Two sims, the second (slow) left without work by its model: 4e8 against 1e5 elements/s
 * gives it 1/4000 of the call, under one tile of 2e6 samples' 245. */
#define STARVED_PAIR "sim:a:rate=4e8,sim:b:rate=1e5"

/* The configuration key of device `id` of a runtime over `devices`: a stored model counts
 * only for a device of the same key (docs/profiles.md). */
static void config_key(const char *devices, const char *id, char *key, size_t size) {
    apo_runtime *rt = runtime(devices, APO_SWITCH_OFF, 0);
    size_t n = 0;
    cr_assert_eq(apo_device_count(rt, &n), APO_OK);
    key[0] = '\0';
    for (size_t d = 0; d < n; d++) {
        apo_device_info info = APO_DEVICE_INFO_INIT;
        cr_assert_eq(apo_device_get(rt, d, &info), APO_OK);
        if (strcmp(info.id, id) == 0)
            snprintf(key, size, "%s", info.config);
    }
    apo_runtime_destroy(rt);
    cr_assert_neq(key[0], '\0', "%s has no device %s", devices, id);
}

/* Writes a profile for returns_stats that says a runs at 2.5 ms per million elements and b
 * at 10 s per million (STARVED_PAIR's devices), keyed for the devices of `devices`: for
 * STARVED_PAIR a true profile, for a faster b a wrong one of the same configuration. */
static void write_starving_profile(const char *devices) {
    char key_a[APO_LABEL_MAX], key_b[APO_LABEL_MAX];
    config_key(devices, "sim:a", key_a, sizeof key_a);
    config_key(devices, "sim:b", key_b, sizeof key_b);
    FILE *fp = fopen(multigpu_path, "w");
    cr_assert_not_null(fp);
    fprintf(fp,
            "{\"format\": \"apportion.multigpu/1\", \"workloads\": {\"returns_stats\": {\n"
            " \"source\": \"profile\", \"sample_size\": 2000000, \"runs\": 5, \"devices\": {\n"
            "  \"sim:a\": {\"config\": \"%s\", \"latency_ms\": 0, \"ms_per_melem\": 2.5, "
            "\"samples\": 15},\n"
            "  \"sim:b\": {\"config\": \"%s\", \"latency_ms\": 0, \"ms_per_melem\": 10000, "
            "\"samples\": 15}},\n"
            " \"ratios\": {\"sim:a\": 1, \"sim:b\": 0.00025}}}}\n",
            key_a, key_b);
    fclose(fp);
}

/* A runtime on STARVED_PAIR's kind of devices with the profile of write_starving_profile()
 * loaded. */
static apo_runtime *runtime_with_profile(const char *devices, apo_switch learn) {
    apo_runtime *rt = runtime(devices, learn, 1);
    apo_profile_files f = files_of(rt);
    cr_assert_eq(f.multigpu_state, APO_PROFILE_LOADED, "%s: %s",
                 apo_profile_state_name(f.multigpu_state), f.multigpu_message);
    return rt;
}

/* Runs `calls` calls and records whether device 1 (b) had work in each, checking the bound
 * of every probe: at most 2% of the call's elements, b's share the fraction of the tiles
 * it ran. */
static void run_and_record_b(apo_runtime *rt, test_job *job, int calls, int *b_worked) {
    for (int c = 0; c < calls; c++) {
        apo_report r = run(job, rt);
        uint64_t e = r.devices[1].elements;
        b_worked[c] = e > 0;
        if (e > 0) {
            cr_assert_leq((double)e, 0.02 * (double)r.elements,
                          "call %d: b's probe is %llu of %llu elements, over 2%%", c + 1,
                          (unsigned long long)e, (unsigned long long)r.elements);
            cr_assert(fabs(r.devices[1].share - (double)r.devices[1].tiles / (double)r.tiles) <
                          1e-12,
                      "call %d: b's share %.6g for %llu of %llu tiles", c + 1, r.devices[1].share,
                      (unsigned long long)r.devices[1].tiles, (unsigned long long)r.tiles);
        }
    }
}

Test(balance, a_starved_device_is_probed_on_one_learning_call_in_ten, .timeout = 120,
     .init = make_tmpdir, .fini = remove_tmpdir) {
    write_starving_profile(STARVED_PAIR);
    apo_runtime *rt = runtime_with_profile(STARVED_PAIR, APO_SWITCH_ON);
    test_job job;
    job_init(&job, rt, "returns_stats", SAMPLES);
    enum { CALLS = 35 };
    int worked[CALLS];
    run_and_record_b(rt, &job, 9, worked);
    /* Plans are previews: they neither probe nor count towards the next probe. */
    for (int i = 0; i < 5; i++) {
        apo_plan_info p = plan_of(rt, NULL, SAMPLES);
        cr_assert_eq(p.device_elements[1], 0, "preview %d gives b %llu elements", i + 1,
                     (unsigned long long)p.device_elements[1]);
    }
    run_and_record_b(rt, &job, CALLS - 9, worked + 9);
    /* The tenth, twentieth and thirtieth call of the tag, and no other: the probes find b
     * as slow as its model says, so it stays without work in between. */
    for (int c = 0; c < CALLS; c++)
        cr_expect_eq(worked[c], (c + 1) % 10 == 0, "call %d: b %s", c + 1,
                     worked[c] ? "had work" : "had none");
    /* A probe takes at least a whole tile: it is 4 of the 245 tiles here (the last one
     * partial), so b computes 3 * 8192 + 1152 samples. */
    apo_report r = APO_REPORT_INIT;
    for (int c = CALLS; c < 40; c++)
        r = run(&job, rt);
    cr_assert_eq(r.devices[1].elements, 3 * 8192 + 1152, "the 40th call's probe: %llu",
                 (unsigned long long)r.devices[1].elements);
    test_job_free(&job);
    apo_runtime_destroy(rt);
}

Test(balance, no_probe_while_one_tile_is_over_2_percent_of_the_call, .timeout = 120,
     .init = make_tmpdir, .fini = remove_tmpdir) {
    write_starving_profile(STARVED_PAIR);
    apo_runtime *rt = runtime_with_profile(STARVED_PAIR, APO_SWITCH_ON);
    /* 2e5 samples are 25 tiles of 8192: one tile is 4% of the call, so no probe... */
    test_job small, large;
    job_init(&small, rt, "returns_stats", 200000);
    job_init(&large, rt, "returns_stats", SAMPLES);
    int worked[15];
    run_and_record_b(rt, &small, 15, worked);
    for (int c = 0; c < 15; c++)
        cr_expect_eq(worked[c], 0, "2e5 samples, call %d: b had work", c + 1);
    /* ...and the probe due since the tenth call comes with the first call that can take it,
     * then not before ten more. */
    run_and_record_b(rt, &large, 12, worked);
    for (int c = 0; c < 12; c++)
        cr_expect_eq(worked[c], c == 0 || c == 10, "2e6 samples, call %d: b %s", c + 1,
                     worked[c] ? "had work" : "had none");
    test_job_free(&small);
    test_job_free(&large);
    apo_runtime_destroy(rt);

    /* 49 whole tiles and one of a single sample: 2% is 8028.18 samples, one unit of the
     * budget, but b, first in device order, would get a whole first tile of 8192. */
    rt = runtime_with_profile("sim:b:rate=1e5,sim:a:rate=4e8", APO_SWITCH_ON);
    job_init(&small, rt, "returns_stats", 49 * 8192 + 1);
    for (int c = 0; c < 12; c++) {
        apo_report r = run(&small, rt);
        cr_expect_eq(r.devices[0].elements, 0, "49 tiles and 1 sample, call %d: b ran %llu", c + 1,
                     (unsigned long long)r.devices[0].elements);
    }
    test_job_free(&small);
    apo_runtime_destroy(rt);
}

Test(balance, no_probe_without_learning_or_against_given_ratios, .timeout = 120,
     .init = make_tmpdir, .fini = remove_tmpdir) {
    write_starving_profile(STARVED_PAIR);
    /* Learning off: the profile's models stay, and b never gets work. */
    apo_runtime *rt = runtime_with_profile(STARVED_PAIR, APO_SWITCH_OFF);
    test_job job;
    job_init(&job, rt, "returns_stats", SAMPLES);
    int worked[25];
    run_and_record_b(rt, &job, 25, worked);
    for (int c = 0; c < 25; c++)
        cr_expect_eq(worked[c], 0, "learning off, call %d: b had work", c + 1);
    test_job_free(&job);
    apo_runtime_destroy(rt);

    /* Learning on, the same models, and ratios that give b a sliver under one tile: as the
     * workload's ratios, then forced for the tag. Neither is overridden. */
    rt = runtime_with_profile(STARVED_PAIR, APO_SWITCH_ON);
    job_init(&job, rt, "returns_stats", SAMPLES);
    const double ratios[2] = {1.0, 1e-4};
    job.w.ratios = ratios;
    job.w.n_ratios = 2;
    run_and_record_b(rt, &job, 25, worked);
    for (int c = 0; c < 25; c++)
        cr_expect_eq(worked[c], 0, "workload ratios, call %d: b had work", c + 1);
    job.w.ratios = NULL;
    job.w.n_ratios = 0;
    const char *ids[2] = {"sim:a", "sim:b"};
    cr_assert_eq(apo_set_ratios(rt, "returns_stats", ids, ratios, 2), APO_OK, "%s",
                 apo_last_error());
    run_and_record_b(rt, &job, 25, worked);
    for (int c = 0; c < 25; c++)
        cr_expect_eq(worked[c], 0, "forced ratios, call %d: b had work", c + 1);
    test_job_free(&job);
    apo_runtime_destroy(rt);
}

/* Calls until b is back: returns the first call (1-based) after the first in which it has
 * at least 40% of the work, and checks that the calls after it stay balanced. */
static int calls_until_back(apo_runtime *rt, test_job *job, int calls) {
    int back = 0;
    for (int c = 0; c < calls; c++) {
        apo_report r = run(job, rt);
        if (back == 0 && c > 0 && r.devices[1].share >= 0.4)
            back = c + 1;
        else if (back > 0)
            cr_assert_geq(r.balance_efficiency, 0.97, "call %d, after b came back at %d: %.4f",
                          c + 1, back, r.balance_efficiency);
    }
    return back;
}

Test(balance, a_starved_device_is_probed_and_back_in_use_once_fast, .timeout = 120,
     .init = make_tmpdir, .fini = remove_tmpdir) {
    /* Learnt slow: b's first call with work runs at 1e5 elements/s, every later one at 4e8
     * (as fast as a). Its model leaves it without work until a probe sees the change. */
    apo_runtime *rt =
        runtime("sim:a:rate=4e8,sim:b:rate=1e5:slow_after=2:slow_rate=4e8", APO_SWITCH_ON, 0);
    test_job job;
    job_init(&job, rt, "returns_stats", SAMPLES);
    int back = calls_until_back(rt, &job, 15);
    /* Probed at call 10, in use from call 11. */
    cr_assert_eq(back, 11, "b back at call %d", back);
    test_job_free(&job);
    apo_runtime_destroy(rt);

    /* A wrong profile: it says b is slow, b is as fast as a all along. */
    write_starving_profile("sim:a:rate=4e8,sim:b:rate=4e8");
    rt = runtime_with_profile("sim:a:rate=4e8,sim:b:rate=4e8", APO_SWITCH_ON);
    job_init(&job, rt, "returns_stats", SAMPLES);
    back = calls_until_back(rt, &job, 15);
    cr_assert_eq(back, 11, "b back at call %d", back);
    test_job_free(&job);
    apo_runtime_destroy(rt);
}

Test(balance, exploration_adds_up_over_one_call_runtimes, .timeout = 120, .init = make_tmpdir,
     .fini = remove_tmpdir) {
    /* As the command line uses the library: one runtime per call, the profile file between
     * them. The counters of exploration are stored with the models, so the tenth process
     * probes the wrongly starved b, and the eleventh, finding its observation after a gap
     * of calls without work, gives it its fair share. */
    const char *devices = "sim:a:rate=4e8,sim:b:rate=4e8";
    write_starving_profile(devices);
    int first_work = 0, back = 0;
    for (int c = 1; c <= 12 && back == 0; c++) {
        apo_runtime *rt = runtime_with_profile(devices, APO_SWITCH_ON);
        test_job job;
        job_init(&job, rt, "returns_stats", SAMPLES);
        apo_report r = run(&job, rt);
        if (first_work == 0 && r.devices[1].elements > 0)
            first_work = c;
        else if (first_work > 0 && r.devices[1].share >= 0.4)
            back = c;
        test_job_free(&job);
        apo_runtime_destroy(rt);
    }
    cr_assert_eq(first_work, 10, "b first had work in process %d", first_work);
    cr_assert_eq(back, 11, "b back in use in process %d", back);
}

/* ---- apo_should_use_gpu --------------------------------------------------------------- */

static int use_gpu_at(apo_runtime *rt, const apo_param *params, size_t n_params, uint64_t samples) {
    int use = -1;
    apo_status st = apo_should_use_gpu(rt, "bollinger", params, n_params, samples, &use);
    cr_assert_eq(st, APO_OK, "should_use_gpu(%llu): %s: %s", (unsigned long long)samples,
                 apo_status_name(st), apo_last_error());
    cr_assert(use == 0 || use == 1, "use_gpu %d", use);
    return use;
}

Test(balance, should_use_gpu_interpolates_thresholds, .timeout = 60, .init = make_tmpdir,
     .fini = remove_tmpdir) {
    FILE *fp = fopen(thresholds_path, "w");
    cr_assert_not_null(fp);
    /* Sizes with their CPU and GPU milliseconds. */
    static const double rows[3][3] = {{1000, 0.1, 5.0}, {100000, 10, 5.5}, {1000000, 100, 10}};
    fprintf(fp, "{\"format\": \"apportion.thresholds/1\", \"updated_at\": "
                "\"2026-01-01T00:00:00Z\",\n \"entries\": {\n");
    for (int i = 0; i < 3; i++)
        fprintf(fp,
                "  \"bollinger:{'nbdev_dn': 2, 'nbdev_up': 2, 'period': 20, 'size': %.0f}\": "
                "{\"cpu_ms_avg\": %.17g, \"gpu_ms_avg\": %.17g, \"samples\": 1}%s\n",
                rows[i][0], rows[i][1], rows[i][2], i < 2 ? "," : "");
    fprintf(fp, "}}\n");
    fclose(fp);

    apo_runtime *rt = runtime("cpu", APO_SWITCH_OFF, 1);
    apo_profile_files f = files_of(rt);
    cr_assert_eq(f.thresholds_state, APO_PROFILE_LOADED, "%s: %s",
                 apo_profile_state_name(f.thresholds_state), f.thresholds_message);

    /* Segment [1e3, 1e5]: CPU line 1e-4 ms per sample through the origin; GPU line slope
     * 0.5 / 99000 ms per sample, latency 5 - 1000 * 0.5 / 99000 = 4.994949... ms. The GPU is
     * used once the CPU takes longer than that: above 49949.49... samples.
     * Segment [1e5, 1e6]: CPU 1e-4 ms per sample, GPU latency 5 ms: GPU from 50000 on,
     * i.e. everywhere in the segment. Beyond the stored sizes, the nearest segment. */
    const uint64_t no[6] = {1, 100, 1000, 10000, 40000, 49949};
    const uint64_t yes[7] = {49950, 60000, 100000, 300000, 1000000, 5000000, 100000000};
    for (int i = 0; i < 6; i++)
        cr_assert_eq(use_gpu_at(rt, NULL, 0, no[i]), 0, "%llu samples: the CPU is faster",
                     (unsigned long long)no[i]);
    for (int i = 0; i < 7; i++)
        cr_assert_eq(use_gpu_at(rt, NULL, 0, yes[i]), 1, "%llu samples: the GPU is worth it",
                     (unsigned long long)yes[i]);

    /* Named parameters equal to the defaults are the same entry. */
    const apo_param same[2] = {{"period", 20}, {"nbdev_up", 2}};
    cr_assert_eq(use_gpu_at(rt, same, 2, 49949), 0);
    cr_assert_eq(use_gpu_at(rt, same, 2, 49950), 1);

    /* Parameters never measured, and a kernel never measured. */
    const apo_param other[1] = {{"period", 30}};
    int use = -1;
    cr_assert_eq(apo_should_use_gpu(rt, "bollinger", other, 1, 1000000, &use), APO_ERR_NOT_FOUND);
    cr_assert_eq(use, 0, "not found leaves use_gpu 0");
    use = -1;
    cr_assert_eq(apo_should_use_gpu(rt, "macd", NULL, 0, 1000000, &use), APO_ERR_NOT_FOUND);
    cr_assert_eq(use, 0);
    cr_assert_eq(apo_should_use_gpu(rt, "no_such_kernel", NULL, 0, 1000000, &use),
                 APO_ERR_UNKNOWN_KERNEL);
    const apo_param bad[1] = {{"period", 1}};
    cr_assert_eq(apo_should_use_gpu(rt, "bollinger", bad, 1, 1000000, &use), APO_ERR_BAD_PARAM);
    cr_assert_eq(apo_should_use_gpu(rt, "bollinger", NULL, 0, 1000000, NULL), APO_ERR_NULL);
    apo_runtime_destroy(rt);
}

/* ---- apo_threshold_record ------------------------------------------------------------- */

/* The entry of `key`, found by a fresh runtime reading the file: what another process sees. */
static apo_threshold_info stored_threshold(const char *key) {
    apo_runtime *rt = runtime("cpu", APO_SWITCH_OFF, 1);
    size_t n = 0;
    cr_assert_eq(apo_threshold_count(rt, &n), APO_OK);
    apo_threshold_info info = APO_THRESHOLD_INFO_INIT;
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(apo_threshold_get(rt, i, &info), APO_OK);
        if (strcmp(info.key, key) == 0) {
            apo_runtime_destroy(rt);
            return info;
        }
    }
    apo_runtime_destroy(rt);
    cr_assert_fail("no entry \"%s\" among %zu", key, n);
    return info;
}

Test(balance, recorded_thresholds_are_merged_stored_and_decide, .timeout = 60, .init = make_tmpdir,
     .fini = remove_tmpdir) {
    apo_runtime *rt = runtime("cpu", APO_SWITCH_OFF, 1);
    /* The rows of should_use_gpu_interpolates_thresholds, recorded instead of written; the
     * middle one in two measurements whose averages are its times (10 = (8 + 12) / 2). */
    const apo_param period[1] = {{"period", 20}};
    cr_assert_eq(apo_threshold_record(rt, "bollinger", period, 1, 1000, 0.1, 5.0), APO_OK, "%s",
                 apo_last_error());
    cr_assert_eq(apo_threshold_record(rt, "bollinger", NULL, 0, 100000, 8, 5.5), APO_OK);
    cr_assert_eq(apo_threshold_record(rt, "bollinger", NULL, 0, 100000, 12, NAN), APO_OK);
    cr_assert_eq(apo_threshold_record(rt, "bollinger", NULL, 0, 1000000, 100, 10), APO_OK);
    /* Defaults completed, so the decision of the in-memory table is the documented one. */
    cr_assert_eq(use_gpu_at(rt, NULL, 0, 49949), 0);
    cr_assert_eq(use_gpu_at(rt, NULL, 0, 49950), 1);
    /* A name that is no kernel is stored as given, with its size. */
    const apo_param threadx[1] = {{"period", 20}};
    cr_assert_eq(apo_threshold_record(rt, "bollinger_bands", threadx, 1, 10000, 150, 50), APO_OK);
    apo_runtime_destroy(rt);

    apo_threshold_info mid =
        stored_threshold("bollinger:{'nbdev_dn': 2, 'nbdev_up': 2, 'period': 20, 'size': 100000}");
    cr_assert_eq(mid.cpu_ms_avg, 10.0);
    cr_assert_eq(mid.gpu_ms_avg, 5.5, "one GPU time: its own average");
    cr_assert_eq(mid.samples, 2);
    apo_threshold_info tx = stored_threshold("bollinger_bands:{'period': 20, 'size': 10000}");
    cr_assert_eq(tx.cpu_ms_avg, 150.0);
    cr_assert_eq(tx.gpu_ms_avg, 50.0);

    /* A fresh runtime reads the same decision from the file. */
    rt = runtime("cpu", APO_SWITCH_OFF, 1);
    cr_assert_eq(use_gpu_at(rt, NULL, 0, 49949), 0);
    cr_assert_eq(use_gpu_at(rt, NULL, 0, 49950), 1);

    /* Refusals. */
    cr_assert_eq(apo_threshold_record(NULL, "bollinger", NULL, 0, 1, 1, 1), APO_ERR_NULL);
    cr_assert_eq(apo_threshold_record(rt, "bollinger", NULL, 1, 1, 1, 1), APO_ERR_NULL);
    cr_assert_eq(apo_threshold_record(rt, "bollinger", NULL, 0, 1, NAN, NAN),
                 APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(apo_threshold_record(rt, "bollinger", NULL, 0, 1, -1, 1),
                 APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(apo_threshold_record(rt, "bollinger", NULL, 0, 1, 1, INFINITY),
                 APO_ERR_INVALID_ARGUMENT);
    cr_assert_eq(apo_threshold_record(rt, "bad name", NULL, 0, 1, 1, 1), APO_ERR_INVALID_ARGUMENT);
    const apo_param bad_period[1] = {{"period", 1}};
    cr_assert_eq(apo_threshold_record(rt, "bollinger", bad_period, 1, 1, 1, 1), APO_ERR_BAD_PARAM);
    const apo_param size[1] = {{"size", 5}};
    cr_assert_eq(apo_threshold_record(rt, "custom", size, 1, 1, 1, 1), APO_ERR_INVALID_ARGUMENT);
    const apo_param twice[2] = {{"a", 1}, {"a", 2}};
    cr_assert_eq(apo_threshold_record(rt, "custom", twice, 2, 1, 1, 1), APO_ERR_INVALID_ARGUMENT);
    const apo_param nan_value[1] = {{"a", NAN}};
    cr_assert_eq(apo_threshold_record(rt, "custom", nan_value, 1, 1, 1, 1),
                 APO_ERR_INVALID_ARGUMENT);
    apo_runtime_destroy(rt);
}

/* Profiling a real cpu beside a stand-in GPU with a large fixed time fills the thresholds
 * in memory (profiles off), and the decision follows: the cpu alone for small series, the
 * stand-in too once the cpu's predicted time passes its 50 ms latency. */
Test(balance, profiling_feeds_the_cpu_or_gpu_decision_in_memory, .timeout = 120) {
    apo_config config = APO_CONFIG_INIT;
    config.devices = "cpu:threads=1,sim:gpu:rate=1e10:latency=50ms";
    /* The stand-in's time grows by 40 us from the smallest size to the largest: on the wall
     * clock a loaded machine's sleeps wander further than that, and the fit then finds no
     * growth. On the virtual clock its time is exactly its model; the cpu's is measured. */
    config.sim_clock = APO_SIM_CLOCK_VIRTUAL;
    config.profiles = APO_SWITCH_OFF;
    config.learn = APO_SWITCH_OFF;
    apo_runtime *rt = NULL;
    cr_assert_eq(apo_runtime_create(&config, &rt), APO_OK, "%s", apo_last_error());
    int use = -1;
    cr_assert_eq(apo_should_use_gpu(rt, "bollinger", NULL, 0, 1000, &use), APO_ERR_NOT_FOUND);
    cr_assert_eq(use, 0);

    static const uint64_t sizes[3] = {20000, 100000, 400000};
    apo_profile_options opt = APO_PROFILE_OPTIONS_INIT;
    opt.tag = "bollinger";
    opt.sizes = sizes;
    opt.n_sizes = 3;
    opt.runs = 3;
    apo_profile_result r = APO_PROFILE_RESULT_INIT;
    cr_assert_eq(apo_profile_auto_balance(rt, &opt, &r), APO_OK, "%s", apo_last_error());
    cr_assert_eq(r.written, 0, "profiles are off: nothing is written");
    size_t n = 0;
    cr_assert_eq(apo_threshold_count(rt, &n), APO_OK);
    cr_assert_eq(n, 3, "one threshold entry per size, got %zu", n);
    apo_threshold_info info = APO_THRESHOLD_INFO_INIT;
    cr_assert_eq(apo_threshold_get(rt, 0, &info), APO_OK);
    cr_assert(strstr(info.key, "bollinger:{'nbdev_dn': 2, 'nbdev_up': 2, 'period': 20, 'size': ") ==
                  info.key,
              "%s", info.key);
    cr_assert(info.gpu_ms_avg >= 50.0, "the stand-in's time includes its latency: %g",
              info.gpu_ms_avg);
    cr_assert(isfinite(info.cpu_ms_avg) && info.samples == 1);
    cr_assert_eq(info.simulated, 1, "the GPU side's time came from a sim device");

    /* A single-threaded cpu takes well under 50 ms for 1000 samples and far more for 1e9. */
    cr_assert_eq(apo_should_use_gpu(rt, "bollinger", NULL, 0, 1000, &use), APO_OK);
    cr_assert_eq(use, 0);
    cr_assert_eq(apo_should_use_gpu(rt, "bollinger", NULL, 0, 1000000000, &use), APO_OK);
    cr_assert_eq(use, 1);
    /* Other parameters were never measured. */
    apo_param other = {"period", 30};
    cr_assert_eq(apo_should_use_gpu(rt, "bollinger", &other, 1, 1000, &use), APO_ERR_NOT_FOUND);
    apo_runtime_destroy(rt);
}
