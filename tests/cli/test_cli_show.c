/*
 * apportion show (cli/cmd_show.c): no profiles, a corrupt profile reported as ignored, the
 * entries after a profile, a deeply nested profile kept aside.
 * Each case runs the built tool as a subprocess (cli_fixtures.h).
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

Test(cli, show_without_profiles_says_so, .timeout = 60) {
    cli_result r = run_cli_env_ok(SIM_ENV, ARGS("show"));
    assert_contains_each(r.out, PARTS("no profile yet: run 'apportion profile'",
                                      "multigpu.json: missing", "thresholds.json: missing"));
    free_result(&r);
    r = run_cli_env_ok(SIM_ENV, ARGS("show", "--json"));
    json_t *j = parse_json(&r);
    json_t *m = get(j, "multigpu");
    cr_assert_str_eq(json_string_value(get(m, "state")), "missing");
    cr_assert_eq(json_array_size(get(m, "workloads")), 0);
    cr_assert_str_eq(json_string_value(get(get(j, "thresholds"), "state")), "missing");
    cr_assert(json_is_true(get(j, "empty")));
    json_decref(j);
    free_result(&r);
    run_cli_env_refused(SIM_ENV, ARGS("show", "--bogus"), "Try 'apportion show --help'.");
}

Test(cli, show_reports_a_corrupt_profile_as_ignored, .timeout = 60) {
    char dir[256], mpath[256];
    state_path(dir, sizeof dir, "");
    cr_assert_eq(mkdir(dir, 0700), 0, "mkdir %s: %s", dir, strerror(errno));
    state_path(mpath, sizeof mpath, "multigpu.json");
    write_text(mpath, "{\"format\": \"apportion.multigpu/1\", \"workloads\": [tru");
    cli_result r = run_cli_env_ok(SIM_ENV, ARGS("show"));
    assert_contains(r.out, "multigpu.json: ignored");
    assert_contains(r.out, "run 'apportion profile'");
    free_result(&r);
    r = run_cli_env_ok(SIM_ENV, ARGS("show", "--json"));
    cr_assert_eq(r.err_len, 0, "stderr: %s", r.err);
    json_t *j = parse_json(&r);
    json_t *m = get(j, "multigpu");
    cr_assert_str_eq(json_string_value(get(m, "state")), "ignored");
    const char *why = json_string_value(get(m, "message"));
    cr_assert(why != NULL && why[0] != '\0', "no reason given");
    json_decref(j);
    free_result(&r);
}

Test(cli, show_after_profile_lists_the_entry, .timeout = 120) {
    cli_result r = run_cli_env_ok(SIM_ENV, PROFILE_ARGS("--json"));
    free_result(&r);
    r = run_cli_env_ok(SIM_ENV, ARGS("show", "--json"));
    json_t *j = parse_json(&r);
    json_t *m = get(j, "multigpu");
    const json_field file[] = {JSON_STR("state", "loaded"), JSON_FALSE("threadx")};
    assert_json_fields(m, file, 2, "multigpu");
    cr_assert(json_is_false(get(j, "empty")));
    json_t *ws = get(m, "workloads");
    cr_assert_eq(json_array_size(ws), 1);
    json_t *w = json_array_get(ws, 0);
    const json_field entry[] = {JSON_STR("tag", "bollinger"), JSON_STR("source", "profile"),
                                JSON_FALSE("stale"), JSON_NULL("stale_reason"),
                                JSON_INT("sample_size", 400000)};
    assert_json_fields(w, entry, sizeof entry / sizeof entry[0], "the workload");
    const double age = json_number_value(get(w, "age_s"));
    cr_assert(age > -5 && age < 600, "age_s %g", age);
    json_t *devs = get(w, "devices");
    cr_assert_eq(json_array_size(devs), 2);
    cr_assert_str_eq(json_string_value(get(json_array_get(devs, 0), "id")), "sim:a");
    cr_assert_str_eq(json_string_value(get(json_array_get(devs, 1), "id")), "sim:b");
    assert_model(json_array_get(devs, 1), 1.0, 1e3 / 3e2);
    json_t *t = get(j, "thresholds");
    cr_assert_str_eq(json_string_value(get(t, "state")), "loaded");
    cr_assert_gt(json_array_size(get(t, "entries")), 0);
    json_t *e = json_array_get(get(t, "entries"), 0);
    get(e, "key");
    get(e, "cpu_ms_avg");
    get(e, "gpu_ms_avg");
    get(e, "samples");
    json_decref(j);
    free_result(&r);

    /* The text says the same. */
    r = run_cli_env_ok(SIM_ENV, ARGS("show"));
    assert_contains_each(r.out, PARTS("multigpu.json: loaded", "workload bollinger\n",
                                      "  source       profile\n", "  stale        no\n", "  sim:b ",
                                      "thresholds ("));
    free_result(&r);

    /* Against another device set the entry is stale, and says why. */
    r = run_cli_env_ok(ENV("APPORTION_SIM_CLOCK=virtual"),
                       ARGS("show", "--json", "--devices", "cpu"));
    j = parse_json(&r);
    w = json_array_get(get(get(j, "multigpu"), "workloads"), 0);
    cr_assert(json_is_true(get(w, "stale")));
    cr_assert(json_is_string(get(w, "stale_reason")));
    json_decref(j);
    free_result(&r);
}

/* A profile that is hostile to the parser (100000 levels deep) at the command line: `show`
 * reports it as ignored and leaves it alone; `run` warns, naming the file, computes, and when
 * it stores what it learnt keeps the old file aside, byte for byte, as multigpu.json.corrupt. */
Test(cli, deeply_nested_profile_is_reported_and_kept_aside, .timeout = 60) {
    make_work_dir();
    char mpath[256], aside[300];
    const char *state = work_path("state");
    cr_assert_eq(mkdir(state, 0700), 0);
    snprintf(mpath, sizeof mpath, "%s/multigpu.json", state);
    snprintf(aside, sizeof aside, "%s.corrupt", mpath);
    size_t depth = 100000;
    char *text = malloc(2 * depth + 1);
    cr_assert_not_null(text);
    memset(text, '[', depth);
    memset(text + depth, ']', depth);
    text[2 * depth] = '\0';
    write_text(mpath, text);
    cli_result r = run_cli_env_ok(SIM_ENV, ARGS("show"));
    assert_contains(r.out, "ignored");
    assert_contains(r.out, "depth");
    free_result(&r);
    size_t len;
    char *after = read_all(mpath, &len);
    cr_assert(len == 2 * depth && memcmp(after, text, len) == 0, "show changed the profile");
    free(after);

    r = run_cli_env_ok(SIM_ENV, ARGS("run", "--kernel", "bollinger", "--cols", "20000"));
    assert_contains(r.err, mpath);
    assert_contains(r.err, "depth");
    free_result(&r);
    after = read_all(aside, &len);
    cr_assert(len == 2 * depth && memcmp(after, text, len) == 0, "the old profile was not kept");
    free(after);
    free(text);
}
