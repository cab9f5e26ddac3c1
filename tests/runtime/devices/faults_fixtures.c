/*
 * What the files of test_faults*.c share; see faults_fixtures.h.
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

/* Every built-in kernel with several tiles per row, a ragged last tile and 6 rows, so that
 * both axes give each of up to 6 devices several tasks. */
const kernel_case cases[N_CASES] = {
    {"bollinger", 6, 3 * 4096 + 7, NULL, 0},
    {"macd", 6, 2 * 16384 + 100, NULL, 0},
    {"returns_stats", 6, 3 * 8192 + 5, NULL, 0},
    {"bootstrap", 6, 500, "replicates", 40},
};

const apo_split axes[2] = {APO_SPLIT_ROWS, APO_SPLIT_TIME};

void case_job(test_job *job, apo_runtime *rt, const kernel_case *c, apo_split split) {
    test_job_of_case(job, rt, c, 11);
    job->w.split = split;
}

void assert_same_bits(const test_job *ref, const test_job *got, const char *what) {
    for (size_t i = 0; i < ref->w.n_outputs; i++) {
        size_t diff = test_bitwise_diff(ref, got, i);
        cr_assert_eq(diff, 0, "%s, %s: output %zu has %zu elements that differ bitwise",
                     ref->w.kernel, what, i, diff);
    }
}

apo_runtime *fault_runtime(const char *devices, const fault_config *fc) {
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
void reference(const kernel_case *c, test_job *ref) {
    fault_config defaults = {0};
    apo_runtime *cpu = fault_runtime("cpu", &defaults);
    case_job(ref, cpu, c, APO_SPLIT_AUTO);
    cr_assert_eq(test_job_run(ref, cpu, NULL), APO_OK, "%s", apo_last_error());
    apo_runtime_destroy(cpu);
}

/* Checks what every successful report must say, and counts its faults. */
void check_report(tally *t, const apo_report *r) {
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

void print_tally(const char *test, const tally *t) {
    fprintf(stderr,
            "fault-tally %s: calls %llu (failing as expected %llu), faults injected %llu, "
            "survived %llu, devices quarantined %llu, deadlines missed %llu\n",
            test, t->calls, t->calls_failed, t->faults, t->survived, t->quarantined, t->deadlines);
}

/* Runs `calls` calls of case c on `devices` along `split`, checks each against the
 * reference, and returns the last report. */
apo_report run_calls(tally *t, const char *devices, const fault_config *fc, const kernel_case *c,
                     apo_split split, const test_job *ref, int calls) {
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

void run_every_case(tally *t, const char *const *lists, size_t n_lists, const apo_split *splits,
                    size_t n_splits, const fault_config *fc, int calls,
                    void (*check)(const apo_report *r, const kernel_case *c, const char *devices,
                                  apo_split split)) {
    for (size_t k = 0; k < N_CASES; k++) {
        test_job ref;
        reference(&cases[k], &ref);
        for (size_t l = 0; l < n_lists; l++)
            for (size_t a = 0; a < n_splits; a++) {
                const apo_report r = run_calls(t, lists[l], fc, &cases[k], splits[a], &ref, calls);
                check(&r, &cases[k], lists[l], splits[a]);
            }
        test_job_free(&ref);
    }
}

apo_runtime *first_case_on(const char *devices, const fault_config *fc, test_job *job) {
    apo_runtime *rt = fault_runtime(devices, fc);
    case_job(job, rt, &cases[0], APO_SPLIT_TIME);
    return rt;
}
