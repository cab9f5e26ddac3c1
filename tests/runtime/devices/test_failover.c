/*
 * A device lost mid-run: its unfinished tiles go to the surviving devices, the result is
 * complete and bitwise identical to a run without failure, and the report says which
 * device failed and what moved. Sim devices cut their share into up to 4 tasks, and
 * fail_after=N fails every task from the Nth on, so N = 1..5 loses the device at each
 * point of its share (and, with 5, in the failover phase of the call).
 *
 * Each test prints a "fault-tally" line, as test_faults.c beside it does, so that the faults
 * injected and survived can be summed over the suite.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"

/* Calls run, faults injected (devices reported failed) and survived (in calls that
 * succeeded), devices quarantined (the most one runtime had): one process per test, so
 * one tally each. */
static unsigned long long calls_run, calls_failed, faults_injected, faults_survived, quarantined;

static void count_call(const apo_report *r, apo_status st, size_t faults) {
    calls_run++;
    calls_failed += st != APO_OK;
    faults_injected += faults;
    if (st == APO_OK) {
        faults_survived += r->failovers;
        if (r->quarantined > quarantined)
            quarantined = r->quarantined;
    }
}

static void print_tally(const char *test) {
    fprintf(stderr,
            "fault-tally %s: calls %llu (failing as expected %llu), faults injected %llu, "
            "survived %llu, devices quarantined %llu, deadlines missed 0\n",
            test, calls_run, calls_failed, faults_injected, faults_survived, quarantined);
}

static void reference(const char *kernel, size_t rows, size_t cols, test_job *ref) {
    apo_runtime *cpu = test_runtime("cpu");
    test_job_init(ref, cpu, kernel, rows, cols, 3);
    cr_assert_eq(test_job_run(ref, cpu, NULL), APO_OK, "%s", apo_last_error());
    apo_runtime_destroy(cpu);
}

static void check_failover(const char *devices, const char *kernel, size_t rows, size_t cols,
                           size_t expect_failed) {
    test_job ref;
    reference(kernel, rows, cols, &ref);

    apo_runtime *rt = test_runtime(devices);
    test_job got;
    test_job_init(&got, rt, kernel, rows, cols, 3);
    got.w.split = APO_SPLIT_TIME;
    apo_report report = APO_REPORT_INIT;
    apo_status st = test_job_run(&got, rt, &report);
    cr_assert_eq(st, APO_OK, "%s on %s: %s", kernel, devices, apo_last_error());

    for (size_t i = 0; i < ref.w.n_outputs; i++)
        cr_assert_eq(test_bitwise_diff(&ref, &got, i), 0, "%s on %s: output %zu differs", kernel,
                     devices, i);

    size_t failed = 0;
    uint64_t moved_out = 0, moved_in = 0, computed = 0;
    for (size_t d = 0; d < report.n_devices; d++) {
        const apo_device_report *dr = &report.devices[d];
        failed += (size_t)dr->failed;
        moved_out += dr->elements_moved_out;
        moved_in += dr->elements_moved_in;
        computed += dr->elements;
        if (dr->failed) {
            cr_assert_gt(dr->elements_moved_out, 0, "%s failed but moved nothing", dr->id);
            cr_assert(strstr(dr->failure, "lost") != NULL, "failure text: %s", dr->failure);
        } else {
            cr_assert_eq(dr->elements_moved_out, 0);
        }
    }
    cr_assert_eq(failed, expect_failed, "%s: %zu devices reported failed", devices, failed);
    cr_assert_eq(report.failovers, expect_failed);
    /* Work dropped twice (a device failing on work it took over) is counted out twice but
     * in once, by the device that finally computed it. */
    cr_assert_leq(moved_in, moved_out, "moved in %llu > moved out %llu",
                  (unsigned long long)moved_in, (unsigned long long)moved_out);
    cr_assert_eq(moved_in > 0, expect_failed > 0);
    cr_assert_eq(computed, report.elements, "every element computed exactly once");
    count_call(&report, st, failed);

    test_job_free(&got);
    test_job_free(&ref);
    apo_runtime_destroy(rt);
}

Test(failover, device_lost_at_every_point_of_its_share, .timeout = 120) {
    char devices[128];
    for (int n = 1; n <= 5; n++) {
        snprintf(devices, sizeof devices, "sim:a,sim:b:fail_after=%d,sim:c", n);
        /* With 5, b finishes its 4 tasks and fails only if it is given failover work. */
        check_failover(devices, "bollinger", 2, 6 * 4096 + 11, n <= 4 ? 1 : 0);
        check_failover(devices, "returns_stats", 3, 4 * 8192 + 1, n <= 4 ? 1 : 0);
    }
    print_tally("failover-every-point");
}

Test(failover, device_lost_during_failover, .timeout = 60) {
    /* a fails at once; b finishes its own 4 tasks and fails on the work it takes over. */
    check_failover("sim:a:fail_after=1,sim:b:fail_after=5,sim:c", "macd", 1, 20 * 16384, 2);
    print_tally("failover-during-failover");
}

Test(failover, several_devices_lost_in_one_call, .timeout = 60) {
    check_failover("sim:a:fail_after=2,sim:b:fail_after=3,sim:c,sim:d:fail_after=1", "bollinger", 4,
                   20000, 3);
    check_failover("sim:a:fail_after=1,sim:b:fail_after=1,sim:c:fail_after=1,sim:d", "bootstrap", 1,
                   2000, 3);
    print_tally("failover-several");
}

Test(failover, every_device_lost_is_an_error, .timeout = 60) {
    test_job job;
    apo_runtime *rt = test_job_on(&job, test_runtime("sim:a:fail_after=2,sim:b:fail_after=1"),
                                  "bollinger", 1, 50000, 3);
    apo_status st = test_job_run(&job, rt, NULL);
    cr_assert_eq(st, APO_ERR_ALL_DEVICES_FAILED);
    cr_assert(strstr(apo_last_error(), "every device failed") != NULL, "%s", apo_last_error());
    count_call(NULL, st, 2);
    test_job_close(&job, rt);
    print_tally("failover-all-lost");
}

Test(failover, a_lost_device_stays_lost_in_later_calls, .timeout = 60) {
    test_job ref;
    reference("bollinger", 1, 40000, &ref);
    apo_runtime *rt = test_runtime("sim:a:fail_after=3,sim:b");
    for (int call = 0; call < 3; call++) {
        test_job got;
        test_job_init(&got, rt, "bollinger", 1, 40000, 3);
        got.w.split = APO_SPLIT_TIME;
        apo_report report = APO_REPORT_INIT;
        cr_assert_eq(test_job_run(&got, rt, &report), APO_OK, "%s", apo_last_error());
        cr_assert_eq(test_bitwise_diff(&ref, &got, 1), 0, "call %d", call);
        /* Its tasks count over the runtime's life: from the third on, every one fails. */
        cr_assert_eq(report.devices[0].failed, 1, "call %d", call);
        count_call(&report, APO_OK, 1);
        test_job_free(&got);
    }
    test_job_free(&ref);
    apo_runtime_destroy(rt);
    print_tally("failover-stays-lost");
}
