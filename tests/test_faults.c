/*
 * Faults: sim devices that fail at random points (flaky=P), several at once, all but one,
 * devices that stop answering (hang_after=N) and are abandoned at their deadline, and the
 * quarantine of devices that keep failing. Every call that succeeds must give outputs
 * bitwise identical to a single-device cpu run, for every built-in kernel and both split
 * axes; a late task must never write after the call has returned.
 *
 * Each test prints one "fault-tally" line (calls, faults injected and survived, devices
 * quarantined, deadlines missed) that docs/robustness.md sums over the suite.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "devices/worker_pool.h"
#include "helpers.h"

/* ---- workloads and references ------------------------------------------------------------ */

typedef struct kernel_case {
    const char *kernel;
    size_t rows, cols;
    const char *param;
    double value;
} kernel_case;

/* Every built-in kernel with several tiles per row, a ragged last tile and 6 rows, so that
 * both axes give each of up to 6 devices several tasks. */
static const kernel_case cases[] = {
    {"bollinger", 6, 3 * 4096 + 7, NULL, 0},
    {"macd", 6, 2 * 16384 + 100, NULL, 0},
    {"returns_stats", 6, 3 * 8192 + 5, NULL, 0},
    {"bootstrap", 6, 500, "replicates", 40},
};
#define N_CASES (sizeof cases / sizeof cases[0])

static const apo_split axes[] = {APO_SPLIT_ROWS, APO_SPLIT_TIME};

static void case_job(test_job *job, apo_runtime *rt, const kernel_case *c, apo_split split) {
    test_job_init(job, rt, c->kernel, c->rows, c->cols, 11);
    if (c->param != NULL)
        test_job_param(job, c->param, c->value);
    job->w.split = split;
}

static void assert_same_bits(const test_job *ref, const test_job *got, const char *what) {
    for (size_t i = 0; i < ref->w.n_outputs; i++) {
        size_t diff = test_bitwise_diff(ref, got, i);
        cr_assert_eq(diff, 0, "%s, %s: output %zu has %zu elements that differ bitwise",
                     ref->w.kernel, what, i, diff);
    }
}

/* ---- runtimes ------------------------------------------------------------------------------- */

typedef struct fault_config {
    apo_sim_clock clock; /* UNSET: virtual */
    double floor_s, factor;
    unsigned quarantine_after;
} fault_config;

static apo_runtime *fault_runtime(const char *devices, const fault_config *fc) {
    apo_config config = APO_CONFIG_INIT;
    config.devices = devices;
    config.sim_clock = fc->clock != APO_SIM_CLOCK_UNSET ? fc->clock : APO_SIM_CLOCK_VIRTUAL;
    config.deadline_floor_s = fc->floor_s;
    config.deadline_factor = fc->factor;
    config.quarantine_after = fc->quarantine_after;
    /* Run alone (outside meson's environment), a test must not touch the user's profiles. */
    config.profiles = APO_SWITCH_OFF;
    apo_runtime *rt = NULL;
    apo_status st = apo_runtime_create(&config, &rt);
    cr_assert_eq(st, APO_OK, "runtime on \"%s\": %s", devices, apo_last_error());
    return rt;
}

/* The single-device cpu run that every faulty run must equal bit for bit. */
static void reference(const kernel_case *c, test_job *ref) {
    fault_config defaults = {0};
    apo_runtime *cpu = fault_runtime("cpu", &defaults);
    case_job(ref, cpu, c, APO_SPLIT_AUTO);
    cr_assert_eq(test_job_run(ref, cpu, NULL), APO_OK, "%s", apo_last_error());
    apo_runtime_destroy(cpu);
}

/* ---- the figures ------------------------------------------------------------------------- */

typedef struct tally {
    unsigned long long calls, calls_failed, faults, survived, quarantined, deadlines;
} tally;

/* Checks what every successful report must say, and counts its faults. */
static void check_report(tally *t, const apo_report *r) {
    uint64_t computed = 0;
    size_t failed = 0, missed = 0, quarantined = 0;
    for (size_t d = 0; d < r->n_devices; d++) {
        const apo_device_report *dr = &r->devices[d];
        computed += dr->elements;
        failed += (size_t)dr->failed;
        missed += (size_t)dr->deadline_missed;
        quarantined += (size_t)dr->quarantined;
        if (dr->failed) {
            cr_assert_gt(dr->elements_moved_out, 0, "%s failed but gave nothing away", dr->id);
            cr_assert_neq(dr->failure[0], '\0');
        }
        if (dr->deadline_missed)
            cr_assert(dr->failed && strstr(dr->failure, "deadline") != NULL, "%s: %s", dr->id,
                      dr->failure);
        if (dr->quarantined)
            cr_assert_neq(dr->quarantine_reason[0], '\0', "%s has no quarantine reason", dr->id);
        else
            cr_assert_eq(dr->quarantine_reason[0], '\0');
    }
    cr_assert_eq(computed, r->elements, "every element computed exactly once");
    cr_assert_eq(failed, r->failovers);
    cr_assert_eq(missed, r->deadlines_missed);
    cr_assert_eq(quarantined, r->quarantined);
    t->calls++;
    t->faults += failed;
    t->survived += failed;
    t->deadlines += missed;
}

static void print_tally(const char *test, const tally *t) {
    fprintf(stderr,
            "fault-tally %s: calls %llu (failing as expected %llu), faults injected %llu, "
            "survived %llu, devices quarantined %llu, deadlines missed %llu\n",
            test, t->calls, t->calls_failed, t->faults, t->survived, t->quarantined, t->deadlines);
}

/* Runs `calls` calls of case c on `devices` along `split`, checks each against the
 * reference, and returns the last report. */
static apo_report run_calls(tally *t, const char *devices, const fault_config *fc,
                            const kernel_case *c, apo_split split, const test_job *ref, int calls) {
    apo_runtime *rt = fault_runtime(devices, fc);
    apo_report report = APO_REPORT_INIT;
    for (int call = 0; call < calls; call++) {
        test_job got;
        case_job(&got, rt, c, split);
        apo_status st = test_job_run(&got, rt, &report);
        cr_assert_eq(st, APO_OK, "%s on %s, call %d: %s", c->kernel, devices, call,
                     apo_last_error());
        char what[256];
        snprintf(what, sizeof what, "%s, split %s, call %d", devices, apo_split_name(split), call);
        assert_same_bits(ref, &got, what);
        cr_assert_eq(report.split_axis, split);
        check_report(t, &report);
        test_job_free(&got);
    }
    t->quarantined += report.quarantined;
    apo_runtime_destroy(rt);
    return report;
}

/* ---- random failures -------------------------------------------------------------------- */

Test(faults, flaky_devices_fail_at_random_points_and_results_stay_exact, .timeout = 300) {
    static const double probabilities[] = {0.15, 0.4, 0.8};
    fault_config fc = {0};
    tally t = {0};
    for (size_t k = 0; k < N_CASES; k++) {
        test_job ref;
        reference(&cases[k], &ref);
        for (size_t a = 0; a < 2; a++)
            for (size_t p = 0; p < 3; p++)
                for (unsigned seed = 1; seed <= 6; seed++) {
                    /* Three flaky devices and one that never fails: a sim, or the real
                     * cpu with its OpenMP threads. */
                    char devices[256];
                    double pr = probabilities[p];
                    snprintf(devices, sizeof devices,
                             "sim:a:flaky=%g:seed=%u,sim:b:flaky=%g:seed=%u,%s,sim:c:flaky=%g:"
                             "seed=%u",
                             pr, seed, pr, seed, seed % 2 ? "sim:steady" : "cpu", pr, seed + 100);
                    run_calls(&t, devices, &fc, &cases[k], axes[a], &ref, 3);
                }
        test_job_free(&ref);
    }
    /* With these probabilities, no fault at all would mean flaky does nothing. */
    cr_assert_gt(t.faults, 100, "only %llu faults injected", t.faults);
    print_tally("flaky", &t);
}

/* Which devices failed in each of `calls` calls, as a bit mask per call. */
static void failure_pattern(const char *devices, const char *watched, unsigned *masks, int calls) {
    fault_config fc = {.quarantine_after = 1000000};
    apo_runtime *rt = fault_runtime(devices, &fc);
    for (int call = 0; call < calls; call++) {
        test_job job;
        case_job(&job, rt, &cases[0], APO_SPLIT_TIME);
        apo_report report = APO_REPORT_INIT;
        cr_assert_eq(test_job_run(&job, rt, &report), APO_OK, "%s", apo_last_error());
        masks[call] = 0;
        for (size_t d = 0; d < report.n_devices; d++)
            if (strcmp(report.devices[d].id, watched) == 0)
                masks[call] = (unsigned)report.devices[d].failed;
        test_job_free(&job);
    }
    apo_runtime_destroy(rt);
}

Test(faults, flaky_draws_depend_on_seed_and_name_not_on_timing_or_order, .timeout = 120) {
    enum { CALLS = 24 };
    unsigned first[CALLS], again[CALLS], swapped[CALLS], other_seed[CALLS];
    failure_pattern("sim:x:flaky=0.5:seed=7,sim:y", "sim:x", first, CALLS);
    failure_pattern("sim:x:flaky=0.5:seed=7,sim:y", "sim:x", again, CALLS);
    failure_pattern("sim:y,sim:x:flaky=0.5:seed=7", "sim:x", swapped, CALLS);
    failure_pattern("sim:x:flaky=0.5:seed=8,sim:y", "sim:x", other_seed, CALLS);
    cr_assert_arr_eq(first, again, sizeof first, "the same seed gave other failures");
    cr_assert_arr_eq(first, swapped, sizeof first, "the device's position changed its draws");
    cr_assert(memcmp(first, other_seed, sizeof first) != 0, "another seed gave the same draws");
    unsigned failures = 0;
    for (int i = 0; i < CALLS; i++)
        failures += first[i];
    /* 4 tasks a call at P = 0.5: a call without failure has probability 1/16. */
    cr_assert_gt(failures, CALLS / 2, "%u failed calls of %d", failures, CALLS);

    /* flaky=0 never fails; flaky=1 fails every call. */
    failure_pattern("sim:x:flaky=0,sim:y", "sim:x", first, CALLS);
    failure_pattern("sim:x:flaky=1:seed=3,sim:y", "sim:x", again, CALLS);
    for (int i = 0; i < CALLS; i++) {
        cr_assert_eq(first[i], 0);
        cr_assert_eq(again[i], 1);
    }
}

/* ---- several devices, all but one ------------------------------------------------------- */

Test(faults, several_devices_fail_in_one_call, .timeout = 120) {
    /* a fails at its first task (after a drawn number of tiles), b at its second, d at its
     * third; c and e carry the call. */
    const char *devices = "sim:a:flaky=1:seed=5,sim:b:fail_after=2,sim:c,sim:d:fail_after=3,sim:e";
    fault_config fc = {0};
    tally t = {0};
    for (size_t k = 0; k < N_CASES; k++) {
        test_job ref;
        reference(&cases[k], &ref);
        for (size_t a = 0; a < 2; a++) {
            apo_report r = run_calls(&t, devices, &fc, &cases[k], axes[a], &ref, 1);
            cr_assert_eq(r.failovers, 3, "%s, %s", cases[k].kernel, apo_split_name(axes[a]));
            cr_assert(r.devices[0].failed && r.devices[1].failed && r.devices[3].failed);
            cr_assert(!r.devices[2].failed && !r.devices[4].failed);
            cr_assert_gt(r.devices[2].elements_moved_in + r.devices[4].elements_moved_in, 0);
        }
        test_job_free(&ref);
    }
    print_tally("several", &t);
}

Test(faults, every_device_but_one_fails_then_is_quarantined, .timeout = 120) {
    static const char *const lists[] = {
        "sim:a:flaky=1,sim:b:fail_after=1,sim:c:flaky=1:seed=9,sim:d:fail_after=2,cpu",
        "sim:a:fail_after=1,sim:b:flaky=1:seed=4,sim:c",
    };
    fault_config fc = {0}; /* quarantine after the default 3 calls */
    tally t = {0};
    for (size_t k = 0; k < N_CASES; k++) {
        test_job ref;
        reference(&cases[k], &ref);
        for (size_t l = 0; l < 2; l++)
            for (size_t a = 0; a < 2; a++) {
                apo_runtime *rt = fault_runtime(lists[l], &fc);
                size_t n;
                cr_assert_eq(apo_device_count(rt, &n), APO_OK);
                /* Equal explicit ratios: every device has work in every call. */
                double ratios[5] = {1, 1, 1, 1, 1};
                for (int call = 0; call < 5; call++) {
                    test_job got;
                    case_job(&got, rt, &cases[k], axes[a]);
                    got.w.ratios = ratios;
                    got.w.n_ratios = n;
                    apo_report r = APO_REPORT_INIT;
                    cr_assert_eq(test_job_run(&got, rt, &r), APO_OK, "%s", apo_last_error());
                    assert_same_bits(&ref, &got, lists[l]);
                    check_report(&t, &r);
                    /* Three calls in a row with a failure quarantine the n - 1 failing
                     * devices; from the fourth call on the last one works alone. */
                    cr_assert_eq(r.failovers, call < 3 ? n - 1 : 0, "call %d", call);
                    cr_assert_eq(r.quarantined, call < 2 ? 0 : n - 1, "call %d", call);
                    if (call < 3)
                        cr_assert_gt(r.devices[n - 1].elements_moved_in, 0, "call %d", call);
                    if (call >= 3) {
                        cr_assert_eq(r.devices[n - 1].elements, r.elements);
                        for (size_t d = 0; d + 1 < n; d++) {
                            cr_assert_eq(r.devices[d].elements, 0);
                            cr_assert_eq(r.devices[d].share, 0.0);
                            cr_assert(strstr(r.devices[d].quarantine_reason, "3 of its calls") !=
                                          NULL,
                                      "%s", r.devices[d].quarantine_reason);
                        }
                    }
                    test_job_free(&got);
                }
                t.quarantined += n - 1;
                apo_runtime_destroy(rt);
            }
        test_job_free(&ref);
    }
    print_tally("all-but-one", &t);
}

/* ---- quarantine ------------------------------------------------------------------------- */

Test(faults, quarantine_follows_the_rule_call_by_call, .timeout = 120) {
    /* Equal explicit ratios give every device that is not quarantined work in every call,
     * so "in a row" is over consecutive calls; the rule is recomputed from the reports. */
    enum { CALLS = 30, K = 3 };
    fault_config fc = {.quarantine_after = K};
    tally t = {0};
    test_job ref;
    reference(&cases[0], &ref);
    for (unsigned seed = 1; seed <= 8; seed++) {
        char devices[256];
        snprintf(devices, sizeof devices,
                 "sim:a:flaky=0.4:seed=%u,sim:b:flaky=0.6:seed=%u,sim:c:flaky=0.2:seed=%u,sim:d",
                 seed, seed, seed);
        apo_runtime *rt = fault_runtime(devices, &fc);
        double ratios[4] = {1, 1, 1, 1};
        unsigned in_a_row[4] = {0};
        int quarantined[4] = {0};
        for (int call = 0; call < CALLS; call++) {
            test_job got;
            case_job(&got, rt, &cases[0], APO_SPLIT_TIME);
            got.w.ratios = ratios;
            got.w.n_ratios = 4;
            apo_report r = APO_REPORT_INIT;
            cr_assert_eq(test_job_run(&got, rt, &r), APO_OK, "%s", apo_last_error());
            assert_same_bits(&ref, &got, devices);
            check_report(&t, &r);
            for (size_t d = 0; d < 4; d++) {
                const apo_device_report *dr = &r.devices[d];
                if (quarantined[d]) {
                    cr_assert(dr->quarantined && dr->elements == 0 && !dr->failed,
                              "seed %u call %d: %s came back", seed, call, dr->id);
                    continue;
                }
                cr_assert_gt(dr->elements + dr->elements_moved_out, 0, "%s had no work", dr->id);
                in_a_row[d] = dr->failed ? in_a_row[d] + 1 : 0;
                quarantined[d] = in_a_row[d] >= K;
                cr_assert_eq(dr->quarantined, quarantined[d], "seed %u call %d: %s after %u", seed,
                             call, dr->id, in_a_row[d]);
            }
            test_job_free(&got);
        }
        cr_assert_eq(quarantined[3], 0, "the steady device was quarantined");
        for (size_t d = 0; d < 4; d++)
            t.quarantined += (unsigned long long)quarantined[d];
        apo_runtime_destroy(rt);
    }
    test_job_free(&ref);
    print_tally("quarantine-rule", &t);
}

Test(faults, a_quarantined_device_gets_no_work_and_is_reported_every_call, .timeout = 60) {
    fault_config fc = {.quarantine_after = 2};
    tally t = {0};
    test_job ref;
    reference(&cases[2], &ref);
    apo_runtime *rt = fault_runtime("sim:a:fail_after=1,sim:b", &fc);
    for (int call = 0; call < 5; call++) {
        test_job got;
        case_job(&got, rt, &cases[2], APO_SPLIT_TIME);
        apo_report r = APO_REPORT_INIT;
        cr_assert_eq(test_job_run(&got, rt, &r), APO_OK, "%s", apo_last_error());
        assert_same_bits(&ref, &got, "quarantine");
        check_report(&t, &r);
        const apo_device_report *a = &r.devices[0];
        cr_assert_eq(a->failed, call < 2, "call %d", call);
        cr_assert_eq(a->quarantined, call >= 1, "call %d", call);
        if (call >= 1)
            cr_assert(strstr(a->quarantine_reason, "failed in 2 of its calls in a row, the last "
                                                   "being call 2") != NULL,
                      "%s", a->quarantine_reason);
        if (call >= 2) {
            cr_assert_eq(a->elements, 0);
            cr_assert_eq(a->share, 0.0);
            cr_assert_eq(a->deadline_ms, 0.0, "a device without work has no deadline");
        }
        test_job_free(&got);
    }
    /* A plan made now leaves it out too. */
    test_job job;
    case_job(&job, rt, &cases[2], APO_SPLIT_TIME);
    apo_plan_info plan = APO_PLAN_INFO_INIT;
    cr_assert_eq(apo_plan_workload(rt, &job.w, &plan), APO_OK, "%s", apo_last_error());
    cr_assert_eq(plan.shares[0], 0.0);
    cr_assert_eq(plan.device_elements[1], plan.elements);
    test_job_free(&job);
    t.quarantined++;
    apo_runtime_destroy(rt);
    test_job_free(&ref);
    print_tally("quarantine-report", &t);
}

Test(faults, the_quarantine_warning_is_logged_once, .timeout = 60) {
    char path[512];
    const char *tmp = getenv("TMPDIR"); /* scripts/test.sh gives a private one */
    snprintf(path, sizeof path, "%s/apo-faults-log-XXXXXX",
             tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    /* The log reads its variables once per process, at its first message: this one. */
    setenv("APPORTION_DEBUG", "WARN", 1);
    setenv("APPORTION_DEBUG_FILE", path, 1);
    fault_config fc = {.quarantine_after = 2};
    apo_runtime *rt = fault_runtime("sim:a:fail_after=1,sim:b", &fc);
    for (int call = 0; call < 6; call++) {
        test_job job;
        case_job(&job, rt, &cases[0], APO_SPLIT_TIME);
        cr_assert_eq(test_job_run(&job, rt, NULL), APO_OK, "%s", apo_last_error());
        test_job_free(&job);
    }
    apo_runtime_destroy(rt);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char line[1024];
    int quarantined = 0, failures = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        quarantined += strstr(line, "sim:a is quarantined for the runtime's life") != NULL;
        failures += strstr(line, "sim:a failed") != NULL;
    }
    fclose(f);
    unlink(path);
    cr_assert_eq(quarantined, 1, "the quarantine was logged %d times", quarantined);
    cr_assert_eq(failures, 2, "sim:a failed %d times, not 2", failures);
}

Test(faults, when_every_device_is_quarantined_calls_fail_clearly, .timeout = 60) {
    fault_config fc = {.quarantine_after = 1};
    apo_runtime *rt = fault_runtime("sim:a:fail_after=1,sim:b:flaky=1", &fc);
    tally t = {0};
    for (int call = 0; call < 3; call++) {
        test_job job;
        case_job(&job, rt, &cases[0], APO_SPLIT_TIME);
        apo_status st = test_job_run(&job, rt, NULL);
        cr_assert_eq(st, APO_ERR_ALL_DEVICES_FAILED, "call %d: %s", call, apo_status_name(st));
        if (call == 0) {
            cr_assert(strstr(apo_last_error(), "every device failed") != NULL, "%s",
                      apo_last_error());
            t.faults += 2;
        } else {
            cr_assert(strstr(apo_last_error(), "quarantined") != NULL, "%s", apo_last_error());
            apo_plan_info plan = APO_PLAN_INFO_INIT;
            cr_assert_eq(apo_plan_workload(rt, &job.w, &plan), APO_ERR_ALL_DEVICES_FAILED);
        }
        t.calls++;
        t.calls_failed++;
        test_job_free(&job);
    }
    t.quarantined += 2;
    apo_runtime_destroy(rt);
    print_tally("all-quarantined", &t);
}

Test(faults, a_quarantined_device_is_not_profiled, .timeout = 60) {
    /* Its one-hot runs would time the other devices instead: profiling refuses. */
    fault_config fc = {.quarantine_after = 1};
    apo_runtime *rt = fault_runtime("sim:a,sim:b:fail_after=1", &fc);
    test_job job;
    case_job(&job, rt, &cases[0], APO_SPLIT_TIME);
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_OK, "%s", apo_last_error());
    test_job_free(&job);
    apo_profile_options opt = APO_PROFILE_OPTIONS_INIT;
    opt.tag = "bollinger";
    static const uint64_t sizes[] = {10000, 40000};
    opt.sizes = sizes;
    opt.n_sizes = 2;
    opt.runs = 1;
    cr_assert_eq(apo_profile_auto_balance(rt, &opt, NULL), APO_ERR_DEVICE_LOST);
    cr_assert(strstr(apo_last_error(), "sim:b is quarantined (it failed in 1 of its calls") != NULL,
              "%s", apo_last_error());
    apo_runtime_destroy(rt);
}

/* ---- deadlines -------------------------------------------------------------------------- */

Test(faults, a_device_that_stops_answering_is_abandoned_and_its_tiles_redone, .timeout = 120) {
    /* b answers nothing from its first task; a and c redo its share once its deadline (the
     * 0.2 s floor: on the virtual clock the model says nothing about real time) passes.
     * The floor leaves a and c, which compute for about a millisecond, a wide margin on a
     * loaded machine. */
    fault_config fc = {.floor_s = 0.2};
    tally t = {0};
    for (size_t k = 0; k < N_CASES; k++) {
        test_job ref;
        reference(&cases[k], &ref);
        for (size_t a = 0; a < 2; a++) {
            apo_runtime *rt = fault_runtime("sim:a,sim:b:hang_after=1,sim:c", &fc);
            for (int call = 0; call < 2; call++) {
                test_job got;
                case_job(&got, rt, &cases[k], axes[a]);
                apo_report r = APO_REPORT_INIT;
                cr_assert_eq(test_job_run(&got, rt, &r), APO_OK, "%s", apo_last_error());
                assert_same_bits(&ref, &got, "hang");
                check_report(&t, &r);
                const apo_device_report *b = &r.devices[1];
                cr_assert(b->quarantined, "call %d", call);
                cr_assert(strstr(b->quarantine_reason, "missed its deadline of 200.0 ms") != NULL,
                          "%s", b->quarantine_reason);
                if (call == 0) {
                    cr_assert(b->failed && b->deadline_missed);
                    cr_assert_eq(r.deadlines_missed, 1);
                    cr_assert_eq(b->deadline_ms, 200.0);
                    cr_assert_eq(b->elements, 0);
                } else {
                    cr_assert(!b->failed && !b->deadline_missed && b->elements == 0);
                }
                test_job_free(&got);
            }
            t.quarantined++;
            /* b's worker is still blocked in its first task: destroy wakes it. */
            apo_runtime_destroy(rt);
        }
        test_job_free(&ref);
    }
    print_tally("hang", &t);
}

Test(faults, a_device_that_stops_answering_mid_share_or_in_failover, .timeout = 120) {
    static const char *const lists[] = {
        /* b finishes two tasks, then stops answering */
        "sim:a,sim:b:hang_after=3,sim:c",
        /* a fails at once; b finishes its share, then stops answering on a's tiles */
        "sim:a:fail_after=1,sim:b:hang_after=5,sim:c",
        /* b stops answering while flaky a and failing d come and go */
        "sim:a:flaky=0.5:seed=3,sim:b:hang_after=2,sim:c,sim:d:fail_after=3",
    };
    fault_config fc = {.floor_s = 0.2};
    tally t = {0};
    for (size_t k = 0; k < N_CASES; k++) {
        test_job ref;
        reference(&cases[k], &ref);
        for (size_t l = 0; l < 3; l++) {
            apo_report r = run_calls(&t, lists[l], &fc, &cases[k], APO_SPLIT_TIME, &ref, 2);
            cr_assert(r.devices[1].quarantined, "%s: %s", lists[l], r.devices[1].quarantine_reason);
        }
        test_job_free(&ref);
    }
    cr_assert_geq(t.deadlines, N_CASES * 3);
    print_tally("hang-mid", &t);
}

Test(faults, deadlines_on_the_wall_clock, .timeout = 120) {
    /* Sims that wait out their modelled time (about 1 ms a call each), and one that stops
     * answering at its second task. */
    fault_config fc = {.clock = APO_SIM_CLOCK_WALL, .floor_s = 0.2};
    tally t = {0};
    for (size_t k = 0; k < N_CASES; k++) {
        test_job ref;
        reference(&cases[k], &ref);
        for (size_t a = 0; a < 2; a++) {
            apo_report r =
                run_calls(&t, "sim:a:rate=5e7,sim:b:rate=5e7:hang_after=2,sim:c:rate=5e7", &fc,
                          &cases[k], axes[a], &ref, 2);
            cr_assert(r.devices[1].quarantined);
            cr_assert(!r.devices[0].quarantined && !r.devices[2].quarantined);
        }
        test_job_free(&ref);
    }
    cr_assert_eq(t.deadlines, N_CASES * 2);
    print_tally("hang-wall", &t);
}

/* A sim device so slow (1e-20 elements/s) that its modelled time is beyond what time_t can
 * hold: its wait must block until the deadline abandons it (no undefined cast, no spinning),
 * and the others redo its tiles with the reference's bits. */
Test(faults, an_absurdly_slow_sim_waits_for_its_deadline, .timeout = 60) {
    fault_config fc = {.clock = APO_SIM_CLOCK_WALL, .floor_s = 0.2};
    tally t = {0};
    test_job ref;
    reference(&cases[0], &ref);
    apo_report r = run_calls(&t, "sim:a:rate=1e7,sim:slow:rate=1e-20", &fc, &cases[0],
                             APO_SPLIT_TIME, &ref, 1);
    cr_assert(r.devices[1].failed && r.devices[1].quarantined, "the slow sim was not abandoned");
    cr_assert(!r.devices[0].failed);
    cr_assert_eq(t.deadlines, 1);
    test_job_free(&ref);
}

/* The absolute time of a wait is clamped into what time_t holds, whatever the deadline. */
Test(faults, wait_times_are_clamped_before_the_cast_to_time_t) {
    static const double times[] = {1e30, INFINITY, NAN, -5.0, 1e300};
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        struct timespec ts;
        apo__monotonic_timespec(times[i], &ts);
        cr_assert(ts.tv_sec >= 0 && ts.tv_sec <= (time_t)1e12, "t=%g gave %lld s", times[i],
                  (long long)ts.tv_sec);
        cr_assert(ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000L);
    }
    struct timespec ts;
    apo__monotonic_timespec(12.25, &ts);
    cr_assert(ts.tv_sec == 12 && ts.tv_nsec == 250000000L, "%lld.%09ld", (long long)ts.tv_sec,
              ts.tv_nsec);
}

Test(faults, the_deadline_follows_the_model, .timeout = 120) {
    /* Wall clock: the first call teaches the models (each device's 1/2 of 110k elements
     * at 2e7 per second: about 3 ms), so that in the second b's deadline is factor x its
     * predicted time, far above the floor. */
    fault_config fc = {.clock = APO_SIM_CLOCK_WALL, .floor_s = 0.2, .factor = 200};
    apo_runtime *rt = fault_runtime("sim:a:rate=2e7,sim:b:rate=2e7:hang_after=5", &fc);
    test_job ref;
    reference(&cases[0], &ref);
    tally t = {0};

    test_job got;
    case_job(&got, rt, &cases[0], APO_SPLIT_TIME);
    apo_report r = APO_REPORT_INIT;
    cr_assert_eq(test_job_run(&got, rt, &r), APO_OK, "%s", apo_last_error());
    check_report(&t, &r);
    cr_assert_eq(r.deadlines_missed, 0, "no model yet: the floor must cover the first call");
    cr_assert_eq(r.devices[1].deadline_ms, 200.0, "without a model the deadline is the floor");
    test_job_free(&got);

    /* b's model as the runtime knows it now, before the second call. */
    size_t n = 0;
    cr_assert_eq(apo_profile_entry_count(rt, &n), APO_OK);
    cr_assert_eq(n, 1, "%zu entries", n);
    apo_profile_entry e = APO_PROFILE_ENTRY_INIT;
    cr_assert_eq(apo_profile_entry_get(rt, 0, &e), APO_OK, "%s", apo_last_error());
    const apo_device_model *model = NULL;
    for (size_t d = 0; d < e.n_devices; d++)
        if (strcmp(e.devices[d].id, "sim:b") == 0)
            model = &e.devices[d];
    cr_assert(model != NULL && model->valid, "no model for sim:b after a call");

    case_job(&got, rt, &cases[0], APO_SPLIT_TIME);
    r = (apo_report)APO_REPORT_INIT;
    cr_assert_eq(test_job_run(&got, rt, &r), APO_OK, "%s", apo_last_error());
    check_report(&t, &r);
    assert_same_bits(&ref, &got, "deadline from the model");
    const apo_device_report *b = &r.devices[1];
    cr_assert(b->deadline_missed && b->quarantined);
    double predicted_ms =
        model->latency_ms + model->ms_per_melem * (double)b->elements_moved_out / 1e6;
    double expect_ms = 200 * predicted_ms > 200.0 ? 200 * predicted_ms : 200.0;
    cr_assert(expect_ms > 200.0, "the model predicts %g ms: the test needs more work",
              predicted_ms);
    cr_assert(fabs(b->deadline_ms - expect_ms) <= 1e-6 * expect_ms, "deadline %g ms, expected %g",
              b->deadline_ms, expect_ms);
    test_job_free(&got);
    test_job_free(&ref);
    apo_runtime_destroy(rt);
    t.quarantined++;
    print_tally("deadline-model", &t);
}

Test(faults, a_lone_device_that_stops_answering_fails_the_call, .timeout = 60) {
    fault_config fc = {.floor_s = 0.05};
    apo_runtime *rt = fault_runtime("sim:only:hang_after=1", &fc);
    test_job job;
    case_job(&job, rt, &cases[0], APO_SPLIT_TIME);
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_ERR_ALL_DEVICES_FAILED);
    cr_assert(strstr(apo_last_error(), "every device failed") != NULL, "%s", apo_last_error());
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_ERR_ALL_DEVICES_FAILED);
    cr_assert(strstr(apo_last_error(), "quarantined") != NULL, "%s", apo_last_error());
    test_job_free(&job);
    apo_runtime_destroy(rt);
    tally t = {.calls = 2, .calls_failed = 2, .faults = 1, .quarantined = 1, .deadlines = 1};
    print_tally("hang-alone", &t);
}

/* Fills every output with a value no kernel writes. */
static void fill_sentinel(test_job *job) {
    for (size_t i = 0; i < job->w.n_outputs; i++)
        for (size_t j = 0; j < job->output_len[i]; j++)
            job->outputs[i][j] = 4242.4242;
}

static size_t count_not_sentinel(const test_job *job) {
    size_t n = 0;
    for (size_t i = 0; i < job->w.n_outputs; i++)
        for (size_t j = 0; j < job->output_len[i]; j++)
            n += job->outputs[i][j] != 4242.4242;
    return n;
}

Test(faults, a_late_task_never_writes_after_the_call_returned, .timeout = 60) {
    static const struct {
        const char *devices;
        apo_sim_clock clock;
    } runs[] = {
        /* a task blocked before computing, woken by destroy */
        {"sim:a,sim:b:hang_after=1", APO_SIM_CLOCK_VIRTUAL},
        /* a task that computed its tiles and sleeps out a modelled 100 s on the wall clock:
         * abandoned in its sleep, it must return without writing again */
        {"sim:fast:rate=1e10,sim:slow:rate=1e3", APO_SIM_CLOCK_WALL},
    };
    tally t = {0};
    for (size_t i = 0; i < 2; i++) {
        fault_config fc = {.clock = runs[i].clock, .floor_s = 0.2};
        test_job ref;
        reference(&cases[1], &ref);
        apo_runtime *rt = fault_runtime(runs[i].devices, &fc);
        test_job got;
        case_job(&got, rt, &cases[1], APO_SPLIT_TIME);
        apo_report r = APO_REPORT_INIT;
        cr_assert_eq(test_job_run(&got, rt, &r), APO_OK, "%s", apo_last_error());
        check_report(&t, &r);
        assert_same_bits(&ref, &got, runs[i].devices);
        cr_assert_eq(r.deadlines_missed, 1, "%s", runs[i].devices);
        /* The caller owns its arrays again: anything the late task wrote now would show. */
        fill_sentinel(&got);
        struct timespec pause = {0, 100 * 1000 * 1000};
        nanosleep(&pause, NULL);
        apo_runtime_destroy(rt); /* wakes the late task */
        cr_assert_eq(count_not_sentinel(&got), 0, "%s: a late task wrote into the outputs",
                     runs[i].devices);
        test_job_free(&got);
        test_job_free(&ref);
        t.quarantined++;
    }
    print_tally("late-writes", &t);
}

/* A user kernel whose first computation of tile 0 takes `slow_ms` before it writes, and
 * which records whether that write is over: a cpu tile that cannot be interrupted. */
typedef struct slow_tile {
    atomic_int first_done;   /* tile 0 was started once (later runs are fast) */
    atomic_int slow_written; /* the slow run of tile 0 has written its outputs */
    long slow_ms;
} slow_tile;

static apo_status slow_first_tile(const apo_kernel_call *call, void *user) {
    slow_tile *s = user;
    int slow = call->begin == 0 && atomic_exchange(&s->first_done, 1) == 0;
    if (slow) {
        struct timespec ts = {s->slow_ms / 1000, (s->slow_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    const double *x = call->inputs[0] + call->row * call->cols;
    double *y = call->outputs[0] + call->row * call->cols;
    for (size_t i = call->begin; i < call->end; i++)
        y[i] = x[i] * 2.0 + 1.0;
    if (slow)
        atomic_store(&s->slow_written, 1);
    return APO_OK;
}

static void register_slow(apo_runtime *rt, slow_tile *s) {
    apo_kernel_desc d = APO_KERNEL_DESC_INIT;
    d.name = "slow_first";
    d.n_inputs = 1;
    d.n_outputs = 1;
    d.tile = 1024;
    d.cpu = slow_first_tile;
    d.user = s;
    cr_assert_eq(apo_kernel_register(rt, &d), APO_OK, "%s", apo_last_error());
}

static void check_doubled(const test_job *job) {
    for (size_t i = 0; i < job->w.cols; i++)
        cr_assert_eq(job->outputs[0][i], job->input[i] * 2.0 + 1.0, "position %zu", i);
}

Test(faults, a_cpu_tile_already_running_is_waited_for, .timeout = 60) {
    /* The cpu's first tile takes 0.3 s; its deadline is 0.1 s. The call gives up on the cpu
     * but waits for that tile before sim:b redoes the cpu's tiles, and the cpu starts no
     * other tile. */
    slow_tile s = {.slow_ms = 300};
    fault_config fc = {.floor_s = 0.1};
    apo_runtime *rt = fault_runtime("cpu:threads=1,sim:b", &fc);
    register_slow(rt, &s);
    test_job job;
    test_job_init(&job, rt, "slow_first", 1, 8 * 1024, 5);
    double ratios[2] = {1, 1};
    job.w.ratios = ratios;
    job.w.n_ratios = 2;
    job.w.split = APO_SPLIT_TIME;
    apo_report r = APO_REPORT_INIT;
    cr_assert_eq(test_job_run(&job, rt, &r), APO_OK, "%s", apo_last_error());
    cr_assert(atomic_load(&s.slow_written), "the call returned before the running tile ended");
    check_doubled(&job);
    cr_assert(r.devices[0].deadline_missed && r.devices[0].quarantined);
    cr_assert_eq(r.devices[1].elements, 8 * 1024);
    fill_sentinel(&job);
    apo_runtime_destroy(rt);
    cr_assert_eq(count_not_sentinel(&job), 0, "the abandoned cpu wrote after the call");
    test_job_free(&job);
    tally t = {.calls = 1, .faults = 1, .survived = 1, .quarantined = 1, .deadlines = 1};
    print_tally("cpu-tile", &t);
}

Test(faults, a_lone_cpu_keeps_its_deadline_on_the_calling_thread, .timeout = 60) {
    /* Alone, the cpu runs on the caller's thread, where nobody watches it: it must notice
     * its deadline itself, at the next tile. */
    slow_tile s = {.slow_ms = 200};
    fault_config fc = {.floor_s = 0.05};
    apo_runtime *rt = fault_runtime("cpu:threads=1", &fc);
    register_slow(rt, &s);
    test_job job;
    test_job_init(&job, rt, "slow_first", 1, 8 * 1024, 5);
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_ERR_ALL_DEVICES_FAILED);
    cr_assert(atomic_load(&s.slow_written));
    /* Now quarantined, the cpu takes no further call. */
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_ERR_ALL_DEVICES_FAILED);
    cr_assert(strstr(apo_last_error(), "missed its deadline of 50.0 ms") != NULL, "%s",
              apo_last_error());
    test_job_free(&job);
    apo_runtime_destroy(rt);
    tally t = {.calls = 2, .calls_failed = 2, .faults = 1, .quarantined = 1, .deadlines = 1};
    print_tally("cpu-alone", &t);
}

/* A backend that ignores the task guard and blocks until the test releases it: a driver
 * call that never returns, which no sim device can imitate (they all wake when
 * abandoned). */
static atomic_int stuck_release, stuck_entered;

static apo_status stuck_run(apo__device *dev, const apo__call *call, uint64_t first, uint64_t end,
                            uint64_t task_index, apo__task_time *time) {
    (void)dev, (void)call, (void)first, (void)end, (void)task_index, (void)time;
    atomic_store(&stuck_entered, 1);
    while (!atomic_load(&stuck_release)) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return APO_OK;
}

static uint64_t stuck_task_count(const apo__device *dev, uint64_t tiles) {
    (void)dev, (void)tiles;
    return 1;
}

static void stuck_close(apo__device *dev) { (void)dev; }

static const apo__backend_ops stuck_ops = {stuck_run, stuck_task_count, stuck_close};

/* The pool and its device outlive the test's body, as a detached worker needs them to. */
static apo__pool stuck_pool;
static apo__device stuck_device;

Test(faults, a_worker_stuck_in_its_backend_is_abandoned_then_detached_at_stop, .timeout = 30) {
    stuck_device.ops = &stuck_ops;
    snprintf(stuck_device.info.id, sizeof stuck_device.info.id, "stuck");
    cr_assert_eq(apo__pool_start(&stuck_pool, &stuck_device, 1), APO_OK);

    /* The caller gives up at the deadline even though the backend never looks at the
     * guard, and gets the job back as lost and late. */
    apo__device_job job = {.first = 0, .end = 1};
    apo__device_job *jobs[1] = {&job};
    double deadlines[1] = {apo__now() + 0.05};
    apo__pool_run(&stuck_pool, jobs, deadlines);
    cr_assert(atomic_load(&stuck_entered));
    cr_assert_eq(job.status, APO_ERR_DEVICE_LOST);
    cr_assert(job.timed_out);
    cr_assert_eq(job.done_end, job.first, "an abandoned job keeps none of its tiles");

    /* Stopping waits its grace, then detaches the worker instead of hanging. */
    double t0 = apo__now();
    cr_assert_eq(apo__pool_stop(&stuck_pool), 1);
    cr_assert(stuck_pool.workers[0].stuck);
    cr_assert_geq(apo__now() - t0, APO_POOL_STOP_GRACE_S * 0.9);

    /* Released, the detached worker finishes on the memory that was kept for it. */
    atomic_store(&stuck_release, 1);
    pthread_mutex_lock(&stuck_pool.mutex);
    while (!stuck_pool.workers[0].exited)
        pthread_cond_wait(&stuck_pool.done, &stuck_pool.mutex);
    pthread_mutex_unlock(&stuck_pool.mutex);
    tally t = {.faults = 1, .deadlines = 1};
    print_tally("stuck-worker", &t);
}

/* ---- settings ---------------------------------------------------------------------------- */

Test(faults, settings_are_checked_and_read_from_the_environment, .timeout = 60) {
    apo_config config = APO_CONFIG_INIT;
    config.devices = "cpu";
    config.profiles = APO_SWITCH_OFF;
    apo_runtime *rt = NULL;
    config.deadline_factor = 0.5;
    cr_assert_eq(apo_runtime_create(&config, &rt), APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(apo_last_error(), "deadline_factor") != NULL, "%s", apo_last_error());
    config.deadline_factor = 0;
    config.deadline_floor_s = 0.0001;
    cr_assert_eq(apo_runtime_create(&config, &rt), APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(apo_last_error(), "deadline_floor_s") != NULL, "%s", apo_last_error());
    config.deadline_floor_s = 0;
    config.quarantine_after = 1000001;
    cr_assert_eq(apo_runtime_create(&config, &rt), APO_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(apo_last_error(), "quarantine_after") != NULL, "%s", apo_last_error());

    /* Bad values are warned about and ignored. */
    setenv("APPORTION_DEADLINE_FACTOR", "fast", 1);
    setenv("APPORTION_DEADLINE_FLOOR", "0", 1);
    setenv("APPORTION_QUARANTINE_AFTER", "0", 1);
    config.quarantine_after = 0;
    cr_assert_eq(apo_runtime_create(&config, &rt), APO_OK, "%s", apo_last_error());
    size_t n = 0;
    cr_assert_eq(apo_runtime_warning_count(rt, &n), APO_OK);
    cr_assert_eq(n, 3);
    const char *expect[] = {"APPORTION_DEADLINE_FACTOR=\"fast\" ignored",
                            "APPORTION_DEADLINE_FLOOR=\"0\" ignored",
                            "APPORTION_QUARANTINE_AFTER=\"0\" ignored"};
    for (size_t i = 0; i < 3; i++) {
        const char *w;
        cr_assert_eq(apo_runtime_warning(rt, i, &w), APO_OK);
        cr_assert(strstr(w, expect[i]) != NULL, "warning %zu: %s", i, w);
    }
    apo_runtime_destroy(rt);

    /* Good values apply: the floor is the deadline of a virtual-clock sim, and one failed
     * call quarantines. The config beats the environment. */
    setenv("APPORTION_DEADLINE_FACTOR", "20", 1);
    setenv("APPORTION_DEADLINE_FLOOR", "0.25", 1);
    setenv("APPORTION_QUARANTINE_AFTER", "1", 1);
    for (int use_config = 0; use_config <= 1; use_config++) {
        apo_config c2 = APO_CONFIG_INIT;
        c2.devices = "sim:a:fail_after=1,sim:b";
        c2.sim_clock = APO_SIM_CLOCK_VIRTUAL;
        c2.profiles = APO_SWITCH_OFF;
        if (use_config) {
            c2.deadline_floor_s = 0.125;
            c2.quarantine_after = 2;
        }
        cr_assert_eq(apo_runtime_create(&c2, &rt), APO_OK, "%s", apo_last_error());
        test_job job;
        case_job(&job, rt, &cases[0], APO_SPLIT_TIME);
        apo_report r = APO_REPORT_INIT;
        cr_assert_eq(test_job_run(&job, rt, &r), APO_OK, "%s", apo_last_error());
        cr_assert_eq(r.devices[1].deadline_ms, use_config ? 125.0 : 250.0);
        cr_assert_eq(r.devices[0].quarantined, !use_config);
        test_job_free(&job);
        apo_runtime_destroy(rt);
    }
}
