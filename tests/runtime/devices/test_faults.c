/*
 * Faults: sim devices that fail at random points (flaky=P), several at once, all but one,
 * devices that stop answering (hang_after=N) and are abandoned at their deadline, and the
 * quarantine of devices that keep failing. Every call that succeeds must give outputs
 * bitwise identical to a single-device cpu run, for every built-in kernel and both split
 * axes; a late task must never write after the call has returned.
 *
 * Each test prints one "fault-tally" line (calls, faults injected and survived, devices
 * quarantined, deadlines missed) that docs/robustness.md sums over the suite.
 *
 * The deadlines are in test_faults_deadlines.c; what both files share is in
 * faults_fixtures.c.
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

#include "faults_fixtures.h"
#include "test_tmpdir.h"

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

/* a, b and d failed over to c and e, which never failed. */
static void c_and_e_carried_the_call(const apo_report *r, const kernel_case *c, const char *devices,
                                     apo_split split) {
    (void)devices;
    cr_assert_eq(r->failovers, 3, "%s, %s", c->kernel, apo_split_name(split));
    cr_assert(r->devices[0].failed && r->devices[1].failed && r->devices[3].failed, "%s, %s",
              c->kernel, apo_split_name(split));
    cr_assert(!r->devices[2].failed && !r->devices[4].failed, "%s, %s", c->kernel,
              apo_split_name(split));
    cr_assert_gt(r->devices[2].elements_moved_in + r->devices[4].elements_moved_in, 0, "%s, %s",
                 c->kernel, apo_split_name(split));
}

Test(faults, several_devices_fail_in_one_call, .timeout = 120) {
    /* a fails at its first task (after a drawn number of tiles), b at its second, d at its
     * third; c and e carry the call. */
    const char *const devices =
        "sim:a:flaky=1:seed=5,sim:b:fail_after=2,sim:c,sim:d:fail_after=3,sim:e";
    fault_config fc = {0};
    tally t = {0};
    run_every_case(&t, &devices, 1, axes, 2, &fc, 1, c_and_e_carried_the_call);
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
    snprintf(path, sizeof path, "%s/apo-faults-log-XXXXXX", test_tmpdir());
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
    test_job job;
    apo_runtime *rt = first_case_on("sim:a,sim:b:fail_after=1", &fc, &job);
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
     * call quarantines. The config beats the environment. The floors (2.5 s and 1.25 s) are
     * the healthy b's deadline too: far above its work, so that a busy machine cannot make
     * it miss them and fail the call. */
    setenv("APPORTION_DEADLINE_FACTOR", "20", 1);
    setenv("APPORTION_DEADLINE_FLOOR", "2.5", 1);
    setenv("APPORTION_QUARANTINE_AFTER", "1", 1);
    for (int use_config = 0; use_config <= 1; use_config++) {
        apo_config c2 = test_config("sim:a:fail_after=1,sim:b");
        if (use_config) {
            c2.deadline_floor_s = 1.25;
            c2.quarantine_after = 2;
        }
        cr_assert_eq(apo_runtime_create(&c2, &rt), APO_OK, "%s", apo_last_error());
        test_job job;
        case_job(&job, rt, &cases[0], APO_SPLIT_TIME);
        apo_report r = APO_REPORT_INIT;
        cr_assert_eq(test_job_run(&job, rt, &r), APO_OK, "%s", apo_last_error());
        cr_assert_eq(r.devices[1].deadline_ms, use_config ? 1250.0 : 2500.0);
        cr_assert_eq(r.devices[0].quarantined, !use_config);
        test_job_close(&job, rt);
    }
}
