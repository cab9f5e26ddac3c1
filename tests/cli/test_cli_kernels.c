/*
 * apportion kernels (cli/cmd_kernels.c): every built-in with its parameters, the
 * nearest name for an unknown kernel, bad kernel parameters.
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

Test(cli, bad_kernel_parameter_is_a_usage_error, .timeout = 60) {
    cli_result r =
        run_cli(ARGS("run", "--kernel", "bollinger", "--param", "period=1", "--devices", "cpu"));
    cr_assert_eq(r.status, 2, "%s", r.err);
    assert_contains(r.err, "period");
    assert_contains(r.err, "APO_ERR_BAD_PARAM");
    cr_assert_eq(r.out_len, 0);
    free_result(&r);
    run_cli_refused(ARGS("run", "--kernel", "bollinger", "--param", "colour=3", "--devices", "cpu"),
                    "colour");
    r = run_cli(ARGS("run", "--kernel", "nosuchkernel", "--devices", "cpu"));
    cr_assert_eq(r.status, 2, "%s", r.err);
    assert_contains(r.err, "nosuchkernel");
    assert_contains(r.err, "APO_ERR_UNKNOWN_KERNEL");
    free_result(&r);
}

/* The built-ins and their parameters as docs/kernels.md lists them, written here apart from
 * the library's tables. */
static const char *const builtin_kernels[][4] = {
    {"bollinger", "period", "nbdev_up", "nbdev_dn"},
    {"macd", "fastperiod", "slowperiod", "signalperiod"},
    {"returns_stats", NULL, NULL, NULL},
    {"bootstrap", "replicates", NULL, NULL},
};

Test(cli, kernels_lists_every_builtin_with_its_parameters, .timeout = 60) {
    make_work_dir();
    cli_result r = run_cli_ok(ARGS("kernels"));
    for (size_t k = 0; k < 4; k++) {
        assert_contains(r.out, builtin_kernels[k][0]);
        for (size_t p = 1; p < 4 && builtin_kernels[k][p] != NULL; p++)
            assert_contains(r.out, builtin_kernels[k][p]);
    }
    assert_contains(r.out, "period=20 (integer from 2 to ");
    assert_contains(r.out, "halo     19 at the defaults; period - 1");
    assert_contains(r.out, "halo     the whole row");
    free_result(&r);

    r = run_cli_ok(ARGS("kernels", "--json"));
    json_t *j = parse_json(&r);
    json_t *list = get(j, "kernels");
    cr_assert_geq(json_array_size(list), 4);
    for (size_t k = 0; k < 4; k++) {
        const json_t *found = NULL;
        for (size_t i = 0; i < json_array_size(list); i++)
            if (strcmp(json_string_value(get(json_array_get(list, i), "name")),
                       builtin_kernels[k][0]) == 0)
                found = json_array_get(list, i);
        cr_assert_not_null(found, "kernel %s missing", builtin_kernels[k][0]);
        const json_t *params = get(found, "params");
        size_t want = 0;
        while (want < 3 && builtin_kernels[k][want + 1] != NULL)
            want++;
        cr_assert_eq(json_array_size(params), want, "%s", builtin_kernels[k][0]);
        for (size_t p = 0; p < want; p++) {
            cr_assert_str_eq(json_string_value(get(json_array_get(params, p), "name")),
                             builtin_kernels[k][p + 1]);
            const json_t *param = json_array_get(params, p);
            cr_assert(json_is_number(get(param, "default")));
            cr_assert(json_is_boolean(get(param, "integer")));
            cr_assert(json_is_number(get(param, "min")) || json_is_null(get(param, "min")));
        }
        const json_t *halo = get(found, "halo");
        cr_assert(json_is_integer(get(halo, "at_defaults")));
        cr_assert(json_is_boolean(get(halo, "whole_row")));
        if (strcmp(builtin_kernels[k][0], "bollinger") == 0) {
            cr_assert_eq(json_integer_value(get(halo, "at_defaults")), 19);
            cr_assert_eq(json_real_value(get(json_array_get(params, 0), "min")), 2);
            cr_assert(json_is_true(get(json_array_get(params, 0), "integer")));
        }
        json_t *inputs = get(found, "inputs");
        cr_assert(json_is_array(inputs) && json_array_size(inputs) == 1);
        cr_assert_str_eq(json_string_value(json_array_get(inputs, 0)), "close");
        cr_assert_geq(json_array_size(get(found, "outputs")), 1);
    }
    json_decref(j);
    free_result(&r);
}

Test(cli, unknown_kernel_suggests_the_nearest_name, .timeout = 60) {
    make_work_dir();
    cli_result r =
        run_cli(ARGS("run", "--kernel", "bolinger", "--cols", "100", "--devices", "cpu"));
    cr_assert_eq(r.status, 2);
    assert_contains(r.err, "APO_ERR_UNKNOWN_KERNEL");
    assert_contains(r.err, "did you mean \"bollinger\"?");
    free_result(&r);
    r = run_cli(ARGS("kernels", "MCAD"));
    cr_assert_eq(r.status, 2);
    assert_contains(r.err, "did you mean \"macd\"?");
    free_result(&r);
    r = run_cli(ARGS("profile", "--kernels", "macd,bollingr", "--devices", "cpu"));
    cr_assert_eq(r.status, 2, "%s", r.err);
    assert_contains(r.err, "did you mean \"bollinger\"?");
    free_result(&r);
    /* Nothing near: no suggestion at all. */
    r = run_cli(ARGS("run", "--kernel", "zzzzzzzz", "--cols", "100", "--devices", "cpu"));
    cr_assert_eq(r.status, 2);
    cr_assert_null(strstr(r.err, "did you mean"), "%s", r.err);
    free_result(&r);
}

/* A kernel's name in any case (docs/cli.md): `kernels RSI` describes rsi, and `run --kernel
 * Rsi` writes the bits of `run --kernel rsi` into files and a report that name it rsi. */
Test(cli, kernel_names_in_any_case, .timeout = 60) {
    make_work_dir();
    cli_result r = run_cli_ok(ARGS("kernels", "RSI", "--json"));
    json_t *j = parse_json(&r);
    json_t *kernels = get(j, "kernels");
    cr_assert_eq(json_array_size(kernels), 1);
    cr_assert_str_eq(json_string_value(get(json_array_get(kernels, 0), "name")), "rsi");
    json_decref(j);
    free_result(&r);
    const char *names[2] = {"rsi", "Rsi"};
    char *bits[2];
    size_t lens[2];
    for (int k = 0; k < 2; k++) {
        char out[128], file[160];
        snprintf(out, sizeof out, "%s/out_%d", work, k);
        r = run_cli_ok(ARGS("run", "--kernel", names[k], "--rows", "2", "--cols", "3000", "--param",
                            "timeperiod=9", "--devices", "cpu", "--no-learn", "--output", out,
                            "--json"));
        j = parse_json(&r);
        cr_assert_str_eq(json_string_value(get(j, "kernel")), "rsi");
        json_decref(j);
        free_result(&r);
        snprintf(file, sizeof file, "%s/rsi.f64", out);
        bits[k] = read_file_n(file, &lens[k]);
        cr_assert_eq(lens[k], 2 * 3000 * sizeof(double), "%s", names[k]);
    }
    cr_assert_eq(memcmp(bits[0], bits[1], lens[0]), 0);
    free(bits[0]);
    free(bits[1]);
}
