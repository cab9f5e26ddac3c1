/*
 * apportion selftest (cli/cmd_selftest.c), a whole pass: the tool checks every kernel on the
 * cpu against its reference, which takes more CPU than any other case of the command line
 * (about 15 s), so it runs in the slow suite (tests/README.md, "The budget"); the other
 * selftest cases are in test_cli_selftest.c.
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

/* `selftest` checks the cpu (and any sim device) against the cpu reference and passes; on
 * a machine without a GPU it says that no GPU was found and why, exits 0, and does not say
 * "selftest passed": nothing about a GPU was checked. */
Test(cli, selftest_passes_and_says_when_there_is_no_gpu, .timeout = 300) {
    const size_t gpus = gpu_count();
    cli_result r = run_cli_ok(ARGS("selftest"));
    assert_contains(r.out, "kernel bollinger ");
    assert_contains(r.out, " cpu ");
    cr_assert_null(strstr(r.out, " FAIL "), "%s", r.out);
    if (gpus == 0) {
        assert_contains(r.out, "no GPU found: ");
        assert_contains(r.out, "no GPU was checked");
        assert_contains(r.out, "selftest: no GPU to check; the cpu and simulated devices gave "
                               "the reference's bits\n");
        cr_assert_null(strstr(r.out, "selftest passed"), "%s", r.out);
    } else {
        assert_contains(r.out, "selftest passed\n");
        cr_assert_null(strstr(r.out, "no GPU found"), "%s", r.out);
    }
    free_result(&r);

    /* --json: one object with every check; a sim device is checked too. */
    r = run_cli_ok(ARGS("selftest", "--json", "--sizes", "4097,2x3001", "--seed", "9", "--devices",
                        "cpu,sim:x:rate=1e9"));
    cr_assert_eq(r.err_len, 0, "stderr: %s", r.err);
    json_t *j = parse_json(&r);
    cr_assert(json_is_true(get(j, "ok")));
    cr_assert_str_eq(json_string_value(get(j, "verdict")), "no-gpu");
    cr_assert(json_is_false(get(j, "gpu_available")));
    cr_assert_eq(json_integer_value(get(j, "gpu_count")), 0);
    cr_assert_eq(json_integer_value(get(j, "gpus_passed")), 0);
    const char *why = json_string_value(get(j, "no_gpu_reason"));
    cr_assert_not_null(why);
    assert_contains(why, "GPU");
    cr_assert_eq(json_integer_value(get(j, "seed")), 9);
    cr_assert_eq(json_array_size(get(j, "sizes")), 2);
    cr_assert_eq(json_integer_value(get(j, "failed")), 0);
    json_t *checks = get(j, "checks");
    size_t cpu_checks = 0, sim_checks = 0, split_checks = 0;
    for (size_t i = 0; i < json_array_size(checks); i++) {
        json_t *c = json_array_get(checks, i);
        const char *result = json_string_value(get(c, "result"));
        const char *device = json_string_value(get(c, "device"));
        const char *check = json_string_value(get(c, "check"));
        cr_assert(strcmp(result, "pass") == 0 || strcmp(result, "skip") == 0, "check %zu: %s %s", i,
                  result, json_string_value(get(c, "detail")));
        if (strcmp(result, "pass") == 0)
            cr_assert_eq(json_integer_value(get(c, "values_differ")), 0);
        cpu_checks += strcmp(device, "cpu") == 0;
        sim_checks += strcmp(device, "sim:x") == 0;
        split_checks += strcmp(check, "split") == 0;
        get(c, "kernel");
        get(c, "rows");
        get(c, "cols");
        get(c, "detail");
    }
    /* Four kernels on two shapes, per device, and all devices together. */
    cr_assert_eq(cpu_checks, 8);
    cr_assert_eq(sim_checks, 8);
    cr_assert_eq(split_checks, 8);
    cr_assert_eq((size_t)json_integer_value(get(j, "passed")), json_array_size(checks));
    json_decref(j);
    free_result(&r);
}
