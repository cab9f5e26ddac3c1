/*
 * apportion run (cli/cmd_run.c), the report: every JSON key, step times, the text report,
 * simulated devices, identical outputs across device sets, TA-Lib's values, refusals,
 * explicit ratios, seeds, failover, quarantine and deadlines, --no-learn.
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

static const char *const report_keys[] = {"kernel",        "rows",
                                          "cols",          "seed",
                                          "split_axis",    "ratio_source",
                                          "makespan_ms",   "balance_efficiency",
                                          "simulated",     "virtual_clock",
                                          "tile",          "tiles",
                                          "elements",      "failovers",
                                          "warnings",      "outputs",
                                          "devices",       "deadlines_missed",
                                          "quarantined",   "nonfinite_outputs",
                                          "read_input_ms", "prepare_ms",
                                          "compute_ms",    "write_output_ms"};

static const char *const device_keys[] = {"id",
                                          "label",
                                          "kind",
                                          "share",
                                          "elements",
                                          "tiles",
                                          "wall_ms",
                                          "first_touch_ms",
                                          "h2d_ms",
                                          "kernel_ms",
                                          "d2h_ms",
                                          "host_copy_ms",
                                          "overlap",
                                          "threads_offered",
                                          "wait_ms",
                                          "throughput",
                                          "failed",
                                          "failure",
                                          "elements_moved_out",
                                          "elements_moved_in",
                                          "simulated",
                                          "deadline_missed",
                                          "deadline_ms",
                                          "quarantined",
                                          "quarantine_reason"};

Test(cli, run_json_report_has_every_key, .timeout = 60) {
    cli_result r =
        run_cli_ok(ARGS("run", "--kernel", "bollinger", "--rows", "2", "--cols", "5000", "--json"));
    cr_assert_eq(r.err_len, 0, "stderr: %s", r.err);
    json_t *j = parse_json(&r);
    for (size_t i = 0; i < sizeof report_keys / sizeof report_keys[0]; i++)
        get(j, report_keys[i]);
    cr_assert_str_eq(json_string_value(get(j, "kernel")), "bollinger");
    cr_assert_eq(json_integer_value(get(j, "rows")), 2);
    cr_assert_eq(json_integer_value(get(j, "cols")), 5000);
    cr_assert_eq(json_integer_value(get(j, "seed")), 1);
    cr_assert_eq(json_integer_value(get(j, "elements")), 10000);
    const char *axis = json_string_value(get(j, "split_axis"));
    cr_assert(strcmp(axis, "rows") == 0 || strcmp(axis, "time") == 0, "axis %s", axis);
    const char *src = json_string_value(get(j, "ratio_source"));
    cr_assert(strcmp(src, "equal") == 0 || strcmp(src, "profile") == 0 ||
                  strcmp(src, "online") == 0,
              "ratio source %s", src);
    cr_assert(json_real_value(get(j, "makespan_ms")) > 0);
    const double eff = json_real_value(get(j, "balance_efficiency"));
    cr_assert(eff > 0 && eff <= 1.0 + 1e-9, "efficiency %g", eff);
    cr_assert(json_is_false(get(j, "simulated")));
    cr_assert(json_is_array(get(j, "warnings")));
    cr_assert_geq(json_integer_value(get(j, "tiles")), 2);

    json_t *outs = get(j, "outputs");
    cr_assert_eq(json_array_size(outs), 3);
    const char *names[] = {"upper", "middle", "lower"};
    for (size_t i = 0; i < 3; i++) {
        json_t *o = json_array_get(outs, i);
        cr_assert_str_eq(json_string_value(get(o, "name")), names[i]);
        cr_assert_eq(json_integer_value(get(o, "rows")), 2);
        cr_assert_eq(json_integer_value(get(o, "cols")), 5000);
        cr_assert(json_is_null(get(o, "file")));
    }

    json_t *devs = get(j, "devices");
    cr_assert_geq(json_array_size(devs), 1);
    json_int_t elements = 0;
    double shares = 0;
    for (size_t i = 0; i < json_array_size(devs); i++) {
        json_t *d = json_array_get(devs, i);
        for (size_t k = 0; k < sizeof device_keys / sizeof device_keys[0]; k++)
            get(d, device_keys[k]);
        cr_assert(json_is_false(get(d, "failed")));
        cr_assert(json_is_null(get(d, "failure")));
        elements += json_integer_value(get(d, "elements"));
        shares += json_real_value(get(d, "share"));
    }
    cr_assert_eq(elements, 10000);
    cr_assert(fabs(shares - 1.0) < 1e-9, "shares sum to %g", shares);
    json_decref(j);
    free_result(&r);
}

/* The tool's own steps are timed apart from the call (docs/cli/run.md, "Memory"): each is a
 * finite number of milliseconds >= 0, and the output step is 0 when nothing is written. */
static double step_ms(const json_t *j, const char *key) {
    const json_t *v = get(j, key);
    cr_assert(json_is_real(v), "%s is not a number", key);
    const double ms = json_real_value(v);
    cr_assert(isfinite(ms) && ms >= 0, "%s is %g", key, ms);
    return ms;
}

Test(cli, run_json_times_its_steps_apart, .timeout = 60) {
    make_work_dir();
    const char *out = work_path("out");
    for (int write = 0; write < 2; write++) {
        cli_result r = write ? run_cli(ARGS("run", "--kernel", "bollinger", "--cols", "300000",
                                            "--devices", "cpu", "--output", out, "--json"))
                             : run_cli(ARGS("run", "--kernel", "bollinger", "--cols", "300000",
                                            "--devices", "cpu", "--json"));
        cr_assert_eq(r.status, 0, "%s", r.err);
        json_t *j = parse_json(&r);
        step_ms(j, "read_input_ms");
        step_ms(j, "prepare_ms");
        step_ms(j, "compute_ms");
        const double written = step_ms(j, "write_output_ms");
        if (!write)
            cr_assert_eq(written, 0.0, "nothing was written, yet %g ms", written);
        json_t *cpu = json_array_get(get(j, "devices"), 0);
        const double touch = step_ms(cpu, "first_touch_ms");
        const double wall = json_real_value(get(cpu, "wall_ms"));
        const double kernel = json_real_value(get(cpu, "kernel_ms"));
        cr_assert(fabs(wall - (touch + kernel)) <= 1e-9 * wall, "wall %g, touch %g + kernel %g",
                  wall, touch, kernel);
        json_decref(j);
        free_result(&r);
    }
    /* The text report names the same steps. */
    cli_result r =
        run_cli_ok(ARGS("run", "--kernel", "bollinger", "--cols", "3000", "--devices", "cpu"));
    assert_contains_each(r.out, PARTS("\ntimes       read input ", " ms, prepare ", " ms, compute ",
                                      " ms, write output 0.000 ms\n", " touch_ms "));
    free_result(&r);
}

Test(cli, run_text_report_lists_devices, .timeout = 60) {
    cli_result r = run_cli_ok(
        ARGS("run", "--kernel", "macd", "--cols", "20000", "--devices", "cpu", "--seed", "42"));
    assert_contains_each(r.out,
                         PARTS("kernel      macd\n", "shape       1 x 20000 (20000 elements)\n",
                               "seed        42\n", "\ncpu "));
    cr_assert_null(strstr(r.out, "note: simulated"));
    /* The device list "cpu" selects no GPU, so no warning about GPUs is due. */
    cr_assert_eq(r.err_len, 0, "stderr: %s", r.err);
    free_result(&r);
}

Test(cli, run_on_simulated_devices_says_so, .timeout = 60) {
    const char *const *env =
        ENV("APPORTION_DEVICES=sim:a:rate=1e6,sim:b:rate=2e6", "APPORTION_SIM_CLOCK=virtual");
    cli_result r = run_cli_env_ok(
        env, ARGS("run", "--kernel", "bollinger", "--rows", "2", "--cols", "5000", "--json"));
    json_t *j = parse_json(&r);
    cr_assert(json_is_true(get(j, "simulated")));
    cr_assert(json_is_true(get(j, "virtual_clock")));
    json_t *devs = get(j, "devices");
    cr_assert_eq(json_array_size(devs), 2);
    cr_assert_str_eq(json_string_value(get(json_array_get(devs, 0), "id")), "sim:a");
    cr_assert_str_eq(json_string_value(get(json_array_get(devs, 1), "id")), "sim:b");
    for (size_t i = 0; i < 2; i++) {
        json_t *d = json_array_get(devs, i);
        cr_assert(json_is_true(get(d, "simulated")));
        cr_assert_str_eq(json_string_value(get(d, "kind")), "sim");
    }
    /* The virtual clock models time exactly: sim:a computes at 1e6 elements per second. */
    json_t *a = json_array_get(devs, 0);
    const double ms = (double)json_integer_value(get(a, "elements")) / 1e6 * 1e3;
    cr_assert(fabs(json_real_value(get(a, "wall_ms")) - ms) < 1e-6 * ms, "wall %g want %g",
              json_real_value(get(a, "wall_ms")), ms);
    json_decref(j);
    free_result(&r);

    r = run_cli_env_ok(env, ARGS("run", "--kernel", "bollinger", "--cols", "5000"));
    assert_contains(r.out,
                    "note: simulated devices present; their times are modelled (virtual clock)\n");
    free_result(&r);
}

Test(cli, outputs_are_identical_across_device_sets, .timeout = 60) {
    make_work_dir();
    const char *dir_sim = work_path("sim"), *dir_cpu = work_path("cpu/nested"),
               *dir_mix = work_path("mix");
    const char *const *venv = ENV("APPORTION_SIM_CLOCK=virtual");
    cli_result r = run_cli_env_ok(
        venv, ARGS("run", "--kernel", "bollinger", "--rows", "3", "--cols", "20000", "--devices",
                   "sim:a:rate=1e6,sim:b:rate=3e6,sim:c:rate=2e6", "--output", dir_sim, "--json"));
    json_t *j = parse_json(&r);
    json_t *outs = get(j, "outputs");
    cr_assert_eq(json_array_size(outs), 3);
    char want_file[256];
    snprintf(want_file, sizeof want_file, "%s/upper.f64", dir_sim);
    cr_assert_str_eq(json_string_value(get(json_array_get(outs, 0), "file")), want_file);
    json_decref(j);
    free_result(&r);
    run_cli_ok_free(ARGS("run", "--kernel", "bollinger", "--rows", "3", "--cols", "20000",
                         "--devices", "cpu", "--output", dir_cpu));
    run_cli_env_ok_free(venv, ARGS("run", "--kernel", "bollinger", "--rows", "3", "--cols", "20000",
                                   "--devices", "cpu,sim:z:rate=1e7", "--ratios", "cpu=1,sim:z=5",
                                   "--split", "time", "--output", dir_mix));

    const char *names[] = {"upper", "middle", "lower"};
    for (size_t i = 0; i < 3; i++) {
        char a[256], b[256], c[256];
        snprintf(a, sizeof a, "%s/%s.f64", dir_sim, names[i]);
        snprintf(b, sizeof b, "%s/%s.f64", dir_cpu, names[i]);
        snprintf(c, sizeof c, "%s/%s.f64", dir_mix, names[i]);
        size_t na, nb, nc;
        char *da = read_file_n(a, &na), *db = read_file_n(b, &nb), *dc = read_file_n(c, &nc);
        cr_assert_eq(na, 3 * 20000 * sizeof(double), "%s has %zu bytes", a, na);
        cr_assert_eq(nb, na);
        cr_assert_eq(nc, na);
        cr_assert(memcmp(da, db, na) == 0, "%s differs between sim and cpu", names[i]);
        cr_assert(memcmp(da, dc, na) == 0, "%s differs between sim and cpu+sim", names[i]);
        /* The first period-1 samples of each row are NaN, the next ones are numbers. */
        const double *v = (const double *)(const void *)da;
        cr_assert(isnan(v[0]) && isnan(v[18]) && !isnan(v[19]) && isfinite(v[19]));
        cr_assert(isnan(v[20000]) && isfinite(v[20019]));
        free(da);
        free(db);
        free(dc);
    }
}

Test(cli, bollinger_on_the_talib_series_matches_talib, .timeout = 60) {
    char path[256];
    const char *out = work_path("out");
    cli_result r =
        run_cli_ok(ARGS("run", "--kernel", "bollinger", "--input",
                        APO_TEST_DATA_DIR "/talib_close252.f64", "--output", out, "--json"));
    json_t *j = parse_json(&r);
    cr_assert_eq(json_integer_value(get(j, "cols")), 252);
    cr_assert_eq(json_integer_value(get(j, "rows")), 1);
    json_decref(j);
    free_result(&r);
    const char *names[] = {"upper", "middle", "lower"};
    const double want[] = {98.0734, 92.8910, 87.7086};
    for (size_t i = 0; i < 3; i++) {
        size_t n;
        snprintf(path, sizeof path, "%s/%s.f64", out, names[i]);
        char *d = read_file_n(path, &n);
        cr_assert_eq(n, 252 * sizeof(double));
        double v19;
        memcpy(&v19, d + 19 * sizeof(double), sizeof v19);
        cr_assert(fabs(v19 - want[i]) < 0.01, "%s[19] = %.6f, TA-Lib %.4f", names[i], v19, want[i]);
        free(d);
    }
}

/* MACD on a series shorter than its warm-up gave all-NaN outputs and exit 0, while bollinger
 * refuses a period longer than the series: both refuse now, in the same words. */
Test(cli, macd_on_a_series_shorter_than_its_warmup_is_refused_like_bollinger, .timeout = 60) {
    run_cli_refused(ARGS("run", "--kernel", "macd", "--cols", "1"),
                    "apportion: invalid workload: macd: the warm-up of 34 samples (max(fast, slow) "
                    "+ signal - 1) is longer than the series (cols 1)");
    run_cli_refused(ARGS("run", "--kernel", "macd", "--cols", "5000", "--param", "slow=100000"),
                    "the warm-up of 100008 samples");
    /* The same with fast > slow (swapped by the kernel), and the shortest series that works. */
    run_cli_refused(ARGS("run", "--kernel", "macd", "--cols", "39", "--param", "fast=32"),
                    "the warm-up of 40 samples");
    run_cli_ok_free(
        ARGS("run", "--kernel", "macd", "--cols", "40", "--param", "fast=32", "--json"));
    /* At exactly the warm-up the last sample has a value in every output. */
    make_work_dir();
    const char *out = work_path("out");
    run_cli_ok_free(ARGS("run", "--kernel", "macd", "--cols", "34", "--output", out));
    const char *names[] = {"macd", "signal", "hist"};
    for (size_t i = 0; i < 3; i++) {
        char file[256];
        size_t n;
        snprintf(file, sizeof file, "%s/%s.f64", out, names[i]);
        char *d = read_all(file, &n);
        const double *v = (const double *)(const void *)d;
        cr_assert(n == 34 * sizeof(double) && isfinite(v[33]) && isnan(v[32]), "%s", names[i]);
        free(d);
    }
    run_cli_refused(
        ARGS("run", "--kernel", "bollinger", "--cols", "5"),
        "apportion: invalid workload: bollinger: period 20 is longer than the series (cols 5)");
}

/* Silent overflow (docs/kernels.md, "Range"): 40 samples near 1e160 (bollinger's bands
 * overflow) and near 1.7e308 (macd's seeds overflow) run, exit 0, write what was computed,
 * and say so on stderr and in --json; ordinary samples and NaN gaps say nothing. */
Test(cli, outputs_beyond_the_range_are_reported, .timeout = 60) {
    make_work_dir();
    static const struct {
        const char *kernel;
        double scale;
        const char *missing; /* a cell every 9 rows, or NULL */
        long long expected;  /* nonfinite_outputs */
    } cases[] = {
        {"bollinger", 1e160, NULL, 42},
        {"macd", 1.7e308, NULL, 21},
        {"bollinger", 100, "NA", 0},
        {"macd", 100, "NA", 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char path[128];
        snprintf(path, sizeof path, "%s/in%zu.csv", work, c);
        char text[4096];
        size_t o = (size_t)snprintf(text, sizeof text, "close\n");
        for (int i = 0; i < 40; i++) {
            if (cases[c].missing != NULL && i % 9 == 4)
                o += (size_t)snprintf(text + o, sizeof text - o, "%s\n", cases[c].missing);
            else
                o += (size_t)snprintf(text + o, sizeof text - o, "%.17g\n",
                                      cases[c].scale * (1.0 + 0.02 * sin((double)i)));
        }
        write_text(path, text);
        for (int json = 0; json < 2; json++) {
            cli_result r = json ? run_cli(ARGS("run", "--kernel", cases[c].kernel, "--input", path,
                                               "--missing-as-nan", "--json"))
                                : run_cli(ARGS("run", "--kernel", cases[c].kernel, "--input", path,
                                               "--missing-as-nan"));
            cr_assert_eq(r.status, 0, "%s", r.err);
            int warned = strstr(r.err, "are not finite although every input sample") != NULL;
            cr_assert_eq(warned, cases[c].expected > 0, "%s at %g: stderr: %s", cases[c].kernel,
                         cases[c].scale, r.err);
            if (cases[c].expected > 0) {
                char count[64];
                snprintf(count, sizeof count, "apportion: warning: %lld output value(s) of %s",
                         cases[c].expected, cases[c].kernel);
                assert_contains(r.err, count);
            }
            if (json) {
                json_t *j = parse_json(&r);
                cr_assert_eq(json_integer_value(get(j, "nonfinite_outputs")), cases[c].expected,
                             "%s at %g", cases[c].kernel, cases[c].scale);
                json_t *warnings = get(j, "warnings");
                int listed = 0;
                for (size_t w = 0; w < json_array_size(warnings); w++)
                    listed |= strstr(json_string_value(json_array_get(warnings, w)),
                                     "are not finite although") != NULL;
                cr_assert_eq(listed, cases[c].expected > 0, "%s: warnings", cases[c].kernel);
                json_decref(j);
            } else {
                assert_contains(r.out, "kernel");
            }
            free_result(&r);
        }
    }
}

/* Messages and leftovers of refused runs: ratios whose sum overflows are said to, all-zero
 * ratios leave no output folder behind, a bound prints as 1e+300, and a self-test whose
 * every check was skipped (sizes too large for memory) does not pass. */
Test(cli, refused_runs_say_why_and_leave_nothing, .timeout = 60) {
    run_cli_refused(ARGS("run", "--kernel", "bollinger", "--cols", "1000", "--devices", "cpu,sim:a",
                         "--ratios", "cpu=1e308,sim:a=1e308"),
                    "the ratios sum to inf (beyond the largest double): scale them down");

    make_work_dir();
    char out[160];
    const char *top = work_path("new");
    snprintf(out, sizeof out, "%s/deeper", top);
    run_cli_refused(ARGS("run", "--kernel", "bollinger", "--cols", "1000", "--devices", "cpu,sim:a",
                         "--ratios", "cpu=0,sim:a=0", "--output", out),
                    "the ratios sum to 0: at least one must be positive");
    struct stat st;
    cr_assert_neq(stat(top, &st), 0, "the refused run left %s behind", top);

    run_cli_refused(
        ARGS("run", "--kernel", "bollinger", "--cols", "1000", "--param", "nbdev_up=1e301"),
        "parameter nbdev_up must be from -1e+300 to 1e+300, got 1e+301");

    /* 800 GB that malloc() cannot give: under AddressSanitizer and ThreadSanitizer too,
     * which otherwise abort rather than return NULL. */
    char asan[512], tsan[512];
    const char *inherited = getenv("ASAN_OPTIONS");
    snprintf(asan, sizeof asan, "ASAN_OPTIONS=%s%sallocator_may_return_null=1",
             inherited != NULL ? inherited : "", inherited != NULL ? ":" : "");
    inherited = getenv("TSAN_OPTIONS");
    snprintf(tsan, sizeof tsan, "TSAN_OPTIONS=%s%sallocator_may_return_null=1",
             inherited != NULL ? inherited : "", inherited != NULL ? ":" : "");
    cli_result r = run_cli_env(ENV(asan, tsan),
                               ARGS("selftest", "--sizes", "100000000000", "--devices", "cpu"));
    cr_assert_eq(r.status, 1, "status %d: %s", r.status, r.out);
    assert_contains(r.out, "0 passed, 0 failed, 0 warnings, 4 skipped\n");
    assert_contains(r.out, "selftest FAILED: no check passed (every one was skipped)\n");
    cr_assert_null(strstr(r.out, "selftest passed"), "%s", r.out);
    free_result(&r);
    r = run_cli_env(ENV(asan, tsan),
                    ARGS("selftest", "--sizes", "100000000000", "--devices", "cpu", "--json"));
    cr_assert_eq(r.status, 1, "status %d: %s", r.status, r.err);
    json_t *j = parse_json(&r);
    cr_assert(json_is_false(get(j, "ok")));
    json_decref(j);
    free_result(&r);
}

Test(cli, ratios_are_explicit_shares_by_device_id, .timeout = 60) {
    const char *const *env = ENV("APPORTION_SIM_CLOCK=virtual");
    cli_result r =
        run_cli_env_ok(env, ARGS("run", "--kernel", "bollinger", "--cols", "400000", "--devices",
                                 "sim:a:rate=1e6,sim:b:rate=1e6,sim:c:rate=1e6", "--ratios",
                                 "sim:c=3,sim:a=1", "--json"));
    json_t *j = parse_json(&r);
    cr_assert_str_eq(json_string_value(get(j, "ratio_source")), "explicit");
    json_t *devs = get(j, "devices");
    cr_assert_eq(json_array_size(devs), 3);
    const double want[] = {0.25, 0.0, 0.75};
    for (size_t i = 0; i < 3; i++) {
        json_t *d = json_array_get(devs, i);
        cr_assert(fabs(json_real_value(get(d, "share")) - want[i]) < 1e-9, "share %zu = %g", i,
                  json_real_value(get(d, "share")));
    }
    cr_assert_eq(json_integer_value(get(json_array_get(devs, 1), "elements")), 0);
    json_decref(j);
    free_result(&r);

    struct {
        const char *ratios;
        const char *msg;
    } bad[] = {
        {"sim:a=1,sim:x=1", "apportion: --ratios: no device 'sim:x' in this run (devices: "
                            "sim:a, sim:b, sim:c)"},
        {"sim:a=abc", "apportion: --ratios: 'abc' for device sim:a is not a finite number >= 0"},
        {"sim:a=-1", "apportion: --ratios: '-1' for device sim:a is not a finite number >= 0"},
        {"sim:a=1,,sim:b=1", "apportion: --ratios 'sim:a=1,,sim:b=1': empty item"},
        {"sim:a", "apportion: --ratios: item 'sim:a': expected ID=RATIO"},
        {"sim:a=1,sim:a=2", "apportion: --ratios: device sim:a is given twice"},
        {"cuda:0=1", "apportion: --ratios: no device 'cuda:0' in this run"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        /* The devices of the first run: other rates would add a warning about the models
         * it stored (their configuration changed) before the message. */
        r = run_cli_env(env, ARGS("run", "--kernel", "bollinger", "--cols", "1000", "--devices",
                                  "sim:a:rate=1e6,sim:b:rate=1e6,sim:c:rate=1e6", "--ratios",
                                  bad[i].ratios));
        cr_assert_eq(r.status, 2, "case %zu: %d %s", i, r.status, r.err);
        cr_assert(strncmp(r.err, bad[i].msg, strlen(bad[i].msg)) == 0, "case %zu: %s", i, r.err);
        free_result(&r);
    }
    /* All-zero ratios are refused by the library: a usage error too. */
    run_cli_env_refused(env,
                        ARGS("run", "--kernel", "bollinger", "--cols", "1000", "--devices",
                             "sim:a,sim:b", "--ratios", "sim:a=0"),
                        "APO_ERR_INVALID_ARGUMENT");
}

Test(cli, generated_input_depends_on_the_seed_only, .timeout = 60) {
    make_work_dir();
    char p1[256], p2[256], p3[256];
    const char *d1 = work_path("s1"), *d2 = work_path("s1b"), *d3 = work_path("s2");
    const char *seeds[] = {"5", "5", "6"};
    const char *dirs[] = {d1, d2, d3};
    for (size_t i = 0; i < 3; i++) {
        run_cli_ok_free(ARGS("run", "--kernel", "bollinger", "--cols", "3000", "--seed", seeds[i],
                             "--devices", "cpu", "--output", dirs[i]));
    }
    snprintf(p1, sizeof p1, "%s/middle.f64", d1);
    snprintf(p2, sizeof p2, "%s/middle.f64", d2);
    snprintf(p3, sizeof p3, "%s/middle.f64", d3);
    size_t n1, n2, n3;
    char *a = read_file_n(p1, &n1), *b = read_file_n(p2, &n2), *c = read_file_n(p3, &n3);
    cr_assert_eq(n1, 3000 * sizeof(double));
    cr_assert(n1 == n2 && memcmp(a, b, n1) == 0);
    cr_assert(n1 == n3 && memcmp(a, c, n1) != 0);
    /* The walk starts at 100 and moves less than 1 a step: the first mean is near 100. */
    double m;
    memcpy(&m, a + 19 * sizeof(double), sizeof m);
    cr_assert(m > 80 && m < 120, "middle[19] = %g", m);
    free(a);
    free(b);
    free(c);
}

Test(cli, failover_is_reported_per_device, .timeout = 60) {
    make_work_dir();
    const char *d1 = work_path("lost"), *d2 = work_path("cpu");
    const char *const *env = ENV("APPORTION_SIM_CLOCK=virtual");
    cli_result r = run_cli_env_ok(
        env, ARGS("run", "--kernel", "bollinger", "--cols", "200000", "--devices",
                  "sim:a:rate=1e8,sim:b:rate=1e8:fail_after=2", "--output", d1, "--json"));
    json_t *j = parse_json(&r);
    cr_assert_eq(json_integer_value(get(j, "failovers")), 1);
    json_t *a = json_array_get(get(j, "devices"), 0);
    json_t *b = json_array_get(get(j, "devices"), 1);
    cr_assert(json_is_false(get(a, "failed")));
    cr_assert(json_is_true(get(b, "failed")));
    const char *why = json_string_value(get(b, "failure"));
    cr_assert(why != NULL && why[0] != '\0');
    const json_int_t moved = json_integer_value(get(b, "elements_moved_out"));
    cr_assert_gt(moved, 0);
    cr_assert_eq(json_integer_value(get(a, "elements_moved_in")), moved);
    cr_assert_eq(json_integer_value(get(a, "elements")) + json_integer_value(get(b, "elements")),
                 200000);
    json_decref(j);
    free_result(&r);

    /* The text report marks the failed device, and the results equal a CPU-only run. */
    r = run_cli_env_ok(env, ARGS("run", "--kernel", "bollinger", "--cols", "200000", "--devices",
                                 "sim:a:rate=1e8,sim:b:rate=1e8:fail_after=2"));
    assert_contains(r.out, "failovers   1\n");
    assert_contains(r.out, "FAILED: ");
    free_result(&r);
    run_cli_ok_free(ARGS("run", "--kernel", "bollinger", "--cols", "200000", "--devices", "cpu",
                         "--output", d2));
    size_t n1;
    free(read_output(d1, "lower", &n1));
    cr_assert_eq(n1, 200000 * sizeof(double));
    static const char *const lower[] = {"lower"};
    assert_same_outputs(d1, d2, lower, 1, "changed by the failover");
}

Test(cli, quarantine_and_deadlines_are_reported, .timeout = 60) {
    /* sim:a fails every task (quarantined after one call), sim:b never answers (abandoned
     * at the 1 s floor); sim:c carries the call, and the results equal a cpu run. The floor
     * is c's deadline too: 1 s, not 0.2 s, so that a busy machine cannot make c miss it and
     * fail the call. */
    make_work_dir();
    const char *d1 = work_path("faulty"), *d2 = work_path("cpu");
    const char *const *env = ENV("APPORTION_SIM_CLOCK=virtual", "APPORTION_QUARANTINE_AFTER=1",
                                 "APPORTION_DEADLINE_FLOOR=1");
    const char *devices = "sim:a:flaky=1,sim:b:hang_after=1,sim:c";
    cli_result r = run_cli_env_ok(env, ARGS("run", "--kernel", "macd", "--cols", "100000",
                                            "--devices", devices, "--output", d1, "--json"));
    json_t *j = parse_json(&r);
    cr_assert_eq(json_integer_value(get(j, "failovers")), 2);
    cr_assert_eq(json_integer_value(get(j, "deadlines_missed")), 1);
    cr_assert_eq(json_integer_value(get(j, "quarantined")), 2);
    json_t *devs = get(j, "devices");
    json_t *a = json_array_get(devs, 0), *b = json_array_get(devs, 1), *c = json_array_get(devs, 2);
    cr_assert(json_is_true(get(a, "quarantined")) && json_is_false(get(a, "deadline_missed")));
    assert_contains(json_string_value(get(a, "quarantine_reason")), "failed in 1 of its calls");
    cr_assert(json_is_true(get(b, "quarantined")) && json_is_true(get(b, "deadline_missed")));
    cr_assert_eq(json_real_value(get(b, "deadline_ms")), 1000.0);
    assert_contains(json_string_value(get(b, "failure")), "deadline missed");
    assert_contains(json_string_value(get(b, "quarantine_reason")), "missed its deadline");
    cr_assert(json_is_false(get(c, "quarantined")) && json_is_null(get(c, "quarantine_reason")));
    json_decref(j);
    free_result(&r);

    r = run_cli_env_ok(env,
                       ARGS("run", "--kernel", "macd", "--cols", "100000", "--devices", devices));
    assert_contains_each(r.out, PARTS("deadlines   1 missed\n", "quarantined 2\n",
                                      "; QUARANTINED: missed its deadline"));
    free_result(&r);

    run_cli_ok_free(
        ARGS("run", "--kernel", "macd", "--cols", "100000", "--devices", "cpu", "--output", d2));
    static const char *const names[] = {"macd", "signal", "hist"};
    assert_same_outputs(d1, d2, names, 3, "differs from the cpu run");
}

/* ---- profile, show, set-ratios ---------------------------------------------------------- */

/* The report's per-device objects carry `chunks`: pieces the work was staged in (GPUs) or
 * tasks (cpu and sim devices). */
Test(cli, run_json_devices_have_chunks, .timeout = 60) {
    cli_result r =
        run_cli_ok(ARGS("run", "--kernel", "bollinger", "--rows", "2", "--cols", "50000",
                        "--devices", "cpu,sim:a:rate=1e9", "--ratios", "cpu=1,sim:a=1", "--json"));
    json_t *j = parse_json(&r);
    json_t *devices = get(j, "devices");
    cr_assert_eq(json_array_size(devices), 2);
    for (size_t i = 0; i < 2; i++) {
        json_t *chunks = get(json_array_get(devices, i), "chunks");
        cr_assert(json_is_integer(chunks));
        cr_assert_geq(json_integer_value(chunks), 1);
    }
    json_decref(j);
    free_result(&r);
}

/* `run --no-learn` uses the stored models but leaves them as they are: no refinement, no
 * file written; a plain run refines them and writes them back. */
Test(cli, run_no_learn_leaves_the_profile_alone, .timeout = 60) {
    char mpath[256];
    state_path(mpath, sizeof mpath, "multigpu.json");
    run_cli_env_ok_free(SIM_ENV,
                        ARGS("run", "--kernel", "bollinger", "--cols", "100000", "--no-learn"));
    cr_assert(!file_exists(mpath), "run --no-learn wrote %s", mpath);

    run_cli_env_ok_free(SIM_ENV, ARGS("run", "--kernel", "bollinger", "--cols", "100000"));
    cr_assert(file_exists(mpath), "a plain run stored nothing in %s", mpath);
    size_t before_len = 0;
    char *before = read_all(mpath, &before_len);

    cli_result r = run_cli_env_ok(
        SIM_ENV, ARGS("run", "--kernel", "bollinger", "--cols", "100000", "--no-learn", "--json"));
    json_t *j = parse_json(&r);
    cr_assert_str_eq(json_string_value(get(j, "ratio_source")), "online",
                     "the stored models are still used");
    json_decref(j);
    free_result(&r);
    size_t after_len = 0;
    char *after = read_all(mpath, &after_len);
    cr_assert(after_len == before_len && memcmp(after, before, before_len) == 0,
              "run --no-learn changed %s", mpath);
    free(after);

    /* Without the option the same run refines the models, and the file changes. */
    run_cli_env_ok_free(SIM_ENV, ARGS("run", "--kernel", "bollinger", "--cols", "100000"));
    after = read_all(mpath, &after_len);
    cr_assert(after_len != before_len || memcmp(after, before, before_len) != 0,
              "a plain run left %s as it was", mpath);
    free(after);
    free(before);
}

/* ---- kernels, many series, the index column (issue 19) --------------------------------- */
