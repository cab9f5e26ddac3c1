/*
 * Tests of the `apportion` command-line tool, run as a subprocess (APO_CLI_PATH is the built
 * binary). Each case starts the tool with a clean APPORTION_* environment and profile folders
 * in a private temporary directory, and checks exit statuses, messages, the JSON reports and
 * the files written.
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

#ifndef APO_CLI_PATH
#error "APO_CLI_PATH must name the apportion binary"
#endif

extern char **environ;

typedef struct cli_result {
    int status; /* exit status, or -1 when killed by a signal */
    char *out;
    char *err;
    size_t out_len, err_len;
} cli_result;

/* The private directory of this test case (Criterion runs each case in its own process). */
static char work[64];

/* The folder the tool runs in, when a case sets it (else the test's own). */
static const char *child_dir;
/* The file the tool reads as its standard input, when a case sets it (else /dev/null). */
static const char *child_stdin;

static void make_work_dir(void) {
    if (work[0] != '\0')
        return;
    snprintf(work, sizeof work, "/tmp/apo_test_cli_XXXXXX");
    cr_assert_not_null(mkdtemp(work), "mkdtemp: %s", strerror(errno));
}

static void remove_tree(const char *path) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    cr_assert_eq(system(cmd), 0);
}

static char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    cr_assert_not_null(buf);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
            cr_assert_not_null(buf);
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Starts the tool with argv (NULL-terminated, without the program name) and extra environment
 * entries "NAME=VALUE" (NULL-terminated, may be NULL); finish_cli() waits for it. */
static pid_t start_cli(const char *const *env, const char *const *args) {
    make_work_dir();
    char out_path[128], err_path[128];
    snprintf(out_path, sizeof out_path, "%s/.stdout", work);
    snprintf(err_path, sizeof err_path, "%s/.stderr", work);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_neq(pid, -1, "fork: %s", strerror(errno));
    if (pid == 0) {
        /* A clean environment: no inherited APPORTION_* setting, and profiles kept in the
         * test's own folder so that nothing is read from or written to the user's home. */
        for (;;) {
            char **e = environ;
            while (*e != NULL && strncmp(*e, "APPORTION_", 10) != 0)
                e++;
            if (*e == NULL)
                break;
            char name[256];
            size_t n = strcspn(*e, "=");
            if (n >= sizeof name)
                _exit(126);
            memcpy(name, *e, n);
            name[n] = '\0';
            unsetenv(name);
        }
        char state[128];
        snprintf(state, sizeof state, "%s/state", work);
        setenv("XDG_STATE_HOME", state, 1);
        setenv("APPORTION_PROFILE_DIR", state, 1);
        unsetenv("THREADX_GPU_THRESHOLD_PATH");
        unsetenv("THREADX_MULTIGPU_PROFILE_PATH");
        for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
            char name[256];
            const size_t n = strcspn(env[i], "=");
            if (n >= sizeof name || env[i][n] != '=')
                _exit(126);
            memcpy(name, env[i], n);
            name[n] = '\0';
            setenv(name, env[i] + n + 1, 1);
        }
        int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
            _exit(126);
        if (child_dir != NULL && chdir(child_dir) != 0)
            _exit(126);
        int in = open(child_stdin != NULL ? child_stdin : "/dev/null", O_RDONLY);
        if (in < 0 || dup2(in, 0) < 0)
            _exit(126);
        close(in);
        close(o);
        close(e);
        const char *argv[64];
        size_t n = 0;
        argv[n++] = APO_CLI_PATH;
        for (size_t i = 0; args[i] != NULL && n < 63; i++)
            argv[n++] = args[i];
        argv[n] = NULL;
        execv(APO_CLI_PATH, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Waits for the tool started by start_cli(); *signal_out (when not NULL) gets the signal that
 * ended it, or 0. */
static cli_result finish_cli(pid_t pid, int *signal_out) {
    char out_path[128], err_path[128];
    snprintf(out_path, sizeof out_path, "%s/.stdout", work);
    snprintf(err_path, sizeof err_path, "%s/.stderr", work);
    int wstatus = 0;
    cr_assert_eq(waitpid(pid, &wstatus, 0), pid);
    cli_result r;
    r.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
    if (signal_out != NULL)
        *signal_out = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
    r.out = read_all(out_path, &r.out_len);
    r.err = read_all(err_path, &r.err_len);
    cr_assert_neq(r.status, 127, "cannot execute %s", APO_CLI_PATH);
    return r;
}

/* Runs the tool as start_cli() starts it and waits for it. */
static cli_result run_cli_env(const char *const *env, const char *const *args) {
    return finish_cli(start_cli(env, args), NULL);
}

static cli_result run_cli(const char *const *args) { return run_cli_env(NULL, args); }

static void free_result(cli_result *r) {
    free(r->out);
    free(r->err);
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define ENV(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Parses stdout as one JSON object. */
static json_t *parse_json(const cli_result *r) {
    json_error_t e;
    json_t *j = json_loadb(r->out, r->out_len, 0, &e);
    cr_assert_not_null(j, "stdout is not JSON (%s at line %d): %s", e.text, e.line, r->out);
    cr_assert(json_is_object(j));
    cr_assert(r->out_len > 0 && r->out[r->out_len - 1] == '\n', "no final newline");
    return j;
}

static json_t *get(const json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    cr_assert_not_null(v, "key \"%s\" is missing", key);
    return v;
}

static void assert_contains(const char *text, const char *part) {
    cr_assert_not_null(strstr(text, part), "\"%s\" not found in: %s", part, text);
}

/* A tmpfs this case mounted (in its own mount namespace), unmounted before the cleanup. */
static char mounted[128];

/* Gives this case's process a private mount namespace and mounts a tmpfs with `options` at
 * path; the tools the case starts see it. Returns 0, or -1 where that is not allowed (not
 * root). */
static int private_tmpfs(const char *path, const char *options) {
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return -1;
    if (mount("tmpfs", path, "tmpfs", 0, options) != 0)
        return -1;
    snprintf(mounted, sizeof mounted, "%s", path);
    return 0;
}

static void cleanup(void) {
    if (mounted[0] != '\0')
        umount2(mounted, MNT_DETACH);
    if (work[0] != '\0')
        remove_tree(work);
}

TestSuite(cli, .fini = cleanup);

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
    cli_result r = run_cli(ARGS("--version"));
    cr_assert_eq(r.status, 0);
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
    cli_result r = run_cli(ARGS("--bogus"));
    cr_assert_eq(r.status, 2);
    assert_contains(r.err, "apportion: unknown option '--bogus'");
    free_result(&r);
    r = run_cli(ARGS("devices", "--bogus"));
    cr_assert_eq(r.status, 2);
    cr_assert_str_eq(r.err,
                     "apportion: unknown option '--bogus'\nTry 'apportion devices --help'.\n");
    free_result(&r);
    r = run_cli(ARGS("run", "--kernel", "bollinger", "--frobnicate"));
    cr_assert_eq(r.status, 2);
    assert_contains(r.err, "apportion: unknown option '--frobnicate'");
    free_result(&r);
    r = run_cli(ARGS("devices", "extra"));
    cr_assert_eq(r.status, 2);
    assert_contains(r.err, "apportion: unexpected argument 'extra'");
    free_result(&r);
}

Test(cli, missing_values_and_bad_numbers_are_usage_errors, .timeout = 60) {
    struct {
        const char *const *args;
        const char *msg;
    } cases[] = {
        {ARGS("run"), "apportion: missing --kernel"},
        {ARGS("run", "--kernel"), "apportion: option --kernel needs a value"},
        {ARGS("run", "--kernel", "bollinger", "--output", "--json"),
         "apportion: option --output needs a value"},
        {ARGS("run", "--kernel", "bollinger", "--rows", "x"),
         "apportion: --rows 'x': expected a positive integer"},
        {ARGS("run", "--kernel", "bollinger", "--cols", "0"),
         "apportion: --cols '0': expected a positive integer"},
        {ARGS("run", "--kernel", "bollinger", "--cols=12abc"),
         "apportion: --cols '12abc': expected a positive integer"},
        {ARGS("run", "--kernel", "bollinger", "--seed", "-1"),
         "apportion: --seed '-1': expected an integer from 0 to 18446744073709551615"},
        {ARGS("run", "--kernel", "bollinger", "--param", "period=2x"),
         "apportion: --param 'period=2x': '2x' is not a finite number"},
        {ARGS("run", "--kernel", "bollinger", "--param", "period"),
         "apportion: --param 'period': expected NAME=VALUE"},
        {ARGS("run", "--kernel", "bollinger", "--param", "period=5", "--param", "period=6"),
         "apportion: --param period is given twice"},
        {ARGS("run", "--kernel", "bollinger", "--split", "diagonal"),
         "apportion: --split 'diagonal': expected rows, time or auto"},
        {ARGS("run", "--kernel", "bollinger", "--format", "csv"),
         "apportion: --format needs --output"},
        {ARGS("run", "--kernel", "bollinger", "--output", "o", "--format", "xml"),
         "apportion: --format 'xml': expected f64 or csv"},
        {ARGS("run", "--kernel", "bollinger", "--input", "x.csv", "--cols", "5"),
         "apportion: --cols cannot be combined with --input"},
        {ARGS("run", "--kernel", "bollinger", "--column", "close"),
         "apportion: --column needs --input"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cli_result r = run_cli(cases[i].args);
        cr_assert_eq(r.status, 2, "case %zu: status %d (%s)", i, r.status, r.err);
        cr_assert(strncmp(r.err, cases[i].msg, strlen(cases[i].msg)) == 0, "case %zu: stderr %s", i,
                  r.err);
        assert_contains(r.err, "Try 'apportion run --help'.");
        cr_assert_eq(r.out_len, 0);
        free_result(&r);
    }
}

/* Whether the runtime of this machine uses a GPU (the tests expect none on CPU-only hosts
 * and check the GPU branch otherwise). */
static size_t gpu_count(void) {
    cli_result r = run_cli(ARGS("devices", "--json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *j = parse_json(&r);
    const json_int_t n = json_integer_value(get(j, "gpu_count"));
    json_decref(j);
    free_result(&r);
    return (size_t)n;
}

Test(cli, devices_json_lists_the_cpu_and_says_why_no_gpu, .timeout = 60) {
    cli_result r = run_cli(ARGS("devices", "--json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
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
 * the paths (docs/kernels.md, "Vector paths"); every x86-64 CPU has sse2. */
Test(cli, devices_name_the_cpu_vector_path, .timeout = 60) {
    cli_result r =
        run_cli_env(ENV("APPORTION_CPU_ISA=sse2"), ARGS("devices", "--devices", "cpu:threads=1"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    assert_contains(r.out, "cpu (1 thread, sse2)");
    assert_contains(r.out, "vector paths of this CPU: sse2");
    free_result(&r);
    r = run_cli(ARGS("devices", "--json", "--devices", "cpu"));
    cr_assert_eq(r.status, 0, "%s", r.err);
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
    cli_result r = run_cli(ARGS("devices"));
    cr_assert_eq(r.status, 0, "%s", r.err);
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
        run_cli(ARGS("devices", "--json", "--devices",
                     "sim:x:rate=5e6:latency=2ms:fail_after=3:flaky=0.125:seed=9:hang_after=4"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *j = parse_json(&r);
    json_t *devices = get(j, "devices");
    cr_assert_eq(json_array_size(devices), 1);
    json_t *d = json_array_get(devices, 0);
    cr_assert_str_eq(json_string_value(get(d, "id")), "sim:x");
    cr_assert_str_eq(json_string_value(get(d, "kind")), "sim");
    cr_assert(json_is_true(get(d, "simulated")));
    cr_assert(json_real_value(get(d, "rate")) == 5e6);
    cr_assert(fabs(json_real_value(get(d, "latency_ms")) - 2.0) < 1e-12);
    cr_assert_eq(json_integer_value(get(d, "fail_after")), 3);
    cr_assert(json_real_value(get(d, "flaky")) == 0.125);
    cr_assert_eq(json_integer_value(get(d, "seed")), 9);
    cr_assert_eq(json_integer_value(get(d, "hang_after")), 4);
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
        run_cli(ARGS("run", "--kernel", "bollinger", "--rows", "2", "--cols", "5000", "--json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
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

/* The tool's own steps are timed apart from the call (docs/cli.md, "Memory"): each is a
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
    char out[128];
    snprintf(out, sizeof out, "%s/out", work);
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
        run_cli(ARGS("run", "--kernel", "bollinger", "--cols", "3000", "--devices", "cpu"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    assert_contains(r.out, "\ntimes       read input ");
    assert_contains(r.out, " ms, prepare ");
    assert_contains(r.out, " ms, compute ");
    assert_contains(r.out, " ms, write output 0.000 ms\n");
    assert_contains(r.out, " touch_ms ");
    free_result(&r);
}

Test(cli, run_text_report_lists_devices, .timeout = 60) {
    cli_result r = run_cli(
        ARGS("run", "--kernel", "macd", "--cols", "20000", "--devices", "cpu", "--seed", "42"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    assert_contains(r.out, "kernel      macd\n");
    assert_contains(r.out, "shape       1 x 20000 (20000 elements)\n");
    assert_contains(r.out, "seed        42\n");
    assert_contains(r.out, "\ncpu ");
    cr_assert_null(strstr(r.out, "note: simulated"));
    /* The device list "cpu" selects no GPU, so no warning about GPUs is due. */
    cr_assert_eq(r.err_len, 0, "stderr: %s", r.err);
    free_result(&r);
}

Test(cli, run_on_simulated_devices_says_so, .timeout = 60) {
    const char *const *env =
        ENV("APPORTION_DEVICES=sim:a:rate=1e6,sim:b:rate=2e6", "APPORTION_SIM_CLOCK=virtual");
    cli_result r = run_cli_env(
        env, ARGS("run", "--kernel", "bollinger", "--rows", "2", "--cols", "5000", "--json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
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

    r = run_cli_env(env, ARGS("run", "--kernel", "bollinger", "--cols", "5000"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    assert_contains(r.out,
                    "note: simulated devices present; their times are modelled (virtual clock)\n");
    free_result(&r);
}

static char *read_file_n(const char *path, size_t *len) { return read_all(path, len); }

Test(cli, outputs_are_identical_across_device_sets, .timeout = 60) {
    make_work_dir();
    char dir_sim[128], dir_cpu[128], dir_mix[128];
    snprintf(dir_sim, sizeof dir_sim, "%s/sim", work);
    snprintf(dir_cpu, sizeof dir_cpu, "%s/cpu/nested", work);
    snprintf(dir_mix, sizeof dir_mix, "%s/mix", work);
    const char *const *venv = ENV("APPORTION_SIM_CLOCK=virtual");
    cli_result r = run_cli_env(
        venv, ARGS("run", "--kernel", "bollinger", "--rows", "3", "--cols", "20000", "--devices",
                   "sim:a:rate=1e6,sim:b:rate=3e6,sim:c:rate=2e6", "--output", dir_sim, "--json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *j = parse_json(&r);
    json_t *outs = get(j, "outputs");
    cr_assert_eq(json_array_size(outs), 3);
    char want_file[256];
    snprintf(want_file, sizeof want_file, "%s/upper.f64", dir_sim);
    cr_assert_str_eq(json_string_value(get(json_array_get(outs, 0), "file")), want_file);
    json_decref(j);
    free_result(&r);
    r = run_cli(ARGS("run", "--kernel", "bollinger", "--rows", "3", "--cols", "20000", "--devices",
                     "cpu", "--output", dir_cpu));
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    r = run_cli_env(venv, ARGS("run", "--kernel", "bollinger", "--rows", "3", "--cols", "20000",
                               "--devices", "cpu,sim:z:rate=1e7", "--ratios", "cpu=1,sim:z=5",
                               "--split", "time", "--output", dir_mix));
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);

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
    make_work_dir();
    char out[128], path[256];
    snprintf(out, sizeof out, "%s/out", work);
    cli_result r =
        run_cli(ARGS("run", "--kernel", "bollinger", "--input",
                     APO_TEST_DATA_DIR "/talib_close252.f64", "--output", out, "--json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
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

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fputs(text, f) >= 0, 1);
    cr_assert_eq(fclose(f), 0);
}

Test(cli, csv_input_with_a_bad_cell_names_line_and_column, .timeout = 60) {
    make_work_dir();
    char path[128], want[256];
    snprintf(path, sizeof path, "%s/in.csv", work);
    write_text(path, "date,close\n2024-01-01,1\n2024-01-02,2\n2024-01-03,abc\n2024-01-04,4\n");
    cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--input", path));
    cr_assert_eq(r.status, 2, "%s", r.err);
    snprintf(want, sizeof want,
             "apportion: %s:4:2: expected a number, got \"abc\" (byte 12 of the line)\n", path);
    cr_assert_str_eq(r.err, want);
    cr_assert_eq(r.out_len, 0);
    free_result(&r);

    /* Several columns and none named close: the message lists them. */
    write_text(path, "a,b\n1,2\n");
    r = run_cli(ARGS("run", "--kernel", "bollinger", "--input", path));
    cr_assert_eq(r.status, 2);
    assert_contains(r.err, "2 columns and none is named \"close\"; choose one with --column "
                           "(the columns are: \"a\", \"b\")");
    free_result(&r);
}

Test(cli, csv_input_runs_on_the_chosen_column, .timeout = 60) {
    make_work_dir();
    char path[128], out[128], file[256];
    snprintf(path, sizeof path, "%s/prices.csv", work);
    snprintf(out, sizeof out, "%s/out", work);
    /* 40 values 1..40 in column "Px"; a moving mean of 5 has middle[t] = t - 1. */
    char text[2048];
    size_t o = (size_t)snprintf(text, sizeof text, "date,Px\r\n");
    for (int i = 1; i <= 40; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, "d%d,%d\r\n", i, i);
    write_text(path, text);
    cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--input", path, "--column", "px",
                                "--param", "period=5", "--output", out, "--json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *j = parse_json(&r);
    cr_assert_eq(json_integer_value(get(j, "cols")), 40);
    json_decref(j);
    free_result(&r);
    snprintf(file, sizeof file, "%s/middle.f64", out);
    size_t n;
    char *d = read_file_n(file, &n);
    cr_assert_eq(n, 40 * sizeof(double));
    const double *v = (const double *)(const void *)d;
    cr_assert(isnan(v[3]));
    for (int t = 4; t < 40; t++)
        cr_assert(fabs(v[t] - (double)(t - 1)) < 1e-12, "middle[%d] = %.17g", t, v[t]);
    free(d);

    /* --rows cuts the 40 values into 2 series of 20. */
    r = run_cli(ARGS("run", "--kernel", "bollinger", "--input", path, "--column", "Px", "--rows",
                     "2", "--param", "period=5", "--json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    j = parse_json(&r);
    cr_assert_eq(json_integer_value(get(j, "rows")), 2);
    cr_assert_eq(json_integer_value(get(j, "cols")), 20);
    json_decref(j);
    free_result(&r);
    r = run_cli(
        ARGS("run", "--kernel", "bollinger", "--input", path, "--column", "Px", "--rows", "3"));
    cr_assert_eq(r.status, 2);
    char want[256];
    snprintf(want, sizeof want, "apportion: %s: 40 values do not divide into 3 rows\n", path);
    cr_assert_str_eq(r.err, want);
    free_result(&r);
}

/* The README's CSV example runs as written, from the root of the source tree with the sample
 * file it names: the command is read from README.md itself, so the two cannot drift apart. */
Test(cli, readme_csv_example_runs_as_written, .timeout = 60) {
    make_work_dir();
    size_t len;
    char *readme = read_all(APO_TEST_DATA_DIR "/../../README.md", &len);
    char *line = strstr(readme, "\napportion run --kernel macd --input ");
    cr_assert_not_null(line, "README.md has no 'apportion run ... --input' line");
    line++;
    *strchr(line, '\n') = '\0';
    const char *args[32];
    size_t n = 0;
    for (char *tok = strtok(line, " "); tok != NULL && n < 31; tok = strtok(NULL, " "))
        if (n > 0 || strcmp(tok, "apportion") != 0)
            args[n++] = tok;
    args[n] = NULL;

    /* A tree of the README's shape: docs/ of the sources, and room for out/. */
    char tree[128], docs[160];
    snprintf(tree, sizeof tree, "%s/tree", work);
    snprintf(docs, sizeof docs, "%s/docs", tree);
    cr_assert_eq(mkdir(tree, 0755), 0);
    cr_assert_eq(symlink(APO_TEST_DATA_DIR "/../../docs", docs), 0, "%s", strerror(errno));
    child_dir = tree;
    cli_result r = run_cli(args);
    child_dir = NULL;
    cr_assert_eq(r.status, 0, "the README example failed: %s", r.err);
    free_result(&r);
    free(readme);

    /* 260 days; MACD(12,26,9) has values from index 33 on, none before. */
    const char *names[] = {"macd", "signal", "hist"};
    for (size_t i = 0; i < 3; i++) {
        char file[256];
        snprintf(file, sizeof file, "%s/out/%s.f64", tree, names[i]);
        size_t bytes;
        char *d = read_file_n(file, &bytes);
        cr_assert_eq(bytes, 260 * sizeof(double), "%s: %zu bytes", file, bytes);
        const double *v = (const double *)(const void *)d;
        for (size_t t = 0; t < 260; t++)
            cr_assert_eq(isfinite(v[t]), t >= 33, "%s[%zu] = %g", names[i], t, v[t]);
        free(d);
    }
}

/* The names in a folder, sorted, each followed by a comma ("" when it is empty). */
static void list_names(const char *dir, char *out, size_t size) {
    struct dirent **list = NULL;
    int n = scandir(dir, &list, NULL, alphasort);
    cr_assert(n >= 0, "scandir %s: %s", dir, strerror(errno));
    size_t o = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (strcmp(list[i]->d_name, ".") != 0 && strcmp(list[i]->d_name, "..") != 0) {
            int w = snprintf(out + o, size - o, "%s,", list[i]->d_name);
            cr_assert(w > 0 && (size_t)w < size - o);
            o += (size_t)w;
        }
        free(list[i]);
    }
    free(list);
}

/* The three bollinger files in dir, read whole. */
typedef struct band_files {
    char *data[3];
    size_t len[3];
} band_files;

static const char *const band_names[] = {"lower", "middle", "upper"};

static band_files read_bands(const char *dir, const char *ext) {
    band_files b;
    for (size_t i = 0; i < 3; i++) {
        char file[256];
        snprintf(file, sizeof file, "%s/%s.%s", dir, band_names[i], ext);
        b.data[i] = read_all(file, &b.len[i]);
    }
    return b;
}

/* The folder holds exactly the files of `old`, byte for byte, and nothing else. */
static void assert_old_set(const char *dir, const char *ext, const band_files *old) {
    char names[1024], want[128];
    list_names(dir, names, sizeof names);
    snprintf(want, sizeof want, "lower.%s,middle.%s,upper.%s,", ext, ext, ext);
    cr_assert_str_eq(names, want, "the folder holds %s", names);
    band_files now = read_bands(dir, ext);
    for (size_t i = 0; i < 3; i++) {
        cr_assert(now.len[i] == old->len[i] && memcmp(now.data[i], old->data[i], now.len[i]) == 0,
                  "%s.%s changed", band_names[i], ext);
        free(now.data[i]);
    }
}

static void free_bands(band_files *b) {
    for (size_t i = 0; i < 3; i++)
        free(b->data[i]);
}

/* A second, larger run into a folder on a small disk (a tmpfs of 120 kB) fails for lack of
 * room: raw outputs before any work (their size is reserved when the files are opened), CSV
 * outputs part-way through writing them. Either way the folder keeps exactly the old set:
 * before, the new files that fitted replaced their old ones beside an old one. */
Test(cli, output_set_on_a_full_disk_stays_whole, .timeout = 120) {
    make_work_dir();
    char disk[128], out[160];
    snprintf(disk, sizeof disk, "%s/disk", work);
    cr_assert_eq(mkdir(disk, 0755), 0);
    if (private_tmpfs(disk, "size=120k") != 0)
        cr_skip_test("a small disk needs a private mount namespace (root): %s", strerror(errno));
    snprintf(out, sizeof out, "%s/out", disk);
    /* f64: 3 x 32000 bytes, then 3 x 48000 more; csv: about 3 x 18.6 kB, then 3 x 37 kB. */
    const char *formats[] = {"f64", "csv"};
    const char *small[] = {"4000", "1000"}, *large[] = {"6000", "2000"};
    const char *why[] = {"--output: no room for", "No space left on device"};
    for (size_t f = 0; f < 2; f++) {
        cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--cols", small[f], "--devices",
                                    "cpu", "--output", out, "--format", formats[f]));
        cr_assert_eq(r.status, 0, "%s: %s", formats[f], r.err);
        free_result(&r);
        band_files old = read_bands(out, formats[f]);
        r = run_cli(ARGS("run", "--kernel", "bollinger", "--cols", large[f], "--devices", "cpu",
                         "--output", out, "--format", formats[f]));
        cr_assert_eq(r.status, 1, "%s: status %d: %s", formats[f], r.status, r.err);
        assert_contains(r.err, why[f]);
        free_result(&r);
        assert_old_set(out, formats[f], &old);
        free_bands(&old);
        for (size_t i = 0; i < 3; i++) {
            char file[256];
            snprintf(file, sizeof file, "%s/%s.%s", out, band_names[i], formats[f]);
            cr_assert_eq(unlink(file), 0);
        }
    }
}

/* SIGINT while the CSV files are being written, and SIGTERM while the work runs (the files
 * are open but empty): the tool ends by the signal, its temporary files are removed, and
 * the folder keeps the old set. Before, SIGINT left a new upper.csv, a hidden temporary
 * middle.csv and no lower.csv. */
Test(cli, output_set_survives_sigint_and_sigterm, .timeout = 300) {
    make_work_dir();
    char out[128];
    snprintf(out, sizeof out, "%s/out", work);
    cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--cols", "1000", "--devices",
                                "cpu", "--output", out, "--format", "csv"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    band_files old = read_bands(out, "csv");
    const int signals[] = {SIGINT, SIGTERM};
    const int writing[] = {1, 0};
    for (size_t k = 0; k < 2; k++) {
        pid_t pid = start_cli(NULL, ARGS("run", "--kernel", "bollinger", "--cols", "1000000",
                                         "--devices", "cpu", "--output", out, "--format", "csv"));
        /* Wait until a temporary file exists (and, for the writing case, has bytes). */
        for (int seen = 0; !seen;) {
            int wstatus;
            cr_assert_eq(waitpid(pid, &wstatus, WNOHANG), 0,
                         "the run ended before the signal could be sent");
            DIR *d = opendir(out);
            cr_assert_not_null(d);
            for (struct dirent *e; !seen && (e = readdir(d)) != NULL;) {
                if (strncmp(e->d_name, ".upper.csv.", 11) != 0)
                    continue;
                char file[512];
                struct stat st;
                snprintf(file, sizeof file, "%s/%s", out, e->d_name);
                seen = stat(file, &st) == 0 && (!writing[k] || st.st_size > 0);
            }
            closedir(d);
            if (!seen)
                nanosleep(&(struct timespec){0, 1000000}, NULL);
        }
        cr_assert_eq(kill(pid, signals[k]), 0);
        int sig = 0;
        r = finish_cli(pid, &sig);
        cr_assert_eq(sig, signals[k], "ended by signal %d, status %d: %s", sig, r.status, r.err);
        free_result(&r);
        assert_old_set(out, "csv", &old);
    }
    free_bands(&old);
}

/* A folder that cannot be written is found before the work: on a device that fails every
 * task the message is about the folder, not the failure (root cannot be refused by
 * permissions, so it gets a read-only tmpfs). */
Test(cli, output_folder_that_cannot_be_written_fails_before_the_work, .timeout = 60) {
    make_work_dir();
    char ro[128], inside[160], made[160];
    snprintf(ro, sizeof ro, "%s/ro", work);
    snprintf(inside, sizeof inside, "%s/existing", ro);
    snprintf(made, sizeof made, "%s/new", ro);
    cr_assert_eq(mkdir(ro, 0755), 0);
    const char *why = "Permission denied";
    if (geteuid() == 0) {
        if (private_tmpfs(ro, "size=64k") != 0)
            cr_skip_test("a read-only folder for root needs a private mount namespace: %s",
                         strerror(errno));
        cr_assert_eq(mkdir(inside, 0755), 0);
        cr_assert_eq(mount(NULL, ro, NULL, MS_REMOUNT | MS_RDONLY, NULL), 0, "%s", strerror(errno));
        why = "Read-only file system";
    } else {
        cr_assert_eq(mkdir(inside, 0755), 0);
        cr_assert_eq(chmod(inside, 0555), 0);
        cr_assert_eq(chmod(ro, 0555), 0);
    }
    char want[512];
    cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--cols", "1000", "--devices",
                                "sim:a:flaky=1", "--output", inside));
    cr_assert_eq(r.status, 1, "status %d: %s", r.status, r.err);
    snprintf(want, sizeof want, "apportion: --output: cannot create a file in %s: %s\n", inside,
             why);
    cr_assert_str_eq(r.err, want);
    free_result(&r);
    r = run_cli(ARGS("run", "--kernel", "bollinger", "--cols", "1000", "--devices", "sim:a:flaky=1",
                     "--output", made));
    cr_assert_eq(r.status, 1, "status %d: %s", r.status, r.err);
    snprintf(want, sizeof want, "apportion: --output: cannot create directory %s: %s\n", made, why);
    cr_assert_str_eq(r.err, want);
    free_result(&r);
    char names[256];
    list_names(inside, names, sizeof names);
    cr_assert_str_eq(names, "");
    if (geteuid() != 0) {
        chmod(ro, 0755);
        chmod(inside, 0755);
    }
}

/* ---- input that used to be quietly wrong (docs/robustness.md) ------------------------ */

/* Writes n doubles to path as raw little-endian float64 (the tests run on little-endian
 * hosts, which the f64 size tests already assume). */
static void write_doubles(const char *path, const double *v, size_t n) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(v, sizeof *v, n, f), n);
    cr_assert_eq(fclose(f), 0);
}

/* Whether every byte of text is printable ASCII or a line feed. */
static int printable(const char *text, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (!((unsigned char)text[i] >= 0x20 && (unsigned char)text[i] < 0x7f) && text[i] != '\n')
            return 0;
    return 1;
}

/* A CSV file read as raw float64 (which printed numbers near 2.7e227), and raw float64 read
 * as CSV (which printed raw high bytes): both refused, saying what the file looks like. */
Test(cli, input_in_the_wrong_format_is_refused_with_a_hint, .timeout = 60) {
    make_work_dir();
    char csv[128], raw[128];
    snprintf(csv, sizeof csv, "%s/prices.csv", work);
    snprintf(raw, sizeof raw, "%s/prices.data", work);
    write_text(csv, "date,close\n2024-01-02,100.5\n2024-01-03,101.25\n2024-01-04,99.75\n");
    cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--input", csv, "--input-format",
                                "f64", "--param", "period=2"));
    cr_assert_eq(r.status, 2, "status %d: %s", r.status, r.err);
    char want[512];
    snprintf(want, sizeof want,
             "apportion: %s: this is text (CSV?), not raw little-endian float64 values: read it "
             "as CSV (--input-format csv)\n",
             csv);
    cr_assert_str_eq(r.err, want);
    free_result(&r);
    const double v[] = {100.123456, 101.987654, 99.5, 98.25, 1e-300, -3.75};
    write_doubles(raw, v, 6);
    r = run_cli(ARGS("run", "--kernel", "bollinger", "--input", raw, "--param", "period=2"));
    cr_assert_eq(r.status, 2, "status %d: %s", r.status, r.err);
    assert_contains(r.err, "is a NUL byte: this is not CSV text (raw float64 values? name the "
                           "file .f64 or give --input-format f64)");
    cr_assert(printable(r.err, r.err_len), "raw bytes on stderr: %s", r.err);
    free_result(&r);
    r = run_cli(ARGS("run", "--kernel", "bollinger", "--input", raw, "--input-format", "f64",
                     "--param", "period=2", "--json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
}

/* .F64 and .BIN in capitals are raw too; - reads standard input (CSV, or raw with
 * --input-format f64), and a FIFO named .f64 reads as a file does: the same bits as the file. */
Test(cli, raw_and_csv_input_from_any_name_stdin_or_a_pipe, .timeout = 60) {
    make_work_dir();
    double v[300];
    for (size_t i = 0; i < 300; i++)
        v[i] = 100.0 + (double)(i % 17) * 0.25 - (double)(i % 5);
    char raw[128], upper[128], csv[128], fifo[128];
    snprintf(raw, sizeof raw, "%s/in.f64", work);
    snprintf(upper, sizeof upper, "%s/IN.F64", work);
    snprintf(csv, sizeof csv, "%s/in.csv", work);
    snprintf(fifo, sizeof fifo, "%s/pipe.f64", work);
    write_doubles(raw, v, 300);
    write_doubles(upper, v, 300);
    char text[300 * 32 + 8];
    size_t o = (size_t)snprintf(text, sizeof text, "x\n");
    for (size_t i = 0; i < 300; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, "%.17g\n", v[i]);
    write_text(csv, text);

    char out[6][128];
    const char *const *cases[5];
    for (size_t k = 0; k < 6; k++)
        snprintf(out[k], sizeof out[k], "%s/out%zu", work, k);
    cases[0] =
        ARGS("run", "--kernel", "macd", "--input", raw, "--devices", "cpu", "--output", out[0]);
    cases[1] =
        ARGS("run", "--kernel", "macd", "--input", upper, "--devices", "cpu", "--output", out[1]);
    cases[2] =
        ARGS("run", "--kernel", "macd", "--input", "-", "--devices", "cpu", "--output", out[2]);
    cases[3] = ARGS("run", "--kernel", "macd", "--input", "-", "--input-format", "f64", "--devices",
                    "cpu", "--output", out[3]);
    cases[4] =
        ARGS("run", "--kernel", "macd", "--input", csv, "--devices", "cpu", "--output", out[4]);
    const char *stdin_of[] = {NULL, NULL, csv, raw, NULL};
    for (size_t k = 0; k < 5; k++) {
        child_stdin = stdin_of[k];
        cli_result r = run_cli(cases[k]);
        child_stdin = NULL;
        cr_assert_eq(r.status, 0, "case %zu: %s", k, r.err);
        free_result(&r);
    }
    /* A FIFO: a writer process feeds it while the tool reads. */
    cr_assert_eq(mkfifo(fifo, 0600), 0, "%s", strerror(errno));
    pid_t pid = start_cli(NULL, ARGS("run", "--kernel", "macd", "--input", fifo, "--devices", "cpu",
                                     "--output", out[5]));
    FILE *f = fopen(fifo, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(v, sizeof *v, 300, f), 300);
    fclose(f);
    cli_result r = finish_cli(pid, NULL);
    cr_assert_eq(r.status, 0, "fifo: %s", r.err);
    free_result(&r);

    char file[256];
    snprintf(file, sizeof file, "%s/macd.f64", out[0]);
    size_t n0;
    char *first = read_all(file, &n0);
    cr_assert_eq(n0, 300 * sizeof(double));
    for (size_t k = 1; k < 6; k++) {
        size_t n;
        snprintf(file, sizeof file, "%s/macd.f64", out[k]);
        char *d = read_all(file, &n);
        cr_assert(n == n0 && memcmp(d, first, n) == 0, "case %zu gave other bits", k);
        free(d);
    }
    free(first);
}

/* MACD on a series shorter than its warm-up gave all-NaN outputs and exit 0, while bollinger
 * refuses a period longer than the series: both refuse now, in the same words. */
Test(cli, macd_on_a_series_shorter_than_its_warmup_is_refused_like_bollinger, .timeout = 60) {
    cli_result r = run_cli(ARGS("run", "--kernel", "macd", "--cols", "1"));
    cr_assert_eq(r.status, 2, "status %d: %s", r.status, r.err);
    assert_contains(r.err,
                    "apportion: invalid workload: macd: the warm-up of 34 samples (max(fast, "
                    "slow) + signal - 1) is longer than the series (cols 1)");
    free_result(&r);
    r = run_cli(ARGS("run", "--kernel", "macd", "--cols", "5000", "--param", "slow=100000"));
    cr_assert_eq(r.status, 2, "status %d: %s", r.status, r.err);
    assert_contains(r.err, "the warm-up of 100008 samples");
    free_result(&r);
    /* The same with fast > slow (swapped by the kernel), and the shortest series that works. */
    r = run_cli(ARGS("run", "--kernel", "macd", "--cols", "39", "--param", "fast=32"));
    cr_assert_eq(r.status, 2, "status %d: %s", r.status, r.err);
    assert_contains(r.err, "the warm-up of 40 samples");
    free_result(&r);
    r = run_cli(ARGS("run", "--kernel", "macd", "--cols", "40", "--param", "fast=32", "--json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    /* At exactly the warm-up the last sample has a value in every output. */
    make_work_dir();
    char out[128];
    snprintf(out, sizeof out, "%s/out", work);
    r = run_cli(ARGS("run", "--kernel", "macd", "--cols", "34", "--output", out));
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
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
    r = run_cli(ARGS("run", "--kernel", "bollinger", "--cols", "5"));
    cr_assert_eq(r.status, 2, "status %d: %s", r.status, r.err);
    assert_contains(r.err, "apportion: invalid workload: bollinger: period 20 is longer than the "
                           "series (cols 5)");
    free_result(&r);
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
    cli_result r = run_cli(ARGS("run", "--kernel", "macd", "--cols", "100", "--param", "fast=5",
                                "--param", "slow=10", "--json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
}

/* Common CSV exports: NA/null/empty cells with --missing-as-nan (gaps to the kernels), a
 * trailing blank line, header names with spaces around them. */
Test(cli, common_csv_exports_read_with_missing_as_nan, .timeout = 60) {
    make_work_dir();
    char path[128];
    snprintf(path, sizeof path, "%s/export.csv", work);
    char text[4096];
    size_t o = (size_t)snprintf(text, sizeof text, "Date, Close \n");
    for (int i = 1; i <= 40; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, "d%d,%s\n", i,
                              i == 7   ? "NA"
                              : i == 8 ? ""
                              : i == 9 ? "null"
                                       : "100");
    snprintf(text + o, sizeof text - o, "\n");
    write_text(path, text);
    cli_result r =
        run_cli(ARGS("run", "--kernel", "bollinger", "--input", path, "--param", "period=5"));
    cr_assert_eq(r.status, 2, "status %d: %s", r.status, r.err);
    assert_contains(r.err,
                    ":8:2: expected a number, got \"NA\" (--missing-as-nan reads it as NaN)");
    free_result(&r);
    r = run_cli(ARGS("run", "--kernel", "bollinger", "--input", path, "--missing-as-nan", "--param",
                     "period=5", "--json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *j = parse_json(&r);
    cr_assert_eq(json_integer_value(get(j, "cols")), 40);
    json_decref(j);
    free_result(&r);
    r = run_cli(ARGS("run", "--kernel", "bollinger", "--missing-as-nan"));
    cr_assert_eq(r.status, 2);
    assert_contains(r.err, "--missing-as-nan needs --input");
    free_result(&r);
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
    cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--cols", "1000", "--devices",
                                "cpu,sim:a", "--ratios", "cpu=1e308,sim:a=1e308"));
    cr_assert_eq(r.status, 2, "status %d: %s", r.status, r.err);
    assert_contains(r.err, "the ratios sum to inf (beyond the largest double): scale them down");
    free_result(&r);

    make_work_dir();
    char top[128], out[160];
    snprintf(top, sizeof top, "%s/new", work);
    snprintf(out, sizeof out, "%s/deeper", top);
    r = run_cli(ARGS("run", "--kernel", "bollinger", "--cols", "1000", "--devices", "cpu,sim:a",
                     "--ratios", "cpu=0,sim:a=0", "--output", out));
    cr_assert_eq(r.status, 2, "status %d: %s", r.status, r.err);
    assert_contains(r.err, "the ratios sum to 0: at least one must be positive");
    free_result(&r);
    struct stat st;
    cr_assert_neq(stat(top, &st), 0, "the refused run left %s behind", top);

    r = run_cli(
        ARGS("run", "--kernel", "bollinger", "--cols", "1000", "--param", "nbdev_up=1e301"));
    cr_assert_eq(r.status, 2, "status %d: %s", r.status, r.err);
    assert_contains(r.err, "parameter nbdev_up must be from -1e+300 to 1e+300, got 1e+301");
    free_result(&r);

    /* 800 GB that malloc() cannot give: under AddressSanitizer and ThreadSanitizer too,
     * which otherwise abort rather than return NULL. */
    char asan[512], tsan[512];
    const char *inherited = getenv("ASAN_OPTIONS");
    snprintf(asan, sizeof asan, "ASAN_OPTIONS=%s%sallocator_may_return_null=1",
             inherited != NULL ? inherited : "", inherited != NULL ? ":" : "");
    inherited = getenv("TSAN_OPTIONS");
    snprintf(tsan, sizeof tsan, "TSAN_OPTIONS=%s%sallocator_may_return_null=1",
             inherited != NULL ? inherited : "", inherited != NULL ? ":" : "");
    r = run_cli_env(ENV(asan, tsan),
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

Test(cli, raw_input_of_a_bad_size_is_a_usage_error, .timeout = 60) {
    make_work_dir();
    char path[128], want[256];
    snprintf(path, sizeof path, "%s/in.f64", work);
    write_text(path, "0123456789");
    cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--input", path));
    cr_assert_eq(r.status, 2);
    snprintf(want, sizeof want,
             "apportion: %s: size 10 bytes is not a multiple of 8 (raw little-endian float64 "
             "values expected; 2 trailing bytes)\n",
             path);
    cr_assert_str_eq(r.err, want);
    free_result(&r);
    r = run_cli(ARGS("run", "--kernel", "bollinger", "--input", "/nonexistent/x.f64"));
    cr_assert_eq(r.status, 2);
    assert_contains(r.err, "apportion: /nonexistent/x.f64: cannot open: No such file");
    free_result(&r);
}

Test(cli, bad_kernel_parameter_is_a_usage_error, .timeout = 60) {
    cli_result r =
        run_cli(ARGS("run", "--kernel", "bollinger", "--param", "period=1", "--devices", "cpu"));
    cr_assert_eq(r.status, 2, "%s", r.err);
    assert_contains(r.err, "period");
    assert_contains(r.err, "APO_ERR_BAD_PARAM");
    cr_assert_eq(r.out_len, 0);
    free_result(&r);
    r = run_cli(ARGS("run", "--kernel", "bollinger", "--param", "colour=3", "--devices", "cpu"));
    cr_assert_eq(r.status, 2, "%s", r.err);
    assert_contains(r.err, "colour");
    free_result(&r);
    r = run_cli(ARGS("run", "--kernel", "nosuchkernel", "--devices", "cpu"));
    cr_assert_eq(r.status, 2, "%s", r.err);
    assert_contains(r.err, "nosuchkernel");
    assert_contains(r.err, "APO_ERR_UNKNOWN_KERNEL");
    free_result(&r);
}

Test(cli, bad_device_spec_is_a_usage_error_naming_the_item, .timeout = 60) {
    cli_result r =
        run_cli(ARGS("run", "--kernel", "bollinger", "--devices", "cpu,bogus:1", "--json"));
    cr_assert_eq(r.status, 2, "%s", r.err);
    assert_contains(r.err, "apportion: cannot create the runtime: ");
    assert_contains(r.err, "\"bogus:1\"");
    assert_contains(r.err, "APO_ERR_BAD_DEVICE_SPEC");
    cr_assert_eq(r.out_len, 0);
    free_result(&r);
    r = run_cli_env(ENV("APPORTION_DEVICES=cpu,sim:"), ARGS("devices"));
    cr_assert_eq(r.status, 2, "%s", r.err);
    assert_contains(r.err, "\"sim:\"");
    free_result(&r);
}

Test(cli, ratios_are_explicit_shares_by_device_id, .timeout = 60) {
    const char *const *env = ENV("APPORTION_SIM_CLOCK=virtual");
    cli_result r =
        run_cli_env(env, ARGS("run", "--kernel", "bollinger", "--cols", "400000", "--devices",
                              "sim:a:rate=1e6,sim:b:rate=1e6,sim:c:rate=1e6", "--ratios",
                              "sim:c=3,sim:a=1", "--json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
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
    r = run_cli_env(env, ARGS("run", "--kernel", "bollinger", "--cols", "1000", "--devices",
                              "sim:a,sim:b", "--ratios", "sim:a=0"));
    cr_assert_eq(r.status, 2, "%s", r.err);
    assert_contains(r.err, "APO_ERR_INVALID_ARGUMENT");
    free_result(&r);
}

Test(cli, csv_output_is_parseable_and_equals_the_raw_output, .timeout = 60) {
    make_work_dir();
    char dcsv[128], df64[128], path[256];
    snprintf(dcsv, sizeof dcsv, "%s/csv", work);
    snprintf(df64, sizeof df64, "%s/f64", work);
    cli_result r = run_cli(ARGS("run", "--kernel", "macd", "--cols", "300", "--seed", "9",
                                "--devices", "cpu", "--output", dcsv, "--format", "csv"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    r = run_cli(ARGS("run", "--kernel", "macd", "--cols", "300", "--seed", "9", "--devices", "cpu",
                     "--output", df64));
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    const char *names[] = {"macd", "signal", "hist"};
    for (size_t k = 0; k < 3; k++) {
        size_t n, nraw;
        snprintf(path, sizeof path, "%s/%s.csv", dcsv, names[k]);
        char *text = read_file_n(path, &n);
        snprintf(path, sizeof path, "%s/%s.f64", df64, names[k]);
        char *raw = read_file_n(path, &nraw);
        cr_assert_eq(nraw, 300 * sizeof(double));
        /* A header line with the output's name, then one value per line. */
        char *save = NULL;
        char *line = strtok_r(text, "\n", &save);
        cr_assert_str_eq(line, names[k]);
        size_t count = 0, nan_count = 0;
        while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
            cr_assert_lt(count, 300);
            char *end = NULL;
            double v = strtod(line, &end);
            cr_assert_eq(*end, '\0', "line %zu: %s", count + 2, line);
            double want;
            memcpy(&want, raw + count * sizeof(double), sizeof want);
            if (isnan(want)) {
                cr_assert_str_eq(line, "nan");
                nan_count++;
            } else {
                cr_assert(memcmp(&v, &want, sizeof v) == 0, "%s[%zu]: %s vs %.17g", names[k], count,
                          line, want);
            }
            count++;
        }
        cr_assert_eq(count, 300);
        /* macd starts at index 25, signal and hist at 33 (docs: first valid outputs). */
        cr_assert(nan_count == 25 || nan_count == 33, "%s has %zu NaN", names[k], nan_count);
        free(text);
        free(raw);
    }
}

Test(cli, output_directory_that_is_a_file_fails, .timeout = 60) {
    make_work_dir();
    char path[128];
    snprintf(path, sizeof path, "%s/file", work);
    write_text(path, "x");
    cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--cols", "1000", "--devices",
                                "cpu", "--output", path));
    cr_assert_eq(r.status, 1, "%s", r.err);
    assert_contains(r.err, "exists and is not a directory");
    cr_assert_eq(r.out_len, 0);
    free_result(&r);
}

Test(cli, generated_input_depends_on_the_seed_only, .timeout = 60) {
    make_work_dir();
    char d1[128], d2[128], d3[128], p1[256], p2[256], p3[256];
    snprintf(d1, sizeof d1, "%s/s1", work);
    snprintf(d2, sizeof d2, "%s/s1b", work);
    snprintf(d3, sizeof d3, "%s/s2", work);
    const char *seeds[] = {"5", "5", "6"};
    const char *dirs[] = {d1, d2, d3};
    for (size_t i = 0; i < 3; i++) {
        cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--cols", "3000", "--seed",
                                    seeds[i], "--devices", "cpu", "--output", dirs[i]));
        cr_assert_eq(r.status, 0, "%s", r.err);
        free_result(&r);
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
    char d1[128], d2[128];
    snprintf(d1, sizeof d1, "%s/lost", work);
    snprintf(d2, sizeof d2, "%s/cpu", work);
    const char *const *env = ENV("APPORTION_SIM_CLOCK=virtual");
    cli_result r = run_cli_env(env, ARGS("run", "--kernel", "bollinger", "--cols", "200000",
                                         "--devices", "sim:a:rate=1e8,sim:b:rate=1e8:fail_after=2",
                                         "--output", d1, "--json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
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
    r = run_cli_env(env, ARGS("run", "--kernel", "bollinger", "--cols", "200000", "--devices",
                              "sim:a:rate=1e8,sim:b:rate=1e8:fail_after=2"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    assert_contains(r.out, "failovers   1\n");
    assert_contains(r.out, "FAILED: ");
    free_result(&r);
    r = run_cli(ARGS("run", "--kernel", "bollinger", "--cols", "200000", "--devices", "cpu",
                     "--output", d2));
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    char p1[256], p2[256];
    snprintf(p1, sizeof p1, "%s/lower.f64", d1);
    snprintf(p2, sizeof p2, "%s/lower.f64", d2);
    size_t n1, n2;
    char *x = read_file_n(p1, &n1), *y = read_file_n(p2, &n2);
    cr_assert_eq(n1, 200000 * sizeof(double));
    cr_assert(n1 == n2 && memcmp(x, y, n1) == 0, "failover changed the results");
    free(x);
    free(y);
}

Test(cli, quarantine_and_deadlines_are_reported, .timeout = 60) {
    /* sim:a fails every task (quarantined after one call), sim:b never answers (abandoned
     * at the 0.2 s floor); sim:c carries the call, and the results equal a cpu run. */
    make_work_dir();
    char d1[128], d2[128];
    snprintf(d1, sizeof d1, "%s/faulty", work);
    snprintf(d2, sizeof d2, "%s/cpu", work);
    const char *const *env = ENV("APPORTION_SIM_CLOCK=virtual", "APPORTION_QUARANTINE_AFTER=1",
                                 "APPORTION_DEADLINE_FLOOR=0.2");
    const char *devices = "sim:a:flaky=1,sim:b:hang_after=1,sim:c";
    cli_result r = run_cli_env(env, ARGS("run", "--kernel", "macd", "--cols", "100000", "--devices",
                                         devices, "--output", d1, "--json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *j = parse_json(&r);
    cr_assert_eq(json_integer_value(get(j, "failovers")), 2);
    cr_assert_eq(json_integer_value(get(j, "deadlines_missed")), 1);
    cr_assert_eq(json_integer_value(get(j, "quarantined")), 2);
    json_t *devs = get(j, "devices");
    json_t *a = json_array_get(devs, 0), *b = json_array_get(devs, 1), *c = json_array_get(devs, 2);
    cr_assert(json_is_true(get(a, "quarantined")) && json_is_false(get(a, "deadline_missed")));
    assert_contains(json_string_value(get(a, "quarantine_reason")), "failed in 1 of its calls");
    cr_assert(json_is_true(get(b, "quarantined")) && json_is_true(get(b, "deadline_missed")));
    cr_assert_eq(json_real_value(get(b, "deadline_ms")), 200.0);
    assert_contains(json_string_value(get(b, "failure")), "deadline missed");
    assert_contains(json_string_value(get(b, "quarantine_reason")), "missed its deadline");
    cr_assert(json_is_false(get(c, "quarantined")) && json_is_null(get(c, "quarantine_reason")));
    json_decref(j);
    free_result(&r);

    r = run_cli_env(env, ARGS("run", "--kernel", "macd", "--cols", "100000", "--devices", devices));
    cr_assert_eq(r.status, 0, "%s", r.err);
    assert_contains(r.out, "deadlines   1 missed\n");
    assert_contains(r.out, "quarantined 2\n");
    assert_contains(r.out, "; QUARANTINED: missed its deadline");
    free_result(&r);

    r = run_cli(
        ARGS("run", "--kernel", "macd", "--cols", "100000", "--devices", "cpu", "--output", d2));
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    const char *names[] = {"macd", "signal", "hist"};
    for (size_t i = 0; i < 3; i++) {
        char p1[256], p2[256];
        snprintf(p1, sizeof p1, "%s/%s.f64", d1, names[i]);
        snprintf(p2, sizeof p2, "%s/%s.f64", d2, names[i]);
        size_t n1, n2;
        char *x = read_file_n(p1, &n1), *y = read_file_n(p2, &n2);
        cr_assert(n1 == n2 && memcmp(x, y, n1) == 0, "%s differs from the cpu run", names[i]);
        free(x);
        free(y);
    }
}

/* ---- profile, show, set-ratios ---------------------------------------------------------- */

/* Two simulated devices on the virtual clock: profiling is fast and exact. sim:a takes
 * 10 ms per million elements and no latency; sim:b 3.33 ms per million and 1 ms. */
#define SIM_DEVICES "APPORTION_DEVICES=sim:a:rate=1e8,sim:b:rate=3e8:latency=1ms"
#define SIM_ENV ENV(SIM_DEVICES, "APPORTION_SIM_CLOCK=virtual")
#define PROFILE_ARGS(...)                                                                          \
    ARGS("profile", "--kernels", "bollinger", "--sizes", "100000,400000", "--runs", "3",           \
         __VA_ARGS__)

static void state_path(char *out, size_t size, const char *name) {
    make_work_dir();
    snprintf(out, size, "%s/state/%s", work, name);
}

static json_t *load_json_file(const char *path) {
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    cr_assert_not_null(j, "%s is not JSON (%s at line %d)", path, e.text, e.line);
    cr_assert(json_is_object(j), "%s is not an object", path);
    return j;
}

static int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Checks one device of a profile: a model close to the simulated rate and latency. */
static void assert_model(const json_t *d, double latency_ms, double ms_per_melem) {
    const double lat = json_number_value(get(d, "latency_ms"));
    const double cost = json_number_value(get(d, "ms_per_melem"));
    cr_assert(fabs(lat - latency_ms) < 0.02, "latency_ms %g, want %g", lat, latency_ms);
    cr_assert(fabs(cost - ms_per_melem) < 0.01 * ms_per_melem, "ms_per_melem %g, want %g", cost,
              ms_per_melem);
}

Test(cli, help_of_profile_show_and_set_ratios_exits_0, .timeout = 60) {
    const char *cmds[] = {"profile", "show", "set-ratios"};
    const char *want[] = {"Usage: apportion profile", "Usage: apportion show",
                          "Usage: apportion set-ratios"};
    for (size_t i = 0; i < 3; i++) {
        cli_result r = run_cli(ARGS(cmds[i], "--help"));
        cr_assert_eq(r.status, 0, "%s: status %d, stderr %s", cmds[i], r.status, r.err);
        cr_assert(strncmp(r.out, want[i], strlen(want[i])) == 0, "%s: %s", cmds[i], r.out);
        cr_assert_eq(r.err_len, 0, "%s: stderr %s", cmds[i], r.err);
        free_result(&r);
        r = run_cli(ARGS(cmds[i], "-h"));
        cr_assert_eq(r.status, 0);
        free_result(&r);
    }
    cli_result r = run_cli(ARGS("--help"));
    assert_contains(r.out, "  profile ");
    assert_contains(r.out, "  show ");
    assert_contains(r.out, "  set-ratios ");
    free_result(&r);
}

Test(cli, profile_writes_both_files_with_fitted_models, .timeout = 120) {
    cli_result r = run_cli_env(SIM_ENV, PROFILE_ARGS("--json"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
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
    cli_result r = run_cli_env(SIM_ENV, PROFILE_ARGS("--seed", "3"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    assert_contains(r.out, "profile     bollinger\n");
    assert_contains(r.out, "100000, 400000 samples; 3 runs each");
    assert_contains(r.out, "predicted   ");
    assert_contains(r.out, "simulated devices present");
    assert_contains(r.out, "\nsim:a ");
    assert_contains(r.out, "\nsim:b ");
    char mpath[256];
    state_path(mpath, sizeof mpath, "multigpu.json");
    assert_contains(r.out, "written     ");
    assert_contains(r.out, mpath);
    /* Not a terminal: no progress on stderr. */
    cr_assert_eq(r.err_len, 0, "stderr: %s", r.err);
    free_result(&r);
}

Test(cli, profile_if_older_than_skips_a_fresh_profile, .timeout = 120) {
    cli_result r = run_cli_env(SIM_ENV, PROFILE_ARGS("--if-older-than", "1h"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
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
    r = run_cli_env(SIM_ENV, PROFILE_ARGS("--if-older-than", "1h"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    assert_contains(r.out, "bollinger: profile is ");
    assert_contains(r.out, " old (younger than 1h), skipped\n");
    cr_assert_null(strstr(r.out, "profile     bollinger"), "profiled again: %s", r.out);
    free_result(&r);
    r = run_cli_env(SIM_ENV, PROFILE_ARGS("--if-older-than", "7d", "--json"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
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
    r = run_cli_env(SIM_ENV, ARGS("profile", "--kernels", "bollinger,macd", "--sizes",
                                  "100000,400000", "--runs", "3", "--if-older-than", "1h"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    assert_contains(r.out, "bollinger: profile is ");
    assert_contains(r.out, "profile     macd\n");
    free_result(&r);
    j = load_json_file(mpath);
    get(get(get(j, "workloads"), "macd"), "devices");
    get(get(j, "workloads"), "bollinger");
    json_decref(j);
}

Test(cli, profile_usage_errors_exit_2_and_write_nothing, .timeout = 60) {
    struct {
        const char *const *args;
        const char *msg;
    } cases[] = {
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
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cli_result r = run_cli_env(SIM_ENV, cases[i].args);
        cr_assert_eq(r.status, 2, "case %zu: status %d (%s)", i, r.status, r.err);
        cr_assert(strncmp(r.err, cases[i].msg, strlen(cases[i].msg)) == 0, "case %zu: stderr %s", i,
                  r.err);
        assert_contains(r.err, "Try 'apportion profile --help'.");
        cr_assert_eq(r.out_len, 0, "case %zu: stdout %s", i, r.out);
        free_result(&r);
    }
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
    char blocker[128], mpath[256];
    snprintf(blocker, sizeof blocker, "%s/blocker", work);
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

Test(cli, show_without_profiles_says_so, .timeout = 60) {
    cli_result r = run_cli_env(SIM_ENV, ARGS("show"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    assert_contains(r.out, "no profile yet: run 'apportion profile'");
    assert_contains(r.out, "multigpu.json: missing");
    assert_contains(r.out, "thresholds.json: missing");
    free_result(&r);
    r = run_cli_env(SIM_ENV, ARGS("show", "--json"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    json_t *j = parse_json(&r);
    json_t *m = get(j, "multigpu");
    cr_assert_str_eq(json_string_value(get(m, "state")), "missing");
    cr_assert_eq(json_array_size(get(m, "workloads")), 0);
    cr_assert_str_eq(json_string_value(get(get(j, "thresholds"), "state")), "missing");
    cr_assert(json_is_true(get(j, "empty")));
    json_decref(j);
    free_result(&r);
    r = run_cli_env(SIM_ENV, ARGS("show", "--bogus"));
    cr_assert_eq(r.status, 2);
    assert_contains(r.err, "Try 'apportion show --help'.");
    free_result(&r);
}

Test(cli, show_reports_a_corrupt_profile_as_ignored, .timeout = 60) {
    char dir[256], mpath[256];
    state_path(dir, sizeof dir, "");
    cr_assert_eq(mkdir(dir, 0700), 0, "mkdir %s: %s", dir, strerror(errno));
    state_path(mpath, sizeof mpath, "multigpu.json");
    write_text(mpath, "{\"format\": \"apportion.multigpu/1\", \"workloads\": [tru");
    cli_result r = run_cli_env(SIM_ENV, ARGS("show"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    assert_contains(r.out, "multigpu.json: ignored");
    assert_contains(r.out, "run 'apportion profile'");
    free_result(&r);
    r = run_cli_env(SIM_ENV, ARGS("show", "--json"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
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
    cli_result r = run_cli_env(SIM_ENV, PROFILE_ARGS("--json"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    free_result(&r);
    r = run_cli_env(SIM_ENV, ARGS("show", "--json"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    json_t *j = parse_json(&r);
    json_t *m = get(j, "multigpu");
    cr_assert_str_eq(json_string_value(get(m, "state")), "loaded");
    cr_assert(json_is_false(get(m, "threadx")));
    cr_assert(json_is_false(get(j, "empty")));
    json_t *ws = get(m, "workloads");
    cr_assert_eq(json_array_size(ws), 1);
    json_t *w = json_array_get(ws, 0);
    cr_assert_str_eq(json_string_value(get(w, "tag")), "bollinger");
    cr_assert_str_eq(json_string_value(get(w, "source")), "profile");
    cr_assert(json_is_false(get(w, "stale")));
    cr_assert(json_is_null(get(w, "stale_reason")));
    cr_assert_eq(json_integer_value(get(w, "sample_size")), 400000);
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
    r = run_cli_env(SIM_ENV, ARGS("show"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    assert_contains(r.out, "multigpu.json: loaded");
    assert_contains(r.out, "workload bollinger\n");
    assert_contains(r.out, "  source       profile\n");
    assert_contains(r.out, "  stale        no\n");
    assert_contains(r.out, "  sim:b ");
    assert_contains(r.out, "thresholds (");
    free_result(&r);

    /* Against another device set the entry is stale, and says why. */
    r = run_cli_env(ENV("APPORTION_SIM_CLOCK=virtual"), ARGS("show", "--json", "--devices", "cpu"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    j = parse_json(&r);
    w = json_array_get(get(get(j, "multigpu"), "workloads"), 0);
    cr_assert(json_is_true(get(w, "stale")));
    cr_assert(json_is_string(get(w, "stale_reason")));
    json_decref(j);
    free_result(&r);
}

Test(cli, set_ratios_forces_the_shares_of_run, .timeout = 120) {
    cli_result r =
        run_cli_env(SIM_ENV, ARGS("set-ratios", "--workload", "bollinger", "sim:a=1", "sim:b=3"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    char mpath[256];
    state_path(mpath, sizeof mpath, "multigpu.json");
    assert_contains(r.out, "bollinger: ratios forced\n");
    assert_contains(r.out, "stored in   ");
    assert_contains(r.out, mpath);
    free_result(&r);
    cr_assert(file_exists(mpath));

    r = run_cli_env(SIM_ENV, ARGS("run", "--kernel", "bollinger", "--cols", "400000", "--json"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
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

    r = run_cli_env(SIM_ENV, ARGS("show", "--json"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    j = parse_json(&r);
    json_t *w = json_array_get(get(get(j, "multigpu"), "workloads"), 0);
    cr_assert_str_eq(json_string_value(get(w, "tag")), "bollinger");
    cr_assert_str_eq(json_string_value(get(w, "source")), "explicit");
    json_decref(j);
    free_result(&r);

    /* Items may be comma separated; a ratio of 0 leaves a device out. */
    r = run_cli_env(SIM_ENV, ARGS("set-ratios", "--workload=macd", "sim:a=0,sim:b=2"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    free_result(&r);
    r = run_cli_env(SIM_ENV, ARGS("run", "--kernel", "macd", "--cols", "100000", "--json"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    j = parse_json(&r);
    cr_assert_str_eq(json_string_value(get(j, "ratio_source")), "explicit");
    cr_assert_eq(json_integer_value(get(json_array_get(get(j, "devices"), 0), "elements")), 0);
    json_decref(j);
    free_result(&r);

    /* --clear: the run no longer takes forced ratios. */
    r = run_cli_env(SIM_ENV, ARGS("set-ratios", "--workload", "bollinger", "--clear"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    assert_contains(r.out, "bollinger: forced ratios cleared");
    free_result(&r);
    r = run_cli_env(SIM_ENV, ARGS("run", "--kernel", "bollinger", "--cols", "400000", "--json"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    j = parse_json(&r);
    cr_assert_str_neq(json_string_value(get(j, "ratio_source")), "explicit");
    json_decref(j);
    free_result(&r);
    r = run_cli_env(SIM_ENV, ARGS("set-ratios", "--workload", "bollinger", "--clear"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    assert_contains(r.out, "bollinger: no forced ratios were stored; nothing to clear");
    free_result(&r);
}

Test(cli, set_ratios_usage_errors_exit_2, .timeout = 60) {
    struct {
        const char *const *args;
        const char *msg;
    } cases[] = {
        {ARGS("set-ratios", "sim:a=1"), "apportion: missing --workload"},
        {ARGS("set-ratios", "--workload", "bollinger"),
         "apportion: give at least one DEVICE=RATIO (or --clear)"},
        {ARGS("set-ratios", "--workload", "bollinger", "sim:a"),
         "apportion: item 'sim:a': expected ID=RATIO"},
        {ARGS("set-ratios", "--workload", "bollinger", "=1"),
         "apportion: item '=1': expected ID=RATIO"},
        {ARGS("set-ratios", "--workload", "bollinger", "sim:a=-1"),
         "apportion: '-1' for device sim:a is not a finite number >= 0"},
        {ARGS("set-ratios", "--workload", "bollinger", "sim:a=nan"),
         "apportion: 'nan' for device sim:a is not a finite number >= 0"},
        {ARGS("set-ratios", "--workload", "bollinger", "sim:a=0", "sim:b=0"),
         "apportion: every ratio is 0"},
        {ARGS("set-ratios", "--workload", "bollinger", "--clear", "sim:a=1"),
         "apportion: --clear takes no DEVICE=RATIO items"},
        {ARGS("set-ratios", "--workload", "", "sim:a=1"), "apportion: --workload: empty tag"},
        {ARGS("set-ratios", "--workload", "bollinger", "sim:a=1,,sim:b=1"),
         "apportion: 'sim:a=1,,sim:b=1': empty item"},
        {ARGS("set-ratios", "--workload", "bollinger", "--json", "sim:a=1"),
         "apportion: unknown option '--json'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cli_result r = run_cli_env(SIM_ENV, cases[i].args);
        cr_assert_eq(r.status, 2, "case %zu: status %d (%s)", i, r.status, r.err);
        cr_assert(strncmp(r.err, cases[i].msg, strlen(cases[i].msg)) == 0, "case %zu: stderr %s", i,
                  r.err);
        assert_contains(r.err, "Try 'apportion set-ratios --help'.");
        cr_assert_eq(r.out_len, 0);
        free_result(&r);
    }
    /* A device this machine does not have is the library's verdict: a usage error too, with
     * the devices that exist. */
    cli_result r =
        run_cli_env(SIM_ENV, ARGS("set-ratios", "--workload", "bollinger", "sim:a=1", "sim:x=1"));
    cr_assert_eq(r.status, 2, "status %d: %s", r.status, r.err);
    assert_contains(r.err, "apportion: cannot set the ratios of bollinger: ");
    assert_contains(r.err, "APO_ERR_INVALID_ARGUMENT");
    assert_contains(r.err, "the devices of this run are: sim:a");
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
    r = run_cli_env(
        SIM_ENV, ARGS("set-ratios", "--workload", "mytag", "--custom-tag", "sim:a=1", "sim:b=3"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    json_t *profile = load_json_file(mpath);
    json_t *workloads = get(profile, "workloads");
    json_object_set(workloads, evil, get(workloads, "mytag"));
    json_object_del(workloads, "mytag");
    cr_assert_eq(json_dump_file(profile, mpath, 0), 0);
    json_decref(profile);

    r = run_cli_env(SIM_ENV, ARGS("show"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    assert_contains(r.out, "\nworkload evil\\x1b[2J\\x0afake line\n");
    cr_assert(!has_control_byte(r.out, r.out_len), "raw control bytes: %s", r.out);
    cr_assert_null(strstr(r.out, "\nfake line"), "a fake line: %s", r.out);
    free_result(&r);
    /* Against other devices the entry is stale, and run's warning names it. */
    r = run_cli_env(ENV("APPORTION_DEVICES=sim:c", "APPORTION_SIM_CLOCK=virtual"),
                    ARGS("run", "--kernel", "bollinger", "--cols", "1000"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    assert_contains(r.err, "first: evil\\x1b[2J\\x0afake line (");
    cr_assert(!has_control_byte(r.err, r.err_len), "raw control bytes: %s", r.err);
    free_result(&r);
}

/* set-ratios for a tag that nothing uses (a typo) used to be stored and never applied. */
Test(cli, set_ratios_refuses_a_tag_no_call_would_use, .timeout = 60) {
    cli_result r =
        run_cli_env(SIM_ENV, ARGS("set-ratios", "--workload", "bolinger", "sim:a=1", "sim:b=3"));
    cr_assert_eq(r.status, 2, "status %d: %s", r.status, r.err);
    assert_contains(r.err, "apportion: --workload bolinger: no kernel has this name and no "
                           "workload of this tag is stored, so no call would use these "
                           "ratios; did you mean bollinger?");
    free_result(&r);
    char mpath[256];
    state_path(mpath, sizeof mpath, "multigpu.json");
    cr_assert(!file_exists(mpath), "a refused set-ratios wrote %s", mpath);
    /* A tag of the caller's own, said so: stored, and from then on known. */
    r = run_cli_env(
        SIM_ENV, ARGS("set-ratios", "--workload", "nightly", "--custom-tag", "sim:a=1", "sim:b=3"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    r = run_cli_env(SIM_ENV, ARGS("set-ratios", "--workload", "nightly", "sim:a=1", "sim:b=1"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
}

Test(cli, set_ratios_clear_before_any_model_leaves_no_entry, .timeout = 60) {
    cli_result r =
        run_cli_env(SIM_ENV, ARGS("set-ratios", "--workload", "bollinger", "sim:a=1,sim:b=3"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    assert_contains(r.out, "  sim:a ");
    assert_contains(r.out, " 0.250 ");
    assert_contains(r.out, " 0.750 ");
    free_result(&r);
    r = run_cli_env(SIM_ENV, ARGS("set-ratios", "--workload", "bollinger", "--clear"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    assert_contains(r.out, "bollinger: forced ratios cleared");
    free_result(&r);
    r = run_cli_env(SIM_ENV, ARGS("show", "--json"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    json_t *j = parse_json(&r);
    cr_assert_eq(json_array_size(get(get(j, "multigpu"), "workloads")), 0);
    json_decref(j);
    free_result(&r);
    r = run_cli_env(SIM_ENV, ARGS("run", "--kernel", "bollinger", "--cols", "1000", "--json"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    j = parse_json(&r);
    cr_assert_str_eq(json_string_value(get(j, "ratio_source")), "equal");
    json_decref(j);
    free_result(&r);
}

/* ---- GPU discovery and `selftest` (they run for real on a machine without a GPU) ----------- */

/* `devices` and `devices --json` succeed and, without a GPU, say why in both forms. */
Test(cli, devices_text_and_json_say_why_there_is_no_gpu, .timeout = 60) {
    cli_result r = run_cli(ARGS("devices", "--json"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    json_t *j = parse_json(&r);
    const json_int_t gpus = json_integer_value(get(j, "gpu_count"));
    json_t *warnings = get(j, "warnings");
    char reason[1024] = "";
    if (gpus == 0) {
        cr_assert(json_is_false(get(j, "gpu_available")));
        /* One warning names the cause: "no GPU in use: <why>". */
        for (size_t i = 0; i < json_array_size(warnings); i++) {
            const char *w = json_string_value(json_array_get(warnings, i));
            if (w != NULL && strncmp(w, "no GPU in use: ", 15) == 0 && strlen(w) > 15)
                snprintf(reason, sizeof reason, "%s", w);
        }
        cr_assert(reason[0] != '\0', "no warning names why no GPU is used: %s", r.out);
    } else {
        cr_assert(json_is_true(get(j, "gpu_available")));
    }
    json_decref(j);
    free_result(&r);

    r = run_cli(ARGS("devices"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    if (gpus == 0) {
        /* The same cause on the count line, said once in the whole command. */
        char line[1100];
        snprintf(line, sizeof line, "GPUs usable: 0 (%s", reason);
        assert_contains(r.out, line);
        cr_assert_null(strstr(strstr(r.out, reason) + 1, reason), "said twice: %s", r.out);
        cr_assert_null(strstr(r.err, reason), "said on stderr too: %s", r.err);
    }
    free_result(&r);

    /* A run says it once, as a warning. */
    r = run_cli(ARGS("run", "--kernel", "bollinger", "--cols", "100"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
    if (gpus == 0) {
        const char *first = strstr(r.err, reason);
        cr_assert_not_null(first, "no warning: %s", r.err);
        cr_assert_null(strstr(first + 1, reason), "said twice: %s", r.err);
        cr_assert_null(strstr(r.out, reason), "said on stdout too: %s", r.out);
    }
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
        json_t *warnings = get(j, "warnings");
        for (size_t i = 0; i < json_array_size(warnings); i++) {
            const char *w = json_string_value(json_array_get(warnings, i));
            if (w != NULL && strncmp(w, "no GPU in use: ", 15) == 0)
                snprintf(cause, sizeof cause, "%s", w + 15);
        }
        cr_assert(cause[0] != '\0', "no warning gives the cause: %s", d.out);
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

Test(cli, selftest_help_and_usage_errors, .timeout = 60) {
    cli_result r = run_cli(ARGS("selftest", "--help"));
    cr_assert_eq(r.status, 0);
    cr_assert(strncmp(r.out, "Usage: apportion selftest", 25) == 0, "%s", r.out);
    cr_assert_eq(r.err_len, 0);
    free_result(&r);
    r = run_cli(ARGS("--help"));
    assert_contains(r.out, "  selftest ");
    free_result(&r);
    struct {
        const char *const *args;
        const char *msg;
    } cases[] = {
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
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        r = run_cli(cases[i].args);
        cr_assert_eq(r.status, 2, "case %zu: status %d (%s)", i, r.status, r.err);
        cr_assert(strncmp(r.err, cases[i].msg, strlen(cases[i].msg)) == 0, "case %zu: stderr %s", i,
                  r.err);
        assert_contains(r.err, "Try 'apportion selftest --help'.");
        cr_assert_eq(r.out_len, 0);
        free_result(&r);
    }
    /* A device list the library refuses is a usage error too, with the library's message. */
    r = run_cli(ARGS("selftest", "--devices", "bogus:1"));
    cr_assert_eq(r.status, 2, "status %d (%s)", r.status, r.err);
    assert_contains(r.err, "apportion: cannot create the runtime: ");
    assert_contains(r.err, "(APO_ERR_BAD_DEVICE_SPEC)");
    cr_assert_eq(r.out_len, 0);
    free_result(&r);
}

/* `selftest` checks the cpu (and any sim device) against the cpu reference and passes; on
 * a machine without a GPU it says that no GPU was found and why, exits 0, and does not say
 * "selftest passed": nothing about a GPU was checked. */
Test(cli, selftest_passes_and_says_when_there_is_no_gpu, .timeout = 300) {
    const size_t gpus = gpu_count();
    cli_result r = run_cli(ARGS("selftest"));
    cr_assert_eq(r.status, 0, "status %d: %s\n%s", r.status, r.err, r.out);
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
    r = run_cli(ARGS("selftest", "--json", "--sizes", "4097,2x3001", "--seed", "9", "--devices",
                     "cpu,sim:x:rate=1e9"));
    cr_assert_eq(r.status, 0, "status %d: %s\n%s", r.status, r.err, r.out);
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

/* The report's per-device objects carry `chunks`: pieces the work was staged in (GPUs) or
 * tasks (cpu and sim devices). */
Test(cli, run_json_devices_have_chunks, .timeout = 60) {
    cli_result r =
        run_cli(ARGS("run", "--kernel", "bollinger", "--rows", "2", "--cols", "50000", "--devices",
                     "cpu,sim:a:rate=1e9", "--ratios", "cpu=1,sim:a=1", "--json"));
    cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
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

/* A hostile environment at the command line: every malformed APPORTION_* setting at once is
 * warned about on stderr, each naming its variable and value, and the run still succeeds
 * with the defaults, its output the same bits as a run without them. */
Test(cli, malformed_variables_are_warned_about_and_the_run_goes_on, .timeout = 120) {
    make_work_dir();
    char clean_dir[128], hostile_dir[128];
    snprintf(clean_dir, sizeof clean_dir, "%s/clean", work);
    snprintf(hostile_dir, sizeof hostile_dir, "%s/hostile", work);
    cli_result r = run_cli_env(SIM_ENV, ARGS("run", "--kernel", "macd", "--rows", "3", "--cols",
                                             "5000", "--output", clean_dir));
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    r = run_cli_env(
        ENV(SIM_DEVICES, "APPORTION_SIM_CLOCK=sideways", "APPORTION_CPU_THREADS=-3",
            "APPORTION_USE_GPU=perhaps", "APPORTION_GPU_MEMORY_MB=2",
            "APPORTION_PROFILES=sometimes", "APPORTION_LEARN=2", "APPORTION_PERSIST_INTERVAL=nan"),
        ARGS("run", "--kernel", "macd", "--rows", "3", "--cols", "5000", "--output", hostile_dir));
    cr_assert_eq(r.status, 0, "%s", r.err);
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
    for (size_t i = 0; i < 3; i++) {
        char a[256], b[256];
        snprintf(a, sizeof a, "%s/%s.f64", clean_dir, outputs[i]);
        snprintf(b, sizeof b, "%s/%s.f64", hostile_dir, outputs[i]);
        size_t la, lb;
        char *da = read_all(a, &la), *db = read_all(b, &lb);
        cr_assert(la == lb && la > 0 && memcmp(da, db, la) == 0, "%s differs", outputs[i]);
        free(da);
        free(db);
    }
}

/* A profile that is hostile to the parser (100000 levels deep) at the command line: `show`
 * reports it as ignored and leaves it alone; `run` warns, naming the file, computes, and when
 * it stores what it learnt keeps the old file aside, byte for byte, as multigpu.json.corrupt. */
Test(cli, deeply_nested_profile_is_reported_and_kept_aside, .timeout = 60) {
    make_work_dir();
    char state[128], mpath[256], aside[300];
    snprintf(state, sizeof state, "%s/state", work);
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
    cli_result r = run_cli_env(SIM_ENV, ARGS("show"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    assert_contains(r.out, "ignored");
    assert_contains(r.out, "depth");
    free_result(&r);
    size_t len;
    char *after = read_all(mpath, &len);
    cr_assert(len == 2 * depth && memcmp(after, text, len) == 0, "show changed the profile");
    free(after);

    r = run_cli_env(SIM_ENV, ARGS("run", "--kernel", "bollinger", "--cols", "20000"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    assert_contains(r.err, mpath);
    assert_contains(r.err, "depth");
    free_result(&r);
    after = read_all(aside, &len);
    cr_assert(len == 2 * depth && memcmp(after, text, len) == 0, "the old profile was not kept");
    free(after);
    free(text);
}

/* `run --no-learn` uses the stored models but leaves them as they are: no refinement, no
 * file written; a plain run refines them and writes them back. */
Test(cli, run_no_learn_leaves_the_profile_alone, .timeout = 60) {
    char mpath[256];
    state_path(mpath, sizeof mpath, "multigpu.json");
    cli_result r = run_cli_env(
        SIM_ENV, ARGS("run", "--kernel", "bollinger", "--cols", "100000", "--no-learn"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    cr_assert(!file_exists(mpath), "run --no-learn wrote %s", mpath);

    r = run_cli_env(SIM_ENV, ARGS("run", "--kernel", "bollinger", "--cols", "100000"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    cr_assert(file_exists(mpath), "a plain run stored nothing in %s", mpath);
    size_t before_len = 0;
    char *before = read_all(mpath, &before_len);

    r = run_cli_env(
        SIM_ENV, ARGS("run", "--kernel", "bollinger", "--cols", "100000", "--no-learn", "--json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
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
    r = run_cli_env(SIM_ENV, ARGS("run", "--kernel", "bollinger", "--cols", "100000"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    after = read_all(mpath, &after_len);
    cr_assert(after_len != before_len || memcmp(after, before, before_len) != 0,
              "a plain run left %s as it was", mpath);
    free(after);
    free(before);
}

/* ---- kernels, many series, the index column (issue 19) --------------------------------- */

/* The built-ins and their parameters as docs/kernels.md lists them, written here apart from
 * the library's tables. */
static const char *const builtin_kernels[][4] = {
    {"bollinger", "period", "nbdev_up", "nbdev_dn"},
    {"macd", "fast", "slow", "signal"},
    {"returns_stats", NULL, NULL, NULL},
    {"bootstrap", "replicates", NULL, NULL},
};

Test(cli, kernels_lists_every_builtin_with_its_parameters, .timeout = 60) {
    make_work_dir();
    cli_result r = run_cli(ARGS("kernels"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    for (size_t k = 0; k < 4; k++) {
        assert_contains(r.out, builtin_kernels[k][0]);
        for (size_t p = 1; p < 4 && builtin_kernels[k][p] != NULL; p++)
            assert_contains(r.out, builtin_kernels[k][p]);
    }
    assert_contains(r.out, "period=20 (integer from 2 to ");
    assert_contains(r.out, "halo     19 at the defaults; period - 1");
    assert_contains(r.out, "halo     the whole row");
    free_result(&r);

    r = run_cli(ARGS("kernels", "--json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
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

/* A random walk in text, from a seed, for the CSV files below. */
static double walk_step(unsigned *state) {
    *state = *state * 1103515245u + 12345u;
    return ((double)(*state >> 8) / (double)(1u << 24)) - 0.5;
}

static double *read_doubles(const char *path, size_t *n) {
    size_t len = 0;
    char *d = read_all(path, &len);
    cr_assert_not_null(d, "cannot read %s", path);
    *n = len / sizeof(double);
    return (double *)(void *)d;
}

/* Runs bollinger (period 10) on `input` with extra args, raw output, into out. */
static void run_bollinger(const char *input, const char *out, const char *a1, const char *a2,
                          const char *a3, const char *a4) {
    cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--param", "period=10", "--devices",
                                "cpu", "--input", input, "--output", out, a1, a2, a3, a4));
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
}

Test(cli, column_list_gives_the_bits_of_single_column_runs, .timeout = 60) {
    make_work_dir();
    char path[128], both[128], one[128], file[256];
    snprintf(path, sizeof path, "%s/w.csv", work);
    static char text[32768];
    size_t o = (size_t)snprintf(text, sizeof text, "date,close,open\n");
    unsigned st = 7;
    double a = 100, b = 50;
    for (int i = 0; i < 300; i++) {
        a += walk_step(&st), b += walk_step(&st);
        o += (size_t)snprintf(text + o, sizeof text - o, "2024-%04d,%.17g,%.17g\n", i, a, b);
    }
    write_text(path, text);
    snprintf(both, sizeof both, "%s/both", work);
    run_bollinger(path, both, "--column", "close,open", "--seed", "1");
    size_t n2 = 0;
    snprintf(file, sizeof file, "%s/upper.f64", both);
    double *two = read_doubles(file, &n2);
    cr_assert_eq(n2, 600);
    const char *cols[] = {"close", "open"};
    for (size_t c = 0; c < 2; c++) {
        snprintf(one, sizeof one, "%s/%s", work, cols[c]);
        run_bollinger(path, one, "--column", cols[c], "--seed", "1");
        size_t n1 = 0;
        snprintf(file, sizeof file, "%s/upper.f64", one);
        double *single = read_doubles(file, &n1);
        cr_assert_eq(n1, 300);
        cr_assert(memcmp(single, two + c * 300, 300 * sizeof(double)) == 0,
                  "row %zu of the two-column run differs from the %s run", c, cols[c]);
        free(single);
    }
    free(two);
}

/* The fields of line `line` (0: the header) of a CSV text without quotes, in fields[]. */
static size_t csv_line_fields(const char *text, size_t line, char fields[][64], size_t max) {
    const char *p = text;
    for (size_t l = 0; l < line && p != NULL; l++) {
        p = strchr(p, '\n');
        if (p != NULL)
            p++;
    }
    cr_assert(p != NULL && *p != '\0', "no line %zu", line);
    size_t n = 0, k = 0;
    for (; *p != '\0' && *p != '\n' && n < max; p++) {
        if (*p == ',') {
            fields[n++][k] = '\0';
            k = 0;
        } else if (k < 63) {
            fields[n][k++] = *p;
        }
    }
    fields[n++][k] = '\0';
    return n;
}

Test(cli, group_by_tickers_of_different_lengths_match_their_single_runs, .timeout = 60) {
    make_work_dir();
    char path[128], out[128], file[256];
    snprintf(path, sizeof path, "%s/long.csv", work);
    static char text[65536], alone[3][32768];
    const char *tickers[3] = {"AAPL", "MSFT", "IBM"};
    const int length[3] = {200, 80, 200};
    size_t o = (size_t)snprintf(text, sizeof text, "date,ticker,close\n"), oa[3];
    for (int t = 0; t < 3; t++)
        oa[t] = (size_t)snprintf(alone[t], sizeof alone[t], "close\n");
    unsigned st = 11;
    double x[3] = {100, 30, 70};
    for (int i = 0; i < 200; i++) {
        for (int t = 0; t < 3; t++) {
            if (i >= length[t])
                continue;
            x[t] += walk_step(&st);
            /* MSFT's dates are its own: every other day. */
            o += (size_t)snprintf(text + o, sizeof text - o, "d%d,%s,%.17g\n", t == 1 ? 2 * i : i,
                                  tickers[t], x[t]);
            oa[t] += (size_t)snprintf(alone[t] + oa[t], sizeof alone[t] - oa[t], "%.17g\n", x[t]);
        }
    }
    write_text(path, text);
    snprintf(out, sizeof out, "%s/grouped", work);
    run_bollinger(path, out, "--group-by", "ticker", "--format", "csv");
    snprintf(file, sizeof file, "%s/upper.csv", out);
    size_t len = 0;
    char *csv = read_all(file, &len);
    char fields[8][64];
    cr_assert_eq(csv_line_fields(csv, 0, fields, 8), 6);
    for (int t = 0; t < 3; t++) {
        char head[64];
        snprintf(head, sizeof head, "%s_date", tickers[t]);
        cr_assert_str_eq(fields[2 * t], head);
        cr_assert_str_eq(fields[2 * t + 1], tickers[t]);
    }
    for (int t = 0; t < 3; t++) {
        char in[128], one[128];
        snprintf(in, sizeof in, "%s/%s.csv", work, tickers[t]);
        snprintf(one, sizeof one, "%s/%s", work, tickers[t]);
        write_text(in, alone[t]);
        run_bollinger(in, one, "--seed", "1", NULL, NULL);
        snprintf(file, sizeof file, "%s/upper.f64", one);
        size_t n = 0;
        double *single = read_doubles(file, &n);
        cr_assert_eq(n, (size_t)length[t]);
        for (int i = 0; i < 200; i++) {
            cr_assert_eq(csv_line_fields(csv, (size_t)i + 1, fields, 8), 6);
            if (i >= length[t]) {
                cr_assert_str_eq(fields[2 * t + 1], "", "past the end of %s", tickers[t]);
                continue;
            }
            char date[32];
            snprintf(date, sizeof date, "d%d", t == 1 ? 2 * i : i);
            cr_assert_str_eq(fields[2 * t], date);
            const double v = strtod(fields[2 * t + 1], NULL);
            cr_assert(memcmp(&v, &single[i], sizeof v) == 0 || (isnan(v) && isnan(single[i])),
                      "%s[%d]: %s against %.17g", tickers[t], i, fields[2 * t + 1], single[i]);
        }
        free(single);
    }
    free(csv);
    /* Raw output has no layout for series of two lengths. */
    snprintf(out, sizeof out, "%s/raw", work);
    cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--input", path,
                                "--group-by", "ticker", "--output", out));
    cr_assert_eq(r.status, 2);
    assert_contains(r.err, "2 lengths: 200 (AAPL, ...), 80 (MSFT); use --format csv");
    free_result(&r);
    cr_assert_neq(access(out, F_OK), 0, "a refused run leaves no folder");
}

/* Tickers of several lengths are one ragged call: swept, each ticker's block per set is its
 * own series' (exact means of the last two and three closes), and the report is that one
 * call's, counting each ticker's own samples. */
Test(cli, group_by_tickers_of_several_lengths_sweep_in_one_call, .timeout = 60) {
    make_work_dir();
    char path[128], out[128], file[256];
    snprintf(path, sizeof path, "%s/l.csv", work);
    write_text(path, "date,ticker,close\nd1,A,1\nd1,B,10\nd2,A,2\nd2,B,20\nd3,A,4\nd4,A,3\n"
                     "d3,B,40\n");
    snprintf(out, sizeof out, "%s/out", work);
    cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--devices", "cpu,sim:a", "--input",
                                path, "--group-by", "ticker", "--param", "period=2,3", "--output",
                                out, "--format", "csv", "--json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    assert_contains(r.out, "\"rows\": 2");
    assert_contains(r.out, "\"cols\": 4");
    assert_contains(r.out, "\"elements\": 14");
    cr_assert(strstr(r.out, "\"calls\"") == NULL, "one call, one report: %s", r.out);
    free_result(&r);
    snprintf(file, sizeof file, "%s/middle.csv", out);
    size_t n = 0;
    char *text = read_all(file, &n);
    cr_assert_str_eq(text,
                     "A period=2_date,A period=2,B period=2_date,B period=2,A period=3_date,A "
                     "period=3,B period=3_date,B period=3\n"
                     "d1,nan,d1,nan,d1,nan,d1,nan\n"
                     "d2,1.5,d2,15,d2,nan,d2,nan\n"
                     "d3,3,d3,30,d3,2.3333333333333335,d3,23.333333333333332\n"
                     "d4,3.5,,,d4,3,,\n");
    free(text);
    /* A statistic per ticker: one value each, from its own returns. */
    snprintf(out, sizeof out, "%s/stats", work);
    r = run_cli(ARGS("run", "--kernel", "returns_stats", "--devices", "cpu", "--input", path,
                     "--group-by", "ticker", "--output", out, "--format", "csv"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    snprintf(file, sizeof file, "%s/count.csv", out);
    text = read_all(file, &n);
    cr_assert_str_eq(text, "A,B\n3,2\n");
    free(text);
    snprintf(file, sizeof file, "%s/mean.csv", out);
    text = read_all(file, &n);
    /* B: returns 1 and 1; A: 1, 1 and -0.25, summed in order. */
    cr_assert_str_eq(text, "A,B\n0.58333333333333337,1\n");
    free(text);
}

Test(cli, index_column_is_copied_into_csv_outputs, .timeout = 60) {
    make_work_dir();
    char path[128], out[128], file[256];
    snprintf(path, sizeof path, "%s/p.csv", work);
    static char text[16384];
    size_t o = (size_t)snprintf(text, sizeof text, "close,stamp,date\n");
    for (int i = 0; i < 50; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, "%d,t%d,\"2024-01-%02d, a\"\n", 100 + i, i,
                              i + 1);
    write_text(path, text);
    /* Default: the first non-numeric column, stamp. */
    snprintf(out, sizeof out, "%s/a", work);
    run_bollinger(path, out, "--format", "csv", NULL, NULL);
    snprintf(file, sizeof file, "%s/middle.csv", out);
    size_t len = 0;
    char *csv = read_all(file, &len);
    char fields[4][64];
    cr_assert_eq(csv_line_fields(csv, 0, fields, 4), 2);
    cr_assert_str_eq(fields[0], "stamp");
    cr_assert_str_eq(fields[1], "middle");
    for (int i = 0; i < 50; i++) {
        char want[16];
        snprintf(want, sizeof want, "t%d", i);
        csv_line_fields(csv, (size_t)i + 1, fields, 4);
        cr_assert_str_eq(fields[0], want);
    }
    free(csv);
    /* Chosen: date, whose commas are quoted again on the way out. */
    snprintf(out, sizeof out, "%s/b", work);
    run_bollinger(path, out, "--format", "csv", "--index-column", "date");
    snprintf(file, sizeof file, "%s/middle.csv", out);
    csv = read_all(file, &len);
    assert_contains(csv, "date,middle\n\"2024-01-01, a\",nan\n");
    assert_contains(csv, "\n\"2024-01-20, a\",");
    free(csv);
}

Test(cli, malformed_series_input_is_refused_clearly, .timeout = 60) {
    make_work_dir();
    char path[128], raw[128];
    snprintf(path, sizeof path, "%s/m.csv", work);
    write_text(path, "date,ticker,close,open\nd1,A,1,2\nd2,A,x3,3\nd3,,4,4\n");
    struct {
        const char *a[4];
        const char *want;
    } cases[] = {
        {{"--column", "close,nope", NULL, NULL}, "no column named \"nope\""},
        {{"--column", "close,", NULL, NULL}, "--column 'close,': empty name in the list"},
        {{"--column", "close,close", NULL, NULL}, "column \"close\" is listed twice"},
        {{"--column", "open,close", NULL, NULL}, "m.csv:3:3: expected a number, got \"x3\""},
        {{"--group-by", "tickr", "--column", "open"}, "no column named \"tickr\""},
        {{"--group-by", "ticker", "--column", "close,open"}, "--group-by reads one value column"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cli_result r =
            run_cli(ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--input", path,
                         cases[c].a[0], cases[c].a[1], cases[c].a[2], cases[c].a[3]));
        cr_assert_eq(r.status, 2, "case %zu: %s", c, r.err);
        assert_contains(r.err, cases[c].want);
        free_result(&r);
    }
    /* An empty group field names its line and column. */
    write_text(path, "date,ticker,close\nd1,A,1\nd2,,2\n");
    cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--input", path,
                                "--group-by", "ticker", "--param", "period=2"));
    cr_assert_eq(r.status, 2);
    assert_contains(r.err, "m.csv:3:2: empty --group-by field");
    free_result(&r);
    /* CSV options on raw input. */
    snprintf(raw, sizeof raw, "%s/x.f64", work);
    const double v[4] = {1, 2, 3, 4};
    FILE *f = fopen(raw, "wb");
    fwrite(v, sizeof v[0], 4, f);
    fclose(f);
    r = run_cli(ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--input", raw,
                     "--group-by", "ticker"));
    cr_assert_eq(r.status, 2);
    assert_contains(r.err, "--group-by applies to CSV input only");
    free_result(&r);
}

/* ---- sweeps ------------------------------------------------------------------------------ */

/* Runs `apportion run` on the generated input (2 x 500) into out with up to six extra
 * arguments; the run must succeed. Returns its JSON report. */
static json_t *run_sweep(const char *kernel, const char *out, const char *a1, const char *a2,
                         const char *a3, const char *a4, const char *a5, const char *a6) {
    cli_result r =
        run_cli(ARGS("run", "--kernel", kernel, "--devices", "cpu", "--rows", "2", "--cols", "500",
                     "--json", "--output", out, a1, a2, a3, a4, a5, a6));
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *j = parse_json(&r);
    free_result(&r);
    return j;
}

/* Asserts that set `set` of DIR/NAME.f64 (sets of n values) is the file ONE/NAME.f64. */
static void assert_set_is(const char *dir, const char *one, const char *name, size_t set,
                          size_t n) {
    char file[256];
    size_t n_all = 0, n_one = 0;
    snprintf(file, sizeof file, "%s/%s.f64", dir, name);
    double *all = read_doubles(file, &n_all);
    snprintf(file, sizeof file, "%s/%s.f64", one, name);
    double *single = read_doubles(file, &n_one);
    cr_assert_eq(n_one, n, "%s: %zu values, not %zu", file, n_one, n);
    cr_assert_geq(n_all, (set + 1) * n);
    cr_assert(memcmp(all + set * n, single, n * sizeof(double)) == 0,
              "set %zu of %s/%s.f64 differs from its single run", set, dir, name);
    free(all);
    free(single);
}

Test(cli, sweep_list_matches_single_runs_bitwise, .timeout = 60) {
    make_work_dir();
    char dir[128], one[128];
    snprintf(dir, sizeof dir, "%s/sweep", work);
    json_t *j = run_sweep("bollinger", dir, "--param", "period=10,20,35", "--param", "nbdev_up=1.5",
                          NULL, NULL);
    cr_assert_eq(json_integer_value(get(j, "sets")), 3);
    cr_assert_eq(json_integer_value(get(j, "pieces")), 1);
    json_decref(j);
    const char *periods[] = {"period=10", "period=20", "period=35"};
    for (size_t s = 0; s < 3; s++) {
        snprintf(one, sizeof one, "%s/one%zu", work, s);
        json_decref(run_sweep("bollinger", one, "--param", periods[s], "--param", "nbdev_up=1.5",
                              NULL, NULL));
        const char *names[] = {"upper", "middle", "lower"};
        for (size_t i = 0; i < 3; i++)
            assert_set_is(dir, one, names[i], s, 2 * 500);
    }
}

Test(cli, sweep_range_equals_the_list_and_writes_sets_csv, .timeout = 60) {
    make_work_dir();
    char list[128], range[128], file[256];
    snprintf(list, sizeof list, "%s/list", work);
    snprintf(range, sizeof range, "%s/range", work);
    json_decref(run_sweep("bollinger", list, "--param", "period=10,20,30", "--param",
                          "nbdev_dn=0.5,2.25", NULL, NULL));
    json_decref(run_sweep("bollinger", range, "--param", "period=10:30:10", "--param",
                          "nbdev_dn=0.5,2.25", NULL, NULL));
    const char *names[] = {"upper", "middle", "lower", "sets"};
    for (size_t i = 0; i < 4; i++) {
        size_t n1 = 0, n2 = 0;
        snprintf(file, sizeof file, "%s/%s.%s", list, names[i], i == 3 ? "csv" : "f64");
        char *a = read_all(file, &n1);
        snprintf(file, sizeof file, "%s/%s.%s", range, names[i], i == 3 ? "csv" : "f64");
        char *b = read_all(file, &n2);
        cr_assert(n1 == n2 && memcmp(a, b, n1) == 0, "%s differs between list and range", names[i]);
        if (i == 3)
            cr_assert_str_eq(a, "set,period,nbdev_dn\n0,10,0.5\n1,10,2.25\n2,20,0.5\n3,20,2.25\n"
                                "4,30,0.5\n5,30,2.25\n");
        else
            cr_assert_eq(n1, 6 * 2 * 500 * sizeof(double));
        free(a);
        free(b);
    }
}

Test(cli, sweep_grid_varies_the_first_parameter_slowest, .timeout = 60) {
    make_work_dir();
    char dir[128], one[128], fast[32], slow[32];
    snprintf(dir, sizeof dir, "%s/grid", work);
    json_t *j = run_sweep("macd", dir, "--param", "fast=4,6", "--param", "slow=20:40:10", "--param",
                          "signal=5");
    cr_assert_eq(json_integer_value(get(j, "sets")), 6);
    json_decref(j);
    const int fasts[] = {4, 6}, slows[] = {20, 30, 40};
    for (size_t f = 0; f < 2; f++)
        for (size_t s = 0; s < 3; s++) {
            snprintf(one, sizeof one, "%s/one_%zu_%zu", work, f, s);
            snprintf(fast, sizeof fast, "fast=%d", fasts[f]);
            snprintf(slow, sizeof slow, "slow=%d", slows[s]);
            json_decref(
                run_sweep("macd", one, "--param", fast, "--param", slow, "--param", "signal=5"));
            assert_set_is(dir, one, "macd", f * 3 + s, 2 * 500);
            assert_set_is(dir, one, "hist", f * 3 + s, 2 * 500);
        }
}

Test(cli, bad_sweeps_are_usage_errors, .timeout = 60) {
    make_work_dir();
    struct {
        const char *a[4];
        const char *want;
    } cases[] = {
        {{"--param", "period=10,,30", NULL, NULL}, "empty item"},
        {{"--param", "period=10,", NULL, NULL}, "empty item"},
        {{"--param", "period=10:25:10", NULL, NULL}, "does not divide"},
        {{"--param", "period=10:30:0", NULL, NULL}, "step must be positive"},
        {{"--param", "period=30:10:5", NULL, NULL}, "range is empty"},
        {{"--param", "period=10:30", NULL, NULL}, "START:STOP:STEP"},
        {{"--param", "period=10,inf", NULL, NULL}, "not a finite number"},
        {{"--param", "period=10,20", "--param", "period=5"}, "period is given twice"},
        {{"--param", "period=2:600:1", "--param", "nbdev_up=1:200:1"}, "more than 65536"},
        {{"--memory", "1G", NULL, NULL}, "--memory applies to a sweep only"},
        {{"--param", "period=10,20", "--memory", "12Q"}, "--memory '12Q'"},
    };
    char out[128];
    snprintf(out, sizeof out, "%s/never", work);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--cols",
                                    "100", "--output", out, cases[c].a[0], cases[c].a[1],
                                    cases[c].a[2], cases[c].a[3]));
        cr_assert_eq(r.status, 2, "case %zu: %s", c, r.err);
        assert_contains(r.err, cases[c].want);
        free_result(&r);
        struct stat st;
        cr_assert_neq(stat(out, &st), 0, "case %zu wrote %s", c, out);
    }
}

/* A bollinger sweep's raw files in `whole` and `pieces` are byte for byte the same. */
static void assert_same_sweep_files(const char *whole, const char *pieces) {
    const char *names[] = {"upper.f64", "middle.f64", "lower.f64", "sets.csv"};
    char file[256];
    for (size_t i = 0; i < 4; i++) {
        size_t n1 = 0, n2 = 0;
        snprintf(file, sizeof file, "%s/%s", whole, names[i]);
        char *a = read_all(file, &n1);
        snprintf(file, sizeof file, "%s/%s", pieces, names[i]);
        char *b = read_all(file, &n2);
        cr_assert(n1 == n2 && memcmp(a, b, n1) == 0, "%s differs with pieces", names[i]);
        free(a);
        free(b);
    }
}

Test(cli, sweep_in_pieces_writes_the_same_files_as_one_piece, .timeout = 60) {
    make_work_dir();
    char whole[128], pieces[128];
    snprintf(whole, sizeof whole, "%s/whole", work);
    snprintf(pieces, sizeof pieces, "%s/pieces", work);
    json_t *j = run_sweep("bollinger", whole, "--param", "period=5:25:5", NULL, NULL, NULL, NULL);
    cr_assert_eq(json_integer_value(get(j, "pieces")), 1);
    json_decref(j);
    /* One set's outputs are 3 x 2 x 500 doubles (24000 bytes): 50K holds two sets, so the
     * five sets run in three pieces, the last of one set. */
    j = run_sweep("bollinger", pieces, "--param", "period=5:25:5", "--memory", "50K", NULL, NULL);
    cr_assert_eq(json_integer_value(get(j, "sets")), 5);
    cr_assert_eq(json_integer_value(get(j, "pieces")), 3);
    json_decref(j);
    assert_same_sweep_files(whole, pieces);
    /* CSV puts the sets side by side: it needs them all at once, and says so. */
    cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--rows", "2",
                                "--cols", "500", "--output", pieces, "--format", "csv", "--param",
                                "period=5:25:5", "--memory", "50K"));
    cr_assert_eq(r.status, 2, "%s", r.err);
    assert_contains(r.err, "--format csv writes a sweep's sets side by side");
    free_result(&r);
}

/* Without --memory, raw outputs go in pieces of about 64 MiB of outputs (docs/cli.md,
 * "Sweeps"): one set of 1 x 1,500,000 is 36 MB of outputs, so three sets take three pieces,
 * and the files are those of one piece. */
Test(cli, sweep_default_pieces_are_small_and_write_the_same_files, .timeout = 120) {
    make_work_dir();
    char whole[128], pieces[128];
    snprintf(whole, sizeof whole, "%s/whole", work);
    snprintf(pieces, sizeof pieces, "%s/pieces", work);
    const char *dirs[2] = {pieces, whole};
    for (size_t d = 0; d < 2; d++) {
        cli_result r =
            run_cli(ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--rows", "1",
                         "--cols", "1500000", "--json", "--output", dirs[d], "--param",
                         "period=10,20,30", d == 0 ? NULL : "--memory", d == 0 ? NULL : "1G"));
        cr_assert_eq(r.status, 0, "%s", r.err);
        json_t *j = parse_json(&r);
        free_result(&r);
        cr_assert_eq(json_integer_value(get(j, "sets")), 3);
        cr_assert_eq(json_integer_value(get(j, "pieces")), d == 0 ? 3 : 1);
        json_decref(j);
    }
    assert_same_sweep_files(whole, pieces);
}

Test(cli, sweep_csv_names_a_column_per_set_and_series, .timeout = 60) {
    make_work_dir();
    char path[128], out[128], file[256];
    snprintf(path, sizeof path, "%s/w.csv", work);
    write_text(path, "date,close,open\nd1,1,2\nd2,2,3\nd3,4,3\nd4,3,5\n");
    snprintf(out, sizeof out, "%s/out", work);
    cli_result r = run_cli(ARGS("run", "--kernel", "bollinger", "--devices", "cpu", "--input", path,
                                "--column", "close,open", "--param", "period=2,3", "--output", out,
                                "--format", "csv"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    free_result(&r);
    snprintf(file, sizeof file, "%s/middle.csv", out);
    size_t n = 0;
    char *text = read_all(file, &n);
    /* Means of the last two and three closes and opens, exact in binary. */
    cr_assert_str_eq(text, "date,close period=2,open period=2,close period=3,open period=3\n"
                           "d1,nan,nan,nan,nan\n"
                           "d2,1.5,2.5,nan,nan\n"
                           "d3,3,3,2.3333333333333335,2.6666666666666665\n"
                           "d4,3.5,4,3,3.6666666666666665\n");
    free(text);
}

/* --input-map (docs/cli.md, "Several inputs"): the kernel's input read from a column of
 * another name gives the bits of --column, in a wide file and a long one; a missing column,
 * a non-numeric column, an input mapped twice and an input the kernel lacks are usage
 * errors that name it and write nothing. */
Test(cli, input_map_reads_named_inputs_and_refuses_bad_maps, .timeout = 120) {
    make_work_dir();
    char path[128];
    snprintf(path, sizeof path, "%s/bars.csv", work);
    static char text[65536];
    size_t o = (size_t)snprintf(text, sizeof text, "Date,Ticker,Price,Note\n");
    unsigned st = 5;
    double x = 100;
    for (int i = 0; i < 300; i++) {
        x += walk_step(&st);
        o += (size_t)snprintf(text + o, sizeof text - o, "d%d,%s,%.17g,n%d\n", i / 2,
                              i % 2 ? "A" : "B", x, i);
    }
    write_text(path, text);
    const char *layouts[2][2] = {{NULL, NULL}, {"--group-by", "Ticker"}};
    for (int l = 0; l < 2; l++) {
        char by_column[160], by_map[160];
        snprintf(by_column, sizeof by_column, "%s/by_column%d", work, l);
        snprintf(by_map, sizeof by_map, "%s/by_map%d", work, l);
        const char *a[] = {"run",      "--kernel",    "bollinger",   "--input", path,
                           "--column", "Price",       "--output",    by_column, "--format",
                           "csv",      layouts[l][0], layouts[l][1], NULL};
        cli_result r = run_cli(a);
        cr_assert_eq(r.status, 0, "%s", r.err);
        free_result(&r);
        const char *b[] = {"run",         "--kernel",    "bollinger",   "--input", path,
                           "--input-map", "CLOSE=Price", "--output",    by_map,    "--format",
                           "csv",         layouts[l][0], layouts[l][1], NULL};
        r = run_cli(b);
        cr_assert_eq(r.status, 0, "%s", r.err);
        free_result(&r);
        for (int f = 0; f < 3; f++) {
            const char *names[3] = {"upper", "middle", "lower"};
            char fa[256], fb[256];
            snprintf(fa, sizeof fa, "%s/%s.csv", by_column, names[f]);
            snprintf(fb, sizeof fb, "%s/%s.csv", by_map, names[f]);
            size_t la = 0, lb = 0;
            char *ta = read_all(fa, &la), *tb = read_all(fb, &lb);
            cr_assert(ta != NULL && tb != NULL && la == lb && memcmp(ta, tb, la) == 0,
                      "layout %d, %s: --input-map differs from --column", l, names[f]);
            free(ta), free(tb);
        }
    }
    const char *bad[][2] = {{"close=Nope", "no column named \"Nope\""},
                            {"close=Note", "expected a number"},
                            {"close=Price,Close=Price", "input close is mapped twice"},
                            {"high=Price", "has no input 'high' (its inputs: close)"},
                            {"close", "is not INPUT=COLUMN"}};
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
        char out[160];
        snprintf(out, sizeof out, "%s/bad%zu", work, c);
        const char *a[] = {"run",         "--kernel", "bollinger", "--input", path,
                           "--input-map", bad[c][0],  "--output",  out,       NULL};
        cli_result r = run_cli(a);
        cr_assert_eq(r.status, 2, "--input-map %s: exit %d", bad[c][0], r.status);
        cr_assert(strstr(r.err, bad[c][1]) != NULL, "--input-map %s: %s", bad[c][0], r.err);
        cr_assert_eq(access(out, F_OK), -1, "--input-map %s wrote %s", bad[c][0], out);
        free_result(&r);
    }
    /* Named inputs come from a CSV file: the generated input cannot give them. */
    const char *gen[] = {"run", "--kernel", "bollinger", "--input-map", "close=Price", NULL};
    cli_result r = run_cli(gen);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "reads the inputs close by name") != NULL, "%s", r.err);
    free_result(&r);
}
