/*
 * A hostile environment around one runtime: profile folders it cannot write (permissions,
 * even as root; a read-only file system), a full disk and a file-size limit, a profile path
 * that is a folder, a FIFO or a symbolic link, profiles that are huge, deeply nested, hold
 * NaN, Infinity, negative, overflowing or extreme numbers, and every APPORTION_* variable
 * malformed or out of range. In each case: a clear warning or error that names the file or
 * the variable, the computation still runs with the same bits, and the files already there
 * keep every byte (or, for an unusable file a writer replaces, live on byte for byte as
 * <file>.corrupt).
 *
 * Cases that need privileges (a private mount namespace for a tmpfs, dropping to an
 * unprivileged user) run in a forked child, which reports through its exit status: 0 passed,
 * 77 could not be set up here (the case says so and is skipped), anything else failed (the
 * child says why on stderr).
 */
#define _GNU_SOURCE /* unshare(), CLONE_NEWNS, mount(), setgroups() for the privileged cases */

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/runtime.h"
#include "helpers.h"
#include "profiles/profile_store.h"

#define DEVICES "cpu:threads=1,sim:a"
#define SKIP_STATUS 77

/* ---- files and folders ------------------------------------------------------------------ */

static char dir[64], mpath[256], tpath[256];

static void make_dir(void) {
    const char *tmp = getenv("TMPDIR"); /* scripts/test.sh gives a private one */
    snprintf(dir, sizeof dir, "%s/apo-hostile-XXXXXX",
             tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    snprintf(mpath, sizeof mpath, "%s/multigpu.json", dir);
    snprintf(tpath, sizeof tpath, "%s/thresholds.json", dir);
}

static void remove_dir(void) {
    if (dir[0] == '\0')
        return;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", dir, dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

TestSuite(hostile, .init = make_dir, .fini = remove_dir, .timeout = 120);

static void write_bytes(const char *path, const char *bytes, size_t len) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(bytes, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

static void write_text(const char *path, const char *text) {
    write_bytes(path, text, strlen(text));
}

/* The whole file, or NULL when it cannot be read; *len its length. */
static char *slurp(const char *path, size_t *len) {
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    while (buf != NULL && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    *len = n;
    return buf;
}

/* A file's bytes, kept to check that nothing touched it. */
typedef struct snapshot {
    char path[512]; /* room for any path this file builds (at most about 340 bytes) */
    char *bytes;
    size_t len;
} snapshot;

static snapshot take(const char *path) {
    snapshot s;
    snprintf(s.path, sizeof s.path, "%s", path);
    s.bytes = slurp(path, &s.len);
    return s;
}

/* 0 when `path` holds exactly the snapshot's bytes. */
static int differs(const snapshot *s, const char *path) {
    size_t len;
    char *now = slurp(path, &len);
    int d = now == NULL || s->bytes == NULL || len != s->len || memcmp(now, s->bytes, len) != 0;
    free(now);
    return d;
}

/* Names in a folder other than . and .., sorted, joined by spaces. */
static int name_cmp(const void *a, const void *b) { return strcmp(a, b); }

static void list_dir(const char *path, char *out, size_t size) {
    char names[16][256];
    size_t n = 0;
    out[0] = '\0';
    DIR *d = opendir(path);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 16)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    closedir(d);
    qsort(names, n, sizeof names[0], name_cmp);
    for (size_t i = 0; i < n; i++) {
        strncat(out, names[i], size - strlen(out) - 1);
        if (i + 1 < n)
            strncat(out, " ", size - strlen(out) - 1);
    }
}

/* The configuration keys of DEVICES on this machine (the cpu's names its model and vector
 * path): a stored model is used only with its device's key. */
static const char *config_of(size_t index) {
    static char keys[2][APO_LABEL_MAX];
    if (keys[0][0] == '\0') {
        apo_config config = APO_CONFIG_INIT;
        config.devices = DEVICES;
        config.sim_clock = APO_SIM_CLOCK_VIRTUAL;
        config.profiles = APO_SWITCH_OFF;
        apo_runtime *rt = NULL;
        cr_assert_eq(apo_runtime_create(&config, &rt), APO_OK, "%s", apo_last_error());
        for (size_t i = 0; i < 2; i++) {
            apo_device_info info = APO_DEVICE_INFO_INIT;
            cr_assert_eq(apo_device_get(rt, i, &info), APO_OK);
            snprintf(keys[i], sizeof keys[i], "%s", info.config);
        }
        apo_runtime_destroy(rt);
    }
    return keys[index];
}

/* A good pair of profiles for DEVICES: bollinger's models, and a threshold entry. */
static const char *good_multigpu(void) {
    static char text[1024];
    snprintf(text, sizeof text,
             "{\"format\": \"apportion.multigpu/1\", \"workloads\": {\"bollinger\": {\"source\": "
             "\"profile\", \"sample_size\": 100000, \"devices\": {\"cpu\": {\"latency_ms\": "
             "0.01, \"ms_per_melem\": 4.0, \"ratio\": 0.5, \"samples\": 5, \"config\": \"%s\"}, "
             "\"sim:a\": {\"latency_ms\": 0.01, \"ms_per_melem\": 4.0, \"ratio\": 0.5, "
             "\"samples\": 5, \"config\": \"%s\"}}}}}\n",
             config_of(0), config_of(1));
    return text;
}
static const char *good_thresholds =
    "{\"format\": \"apportion.thresholds/1\", \"entries\": {\"bollinger:{'nbdev_dn': 2, "
    "'nbdev_up': 2, 'period': 20, 'size': 1000}\": {\"cpu_ms_avg\": 0.1, \"gpu_ms_avg\": 0.2, "
    "\"samples\": 3}}}\n";

/* ---- runtimes --------------------------------------------------------------------------- */

/* A runtime on DEVICES with profiles on at `multigpu` and `thresholds`. The persist interval
 * is a day, so nothing is written before apo_profile_save() or apo_runtime_destroy(). */
static apo_status profiled_runtime(const char *multigpu, const char *thresholds, apo_runtime **rt) {
    apo_config config = APO_CONFIG_INIT;
    config.devices = DEVICES;
    config.sim_clock = APO_SIM_CLOCK_VIRTUAL;
    config.profiles = APO_SWITCH_ON;
    config.learn = APO_SWITCH_ON;
    config.persist_interval_s = 86400;
    config.multigpu_path = multigpu;
    config.thresholds_path = thresholds;
    *rt = NULL;
    return apo_runtime_create(&config, rt);
}

/* How many of the runtime's warnings contain `text`. */
static size_t warnings_naming(const apo_runtime *rt, const char *text) {
    size_t n = 0, count = 0;
    apo_runtime_warning_count(rt, &count);
    for (size_t i = 0; i < count; i++) {
        const char *w;
        if (apo_runtime_warning(rt, i, &w) == APO_OK && strstr(w, text) != NULL)
            n++;
    }
    return n;
}

/* Runs bollinger (tag "bollinger", so a loaded model applies) on `rt` and compares every
 * output bit with a run on a runtime without profiles. Returns the number of differing
 * elements, or -1 when the call failed. Usable in children: no assertions. */
static long run_compared(apo_runtime *rt, apo_report *report) {
    enum { ROWS = 3, COLS = 5000 };
    static double x[ROWS * COLS], got[3][ROWS * COLS], want[3][ROWS * COLS];
    for (size_t i = 0; i < ROWS * COLS; i++)
        x[i] = 100.0 + sin((double)i * 0.01) + (double)(i % 7) * 0.125;
    const double *in[1] = {x};
    apo_workload w = APO_WORKLOAD_INIT;
    w.kernel = "bollinger";
    w.rows = ROWS;
    w.cols = COLS;
    w.inputs = in;
    w.n_inputs = 1;
    w.n_outputs = 3;
    double *out[3] = {got[0], got[1], got[2]};
    w.outputs = out;
    if (apo_distribute_workload(rt, &w, report) != APO_OK)
        return -1;

    apo_config config = APO_CONFIG_INIT;
    config.devices = "cpu:threads=1";
    config.profiles = APO_SWITCH_OFF;
    apo_runtime *ref = NULL;
    if (apo_runtime_create(&config, &ref) != APO_OK)
        return -1;
    double *ref_out[3] = {want[0], want[1], want[2]};
    w.outputs = ref_out;
    apo_status st = apo_distribute_workload(ref, &w, NULL);
    apo_runtime_destroy(ref);
    if (st != APO_OK)
        return -1;
    long diff = 0;
    for (int o = 0; o < 3; o++)
        for (size_t i = 0; i < ROWS * COLS; i++)
            diff += memcmp(&got[o][i], &want[o][i], sizeof(double)) != 0;
    return diff;
}

/* ---- in a child ------------------------------------------------------------------------- */

/* A failed check in a child: says why and ends it. */
static void child_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "child: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    _exit(1);
}

#define CHILD_CHECK(cond, ...)                                                                     \
    do {                                                                                           \
        if (!(cond))                                                                               \
            child_fail(__VA_ARGS__);                                                               \
    } while (0)

/* Runs `body` in a forked child and returns its exit status (or 128 + signal). */
static int in_child(void (*body)(void)) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        body();
        _exit(0);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Where a write must fail and why (the errno text expected in the message). */
static const char *expected_why;

/* The runtime over profiles it can read but not write: it loads them, computes, keeps
 * forced ratios and refinements in memory, and every write fails with APO_ERR_IO naming
 * the file and the reason; the files keep every byte and no temporary file is left. */
static void exercise_unwritable(void) {
    snapshot m = take(mpath), t = take(tpath);
    CHILD_CHECK(m.bytes != NULL && t.bytes != NULL, "cannot read the profiles back");
    char before[512], after[512];
    list_dir(dir, before, sizeof before);

    apo_runtime *rt;
    CHILD_CHECK(profiled_runtime(mpath, tpath, &rt) == APO_OK, "create: %s", apo_last_error());
    apo_profile_files files = APO_PROFILE_FILES_INIT;
    apo_profile_files_get(rt, &files);
    CHILD_CHECK(files.multigpu_state == APO_PROFILE_LOADED &&
                    files.thresholds_state == APO_PROFILE_LOADED,
                "the readable profiles were not loaded: %s / %s", files.multigpu_message,
                files.thresholds_message);
    apo_report report = APO_REPORT_INIT;
    long diff = run_compared(rt, &report);
    CHILD_CHECK(diff == 0, "the call failed or differs (%ld): %s", diff, apo_last_error());
    CHILD_CHECK(report.ratio_source == APO_RATIOS_PROFILE, "the loaded model was not used");

    /* Forced ratios: not stored, but in force. */
    static const char *const ids[2] = {"cpu", "sim:a"};
    const double ratios[2] = {1, 3};
    apo_status st = apo_set_ratios(rt, "bollinger", ids, ratios, 2);
    CHILD_CHECK(st == APO_ERR_IO, "apo_set_ratios gave %s", apo_status_name(st));
    CHILD_CHECK(
        strstr(apo_last_error(), dir) != NULL && strstr(apo_last_error(), expected_why) != NULL,
        "the message does not name the file and \"%s\": %s", expected_why, apo_last_error());
    diff = run_compared(rt, &report);
    CHILD_CHECK(
        diff == 0 && report.ratio_source == APO_RATIOS_EXPLICIT && report.devices[1].share == 0.75,
        "forced ratios not applied in memory (%ld, share %g)", diff, report.devices[1].share);

    /* Profiling: applied in memory, not stored. */
    apo_profile_options opt = APO_PROFILE_OPTIONS_INIT;
    opt.tag = "returns_stats";
    /* The cpu is timed on the wall clock: sizes 200x apart and the median of three runs,
     * so that a loaded machine cannot make the larger one look faster and have profiling
     * refused before it reaches the write this test is about. */
    const uint64_t sizes[2] = {2000, 400000};
    opt.sizes = sizes;
    opt.n_sizes = 2;
    opt.runs = 3;
    apo_profile_result result = APO_PROFILE_RESULT_INIT;
    st = apo_profile_auto_balance(rt, &opt, &result);
    CHILD_CHECK(st == APO_ERR_IO && result.written == 0, "profiling gave %s", apo_status_name(st));
    st = apo_profile_save(rt);
    CHILD_CHECK(st == APO_ERR_IO || st == APO_OK, "save gave %s", apo_status_name(st));
    apo_runtime_destroy(rt); /* tries once more, and says so only in the debug log */

    CHILD_CHECK(!differs(&m, mpath) && !differs(&t, tpath), "a profile was changed");
    list_dir(dir, after, sizeof after);
    CHILD_CHECK(strcmp(before, after) == 0, "the folder changed: \"%s\" -> \"%s\"", before, after);
    free(m.bytes);
    free(t.bytes);
}

static void write_good_profiles(void) {
    write_text(mpath, good_multigpu());
    write_text(tpath, good_thresholds);
    /* The lock files, as the first write leaves them. */
    char lock[300];
    snprintf(lock, sizeof lock, "%s.lock", mpath);
    write_text(lock, "");
    snprintf(lock, sizeof lock, "%s.lock", tpath);
    write_text(lock, "");
}

/* As root, permissions do not stop a write: the child drops to the unprivileged user
 * (65534, "nobody") first, so the folder's permissions apply to it as to anyone. */
static void unwritable_by_permissions(void) {
    if (geteuid() == 0) {
        CHILD_CHECK(setgroups(0, NULL) == 0 && setgid(65534) == 0 && setuid(65534) == 0,
                    "cannot become uid 65534: %s", strerror(errno));
    }
    CHILD_CHECK(geteuid() != 0, "still root");
    expected_why = "Permission denied";
    exercise_unwritable();
}

Test(hostile, unwritable_profile_folder_even_as_root) {
    write_good_profiles();
    char path[300];
    /* Readable by all, writable by none but the owner; the lock files writable by all, so
     * that the write gets as far as its temporary file. */
    cr_assert_eq(chmod(mpath, 0644), 0);
    cr_assert_eq(chmod(tpath, 0644), 0);
    snprintf(path, sizeof path, "%s.lock", mpath);
    cr_assert_eq(chmod(path, 0666), 0);
    snprintf(path, sizeof path, "%s.lock", tpath);
    cr_assert_eq(chmod(path, 0666), 0);
    cr_assert_eq(chmod(dir, geteuid() == 0 ? 0755 : 0555), 0);
    int status = in_child(unwritable_by_permissions);
    chmod(dir, 0700);
    cr_assert_eq(status, 0, "the runtime did not cope with a folder it cannot write");
}

/* A private mount namespace with a tmpfs of `size` on the test folder: root only (the
 * child exits with SKIP_STATUS where that is not allowed). It goes away with the child. */
static void private_tmpfs(const char *size) {
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        fprintf(stderr, "child: no private mount namespace here: %s\n", strerror(errno));
        _exit(SKIP_STATUS);
    }
    char options[64];
    snprintf(options, sizeof options, "size=%s,mode=0700", size);
    if (mount("tmpfs", dir, "tmpfs", 0, options) != 0) {
        fprintf(stderr, "child: cannot mount a tmpfs: %s\n", strerror(errno));
        _exit(SKIP_STATUS);
    }
}

static void read_only_file_system(void) {
    private_tmpfs("1m");
    write_good_profiles();
    CHILD_CHECK(mount(NULL, dir, NULL, MS_REMOUNT | MS_RDONLY, NULL) == 0,
                "cannot remount read-only: %s", strerror(errno));
    expected_why = "Read-only file system";
    exercise_unwritable();
}

Test(hostile, read_only_file_system) {
    int status = in_child(read_only_file_system);
    if (status == SKIP_STATUS)
        cr_skip_test("a read-only tmpfs needs a private mount namespace (root); the "
                     "permission case covers an unwritable folder");
    cr_assert_eq(status, 0, "the runtime did not cope with a read-only file system");
}

/* A tmpfs of 256 KiB filled to the last byte: every write fails with ENOSPC. */
static void full_disk(void) {
    private_tmpfs("256k");
    write_good_profiles();
    char filler[300];
    snprintf(filler, sizeof filler, "%s/filler", dir);
    int fd = open(filler, O_WRONLY | O_CREAT, 0600);
    CHILD_CHECK(fd >= 0, "filler: %s", strerror(errno));
    static char block[4096];
    size_t chunk = sizeof block;
    while (chunk > 0) {
        if (write(fd, block, chunk) < 0) {
            CHILD_CHECK(errno == ENOSPC, "filling: %s", strerror(errno));
            chunk /= 2; /* then fill the last partial page too */
        }
    }
    close(fd);
    expected_why = "No space left on device";
    exercise_unwritable();
}

Test(hostile, full_disk) {
    int status = in_child(full_disk);
    if (status == SKIP_STATUS)
        cr_skip_test("a full tmpfs needs a private mount namespace (root); the file size limit "
                     "case covers a write that fails part-way");
    cr_assert_eq(status, 0, "the runtime did not cope with a full disk");
}

/* RLIMIT_FSIZE of 64 bytes: a write stops part-way with EFBIG (SIGXFSZ ignored, as a
 * program that wants the error does), which needs no privilege anywhere. */
static void file_size_limit(void) {
    CHILD_CHECK(signal(SIGXFSZ, SIG_IGN) != SIG_ERR, "signal");
    struct rlimit limit = {64, 64};
    CHILD_CHECK(setrlimit(RLIMIT_FSIZE, &limit) == 0, "setrlimit: %s", strerror(errno));
    expected_why = "File too large";
    exercise_unwritable();
}

Test(hostile, write_cut_short_by_a_file_size_limit) {
    write_good_profiles();
    cr_assert_eq(in_child(file_size_limit), 0, "the runtime did not cope with EFBIG");
}

/* ---- paths that are not files ----------------------------------------------------------- */

/* A profile path that is a folder or a FIFO: reported once, ignored, never opened for
 * writing, left as it was; the runtime computes. */
static void expect_unreadable_path_ignored(const char *what) {
    apo_runtime *rt;
    cr_assert_eq(profiled_runtime(mpath, tpath, &rt), APO_OK, "%s", apo_last_error());
    apo_profile_files files = APO_PROFILE_FILES_INIT;
    apo_profile_files_get(rt, &files);
    cr_assert_eq(files.multigpu_state, APO_PROFILE_IGNORED, "%s: %s", what,
                 apo_profile_state_name(files.multigpu_state));
    cr_assert(strstr(files.multigpu_message, mpath) != NULL, "%s", files.multigpu_message);
    cr_assert_eq(warnings_naming(rt, mpath), 1, "%s: reported once", what);
    cr_assert_eq(run_compared(rt, NULL), 0, "%s: the call failed or differs: %s", what,
                 apo_last_error());
    static const char *const ids[1] = {"cpu"};
    const double one = 1;
    cr_assert_eq(apo_set_ratios(rt, "t", ids, &one, 1), APO_ERR_IO);
    cr_assert(strstr(apo_last_error(), mpath) != NULL, "%s", apo_last_error());
    apo_runtime_destroy(rt);
}

Test(hostile, profile_path_that_is_a_folder) {
    cr_assert_eq(mkdir(mpath, 0700), 0);
    char inside[300];
    snprintf(inside, sizeof inside, "%s/keep", mpath);
    write_text(inside, "mine");
    expect_unreadable_path_ignored("a folder");
    struct stat st;
    cr_assert_eq(stat(mpath, &st), 0);
    cr_assert(S_ISDIR(st.st_mode));
    char names[256];
    list_dir(mpath, names, sizeof names);
    cr_assert_str_eq(names, "keep");
}

Test(hostile, profile_path_that_is_a_fifo_does_not_block) {
    cr_assert_eq(mkfifo(mpath, 0600), 0);
    expect_unreadable_path_ignored("a FIFO");
    struct stat st;
    cr_assert_eq(lstat(mpath, &st), 0);
    cr_assert(S_ISFIFO(st.st_mode));
}

/* Policy: a profile path that is a symbolic link of the user's own, in a folder of the
 * user's own, to a profile or to nothing yet, is followed. The file written is the link's
 * target, atomically in the target's folder and under the target's lock, so the link stays
 * a link and writers through the link and of the target serialise. */
Test(hostile, profile_path_that_is_a_symlink_is_followed) {
    char elsewhere[300], target[340], lock[360];
    snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere", dir);
    cr_assert_eq(mkdir(elsewhere, 0700), 0);
    snprintf(target, sizeof target, "%s/real.json", elsewhere);
    write_text(target, good_multigpu());
    cr_assert_eq(symlink(target, mpath), 0);

    apo_runtime *rt;
    cr_assert_eq(profiled_runtime(mpath, tpath, &rt), APO_OK, "%s", apo_last_error());
    apo_profile_files files = APO_PROFILE_FILES_INIT;
    apo_profile_files_get(rt, &files);
    cr_assert_eq(files.multigpu_state, APO_PROFILE_LOADED, "%s", files.multigpu_message);
    static const char *const ids[2] = {"cpu", "sim:a"};
    const double ratios[2] = {1, 1};
    cr_assert_eq(apo_set_ratios(rt, "forced", ids, ratios, 2), APO_OK, "%s", apo_last_error());
    apo_runtime_destroy(rt);

    struct stat st;
    cr_assert_eq(lstat(mpath, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the link was replaced by a file");
    apo__multigpu p;
    char err[512];
    cr_assert_eq(apo__multigpu_load(target, &p, NULL, err, sizeof err), APO_OK, "%s", err);
    cr_assert_eq(p.n_workloads, 2, "the target holds the old entry and the new one");
    cr_assert_not_null(apo__multigpu_find(&p, "forced"));
    cr_assert_not_null(apo__multigpu_find(&p, "bollinger"));
    apo__multigpu_free(&p);
    snprintf(lock, sizeof lock, "%s.lock", target);
    cr_assert_eq(stat(lock, &st), 0, "the lock is the target's");
    char names[256];
    list_dir(elsewhere, names, sizeof names);
    cr_assert_str_eq(names, "real.json real.json.lock");

    /* A dangling link is refused for writing (no file is created anywhere) and reads as a
     * missing profile. */
    cr_assert_eq(unlink(mpath), 0);
    char gone[340];
    snprintf(gone, sizeof gone, "%s/gone/nothing.json", dir);
    cr_assert_eq(symlink(gone, mpath), 0);
    cr_assert_eq(profiled_runtime(mpath, tpath, &rt), APO_OK, "%s", apo_last_error());
    apo_profile_files_get(rt, &files);
    cr_assert_eq(files.multigpu_state, APO_PROFILE_MISSING);
    cr_assert_eq(apo_set_ratios(rt, "forced", ids, ratios, 2), APO_ERR_IO);
    cr_assert(strstr(apo_last_error(), "symbolic link") != NULL, "%s", apo_last_error());
    apo_runtime_destroy(rt);
    cr_assert_eq(lstat(mpath, &st), 0);
    cr_assert(S_ISLNK(st.st_mode));
    cr_assert_neq(stat(gone, &st), 0, "a file was created through the dangling link");

    /* A link to a file that does not exist yet, in a folder that does, is followed: the
     * first write creates the file there. */
    cr_assert_eq(unlink(mpath), 0);
    char fresh[340];
    snprintf(fresh, sizeof fresh, "%s/fresh.json", elsewhere);
    cr_assert_eq(symlink(fresh, mpath), 0);
    cr_assert_eq(profiled_runtime(mpath, tpath, &rt), APO_OK, "%s", apo_last_error());
    cr_assert_eq(apo_set_ratios(rt, "forced", ids, ratios, 2), APO_OK, "%s", apo_last_error());
    apo_runtime_destroy(rt);
    cr_assert_eq(lstat(mpath, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the link was replaced by a file");
    cr_assert_eq(apo__multigpu_load(fresh, &p, NULL, err, sizeof err), APO_OK, "%s", err);
    cr_assert_not_null(apo__multigpu_find(&p, "forced"));
    apo__multigpu_free(&p);
}

/* Forces ratios for the tag "forced" through a runtime whose multigpu.json is `multigpu`:
 * the write apo_set_ratios() makes. Returns its status, with the message in `msg`. Usable
 * in children: no assertions. */
static apo_status force_ratios_at(const char *multigpu, char *msg, size_t size) {
    apo_runtime *rt;
    msg[0] = '\0';
    apo_status st = profiled_runtime(multigpu, tpath, &rt);
    if (st != APO_OK) {
        snprintf(msg, size, "create: %s", apo_last_error());
        return st;
    }
    static const char *const ids[2] = {"cpu", "sim:a"};
    const double ratios[2] = {1, 1};
    st = apo_set_ratios(rt, "forced", ids, ratios, 2);
    if (st != APO_OK)
        snprintf(msg, size, "%s", apo_last_error());
    apo_runtime_destroy(rt);
    return st;
}

/* One merge into thresholds.json at `path`, as profiling makes. */
static apo_status merge_threshold_at(const char *path, char *msg, size_t size) {
    apo__threshold add;
    memset(&add, 0, sizeof add);
    snprintf(add.key, sizeof add.key,
             "bollinger:{'nbdev_dn': 2, 'nbdev_up': 2, 'period': 20, "
             "'size': 1000}");
    add.cpu_ms_avg = 0.1;
    add.gpu_ms_avg = NAN;
    add.samples = 1;
    add.cpu_samples = 1;
    msg[0] = '\0';
    return apo__thresholds_merge(path, &add, 1, NULL, msg, size);
}

/* A link (of the user's own, in the user's folder) to a file that is not a profile of the
 * kind written: refused, naming the path and the reason, and nothing is touched: the file
 * keeps its bytes and mode, is not set aside as .corrupt, and gets no lock beside it. Run
 * by root in a folder someone else can write, following it used to replace any file. */
Test(hostile, symlink_to_a_file_that_is_not_a_profile_is_refused_untouched) {
    char other[300], target[340], kind[340], msg[512];
    snprintf(other, sizeof other, "%s/other", dir);
    cr_assert_eq(mkdir(other, 0755), 0);
    snprintf(target, sizeof target, "%s/target", other);
    write_text(target, "root:x:0:0:not a profile at all\n");
    cr_assert_eq(chmod(target, 0644), 0);
    snprintf(kind, sizeof kind, "%s/thresholds.json", other);
    write_text(kind, good_thresholds);
    snapshot target_before = take(target), kind_before = take(kind);
    cr_assert_eq(symlink("other/target", mpath), 0); /* relative to the link's folder */
    char tlink[300];
    snprintf(tlink, sizeof tlink, "%s/tlink.json", dir);
    cr_assert_eq(symlink("other/target", tlink), 0);
    char dir_before[512], other_before[512], now[512];
    list_dir(dir, dir_before, sizeof dir_before);
    list_dir(other, other_before, sizeof other_before);

    cr_assert_eq(force_ratios_at(mpath, msg, sizeof msg), APO_ERR_IO, "%s", msg);
    cr_assert(strstr(msg, mpath) != NULL && strstr(msg, "not a multigpu.json profile") != NULL,
              "the message does not name the path and the reason: %s", msg);
    cr_assert_eq(merge_threshold_at(tlink, msg, sizeof msg), APO_ERR_IO, "%s", msg);
    cr_assert(strstr(msg, tlink) != NULL && strstr(msg, "not a thresholds.json profile") != NULL,
              "%s", msg);

    /* A profile of the other kind is not one to replace either. */
    cr_assert_eq(unlink(mpath), 0);
    cr_assert_eq(symlink(kind, mpath), 0);
    cr_assert_eq(force_ratios_at(mpath, msg, sizeof msg), APO_ERR_IO, "%s", msg);
    cr_assert(strstr(msg, "not a multigpu.json profile") != NULL, "%s", msg);

    cr_assert_eq(differs(&target_before, target), 0, "the target was changed");
    cr_assert_eq(differs(&kind_before, kind), 0, "the thresholds.json was changed");
    struct stat st;
    cr_assert_eq(stat(target, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0644, "the target's mode changed");
    cr_assert_eq(lstat(mpath, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the link was replaced");
    list_dir(other, now, sizeof now);
    cr_assert_str_eq(now, other_before, "something was created beside the target");
    list_dir(dir, now, sizeof now);
    cr_assert_str_eq(now, dir_before, "something was created beside the link");
    free(target_before.bytes);
    free(kind_before.bytes);
}

/* Makes a symbolic link `link` -> `to` belonging to `uid`. */
static void link_of(const char *to, const char *link, uid_t uid) {
    CHILD_CHECK(symlink(to, link) == 0, "symlink %s: %s", link, strerror(errno));
    CHILD_CHECK(lchown(link, uid, uid) == 0, "lchown %s: %s", link, strerror(errno));
}

static void make_folder_of(const char *path, mode_t mode, uid_t uid) {
    CHILD_CHECK(mkdir(path, mode) == 0 && chown(path, uid, uid) == 0 && chmod(path, mode) == 0,
                "%s: %s", path, strerror(errno));
}

static void write_file_of(const char *path, const char *text, uid_t uid) {
    FILE *f = fopen(path, "w");
    CHILD_CHECK(f != NULL && fputs(text, f) >= 0 && fclose(f) == 0, "%s: %s", path,
                strerror(errno));
    CHILD_CHECK(chown(path, uid, uid) == 0, "chown %s: %s", path, strerror(errno));
}

/* Expects the write through `link` refused with `says` in the message, and `file` (what the
 * link names) untouched, with nothing made beside it. */
static void expect_link_refused(const char *link, const char *says, const char *file) {
    char msg[512], folder[300], before[512], after[512];
    snapshot s = take(file);
    snprintf(folder, sizeof folder, "%s", file);
    *strrchr(folder, '/') = '\0';
    list_dir(folder, before, sizeof before);
    apo_status st = force_ratios_at(link, msg, sizeof msg);
    CHILD_CHECK(st == APO_ERR_IO && strstr(msg, link) != NULL && strstr(msg, says) != NULL,
                "%s as uid %lu: %s, \"%s\" (expected \"%s\")", link, (unsigned long)geteuid(),
                apo_status_name(st), msg, says);
    CHILD_CHECK(!differs(&s, file), "%s was changed through %s", file, link);
    list_dir(folder, after, sizeof after);
    CHILD_CHECK(strcmp(before, after) == 0, "%s: \"%s\" -> \"%s\"", folder, before, after);
    free(s.bytes);
}

/* Expects the write through `link` to land in `file`, the link staying a link. */
static void expect_link_followed(const char *link, const char *file) {
    char msg[512], err[512];
    apo_status st = force_ratios_at(link, msg, sizeof msg);
    CHILD_CHECK(st == APO_OK, "%s as uid %lu: %s", link, (unsigned long)geteuid(), msg);
    struct stat ls;
    CHILD_CHECK(lstat(link, &ls) == 0 && S_ISLNK(ls.st_mode), "%s is no longer a link", link);
    apo__multigpu p;
    CHILD_CHECK(apo__multigpu_load(file, &p, NULL, err, sizeof err) == APO_OK, "%s", err);
    CHILD_CHECK(apo__multigpu_find(&p, "forced") != NULL, "%s was not written", file);
    apo__multigpu_free(&p);
}

/* The owner rule, as root and as uid 65534, on a private tmpfs: a link is followed for
 * writing only when it and the folder holding it belong to the user writing. */
static void symlink_owner_rule(void) {
    const uid_t nobody = 65534;
    private_tmpfs("1m");
    CHILD_CHECK(chmod(dir, 0755) == 0, "chmod: %s", strerror(errno));
    char user[300], data[340], shared[300], secret[300], root_profile[340], a[400], b[400], c[400],
        fresh[400], link[400];
    snprintf(user, sizeof user, "%s/user", dir);
    snprintf(data, sizeof data, "%s/data", user);
    snprintf(shared, sizeof shared, "%s/shared", dir);
    snprintf(secret, sizeof secret, "%s/secret", dir);
    snprintf(root_profile, sizeof root_profile, "%s/profile.json", shared);
    make_folder_of(user, 0755, nobody);
    make_folder_of(data, 0755, nobody);
    make_folder_of(shared, 0777, 0); /* root's, but anyone may add to it */
    write_file_of(secret, "root's own file, not a profile\n", 0);
    write_file_of(root_profile, good_multigpu(), 0);

    /* Root, writing through links that uid 65534 placed (in its own folder, or in a folder
     * of root's that anyone may write): refused, even to a real profile. */
    snprintf(link, sizeof link, "%s/evil.json", user);
    link_of("../secret", link, nobody);
    expect_link_refused(link, "belongs to uid 65534", secret);
    snprintf(link, sizeof link, "%s/evil-profile.json", shared);
    link_of("profile.json", link, nobody);
    expect_link_refused(link, "belongs to uid 65534", root_profile);
    /* Root's own link, but in a folder of 65534's, who could have swapped it. */
    snprintf(link, sizeof link, "%s/roots.json", user);
    link_of("../shared/profile.json", link, 0);
    expect_link_refused(link, "a folder of uid 65534", root_profile);

    /* Now as uid 65534. */
    snprintf(a, sizeof a, "%s/a.json", data);
    snprintf(b, sizeof b, "%s/b.json", data);
    snprintf(c, sizeof c, "%s/c.json", data);
    snprintf(fresh, sizeof fresh, "%s/fresh.json", data);
    write_file_of(a, good_multigpu(), nobody);
    write_file_of(b, good_multigpu(), nobody);
    write_file_of(c, good_multigpu(), nobody);
    char own[400], foreign[400], placed[400], to_fresh[400], nowhere[400];
    snprintf(own, sizeof own, "%s/own.json", user);
    link_of("data/a.json", own, nobody);
    snprintf(foreign, sizeof foreign, "%s/foreign.json", user);
    link_of("data/b.json", foreign, 0);
    snprintf(placed, sizeof placed, "%s/placed.json", shared);
    link_of("../user/data/c.json", placed, nobody);
    snprintf(to_fresh, sizeof to_fresh, "%s/to-fresh.json", user);
    link_of("data/fresh.json", to_fresh, nobody);
    snprintf(nowhere, sizeof nowhere, "%s/nowhere.json", user);
    link_of("gone/x.json", nowhere, nobody);
    CHILD_CHECK(setgroups(0, NULL) == 0 && setgid(nobody) == 0 && setuid(nobody) == 0,
                "cannot become uid 65534: %s", strerror(errno));

    expect_link_followed(own, a);
    expect_link_refused(foreign, "belongs to uid 0", b);
    expect_link_refused(placed, "a folder of uid 0", c);
    expect_link_followed(to_fresh, fresh);
    char msg[512], gone[400];
    CHILD_CHECK(force_ratios_at(nowhere, msg, sizeof msg) == APO_ERR_IO &&
                    strstr(msg, "cannot be resolved") != NULL,
                "a link into a missing folder: %s", msg);
    snprintf(gone, sizeof gone, "%s/gone", user);
    CHILD_CHECK(access(gone, F_OK) != 0, "a folder was created through a link");
}

Test(hostile, symlink_followed_only_when_the_user_owns_it_and_its_folder) {
    if (geteuid() != 0)
        cr_skip_test("links of another user need root to make (lchown) and a private tmpfs; "
                     "symlink_to_a_file_that_is_not_a_profile_is_refused_untouched runs anywhere");
    int status = in_child(symlink_owner_rule);
    if (status == SKIP_STATUS)
        cr_skip_test("a private tmpfs needs a mount namespace, not allowed here");
    cr_assert_eq(status, 0, "the owner rule for symbolic links was not kept");
}

/* Whether process `pid` has `path` open (its /proc/PID/fd entries). */
static int has_open(pid_t pid, const char *path) {
    char fds[64], entry[400], to[400];
    snprintf(fds, sizeof fds, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(fds);
    if (d == NULL)
        return 0;
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        snprintf(entry, sizeof entry, "%s/%s", fds, e->d_name);
        ssize_t n = readlink(entry, to, sizeof to - 1);
        if (n > 0) {
            to[n] = '\0';
            found = strcmp(to, path) == 0;
        }
    }
    closedir(d);
    return found;
}

/* A link swapped while its writer waits for the lock: the path is decided again under the
 * lock, and a writer that locked one file and would now write another is refused, leaving
 * both files as they were. (The writer, a thresholds.json merge, is a child; the test holds
 * the lock until the child has opened the lock file, then swaps the link and lets go.) */
Test(hostile, symlink_swapped_while_waiting_for_the_lock_is_refused) {
    char a[300], b[300], lock[310];
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    snprintf(lock, sizeof lock, "%s.lock", a);
    write_text(a, good_thresholds);
    write_text(b, good_thresholds);
    snapshot a_before = take(a), b_before = take(b);
    cr_assert_eq(symlink("a.json", tpath), 0);
    int held = open(lock, O_RDWR | O_CREAT, 0600);
    cr_assert_geq(held, 0);
    cr_assert_eq(flock(held, LOCK_EX), 0);
    int closed[2];
    cr_assert_eq(pipe(closed), 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        /* The parent's descriptor keeps the lock; the child's inherited copy is closed
         * first (and the parent told), so that it cannot pass for the writer's own. */
        close(held);
        close(closed[0]);
        if (write(closed[1], "c", 1) != 1)
            child_fail("pipe: %s", strerror(errno));
        close(closed[1]);
        char msg[512];
        apo_status st = merge_threshold_at(tpath, msg, sizeof msg);
        if (st != APO_ERR_IO || strstr(msg, "changed while its lock was taken") == NULL)
            child_fail("%s: %s", apo_status_name(st), msg);
        _exit(0);
    }
    close(closed[1]);
    char byte;
    cr_assert_eq(read(closed[0], &byte, 1), 1);
    close(closed[0]);
    while (!has_open(pid, lock)) {
        int status;
        cr_assert_eq(waitpid(pid, &status, WNOHANG), 0, "the writer ended before the lock");
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    cr_assert_eq(unlink(tpath), 0);
    cr_assert_eq(symlink("b.json", tpath), 0);
    close(held);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "the swapped link was written through");
    cr_assert_eq(differs(&a_before, a), 0);
    cr_assert_eq(differs(&b_before, b), 0);
    free(a_before.bytes);
    free(b_before.bytes);
}

/* A profile path (from the environment, as a user sets it) that is a FIFO, a folder, a
 * device, or a link to /dev/null: reported and ignored, writes refused, and no
 * `<path>.lock` (nor anything else) made beside it. */
Test(hostile, no_lock_file_beside_a_path_that_is_not_a_file) {
    char fifo[300], folder[300], device[300], to_null[300], msg[512];
    snprintf(fifo, sizeof fifo, "%s/fifo.json", dir);
    snprintf(folder, sizeof folder, "%s/folder.json", dir);
    snprintf(device, sizeof device, "%s/zero.json", dir);
    snprintf(to_null, sizeof to_null, "%s/null.json", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_assert_eq(mkdir(folder, 0700), 0);
    cr_assert_eq(symlink("/dev/null", to_null), 0);
    /* A device node of our own (/dev/zero's numbers) where the system allows it (root with
     * CAP_MKNOD), so that the test never risks a file in the real /dev. */
    int have_device = mknod(device, S_IFCHR | 0600, makedev(1, 5)) == 0;
    int null_lock_before = access("/dev/null.lock", F_OK) == 0;
    const char *paths[4] = {fifo, folder, to_null, device};
    for (size_t i = 0; i < (have_device ? 4u : 3u); i++) {
        cr_assert_eq(setenv("APPORTION_MULTIGPU_PROFILE_PATH", paths[i], 1), 0);
        cr_assert_eq(setenv("APPORTION_THRESHOLD_PATH", paths[i], 1), 0);
        apo_config config = APO_CONFIG_INIT;
        config.devices = DEVICES;
        config.profiles = APO_SWITCH_ON;
        config.persist_interval_s = 86400;
        apo_runtime *rt = NULL;
        cr_assert_eq(apo_runtime_create(&config, &rt), APO_OK, "%s", apo_last_error());
        apo_profile_files files = APO_PROFILE_FILES_INIT;
        apo_profile_files_get(rt, &files);
        cr_assert_eq(files.multigpu_state, APO_PROFILE_IGNORED, "%s: %s", paths[i],
                     files.multigpu_message);
        cr_assert_eq(run_compared(rt, NULL), 0, "%s: %s", paths[i], apo_last_error());
        static const char *const ids[1] = {"cpu"};
        const double one = 1;
        cr_assert_eq(apo_set_ratios(rt, "t", ids, &one, 1), APO_ERR_IO, "%s", paths[i]);
        cr_assert(strstr(apo_last_error(), paths[i]) != NULL &&
                      strstr(apo_last_error(), "nothing written") != NULL,
                  "%s", apo_last_error());
        apo_runtime_destroy(rt);
        cr_assert_eq(merge_threshold_at(paths[i], msg, sizeof msg), APO_ERR_IO, "%s", paths[i]);
        cr_assert(strstr(msg, paths[i]) != NULL, "%s", msg);
    }
    unsetenv("APPORTION_MULTIGPU_PROFILE_PATH");
    unsetenv("APPORTION_THRESHOLD_PATH");
    char names[512];
    list_dir(dir, names, sizeof names);
    cr_assert_str_eq(names,
                     have_device ? "fifo.json folder.json null.json zero.json"
                                 : "fifo.json folder.json null.json",
                     "something was made beside a path that is not a file");
    list_dir(folder, names, sizeof names);
    cr_assert_str_eq(names, "");
    if (!null_lock_before)
        cr_assert_neq(access("/dev/null.lock", F_OK), 0, "/dev/null.lock was created");
    struct stat st;
    cr_assert_eq(lstat(fifo, &st), 0);
    cr_assert(S_ISFIFO(st.st_mode));
}

/* ---- hostile contents ------------------------------------------------------------------- */

/* A profile the loader refuses: the runtime says so once, naming the file, ignores it and
 * computes with equal shares; the file keeps its bytes until a write replaces it, and then
 * lives on byte for byte as <file>.corrupt. */
static void expect_refused_content(const char *what, const char *text, size_t len,
                                   const char *says) {
    write_bytes(mpath, text, len);
    snapshot before = take(mpath);
    apo_runtime *rt;
    cr_assert_eq(profiled_runtime(mpath, tpath, &rt), APO_OK, "%s: %s", what, apo_last_error());
    apo_profile_files files = APO_PROFILE_FILES_INIT;
    apo_profile_files_get(rt, &files);
    cr_assert_eq(files.multigpu_state, APO_PROFILE_IGNORED, "%s: %s", what,
                 apo_profile_state_name(files.multigpu_state));
    cr_assert(strstr(files.multigpu_message, says) != NULL, "%s: \"%s\" lacks \"%s\"", what,
              files.multigpu_message, says);
    cr_assert_eq(warnings_naming(rt, mpath), 1, "%s: reported once", what);
    apo_report report = APO_REPORT_INIT;
    cr_assert_eq(run_compared(rt, &report), 0, "%s: the call failed or differs: %s", what,
                 apo_last_error());
    cr_assert_eq(report.ratio_source, APO_RATIOS_EQUAL, "%s", what);
    cr_assert_eq(differs(&before, mpath), 0, "%s: the file changed before any write", what);

    static const char *const ids[1] = {"cpu"};
    const double one = 1;
    cr_assert_eq(apo_set_ratios(rt, "forced", ids, &one, 1), APO_OK, "%s: %s", what,
                 apo_last_error());
    apo_runtime_destroy(rt);
    char aside[300];
    snprintf(aside, sizeof aside, "%s.corrupt", mpath);
    cr_assert_eq(differs(&before, aside), 0, "%s: the old file was not kept aside whole", what);
    apo__multigpu p;
    char err[512];
    cr_assert_eq(apo__multigpu_load(mpath, &p, NULL, err, sizeof err), APO_OK, "%s: %s", what, err);
    cr_assert_not_null(apo__multigpu_find(&p, "forced"));
    apo__multigpu_free(&p);
    free(before.bytes);
    unlink(aside);
}

#define HEAD "{\"format\": \"apportion.multigpu/1\", \"workloads\": {\"bollinger\": "
#define ENTRY(devices) HEAD "{\"devices\": {" devices "}}}}"

Test(hostile, profiles_with_bad_numbers_are_ignored_never_fatal) {
    static const struct {
        const char *what, *text, *says;
    } cases[] = {
        {"a NaN literal", ENTRY("\"cpu\": {\"ratio\": NaN}"), "not valid JSON"},
        {"an Infinity literal", ENTRY("\"cpu\": {\"ratio\": Infinity}"), "not valid JSON"},
        {"a number beyond a double", ENTRY("\"cpu\": {\"latency_ms\": 1e999, \"ratio\": 1}"),
         "not valid JSON"},
        {"an integer beyond 64 bits",
         ENTRY("\"cpu\": {\"ratio\": 1, \"samples\": 99999999999999999999}"), "not valid JSON"},
        {"a negative ratio", ENTRY("\"cpu\": {\"ratio\": -0.5}, \"sim:a\": {\"ratio\": 1}"),
         "expected a finite number >= 0, got -0.5"},
        {"a negative latency",
         ENTRY("\"cpu\": {\"ratio\": 1, \"latency_ms\": -1, \"ms_per_melem\": 1}"),
         "latency_ms: expected a finite number >= 0, got -1"},
        {"a negative cost",
         ENTRY("\"cpu\": {\"ratio\": 1, \"latency_ms\": 0, \"ms_per_melem\": -3}"),
         "ms_per_melem: expected a finite number >= 0, got -3"},
        {"a negative count", ENTRY("\"cpu\": {\"ratio\": 1, \"samples\": -5}"),
         "samples: expected an integer >= 0, got -5"},
        {"ratios that sum to zero", ENTRY("\"cpu\": {\"ratio\": 0}, \"sim:a\": {\"ratio\": 0}"),
         "the device ratios sum to 0"},
        {"ratios that sum to infinity",
         ENTRY("\"cpu\": {\"ratio\": 1e308}, \"sim:a\": {\"ratio\": 1e308}"),
         "the device ratios sum to inf"},
        {"a ratio that is a string", ENTRY("\"cpu\": {\"ratio\": \"1\"}"), "got \"1\""},
        {"invalid UTF-8", ENTRY("\"cpu\xff\": {\"ratio\": 1}"), "not valid JSON"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_refused_content(cases[i].what, cases[i].text, strlen(cases[i].text), cases[i].says);
    /* NUL bytes inside the text. */
    static const char nul[] = "{\"format\": \"apportion.multigpu/1\"\0, \"workloads\": {}}";
    expect_refused_content("a NUL byte", nul, sizeof nul - 1, "not valid JSON");
}

/* Deeper than jansson's limit of 2048 levels (within the size limit: 200 KB). */
Test(hostile, deeply_nested_profile_is_refused) {
    size_t depth = 100000;
    char *text = malloc(2 * depth + 1);
    cr_assert_not_null(text);
    memset(text, '[', depth);
    memset(text + depth, ']', depth);
    text[2 * depth] = '\0';
    expect_refused_content("100000 levels of arrays", text, 2 * depth, "depth");
    /* Inside an otherwise good file. */
    size_t head = strlen(HEAD "{\"x\": ");
    char *nested = malloc(head + 2 * depth + 8);
    cr_assert_not_null(nested);
    memcpy(nested, HEAD "{\"x\": ", head);
    memset(nested + head, '[', depth);
    memset(nested + head + depth, ']', depth);
    memcpy(nested + head + 2 * depth, "}}}", 4);
    expect_refused_content("a deep unknown field", nested, strlen(nested), "depth");
    free(nested);
    free(text);
}

/* Within the size limit, but made of tiny values that would cost the parser some 40 bytes
 * each: 1.2 million of them (2.4 MB) are refused by their count before parsing. */
Test(hostile, profile_of_a_million_tiny_values_is_refused_before_parsing) {
    size_t n = 1200000;
    char *text = malloc(2 * n + 2);
    cr_assert_not_null(text);
    text[0] = '[';
    for (size_t i = 0; i < n; i++) {
        text[1 + 2 * i] = '0';
        text[2 + 2 * i] = i + 1 < n ? ',' : ']';
    }
    text[2 * n + 1] = '\0';
    expect_refused_content("1.2 million zeros", text, 2 * n + 1,
                           "JSON values, more than the 1000000 a profile may hold; refused");
    free(text);
}

/* 100 MB, refused by its size before a byte is read (the file is sparse, so the test is
 * cheap); a writer keeps it aside by a hard link, the same bytes. */
Test(hostile, huge_profile_is_refused_by_size) {
    int fd = open(mpath, O_WRONLY | O_CREAT, 0600);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, 100 << 20), 0);
    cr_assert_eq(pwrite(fd, "{", 1, 0), 1);
    close(fd);
    struct stat before;
    cr_assert_eq(stat(mpath, &before), 0);

    apo_runtime *rt;
    cr_assert_eq(profiled_runtime(mpath, tpath, &rt), APO_OK, "%s", apo_last_error());
    apo_profile_files files = APO_PROFILE_FILES_INIT;
    apo_profile_files_get(rt, &files);
    cr_assert_eq(files.multigpu_state, APO_PROFILE_IGNORED);
    cr_assert(strstr(files.multigpu_message, "is 104857600 bytes, larger than the 16777216-byte "
                                             "limit of a profile; refused") != NULL,
              "%s", files.multigpu_message);
    cr_assert_eq(warnings_naming(rt, mpath), 1);
    cr_assert_eq(run_compared(rt, NULL), 0, "%s", apo_last_error());
    static const char *const ids[1] = {"cpu"};
    const double one = 1;
    cr_assert_eq(apo_set_ratios(rt, "forced", ids, &one, 1), APO_OK, "%s", apo_last_error());
    apo_runtime_destroy(rt);

    char aside[300];
    snprintf(aside, sizeof aside, "%s.corrupt", mpath);
    struct stat kept;
    cr_assert_eq(stat(aside, &kept), 0);
    cr_assert(kept.st_ino == before.st_ino && kept.st_size == before.st_size,
              "the huge file was not kept aside as it was");
    cr_assert_eq(stat(mpath, &kept), 0);
    cr_assert_lt(kept.st_size, 4096, "a small new file replaced it");
}

/* Numbers that are valid but extreme. A model whose latency or cost is 1e308 (or a cost of
 * 1e-300) would take all work or none for good: it is refused at load with a warning naming
 * the device and the value, and the device borrows the other's model, so it still gets work.
 * Forced ratios that sum to far more than one are divided by their sum. The calls stay
 * finite and exact. Each device object carries this machine's configuration key (%s: the
 * cpu's, then sim:a's), so that it is the value, not the key, that is refused. */
Test(hostile, implausible_models_are_refused_and_extreme_ratios_used_safely) {
#define CPU_CFG "\"config\": \"%s\", "
#define SIM_CFG "\"config\": \"%s\", "
    static const struct {
        const char *what, *text, *warns;
    } cases[] = {
        {"a latency of 1e308 ms",
         ENTRY("\"cpu\": {" CPU_CFG "\"latency_ms\": 0.01, \"ms_per_melem\": 4, \"samples\": 3, "
               "\"ratio\": 0.5}, \"sim:a\": {" SIM_CFG
               "\"latency_ms\": 1e308, \"ms_per_melem\": 4, "
               "\"samples\": 3, \"ratio\": 0.5}"),
         "device sim:a: latency_ms 1e+308"},
        {"a cost of 1e308 ms per Melem",
         ENTRY("\"cpu\": {" CPU_CFG "\"latency_ms\": 0.01, \"ms_per_melem\": 4, \"samples\": 3, "
               "\"ratio\": 0.5}, \"sim:a\": {" SIM_CFG "\"latency_ms\": 0.01, "
               "\"ms_per_melem\": 1e308, \"samples\": 3, \"ratio\": 0.5}"),
         "device sim:a: latency_ms 0.01, ms_per_melem 1e+308"},
        {"both at 1e308",
         ENTRY("\"cpu\": {" CPU_CFG "\"latency_ms\": 1e308, \"ms_per_melem\": 1e308, "
               "\"samples\": 3, \"ratio\": 0.5}, \"sim:a\": {" SIM_CFG "\"latency_ms\": 1e308, "
               "\"ms_per_melem\": 1e308, \"samples\": 3, \"ratio\": 0.5}"),
         "2 stored model(s) refused as implausible"},
        {"forced ratios summing to 7e300",
         HEAD "{\"source\": \"forced\", \"ratios\": {\"cpu\": 3e300, \"sim:a\": 4e300}}}}", NULL},
        {"a cost of 1e-300 ms per Melem (1/cost overflows)",
         ENTRY("\"cpu\": {" CPU_CFG "\"latency_ms\": 0.01, \"ms_per_melem\": 1e-300, "
               "\"samples\": 3, \"ratio\": 0.5}, \"sim:a\": {" SIM_CFG "\"latency_ms\": 0.01, "
               "\"ms_per_melem\": 4, \"samples\": 3, \"ratio\": 0.5}"),
         "device cpu: latency_ms 0.01, ms_per_melem 1e-300"},
    };
#undef CPU_CFG
#undef SIM_CFG
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[2048];
        snprintf(text, sizeof text, cases[i].text, config_of(0), config_of(1));
        write_text(mpath, text);
        apo_runtime *rt;
        cr_assert_eq(profiled_runtime(mpath, tpath, &rt), APO_OK, "%s", apo_last_error());
        apo_profile_files files = APO_PROFILE_FILES_INIT;
        apo_profile_files_get(rt, &files);
        cr_assert_eq(files.multigpu_state, APO_PROFILE_LOADED, "%s: %s", cases[i].what,
                     files.multigpu_message);
        if (cases[i].warns != NULL)
            cr_assert_eq(warnings_naming(rt, cases[i].warns), 1, "%s: no warning with \"%s\"",
                         cases[i].what, cases[i].warns);
        apo_report report = APO_REPORT_INIT;
        cr_assert_eq(run_compared(rt, &report), 0, "%s: %s", cases[i].what, apo_last_error());
        double sum = 0;
        for (size_t d = 0; d < report.n_devices; d++) {
            cr_assert(isfinite(report.devices[d].share) && report.devices[d].share > 0,
                      "%s: device %zu's share %g", cases[i].what, d, report.devices[d].share);
            sum += report.devices[d].share;
        }
        cr_assert_float_eq(sum, 1.0, 1e-12, "%s: shares sum to %.17g", cases[i].what, sum);
        if (i == 3)
            cr_assert_float_eq(report.devices[1].share, 4.0 / 7.0, 1e-12, "%s", cases[i].what);
        /* Again, with the models this call refined. */
        cr_assert_eq(run_compared(rt, &report), 0, "%s, second call: %s", cases[i].what,
                     apo_last_error());
        for (size_t d = 0; d < report.n_devices; d++)
            cr_assert(isfinite(report.devices[d].share), "%s, second call", cases[i].what);
        apo_runtime_destroy(rt);
    }
}

/* ---- the environment -------------------------------------------------------------------- */

/* Each variable, set to each bad value alone: the runtime is created, one warning names the
 * variable and shows the value, and the documented fallback applies. */
static apo_runtime *runtime_with_env(const char *name, const char *value) {
    cr_assert_eq(setenv(name, value, 1), 0);
    apo_config config = APO_CONFIG_INIT;
    config.devices = "cpu,sim:a";
    config.profiles = APO_SWITCH_OFF;
    apo_runtime *rt = NULL;
    apo_status st = apo_runtime_create(&config, &rt);
    cr_assert_eq(st, APO_OK, "%s=\"%s\": %s", name, value, apo_last_error());
    cr_assert_eq(unsetenv(name), 0);
    return rt;
}

static void expect_warned(const apo_runtime *rt, const char *name, const char *value,
                          const char *shown) {
    char text[256];
    snprintf(text, sizeof text, "%s=\"%s\" ignored: expected", name, shown);
    size_t count = 0;
    apo_runtime_warning_count(rt, &count);
    cr_assert_eq(warnings_naming(rt, text), 1, "%s=\"%s\": no warning \"%s\" (of %zu)", name, value,
                 text, count);
}

Test(hostile, every_malformed_environment_variable_is_warned_and_ignored) {
    static const struct {
        const char *name, *value;
    } cases[] = {
        {"APPORTION_CPU_THREADS", "0"},
        {"APPORTION_CPU_THREADS", "-4"},
        {"APPORTION_CPU_THREADS", "1025"},
        {"APPORTION_CPU_THREADS", "99999999999999999999999"},
        {"APPORTION_CPU_THREADS", "4 threads"},
        {"APPORTION_CPU_THREADS", " 4"},
        {"APPORTION_CPU_THREADS", "0x10"},
        {"APPORTION_CPU_THREADS", "2.5"},
        {"APPORTION_USE_GPU", "maybe"},
        {"APPORTION_USE_GPU", "2"},
        {"APPORTION_SIM_CLOCK", "fast"},
        {"APPORTION_GPU_MEMORY_MB", "3"},
        {"APPORTION_GPU_MEMORY_MB", "1048577"},
        {"APPORTION_GPU_MEMORY_MB", "lots"},
        {"APPORTION_PROFILES", "perhaps"},
        {"APPORTION_LEARN", "10"},
        {"APPORTION_PERSIST_INTERVAL", "0"},
        {"APPORTION_PERSIST_INTERVAL", "-5"},
        {"APPORTION_PERSIST_INTERVAL", "86401"},
        {"APPORTION_PERSIST_INTERVAL", "nan"},
        {"APPORTION_PERSIST_INTERVAL", "inf"},
        {"APPORTION_PERSIST_INTERVAL", "1e999"},
        {"APPORTION_PERSIST_INTERVAL", "60s"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        apo_runtime *rt = runtime_with_env(cases[i].name, cases[i].value);
        expect_warned(rt, cases[i].name, cases[i].value, cases[i].value);
        /* The fallbacks (docs/env.md): the default of each setting. */
        apo_device_info info = APO_DEVICE_INFO_INIT;
        cr_assert_eq(apo_device_get(rt, 0, &info), APO_OK);
        cr_assert_gt(info.threads, 0);
        cr_assert_eq(rt->balance.persist_interval_s, 60.0, "%s", cases[i].name);
        cr_assert_eq(rt->balance.learn, 1, "%s", cases[i].name);
        cr_assert_eq(rt->devices[1].virtual_clock, 0, "%s: the sim clock", cases[i].name);
        cr_assert_eq(run_compared(rt, NULL), 0, "%s: %s", cases[i].name, apo_last_error());
        apo_runtime_destroy(rt);
    }
}

Test(hostile, environment_values_are_shown_safely) {
    /* Control characters cannot forge a line of a log or a terminal... */
    apo_runtime *rt = runtime_with_env("APPORTION_USE_GPU", "no\n\x1b[2Jyes");
    expect_warned(rt, "APPORTION_USE_GPU", "(escape)", "no??[2Jyes");
    apo_runtime_destroy(rt);
    /* ...and a 100 KB value is cut to 64 bytes in the message. */
    size_t len = 100000;
    char *big = malloc(len + 1);
    cr_assert_not_null(big);
    memset(big, '7', len);
    big[len] = '\0';
    rt = runtime_with_env("APPORTION_CPU_THREADS", big);
    char shown[80];
    memset(shown, '7', 64);
    memcpy(shown + 64, "...", 4);
    expect_warned(rt, "APPORTION_CPU_THREADS", "(100000 sevens)", shown);
    apo_runtime_destroy(rt);
    free(big);
}

/* The device list is the one variable that fails creation (docs/env.md): running on devices
 * nobody asked for is worse than stopping. Hostile lists fail cleanly, naming the item. */
Test(hostile, hostile_device_lists_fail_creation_cleanly) {
    static const char *const lists[] = {"cpu,,sim:a",           "sim:",
                                        "sim:a:rate=-1",        "sim:a:rate=nan",
                                        "sim:a:latency=1e999s", "cuda:99999999999999999999",
                                        "cpu\n,sim:a"};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        cr_assert_eq(setenv("APPORTION_DEVICES", lists[i], 1), 0);
        apo_runtime *rt = (apo_runtime *)1;
        apo_status st = apo_runtime_create(NULL, &rt);
        cr_assert_eq(st, APO_ERR_BAD_DEVICE_SPEC, "\"%s\" gave %s", lists[i], apo_status_name(st));
        cr_assert_null(rt);
        cr_assert(strstr(apo_last_error(), "item") != NULL, "\"%s\": %s", lists[i],
                  apo_last_error());
    }
    /* 10000 items: refused by count, not parsed for ever. */
    size_t n = 10000;
    char *many = malloc(n * 4 + 1);
    cr_assert_not_null(many);
    for (size_t i = 0; i < n; i++)
        memcpy(many + 4 * i, ",cpu", 4);
    many[4 * n] = '\0';
    memmove(many, many + 1, 4 * n); /* drop the leading comma */
    cr_assert_eq(setenv("APPORTION_DEVICES", many, 1), 0);
    apo_runtime *rt = NULL;
    cr_assert_eq(apo_runtime_create(NULL, &rt), APO_ERR_BAD_DEVICE_SPEC);
    free(many);
    unsetenv("APPORTION_DEVICES");
}

/* Profile locations that cannot be used: a folder variable that names a file, a path longer
 * than the limit. Profiles go off or are ignored with a warning; the runtime computes. */
Test(hostile, unusable_profile_locations_turn_profiles_off_with_a_warning) {
    char file[300];
    snprintf(file, sizeof file, "%s/plainfile", dir);
    write_text(file, "x");
    cr_assert_eq(setenv("APPORTION_PROFILE_DIR", file, 1), 0);
    apo_config config = APO_CONFIG_INIT;
    config.devices = DEVICES;
    config.profiles = APO_SWITCH_ON;
    apo_runtime *rt = NULL;
    cr_assert_eq(apo_runtime_create(&config, &rt), APO_OK, "%s", apo_last_error());
    cr_assert_eq(warnings_naming(rt, "Not a directory"), 2, "both files, each once");
    cr_assert_eq(run_compared(rt, NULL), 0, "%s", apo_last_error());
    cr_assert_eq(apo_profile_save(rt), APO_ERR_IO, "the refined model cannot be stored");
    cr_assert(strstr(apo_last_error(), "not a folder") != NULL, "%s", apo_last_error());
    apo_runtime_destroy(rt);
    unsetenv("APPORTION_PROFILE_DIR");
    cr_assert_eq(access(file, F_OK), 0);

    size_t len = 5000;
    char *deep = malloc(len + 1);
    cr_assert_not_null(deep);
    deep[0] = '/';
    memset(deep + 1, 'd', len - 1);
    deep[len] = '\0';
    cr_assert_eq(setenv("APPORTION_MULTIGPU_PROFILE_PATH", deep, 1), 0);
    cr_assert_eq(apo_runtime_create(&config, &rt), APO_OK, "%s", apo_last_error());
    cr_assert_eq(warnings_naming(rt, "longer than 4095 bytes"), 1);
    apo_profile_files files = APO_PROFILE_FILES_INIT;
    apo_profile_files_get(rt, &files);
    cr_assert_eq(files.multigpu_state, APO_PROFILE_OFF);
    cr_assert_eq(run_compared(rt, NULL), 0, "%s", apo_last_error());
    apo_runtime_destroy(rt);
    unsetenv("APPORTION_MULTIGPU_PROFILE_PATH");
    free(deep);
}

/* ---- the logging variables -------------------------------------------------------------- */

/* The logging variables are read once per process, so each case runs in a child of its own,
 * with stderr sent to a file: it creates a runtime with a bad variable set (creation warns
 * about APPORTION_CPU_THREADS, which gives the log something to say). */
static const char *log_name, *log_value;
static char stderr_path[300];

static void log_with_bad_variable(void) {
    int fd = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHILD_CHECK(fd >= 0 && dup2(fd, 2) == 2, "stderr: %s", strerror(errno));
    close(fd);
    CHILD_CHECK(setenv(log_name, log_value, 1) == 0, "setenv");
    CHILD_CHECK(setenv("APPORTION_CPU_THREADS", "many", 1) == 0, "setenv");
    apo_runtime *rt;
    CHILD_CHECK(apo_runtime_create(NULL, &rt) == APO_OK, "create: %s", apo_last_error());
    CHILD_CHECK(run_compared(rt, NULL) == 0, "the call failed or differs");
    apo_runtime_destroy(rt);
}

/* What the child wrote to stderr. */
static char *child_stderr(const char *name, const char *value) {
    snprintf(stderr_path, sizeof stderr_path, "%s/stderr", dir);
    log_name = name;
    log_value = value;
    cr_assert_eq(in_child(log_with_bad_variable), 0, "%s=\"%s\"", name, value);
    size_t len;
    char *text = slurp(stderr_path, &len);
    cr_assert_not_null(text);
    text = realloc(text, len + 1);
    text[len] = '\0';
    return text;
}

Test(hostile, bad_logging_variables_are_noted_in_the_log) {
    setenv("APPORTION_DEVICES", "cpu:threads=1", 1);
    /* A level that is not one: logging at WARN, and the note names the value. */
    char *text = child_stderr("APPORTION_DEBUG", "LOUD\x1b[0m");
    cr_assert(strstr(text, "apportion WARN ENV APPORTION_DEBUG=\"LOUD?[0m\" is not one of NONE, "
                           "WARN, INFO, TRACE; using WARN") != NULL,
              "%s", text);
    cr_assert(strstr(text, "APPORTION_CPU_THREADS=\"many\" ignored") != NULL, "%s", text);
    free(text);

    /* Unknown subsystems are skipped and noted; none known means ALL. */
    setenv("APPORTION_DEBUG", "WARN", 1);
    text = child_stderr("APPORTION_DEBUG_SUBSYS", "NOISE,BOGUS");
    cr_assert(strstr(text, "APPORTION_DEBUG_SUBSYS=\"NOISE,BOGUS\" has an unknown subsystem") !=
                  NULL,
              "%s", text);
    cr_assert(strstr(text, "APPORTION_CPU_THREADS=\"many\" ignored") != NULL, "%s", text);
    free(text);

    /* A log file that cannot be opened (a folder): the log goes to stderr, saying so. */
    text = child_stderr("APPORTION_DEBUG_FILE", dir);
    char expect[300];
    snprintf(expect, sizeof expect,
             "apportion: cannot open APPORTION_DEBUG_FILE %s; logging to "
             "stderr",
             dir);
    cr_assert(strstr(text, expect) != NULL, "%s", text);
    cr_assert(strstr(text, "APPORTION_CPU_THREADS=\"many\" ignored") != NULL, "%s", text);
    free(text);
    unsetenv("APPORTION_DEBUG");
    unsetenv("APPORTION_DEVICES");
}
