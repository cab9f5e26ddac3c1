/*
 * What the three files of the hostile environment's tests share (hostile_fixtures.c): the
 * case's private folder and its profile paths (made by make_dir, the suite's .init, removed
 * by remove_dir), files written and compared byte for byte, runtimes on those paths whose
 * calls are compared with a cpu reference, and the forked child that privileged cases run
 * in (in_child, CHILD_CHECK).
 */
#ifndef APO_TEST_HOSTILE_FIXTURES_H
#define APO_TEST_HOSTILE_FIXTURES_H

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

extern char dir[64], mpath[256], tpath[256];

void make_dir(void);

void remove_dir(void);

/* Skips this case with `why`, once its folder is removed: Criterion ends a skipped case by
 * exit() before the .fini runs, and a folder left in TMPDIR fails the run (scripts/test.sh). */
void skip_removing_dir(const char *why);

void write_bytes(const char *path, const char *bytes, size_t len);

void write_text(const char *path, const char *text);

/* The whole file, or NULL when it cannot be read; *len its length. */
char *slurp(const char *path, size_t *len);

/* A file's bytes, kept to check that nothing touched it. */
typedef struct snapshot {
    char path[512]; /* room for any path this file builds (at most about 340 bytes) */
    char *bytes;
    size_t len;
} snapshot;

snapshot take(const char *path);

/* 0 when `path` holds exactly the snapshot's bytes. */
int differs(const snapshot *s, const char *path);

/* The configuration keys of DEVICES on this machine (the cpu's names its model and vector
 * path): a stored model is used only with its device's key. */
const char *config_of(size_t index);

/* A good pair of profiles for DEVICES: bollinger's models, and a threshold entry. */
const char *good_multigpu(void);

extern const char *good_thresholds;

/* ---- runtimes --------------------------------------------------------------------------- */

/* A runtime on DEVICES with profiles on at `multigpu` and `thresholds`. The persist interval
 * is a day, so nothing is written before apo_profile_save() or apo_runtime_destroy(). */
apo_status profiled_runtime(const char *multigpu, const char *thresholds, apo_runtime **rt);

/* How many of the runtime's warnings contain `text`. */
size_t warnings_naming(const apo_runtime *rt, const char *text);

/* Runs bollinger (tag "bollinger", so a loaded model applies) on `rt` and compares every
 * output bit with a run on a runtime without profiles. Returns the number of differing
 * elements, or -1 when the call failed. Usable in children: no assertions. */
long run_compared(apo_runtime *rt, apo_report *report);

/* ---- in a child ------------------------------------------------------------------------- */

/* A failed check in a child: says why and ends it. */
void child_fail(const char *fmt, ...);

#define CHILD_CHECK(cond, ...)                                                                     \
    do {                                                                                           \
        if (!(cond))                                                                               \
            child_fail(__VA_ARGS__);                                                               \
    } while (0)

/* Runs `body` in a forked child and returns its exit status (or 128 + signal). */
int in_child(void (*body)(void));

/* A private mount namespace with a tmpfs of `size` on the test folder: root only (the
 * child exits with SKIP_STATUS where that is not allowed). It goes away with the child. */
void private_tmpfs(const char *size);

#endif
