/*
 * The fixtures that every test of the `apportion` command line shares: each case of
 * tests/cli/test_cli_<command>.c starts the built tool (APO_CLI_PATH) as a subprocess with
 * a clean APPORTION_* environment and its profile folders in a private temporary folder
 * (`work`, made by make_work_dir() and removed by cli_cleanup(), the suite's .fini).
 */
#ifndef APO_TEST_CLI_FIXTURES_H
#define APO_TEST_CLI_FIXTURES_H

#include <jansson.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct cli_result {
    int status; /* exit status, or -1 when killed by a signal */
    char *out;
    char *err;
    size_t out_len, err_len;
} cli_result;

/* The private directory of this test case (Criterion runs each case in its own process). */
extern char work[64];

/* The folder the tool runs in, when a case sets it (else the test's own). */
extern const char *child_dir;

/* The file the tool reads as its standard input, when a case sets it (else /dev/null). */
extern const char *child_stdin;

void make_work_dir(void);

/* The path of `name` in this case's private directory (made first when it is not yet,
 * make_work_dir()): a string of its own that lasts until the case's cleanup, so that a case
 * names each of its files in one declaration rather than a buffer and a snprintf of `work`. */
const char *work_path(const char *name);

void remove_tree(const char *path);

char *read_all(const char *path, size_t *len);

/* Starts the tool with argv (NULL-terminated, without the program name) and extra environment
 * entries "NAME=VALUE" (NULL-terminated, may be NULL); finish_cli() waits for it. */
pid_t start_cli(const char *const *env, const char *const *args);

/* Waits for the tool started by start_cli(); *signal_out (when not NULL) gets the signal that
 * ended it, or 0. */
cli_result finish_cli(pid_t pid, int *signal_out);

/* Whether the main thread of the tool started by start_cli() is asleep (state S in
 * /proc/PID/task/PID/stat): a run whose device is still working waits for it there. A test
 * that signals a run during its work waits for this as well as for the run's temporary:
 * GCC 12's ThreadSanitizer loses a signal that lands while a thread allocates its signal
 * state (docs/robustness.md, "Sanitizers"), which the main thread does at its first wait,
 * just after the temporary appears. Every other build ends by the signal at any moment. */
int cli_main_thread_sleeps(pid_t pid);

/* Runs the tool as start_cli() starts it and waits for it. */
cli_result run_cli_env(const char *const *env, const char *const *args);

cli_result run_cli(const char *const *args);

/* run_cli(), failing the test with the tool's stderr unless it exits 0. */
cli_result run_cli_ok(const char *const *args);

/* run_cli_ok() for a run the test reads nothing of but its files: the result is freed. */
void run_cli_ok_free(const char *const *args);

/* run_cli_ok and run_cli_ok_free with `env` added to the environment (run_cli_env). */
cli_result run_cli_env_ok(const char *const *env, const char *const *args);
void run_cli_env_ok_free(const char *const *env, const char *const *args);

void free_result(cli_result *r);

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

#define ENV(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Parses stdout as one JSON object. */
json_t *parse_json(const cli_result *r);

json_t *get(const json_t *o, const char *key);

void assert_contains(const char *text, const char *part);

/* One field a JSON object of the tool's must hold: its key, its kind ('s' a string, 'i' an
 * integer, 'r' a real, 't' true, 'f' false, 'n' null) and, for the first three, its value: a
 * real within tol when tol is not 0, else exactly. Written with the JSON_* macros below. */
typedef struct json_field {
    const char *key;
    char kind;
    const char *s;
    long long i;
    double r, tol;
} json_field;

#define JSON_STR(k, v) ((json_field){.key = (k), .kind = 's', .s = (v)})
#define JSON_INT(k, v) ((json_field){.key = (k), .kind = 'i', .i = (v)})
#define JSON_REAL(k, v, t) ((json_field){.key = (k), .kind = 'r', .r = (v), .tol = (t)})
#define JSON_TRUE(k) ((json_field){.key = (k), .kind = 't'})
#define JSON_FALSE(k) ((json_field){.key = (k), .kind = 'f'})
#define JSON_NULL(k) ((json_field){.key = (k), .kind = 'n'})

/* Fails unless object o holds each of the n fields; a message names what (the object) and the
 * field's key. The fields of a report checked as one table rather than a line each. */
void assert_json_fields(const json_t *o, const json_field *fields, size_t n, const char *what);

/* assert_contains() for each of the NULL-terminated parts (PARTS(...)), in one call: the lines
 * a text report must hold. */
void assert_contains_each(const char *text, const char *const *parts);

#define PARTS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* A tmpfs this case mounted (in its own mount namespace), unmounted before the cleanup. */
extern char mounted[128];

/* Gives this case's process a private mount namespace and mounts a tmpfs with `options` at
 * path; the tools the case starts see it. Returns 0, or -1 where that is not allowed (not
 * root). */
int private_tmpfs(const char *path, const char *options);

void cli_cleanup(void);

/* Skips this case with a message, once what it made is removed (cli_cleanup()): Criterion
 * ends a skipped case by exit() before the suite's .fini runs, and a folder left in TMPDIR
 * fails the run (scripts/test.sh). */
void cli_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Whether the runtime of this machine uses a GPU (the tests expect none on CPU-only hosts
 * and check the GPU branch otherwise). */
size_t gpu_count(void);

char *read_file_n(const char *path, size_t *len);

void write_text(const char *path, const char *text);

/* Two simulated devices on the virtual clock: profiling is fast and exact. sim:a takes
 * 10 ms per million elements and no latency; sim:b 3.33 ms per million and 1 ms. */
#define SIM_DEVICES "APPORTION_DEVICES=sim:a:rate=1e8,sim:b:rate=3e8:latency=1ms"

#define SIM_ENV ENV(SIM_DEVICES, "APPORTION_SIM_CLOCK=virtual")

#define PROFILE_ARGS(...)                                                                          \
    ARGS("profile", "--kernels", "bollinger", "--sizes", "100000,400000", "--runs", "3",           \
         __VA_ARGS__)

void state_path(char *out, size_t size, const char *name);

json_t *load_json_file(const char *path);

int file_exists(const char *path);

/* Checks one device of a profile: a model close to the simulated rate and latency. */
void assert_model(const json_t *d, double latency_ms, double ms_per_melem);

/* One step of a random walk in text, from a seed, for the CSV files the cases write. */
double walk_step(unsigned *state);

/* Writes len bytes to a new file at path (replacing it). */
void write_bytes(const char *path, const void *data, size_t len);

/* Runs the tool and fails the test unless it refuses the call: exit status 2, and stderr
 * holding `message` (when not NULL). */
void run_cli_refused(const char *const *args, const char *message);

/* run_cli_refused with `env` added to the environment (run_cli_env). */
void run_cli_env_refused(const char *const *env, const char *const *args, const char *message);

/* A usage error of one command: its arguments, and the line its stderr must start with. */
typedef struct cli_usage_case {
    const char *const *args;
    const char *msg;
} cli_usage_case;

/* Runs each case (with `env` added, may be NULL) and fails unless it exits 2, its stderr
 * starts with the case's msg and holds "Try 'apportion COMMAND --help'." (COMMAND the case's
 * first argument), and its stdout is empty; each message names the case's index and its
 * command line. */
void assert_usage_errors(const char *const *env, const cli_usage_case *cases, size_t n);

/* assert_usage_errors for cases that begin with the same words: `words` (the command and the
 * options every case gives, NULL-terminated) stand before each case's own arguments. */
void assert_usage_errors_after(const char *const *env, const char *const *words,
                               const cli_usage_case *cases, size_t n);

/* The bytes of DIR/NAME.f64, an output file of a run (read_all). */
char *read_output(const char *dir, const char *name, size_t *len);

/* Fails unless DIR_A/NAME.f64 and DIR_B/NAME.f64 hold the same bytes, not none, for each of
 * the n names: two runs that must give the same outputs. what says how they differ. */
void assert_same_outputs(const char *dir_a, const char *dir_b, const char *const *names, size_t n,
                         const char *what);

/* Fails unless the file at path holds exactly `want` (len bytes): what a refused run must
 * leave as it was. */
void assert_file_is(const char *path, const char *want, size_t len, const char *what);

/* Fails unless files a and b hold the same bytes. */
void assert_same_files(const char *a, const char *b, const char *what);

/* Fails unless the file DIR/NAME holds exactly the text `want`. */
void assert_file_text(const char *dir, const char *name, const char *want);

/* Fails unless seen[s * bars + i] is 1 for every series s and every bar i from `from` on: each
 * bar of a stream's pieces written once. names[s] names series s in the message. */
void assert_each_seen_once(const int *seen, size_t series, size_t bars, size_t from,
                           const char *const *names);

#endif
