/*
 * The fixtures that every test of the `apportion` command line shares (cli_fixtures.h):
 * a private folder per case, the tool started as a subprocess with a clean environment,
 * its output read back, JSON helpers, and the folders and files the cases set up.
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
#include <stdarg.h>
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
#include "test_tmpdir.h"

#ifndef APO_CLI_PATH
#error "APO_CLI_PATH must name the apportion binary"
#endif

extern char **environ;

/* The private directory of this test case (Criterion runs each case in its own process). */
char work[64];

/* The folder the tool runs in, when a case sets it (else the test's own). */
const char *child_dir;

/* The file the tool reads as its standard input, when a case sets it (else /dev/null). */
const char *child_stdin;

void make_work_dir(void) {
    if (work[0] != '\0')
        return;
    snprintf(work, sizeof work, "%s/apo_test_cli_XXXXXX", test_tmpdir());
    cr_assert_not_null(mkdtemp(work), "mkdtemp: %s", strerror(errno));
}

/* The paths work_path() gave this case: each case runs in a process of its own, and
 * cli_cleanup() starts the next one from the first. */
static char work_paths[64][256];
static size_t n_work_paths;

const char *work_path(const char *name) {
    make_work_dir();
    cr_assert_lt(n_work_paths, sizeof work_paths / sizeof work_paths[0],
                 "more paths in one case than work_path() holds");
    char *p = work_paths[n_work_paths++];
    const int len = snprintf(p, sizeof work_paths[0], "%s/%s", work, name);
    cr_assert(len > 0 && (size_t)len < sizeof work_paths[0], "the path of %s is too long", name);
    return p;
}

void remove_tree(const char *path) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    cr_assert_eq(system(cmd), 0);
}

char *read_all(const char *path, size_t *len) {
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
pid_t start_cli(const char *const *env, const char *const *args) {
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
cli_result finish_cli(pid_t pid, int *signal_out) {
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

int cli_main_thread_sleeps(pid_t pid) {
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    const int got = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    /* The state follows the command's name, which is in parentheses and may hold any byte. */
    const char *close = got ? strrchr(line, ')') : NULL;
    return close != NULL && close[1] == ' ' && close[2] == 'S';
}

/* Runs the tool as start_cli() starts it and waits for it. */
cli_result run_cli_env(const char *const *env, const char *const *args) {
    return finish_cli(start_cli(env, args), NULL);
}

cli_result run_cli(const char *const *args) { return run_cli_env(NULL, args); }

cli_result run_cli_ok(const char *const *args) { return run_cli_env_ok(NULL, args); }

void run_cli_ok_free(const char *const *args) { run_cli_env_ok_free(NULL, args); }

cli_result run_cli_env_ok(const char *const *env, const char *const *args) {
    cli_result r = run_cli_env(env, args);
    cr_assert_eq(r.status, 0, "apportion %s: exit %d: %s", args[0], r.status, r.err);
    return r;
}

void run_cli_env_ok_free(const char *const *env, const char *const *args) {
    cli_result r = run_cli_env_ok(env, args);
    free_result(&r);
}

void free_result(cli_result *r) {
    free(r->out);
    free(r->err);
}

/* Parses stdout as one JSON object. */
json_t *parse_json(const cli_result *r) {
    json_error_t e;
    json_t *j = json_loadb(r->out, r->out_len, 0, &e);
    cr_assert_not_null(j, "stdout is not JSON (%s at line %d): %s", e.text, e.line, r->out);
    cr_assert(json_is_object(j));
    cr_assert(r->out_len > 0 && r->out[r->out_len - 1] == '\n', "no final newline");
    return j;
}

json_t *get(const json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    cr_assert_not_null(v, "key \"%s\" is missing", key);
    return v;
}

void assert_contains(const char *text, const char *part) {
    cr_assert_not_null(strstr(text, part), "\"%s\" not found in: %s", part, text);
}

void assert_contains_each(const char *text, const char *const *parts) {
    for (size_t i = 0; parts[i] != NULL; i++)
        assert_contains(text, parts[i]);
}

void assert_json_fields(const json_t *o, const json_field *fields, size_t n, const char *what) {
    for (size_t k = 0; k < n; k++) {
        const json_field *f = &fields[k];
        const json_t *v = get(o, f->key);
        switch (f->kind) {
        case 's':
            cr_assert(json_is_string(v) && strcmp(json_string_value(v), f->s) == 0,
                      "%s: %s is not \"%s\"", what, f->key, f->s);
            break;
        case 'i':
            cr_assert(json_is_integer(v) && json_integer_value(v) == f->i,
                      "%s: %s is %lld, not %lld", what, f->key, (long long)json_integer_value(v),
                      f->i);
            break;
        case 'r':
            cr_assert(json_is_real(v) && (f->tol != 0 ? fabs(json_real_value(v) - f->r) < f->tol
                                                      : json_real_value(v) == f->r),
                      "%s: %s is %.17g, not %.17g", what, f->key, json_real_value(v), f->r);
            break;
        case 't':
            cr_assert(json_is_true(v), "%s: %s is not true", what, f->key);
            break;
        case 'f':
            cr_assert(json_is_false(v), "%s: %s is not false", what, f->key);
            break;
        default:
            cr_assert(f->kind == 'n' && json_is_null(v), "%s: %s is not null", what, f->key);
        }
    }
}

/* A tmpfs this case mounted (in its own mount namespace), unmounted before the cleanup. */
char mounted[128];

/* Gives this case's process a private mount namespace and mounts a tmpfs with `options` at
 * path; the tools the case starts see it. Returns 0, or -1 where that is not allowed (not
 * root). */
int private_tmpfs(const char *path, const char *options) {
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return -1;
    if (mount("tmpfs", path, "tmpfs", 0, options) != 0)
        return -1;
    snprintf(mounted, sizeof mounted, "%s", path);
    return 0;
}

void cli_cleanup(void) {
    if (mounted[0] != '\0')
        umount2(mounted, MNT_DETACH);
    mounted[0] = '\0';
    if (work[0] != '\0')
        remove_tree(work);
    work[0] = '\0';
    n_work_paths = 0;
}

void cli_skip(const char *fmt, ...) {
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    cli_cleanup();
    cr_skip_test("%s", why);
}

/* Whether the runtime of this machine uses a GPU (the tests expect none on CPU-only hosts
 * and check the GPU branch otherwise). */
size_t gpu_count(void) {
    cli_result r = run_cli(ARGS("devices", "--json"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *j = parse_json(&r);
    const json_int_t n = json_integer_value(get(j, "gpu_count"));
    json_decref(j);
    free_result(&r);
    return (size_t)n;
}

char *read_file_n(const char *path, size_t *len) { return read_all(path, len); }

void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fputs(text, f) >= 0, 1);
    cr_assert_eq(fclose(f), 0);
}

void state_path(char *out, size_t size, const char *name) {
    make_work_dir();
    snprintf(out, size, "%s/state/%s", work, name);
}

json_t *load_json_file(const char *path) {
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    cr_assert_not_null(j, "%s is not JSON (%s at line %d)", path, e.text, e.line);
    cr_assert(json_is_object(j), "%s is not an object", path);
    return j;
}

int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Checks one device of a profile: a model close to the simulated rate and latency. */
void assert_model(const json_t *d, double latency_ms, double ms_per_melem) {
    const double lat = json_number_value(get(d, "latency_ms"));
    const double cost = json_number_value(get(d, "ms_per_melem"));
    cr_assert(fabs(lat - latency_ms) < 0.02, "latency_ms %g, want %g", lat, latency_ms);
    cr_assert(fabs(cost - ms_per_melem) < 0.01 * ms_per_melem, "ms_per_melem %g, want %g", cost,
              ms_per_melem);
}

double walk_step(unsigned *state) {
    *state = *state * 1103515245u + 12345u;
    return ((double)(*state >> 8) / (double)(1u << 24)) - 0.5;
}

void write_bytes(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    cr_assert_eq(fwrite(data, 1, len, f), len, "short write to %s", path);
    cr_assert_eq(fclose(f), 0);
}

void run_cli_refused(const char *const *args, const char *message) {
    run_cli_env_refused(NULL, args, message);
}

void run_cli_env_refused(const char *const *env, const char *const *args, const char *message) {
    cli_result r = run_cli_env(env, args);
    cr_assert_eq(r.status, 2, "apportion %s: exit %d, want 2: %s", args[0], r.status, r.err);
    if (message != NULL)
        assert_contains(r.err, message);
    free_result(&r);
}

void assert_usage_errors_after(const char *const *env, const char *const *words,
                               const cli_usage_case *cases, size_t n) {
    for (size_t i = 0; i < n; i++) {
        /* The case's whole command line, as args and as the text its messages name it by. */
        const char *args[32];
        char line[512] = "";
        const char *const *parts[2] = {words, cases[i].args};
        size_t k = 0;
        for (size_t p = 0; p < 2; p++)
            for (size_t j = 0; parts[p] != NULL && parts[p][j] != NULL; j++) {
                cr_assert_lt(k + 1, sizeof args / sizeof args[0], "case %zu: too many arguments",
                             i);
                args[k++] = parts[p][j];
                const size_t used = strlen(line);
                snprintf(line + used, sizeof line - used, " %s", parts[p][j]);
            }
        args[k] = NULL;
        cli_result r = run_cli_env(env, args);
        cr_assert_eq(r.status, 2, "case %zu (apportion%s): status %d (%s)", i, line, r.status,
                     r.err);
        cr_assert(strncmp(r.err, cases[i].msg, strlen(cases[i].msg)) == 0,
                  "case %zu (apportion%s): stderr %s", i, line, r.err);
        char try_help[96];
        snprintf(try_help, sizeof try_help, "Try 'apportion %s --help'.", args[0]);
        cr_assert_not_null(strstr(r.err, try_help),
                           "case %zu (apportion%s): \"%s\" not found in: %s", i, line, try_help,
                           r.err);
        cr_assert_eq(r.out_len, 0, "case %zu (apportion%s): stdout %s", i, line, r.out);
        free_result(&r);
    }
}

void assert_usage_errors(const char *const *env, const cli_usage_case *cases, size_t n) {
    assert_usage_errors_after(env, NULL, cases, n);
}

char *read_output(const char *dir, const char *name, size_t *len) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.f64", dir, name);
    return read_all(path, len);
}

void assert_same_outputs(const char *dir_a, const char *dir_b, const char *const *names, size_t n,
                         const char *what) {
    for (size_t i = 0; i < n; i++) {
        size_t la = 0, lb = 0;
        char *da = read_output(dir_a, names[i], &la), *db = read_output(dir_b, names[i], &lb);
        cr_assert(la == lb && la > 0 && memcmp(da, db, la) == 0,
                  "%s %s (%zu and %zu bytes in %s and %s)", names[i], what, la, lb, dir_a, dir_b);
        free(da);
        free(db);
    }
}

void assert_file_is(const char *path, const char *want, size_t len, const char *what) {
    size_t now_len = 0;
    char *now = read_all(path, &now_len);
    cr_assert(now != NULL && now_len == len && memcmp(now, want, len) == 0,
              "%s: %s is not as it was", what, path);
    free(now);
}

void assert_same_files(const char *a, const char *b, const char *what) {
    size_t a_len = 0, b_len = 0;
    char *a_text = read_all(a, &a_len), *b_text = read_all(b, &b_len);
    cr_assert(a_len == b_len && memcmp(a_text, b_text, a_len) == 0, "%s: %s and %s differ", what, a,
              b);
    free(a_text);
    free(b_text);
}

void assert_file_text(const char *dir, const char *name, const char *want) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len = 0;
    char *text = read_all(path, &len);
    cr_assert_str_eq(text, want, "%s", path);
    free(text);
}

void assert_each_seen_once(const int *seen, size_t series, size_t bars, size_t from,
                           const char *const *names) {
    for (size_t s = 0; s < series; s++)
        for (size_t i = from; i < bars; i++)
            cr_assert_eq(seen[s * bars + i], 1, "series %s bar %zu written %d times", names[s], i,
                         seen[s * bars + i]);
}
