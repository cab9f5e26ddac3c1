/*
 * Fuzz target: the option parsing of every `apportion` command (cli/options.h and
 * cli_parse_json_devices() in cli/option_table.h), never running a command. The input is split at
 * each NUL or line feed into argv, each argument in an allocation of its own (so that ASan
 * sees a read past its end); the first is the command's name, as main() passes it: devices,
 * run, profile, show, set-ratios, selftest or stream (anything else is ignored).
 *
 * Checked beyond "no crash, no leak" (the parsers allocate, and *_free() must release all):
 * - the result is one of the documented exit statuses, and a usage error leaves nothing to
 *   run;
 * - after a successful parse the options are what the command's help promises: every string
 *   points into argv, numbers are within their bounds, options that need another have it,
 *   and lists hold distinct, valid items within their limits.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fuzz_check.h"
#include "option_table.h"
#include "options.h"

#define MAX_ARGS 64

typedef struct args {
    int argc;
    char *argv[MAX_ARGS + 1];
} args;

static void split(const uint8_t *data, size_t size, args *a) {
    a->argc = 0;
    size_t start = 0;
    for (size_t i = 0; i <= size && a->argc < MAX_ARGS; i++) {
        if (i < size && data[i] != '\0' && data[i] != '\n')
            continue;
        size_t len = i - start;
        char *arg = malloc(len + 1);
        FUZZ_CHECK(arg != NULL, "out of memory");
        if (len > 0)
            memcpy(arg, data + start, len);
        arg[len] = '\0';
        a->argv[a->argc++] = arg;
        start = i + 1;
    }
    a->argv[a->argc] = NULL;
}

/* NULL, or a pointer into one of the arguments (a whole one, or the value after '='). */
static void check_in_argv(const args *a, const char *p, const char *what) {
    if (p == NULL)
        return;
    for (int i = 0; i < a->argc; i++)
        if (p >= a->argv[i] && p <= a->argv[i] + strlen(a->argv[i]))
            return;
    FUZZ_CHECK(0, "%s does not point into argv", what);
}

static void check_run(args *a) {
    cli_run_options o;
    cli_run_options_init(&o);
    int help = 0;
    int rc = cli_run_parse_options(a->argc, a->argv, &o, &help);
    FUZZ_CHECK(rc == CLI_EXIT_OK || rc == CLI_EXIT_USAGE || rc == CLI_EXIT_FAILURE, "run: %d", rc);
    if (rc == CLI_EXIT_OK && !help) {
        FUZZ_CHECK(o.kernel != NULL && o.kernel[0] != '\0', "run: no kernel");
        check_in_argv(a, o.kernel, "--kernel");
        check_in_argv(a, o.input, "--input");
        check_in_argv(a, o.column, "--column");
        check_in_argv(a, o.output, "--output");
        check_in_argv(a, o.ratios, "--ratios");
        check_in_argv(a, o.devices, "--devices");
        FUZZ_CHECK(!o.rows_set || o.rows > 0, "run: --rows 0");
        FUZZ_CHECK(!o.cols_set || o.cols > 0, "run: --cols 0");
        FUZZ_CHECK(!(o.input != NULL && o.cols_set), "run: --cols with --input");
        FUZZ_CHECK(o.input != NULL ||
                       (o.column == NULL && !o.input_format_set && !o.missing_as_nan),
                   "run: --column, --input-format or --missing-as-nan without --input");
        FUZZ_CHECK(o.input == NULL || o.input[0] != '\0', "run: empty --input");
        FUZZ_CHECK(o.output != NULL || !o.format_set, "run: --format without --output");
        FUZZ_CHECK(o.output == NULL || o.output[0] != '\0', "run: empty --output");
        FUZZ_CHECK(o.format == CLI_FORMAT_F64 || o.format == CLI_FORMAT_CSV, "run: format %d",
                   (int)o.format);
        FUZZ_CHECK(o.split == APO_SPLIT_AUTO || o.split == APO_SPLIT_ROWS ||
                       o.split == APO_SPLIT_TIME,
                   "run: split %d", (int)o.split);
        FUZZ_CHECK(o.given.n_params <= CLI_RUN_MAX_PARAMS, "run: %zu params", o.given.n_params);
        for (size_t i = 0; i < o.given.n_params; i++) {
            FUZZ_CHECK(o.given.params[i].name == o.given.param_names[i] &&
                           o.given.param_names[i][0] != '\0',
                       "run: param %zu name", i);
            FUZZ_CHECK(strchr(o.given.param_names[i], '=') == NULL, "run: param name \"%s\"",
                       o.given.param_names[i]);
            FUZZ_CHECK(isfinite(o.given.params[i].value), "run: param %s = %g",
                       o.given.param_names[i], o.given.params[i].value);
            for (size_t k = 0; k < i; k++)
                FUZZ_CHECK(strcmp(o.given.param_names[k], o.given.param_names[i]) != 0,
                           "run: --param %s twice", o.given.param_names[i]);
        }
        /* A sweep: distinct names, finite values, and the product of the counts within the
         * library's bound. */
        size_t sets = 1;
        for (size_t i = 0; i < o.given.n_sweep; i++) {
            FUZZ_CHECK(o.given.sweep[i].name == o.given.sweep_names[i] &&
                           o.given.sweep_names[i][0] != '\0' &&
                           strchr(o.given.sweep_names[i], '=') == NULL,
                       "run: sweep %zu name", i);
            FUZZ_CHECK(o.given.sweep[i].n_values >= 1, "run: sweep %s without values",
                       o.given.sweep_names[i]);
            for (size_t k = 0; k < o.given.sweep[i].n_values; k++)
                FUZZ_CHECK(isfinite(o.given.sweep[i].values[k]), "run: sweep %s value %g",
                           o.given.sweep_names[i], o.given.sweep[i].values[k]);
            for (size_t k = 0; k < o.given.n_params; k++)
                FUZZ_CHECK(strcmp(o.given.param_names[k], o.given.sweep_names[i]) != 0,
                           "run: --param %s fixed and swept", o.given.sweep_names[i]);
            for (size_t k = 0; k < i; k++)
                FUZZ_CHECK(strcmp(o.given.sweep_names[k], o.given.sweep_names[i]) != 0,
                           "run: --param %s swept twice", o.given.sweep_names[i]);
            sets *= o.given.sweep[i].n_values;
        }
        FUZZ_CHECK(o.given.sweep_sets == sets && sets <= APO_MAX_SWEEP_SETS, "run: %zu sets", sets);
        FUZZ_CHECK(o.memory == 0 || o.given.n_sweep > 0, "run: --memory without a sweep");
        /* --score: a rule named, the ranking's options only with it, and no --format. */
        check_in_argv(a, o.score, "--score");
        FUZZ_CHECK(o.score == NULL || o.score[0] != '\0', "run: empty --score");
        FUZZ_CHECK(o.top >= 1 && o.by >= 0 && o.by < APO_N_SCORES, "run: --top %zu --by %d", o.top,
                   o.by);
        FUZZ_CHECK(o.score != NULL || (o.top == CLI_RUN_DEFAULT_TOP && o.by == APO_SCORE_SHARPE),
                   "run: --top or --by without --score");
        FUZZ_CHECK(o.score == NULL || !o.format_set, "run: --format with --score");
    }
    cli_run_options_free(&o);
}

static void check_profile(args *a) {
    cli_profile_options o;
    cli_profile_options_init(&o);
    int help = 0;
    int rc = cli_profile_parse_options(a->argc, a->argv, &o, &help);
    FUZZ_CHECK(rc == CLI_EXIT_OK || rc == CLI_EXIT_USAGE || rc == CLI_EXIT_FAILURE, "profile: %d",
               rc);
    FUZZ_CHECK(o.n_kernels <= CLI_PROFILE_MAX_KERNELS, "profile: %zu kernels", o.n_kernels);
    if (rc == CLI_EXIT_OK && !help) {
        FUZZ_CHECK(o.n_kernels >= 1, "profile: no kernel");
        for (size_t i = 0; i < o.n_kernels; i++) {
            size_t len = strlen(o.kernels[i]);
            FUZZ_CHECK(len >= 1 && len < APO_NAME_MAX && strchr(o.kernels[i], ',') == NULL,
                       "profile: kernel \"%s\"", o.kernels[i]);
            for (size_t k = 0; k < i; k++)
                FUZZ_CHECK(strcmp(o.kernels[k], o.kernels[i]) != 0, "profile: %s twice",
                           o.kernels[i]);
        }
        FUZZ_CHECK(o.n_sizes <= CLI_PROFILE_MAX_SIZES, "profile: %zu sizes", o.n_sizes);
        size_t distinct = 0;
        for (size_t i = 0; i < o.n_sizes; i++) {
            FUZZ_CHECK(o.sizes[i] > 0, "profile: size 0");
            size_t k = 0;
            while (k < i && o.sizes[k] != o.sizes[i])
                k++;
            distinct += k == i;
        }
        FUZZ_CHECK(o.n_sizes == 0 || distinct >= 2, "profile: %zu distinct sizes", distinct);
        /* With --sizes the shares are solved at a size of the user's or at the largest one,
         * never at the library's default, which may lie far outside them. */
        FUZZ_CHECK(o.n_sizes == 0 || o.sample_size > 0, "profile: no sample size");
        FUZZ_CHECK(o.runs >= 1 && o.runs <= CLI_PROFILE_MAX_RUNS, "profile: runs %u", o.runs);
        FUZZ_CHECK(o.older_text == NULL || (isfinite(o.older_s) && o.older_s > 0),
                   "profile: --if-older-than %g", o.older_s);
        check_in_argv(a, o.kernels_text, "--kernels");
        check_in_argv(a, o.older_text, "--if-older-than");
        check_in_argv(a, o.devices, "--devices");
    }
    cli_profile_options_free(&o);
}

static void check_set_ratios(args *a) {
    cli_set_ratios_options o;
    cli_set_ratios_options_init(&o);
    int help = 0;
    int rc = cli_set_ratios_parse_options(a->argc, a->argv, &o, &help);
    FUZZ_CHECK(rc == CLI_EXIT_OK || rc == CLI_EXIT_USAGE || rc == CLI_EXIT_FAILURE,
               "set-ratios: %d", rc);
    FUZZ_CHECK(o.n <= APO_MAX_DEVICES, "set-ratios: %zu items", o.n);
    if (rc == CLI_EXIT_OK && !help) {
        FUZZ_CHECK(o.tag != NULL && o.tag[0] != '\0' && strlen(o.tag) < APO_TAG_MAX,
                   "set-ratios: tag");
        for (const char *c = o.tag; *c != '\0'; c++)
            FUZZ_CHECK((unsigned char)*c >= 0x20 && *c != 0x7f,
                       "set-ratios: a control character in the tag");
        check_in_argv(a, o.tag, "--workload");
        check_in_argv(a, o.devices, "--devices");
        FUZZ_CHECK(o.clear == (o.n == 0), "set-ratios: --clear with %zu items", o.n);
        int positive = 0;
        for (size_t i = 0; i < o.n; i++) {
            FUZZ_CHECK(o.ids[i] != NULL && o.ids[i][0] != '\0' && strchr(o.ids[i], ',') == NULL,
                       "set-ratios: id %zu", i);
            FUZZ_CHECK(isfinite(o.ratios[i]) && o.ratios[i] >= 0, "set-ratios: ratio %g",
                       o.ratios[i]);
            positive |= o.ratios[i] > 0;
        }
        FUZZ_CHECK(o.clear || positive, "set-ratios: every ratio is 0");
    }
    cli_set_ratios_options_free(&o);
}

static void check_selftest(args *a) {
    cli_selftest_options o;
    cli_selftest_options_init(&o);
    int rc = cli_selftest_parse_options(a->argc, a->argv, &o);
    FUZZ_CHECK(rc == -1 || rc == CLI_EXIT_OK || rc == CLI_EXIT_USAGE, "selftest: %d", rc);
    if (rc == -1) {
        FUZZ_CHECK(o.n_shapes >= 1 && o.n_shapes <= CLI_SELFTEST_MAX_SHAPES, "selftest: %zu shapes",
                   o.n_shapes);
        for (size_t i = 0; i < o.n_shapes; i++)
            FUZZ_CHECK(o.shapes[i].rows > 0 && o.shapes[i].cols > 0 &&
                           o.shapes[i].cols <= SIZE_MAX / sizeof(double) / o.shapes[i].rows,
                       "selftest: shape %zu x %zu", o.shapes[i].rows, o.shapes[i].cols);
        FUZZ_CHECK(o.gpu_mb >= CLI_SELFTEST_MIN_GPU_MB && o.gpu_mb <= CLI_SELFTEST_MAX_GPU_MB,
                   "selftest: --gpu-memory-mb %zu", o.gpu_mb);
        check_in_argv(a, o.devices, "--devices");
    }
}

static void check_stream(args *a) {
    cli_stream_options o;
    cli_stream_options_init(&o);
    int help = 0;
    int rc = cli_stream_parse_options(a->argc, a->argv, &o, &help);
    FUZZ_CHECK(rc == CLI_EXIT_OK || rc == CLI_EXIT_USAGE || rc == CLI_EXIT_FAILURE, "stream: %d",
               rc);
    FUZZ_CHECK(o.given.n_params <= CLI_RUN_MAX_PARAMS, "stream: %zu params", o.given.n_params);
    if (rc == CLI_EXIT_OK && !help) {
        FUZZ_CHECK(o.state != NULL && o.state[0] != '\0', "stream: no --state");
        check_in_argv(a, o.state, "--state");
        check_in_argv(a, o.kernel, "--kernel");
        check_in_argv(a, o.devices, "--devices");
        FUZZ_CHECK(o.input != NULL && o.output != NULL, "stream: no input or output");
        FUZZ_CHECK(strcmp(o.output, o.state) != 0, "stream: the output is the state");
        FUZZ_CHECK(o.series <= APO_STREAM_MAX_SERIES, "stream: --series %zu", o.series);
        FUZZ_CHECK(o.old_rows == CLI_OLD_ROWS_REFUSE || o.old_rows == CLI_OLD_ROWS_SKIP ||
                       o.old_rows == CLI_OLD_ROWS_ACCEPT,
                   "stream: --old-rows %d", (int)o.old_rows);
        for (size_t i = 0; i < o.given.n_params; i++) {
            FUZZ_CHECK(o.given.params[i].name != NULL && o.given.params[i].name[0] != '\0',
                       "stream: param %zu", i);
            FUZZ_CHECK(isfinite(o.given.params[i].value), "stream: param %s = %g",
                       o.given.params[i].name, o.given.params[i].value);
            for (size_t k = 0; k < i; k++)
                FUZZ_CHECK(strcmp(o.given.params[i].name, o.given.params[k].name) != 0,
                           "stream: param %s twice", o.given.params[i].name);
        }
    }
    cli_stream_options_free(&o);
}

static void check_json_devices(args *a, const char *command) {
    int json = 0;
    const char *devices = NULL;
    int rc = cli_parse_json_devices(command, "help\n", a->argc, a->argv, &json, &devices);
    FUZZ_CHECK(rc == -1 || rc == CLI_EXIT_OK || rc == CLI_EXIT_USAGE, "%s: %d", command, rc);
    if (rc == -1)
        check_in_argv(a, devices, "--devices");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    args a;
    split(data, size, &a);
    const char *command = a.argv[0];
    if (strcmp(command, "run") == 0)
        check_run(&a);
    else if (strcmp(command, "profile") == 0)
        check_profile(&a);
    else if (strcmp(command, "set-ratios") == 0)
        check_set_ratios(&a);
    else if (strcmp(command, "selftest") == 0)
        check_selftest(&a);
    else if (strcmp(command, "stream") == 0)
        check_stream(&a);
    else if (strcmp(command, "devices") == 0 || strcmp(command, "show") == 0)
        check_json_devices(&a, command);
    for (int i = 0; i < a.argc; i++)
        free(a.argv[i]);
    return 0;
}
