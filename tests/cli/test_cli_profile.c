/*
 * apportion profile (cli/cmd_profile.c): both profile files with fitted models, the text
 * report, --if-older-than, usage errors that write nothing, a profile that cannot be written,
 * and the load warned about only by a run that measures. Each case runs the built tool as a
 * subprocess (cli_fixtures.h).
 */
#define _GNU_SOURCE /* unshare(), CLONE_NEWNS and mount() for the small-disk cases */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_fixtures.h"

TestSuite(cli, .fini = cli_cleanup);

Test(cli, help_of_profile_show_and_set_ratios_exits_0, .timeout = 60) {
    const char *cmds[] = {"profile", "show", "set-ratios"};
    const char *want[] = {"Usage: apportion profile", "Usage: apportion show",
                          "Usage: apportion set-ratios"};
    for (size_t i = 0; i < 3; i++) {
        cli_result r = run_cli_ok(ARGS(cmds[i], "--help"));
        cr_assert(strncmp(r.out, want[i], strlen(want[i])) == 0, "%s: %s", cmds[i], r.out);
        cr_assert_eq(r.err_len, 0, "%s: stderr %s", cmds[i], r.err);
        free_result(&r);
        run_cli_ok_free(ARGS(cmds[i], "-h"));
    }
    cli_result r = run_cli(ARGS("--help"));
    assert_contains_each(r.out, PARTS("  profile ", "  show ", "  set-ratios "));
    free_result(&r);
}

Test(cli, profile_writes_both_files_with_fitted_models, .timeout = 120) {
    cli_result r = run_cli_env_ok(SIM_ENV, PROFILE_ARGS("--json"));
    json_t *j = parse_json(&r);
    json_t *profiles = get(j, "profiles");
    cr_assert_eq(json_array_size(profiles), 1);
    cr_assert_eq(json_array_size(get(j, "skipped")), 0);
    cr_assert(json_is_true(get(j, "simulated")));
    json_t *p = json_array_get(profiles, 0);
    cr_assert_str_eq(json_string_value(get(p, "tag")), "bollinger");
    cr_assert_eq(json_integer_value(get(p, "sample_size")), 400000);
    cr_assert_eq(json_integer_value(get(p, "runs")), 3);
    cr_assert(json_is_true(get(p, "written")));
    /* At 400000 samples the makespan is least when 10e-6 n_a = 1 + 3.33e-6 (400000 - n_a) ms,
     * n_a = 175000: 1.75 ms, shares 0.4375 and 0.5625. */
    const double predicted = json_number_value(get(p, "predicted_ms"));
    cr_assert(fabs(predicted - 1.75) < 0.03, "predicted_ms %g", predicted);
    json_t *devs = get(p, "devices");
    cr_assert_eq(json_array_size(devs), 2);
    const char *keys[] = {"id",    "label",   "latency_ms", "ms_per_melem",
                          "ratio", "samples", "dropped"};
    for (size_t i = 0; i < 2; i++)
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            get(json_array_get(devs, i), keys[k]);
    cr_assert_str_eq(json_string_value(get(json_array_get(devs, 0), "id")), "sim:a");
    cr_assert_str_eq(json_string_value(get(json_array_get(devs, 1), "id")), "sim:b");
    assert_model(json_array_get(devs, 0), 0.0, 10.0);
    assert_model(json_array_get(devs, 1), 1.0, 1e3 / 3e2);
    char mpath[256], tpath[256];
    state_path(mpath, sizeof mpath, "multigpu.json");
    state_path(tpath, sizeof tpath, "thresholds.json");
    cr_assert_str_eq(json_string_value(get(j, "multigpu_path")), mpath);
    cr_assert_str_eq(json_string_value(get(j, "thresholds_path")), tpath);
    json_decref(j);
    free_result(&r);

    /* multigpu.json: the apportion format, one workload with both devices, the models and
     * ratios that sum to 1. */
    j = load_json_file(mpath);
    cr_assert_str_eq(json_string_value(get(j, "format")), "apportion.multigpu/1");
    get(j, "updated_at");
    json_t *w = get(get(j, "workloads"), "bollinger");
    cr_assert_eq(json_integer_value(get(w, "sample_size")), 400000);
    json_t *d = get(w, "devices");
    cr_assert_eq(json_object_size(d), 2);
    assert_model(get(d, "sim:a"), 0.0, 10.0);
    assert_model(get(d, "sim:b"), 1.0, 1e3 / 3e2);
    json_t *ratios = get(w, "ratios");
    const double ra = json_number_value(get(ratios, "sim:a"));
    const double rb = json_number_value(get(ratios, "sim:b"));
    cr_assert(fabs(ra + rb - 1.0) < 1e-6, "ratios sum to %g", ra + rb);
    cr_assert(fabs(ra - 0.4375) < 0.02, "ratio of sim:a %g", ra);
    json_decref(j);
    /* thresholds.json: the ThreadX shape, with an entry of the profiled function. */
    j = load_json_file(tpath);
    json_t *entries = get(j, "entries");
    cr_assert(json_is_object(entries));
    int found = 0;
    const char *key;
    json_t *value;
    json_object_foreach(entries, key, value) {
        if (strncmp(key, "bollinger:", 10) == 0)
            found = 1;
    }
    cr_assert(found, "no bollinger entry in thresholds.json");
    json_decref(j);
}

Test(cli, profile_text_lists_devices_and_files, .timeout = 120) {
    cli_result r = run_cli_env_ok(SIM_ENV, PROFILE_ARGS("--seed", "3"));
    assert_contains_each(r.out, PARTS("profile     bollinger\n",
                                      "100000, 400000 samples; 3 runs each", "predicted   ",
                                      "simulated devices present", "\nsim:a ", "\nsim:b "));
    char mpath[256];
    state_path(mpath, sizeof mpath, "multigpu.json");
    assert_contains(r.out, "written     ");
    assert_contains(r.out, mpath);
    /* Not a terminal: no progress on stderr. */
    cr_assert_eq(r.err_len, 0, "stderr: %s", r.err);
    free_result(&r);
}

Test(cli, profile_if_older_than_skips_a_fresh_profile, .timeout = 120) {
    cli_result r = run_cli_env_ok(SIM_ENV, PROFILE_ARGS("--if-older-than", "1h"));
    assert_contains(r.out, "profile     bollinger\n");
    free_result(&r);
    char mpath[256], tpath[256];
    state_path(mpath, sizeof mpath, "multigpu.json");
    state_path(tpath, sizeof tpath, "thresholds.json");
    size_t n1, t1;
    char *before = read_all(mpath, &n1);
    char *tbefore = read_all(tpath, &t1);
    struct stat st1, st2;
    cr_assert_eq(stat(mpath, &st1), 0);
    /* A rewrite a second later would carry another updated_at. */
    sleep(1);
    r = run_cli_env_ok(SIM_ENV, PROFILE_ARGS("--if-older-than", "1h"));
    assert_contains(r.out, "bollinger: profile is ");
    assert_contains(r.out, " old (younger than 1h), skipped\n");
    cr_assert_null(strstr(r.out, "profile     bollinger"), "profiled again: %s", r.out);
    free_result(&r);
    r = run_cli_env_ok(SIM_ENV, PROFILE_ARGS("--if-older-than", "7d", "--json"));
    json_t *j = parse_json(&r);
    cr_assert_eq(json_array_size(get(j, "profiles")), 0);
    json_t *skipped = get(j, "skipped");
    cr_assert_eq(json_array_size(skipped), 1);
    cr_assert_str_eq(json_string_value(get(json_array_get(skipped, 0), "tag")), "bollinger");
    const double age = json_number_value(get(json_array_get(skipped, 0), "age_s"));
    cr_assert(age >= 0 && age < 600, "age_s %g", age);
    json_decref(j);
    free_result(&r);
    size_t n2, t2;
    char *after = read_all(mpath, &n2);
    char *tafter = read_all(tpath, &t2);
    cr_assert(n1 == n2 && memcmp(before, after, n1) == 0, "multigpu.json was rewritten");
    cr_assert(t1 == t2 && memcmp(tbefore, tafter, t1) == 0, "thresholds.json was rewritten");
    cr_assert_eq(stat(mpath, &st2), 0);
    cr_assert(st1.st_mtim.tv_sec == st2.st_mtim.tv_sec &&
                  st1.st_mtim.tv_nsec == st2.st_mtim.tv_nsec,
              "multigpu.json was touched");
    cr_assert_eq(st1.st_ino, st2.st_ino, "multigpu.json was replaced");
    free(before);
    free(after);
    free(tbefore);
    free(tafter);

    /* A kernel without a stored profile is profiled; the fresh one is still skipped. */
    r = run_cli_env_ok(SIM_ENV, ARGS("profile", "--kernels", "bollinger,macd", "--sizes",
                                     "100000,400000", "--runs", "3", "--if-older-than", "1h"));
    assert_contains(r.out, "bollinger: profile is ");
    assert_contains(r.out, "profile     macd\n");
    free_result(&r);
    j = load_json_file(mpath);
    get(get(get(j, "workloads"), "macd"), "devices");
    get(get(j, "workloads"), "bollinger");
    json_decref(j);
}

/* On a busy machine (a load average of 64, bound over /proc/loadavg in a private mount
 * namespace that the tool inherits: root only, else skipped) the load is warned about
 * before a kernel is measured, and not at all by a run that measures nothing because every
 * profile is fresh (--if-older-than). */
Test(cli, profile_warns_of_the_load_only_when_it_measures, .timeout = 120) {
    make_work_dir();
    const char *loadavg = work_path("loadavg");
    write_text(loadavg, "64.00 64.00 64.00 1/100 1\n");
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount(loadavg, "/proc/loadavg", NULL, MS_BIND, NULL) != 0)
        cli_skip("a load average of our own needs a private mount namespace (root): %s",
                 strerror(errno));
    snprintf(mounted, sizeof mounted, "/proc/loadavg");
    /* Sizes 30 times apart: their times grow even in the ThreadSanitizer build on a busy
     * machine, where 1e5 and 2e5 samples both took 25 ms and the profile was refused. */
    const char *const *profile =
        ARGS("profile", "--devices", "cpu", "--kernels", "bollinger", "--sizes", "100000,3000000",
             "--runs", "2", "--if-older-than", "1h");
    cli_result r = run_cli(profile);
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    assert_contains(r.out, "profile     bollinger\n");
    assert_contains(r.err, "load average");
    free_result(&r);
    r = run_cli(profile);
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    assert_contains(r.out, " old (younger than 1h), skipped\n");
    cr_assert_null(strstr(r.err, "load average"), "warned of the load, measuring nothing: %s",
                   r.err);
    free_result(&r);
}

Test(cli, profile_usage_errors_exit_2_and_write_nothing, .timeout = 60) {
    const cli_usage_case cases[] = {
        {ARGS("profile", "--sizes", "5"),
         "apportion: --sizes '5': at least two distinct sizes are needed"},
        {ARGS("profile", "--sizes", "5,5"),
         "apportion: --sizes '5,5': at least two distinct sizes are needed"},
        {ARGS("profile", "--sizes", "5,x"), "apportion: --sizes: 'x' is not a positive integer"},
        {ARGS("profile", "--sizes", "0,5"), "apportion: --sizes: '0' is not a positive integer"},
        {ARGS("profile", "--sizes", "5,,6"), "apportion: --sizes '5,,6': empty item"},
        {ARGS("profile", "--runs", "0"), "apportion: --runs '0': expected an integer from 1"},
        {ARGS("profile", "--sample-size", "-3"),
         "apportion: --sample-size '-3': expected a positive integer"},
        {ARGS("profile", "--if-older-than", "12"), "apportion: --if-older-than '12': expected"},
        {ARGS("profile", "--if-older-than", "1.5h"), "apportion: --if-older-than '1.5h': expected"},
        {ARGS("profile", "--if-older-than", "7w"), "apportion: --if-older-than '7w': expected"},
        {ARGS("profile", "--if-older-than", "0s"), "apportion: --if-older-than '0s': expected"},
        {ARGS("profile", "--if-older-than", " 7d"), "apportion: --if-older-than ' 7d': expected"},
        {ARGS("profile", "--kernels", "bollinger,bollinger"),
         "apportion: --kernels: bollinger is given twice"},
        {ARGS("profile", "--kernels", ""), "apportion: --kernels '': empty item"},
        {ARGS("profile", "--bogus"), "apportion: unknown option '--bogus'"},
        {ARGS("profile", "extra"), "apportion: unexpected argument 'extra'"},
        {ARGS("profile", "--runs"), "apportion: option --runs needs a value"},
    };
    assert_usage_errors(SIM_ENV, cases, sizeof cases / sizeof cases[0]);
    /* An unknown kernel is the library's verdict, given before anything is measured. */
    cli_result r = run_cli_env(
        SIM_ENV, ARGS("profile", "--kernels", "bollinger,nosuch", "--sizes", "100000,400000"));
    cr_assert_eq(r.status, 2, "status %d: %s", r.status, r.err);
    assert_contains(r.err, "APO_ERR_UNKNOWN_KERNEL");
    cr_assert_eq(r.out_len, 0, "stdout %s", r.out);
    free_result(&r);
    char mpath[256];
    state_path(mpath, sizeof mpath, "multigpu.json");
    cr_assert(!file_exists(mpath), "a usage error wrote %s", mpath);
}

Test(cli, profile_that_cannot_write_fails_after_the_report, .timeout = 120) {
    /* The profile folder is a file: measured, then not stored. */
    make_work_dir();
    char mpath[256];
    const char *blocker = work_path("blocker");
    write_text(blocker, "x");
    snprintf(mpath, sizeof mpath, "APPORTION_MULTIGPU_PROFILE_PATH=%s/multigpu.json", blocker);
    cli_result r = run_cli_env(
        ENV(SIM_DEVICES, "APPORTION_SIM_CLOCK=virtual", mpath),
        ARGS("profile", "--kernels", "bollinger", "--sizes", "100000,400000", "--runs", "3"));
    cr_assert_eq(r.status, 1, "status %d: %s", r.status, r.err);
    assert_contains(r.out, "profile     bollinger\n");
    assert_contains(r.out, "\nsim:a ");
    assert_contains(r.err, "bollinger: the profile could not be stored");
    assert_contains(r.err, "APO_ERR_IO");
    free_result(&r);
}
