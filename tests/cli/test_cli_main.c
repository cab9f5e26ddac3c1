/*
 * The command line as a whole (cli/main.c): help and version, unknown commands and
 * options, missing and bad values, options given twice, malformed APPORTION_* variables.
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

Test(cli, help_exits_0_on_every_command, .timeout = 60) {
    const char *const *cases[] = {
        ARGS("--help"),        ARGS("-h"),        ARGS("devices", "--help"),
        ARGS("run", "--help"), ARGS("run", "-h"), ARGS("run", "--kernel", "bollinger", "--help")};
    const char *want[] = {"Usage: apportion <command>", "Usage: apportion <command>",
                          "Usage: apportion devices",   "Usage: apportion run",
                          "Usage: apportion run",       "Usage: apportion run"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cli_result r = run_cli(cases[i]);
        cr_assert_eq(r.status, 0, "case %zu: status %d, stderr %s", i, r.status, r.err);
        cr_assert(strncmp(r.out, want[i], strlen(want[i])) == 0, "case %zu: %s", i, r.out);
        cr_assert_eq(r.err_len, 0, "case %zu: stderr %s", i, r.err);
        free_result(&r);
    }
}

Test(cli, version_names_tool_and_library, .timeout = 60) {
    cli_result r = run_cli_ok(ARGS("--version"));
    cr_assert_str_eq(r.out, "apportion 0.2.0 (libapportion 0.2.0)\n");
    free_result(&r);
}

Test(cli, unknown_command_is_a_usage_error, .timeout = 60) {
    cli_result r = run_cli(ARGS("frobnicate"));
    cr_assert_eq(r.status, 2);
    cr_assert_str_eq(r.err, "apportion: unknown command 'frobnicate'\nTry 'apportion --help'.\n");
    cr_assert_eq(r.out_len, 0);
    free_result(&r);
    r = run_cli((const char *const[]){NULL});
    cr_assert_eq(r.status, 2);
    assert_contains(r.err, "apportion: missing command");
    free_result(&r);
}

Test(cli, unknown_option_is_a_usage_error, .timeout = 60) {
    run_cli_refused(ARGS("--bogus"), "apportion: unknown option '--bogus'");
    cli_result r = run_cli(ARGS("devices", "--bogus"));
    cr_assert_eq(r.status, 2);
    cr_assert_str_eq(r.err,
                     "apportion: unknown option '--bogus'\nTry 'apportion devices --help'.\n");
    free_result(&r);
    run_cli_refused(ARGS("run", "--kernel", "bollinger", "--frobnicate"),
                    "apportion: unknown option '--frobnicate'");
    run_cli_refused(ARGS("devices", "extra"), "apportion: unexpected argument 'extra'");
}

Test(cli, missing_values_and_bad_numbers_are_usage_errors, .timeout = 60) {
    const cli_usage_case cases[] = {
        {ARGS("run"), "apportion: missing --kernel"},
        {ARGS("run", "--kernel"), "apportion: option --kernel needs a value"},
    };
    assert_usage_errors(NULL, cases, sizeof cases / sizeof cases[0]);
    /* The rest give a kernel: their words follow "run --kernel bollinger". */
    const cli_usage_case after_kernel[] = {
        {ARGS("--output", "--json"), "apportion: option --output needs a value"},
        {ARGS("--rows", "x"), "apportion: --rows 'x': expected a positive integer"},
        {ARGS("--cols", "0"), "apportion: --cols '0': expected a positive integer"},
        {ARGS("--cols=12abc"), "apportion: --cols '12abc': expected a positive integer"},
        {ARGS("--seed", "-1"),
         "apportion: --seed '-1': expected an integer from 0 to 18446744073709551615"},
        {ARGS("--param", "period=2x"),
         "apportion: --param 'period=2x': '2x' is not a finite number"},
        {ARGS("--param", "period"), "apportion: --param 'period': expected NAME=VALUE"},
        {ARGS("--param", "period=5", "--param", "period=6"),
         "apportion: --param period is given twice"},
        {ARGS("--split", "diagonal"), "apportion: --split 'diagonal': expected rows, time or auto"},
        {ARGS("--format", "csv"), "apportion: --format needs --output"},
        {ARGS("--output", "o", "--format", "xml"),
         "apportion: --format 'xml': expected f64 or csv"},
        {ARGS("--input", "x.csv", "--cols", "5"),
         "apportion: --cols cannot be combined with --input"},
        {ARGS("--column", "close"), "apportion: --column needs --input"},
    };
    assert_usage_errors_after(NULL, ARGS("run", "--kernel", "bollinger"), after_kernel,
                              sizeof after_kernel / sizeof after_kernel[0]);
}

/* An option that takes one value, given twice, used to take the last value silently (only a
 * repeated --param was an error): every such option is refused now. */
Test(cli, options_that_take_one_value_are_refused_twice, .timeout = 60) {
    const char *const *cases[] = {
        ARGS("run", "--kernel", "macd", "--kernel", "bollinger"),
        ARGS("run", "--kernel", "macd", "--cols", "100", "--cols=200"),
        ARGS("run", "--kernel", "macd", "--input", "a.csv", "--column", "a", "--column", "b"),
        ARGS("run", "--kernel", "macd", "--output", "a", "--output", "b"),
        ARGS("run", "--kernel", "macd", "--ratios", "cpu=1", "--ratios", "cpu=2"),
        ARGS("run", "--kernel=macd", "--devices", "cpu", "--devices", "cpu"),
        ARGS("profile", "--runs", "2", "--runs", "3"),
        ARGS("set-ratios", "--workload", "macd", "--workload", "bollinger", "cpu=1"),
        ARGS("devices", "--devices", "cpu", "--devices=cpu"),
        ARGS("show", "--devices", "cpu", "--devices", "cpu"),
    };
    const char *option[] = {"--kernel",  "--cols", "--column",   "--output",  "--ratios",
                            "--devices", "--runs", "--workload", "--devices", "--devices"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cli_result r = run_cli(cases[i]);
        cr_assert_eq(r.status, 2, "case %zu: status %d (%s)", i, r.status, r.err);
        char want[128];
        snprintf(want, sizeof want, "apportion: option %s is given twice (it takes one value)\n",
                 option[i]);
        cr_assert(strncmp(r.err, want, strlen(want)) == 0, "case %zu: %s", i, r.err);
        free_result(&r);
    }
    /* --param may be repeated, once per name. */
    cli_result r = run_cli_ok(ARGS("run", "--kernel", "macd", "--cols", "100", "--param", "fast=5",
                                   "--param", "slow=10", "--json"));
    free_result(&r);
}

/* A hostile environment at the command line: every malformed APPORTION_* setting at once is
 * warned about on stderr, each naming its variable and value, and the run still succeeds
 * with the defaults, its output the same bits as a run without them. */
Test(cli, malformed_variables_are_warned_about_and_the_run_goes_on, .timeout = 120) {
    make_work_dir();
    const char *clean_dir = work_path("clean"), *hostile_dir = work_path("hostile");
    run_cli_env_ok_free(SIM_ENV, ARGS("run", "--kernel", "macd", "--rows", "3", "--cols", "5000",
                                      "--output", clean_dir));
    cli_result r = run_cli_env_ok(
        ENV(SIM_DEVICES, "APPORTION_SIM_CLOCK=sideways", "APPORTION_CPU_THREADS=-3",
            "APPORTION_USE_GPU=perhaps", "APPORTION_GPU_MEMORY_MB=2",
            "APPORTION_PROFILES=sometimes", "APPORTION_LEARN=2", "APPORTION_PERSIST_INTERVAL=nan"),
        ARGS("run", "--kernel", "macd", "--rows", "3", "--cols", "5000", "--output", hostile_dir));
    static const char *const shown[] = {
        "APPORTION_SIM_CLOCK=\"sideways\" ignored: expected wall or virtual",
        "APPORTION_CPU_THREADS=\"-3\" ignored: expected an integer from 1 to 1024",
        "APPORTION_USE_GPU=\"perhaps\" ignored: expected auto, yes or no",
        "APPORTION_GPU_MEMORY_MB=\"2\" ignored: expected MiB from 4 to 1048576",
        "APPORTION_PROFILES=\"sometimes\" ignored: expected 1 or 0 (on, off)",
        "APPORTION_LEARN=\"2\" ignored: expected 1 or 0 (on, off)",
        "APPORTION_PERSIST_INTERVAL=\"nan\" ignored: expected seconds, more than 0 and at most "
        "86400",
    };
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++)
        assert_contains(r.err, shown[i]);
    free_result(&r);
    static const char *const outputs[] = {"macd", "signal", "hist"};
    assert_same_outputs(clean_dir, hostile_dir, outputs, 3,
                        "differs under the hostile environment");
}
