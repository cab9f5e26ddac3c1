/*
 * A hostile environment around one runtime, its variables: every malformed APPORTION_* variable
 * warned about and ignored, values shown safely, hostile device lists that fail creation cleanly,
 * unusable profile locations that turn profiles off with a warning, and bad logging variables noted
 * in the log.
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

#include "hostile_fixtures.h"

TestSuite(hostile, .init = make_dir, .fini = remove_dir, .timeout = 120);

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
    /* The default runtime reads and writes profiles: in the case's folder, never in the
     * user's (XDG_STATE_HOME). */
    CHILD_CHECK(setenv("APPORTION_PROFILE_DIR", dir, 1) == 0, "setenv");
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
