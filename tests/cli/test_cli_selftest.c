/*
 * apportion selftest (cli/cmd_selftest.c): help and usage errors, a pass without a GPU
 * that says so (in the slow suite: test_cli_selftest_slow.c), and APPORTION_USE_GPU=yes
 * without a GPU.
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

Test(cli, selftest_help_and_usage_errors, .timeout = 60) {
    cli_result r = run_cli_ok(ARGS("selftest", "--help"));
    cr_assert(strncmp(r.out, "Usage: apportion selftest", 25) == 0, "%s", r.out);
    cr_assert_eq(r.err_len, 0);
    free_result(&r);
    r = run_cli(ARGS("--help"));
    assert_contains(r.out, "  selftest ");
    free_result(&r);
    const cli_usage_case cases[] = {
        {ARGS("selftest", "--bogus"), "apportion: unknown option '--bogus'"},
        {ARGS("selftest", "extra"), "apportion: unexpected argument 'extra'"},
        {ARGS("selftest", "--sizes"), "apportion: option --sizes needs a value"},
        {ARGS("selftest", "--sizes", "0"), "apportion: --sizes: '0' is not a shape"},
        {ARGS("selftest", "--sizes", "3x"), "apportion: --sizes: '3x' is not a shape"},
        {ARGS("selftest", "--sizes", "10,,20"), "apportion: --sizes '10,,20': empty item"},
        {ARGS("selftest", "--seed", "-1"), "apportion: --seed '-1': expected an integer"},
        {ARGS("selftest", "--gpu-memory-mb", "3"),
         "apportion: --gpu-memory-mb '3': expected an integer from 4 to 1048576"},
    };
    assert_usage_errors(NULL, cases, sizeof cases / sizeof cases[0]);
    /* A device list the library refuses is a usage error too, with the library's message. */
    r = run_cli(ARGS("selftest", "--devices", "bogus:1"));
    cr_assert_eq(r.status, 2, "status %d (%s)", r.status, r.err);
    assert_contains(r.err, "apportion: cannot create the runtime: ");
    assert_contains(r.err, "(APO_ERR_BAD_DEVICE_SPEC)");
    cr_assert_eq(r.out_len, 0);
    free_result(&r);
}

Test(cli, selftest_with_use_gpu_yes_and_no_gpu_fails, .timeout = 60) {
    if (gpu_count() > 0)
        return;
    cli_result r = run_cli_env(ENV("APPORTION_USE_GPU=yes"), ARGS("selftest"));
    cr_assert_eq(r.status, 1, "status %d: %s", r.status, r.err);
    assert_contains(r.err, "apportion: cannot create the runtime: ");
    assert_contains(r.err, "(APO_ERR_GPU_REQUIRED)");
    cr_assert_eq(r.out_len, 0, "%s", r.out);
    free_result(&r);
}
