/*
 * What the files of test_hostile*.c share; see hostile_fixtures.h.
 */
#define _GNU_SOURCE /* unshare(), CLONE_NEWNS, mount(), setgroups() for the privileged cases */

#include <criterion/criterion.h>
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

#include "hostile_fixtures.h"
#include "test_tmpdir.h"

/* ---- files and folders ------------------------------------------------------------------ */

char dir[64], mpath[256], tpath[256];

void make_dir(void) {
    snprintf(dir, sizeof dir, "%s/apo-hostile-XXXXXX", test_tmpdir());
    cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    snprintf(mpath, sizeof mpath, "%s/multigpu.json", dir);
    snprintf(tpath, sizeof tpath, "%s/thresholds.json", dir);
}

void remove_dir(void) {
    if (dir[0] == '\0')
        return;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", dir, dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    dir[0] = '\0';
}

void skip_removing_dir(const char *why) {
    remove_dir();
    cr_skip_test("%s", why);
}

void write_bytes(const char *path, const char *bytes, size_t len) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(bytes, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

void write_text(const char *path, const char *text) { write_bytes(path, text, strlen(text)); }

/* The whole file, or NULL when it cannot be read; *len its length. */
char *slurp(const char *path, size_t *len) {
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

snapshot take(const char *path) {
    snapshot s;
    snprintf(s.path, sizeof s.path, "%s", path);
    s.bytes = slurp(path, &s.len);
    return s;
}

/* 0 when `path` holds exactly the snapshot's bytes. */
int differs(const snapshot *s, const char *path) {
    size_t len;
    char *now = slurp(path, &len);
    int d = now == NULL || s->bytes == NULL || len != s->len || memcmp(now, s->bytes, len) != 0;
    free(now);
    return d;
}

/* The configuration keys of DEVICES on this machine (the cpu's names its model and vector
 * path): a stored model is used only with its device's key. */
const char *config_of(size_t index) {
    static char keys[2][APO_LABEL_MAX];
    if (keys[0][0] == '\0') {
        apo_config config = test_config(DEVICES);
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
const char *good_multigpu(void) {
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

const char *good_thresholds =
    "{\"format\": \"apportion.thresholds/1\", \"entries\": {\"bollinger:{'nbdev_dn': 2, "
    "'nbdev_up': 2, 'period': 20, 'size': 1000}\": {\"cpu_ms_avg\": 0.1, \"gpu_ms_avg\": 0.2, "
    "\"samples\": 3}}}\n";

/* ---- runtimes --------------------------------------------------------------------------- */

/* A runtime on DEVICES with profiles on at `multigpu` and `thresholds`. The persist interval
 * is a day, so nothing is written before apo_profile_save() or apo_runtime_destroy(). */
apo_status profiled_runtime(const char *multigpu, const char *thresholds, apo_runtime **rt) {
    apo_config config = test_profiled_config(DEVICES, multigpu, thresholds);
    config.learn = APO_SWITCH_ON;
    config.persist_interval_s = 86400;
    *rt = NULL;
    return apo_runtime_create(&config, rt);
}

/* How many of the runtime's warnings contain `text`. */
size_t warnings_naming(const apo_runtime *rt, const char *text) {
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
long run_compared(apo_runtime *rt, apo_report *report) {
    enum { ROWS = 3, COLS = 5000 };
    static double x[ROWS * COLS], got[3][ROWS * COLS], want[3][ROWS * COLS];
    for (size_t i = 0; i < ROWS * COLS; i++)
        x[i] = 100.0 + sin((double)i * 0.01) + (double)(i % 7) * 0.125;
    const double *in[1] = {x};
    double *out[3] = {got[0], got[1], got[2]};
    apo_workload w = test_workload("bollinger", ROWS, COLS, in, 1, out, 3);
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
void child_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "child: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    _exit(1);
}

/* Runs `body` in a forked child and returns its exit status (or 128 + signal). */
int in_child(void (*body)(void)) {
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

/* A private mount namespace with a tmpfs of `size` on the test folder: root only (the
 * child exits with SKIP_STATUS where that is not allowed). It goes away with the child. */
void private_tmpfs(const char *size) {
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
