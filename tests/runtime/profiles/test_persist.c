/*
 * What a runtime takes from multigpu.json and how it writes it back (docs/profiles.md,
 * "Which stored models are used"; docs/scheduling.md, "Persistence"):
 *
 * - a stored model is used only by a device of the same id and configuration key: a sim
 *   device at another rate or a model stored without a key (an older file) is left unused
 *   with one warning, and the device borrows the others' model; a cpu's model stored on
 *   another thread count is scaled to this one (one warning);
 * - a stored model outside the plausible bounds is refused with a warning naming the device
 *   and the value, and the device still gets work;
 * - calls never wait for the file: with the file's lock held by someone else, calls that
 *   learn return and the file stays as it was; the refined models reach it at destroy.
 *
 * Shares are read from apo_plan_workload() on sim devices and the virtual clock, where a
 * device takes exactly `elements / rate`, and compared with what the rates give.
 */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "profiles/profile_store.h"
#include "test_tmpdir.h"

#define SAMPLES 2000000

/* ---- set-up ------------------------------------------------------------------------------ */

static char tmpdir[64];
static char multigpu_path[128], thresholds_path[128], lock_path[160];

static void make_tmpdir(void) {
    snprintf(tmpdir, sizeof tmpdir, "%s/apo-test-persist-XXXXXX", test_tmpdir());
    cr_assert_not_null(mkdtemp(tmpdir), "mkdtemp");
    snprintf(multigpu_path, sizeof multigpu_path, "%s/multigpu.json", tmpdir);
    snprintf(thresholds_path, sizeof thresholds_path, "%s/thresholds.json", tmpdir);
    snprintf(lock_path, sizeof lock_path, "%s.lock", multigpu_path);
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static void remove_tmpdir(void) {
    if (tmpdir[0] != '\0' && strstr(tmpdir, "XXXXXX") == NULL)
        nftw(tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    tmpdir[0] = '\0';
}

/* A runtime on `devices` (virtual sim clock) with profiles in the temporary folder. */
static apo_runtime *runtime(const char *devices, apo_switch learn, double persist_interval_s) {
    apo_config config = test_profiled_config(devices, multigpu_path, thresholds_path);
    config.learn = learn;
    config.persist_interval_s = persist_interval_s;
    apo_runtime *rt = NULL;
    apo_status st = apo_runtime_create(&config, &rt);
    cr_assert_eq(st, APO_OK, "runtime on \"%s\": %s", devices, apo_last_error());
    return rt;
}

static const char *config_of(apo_runtime *rt, size_t d) {
    static char keys[4][APO_LABEL_MAX];
    apo_device_info info = APO_DEVICE_INFO_INIT;
    cr_assert_eq(apo_device_get(rt, d, &info), APO_OK);
    snprintf(keys[d], sizeof keys[d], "%s", info.config);
    return keys[d];
}

/* The warnings of `rt` that contain every one of the given texts. */
static size_t warnings_naming(apo_runtime *rt, const char *a, const char *b) {
    size_t count = 0, n = 0;
    apo_runtime_warning_count(rt, &count);
    for (size_t i = 0; i < count; i++) {
        const char *w;
        if (apo_runtime_warning(rt, i, &w) == APO_OK && strstr(w, a) != NULL &&
            (b == NULL || strstr(w, b) != NULL))
            n++;
    }
    return n;
}

/* Device d's share of a call of SAMPLES samples of returns_stats under `tag`, as planned. */
static double planned_share(apo_runtime *rt, const char *tag, size_t d) {
    apo_plan_info plan = test_plan_returns_stats(rt, tag, SAMPLES);
    return (double)plan.device_elements[d] / SAMPLES;
}

/* `calls` calls of returns_stats under `tag`, which refine the models (learning on). */
static void run_calls(apo_runtime *rt, const char *tag, int calls) {
    test_job job;
    test_job_init(&job, rt, "returns_stats", 1, SAMPLES, 5);
    job.w.split = APO_SPLIT_TIME;
    job.w.tag = tag;
    for (int i = 0; i < calls; i++) {
        apo_report report = APO_REPORT_INIT;
        apo_status st = test_job_run(&job, rt, &report);
        cr_assert_eq(st, APO_OK, "call %d: %s", i, apo_last_error());
        /* Lets the (tiny) persist interval pass between calls; nothing is timed. */
        nanosleep(&(struct timespec){0, 2000000}, NULL);
    }
    test_job_free(&job);
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strdup(buf);
}

/* The stored device `id` of workload `tag` in the file. */
static apo__stored_device stored(const char *tag, const char *id) {
    apo__multigpu p;
    char err[512];
    cr_assert_eq(apo__multigpu_load(multigpu_path, &p, NULL, err, sizeof err), APO_OK, "%s", err);
    const apo__stored_workload *e = apo__multigpu_find(&p, tag);
    cr_assert_not_null(e, "no entry %s in the file", tag);
    apo__stored_device found;
    memset(&found, 0, sizeof found);
    int seen = 0;
    for (size_t i = 0; i < e->n_devices; i++)
        if (strcmp(e->devices[i].id, id) == 0) {
            found = e->devices[i];
            seen = 1;
        }
    apo__multigpu_free(&p);
    cr_assert(seen, "entry %s has no device %s", tag, id);
    return found;
}

/* ---- configuration keys ------------------------------------------------------------------ */

/* A model learnt for sim:b at rate=1e6 is not used for sim:b at rate=1e8. The stale model
 * would give sim:b 1e6 / (1e6 + 1e8) = 1% of the work; without it, sim:b borrows sim:a's
 * model and gets half. Stored again, the entry carries sim:b's new key and model. */
Test(persist, a_model_is_not_used_for_another_sim_rate, .timeout = 120, .init = make_tmpdir,
     .fini = remove_tmpdir) {
    apo_runtime *rt = runtime("sim:a:rate=1e8,sim:b:rate=1e6", APO_SWITCH_ON, 86400);
    run_calls(rt, "t", 4);
    cr_assert(planned_share(rt, "t", 1) < 0.02, "learnt: sim:b at 1%%, got %g",
              planned_share(rt, "t", 1));
    apo_runtime_destroy(rt);
    cr_assert_str_eq(stored("t", "sim:b").config, "rate=1000000,latency=0,clock=virtual");

    /* The same devices again: the model is used. */
    rt = runtime("sim:a:rate=1e8,sim:b:rate=1e6", APO_SWITCH_OFF, 86400);
    cr_assert(planned_share(rt, "t", 1) < 0.02, "same key: the model applies, got %g",
              planned_share(rt, "t", 1));
    cr_assert_eq(warnings_naming(rt, "configuration changed", NULL), 0);
    apo_runtime_destroy(rt);

    rt = runtime("sim:a:rate=1e8,sim:b:rate=1e8", APO_SWITCH_ON, 86400);
    double share = planned_share(rt, "t", 1);
    cr_assert(fabs(share - 0.5) < 0.01, "sim:b borrows sim:a's model: share %g, want 0.5", share);
    cr_assert_eq(warnings_naming(rt,
                                 "sim:b: rate=1000000,latency=0,clock=virtual -> "
                                 "rate=100000000,latency=0,clock=virtual",
                                 NULL),
                 1, "one warning names sim:b with its old and new key");
    apo_profile_entry e = APO_PROFILE_ENTRY_INIT;
    cr_assert_eq(apo_profile_entry_get(rt, 0, &e), APO_OK);
    cr_assert(e.stale && strstr(e.stale_reason, "sim:b") != NULL, "stale: %s", e.stale_reason);
    run_calls(rt, "t", 3);
    apo_runtime_destroy(rt);
    apo__stored_device b = stored("t", "sim:b");
    cr_assert_str_eq(b.config, "rate=100000000,latency=0,clock=virtual");
    cr_assert(fabs(b.ms_per_melem - 10.0) < 0.2, "sim:b's new model: %g ms/Melem, want 10",
              b.ms_per_melem);
}

/* A cpu model stored on another thread count (a process of `--devices cpu` on every core, one
 * beside GPUs on fewer) is the same cpu's evidence: it is scaled by the thread counts rather
 * than left for another device's model. The file is written by hand with this machine's keys:
 * a cpu model 4 times slower than sim:a's at threads=1 gives the cpu 1/5 of the work there,
 * and scaled to threads=2 (2 times slower) 1/3; borrowing sim:a's model would give it 1/2. */
Test(persist, a_cpu_model_of_other_threads_is_scaled_to_this_count, .timeout = 120,
     .init = make_tmpdir, .fini = remove_tmpdir) {
    apo_runtime *one = runtime("cpu:threads=1,sim:a:rate=1e8", APO_SWITCH_OFF, 86400);
    char cpu1[APO_LABEL_MAX], sim[APO_LABEL_MAX];
    snprintf(cpu1, sizeof cpu1, "%s", config_of(one, 0));
    snprintf(sim, sizeof sim, "%s", config_of(one, 1));
    apo_runtime_destroy(one);
    cr_assert(strncmp(cpu1, "threads=1,isa=", 14) == 0, "cpu key: %s", cpu1);
    char text[2048];
    snprintf(text, sizeof text,
             "{\"format\": \"apportion.multigpu/1\", \"workloads\": {\"t\": {\"devices\": {"
             "\"cpu\": {\"config\": \"%s\", \"latency_ms\": 0, \"ms_per_melem\": 40, "
             "\"ratio\": 0.2}, "
             "\"sim:a\": {\"config\": \"%s\", \"latency_ms\": 0, \"ms_per_melem\": 10, "
             "\"ratio\": 0.8}}}}}",
             cpu1, sim);
    write_text(multigpu_path, text);

    one = runtime("cpu:threads=1,sim:a:rate=1e8", APO_SWITCH_OFF, 86400);
    double share = planned_share(one, "t", 0);
    cr_assert(fabs(share - 0.2) < 0.01, "threads=1: the model as stored, share %g, want 0.2",
              share);
    apo_runtime_destroy(one);

    apo_runtime *two = runtime("cpu:threads=2,sim:a:rate=1e8", APO_SWITCH_OFF, 86400);
    share = planned_share(two, "t", 0);
    cr_assert(fabs(share - 1.0 / 3.0) < 0.01,
              "threads=2: the model scaled to 20 ms/Melem, share %g, want 1/3", share);
    cr_assert_eq(warnings_naming(two, "cpu measured on 1 thread are scaled to its 2", NULL), 1,
                 "one warning names the cpu and both counts");
    cr_assert_eq(warnings_naming(two, "configuration changed", NULL), 0);
    apo_runtime_destroy(two);
}

/* A file of an older version has no keys: it loads, its models are not used (one warning,
 * the split is equal), and the first write stores them again with keys. A ThreadX file
 * (ratios only, no models) is used as it is. */
Test(persist, an_older_file_without_keys_loads_as_documented, .timeout = 120, .init = make_tmpdir,
     .fini = remove_tmpdir) {
    write_text(multigpu_path,
               "{\"format\": \"apportion.multigpu/1\", \"workloads\": {\"t\": {\"devices\": {"
               "\"sim:a\": {\"latency_ms\": 0, \"ms_per_melem\": 10, \"ratio\": 0.2}, "
               "\"sim:b\": {\"latency_ms\": 0, \"ms_per_melem\": 2.5, \"ratio\": 0.8}}}}}");
    apo_runtime *rt = runtime("sim:a:rate=1e8,sim:b:rate=4e8", APO_SWITCH_ON, 86400);
    apo_profile_files f = APO_PROFILE_FILES_INIT;
    apo_profile_files_get(rt, &f);
    cr_assert_eq(f.multigpu_state, APO_PROFILE_LOADED, "%s", f.multigpu_message);
    cr_assert_eq(
        warnings_naming(rt, "2 stored model(s) not used", "without a device configuration"), 1);
    cr_assert(fabs(planned_share(rt, "t", 1) - 0.5) < 0.01, "equal until learnt: %g",
              planned_share(rt, "t", 1));
    run_calls(rt, "t", 3);
    apo_runtime_destroy(rt);
    cr_assert_str_eq(stored("t", "sim:a").config, "rate=100000000,latency=0,clock=virtual");
    cr_assert_str_eq(stored("t", "sim:b").config, "rate=400000000,latency=0,clock=virtual");

    write_text(multigpu_path, "{\"updated_at\": 1700000000, \"workload_tag\": \"t\", "
                              "\"ratios\": {\"sim:a\": 0.25, \"sim:b\": 0.75}}");
    rt = runtime("sim:a:rate=1e8,sim:b:rate=4e8", APO_SWITCH_OFF, 86400);
    cr_assert(fabs(planned_share(rt, "t", 1) - 0.75) < 0.01, "ThreadX ratios apply: %g",
              planned_share(rt, "t", 1));
    cr_assert_eq(warnings_naming(rt, "not used", NULL), 0);
    apo_runtime_destroy(rt);
}

/* ---- implausible models ------------------------------------------------------------------ */

/* ms_per_melem of 1e308 would starve sim:b for good, 0 would hand it everything: both are
 * refused with a warning naming the device and the value, and sim:b borrows sim:a's model
 * (half the work). A plausible value in the same file is used (the control). */
Test(persist, implausible_models_are_refused_with_a_warning, .timeout = 120, .init = make_tmpdir,
     .fini = remove_tmpdir) {
    static const struct {
        const char *cost, *warns;
        double share;
    } cases[] = {
        {"1e308", "device sim:b: latency_ms 0, ms_per_melem 1e+308", 0.5},
        {"0", "device sim:b: latency_ms 0, ms_per_melem 0", 0.5},
        {"40", NULL, 0.2}, /* 10 against 40 ms per Melem: a fifth */
    };
    apo_runtime *rt = runtime("sim:a:rate=1e8,sim:b:rate=1e8", APO_SWITCH_OFF, 86400);
    char a_key[APO_LABEL_MAX], b_key[APO_LABEL_MAX];
    snprintf(a_key, sizeof a_key, "%s", config_of(rt, 0));
    snprintf(b_key, sizeof b_key, "%s", config_of(rt, 1));
    apo_runtime_destroy(rt);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[2048];
        snprintf(text, sizeof text,
                 "{\"format\": \"apportion.multigpu/1\", \"workloads\": {\"t\": {\"devices\": {"
                 "\"sim:a\": {\"config\": \"%s\", \"latency_ms\": 0, \"ms_per_melem\": 10, "
                 "\"ratio\": 0.5}, \"sim:b\": {\"config\": \"%s\", \"latency_ms\": 0, "
                 "\"ms_per_melem\": %s, \"ratio\": 0.5}}}}}",
                 a_key, b_key, cases[i].cost);
        write_text(multigpu_path, text);
        rt = runtime("sim:a:rate=1e8,sim:b:rate=1e8", APO_SWITCH_ON, 86400);
        double share = planned_share(rt, "t", 1);
        cr_assert(fabs(share - cases[i].share) < 0.01, "cost %s: sim:b's share %g, want %g",
                  cases[i].cost, share, cases[i].share);
        if (cases[i].warns != NULL)
            cr_assert_eq(warnings_naming(rt, "refused as implausible", cases[i].warns), 1,
                         "cost %s: one warning with \"%s\"", cases[i].cost, cases[i].warns);
        else
            cr_assert_eq(warnings_naming(rt, "implausible", NULL), 0);
        /* The device still gets work in a real call, and the outputs are complete. */
        test_job job;
        test_job_init(&job, rt, "returns_stats", 1, SAMPLES, 5);
        job.w.split = APO_SPLIT_TIME;
        job.w.tag = "t";
        apo_report report = APO_REPORT_INIT;
        cr_assert_eq(test_job_run(&job, rt, &report), APO_OK, "%s", apo_last_error());
        cr_assert_gt(report.devices[1].elements, 0, "cost %s: sim:b got no work", cases[i].cost);
        test_job_close(&job, rt);
    }
}

/* ---- no disk under the call lock --------------------------------------------------------- */

/* Takes the lock that every writer of multigpu.json takes (flock on <file>.lock), through a
 * file description of its own, as another process would. */
static int hold_file_lock(void) {
    int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    cr_assert_geq(fd, 0, "open %s", lock_path);
    cr_assert_eq(flock(fd, LOCK_EX), 0, "flock");
    return fd;
}

/* While another holder keeps the file locked, calls that learn (persist interval 1 ms) all
 * return, and the file is unchanged: the writer thread waits for the lock, not the calls. A
 * call waiting for the lock would wait up to 30 s per call, three minutes for the six calls,
 * far beyond the case's timeout.
 * Released, destroy writes the refined models. */
Test(persist, calls_that_learn_never_wait_for_the_file_lock, .timeout = 60, .init = make_tmpdir,
     .fini = remove_tmpdir) {
    write_text(multigpu_path, "{\"format\": \"apportion.multigpu/1\", \"workloads\": {\"other\": "
                              "{\"source\": \"forced\", \"ratios\": {\"cpu\": 1}}}}\n");
    char *before = read_text(multigpu_path);
    int lock = hold_file_lock();
    apo_runtime *rt = runtime("sim:a:rate=1e8,sim:b:rate=4e8", APO_SWITCH_ON, 1e-3);
    run_calls(rt, "t", 6);
    /* The refinement is in memory: the queries take the runtime's lock, which no writer
     * holds while it waits for the file. */
    apo_profile_entry e = APO_PROFILE_ENTRY_INIT;
    size_t count = 0;
    cr_assert_eq(apo_profile_entry_count(rt, &count), APO_OK);
    int found = 0;
    for (size_t i = 0; i < count; i++) {
        cr_assert_eq(apo_profile_entry_get(rt, i, &e), APO_OK);
        if (strcmp(e.tag, "t") == 0) {
            found = 1;
            break;
        }
    }
    cr_assert(found && e.source == APO_RATIOS_ONLINE, "the refined tag is known in memory");
    char *during = read_text(multigpu_path);
    cr_assert_str_eq(during, before, "the file changed while its lock was held");
    close(lock);

    apo_runtime_destroy(rt);
    apo__stored_device a = stored("t", "sim:a"), b = stored("t", "sim:b");
    cr_assert(fabs(a.ms_per_melem - 10.0) < 0.2 && fabs(b.ms_per_melem - 2.5) < 0.05,
              "refined models stored at destroy: %g and %g ms/Melem", a.ms_per_melem,
              b.ms_per_melem);
    stored("other", "cpu"); /* another's entry is kept */
    free(before);
    free(during);
}

typedef struct forcing {
    apo_runtime *rt;
    apo_status st;
    int done;
    pthread_mutex_t m;
} forcing;

static void *force_ratios(void *arg) {
    forcing *f = arg;
    const char *ids[2] = {"sim:a", "sim:b"};
    const double ratios[2] = {1, 3};
    apo_status st = apo_set_ratios(f->rt, "forced", ids, ratios, 2);
    pthread_mutex_lock(&f->m);
    f->st = st;
    f->done = 1;
    pthread_mutex_unlock(&f->m);
    return NULL;
}

/* apo_set_ratios() writes at once, so it waits for the lock; a call meanwhile does not wait
 * with it. The forced ratios are known in memory (the sign that the writer is past its
 * change and at the file); the call returns while apo_set_ratios() still waits. */
Test(persist, an_explicit_write_waiting_for_the_lock_does_not_hold_up_calls, .timeout = 60,
     .init = make_tmpdir, .fini = remove_tmpdir) {
    int lock = hold_file_lock();
    apo_runtime *rt = runtime("sim:a:rate=1e8,sim:b:rate=4e8", APO_SWITCH_ON, 86400);
    forcing f = {.rt = rt, .m = PTHREAD_MUTEX_INITIALIZER};
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, force_ratios, &f), 0);
    for (;;) {
        apo_profile_entry e = APO_PROFILE_ENTRY_INIT;
        size_t count = 0;
        apo_profile_entry_count(rt, &count);
        if (count == 1 && apo_profile_entry_get(rt, 0, &e) == APO_OK &&
            e.source == APO_RATIOS_EXPLICIT)
            break;
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    run_calls(rt, "t", 2);
    pthread_mutex_lock(&f.m);
    int done = f.done;
    pthread_mutex_unlock(&f.m);
    cr_assert_eq(done, 0, "apo_set_ratios() returned while the lock was held");
    close(lock);
    pthread_join(t, NULL);
    cr_assert_eq(f.st, APO_OK, "%s", apo_last_error());
    apo_runtime_destroy(rt);
    cr_assert(fabs(stored("forced", "sim:b").ratio - 3.0) < 1e-12, "forced ratios written");
}

/* ---- evidence across runtimes ------------------------------------------------------------ */

/* A program that makes one call per process (the command line) adds one observation per
 * runtime. The observations are stored beside the model, so that they add up: a stored
 * model three times too slow for sim:b is not moved by a single run, and is replaced once
 * three runs in a row disagree with it in the same direction (docs/scheduling.md). Without
 * the stored observations every run would start again from the model alone, and it would
 * never move. */
Test(persist, the_evidence_of_separate_runtimes_adds_up, .timeout = 120, .init = make_tmpdir,
     .fini = remove_tmpdir) {
    const char *devices = "sim:a:rate=1e8,sim:b:rate=1e8";
    apo_runtime *rt = runtime(devices, APO_SWITCH_OFF, 86400);
    char key_a[APO_LABEL_MAX], key_b[APO_LABEL_MAX], text[2048];
    snprintf(key_a, sizeof key_a, "%s", config_of(rt, 0));
    snprintf(key_b, sizeof key_b, "%s", config_of(rt, 1));
    apo_runtime_destroy(rt);
    snprintf(text, sizeof text,
             "{\"format\": \"apportion.multigpu/1\", \"workloads\": {\"t\": {\"devices\": {"
             "\"sim:a\": {\"config\": \"%s\", \"latency_ms\": 0, \"ms_per_melem\": 10}, "
             "\"sim:b\": {\"config\": \"%s\", \"latency_ms\": 0, \"ms_per_melem\": 30}}, "
             "\"ratios\": {\"sim:a\": 0.75, \"sim:b\": 0.25}}}}",
             key_a, key_b);
    write_text(multigpu_path, text);

    for (unsigned run = 1; run <= 4; run++) {
        rt = runtime(devices, APO_SWITCH_ON, 86400);
        run_calls(rt, "t", 1);
        apo_runtime_destroy(rt); /* stores the model and its observations */
        apo__stored_device b = stored("t", "sim:b");
        if (run < 3) {
            /* The stored model is the prior and votes twice in the cost median: one run does
             * not move it (30, 30, 10), two make it the mean of the middle two (30, 30, 10, 10:
             * 20). Both runs' observations are kept. */
            double want = run == 1 ? 30.0 : 20.0;
            cr_assert(fabs(b.ms_per_melem - want) < 0.3, "run %u: %g ms/Melem, want %g", run,
                      b.ms_per_melem, want);
            cr_assert_eq(b.online.n_recent, run, "run %u: %u observations stored", run,
                         b.online.n_recent);
            cr_assert_eq(b.online.off_run, -(int)run, "run %u: off_run %d", run, b.online.off_run);
            cr_assert(fabs(b.online.prior_ms_per_melem - 30.0) < 1e-9, "run %u: prior %g", run,
                      b.online.prior_ms_per_melem);
        } else {
            /* The third run in a row that is faster than the model restarts it: sim:b's own
             * 10 ms per million elements, without the prior. */
            cr_assert(fabs(b.ms_per_melem - 10.0) < 0.2, "run %u: %g ms/Melem, want 10", run,
                      b.ms_per_melem);
            cr_assert(isnan(b.online.prior_ms_per_melem), "run %u: the prior no longer votes", run);
        }
    }
}

/* A process's first call on a device is slower (thread teams, caches, pages): a program that
 * makes one call per process would teach the model that the device is that much slower.
 * Cold starts are kept apart (docs/scheduling.md, "Cold starts"): the warm model keeps the
 * device's warm speed, the cold one learns the first calls and plans them. sim:a's first call
 * in each runtime takes 1.5 times its 10 ms per million elements. */
Test(persist, cold_starts_are_kept_apart_from_warm_speed, .timeout = 120, .init = make_tmpdir,
     .fini = remove_tmpdir) {
    const char *devices = "sim:a:rate=1e8:cold=1.5";
    apo_runtime *rt = runtime(devices, APO_SWITCH_ON, 86400);
    run_calls(rt, "t", 4);
    apo_runtime_destroy(rt);
    for (int process = 0; process < 8; process++) {
        rt = runtime(devices, APO_SWITCH_ON, 86400);
        run_calls(rt, "t", 1);
        apo_runtime_destroy(rt);
    }
    apo__stored_device a = stored("t", "sim:a");
    cr_assert(fabs(a.ms_per_melem - 10.0) < 0.3, "warm model %g ms/Melem, want 10", a.ms_per_melem);
    cr_assert(fabs(a.cold.ms_per_melem - 15.0) < 0.5, "cold model %g ms/Melem, want 15",
              a.cold.ms_per_melem);
    /* A new process plans its first call with the cold model. */
    rt = runtime(devices, APO_SWITCH_ON, 86400);
    apo_plan_info plan = test_plan_returns_stats(rt, "t", 2000000);
    cr_assert(fabs(plan.predicted_ms - 30.0) < 1.0, "first call planned at %.2f ms, want 30",
              plan.predicted_ms);
    apo_runtime_destroy(rt);
}
