/*
 * The profile files shared by processes (docs/profiles.md, docs/robustness.md): concurrent writers
 * lose nothing, a killed lock holder blocks nobody, writers and readers of both files in many
 * processes, writers killed mid-write.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "profiles/profile_store.h"

#include "profile_store_fixtures.h"

#define WRITERS 8

#define MERGES 25

#define SHARED_KEY "shared:{'size': 1000}"

/* Writer id's own thresholds key. */
static void own_key(char *key, size_t size, int id) {
    snprintf(key, size, "own%d:{'size': 1000}", id);
}

/* Merge `round` of writer `id` (a child process): the shared key at CPU shared_cpu ms (the
 * same for all, so its average is exact) and GPU id + 1 ms, its own key at CPU own_cpu ms and
 * no GPU. A failure ends the process. */
static void merge_round(const char *path, int id, int round, double shared_cpu, double own_cpu) {
    char own[64], err[512];
    own_key(own, sizeof own, id);
    apo__threshold adds[2] = {add(SHARED_KEY, shared_cpu, (double)(id + 1), 1),
                              add(own, own_cpu, NAN, 1)};
    if (apo__thresholds_merge(path, adds, 2, NULL, err, sizeof err) != APO_OK) {
        fprintf(stderr, "writer %d, merge %d: %s\n", id, round, err);
        _exit(1);
    }
}

/* Waits for the n children, and expects each to have exited 0. */
static void wait_children_ok(const pid_t *pids, int n, const char *who) {
    for (int i = 0; i < n; i++) {
        int status;
        cr_assert_eq(waitpid(pids[i], &status, 0), pids[i]);
        cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s %d failed", who, i);
    }
}

/* The thresholds at path after `writers` writers merged `rounds` rounds each (merge_round):
 * every writer's own key averaging own_cpu + own_step * id over all its rounds, then the
 * shared key with every sample, its CPU average shared_cpu and its GPU one the writers'
 * mean. */
static void assert_every_merge_kept(const char *path, int writers, int rounds, double own_cpu,
                                    double own_step, double shared_cpu) {
    char err[512];
    apo__thresholds t;
    cr_assert_eq(apo__thresholds_load(path, &t, NULL, err, sizeof err), APO_OK, "%s", err);
    cr_assert_eq(t.n, (size_t)writers + 1);
    for (int i = 0; i < writers; i++) {
        char own[64];
        own_key(own, sizeof own, i);
        assert_threshold(&t.entries[i], own, own_cpu + own_step * i, NAN, (uint64_t)rounds,
                         (uint64_t)rounds, 0);
    }
    const apo__threshold *s = &t.entries[writers];
    const uint64_t all = (uint64_t)writers * (uint64_t)rounds;
    cr_assert_str_eq(s->key, SHARED_KEY);
    cr_assert_eq(s->samples, all);
    cr_assert_eq(s->cpu_samples, all);
    cr_assert_eq(s->gpu_samples, all);
    cr_assert_eq(s->cpu_ms_avg, shared_cpu, "%.17g", s->cpu_ms_avg);
    /* GPU: `rounds` times each of 1..8 ms, mean 4.5; the running average rounds once per
     * merge, so it is exact to a few ulps, while one lost merge would move it by about 0.02. */
    const double gpu_mean = (writers + 1) / 2.0;
    cr_assert(fabs(s->gpu_ms_avg - gpu_mean) < 1e-12, "%.17g, want %g", s->gpu_ms_avg, gpu_mean);
    apo__thresholds_free(&t);
}

static void writer(const char *path, int id) {
    for (int i = 0; i < MERGES; i++)
        merge_round(path, id, i, 1.5, 0.25 * (id + 1));
    _exit(0);
}

/* Loads the file until `done` exists; any error is a torn or broken file. */
static void reader(const char *path, const char *done) {
    char err[512];
    struct stat st;
    long loads = 0;
    while (stat(done, &st) != 0) {
        apo__thresholds t;
        if (apo__thresholds_load(path, &t, NULL, err, sizeof err) != APO_OK) {
            fprintf(stderr, "reader, load %ld: %s\n", loads, err);
            _exit(1);
        }
        apo__thresholds_free(&t);
        loads++;
    }
    _exit(loads > 0 ? 0 : 2);
}

Test(profile_store, concurrent_writers_lose_nothing, .timeout = 120) {
    char dir[64], path[256], done[256];
    make_tmp_file(dir, sizeof dir, path, sizeof path, "thresholds.json");
    snprintf(done, sizeof done, "%s/done", dir);

    pid_t reader_pid = fork();
    cr_assert_geq(reader_pid, 0);
    if (reader_pid == 0)
        reader(path, done);
    pid_t pids[WRITERS];
    for (int i = 0; i < WRITERS; i++) {
        pids[i] = fork();
        cr_assert_geq(pids[i], 0);
        if (pids[i] == 0)
            writer(path, i);
    }
    wait_children_ok(pids, WRITERS, "writer");
    write_text(done, "");
    int status;
    cr_assert_eq(waitpid(reader_pid, &status, 0), reader_pid);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the reader saw an error");

    assert_every_merge_kept(path, WRITERS, MERGES, 0.25, 0.25, 1.5);

    char names[512];
    list_dir(dir, names, sizeof names);
    cr_assert_str_eq(names, "done thresholds.json thresholds.json.lock");
    rm_tree(dir);
}

Test(profile_store, killed_lock_holder_does_not_block, .timeout = 60) {
    char dir[64], path[256], lock[300];
    make_tmp_file(dir, sizeof dir, path, sizeof path, "thresholds.json");
    snprintf(lock, sizeof lock, "%s.lock", path);
    int ready[2];
    cr_assert_eq(pipe(ready), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int fd = open(lock, O_RDWR | O_CREAT, 0600);
        if (fd < 0 || flock(fd, LOCK_EX) != 0)
            _exit(1);
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    char c;
    cr_assert_eq(read(ready[0], &c, 1), 1);
    /* The child holds it: nobody else can have it now. */
    int fd = open(lock, O_RDWR);
    cr_assert_geq(fd, 0);
    cr_assert_neq(flock(fd, LOCK_EX | LOCK_NB), 0);
    close(fd);

    cr_assert_eq(kill(pid, SIGKILL), 0);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFSIGNALED(status));

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    apo__threshold a = add("k:{'size': 1}", 1.0, NAN, 1);
    merge_ok(path, &a, 1, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double waited = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    cr_assert(waited < 2.0, "the merge took %.3f s after the holder died", waited);
    close(ready[0]);
    close(ready[1]);
    rm_tree(dir);
}

/* Both files at once, as several `apportion profile` jobs and programs would use them:
 * BOTH_WRITERS processes each make BOTH_ROUNDS rounds of one multigpu.json update (its own
 * tag, whole, and the shared tag) and one thresholds.json merge (its own key and the shared
 * key), while BOTH_READERS processes load both files in a loop. No load may fail (a torn
 * file would not parse), and afterwards every writer's last entry and every merged sample
 * must be there. Each reader sends its count of loads down a pipe, for the figures. */
#define BOTH_WRITERS 8

#define BOTH_READERS 4

#define BOTH_ROUNDS 20

static apo__stored_workload round_entry(const char *tag, int writer, int round) {
    apo__stored_workload w;
    memset(&w, 0, sizeof w);
    snprintf(w.tag, sizeof w.tag, "%s", tag);
    w.origin = APO_ORIGIN_ONLINE;
    w.sample_size = 1000;
    w.runs = (unsigned)round;
    w.n_devices = 2;
    /* The values say who wrote the entry and in which round, so the survivor is known. */
    w.devices[0] = device("cpu", "cpu", 1.0 + writer, 0.5, 2.0 + round, (uint64_t)round);
    w.devices[1] = device("sim:a", "sim:a", 1.0, 0.25, 1.0 + writer, (uint64_t)round);
    return w;
}

static void both_writer(const char *mpath, const char *tpath, int id) {
    char own_tag[32], err[512];
    snprintf(own_tag, sizeof own_tag, "writer%d", id);
    for (int r = 1; r <= BOTH_ROUNDS; r++) {
        apo__stored_workload w[2] = {round_entry(own_tag, id, r), round_entry("shared", id, r)};
        if (apo__multigpu_update(mpath, "node", w, 2, NULL, 0, NULL, err, sizeof err) != APO_OK) {
            fprintf(stderr, "writer %d, round %d: %s\n", id, r, err);
            _exit(1);
        }
        merge_round(tpath, id, r, 2.0, 0.5);
    }
    _exit(0);
}

/* Loads both files until `done` exists. A file that is not there yet is fine; any other
 * failure is a torn or broken file. */
static void both_reader(const char *mpath, const char *tpath, const char *done, int count_fd) {
    char err[512];
    struct stat st;
    long loads = 0;
    while (stat(done, &st) != 0) {
        apo__multigpu p;
        apo__thresholds t;
        int missing;
        if (apo__multigpu_load(mpath, &p, &missing, err, sizeof err) != APO_OK ||
            apo__thresholds_load(tpath, &t, &missing, err, sizeof err) != APO_OK) {
            fprintf(stderr, "reader, load %ld: %s\n", loads, err);
            _exit(1);
        }
        apo__multigpu_free(&p);
        apo__thresholds_free(&t);
        loads += 2;
    }
    _exit(write(count_fd, &loads, sizeof loads) == (ssize_t)sizeof loads ? 0 : 1);
}

Test(profile_store, writers_and_readers_of_both_files_in_many_processes, .timeout = 240) {
    char dir[64], mpath[256], tpath[256], done[256], err[512];
    make_tmp_file(dir, sizeof dir, mpath, sizeof mpath, "multigpu.json");
    snprintf(tpath, sizeof tpath, "%s/thresholds.json", dir);
    snprintf(done, sizeof done, "%s/done", dir);
    int counts[2];
    cr_assert_eq(pipe(counts), 0);

    pid_t readers[BOTH_READERS], writers[BOTH_WRITERS];
    for (int i = 0; i < BOTH_READERS; i++) {
        readers[i] = fork();
        cr_assert_geq(readers[i], 0);
        if (readers[i] == 0)
            both_reader(mpath, tpath, done, counts[1]);
    }
    for (int i = 0; i < BOTH_WRITERS; i++) {
        writers[i] = fork();
        cr_assert_geq(writers[i], 0);
        if (writers[i] == 0)
            both_writer(mpath, tpath, i);
    }
    wait_children_ok(writers, BOTH_WRITERS, "writer");
    write_text(done, "");
    long total_loads = 0;
    for (int i = 0; i < BOTH_READERS; i++) {
        int status;
        cr_assert_eq(waitpid(readers[i], &status, 0), readers[i]);
        cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "reader %d saw a broken file", i);
        long loads = 0;
        cr_assert_eq(read(counts[0], &loads, sizeof loads), (ssize_t)sizeof loads);
        total_loads += loads;
    }
    close(counts[0]);
    close(counts[1]);
    cr_log_info("%d writer processes made %d updates and %d merges while %d readers loaded "
                "%ld files",
                BOTH_WRITERS, BOTH_WRITERS * BOTH_ROUNDS, BOTH_WRITERS * BOTH_ROUNDS, BOTH_READERS,
                total_loads);
    cr_assert_gt(total_loads, 0);

    /* Every writer's own entry, as its last round wrote it; the shared entry whole, as one
     * writer's last round wrote it (updates replace whole entries). */
    apo__multigpu p;
    cr_assert_eq(apo__multigpu_load(mpath, &p, NULL, err, sizeof err), APO_OK, "%s", err);
    cr_assert_eq(p.n_workloads, BOTH_WRITERS + 1);
    for (int i = 0; i < BOTH_WRITERS; i++) {
        char tag[32];
        snprintf(tag, sizeof tag, "writer%d", i);
        const apo__stored_workload *e = apo__multigpu_find(&p, tag);
        cr_assert_not_null(e, "%s is missing", tag);
        apo__stored_workload expect = round_entry(tag, i, BOTH_ROUNDS);
        snprintf(expect.updated_at, sizeof expect.updated_at, "%s", e->updated_at);
        assert_same_workload(e, &expect);
    }
    const apo__stored_workload *shared = apo__multigpu_find(&p, "shared");
    cr_assert_not_null(shared);
    int last_writer = (int)shared->devices[0].ratio - 1;
    cr_assert(last_writer >= 0 && last_writer < BOTH_WRITERS, "ratio %g", shared->devices[0].ratio);
    apo__stored_workload expect = round_entry("shared", last_writer, BOTH_ROUNDS);
    snprintf(expect.updated_at, sizeof expect.updated_at, "%s", shared->updated_at);
    assert_same_workload(shared, &expect);
    apo__multigpu_free(&p);

    /* Every merged sample. */
    assert_every_merge_kept(tpath, BOTH_WRITERS, BOTH_ROUNDS, 0.5, 0.0, 2.0);

    char names[512];
    list_dir(dir, names, sizeof names);
    cr_assert_str_eq(names,
                     "done multigpu.json multigpu.json.lock thresholds.json thresholds.json.lock");
    rm_tree(dir);
}

/* A writer killed (SIGKILL) at a random moment of its merges, most likely holding the lock
 * and with its temporary file half written: the next writer gets the lock at once (flock
 * dies with its holder), the file is whole (the old one or the new one), the dead writer's
 * temporary file is cleared by the next write, and no merge of the survivors is lost. */
#define KILLS 12

Test(profile_store, writers_killed_mid_write_block_nothing_and_break_nothing, .timeout = 120) {
    char dir[64], path[256], err[512];
    make_tmp_file(dir, sizeof dir, path, sizeof path, "thresholds.json");
    const char *mine = "survivor:{'size': 1}";
    uint64_t my_merges = 0;
    int mid_write = 0; /* kills that left a temporary file: the writer held the lock */
    for (int k = 0; k < KILLS; k++) {
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
            /* Big enough that a write takes a while: many keys. */
            apo__threshold adds[200];
            for (int i = 0; i < 200; i++) {
                char key[64];
                snprintf(key, sizeof key, "victim%03d:{'size': %d}", i, k);
                adds[i] = add(key, 1.0, 2.0, 1);
            }
            for (;;)
                if (apo__thresholds_merge(path, adds, 200, NULL, err, sizeof err) != APO_OK)
                    _exit(1);
        }
        /* Let it take the lock and write a few times, then kill it wherever it is. */
        struct timespec pause = {0, 20000000 + 3000000 * (long)k};
        nanosleep(&pause, NULL);
        cr_assert_eq(kill(pid, SIGKILL), 0);
        int status;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        cr_assert(WIFSIGNALED(status), "the writer ended by itself (status %d)", status);
        char before[512];
        list_dir(dir, before, sizeof before);
        mid_write += strstr(before, ".thresholds.json.") != NULL;

        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        apo__threshold a = add(mine, 1.0, NAN, 1);
        merge_ok(path, &a, 1, NULL);
        my_merges++;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double waited = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        cr_assert(waited < 5.0, "kill %d: the next merge took %.3f s", k, waited);
        apo__thresholds t;
        cr_assert_eq(apo__thresholds_load(path, &t, NULL, err, sizeof err), APO_OK, "kill %d: %s",
                     k, err);
        const apo__threshold *e = NULL;
        for (size_t i = 0; i < t.n; i++)
            if (strcmp(t.entries[i].key, mine) == 0)
                e = &t.entries[i];
        cr_assert_not_null(e);
        cr_assert_eq(e->samples, my_merges, "kill %d: %llu samples", k,
                     (unsigned long long)e->samples);
        apo__thresholds_free(&t);
        /* Only the file and its lock: the dead writer's temporary file is gone. */
        char names[512];
        list_dir(dir, names, sizeof names);
        cr_assert_str_eq(names, "thresholds.json thresholds.json.lock", "kill %d", k);
    }
    cr_log_info("%d writers killed, %d of them in the middle of a write", KILLS, mid_write);
    rm_tree(dir);
}

/* ---- threshold keys --------------------------------------------------------------------- */
