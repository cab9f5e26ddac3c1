/*
 * One runtime used from many threads (docs/api.md, "Thread safety"): sixteen threads call
 * it at once with mixed kernels, ratios and axes while two more force ratios, plan, query and
 * register kernels, and every result is bitwise equal to a single-threaded run on a runtime
 * of one device; a user kernel that calls back into its own runtime gets an error instead of
 * a deadlock, wherever it runs (the calling thread, a device's worker thread, an OpenMP
 * thread); and distinct runtimes are independent when used from distinct threads.
 *
 * Threads never call cr_assert: they record what they saw, and the test thread checks it.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "helpers.h"
#include "reference.h"
#include "test_tmpdir.h"
#include "test_user_kernel.h"

/* ---- a user kernel: y[t] = x[t] + x[t-1] / 2 (x[-1] taken as 0), halo 1 --------------- */

static apo_status half_sum(const apo_kernel_call *call, void *user) {
    (void)user;
    const double *x = call->inputs[0] + call->row * call->cols;
    double *y = call->outputs[0] + call->row * call->cols;
    for (size_t t = call->begin; t < call->end; t++)
        y[t] = x[t] + (t > 0 ? x[t - 1] * 0.5 : 0.0);
    return APO_OK;
}

static void register_kernel(apo_runtime *rt, const char *name, apo_cpu_kernel_fn fn, void *user,
                            size_t tile) {
    apo_kernel_desc d = test_user_kernel(name, fn, user, tile);
    d.halo = 1;
    test_user_kernel_register(rt, &d);
}

/* ---- sixteen threads on one runtime ------------------------------------------------------ */

#define HAMMERS 16
#define CALLS_PER_HAMMER 24
#define N_JOBS 5
#define SHARED_DEVICES "cpu:threads=2,sim:a,sim:b:rate=2e7,sim:c:rate=5e8"
#define N_SHARED_DEVICES 4

/* The reference jobs, run once on a one-device runtime by the test thread. */
static test_job jobs[N_JOBS];

static void make_jobs(apo_runtime *ref) {
    test_job_init(&jobs[0], ref, "bollinger", 6, 20000, 101);
    test_job_param(&jobs[0], "period", 30);
    test_job_init(&jobs[1], ref, "macd", 3, 30000, 202);
    test_job_init(&jobs[2], ref, "returns_stats", 5, 16000, 303);
    test_job_init(&jobs[3], ref, "bootstrap", 2, 400, 404);
    test_job_init(&jobs[4], ref, "half_sum", 4, 25000, 505);
    for (size_t j = 0; j < N_JOBS; j++)
        cr_assert_eq(test_job_run(&jobs[j], ref, NULL), APO_OK, "%s: %s", jobs[j].w.kernel,
                     apo_last_error());
}

typedef struct hammer {
    apo_runtime *rt;
    int index;
    int calls, failures, mismatches;
    char first_problem[256];
} hammer;

static void note(hammer *h, const char *kernel, const char *what) {
    if (h->first_problem[0] == '\0')
        snprintf(h->first_problem, sizeof h->first_problem, "%s: %s", kernel, what);
}

/* Each call takes a job, an axis and ratios that vary with the thread and the iteration:
 * no ratios (the learnt split of a tag that the meddler also forces and clears), random
 * ratios, or a forced axis; whatever the split, the bits must be the reference's. */
static void *hammer_main(void *arg) {
    hammer *h = arg;
    for (int k = 0; k < CALLS_PER_HAMMER; k++) {
        const test_job *ref = &jobs[(h->index + k) % N_JOBS];
        double *outputs[APO_MAX_IO] = {0};
        for (size_t o = 0; o < ref->w.n_outputs; o++)
            outputs[o] = malloc(ref->output_len[o] * sizeof(double));
        apo_workload w = ref->w;
        w.outputs = outputs;
        double ratios[N_SHARED_DEVICES];
        int mode = (h->index * 7 + k) % 4;
        if (mode == 0) {
            w.tag = "shared";
        } else {
            test_random_ratios((uint64_t)(h->index * 1000 + k), N_SHARED_DEVICES, ratios);
            w.ratios = ratios;
            w.n_ratios = N_SHARED_DEVICES;
            w.split = mode == 2 ? APO_SPLIT_ROWS : mode == 3 ? APO_SPLIT_TIME : APO_SPLIT_AUTO;
        }
        apo_status st = apo_distribute_workload(h->rt, &w, NULL);
        h->calls++;
        if (st != APO_OK) {
            h->failures++;
            note(h, ref->w.kernel, apo_last_error());
        } else {
            for (size_t o = 0; o < ref->w.n_outputs; o++) {
                if (memcmp(outputs[o], ref->outputs[o], ref->output_len[o] * sizeof(double)) != 0) {
                    h->mismatches++;
                    note(h, ref->w.kernel, "an output differs from the single-thread run");
                    break;
                }
            }
        }
        for (size_t o = 0; o < ref->w.n_outputs; o++)
            free(outputs[o]);
    }
    return NULL;
}

/* The meddlers pause between rounds so that, on a small machine, they do not starve the
 * threads whose calls they are meant to disturb. */
static void meddler_pause(void) {
    struct timespec pause = {0, 200000};
    nanosleep(&pause, NULL);
}

typedef struct meddler {
    apo_runtime *rt;
    atomic_int *stop;
    int ops, errors;
    char first_problem[256];
} meddler;

static void meddler_error(meddler *m, const char *what) {
    m->errors++;
    if (m->first_problem[0] == '\0')
        snprintf(m->first_problem, sizeof m->first_problem, "%s: %s", what, apo_last_error());
}

/* Forces and clears the shared tag's ratios, plans, and reads the balancing state, all
 * while calls run: none of it may fail or disturb a result. */
static void *balance_meddler(void *arg) {
    meddler *m = arg;
    static const char *const ids[N_SHARED_DEVICES] = {"cpu", "sim:a", "sim:b", "sim:c"};
    for (uint64_t i = 0; !atomic_load(m->stop); i++) {
        double ratios[N_SHARED_DEVICES];
        test_random_ratios(7000 + i, N_SHARED_DEVICES, ratios);
        if (apo_set_ratios(m->rt, "shared", ids, ratios, i % 3 == 2 ? 0 : N_SHARED_DEVICES) !=
            APO_OK)
            meddler_error(m, "apo_set_ratios");
        apo_workload w = jobs[i % N_JOBS].w;
        w.tag = "shared";
        apo_plan_info plan = APO_PLAN_INFO_INIT;
        if (apo_plan_workload(m->rt, &w, &plan) != APO_OK)
            meddler_error(m, "apo_plan_workload");
        size_t n = 0;
        if (apo_profile_entry_count(m->rt, &n) != APO_OK)
            meddler_error(m, "apo_profile_entry_count");
        for (size_t e = 0; e < n; e++) {
            apo_profile_entry entry = APO_PROFILE_ENTRY_INIT;
            if (apo_profile_entry_get(m->rt, e, &entry) != APO_OK)
                meddler_error(m, "apo_profile_entry_get");
        }
        if (apo_threshold_count(m->rt, &n) != APO_OK || apo_profile_save(m->rt) != APO_OK)
            meddler_error(m, "apo_threshold_count / apo_profile_save");
        m->ops += 5;
        meddler_pause();
    }
    return NULL;
}

/* Registers kernels and lists kernels and devices while calls run. */
static void *registry_meddler(void *arg) {
    meddler *m = arg;
    for (int i = 0; !atomic_load(m->stop); i++) {
        if (i < 40) {
            char name[32];
            snprintf(name, sizeof name, "extra_%d", i);
            apo_kernel_desc d = test_user_kernel(name, half_sum, NULL, 0);
            if (apo_kernel_register(m->rt, &d) != APO_OK)
                meddler_error(m, "apo_kernel_register");
        }
        size_t n = 0;
        if (apo_kernel_count(m->rt, &n) != APO_OK)
            meddler_error(m, "apo_kernel_count");
        for (size_t k = 0; k < n; k++) {
            const char *name;
            apo_kernel_info info = APO_KERNEL_INFO_INIT;
            if (apo_kernel_name(m->rt, k, &name) != APO_OK ||
                apo_kernel_get(m->rt, name, &info) != APO_OK)
                meddler_error(m, "apo_kernel_name / apo_kernel_get");
        }
        apo_device_info info = APO_DEVICE_INFO_INIT;
        if (apo_device_get(m->rt, (size_t)i % N_SHARED_DEVICES, &info) != APO_OK)
            meddler_error(m, "apo_device_get");
        m->ops += 3;
        meddler_pause();
    }
    return NULL;
}

Test(threads, sixteen_threads_on_one_runtime_get_the_single_thread_bits, .timeout = 300) {
    apo_runtime *ref = test_runtime("cpu:threads=1");
    register_kernel(ref, "half_sum", half_sum, NULL, 1000);
    make_jobs(ref);
    apo_runtime *rt = test_runtime(SHARED_DEVICES);
    register_kernel(rt, "half_sum", half_sum, NULL, 1000);

    atomic_int stop = 0;
    meddler meddlers[2];
    pthread_t meddler_threads[2];
    void *(*meddler_mains[2])(void *) = {balance_meddler, registry_meddler};
    for (int i = 0; i < 2; i++) {
        meddlers[i] = (meddler){.rt = rt, .stop = &stop};
        cr_assert_eq(pthread_create(&meddler_threads[i], NULL, meddler_mains[i], &meddlers[i]), 0);
    }
    hammer hammers[HAMMERS];
    pthread_t threads[HAMMERS];
    for (int i = 0; i < HAMMERS; i++) {
        hammers[i] = (hammer){.rt = rt, .index = i};
        cr_assert_eq(pthread_create(&threads[i], NULL, hammer_main, &hammers[i]), 0);
    }
    int calls = 0;
    for (int i = 0; i < HAMMERS; i++) {
        cr_assert_eq(pthread_join(threads[i], NULL), 0);
        calls += hammers[i].calls;
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++)
        cr_assert_eq(pthread_join(meddler_threads[i], NULL), 0);

    for (int i = 0; i < HAMMERS; i++) {
        const hammer *h = &hammers[i];
        cr_expect(h->failures == 0 && h->mismatches == 0,
                  "thread %d: %d failed and %d wrong of %d calls; first: %s", i, h->failures,
                  h->mismatches, h->calls, h->first_problem);
    }
    for (int i = 0; i < 2; i++)
        cr_expect_eq(meddlers[i].errors, 0, "meddler %d: %s", i, meddlers[i].first_problem);
    cr_assert_eq(calls, HAMMERS * CALLS_PER_HAMMER);
    cr_log_info("%d threads made %d calls on one runtime while 2 more made %d other calls", HAMMERS,
                calls, meddlers[0].ops + meddlers[1].ops);

    for (size_t j = 0; j < N_JOBS; j++)
        test_job_free(&jobs[j]);
    apo_runtime_destroy(rt);
    apo_runtime_destroy(ref);
}

/* ---- calling back into the runtime from a kernel ---------------------------------------- */

/* What a kernel that calls back saw; tiles run concurrently, so it is guarded. */
typedef struct callback {
    apo_runtime *target; /* the runtime the kernel calls into */
    const char *inner_kernel;
    int profile; /* call apo_profile_auto_balance() instead */
    int destroy; /* call apo_runtime_destroy() instead */
    pthread_mutex_t lock;
    int calls;
    int ok, invalid, other;
    char message[512]; /* the last error of the first refused call */
    int inner_wrong;   /* an inner call that succeeded gave wrong bits */
} callback;

/* The inner call: bollinger(period 5) on 1 x 32 values whose middle band is known. */
static apo_status call_inner(callback *cb) {
    double x[32], upper[32], middle[32], lower[32];
    for (size_t i = 0; i < 32; i++)
        x[i] = (double)i;
    const double *in[1] = {x};
    double *out[3] = {upper, middle, lower};
    const apo_param period = {"period", 5};
    apo_workload w = test_workload(cb->inner_kernel, 1, 32, in, 1, out,
                                   strcmp(cb->inner_kernel, "bollinger") == 0 ? 3 : 1);
    w.params = strcmp(cb->inner_kernel, "bollinger") == 0 ? &period : NULL;
    w.n_params = w.params != NULL ? 1 : 0;
    apo_status st = apo_distribute_workload(cb->target, &w, NULL);
    /* The mean of 5 consecutive integers ending at 31 is 29, exactly. */
    if (st == APO_OK && strcmp(cb->inner_kernel, "bollinger") == 0 && middle[31] != 29.0)
        cb->inner_wrong = 1;
    return st;
}

static apo_status calls_back(const apo_kernel_call *call, void *user) {
    callback *cb = user;
    apo_status st;
    if (cb->destroy) {
        apo_runtime_destroy(cb->target);
        st = strstr(apo_last_error(), "not destroyed") != NULL ? APO_ERR_INVALID_ARGUMENT : APO_OK;
    } else if (cb->target == NULL) {
        st = APO_OK; /* nothing to call into */
    } else if (cb->profile) {
        apo_profile_options opt = APO_PROFILE_OPTIONS_INIT;
        opt.tag = "bollinger";
        st = apo_profile_auto_balance(cb->target, &opt, NULL);
    } else {
        st = call_inner(cb);
    }
    pthread_mutex_lock(&cb->lock);
    cb->calls++;
    if (st == APO_OK) {
        cb->ok++;
    } else if (st == APO_ERR_INVALID_ARGUMENT) {
        if (cb->invalid++ == 0)
            snprintf(cb->message, sizeof cb->message, "%s", apo_last_error());
    } else {
        cb->other++;
    }
    pthread_mutex_unlock(&cb->lock);
    /* The kernel's own work: a copy. */
    const double *x = call->inputs[0] + call->row * call->cols;
    double *y = call->outputs[0] + call->row * call->cols;
    for (size_t t = call->begin; t < call->end; t++)
        y[t] = x[t];
    return APO_OK;
}

/* Runs the kernel "back" on `rt` over rows x cols and checks the copy. */
static void run_back(apo_runtime *rt, size_t rows, size_t cols) {
    test_job job;
    test_job_init(&job, rt, "back", rows, cols, 9);
    cr_assert_eq(test_job_run(&job, rt, NULL), APO_OK, "%s", apo_last_error());
    cr_assert_eq(memcmp(job.outputs[0], job.input, rows * cols * sizeof(double)), 0);
    test_job_free(&job);
}

static void expect_refused(const callback *cb, const char *where) {
    cr_assert_gt(cb->calls, 0, "%s: the kernel never ran", where);
    cr_assert_eq(cb->invalid, cb->calls, "%s: %d of %d inner calls refused (%d ok, %d other)",
                 where, cb->invalid, cb->calls, cb->ok, cb->other);
    cr_assert(strstr(cb->message, "inside a user kernel") != NULL, "%s: %s", where, cb->message);
}

/* A kernel calling apo_distribute_workload() on its own runtime would wait for the call lock
 * its own call holds. Before the check this case hung until its timeout. */
Test(threads, kernel_calling_back_into_its_runtime_is_refused_not_deadlocked, .timeout = 60) {
    static const struct {
        const char *devices;
        size_t rows, cols;
        const char *where;
    } cases[] = {
        /* one device, little work: the kernel runs on the calling thread */
        {"cpu:threads=1", 1, 500, "calling thread"},
        /* two devices: each runs it on its worker thread */
        {"sim:a,sim:b", 2, 3000, "worker threads"},
        /* enough work for the cpu device to spread tiles over OpenMP threads */
        {"cpu:threads=4", 4, 50000, "OpenMP threads"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        apo_runtime *rt = test_runtime(cases[c].devices);
        callback cb = {.target = rt, .inner_kernel = "bollinger"};
        pthread_mutex_init(&cb.lock, NULL);
        register_kernel(rt, "back", calls_back, &cb, 500);
        run_back(rt, cases[c].rows, cases[c].cols);
        expect_refused(&cb, cases[c].where);
        /* The runtime is unharmed: a plain call still works. */
        cb.target = NULL;
        test_job job;
        test_job_init(&job, rt, "bollinger", 1, 1000, 3);
        cr_assert_eq(test_job_run(&job, rt, NULL), APO_OK, "%s", apo_last_error());
        test_job_free(&job);
        pthread_mutex_destroy(&cb.lock);
        apo_runtime_destroy(rt);
    }
}

Test(threads, kernel_profiling_or_destroying_its_runtime_is_refused, .timeout = 60) {
    apo_runtime *rt = test_runtime("sim:a,sim:b");
    callback cb = {.target = rt, .profile = 1};
    pthread_mutex_init(&cb.lock, NULL);
    register_kernel(rt, "back", calls_back, &cb, 500);
    run_back(rt, 2, 2000);
    expect_refused(&cb, "apo_profile_auto_balance");

    /* Destroying from inside would join the thread running the kernel: it is refused, and
     * the runtime keeps working (the sanitizer build would see a use after free). */
    pthread_mutex_destroy(&cb.lock);
    memset(&cb, 0, sizeof cb);
    cb.target = rt;
    cb.destroy = 1;
    pthread_mutex_init(&cb.lock, NULL);
    run_back(rt, 2, 2000);
    expect_refused(&cb, "apo_runtime_destroy");
    cb.destroy = 0;
    cb.target = NULL;
    run_back(rt, 3, 1500);
    pthread_mutex_destroy(&cb.lock);
    apo_runtime_destroy(rt);
}

/* Another runtime is fair game from inside a kernel, but a chain that comes back to the
 * first one (A's kernel calls B, whose kernel, on the same thread, calls A) is refused. */
Test(threads, kernel_may_call_another_runtime_but_not_back_through_it, .timeout = 60) {
    apo_runtime *a = test_runtime("sim:a,sim:b");
    apo_runtime *b = test_runtime("cpu:threads=1");
    callback to_b = {.target = b, .inner_kernel = "bollinger"};
    pthread_mutex_init(&to_b.lock, NULL);
    register_kernel(a, "back", calls_back, &to_b, 500);
    run_back(a, 2, 3000);
    cr_assert_gt(to_b.calls, 0);
    cr_assert_eq(to_b.ok, to_b.calls, "%d of %d calls into another runtime failed: %s",
                 to_b.calls - to_b.ok, to_b.calls, to_b.message);
    cr_assert_eq(to_b.inner_wrong, 0);

    /* b's kernel "back" calls a; a's kernel "relay" calls b's "back". */
    callback to_a = {.target = a, .inner_kernel = "bollinger"};
    pthread_mutex_init(&to_a.lock, NULL);
    register_kernel(b, "back", calls_back, &to_a, 500);
    callback relay = {.target = b, .inner_kernel = "back"};
    pthread_mutex_init(&relay.lock, NULL);
    register_kernel(a, "relay", calls_back, &relay, 500);
    test_job job;
    test_job_init(&job, a, "relay", 2, 3000, 5);
    cr_assert_eq(test_job_run(&job, a, NULL), APO_OK, "%s", apo_last_error());
    test_job_free(&job);
    cr_assert_eq(relay.ok, relay.calls, "the relay into b failed: %d of %d", relay.calls - relay.ok,
                 relay.calls);
    expect_refused(&to_a, "a -> b -> a");

    pthread_mutex_destroy(&to_b.lock);
    pthread_mutex_destroy(&to_a.lock);
    pthread_mutex_destroy(&relay.lock);
    apo_runtime_destroy(a);
    apo_runtime_destroy(b);
}

/* ---- distinct runtimes, distinct threads ------------------------------------------------ */

#define OWNERS 8
#define ROUNDS 4

typedef struct owner {
    const test_job *ref;
    int index, runs, wrong;
    char problem[256];
} owner;

/* Each thread creates its own runtime, runs, checks, destroys, and again. */
static void *owner_main(void *arg) {
    owner *o = arg;
    for (int r = 0; r < ROUNDS; r++) {
        apo_config config = APO_CONFIG_INIT;
        config.devices = (o->index + r) % 2 == 0 ? "cpu:threads=1,sim:x" : "sim:x,sim:y,sim:z";
        config.sim_clock = APO_SIM_CLOCK_VIRTUAL;
        apo_runtime *rt = NULL;
        if (apo_runtime_create(&config, &rt) != APO_OK) {
            o->wrong++;
            snprintf(o->problem, sizeof o->problem, "create: %s", apo_last_error());
            continue;
        }
        double *out[3];
        for (int k = 0; k < 3; k++)
            out[k] = malloc(o->ref->output_len[k] * sizeof(double));
        apo_workload w = o->ref->w;
        w.outputs = out;
        if (apo_distribute_workload(rt, &w, NULL) != APO_OK) {
            o->wrong++;
            snprintf(o->problem, sizeof o->problem, "run: %s", apo_last_error());
        } else {
            for (int k = 0; k < 3; k++)
                o->wrong +=
                    memcmp(out[k], o->ref->outputs[k], o->ref->output_len[k] * sizeof(double)) != 0;
        }
        o->runs++;
        for (int k = 0; k < 3; k++)
            free(out[k]);
        apo_runtime_destroy(rt);
    }
    return NULL;
}

Test(threads, distinct_runtimes_in_distinct_threads_are_independent, .timeout = 120) {
    apo_runtime *ref = test_runtime("cpu:threads=1");
    test_job job;
    test_job_init(&job, ref, "bollinger", 5, 12000, 77);
    cr_assert_eq(test_job_run(&job, ref, NULL), APO_OK, "%s", apo_last_error());
    owner owners[OWNERS];
    pthread_t threads[OWNERS];
    for (int i = 0; i < OWNERS; i++) {
        owners[i] = (owner){.ref = &job, .index = i};
        cr_assert_eq(pthread_create(&threads[i], NULL, owner_main, &owners[i]), 0);
    }
    for (int i = 0; i < OWNERS; i++) {
        cr_assert_eq(pthread_join(threads[i], NULL), 0);
        cr_expect(owners[i].runs == ROUNDS && owners[i].wrong == 0,
                  "thread %d: %d runs, %d wrong: %s", i, owners[i].runs, owners[i].wrong,
                  owners[i].problem);
    }
    test_job_free(&job);
    apo_runtime_destroy(ref);
}

/* ---- online refinement written while threads call ---------------------------------------- */

#define WRITERS_PER_RUNTIME 6
#define CALLS_PER_WRITER 12

typedef struct learner {
    apo_runtime *rt;
    const test_job *ref;
    int calls, wrong;
    char problem[256];
} learner;

/* Calls under one tag with the learnt split: each call refines the models and, the persist
 * interval being tiny, writes them to the shared multigpu.json. */
static void *learner_main(void *arg) {
    learner *l = arg;
    for (int k = 0; k < CALLS_PER_WRITER; k++) {
        double *out[3];
        for (int o = 0; o < 3; o++)
            out[o] = malloc(l->ref->output_len[o] * sizeof(double));
        apo_workload w = l->ref->w;
        w.outputs = out;
        w.tag = "persisted";
        apo_status st = apo_distribute_workload(l->rt, &w, NULL);
        l->calls++;
        if (st != APO_OK) {
            l->wrong++;
            snprintf(l->problem, sizeof l->problem, "%s", apo_last_error());
        } else {
            for (int o = 0; o < 3; o++)
                l->wrong +=
                    memcmp(out[o], l->ref->outputs[o], l->ref->output_len[o] * sizeof(double)) != 0;
        }
        if (k % 4 == 3 && apo_profile_save(l->rt) != APO_OK) {
            l->wrong++;
            snprintf(l->problem, sizeof l->problem, "save: %s", apo_last_error());
        }
        for (int o = 0; o < 3; o++)
            free(out[o]);
    }
    return NULL;
}

static apo_runtime *persisting_runtime(const char *dir, const char *devices) {
    test_profile_paths files = test_profile_paths_in(dir);
    apo_config config = test_profiled_config(devices, files.multigpu, files.thresholds);
    config.learn = APO_SWITCH_ON;
    config.persist_interval_s = 0.001;
    apo_runtime *rt = NULL;
    cr_assert_eq(apo_runtime_create(&config, &rt), APO_OK, "%s", apo_last_error());
    return rt;
}

/* Two runtimes in one process (as two programs would) refine and write the same profile from
 * six threads each; results stay the reference's, no write fails, and the file reads back. */
Test(threads, online_refinement_persists_while_threads_call, .timeout = 300) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/apo-threads-XXXXXX", test_tmpdir());
    cr_assert_not_null(mkdtemp(dir));
    apo_runtime *ref = test_runtime("cpu:threads=1");
    test_job job;
    test_job_init(&job, ref, "bollinger", 8, 6000, 31);
    cr_assert_eq(test_job_run(&job, ref, NULL), APO_OK, "%s", apo_last_error());

    apo_runtime *rts[2] = {persisting_runtime(dir, "cpu:threads=2,sim:a:rate=3e7"),
                           persisting_runtime(dir, "sim:a:rate=3e7,sim:b:rate=9e7")};
    learner learners[2 * WRITERS_PER_RUNTIME];
    pthread_t threads[2 * WRITERS_PER_RUNTIME];
    for (int i = 0; i < 2 * WRITERS_PER_RUNTIME; i++) {
        learners[i] = (learner){.rt = rts[i % 2], .ref = &job};
        cr_assert_eq(pthread_create(&threads[i], NULL, learner_main, &learners[i]), 0);
    }
    for (int i = 0; i < 2 * WRITERS_PER_RUNTIME; i++) {
        cr_assert_eq(pthread_join(threads[i], NULL), 0);
        cr_expect(learners[i].wrong == 0 && learners[i].calls == CALLS_PER_WRITER,
                  "thread %d: %d of %d calls wrong: %s", i, learners[i].wrong, learners[i].calls,
                  learners[i].problem);
    }
    apo_runtime_destroy(rts[0]);
    apo_runtime_destroy(rts[1]);

    /* The last writer's entry is there, refined by calls, and readable by a new runtime. */
    apo_runtime *reader = persisting_runtime(dir, "sim:a:rate=3e7,sim:b:rate=9e7");
    apo_profile_files files = APO_PROFILE_FILES_INIT;
    cr_assert_eq(apo_profile_files_get(reader, &files), APO_OK);
    cr_assert_eq(files.multigpu_state, APO_PROFILE_LOADED, "%s: %s",
                 apo_profile_state_name(files.multigpu_state), files.multigpu_message);
    size_t n = 0;
    cr_assert_eq(apo_profile_entry_count(reader, &n), APO_OK);
    cr_assert_eq(n, 1);
    apo_profile_entry e = APO_PROFILE_ENTRY_INIT;
    cr_assert_eq(apo_profile_entry_get(reader, 0, &e), APO_OK);
    cr_assert_str_eq(e.tag, "persisted");
    cr_assert_eq(e.source, APO_RATIOS_ONLINE, "%s", apo_ratio_source_name(e.source));
    /* Devices of both runtimes are kept: each writer keeps the devices it does not have. */
    cr_assert_eq(e.n_devices, 3, "%zu devices", e.n_devices);
    apo_runtime_destroy(reader);

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
    test_job_free(&job);
    apo_runtime_destroy(ref);
}
