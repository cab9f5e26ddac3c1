/* The replayed-H100 cases and what they share; see replay_fixtures.h. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reference.h"
#include "replay_fixtures.h"

double replay_call(apo_runtime *rt, test_job *job, int only, int learn, apo_report *report) {
    size_t n = 0;
    cr_assert_eq(apo_device_count(rt, &n), APO_OK);
    double ratios[APO_MAX_DEVICES];
    if (only >= 0) {
        for (size_t d = 0; d < n; d++)
            ratios[d] = (int)d == only ? 1.0 : 0.0;
        job->w.ratios = ratios;
        job->w.n_ratios = n;
    }
    job->w.learn = only < 0 && learn ? APO_SWITCH_ON : APO_SWITCH_OFF;
    *report = (apo_report)APO_REPORT_INIT;
    apo_status st = test_job_run(job, rt, report);
    job->w.ratios = NULL;
    job->w.n_ratios = 0;
    cr_assert_eq(st, APO_OK, "%s on device %d: %s", job->w.kernel, only, apo_last_error());
    cr_assert(report->virtual_clock, "a replayed device's times are modelled");
    return report->makespan_ms;
}

double replay_plan(apo_runtime *rt, test_job *job, double *shares) {
    apo_plan_info plan = APO_PLAN_INFO_INIT;
    cr_assert_eq(apo_plan_workload(rt, &job->w, &plan), APO_OK, "%s", apo_last_error());
    for (size_t d = 0; d < plan.n_devices; d++)
        shares[d] = plan.shares[d];
    return plan.predicted_ms;
}

void replay_scored_job(test_job *job, apo_runtime *rt, size_t rows, size_t cols, size_t sets) {
    static double periods[APO_MAX_SWEEP_SETS];
    static apo_sweep_param grid = {"timeperiod", periods, 0};
    static apo_sweep sweep = APO_SWEEP_INIT;
    cr_assert_leq(sets, (size_t)APO_MAX_SWEEP_SETS);
    for (size_t s = 0; s < sets; s++)
        periods[s] = (double)(2 + s);
    grid.n_values = sets;
    sweep.grid = &grid;
    sweep.n_grid = 1;
    test_job_init(job, rt, "rsi", rows, cols, 11);
    job->w.score = "rsi_zone";
    job->w.sweep = &sweep;
    job->w.n_outputs = APO_N_SCORES;
}

void check_memory_bound_call_not_slower_than_cpu(size_t samples) {
    apo_runtime *rt = test_runtime(REPLAYED_PAIR);
    apo_profile_options opt = APO_PROFILE_OPTIONS_INIT;
    opt.tag = "bollinger";
    opt.sample_size = samples / 10;
    opt.runs = 3;
    cr_assert_eq(apo_profile_auto_balance(rt, &opt, NULL), APO_OK, "%s", apo_last_error());
    test_job job;
    test_job_init(&job, rt, "bollinger", 1, samples, 5);
    double shares[APO_MAX_DEVICES];
    const double planned = replay_plan(rt, &job, shares);
    apo_report report;
    const double measured = replay_call(rt, &job, -1, 1, &report);
    const double cpu = replay_call(rt, &job, 1, 0, &report);
    const double gpu = replay_call(rt, &job, 0, 0, &report);
    /* The plan is a prediction: within 2 percent; the measurement is the configuration's. */
    cr_assert(planned <= cpu * 1.02,
              "planned %.2f ms (GPU share %.3f) against %.2f ms for the cpu alone", planned,
              shares[0], cpu);
    cr_assert(measured <= cpu * 1.001,
              "measured %.2f ms (GPU share %.3f) against %.2f ms for the cpu alone (GPU alone "
              "%.2f ms)",
              measured, shares[0], cpu, gpu);
    test_job_close(&job, rt);
}

void check_scored_sweep_goes_to_gpu(size_t rows, size_t cols, size_t sets) {
    apo_runtime *rt = test_runtime(REPLAYED_PAIR);
    apo_report report;
    /* Learnt on one series at three lengths, as `apportion profile` fits a line: on a GPU one
     * series is one chain per set, whose time grows with its length and says nothing of how
     * many chains run at once. The GPU's staging memory, pinned once per runtime, is paid
     * first, outside the models. */
    for (size_t part = 4; part >= 1; part /= 2) {
        test_job one;
        replay_scored_job(&one, rt, 1, cols / part, sets);
        if (part == 4)
            replay_call(rt, &one, 0, 0, &report);
        for (int i = 0; i < 2; i++)
            replay_call(rt, &one, -1, 1, &report);
        test_job_free(&one);
    }
    test_job all;
    replay_scored_job(&all, rt, rows, cols, sets);
    const double ms = replay_call(rt, &all, -1, 1, &report);
    const double gpu_share = (double)report.devices[0].elements / (double)report.elements;
    const double gpu = replay_call(rt, &all, 0, 0, &report);
    const double cpu = replay_call(rt, &all, 1, 0, &report);
    cr_assert(gpu_share >= 0.85, "the GPU got %.3f of the sets (%.2f ms; GPU alone %.2f, cpu %.2f)",
              gpu_share, ms, gpu, cpu);
    cr_assert(ms <= 1.15 * gpu, "%.2f ms against %.2f ms for the GPU alone (share %.3f)", ms, gpu,
              gpu_share);
    test_job_free(&all);
    apo_runtime_destroy(rt);
}

/* One random case of check_random_shapes(). */
static void random_case(uint64_t seed, size_t max_samples, unsigned warm) {
    static const char *const members[] = {"sim:h100:replay=h100", "sim:cpu16:replay=h100-host",
                                          "sim:plain:rate=%.3g"};
    unsigned mask = 0;
    while (mask == 0)
        mask = (unsigned)(apo__test_uniform(seed, 0) * 8) & 7u;
    char devices[256] = "";
    size_t used = 0;
    int gpu = -1, n = 0;
    for (unsigned m = 0; m < 3; m++) {
        if (!(mask & (1u << m)))
            continue;
        char item[64];
        snprintf(item, sizeof item, members[m], pow(10, 8 + 2 * apo__test_uniform(seed, 1)));
        used +=
            (size_t)snprintf(devices + used, sizeof devices - used, "%s%s", used ? "," : "", item);
        if (m == 0)
            gpu = n;
        n++;
    }
    const int kind = (int)(apo__test_uniform(seed, 2) * 3);
    const double lo = log10(1e5), hi = log10((double)max_samples);
    const size_t samples = (size_t)pow(10, lo + (hi - lo) * apo__test_uniform(seed, 3));
    apo_runtime *rt = test_runtime(devices);
    test_job job;
    if (kind == 2) {
        const size_t cols = 2520, rows = samples / cols > 0 ? samples / cols : 1;
        replay_scored_job(&job, rt, rows, cols, 8 + (size_t)(32 * apo__test_uniform(seed, 4)));
    } else {
        test_job_init(&job, rt, kind == 0 ? "bollinger" : "macd", 1, samples, seed);
    }
    apo_report report;
    if (gpu >= 0)
        replay_call(rt, &job, gpu, 0, &report);
    for (unsigned i = 0; i < warm; i++)
        replay_call(rt, &job, -1, 1, &report);
    const double chosen = replay_call(rt, &job, -1, 1, &report);
    double best = INFINITY;
    int best_d = -1;
    for (int d = 0; d < n; d++) {
        const double alone = replay_call(rt, &job, d, 0, &report);
        if (alone < best) {
            best = alone;
            best_d = d;
        }
    }
    cr_assert(chosen <= 1.1 * best,
              "case %llu: %s, %s over %zu samples: %.3f ms against %.3f ms for device %d alone",
              (unsigned long long)seed, devices, job.w.kernel, samples, chosen, best, best_d);
    test_job_close(&job, rt);
}

void check_random_shapes(unsigned first, unsigned cases, size_t max_samples, unsigned warm) {
    for (unsigned c = first; c < first + cases; c++)
        random_case(1000 + c, max_samples, warm);
}
