/*
 * apportion devices (cli/cmd_devices.c): the cpu, its vector path, simulated devices,
 * why there is no GPU, APPORTION_USE_GPU=yes without one, bad device lists.
 * Each case runs the built tool as a subprocess (cli_fixtures.h).
 */
#define _GNU_SOURCE /* unshare(), CLONE_NEWNS and mount() for the small-disk cases */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
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

/* Copies the JSON warning that says why no GPU is in use ("no GPU in use: <why>; ...") into
 * `out`; returns 0, `out` empty, when there is none. */
static int no_gpu_warning(const json_t *warnings, char *out, size_t size) {
    out[0] = '\0';
    for (size_t i = 0; i < json_array_size(warnings); i++) {
        const char *w = json_string_value(json_array_get(warnings, i));
        if (w != NULL && strncmp(w, "no GPU in use: ", 15) == 0 && strlen(w) > 15)
            snprintf(out, size, "%s", w);
    }
    return out[0] != '\0';
}

Test(cli, devices_json_lists_the_cpu_and_says_why_no_gpu, .timeout = 60) {
    cli_result r = run_cli_ok(ARGS("devices", "--json"));
    /* With --json the warnings go into the object, not to stderr. */
    cr_assert_eq(r.err_len, 0, "stderr: %s", r.err);
    json_t *j = parse_json(&r);
    json_t *count = get(j, "gpu_count");
    cr_assert(json_is_integer(count));
    json_t *available = get(j, "gpu_available");
    cr_assert(json_is_boolean(available));
    json_t *warnings = get(j, "warnings");
    cr_assert(json_is_array(warnings));
    json_t *devices = get(j, "devices");
    cr_assert(json_is_array(devices));
    cr_assert_geq(json_array_size(devices), 1);
    int cpu_seen = 0;
    size_t cuda_seen = 0;
    for (size_t i = 0; i < json_array_size(devices); i++) {
        json_t *d = json_array_get(devices, i);
        const char *id = json_string_value(get(d, "id"));
        const char *kind = json_string_value(get(d, "kind"));
        cr_assert_not_null(id);
        cr_assert_not_null(json_string_value(get(d, "label")));
        cr_assert(json_integer_value(get(d, "memory_total_mb")) > 0);
        cr_assert(json_integer_value(get(d, "memory_free_mb")) <=
                  json_integer_value(get(d, "memory_total_mb")));
        if (strcmp(kind, "cpu") == 0) {
            cpu_seen = 1;
            cr_assert_str_eq(id, "cpu");
            cr_assert_geq(json_integer_value(get(d, "threads")), 1);
        } else if (strcmp(kind, "cuda") == 0) {
            cuda_seen++;
            cr_assert_str_eq(json_string_value(get(d, "uuid")), id);
            cr_assert(strncmp(id, "GPU-", 4) == 0, "uuid %s", id);
            const char *cc = json_string_value(get(d, "compute_capability"));
            cr_assert_not_null(cc);
            cr_assert_not_null(strchr(cc, '.'), "compute capability %s", cc);
        }
    }
    cr_assert(cpu_seen, "no cpu device: %s", r.out);
    cr_assert_eq((size_t)json_integer_value(count), cuda_seen);
    if (cuda_seen == 0) {
        cr_assert(json_is_false(available));
        cr_assert_geq(json_array_size(warnings), 1, "no warning says why no GPU is used");
        int explained = 0;
        for (size_t i = 0; i < json_array_size(warnings); i++)
            explained |= strstr(json_string_value(json_array_get(warnings, i)), "GPU") != NULL;
        cr_assert(explained, "no warning mentions the GPU: %s", r.out);
    } else {
        cr_assert(json_is_true(available));
    }
    json_decref(j);
    free_result(&r);
}

/* The cpu's label names its vector path, APPORTION_CPU_ISA forces one, and the details list
 * the paths (docs/kernels-vector-paths.md, "Vector paths"); every x86-64 CPU has sse2. */
Test(cli, devices_name_the_cpu_vector_path, .timeout = 60) {
    cli_result r = run_cli_env_ok(ENV("APPORTION_CPU_ISA=sse2"),
                                  ARGS("devices", "--devices", "cpu:threads=1"));
    assert_contains(r.out, "cpu (1 thread, sse2)");
    assert_contains(r.out, "vector paths of this CPU: sse2");
    free_result(&r);
    r = run_cli_ok(ARGS("devices", "--json", "--devices", "cpu"));
    json_t *j = parse_json(&r);
    json_t *cpu = json_array_get(get(j, "devices"), 0);
    json_t *paths = get(cpu, "vector_paths");
    cr_assert(json_is_array(paths) && json_array_size(paths) >= 1);
    cr_assert_str_eq(json_string_value(json_array_get(paths, 0)), "sse2");
    /* The label ends with the fastest path listed, which a run without the variable uses. */
    const char *fastest = json_string_value(json_array_get(paths, json_array_size(paths) - 1));
    char tail[32];
    snprintf(tail, sizeof tail, ", %s)", fastest);
    const char *label = json_string_value(get(cpu, "label"));
    cr_assert(strstr(label, tail) != NULL, "label %s, paths end with %s", label, fastest);
    json_decref(j);
    free_result(&r);
}

Test(cli, devices_table_names_the_cpu_and_the_gpu_count, .timeout = 60) {
    const size_t gpus = gpu_count();
    cli_result r = run_cli_ok(ARGS("devices"));
    cr_assert(strncmp(r.out, "#   id", 6) == 0, "%s", r.out);
    assert_contains(r.out, "\n0   ");
    assert_contains(r.out, " cpu ");
    char line[64];
    snprintf(line, sizeof line, "GPUs usable: %zu", gpus);
    assert_contains(r.out, line);
    if (gpus == 0) {
        /* The reason is on the count line, and said only there. */
        assert_contains(r.out, "GPUs usable: 0 (");
        cr_assert_eq(r.err_len, 0, "stderr: %s", r.err);
    }
    free_result(&r);
}

Test(cli, devices_shows_simulated_devices, .timeout = 60) {
    cli_result r =
        run_cli_ok(ARGS("devices", "--json", "--devices",
                        "sim:x:rate=5e6:latency=2ms:fail_after=3:flaky=0.125:seed=9:hang_after=4"));
    json_t *j = parse_json(&r);
    json_t *devices = get(j, "devices");
    cr_assert_eq(json_array_size(devices), 1);
    const json_field fields[] = {JSON_STR("id", "sim:x"),
                                 JSON_STR("kind", "sim"),
                                 JSON_TRUE("simulated"),
                                 JSON_REAL("rate", 5e6, 0),
                                 JSON_REAL("latency_ms", 2.0, 1e-12),
                                 JSON_INT("fail_after", 3),
                                 JSON_REAL("flaky", 0.125, 0),
                                 JSON_INT("seed", 9),
                                 JSON_INT("hang_after", 4)};
    assert_json_fields(json_array_get(devices, 0), fields, sizeof fields / sizeof fields[0],
                       "the simulated device");
    cr_assert_eq(json_integer_value(get(j, "gpu_count")), 0);
    json_decref(j);
    free_result(&r);
}

Test(cli, use_gpu_yes_without_a_gpu_fails_clearly, .timeout = 60) {
    const size_t gpus = gpu_count();
    cli_result r = run_cli_env(ENV("APPORTION_USE_GPU=yes"), ARGS("devices"));
    if (gpus > 0) {
        cr_assert_eq(r.status, 0, "%s", r.err);
    } else {
        cr_assert_eq(r.status, 1, "status %d: %s", r.status, r.err);
        cr_assert(strncmp(r.err, "apportion: cannot create the runtime: ", 38) == 0, "%s", r.err);
        assert_contains(r.err, "APPORTION_USE_GPU=yes");
        assert_contains(r.err, "APO_ERR_GPU_REQUIRED");
        cr_assert_eq(r.out_len, 0);
    }
    free_result(&r);
}

Test(cli, bad_device_spec_is_a_usage_error_naming_the_item, .timeout = 60) {
    cli_result r =
        run_cli(ARGS("run", "--kernel", "bollinger", "--devices", "cpu,bogus:1", "--json"));
    cr_assert_eq(r.status, 2, "%s", r.err);
    assert_contains_each(r.err, PARTS("apportion: cannot create the runtime: ", "\"bogus:1\"",
                                      "APO_ERR_BAD_DEVICE_SPEC"));
    cr_assert_eq(r.out_len, 0);
    free_result(&r);
    r = run_cli_env(ENV("APPORTION_DEVICES=cpu,sim:"), ARGS("devices"));
    cr_assert_eq(r.status, 2, "%s", r.err);
    assert_contains(r.err, "\"sim:\"");
    free_result(&r);
}

/* `devices` and `devices --json` succeed and, without a GPU, say why in both forms. */
Test(cli, devices_text_and_json_say_why_there_is_no_gpu, .timeout = 60) {
    cli_result r = run_cli_ok(ARGS("devices", "--json"));
    json_t *j = parse_json(&r);
    const json_int_t gpus = json_integer_value(get(j, "gpu_count"));
    json_t *warnings = get(j, "warnings");
    char reason[1024] = "";
    if (gpus == 0) {
        cr_assert(json_is_false(get(j, "gpu_available")));
        /* One warning names the cause: "no GPU in use: <why>". */
        cr_assert(no_gpu_warning(warnings, reason, sizeof reason),
                  "no warning names why no GPU is used: %s", r.out);
    } else {
        cr_assert(json_is_true(get(j, "gpu_available")));
    }
    json_decref(j);
    free_result(&r);

    r = run_cli_ok(ARGS("devices"));
    if (gpus == 0) {
        /* The same cause on the count line, said once in the whole command. */
        char line[1100];
        snprintf(line, sizeof line, "GPUs usable: 0 (%s", reason);
        assert_contains(r.out, line);
        cr_assert_null(strstr(strstr(r.out, reason) + 1, reason), "said twice: %s", r.out);
        cr_assert_null(strstr(r.err, reason), "said on stderr too: %s", r.err);
    }
    free_result(&r);
}

/* A machine with no GPU to offer (no NVIDIA driver, or a build without CUDA) is what
 * `devices` and the JSON outputs say, not a warning on every command; a GPU that the device
 * list names, or a driver that yields none, still warns, once (docs/cli.md, "No GPU"). */
Test(cli, a_machine_without_a_gpu_is_no_warning_on_every_run, .timeout = 60) {
    cli_result r = run_cli_ok(ARGS("devices", "--json"));
    json_t *j = parse_json(&r);
    char reason[1024];
    const int no_gpu = no_gpu_warning(get(j, "warnings"), reason, sizeof reason);
    json_decref(j);
    free_result(&r);
    if (!no_gpu)
        cli_skip("this machine uses a GPU: no warning about its absence to judge");
    /* The two causes docs/cuda.md words so; any other (a driver that sees no GPU, one too
     * old) is a fault that every run still reports. */
    const int none_here = strstr(reason, "no NVIDIA driver is installed") != NULL ||
                          strstr(reason, "has no CUDA backend") != NULL;

    r = run_cli_ok(ARGS("devices"));
    char line[1100];
    snprintf(line, sizeof line, "GPUs usable: 0 (%s", reason);
    assert_contains(r.out, line);
    free_result(&r);

    r = run_cli_ok(ARGS("run", "--kernel", "bollinger", "--cols", "100"));
    if (none_here)
        cr_assert_null(strstr(r.err, "no GPU in use"), "a plain run warns: %s", r.err);
    else
        assert_contains(r.err, reason);
    free_result(&r);

    /* The JSON report still carries it, for whoever reads the run's record. */
    r = run_cli_ok(ARGS("run", "--kernel", "bollinger", "--cols", "100", "--json"));
    j = parse_json(&r);
    char in_report[1024];
    cr_assert(no_gpu_warning(get(j, "warnings"), in_report, sizeof in_report), "%s", r.out);
    cr_assert_str_eq(in_report, reason);
    json_decref(j);
    free_result(&r);

    /* Named GPUs are asked for: their absence is a warning, said once. */
    r = run_cli_ok(ARGS("run", "--kernel", "bollinger", "--cols", "100", "--devices", "cuda,cpu"));
    char warned[1100];
    snprintf(warned, sizeof warned, "apportion: warning: %s\n", reason);
    const char *first = strstr(r.err, warned);
    cr_assert_not_null(first, "no warning: %s", r.err);
    cr_assert_null(strstr(first + strlen(warned), reason), "said twice: %s", r.err);
    cr_assert_null(strstr(r.out, reason), "said on stdout too: %s", r.out);
    free_result(&r);
}

/* APPORTION_USE_GPU=yes without a GPU: `devices` (text and JSON) and `run` exit 1 with one
 * clear message and print nothing on stdout. */
Test(cli, use_gpu_yes_without_a_gpu_fails_devices_and_run, .timeout = 60) {
    const size_t gpus = gpu_count();
    /* The cause that `devices --json` gives ("no GPU in use: <cause>; ..."): its start must
     * be in the error message too. */
    char cause[32] = "";
    if (gpus == 0) {
        cli_result d = run_cli(ARGS("devices", "--json"));
        json_t *j = parse_json(&d);
        char warning[1024];
        cr_assert(no_gpu_warning(get(j, "warnings"), warning, sizeof warning),
                  "no warning gives the cause: %s", d.out);
        snprintf(cause, sizeof cause, "%.*s", (int)sizeof cause - 1, warning + 15);
        json_decref(j);
        free_result(&d);
    }
    const char *const *cases[] = {
        ARGS("devices"),
        ARGS("devices", "--json"),
        ARGS("run", "--kernel", "bollinger", "--rows", "1", "--cols", "1000"),
        ARGS("run", "--kernel", "bollinger", "--rows", "1", "--cols", "1000", "--json"),
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cli_result r = run_cli_env(ENV("APPORTION_USE_GPU=yes"), cases[i]);
        if (gpus > 0) {
            cr_assert_eq(r.status, 0, "case %zu: status %d: %s", i, r.status, r.err);
        } else {
            cr_assert_eq(r.status, 1, "case %zu: status %d: %s", i, r.status, r.err);
            cr_assert(strncmp(r.err, "apportion: cannot create the runtime: ", 38) == 0,
                      "case %zu: %s", i, r.err);
            assert_contains(r.err, "APPORTION_USE_GPU=yes");
            assert_contains(r.err, cause);
            assert_contains(r.err, "(APO_ERR_GPU_REQUIRED)\n");
            cr_assert_eq(r.out_len, 0, "case %zu: stdout %s", i, r.out);
        }
        free_result(&r);
    }
}
