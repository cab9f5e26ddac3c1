/*
 * The cpu device's threads (runtime/devices/host_tiles.c on runtime/base/host_team.c;
 * docs/scheduling.md, "The cpu device's threads"): tiles are handed out one piece at a time,
 * the calling thread computes too, and a call ends when its tiles are done.
 *
 * - Every built-in kernel, on every vector path this machine has, computes the same bits with
 *   four threads as with one, and four-thread bollinger matches the long-double reference.
 * - A call completes, with exact outputs, while every helper thread is held before it looks
 *   for work (a thread the scheduler has not run yet); released after the call returned and
 *   its arrays were freed, the helpers find no work and touch none of it.
 * - A helper stalled inside a tile does not hold the other tiles: the calling thread takes
 *   them, and the stalled tile is released only once all the others are done. With a static
 *   schedule the stalled thread's share would never be computed and the case would time out.
 * - A call that waited for a helper held inside a tile (as the scheduler holds a preempted
 *   one) completes once the tile is released; the next APO_TEAM_ALONE_FIRST calls run
 *   on the calling thread alone (the report's threads_offered is 1, and no other thread
 *   computes a tile); the call after them offers the helper tiles again, and when that probe
 *   is held too, twice as many calls run alone before the next.
 * - On a machine under processor pressure when the helpers start (a pressure file of 80%),
 *   the first APO_TEAM_ALONE_FIRST calls run alone and the next probes the helpers; under
 *   none (0%), the first call is offered to them.
 *
 * Threads never call cr_assert: they record what they saw, and the test thread checks it.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/host_team.h"
#include "base/team_rule.h"
#include "cpu_isa.h"
#include "helpers.h"
#include "reference.h"
#include "team_hold.h"
#include "test_tmpdir.h"
#include "test_user_kernel.h"

/* A runtime on `devices` with the vector path `isa` (NULL: the best). The machine's own
 * processor pressure is not read (a busy test machine would start the rule with the helpers
 * out); the test of that start names its own pressure file. */
static apo_runtime *runtime_on(const char *devices, const char *isa) {
    if (getenv("APPORTION_CPU_PRESSURE_FILE") == NULL)
        cr_assert_eq(setenv("APPORTION_CPU_PRESSURE_FILE", "off", 1), 0);
    if (isa != NULL)
        cr_assert_eq(setenv("APPORTION_CPU_ISA", isa, 1), 0);
    apo_runtime *rt = test_runtime(devices);
    cr_assert_eq(unsetenv("APPORTION_CPU_ISA"), 0);
    return rt;
}

/* ---- the same bits with four threads as with one ------------------------------------------ */

static const char *const kernels_[] = {"bollinger", "macd", "returns_stats", "bootstrap"};
static const char *const isas[] = {"sse2", "avx2", "avx512"};

Test(host_team, four_threads_give_the_bits_of_one_on_every_kernel_and_path, .timeout = 600) {
    for (size_t i = 0; i < sizeof isas / sizeof *isas; i++) {
        apo__cpu_isa isa = (apo__cpu_isa)(i == 0   ? APO_CPU_ISA_SSE2
                                          : i == 1 ? APO_CPU_ISA_AVX2
                                                   : APO_CPU_ISA_AVX512);
        if (!apo__cpu_isa_supported(isa))
            continue;
        apo_runtime *one = runtime_on("cpu:threads=1", isas[i]);
        apo_runtime *four = runtime_on("cpu:threads=4", isas[i]);
        for (size_t k = 0; k < sizeof kernels_ / sizeof *kernels_; k++) {
            /* One long row and several rows: both tile grids; large enough to be shared.
             * bootstrap costs a thousand times more per element: one small shape, just
             * above the size that is shared, so that it stays within the deadline's 60 s
             * floor under ThreadSanitizer too. */
            int heavy = strcmp(kernels_[k], "bootstrap") == 0;
            const size_t shapes[2][2] = {{1, 100003}, {5, 20011}};
            for (size_t s = heavy ? 1 : 0; s < 2; s++) {
                size_t rows = heavy ? 2 : shapes[s][0], cols = heavy ? 17011 : shapes[s][1];
                test_job a, b;
                test_job_init(&a, one, kernels_[k], rows, cols, 31 + s);
                test_job_init(&b, four, kernels_[k], rows, cols, 31 + s);
                apo_report ra = APO_REPORT_INIT, rb = APO_REPORT_INIT;
                cr_assert_eq(test_job_run(&a, one, &ra), APO_OK, "%s", apo_last_error());
                /* Calls in a row: helpers still settling from one call meet the next. */
                for (int rep = 0; rep < (heavy ? 1 : 2); rep++) {
                    cr_assert_eq(test_job_run(&b, four, &rb), APO_OK, "%s", apo_last_error());
                    for (size_t o = 0; o < APO_MAX_IO && a.outputs[o] != NULL; o++)
                        cr_assert_eq(test_bitwise_diff(&a, &b, o), 0,
                                     "%s on %s, shape %zu, output %zu, call %d: elements differ",
                                     kernels_[k], isas[i], s, o, rep);
                }
                test_job_free(&a);
                test_job_free(&b);
            }
        }
        apo_runtime_destroy(one);
        apo_runtime_destroy(four);
    }
}

Test(host_team, four_thread_bollinger_matches_the_long_double_reference, .timeout = 120) {
    const size_t n = 200003, period = 20;
    test_job job;
    apo_runtime *rt = test_job_on(&job, runtime_on("cpu:threads=4", NULL), "bollinger", 1, n, 5);
    test_job_param(&job, "period", (double)period);
    apo_report report = APO_REPORT_INIT;
    cr_assert_eq(test_job_run(&job, rt, &report), APO_OK, "%s", apo_last_error());
    double *up = malloc(n * sizeof *up), *mid = malloc(n * sizeof *mid),
           *lo = malloc(n * sizeof *lo);
    cr_assert(up != NULL && mid != NULL && lo != NULL);
    apo__ref_bollinger(job.input, n, period, 2.0, 2.0, up, mid, lo);
    const double *ref[3] = {up, mid, lo};
    for (size_t o = 0; o < 3; o++)
        for (size_t t = period - 1; t < n; t++) {
            /* The bands' error scales with the price level (the middle), not with the band,
             * which can be near zero. */
            double got = job.outputs[o][t], want = ref[o][t];
            cr_assert(fabs(got - want) <= 1e-13 * fmax(fabs(want), fabs(mid[t])),
                      "output %zu at %zu: %.17g, reference %.17g", o, t, got, want);
        }
    free(up);
    free(mid);
    free(lo);
    test_job_close(&job, rt);
}

/* ---- helpers held before they look for work (team_hold.h) --------------------------------- */

/* A user kernel y[t] = 2 x[t] + 1 that counts the tiles each kind of thread computed. */
static pthread_t test_thread;
static atomic_ulong tiles_by_caller, tiles_by_others;

static apo_status twice_plus_one(const apo_kernel_call *call, void *user) {
    (void)user;
    const double *x = call->inputs[0] + call->row * call->cols;
    double *y = call->outputs[0] + call->row * call->cols;
    for (size_t t = call->begin; t < call->end; t++)
        y[t] = 2.0 * x[t] + 1.0;
    if (pthread_equal(pthread_self(), test_thread))
        atomic_fetch_add(&tiles_by_caller, 1);
    else
        atomic_fetch_add(&tiles_by_others, 1);
    return APO_OK;
}

static void register_user(apo_runtime *rt, const char *name, apo_cpu_kernel_fn fn, size_t tile) {
    apo_kernel_desc d = test_user_kernel(name, fn, NULL, tile);
    test_user_kernel_register(rt, &d);
}

/* Runs `name` over n fresh elements x[t] = t and checks y[t] = 2t + 1 exactly; fills
 * *report. */
static void run_and_report(apo_runtime *rt, const char *name, size_t n, apo_report *report) {
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    cr_assert(x != NULL && y != NULL);
    for (size_t t = 0; t < n; t++) {
        x[t] = (double)t;
        y[t] = NAN;
    }
    const double *in[1] = {x};
    double *out[1] = {y};
    apo_workload w = test_workload(name, 1, n, in, 1, out, 1);
    *report = (apo_report)APO_REPORT_INIT;
    cr_assert_eq(apo_distribute_workload(rt, &w, report), APO_OK, "%s", apo_last_error());
    for (size_t t = 0; t < n; t++)
        cr_assert_eq(y[t], 2.0 * (double)t + 1.0, "y[%zu] = %g", t, y[t]);
    /* Freed at once: a helper that read or wrote them after the call returned is a
     * use-after-free for the sanitizer builds. */
    free(x);
    free(y);
}

static void run_and_check(apo_runtime *rt, const char *name, size_t n) {
    apo_report report;
    run_and_report(rt, name, n, &report);
}

Test(host_team, a_call_completes_while_every_helper_is_held_before_it_looks_for_work,
     .timeout = 120) {
    test_thread = pthread_self();
    team_hold_start();
    apo_runtime *rt = runtime_on("cpu:threads=4", NULL);
    register_user(rt, "twice", twice_plus_one, 1000);

    /* The team starts with the first shared call; all three helpers get stuck in the hook,
     * so the calling thread computes every tile, and the call returns. */
    run_and_check(rt, "twice", 400000);
    cr_assert_eq(atomic_load(&tiles_by_others), 0);
    cr_assert_eq(atomic_load(&tiles_by_caller), 400);

    /* The helpers may not have been run by the scheduler yet: wait until all three are held
     * (they were woken for the call), then let them go. The call is over and its arrays are
     * freed: they must find nothing to do. */
    cr_assert_eq(team_hold_release(3), 3, "not every helper was woken for the call");
    cr_assert_eq(atomic_load(&tiles_by_others), 0, "a late helper computed a finished call's tile");

    /* The team still works: later calls are exact, whoever computes their tiles. */
    for (int i = 0; i < 20; i++)
        run_and_check(rt, "twice", 400000);
    cr_assert_eq(atomic_load(&tiles_by_caller) + atomic_load(&tiles_by_others), 21 * 400);
    apo_runtime_destroy(rt);
}

/* ---- a helper stalled inside a tile -------------------------------------------------------- */

/* 60 tiles: fewer than the 64 pieces that four threads cut a run into (host_tiles.c), so each
 * piece is one tile, and the stalled helper holds that tile alone. */
#define STALL_TILES 60
static pthread_mutex_t stall_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stall_cond = PTHREAD_COND_INITIALIZER;
static int stalled;       /* a helper is (or was) stalled in this call */
static int others_done;   /* tiles of this call finished, other than the stalled one */
static int stall_timeout; /* the stalled tile gave up waiting: the others never finished */

/* y[t] = 2 x[t] + 1; the first tile a helper takes in a call waits until every other tile of
 * the call is done (at most 60 s), so the call can only end through the other threads. The
 * caller, until a helper has taken a tile, waits in its tile for one to (at most a second):
 * on a loaded machine the helpers could stay asleep through fifty whole calls, which the caller
 * alone finished (seen in a unit run beside a build, 2026-11-30). */
static apo_status stall_one(const apo_kernel_call *call, void *user) {
    int me = 0;
    pthread_mutex_lock(&stall_mutex);
    if (!stalled && !pthread_equal(pthread_self(), test_thread)) {
        stalled = 1;
        me = 1;
        pthread_cond_broadcast(&stall_cond);
    } else if (!stalled) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        while (!stalled)
            if (pthread_cond_timedwait(&stall_cond, &stall_mutex, &until) != 0)
                break;
    }
    pthread_mutex_unlock(&stall_mutex);
    if (me) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 60;
        pthread_mutex_lock(&stall_mutex);
        while (others_done < STALL_TILES - 1 && !stall_timeout)
            if (pthread_cond_timedwait(&stall_cond, &stall_mutex, &until) != 0)
                stall_timeout = 1;
        pthread_mutex_unlock(&stall_mutex);
    }
    apo_status st = twice_plus_one(call, user);
    if (!me) {
        pthread_mutex_lock(&stall_mutex);
        others_done++;
        pthread_cond_broadcast(&stall_cond);
        pthread_mutex_unlock(&stall_mutex);
    }
    return st;
}

Test(host_team, a_helper_stalled_in_a_tile_does_not_hold_the_other_tiles, .timeout = 300) {
    test_thread = pthread_self();
    apo_runtime *rt = runtime_on("cpu:threads=4", NULL);
    register_user(rt, "stall", stall_one, 1000);
    /* A helper may not wake in time to take a tile at all (the caller can be that fast);
     * then the call shows nothing, and it is made again. */
    int shown = 0;
    for (int attempt = 0; attempt < 50 && !shown; attempt++) {
        pthread_mutex_lock(&stall_mutex);
        stalled = others_done = stall_timeout = 0;
        pthread_mutex_unlock(&stall_mutex);
        run_and_check(rt, "stall", STALL_TILES * 1000);
        pthread_mutex_lock(&stall_mutex);
        cr_assert(!stall_timeout, "the other tiles were not done while one helper was stalled");
        shown = stalled;
        cr_assert(!stalled || others_done == STALL_TILES - 1);
        pthread_mutex_unlock(&stall_mutex);
    }
    cr_assert(shown, "no helper took a tile in 50 calls");
    apo_runtime_destroy(rt);
}

/* ---- a helper held inside a tile keeps the helpers out until a probe ------------------------ */

/* 30 tiles of 2000 elements: above the 32,768 elements that a task shares, and fewer than the
 * 32 pieces that two threads cut a run into (host_tiles.c), so each piece is one tile. */
#define HELD_TILES 30
#define HELD_TILE 2000
/* How long the held tile lasts after every other tile is done: the calling thread can only
 * wait meanwhile, thousands of times longer than it takes to compute a tile itself. The
 * rule sees a loss as long as the calling thread's own part of the call (its 29 tiles, and
 * its wait for the helper to wake and take the held one) took less than about 1.7 s. */
#define HELD_EXTRA_NS 500000000L
static int held_mode;    /* this call holds its helper (under stall_mutex, as the rest) */
static int held_taken;   /* the helper holds its tile */
static int held_others;  /* tiles of this call that the calling thread finished */
static int held_timeout; /* a wait below gave up: the other side never came */

/* Waits on stall_cond, with stall_mutex held, at most until `until`; 0 once it passed. */
static int held_wait(const struct timespec *until) {
    return pthread_cond_timedwait(&stall_cond, &stall_mutex, until) == 0;
}

/* y[t] = 2 x[t] + 1. In a held call the helper's tile plays a helper preempted inside a
 * piece: it lasts until the calling thread has done every other tile, and HELD_EXTRA_NS
 * more. The calling thread's first tile waits until the helper holds its tile, so that the
 * helper takes part however late the scheduler wakes it. */
static apo_status held_tile(const apo_kernel_call *call, void *user) {
    int caller = pthread_equal(pthread_self(), test_thread), me = 0;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 20;
    pthread_mutex_lock(&stall_mutex);
    if (held_mode && caller) {
        while (!held_taken && !held_timeout)
            held_timeout = !held_wait(&until);
    } else if (held_mode && !held_taken) {
        held_taken = me = 1;
        pthread_cond_broadcast(&stall_cond);
        while (held_others < HELD_TILES - 1 && !held_timeout)
            held_timeout = !held_wait(&until);
    }
    pthread_mutex_unlock(&stall_mutex);
    if (me) {
        const struct timespec extra = {0, HELD_EXTRA_NS};
        nanosleep(&extra, NULL);
    }
    apo_status st = twice_plus_one(call, user);
    if (caller) {
        pthread_mutex_lock(&stall_mutex);
        held_others++;
        pthread_cond_broadcast(&stall_cond);
        pthread_mutex_unlock(&stall_mutex);
    }
    return st;
}

/* One call of `name` with the helper held (`held`) or not; returns the cpu device's
 * threads_offered, and the tiles computed by the calling thread and by others in *caller
 * and *others. */
static int counted_call(apo_runtime *rt, const char *name, size_t n, int held,
                        unsigned long *caller, unsigned long *others) {
    pthread_mutex_lock(&stall_mutex);
    held_mode = held;
    held_taken = held_others = held_timeout = 0;
    pthread_mutex_unlock(&stall_mutex);
    atomic_store(&tiles_by_caller, 0);
    atomic_store(&tiles_by_others, 0);
    apo_report report;
    run_and_report(rt, name, n, &report);
    pthread_mutex_lock(&stall_mutex);
    cr_assert(!held_timeout, "a held call's threads never met (20 s)");
    held_mode = 0;
    pthread_mutex_unlock(&stall_mutex);
    *caller = atomic_load(&tiles_by_caller);
    *others = atomic_load(&tiles_by_others);
    cr_assert_eq(report.n_devices, 1);
    return report.devices[0].threads_offered;
}

/* Calls `count` plain calls, each of which must run on the calling thread alone. */
static void calls_alone(apo_runtime *rt, int count, const char *when) {
    for (int i = 0; i < count; i++) {
        unsigned long caller, others;
        int offered = counted_call(rt, "twice", 400000, 0, &caller, &others);
        cr_assert_eq(offered, 1, "%s, call %d: offered to %d threads, not 1", when, i, offered);
        cr_assert_eq(others, 0, "%s, call %d: another thread computed %lu tiles", when, i, others);
        cr_assert_eq(caller, 400);
    }
}

Test(host_team, a_call_that_waited_for_a_held_helper_keeps_the_helpers_out_until_a_probe,
     .timeout = 300) {
    test_thread = pthread_self();
    apo_runtime *rt = runtime_on("cpu:threads=2", NULL);
    register_user(rt, "held", held_tile, HELD_TILE);
    register_user(rt, "twice", twice_plus_one, 1000);
    unsigned long caller, others;

    /* (a) The call completes once the held tile is released, with exact outputs
     * (run_and_report), the helper's one tile among them. */
    int offered = counted_call(rt, "held", HELD_TILES * HELD_TILE, 1, &caller, &others);
    cr_assert_eq(offered, 2);
    cr_assert_eq(others, 1, "the helper computed %lu tiles, not its held one", others);
    cr_assert_eq(caller, HELD_TILES - 1);

    /* (b) It waited 500 ms for a tile the calling thread computes in microseconds: the next
     * calls keep the helper out. */
    calls_alone(rt, APO_TEAM_ALONE_FIRST, "after the first held call");

    /* (c) The next call probes the helper; held again, it loses again, and twice as many
     * calls run alone before the next probe, which offers the helper tiles again. */
    offered = counted_call(rt, "held", HELD_TILES * HELD_TILE, 1, &caller, &others);
    cr_assert_eq(offered, 2, "the probe after %d calls alone offered %d threads",
                 APO_TEAM_ALONE_FIRST, offered);
    cr_assert_eq(others, 1);
    calls_alone(rt, 2 * APO_TEAM_ALONE_FIRST, "after the held probe");
    offered = counted_call(rt, "twice", 400000, 0, &caller, &others);
    cr_assert_eq(offered, 2, "the second probe offered %d threads", offered);
    cr_assert_eq(caller + others, 400);
    apo_runtime_destroy(rt);
}

/* ---- a machine busy from the start ------------------------------------------------------------
 */

/* A runtime whose cpu device reads `text` as the machine's processor pressure. */
static apo_runtime *runtime_under_pressure(const char *text, char *path, size_t size) {
    cr_assert_eq(test_tmpfile_with(text, path, size), 0, "writing %s", path);
    cr_assert_eq(setenv("APPORTION_CPU_PRESSURE_FILE", path, 1), 0);
    return runtime_on("cpu:threads=2", NULL);
}

Test(host_team, on_a_busy_machine_the_first_calls_run_alone_then_the_helpers_are_probed,
     .timeout = 120) {
    test_thread = pthread_self();
    char path[512];
    unsigned long caller, others;
    apo_runtime *rt = runtime_under_pressure("some avg10=80.00 avg60=75.00 avg300=20.00 total=1\n"
                                             "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
                                             path, sizeof path);
    register_user(rt, "twice", twice_plus_one, 1000);
    calls_alone(rt, APO_TEAM_ALONE_FIRST, "busy from the start");
    int offered = counted_call(rt, "twice", 400000, 0, &caller, &others);
    cr_assert_eq(offered, 2, "the probe after %d calls alone offered %d threads",
                 APO_TEAM_ALONE_FIRST, offered);
    cr_assert_eq(caller + others, 400);
    apo_runtime_destroy(rt);
    unlink(path);

    rt = runtime_under_pressure("some avg10=0.00 avg60=0.00 avg300=0.00 total=1\n", path,
                                sizeof path);
    register_user(rt, "twice", twice_plus_one, 1000);
    offered = counted_call(rt, "twice", 400000, 0, &caller, &others);
    cr_assert_eq(offered, 2, "an idle machine's first call offered %d threads", offered);
    apo_runtime_destroy(rt);
    unlink(path);
    cr_assert_eq(unsetenv("APPORTION_CPU_PRESSURE_FILE"), 0);
}
