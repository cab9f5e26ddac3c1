/*
 * apportion set-ratios (cli/cmd_set_ratios.c): forced shares that run follows, usage
 * errors, control characters in tags, tags no call would use, clearing before any model.
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

/* Runs bollinger over `cols` columns on the simulated devices and fails unless its report's
 * ratio_source is `source` (is 1) or is not (is 0). */
static void assert_ratio_source(const char *cols, const char *source, int is) {
    cli_result r =
        run_cli_env_ok(SIM_ENV, ARGS("run", "--kernel", "bollinger", "--cols", cols, "--json"));
    json_t *j = parse_json(&r);
    const char *got = json_string_value(get(j, "ratio_source"));
    cr_assert_not_null(got, "ratio_source is not a string");
    if (is)
        cr_assert_str_eq(got, source, "ratio_source %s, want %s", got, source);
    else
        cr_assert_str_neq(got, source, "ratio_source %s after --clear", got);
    json_decref(j);
    free_result(&r);
}

Test(cli, set_ratios_forces_the_shares_of_run, .timeout = 120) {
    cli_result r = run_cli_env_ok(
        SIM_ENV, ARGS("set-ratios", "--workload", "bollinger", "sim:a=1", "sim:b=3"));
    char mpath[256];
    state_path(mpath, sizeof mpath, "multigpu.json");
    assert_contains(r.out, "bollinger: ratios forced\n");
    assert_contains(r.out, "stored in   ");
    assert_contains(r.out, mpath);
    free_result(&r);
    cr_assert(file_exists(mpath));

    r = run_cli_env_ok(SIM_ENV, ARGS("run", "--kernel", "bollinger", "--cols", "400000", "--json"));
    json_t *j = parse_json(&r);
    cr_assert_str_eq(json_string_value(get(j, "ratio_source")), "explicit");
    json_t *devs = get(j, "devices");
    cr_assert_eq(json_array_size(devs), 2);
    const double want[] = {0.25, 0.75};
    for (size_t i = 0; i < 2; i++) {
        const double share = json_number_value(get(json_array_get(devs, i), "share"));
        cr_assert(fabs(share - want[i]) < 1e-9, "share %zu = %g", i, share);
    }
    json_decref(j);
    free_result(&r);

    r = run_cli_env_ok(SIM_ENV, ARGS("show", "--json"));
    j = parse_json(&r);
    json_t *w = json_array_get(get(get(j, "multigpu"), "workloads"), 0);
    cr_assert_str_eq(json_string_value(get(w, "tag")), "bollinger");
    cr_assert_str_eq(json_string_value(get(w, "source")), "explicit");
    json_decref(j);
    free_result(&r);

    /* Items may be comma separated; a ratio of 0 leaves a device out. */
    run_cli_env_ok_free(SIM_ENV, ARGS("set-ratios", "--workload=macd", "sim:a=0,sim:b=2"));
    r = run_cli_env_ok(SIM_ENV, ARGS("run", "--kernel", "macd", "--cols", "100000", "--json"));
    j = parse_json(&r);
    cr_assert_str_eq(json_string_value(get(j, "ratio_source")), "explicit");
    cr_assert_eq(json_integer_value(get(json_array_get(get(j, "devices"), 0), "elements")), 0);
    json_decref(j);
    free_result(&r);

    /* --clear: the run no longer takes forced ratios. */
    r = run_cli_env_ok(SIM_ENV, ARGS("set-ratios", "--workload", "bollinger", "--clear"));
    assert_contains(r.out, "bollinger: forced ratios cleared");
    free_result(&r);
    assert_ratio_source("400000", "explicit", 0);
    r = run_cli_env_ok(SIM_ENV, ARGS("set-ratios", "--workload", "bollinger", "--clear"));
    assert_contains(r.out, "bollinger: no forced ratios were stored; nothing to clear");
    free_result(&r);
}

Test(cli, set_ratios_usage_errors_exit_2, .timeout = 60) {
    const cli_usage_case cases[] = {
        {ARGS("set-ratios", "sim:a=1"), "apportion: missing --workload"},
        {ARGS("set-ratios", "--workload", "bollinger"),
         "apportion: give at least one DEVICE=RATIO (or --clear)"},
        {ARGS("set-ratios", "--workload", "", "sim:a=1"), "apportion: --workload: empty tag"},
    };
    assert_usage_errors(SIM_ENV, cases, sizeof cases / sizeof cases[0]);
    /* The rest name the workload: their words follow "set-ratios --workload bollinger". */
    const cli_usage_case after_workload[] = {
        {ARGS("sim:a"), "apportion: item 'sim:a': expected ID=RATIO"},
        {ARGS("=1"), "apportion: item '=1': expected ID=RATIO"},
        {ARGS("sim:a=-1"), "apportion: '-1' for device sim:a is not a finite number >= 0"},
        {ARGS("sim:a=nan"), "apportion: 'nan' for device sim:a is not a finite number >= 0"},
        {ARGS("sim:a=0", "sim:b=0"), "apportion: every ratio is 0"},
        {ARGS("--clear", "sim:a=1"), "apportion: --clear takes no DEVICE=RATIO items"},
        {ARGS("sim:a=1,,sim:b=1"), "apportion: 'sim:a=1,,sim:b=1': empty item"},
        {ARGS("--json", "sim:a=1"), "apportion: unknown option '--json'"},
    };
    assert_usage_errors_after(SIM_ENV, ARGS("set-ratios", "--workload", "bollinger"),
                              after_workload, sizeof after_workload / sizeof after_workload[0]);
    /* A device this machine does not have is the library's verdict: a usage error too, with
     * the devices that exist. */
    cli_result r =
        run_cli_env(SIM_ENV, ARGS("set-ratios", "--workload", "bollinger", "sim:a=1", "sim:x=1"));
    cr_assert_eq(r.status, 2, "status %d: %s", r.status, r.err);
    assert_contains_each(
        r.err, PARTS("apportion: cannot set the ratios of bollinger: ", "APO_ERR_INVALID_ARGUMENT",
                     "the devices of this run are: sim:a"));
    cr_assert_eq(r.out_len, 0);
    free_result(&r);
    r = run_cli_env(SIM_ENV, ARGS("set-ratios", "--workload", "bollinger", "sim:a=1", "sim:a=2"));
    cr_assert_eq(r.status, 2, "status %d: %s", r.status, r.err);
    free_result(&r);
    char mpath[256];
    state_path(mpath, sizeof mpath, "multigpu.json");
    cr_assert(!file_exists(mpath), "a refused set-ratios wrote %s", mpath);
}

/* Whether text holds a control byte other than the line feed. */
static int has_control_byte(const char *text, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)text[i] < 0x20 && text[i] != '\n') || text[i] == 0x7f)
            return 1;
    return 0;
}

/* A workload tag with control characters: refused by set-ratios, and shown escaped by show
 * and in run's warnings when a profile holds one anyway (written by hand or by an older
 * version). Before, `show` cleared the screen and printed a fake line. */
Test(cli, control_characters_in_tags_are_refused_and_shown_escaped, .timeout = 60) {
    const char *evil = "evil\033[2J\nfake line";
    cli_result r = run_cli_env(
        SIM_ENV, ARGS("set-ratios", "--workload", evil, "--custom-tag", "sim:a=1", "sim:b=3"));
    cr_assert_eq(r.status, 2, "status %d: %s", r.status, r.err);
    assert_contains(r.err, "apportion: --workload 'evil\\x1b[2J\\x0afake line': the tag holds "
                           "the control character 0x1b");
    cr_assert(!has_control_byte(r.err, r.err_len), "raw control bytes: %s", r.err);
    free_result(&r);
    char mpath[256];
    state_path(mpath, sizeof mpath, "multigpu.json");
    cr_assert(!file_exists(mpath), "a refused set-ratios wrote %s", mpath);

    /* A profile that holds such a tag: stored under a good one, renamed in the file. */
    run_cli_env_ok_free(
        SIM_ENV, ARGS("set-ratios", "--workload", "mytag", "--custom-tag", "sim:a=1", "sim:b=3"));
    json_t *profile = load_json_file(mpath);
    json_t *workloads = get(profile, "workloads");
    json_object_set(workloads, evil, get(workloads, "mytag"));
    json_object_del(workloads, "mytag");
    cr_assert_eq(json_dump_file(profile, mpath, 0), 0);
    json_decref(profile);

    r = run_cli_env_ok(SIM_ENV, ARGS("show"));
    assert_contains(r.out, "\nworkload evil\\x1b[2J\\x0afake line\n");
    cr_assert(!has_control_byte(r.out, r.out_len), "raw control bytes: %s", r.out);
    cr_assert_null(strstr(r.out, "\nfake line"), "a fake line: %s", r.out);
    free_result(&r);
    /* Against other devices the entry is stale, and run's warning names it. */
    r = run_cli_env_ok(ENV("APPORTION_DEVICES=sim:c", "APPORTION_SIM_CLOCK=virtual"),
                       ARGS("run", "--kernel", "bollinger", "--cols", "1000"));
    assert_contains(r.err, "first: evil\\x1b[2J\\x0afake line (");
    cr_assert(!has_control_byte(r.err, r.err_len), "raw control bytes: %s", r.err);
    free_result(&r);
}

/* set-ratios for a tag that nothing uses (a typo) used to be stored and never applied. */
Test(cli, set_ratios_refuses_a_tag_no_call_would_use, .timeout = 60) {
    run_cli_env_refused(
        SIM_ENV, ARGS("set-ratios", "--workload", "bolinger", "sim:a=1", "sim:b=3"),
        "apportion: --workload bolinger: no kernel has this name and no workload of this tag is "
        "stored, so no call would use these ratios; did you mean bollinger?");
    char mpath[256];
    state_path(mpath, sizeof mpath, "multigpu.json");
    cr_assert(!file_exists(mpath), "a refused set-ratios wrote %s", mpath);
    /* A tag of the caller's own, said so: stored, and from then on known. */
    run_cli_env_ok_free(
        SIM_ENV, ARGS("set-ratios", "--workload", "nightly", "--custom-tag", "sim:a=1", "sim:b=3"));
    run_cli_env_ok_free(SIM_ENV, ARGS("set-ratios", "--workload", "nightly", "sim:a=1", "sim:b=1"));
}

Test(cli, set_ratios_clear_before_any_model_leaves_no_entry, .timeout = 60) {
    cli_result r =
        run_cli_env_ok(SIM_ENV, ARGS("set-ratios", "--workload", "bollinger", "sim:a=1,sim:b=3"));
    assert_contains_each(r.out, PARTS("  sim:a ", " 0.250 ", " 0.750 "));
    free_result(&r);
    r = run_cli_env_ok(SIM_ENV, ARGS("set-ratios", "--workload", "bollinger", "--clear"));
    assert_contains(r.out, "bollinger: forced ratios cleared");
    free_result(&r);
    r = run_cli_env_ok(SIM_ENV, ARGS("show", "--json"));
    json_t *j = parse_json(&r);
    cr_assert_eq(json_array_size(get(get(j, "multigpu"), "workloads")), 0);
    json_decref(j);
    free_result(&r);
    assert_ratio_source("1000", "equal", 1);
}

/* ---- GPU discovery and `selftest` (they run for real on a machine without a GPU) ----------- */
