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
 *
 * Exploration is in test_balance_exploration.c, the CPU-or-GPU decision in
 * test_balance_thresholds.c, and what the three files share in balance_fixtures.c.
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

#include "balance_fixtures.h"

#define SET_128                                                                                    \
    "sim:a:rate=1e8:latency=50us,sim:b:rate=2e8:latency=50us,sim:c:rate=8e8:latency=50us"

#define FLIP_SET "sim:fast:rate=1e9:latency=20ms,sim:slow:rate=1e8"

static double rel_err(double got, double want) {
    if (want == 0)
        return fabs(got);
    return fabs(got - want) / fabs(want);
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

/* A sim device's true model, as the sim device set defines it. */
typedef struct model_want {
    const char *id;
    double latency_ms, rate;
} model_want;

/* Profiles rt and checks that every one of its n devices got its true model, in order: the
 * profiling cases share this start. */
static void profile_and_check_models(apo_runtime *rt, apo_profile_result *res, size_t n,
                                     const model_want *want) {
    profile(rt, "returns_stats", res);
    cr_assert_eq(res->n_devices, n, "%zu devices profiled, want %zu", res->n_devices, n);
    for (size_t d = 0; d < n; d++)
        check_model(&res->devices[d], want[d].id, want[d].latency_ms, want[d].rate);
}

/* One call of returns_stats over n samples on a job of its own, freed after: its report. */
static apo_report one_call(apo_runtime *rt, size_t n) {
    test_job job;
    job_init(&job, rt, "returns_stats", n);
    apo_report r = run(&job, rt);
    test_job_free(&job);
    return r;
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
    apo_plan_info p0 = test_plan_returns_stats(rt, NULL, SAMPLES);
    cr_assert_eq(p0.ratio_source, APO_RATIOS_EQUAL, "nothing known yet: %s",
                 apo_ratio_source_name(p0.ratio_source));

    enum { CALLS = 12 };
    test_job job;
    samples_job(&job, rt);
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

    apo_plan_info p1 = test_plan_returns_stats(rt, NULL, SAMPLES);
    cr_assert_eq(p1.ratio_source, APO_RATIOS_ONLINE, "plan after learning: %s",
                 apo_ratio_source_name(p1.ratio_source));
    /* Converged: close to rates 1:2:8 (the 50 us latencies shift it slightly). */
    const double want[3] = {1.0 / 11, 2.0 / 11, 8.0 / 11};
    for (int d = 0; d < 3; d++)
        cr_assert(fabs(p1.shares[d] - want[d]) < 0.01, "converged share %d: %.4f, about %.4f", d,
                  p1.shares[d], want[d]);
    saved_free(&first);
    samples_job_close(&job, rt);
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
    enum { CALLS = 15 };
    test_job job;
    apo_runtime *rt =
        samples_job(&job, runtime("sim:a:rate=4e8,sim:b:rate=4e8:slow_after=6:slow_rate=2e8",
                                  APO_SWITCH_ON, 0));
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
    samples_job_close(&job, rt);
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
    test_job job;
    apo_runtime *rt = samples_job(&job, runtime(SET_128, APO_SWITCH_OFF, 0));
    for (int c = 0; c < 5; c++) {
        apo_report r = run(&job, rt);
        cr_assert_eq(r.ratio_source, APO_RATIOS_EQUAL, "call %d: %s", c + 1,
                     apo_ratio_source_name(r.ratio_source));
        for (int d = 0; d < 3; d++)
            cr_assert(fabs(r.devices[d].share - 1.0 / 3) < 1e-12, "call %d device %d share %.17g",
                      c + 1, d, r.devices[d].share);
    }
    samples_job_close(&job, rt);
}

Test(balance, models_are_learned_per_tag, .timeout = 60) {
    test_job job;
    apo_runtime *rt = samples_job(&job, runtime(SET_128, APO_SWITCH_ON, 0));
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
    samples_job_close(&job, rt);
}

/* ---- profiling ------------------------------------------------------------------------ */

Test(balance, profiled_models_match_the_sim_and_leave_out_a_high_latency_device, .timeout = 120) {
    apo_runtime *rt = runtime(FLIP_SET, APO_SWITCH_OFF, 0);
    apo_profile_result res;
    const model_want want[] = {{"sim:fast", 20.0, 1e9}, {"sim:slow", 0.0, 1e8}};
    profile_and_check_models(rt, &res, 2, want);
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
    apo_plan_info p = test_plan_returns_stats(rt, NULL, 1000000);
    cr_assert_eq(p.ratio_source, APO_RATIOS_PROFILE, "%s", apo_ratio_source_name(p.ratio_source));
    cr_assert_eq(p.shares[0], 0.0, "fast share at 1e6: %.6g", p.shares[0]);
    cr_assert_eq(p.device_elements[0], 0);
    cr_assert_eq(p.device_elements[1], 1000000);
    cr_assert(rel_err(p.predicted_ms, 10.0) < 0.02, "predicted %.6g ms, true 10", p.predicted_ms);

    /* 1e7: both, T = 3e7 / 1.1e9 = 27.27 ms, fast 0.7273 of the work. */
    p = test_plan_returns_stats(rt, NULL, 10000000);
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
    p = test_plan_returns_stats(rt, NULL, 1800000);
    cr_assert_eq(p.device_elements[0], 0, "fast device used below the flip");
    p = test_plan_returns_stats(rt, NULL, 2400000);
    cr_assert_gt(p.device_elements[0], 0, "fast device unused above the flip");

    /* And a real call at 1e6 does what the plan said. */
    apo_report r = one_call(rt, 1000000);
    cr_assert_eq(r.ratio_source, APO_RATIOS_PROFILE);
    cr_assert_eq(r.devices[0].elements, 0, "the fast device computed %llu elements",
                 (unsigned long long)r.devices[0].elements);
    cr_assert(rel_err(r.makespan_ms, 10.0) < 0.02, "makespan %.6g ms", r.makespan_ms);
    apo_runtime_destroy(rt);
}

Test(balance, profiled_split_is_balanced, .timeout = 120) {
    apo_runtime *rt = runtime(SET_128, APO_SWITCH_OFF, 0);
    apo_profile_result res;
    const model_want truth[] = {{"sim:a", 0.05, 1e8}, {"sim:b", 0.05, 2e8}, {"sim:c", 0.05, 8e8}};
    profile_and_check_models(rt, &res, 3, truth);

    apo_report r = one_call(rt, SAMPLES);
    cr_assert_eq(r.ratio_source, APO_RATIOS_PROFILE, "%s", apo_ratio_source_name(r.ratio_source));
    cr_assert_geq(r.balance_efficiency, 0.98, "efficiency %.4f", r.balance_efficiency);
    /* The closed form: T = (N + sum L r) / sum r, share_i = (T - L) r_i / N. */
    double T = (SAMPLES + 50e-6 * 1.1e9) / 1.1e9;
    for (int d = 0; d < 3; d++) {
        double want = (T - 50e-6) * truth[d].rate / SAMPLES;
        cr_assert(fabs(r.devices[d].share - want) < 0.005, "share %d: %.5f, want %.5f", d,
                  r.devices[d].share, want);
    }
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
    samples_job(&job, rt);
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
    samples_job_close(&job, rt);
}

Test(balance, set_ratios_forces_shares_per_tag_and_clears, .timeout = 60) {
    apo_runtime *rt = runtime(SET_128, APO_SWITCH_OFF, 0);
    const char *ids[2] = {"sim:c", "sim:a"};
    const double ratios[2] = {3, 1};
    cr_assert_eq(apo_set_ratios(rt, "returns_stats", ids, ratios, 2), APO_OK, "%s",
                 apo_last_error());

    test_job job;
    samples_job(&job, rt);
    apo_report r = run(&job, rt);
    cr_assert_eq(r.ratio_source, APO_RATIOS_EXPLICIT, "%s", apo_ratio_source_name(r.ratio_source));
    const double want[3] = {0.25, 0, 0.75};
    check_shares(&r, want, "forced 1:0:3");
    cr_assert_eq(r.devices[1].elements, 0, "a device not named gets nothing");

    apo_plan_info p = test_plan_returns_stats(rt, NULL, SAMPLES);
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
    samples_job_close(&job, rt);
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

static apo_ratio_source first_call_source(apo_runtime *rt) {
    return one_call(rt, SAMPLES).ratio_source;
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
    test_job job;
    apo_runtime *rt = samples_job(&job, runtime(PAIR, APO_SWITCH_ON, 1));
    for (int c = 0; c < 4; c++)
        run(&job, rt);
    samples_job_close(&job, rt);

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

/* The profile's generated inputs are walks from 100 with steps of up to 1, which go below 0 in
 * most seeds over tens of thousands of samples; a volume never may (the catalog refuses one),
 * so a profile of a kernel that reads one must not fail on its own input (the volume is the
 * walk's distance from 0). */
Test(balance, a_kernel_reading_volume_profiles_on_its_generated_input, .timeout = 120) {
    static const char *const kernels[] = {"obv", "mfi", "cmf", "adosc"};
    apo_runtime *rt = runtime("sim:a:rate=1e9,sim:b:rate=1e9", APO_SWITCH_OFF, 0);
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++)
        for (uint64_t seed = 0; seed < 3; seed++) {
            apo_profile_options opt = APO_PROFILE_OPTIONS_INIT;
            opt.tag = kernels[k];
            opt.kernel = kernels[k];
            opt.sample_size = 60000;
            opt.runs = 1;
            opt.seed = seed;
            apo_profile_result r = APO_PROFILE_RESULT_INIT;
            cr_assert_eq(apo_profile_auto_balance(rt, &opt, &r), APO_OK, "%s, seed %llu: %s",
                         kernels[k], (unsigned long long)seed, apo_last_error());
        }
    apo_runtime_destroy(rt);
}
