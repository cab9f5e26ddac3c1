/*
 * Faults, deadlines (docs/robustness.md, "Device faults"): a device that stops answering is
 * abandoned at its deadline and its tiles redone, mid-share or in failover, on the wall clock; an
 * absurdly slow sim waits for its deadline; wait times clamped before the cast to time_t; the
 * deadline follows the model; a lone device that stops answering fails the call; a late task never
 * writes after the call returned; a running cpu tile is waited for; a lone cpu keeps its deadline;
 * a worker stuck in its backend is abandoned, then detached at stop. Each case prints its
 * fault-tally line. test_faults.c has random failures and quarantine; faults_fixtures.c what both
 * share.
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
#include "test_user_kernel.h"

/* ---- deadlines -------------------------------------------------------------------------- */

Test(faults, a_device_that_stops_answering_is_abandoned_and_its_tiles_redone, .timeout = 120) {
    /* b answers nothing from its first task; a and c redo its share once its deadline (the
     * 1 s floor: on the virtual clock the model says nothing about real time) passes.
     * The floor gives a and c, which compute for about a millisecond, a thousand times their
     * work, so that a busy machine cannot make them miss it too (docs/robustness.md, "A busy
     * machine"); b costs 1 s of waiting per runtime, 8 s in all. */
    fault_config fc = {.floor_s = 1.0};
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
                cr_assert(strstr(b->quarantine_reason, "missed its deadline of 1000.0 ms") != NULL,
                          "%s", b->quarantine_reason);
                if (call == 0) {
                    cr_assert(b->failed && b->deadline_missed);
                    cr_assert_eq(r.deadlines_missed, 1);
                    cr_assert_eq(b->deadline_ms, 1000.0);
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

/* b, the device that stopped answering, is quarantined. */
static void b_quarantined(const apo_report *r, const kernel_case *c, const char *devices,
                          apo_split split) {
    cr_assert(r->devices[1].quarantined, "%s, %s on %s: %s", c->kernel, apo_split_name(split),
              devices, r->devices[1].quarantine_reason);
}

/* b alone, the device that stopped answering, is quarantined. */
static void b_alone_quarantined(const apo_report *r, const kernel_case *c, const char *devices,
                                apo_split split) {
    b_quarantined(r, c, devices, split);
    cr_assert(!r->devices[0].quarantined && !r->devices[2].quarantined, "%s, %s on %s", c->kernel,
              apo_split_name(split), devices);
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
    /* The healthy devices' deadline is 1 s, a thousand times their work: on a busy machine a
     * 0.2 s floor could abandon them too and fail the call. */
    fault_config fc = {.floor_s = 1.0};
    tally t = {0};
    const apo_split time_axis = APO_SPLIT_TIME;
    run_every_case(&t, lists, 3, &time_axis, 1, &fc, 2, b_quarantined);
    cr_assert_geq(t.deadlines, N_CASES * 3);
    print_tally("hang-mid", &t);
}

Test(faults, deadlines_on_the_wall_clock, .timeout = 120) {
    /* Sims that wait out their modelled time (about 1 ms a call each), and one that stops
     * answering at its second task. The healthy sims sleep on the wall clock, so on a busy
     * machine their wake-up can come late: with a 0.2 s floor one of them once missed its
     * deadline and was quarantined (load average above 30 on 2 cores). The 1 s floor gives
     * them a thousand times their work; the hung sim costs 1 s per call, 8 s in all, of
     * waiting, not of CPU (docs/robustness.md, "A busy machine"). */
    fault_config fc = {.clock = APO_SIM_CLOCK_WALL, .floor_s = 1.0};
    tally t = {0};
    const char *const list = "sim:a:rate=5e7,sim:b:rate=5e7:hang_after=2,sim:c:rate=5e7";
    run_every_case(&t, &list, 1, axes, 2, &fc, 2, b_alone_quarantined);
    cr_assert_eq(t.deadlines, N_CASES * 2);
    print_tally("hang-wall", &t);
}

/* A sim device so slow (1e-20 elements/s) that its modelled time is beyond what time_t can
 * hold: its wait must block until the deadline abandons it (no undefined cast, no spinning),
 * and the others redo its tiles with the reference's bits. */
Test(faults, an_absurdly_slow_sim_waits_for_its_deadline, .timeout = 60) {
    /* The 1 s floor is a's deadline too: a hundred times its 10 ms of work. */
    fault_config fc = {.clock = APO_SIM_CLOCK_WALL, .floor_s = 1.0};
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
     * predicted time, far above the floor. The floor (the first call's deadline) is 1 s and
     * the factor 1000, so that the healthy a meets both with a wide margin on a busy machine;
     * b's hang then costs about 3 s of waiting. */
    fault_config fc = {.clock = APO_SIM_CLOCK_WALL, .floor_s = 1.0, .factor = 1000};
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
    cr_assert_eq(r.devices[1].deadline_ms, 1000.0, "without a model the deadline is the floor");
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
    double expect_ms = 1000 * predicted_ms > 1000.0 ? 1000 * predicted_ms : 1000.0;
    cr_assert(expect_ms > 1000.0, "the model predicts %g ms: the test needs more work",
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
    test_job job;
    apo_runtime *rt = first_case_on("sim:only:hang_after=1", &fc, &job);
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_ERR_ALL_DEVICES_FAILED);
    cr_assert(strstr(apo_last_error(), "every device failed") != NULL, "%s", apo_last_error());
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_ERR_ALL_DEVICES_FAILED);
    cr_assert(strstr(apo_last_error(), "quarantined") != NULL, "%s", apo_last_error());
    test_job_close(&job, rt);
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
        /* 1 s: the healthy device's deadline too, far above its work on a busy machine. */
        fault_config fc = {.clock = runs[i].clock, .floor_s = 1.0};
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

/* A fault runtime of `devices` with deadlines of floor_s at least, slow_first registered on it
 * (its first tile as slow as s says), and in *job a call of it on one row of 8 tiles. */
static apo_runtime *slow_first_call(const char *devices, double floor_s, slow_tile *s,
                                    test_job *job) {
    fault_config fc = {.floor_s = floor_s};
    apo_runtime *rt = fault_runtime(devices, &fc);
    apo_kernel_desc d = test_user_kernel("slow_first", slow_first_tile, s, 1024);
    test_user_kernel_register(rt, &d);
    test_job_init(job, rt, "slow_first", 1, 8 * 1024, 5);
    return rt;
}

static void check_doubled(const test_job *job) {
    for (size_t i = 0; i < job->w.cols; i++)
        cr_assert_eq(job->outputs[0][i], job->input[i] * 2.0 + 1.0, "position %zu", i);
}

Test(faults, a_cpu_tile_already_running_is_waited_for, .timeout = 60) {
    /* The cpu's first tile takes 5 s; its deadline is 1 s. The call gives up on the cpu
     * but waits for that tile before sim:b redoes the cpu's tiles, and the cpu starts no
     * other tile. The deadline is sim:b's too: 1 s, not 0.1 s, so that a busy machine cannot
     * make the healthy b miss it; and the tile outlasts it by 4 s, so that a late wake-up
     * cannot let the cpu finish in time. */
    slow_tile s = {.slow_ms = 5000};
    test_job job;
    apo_runtime *rt = slow_first_call("cpu:threads=1,sim:b", 1.0, &s, &job);
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
    test_job job;
    apo_runtime *rt = slow_first_call("cpu:threads=1", 0.05, &s, &job);
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_ERR_ALL_DEVICES_FAILED);
    cr_assert(atomic_load(&s.slow_written));
    /* Now quarantined, the cpu takes no further call. */
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_ERR_ALL_DEVICES_FAILED);
    cr_assert(strstr(apo_last_error(), "missed its deadline of 50.0 ms") != NULL, "%s",
              apo_last_error());
    test_job_close(&job, rt);
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

static const apo__backend_ops stuck_ops = {stuck_run, stuck_task_count, stuck_close, 0};

/* The pool and its device outlive the test's body, as a detached worker needs them to. */
static apo__pool stuck_pool;

static apo__device stuck_device;

Test(faults, a_worker_stuck_in_its_backend_is_abandoned_then_detached_at_stop, .timeout = 60) {
    stuck_device.ops = &stuck_ops;
    snprintf(stuck_device.info.id, sizeof stuck_device.info.id, "stuck");
    cr_assert_eq(apo__pool_start(&stuck_pool, &stuck_device, 1), APO_OK);

    /* The caller gives up at the deadline even though the backend never looks at the
     * guard, and gets the job back as lost and late. The deadline leaves the worker a second
     * to take the job and enter the backend: at 50 ms a loaded machine (a clean clone's ASan
     * stage beside two builds, 2026-12-02) had not yet run the worker, and the test failed. */
    apo__device_job job = {.first = 0, .end = 1};
    apo__device_job *jobs[1] = {&job};
    double deadlines[1] = {apo__now() + 1.0};
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
