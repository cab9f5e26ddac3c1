/*
 * `apportion run`: distribute one workload across the devices and print the report.
 *
 * The input is a file (raw float64 or one CSV column) or, by default, a seeded random walk
 * (input.h). Every value the user gives is checked before any work is done; the library's
 * own validation (kernel, parameters, devices, ratios) is reported as a usage error too.
 */
#include "cli.h"
#include "csv.h"
#include "host_arrays.h"
#include "input.h"
#include "json_report.h"
#include "options.h"
#include "output_files.h"
#include "random_walk.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_ROWS 1
#define DEFAULT_COLS 100000

static const char run_help[] =
    "Usage: apportion run --kernel K [--rows R --cols C | --input FILE [--column NAME]\n"
    "                     [--missing-as-nan] [--rows R]] [--param k=v ...] [--output DIR]\n"
    "                     [--format f64|csv]\n"
    "                     [--seed S] [--ratios ID=R,...] [--split rows|time|auto]\n"
    "                     [--devices LIST] [--no-learn] [--json]\n"
    "\n"
    "Distribute one workload across the devices and print the report.\n"
    "\n"
    "Workload:\n"
    "  --kernel K           kernel to run (bollinger, macd, ...)\n"
    "  --param k=v          kernel parameter, repeatable (bollinger: period, nbdev_up,\n"
    "                       nbdev_dn; macd: fast, slow, signal); others take their defaults\n"
    "  --rows R, --cols C   shape of the generated input: R series of C samples\n"
    "                       (default 1 x 100000), a random walk from --seed\n"
    "  --seed S             seed of the generated input and of the workload (default 1)\n"
    "  --input FILE         read the input instead: raw little-endian float64 when FILE ends\n"
    "                       in .f64 or .bin, else CSV with a header line; - reads standard\n"
    "                       input (CSV unless --input-format f64); --rows R cuts it into R\n"
    "                       series of equal length (default 1)\n"
    "  --input-format F     f64 or csv, overriding the file name\n"
    "  --column NAME        CSV column to read (default: the only column, else 'close')\n"
    "  --missing-as-nan     CSV: read empty fields and NA, N/A, #N/A, null, None as NaN\n"
    "\n"
    "Distribution:\n"
    "  --devices LIST       device list as in APPORTION_DEVICES (overrides it), e.g.\n"
    "                       cpu,sim:a:rate=1e6\n"
    "  --ratios ID=R,...    explicit shares by device id (as 'apportion devices' shows;\n"
    "                       cuda:N names the Nth GPU); devices not listed get 0\n"
    "  --split AXIS         rows, time or auto (default: the runtime chooses)\n"
    "  --no-learn           leave the stored models as they are: this run refines none\n"
    "                       and writes no profile file\n"
    "\n"
    "Output:\n"
    "  --output DIR         write each output to DIR/<name>.f64 (created if missing)\n"
    "  --format F           f64 (default) or csv: DIR/<name>.csv\n"
    "  --json               print the report as one JSON object\n"
    "  -h, --help           show this help\n"
    "\n"
    "Options that take one value may be given once; --param once per name.\n"
    "Exit status: 0 success, 1 runtime failure, 2 usage error.\n";

void cli_run_options_init(cli_run_options *o) {
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->split = APO_SPLIT_AUTO;
    o->format = CLI_FORMAT_F64;
    o->input_format = CLI_FORMAT_AUTO;
}

void cli_run_options_free(cli_run_options *o) {
    for (size_t i = 0; i < o->n_params; i++)
        free(o->param_names[i]);
}

static int add_param(cli_run_options *o, const char *text) {
    const char *eq = strchr(text, '=');
    if (eq == NULL || eq == text)
        return cli_usage_error("run", "--param '%s': expected NAME=VALUE", text);
    const size_t n = (size_t)(eq - text);
    double v;
    if (cli_parse_double(eq + 1, &v) != 0)
        return cli_usage_error("run", "--param '%s': '%s' is not a finite number", text, eq + 1);
    for (size_t i = 0; i < o->n_params; i++)
        if (strlen(o->param_names[i]) == n && strncmp(o->param_names[i], text, n) == 0)
            return cli_usage_error("run", "--param %.*s is given twice", (int)n, text);
    if (o->n_params == CLI_RUN_MAX_PARAMS)
        return cli_usage_error("run", "too many --param options (at most %d)", CLI_RUN_MAX_PARAMS);
    char *name = malloc(n + 1);
    if (name == NULL) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    memcpy(name, text, n);
    name[n] = '\0';
    o->param_names[o->n_params] = name;
    o->params[o->n_params].name = name;
    o->params[o->n_params].value = v;
    o->n_params++;
    return CLI_EXIT_OK;
}

int cli_run_parse_options(int argc, char **argv, cli_run_options *o, int *help) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int r;
#define VALUE(name) ((r = cli_value_once("run", argc, argv, &i, name, &v)) != 0)
#define REPEATABLE(name) ((r = cli_value("run", argc, argv, &i, name, &v)) != 0)
        if (cli_flag(a, "--help") || cli_flag(a, "-h")) {
            *help = 1;
            return CLI_EXIT_OK;
        } else if (cli_flag(a, "--json")) {
            o->json = 1;
            continue;
        } else if (cli_flag(a, "--missing-as-nan")) {
            o->missing_as_nan = 1;
            continue;
        } else if (cli_flag(a, "--no-learn")) {
            o->no_learn = 1;
            continue;
        } else if (VALUE("--kernel")) {
            if (r > 0)
                o->kernel = v;
        } else if (VALUE("--rows")) {
            if (r > 0 && (cli_parse_size(v, &o->rows) != 0 || o->rows == 0))
                return cli_usage_error("run", "--rows '%s': expected a positive integer", v);
            o->rows_set = 1;
        } else if (VALUE("--cols")) {
            if (r > 0 && (cli_parse_size(v, &o->cols) != 0 || o->cols == 0))
                return cli_usage_error("run", "--cols '%s': expected a positive integer", v);
            o->cols_set = 1;
        } else if (VALUE("--input")) {
            if (r > 0)
                o->input = v;
        } else if (VALUE("--column")) {
            if (r > 0)
                o->column = v;
        } else if (VALUE("--input-format")) {
            if (r > 0 && cli_format_parse(v, &o->input_format) != 0)
                return cli_usage_error("run", "--input-format '%s': expected f64 or csv", v);
            o->input_format_set = 1;
        } else if (VALUE("--output")) {
            if (r > 0)
                o->output = v;
        } else if (VALUE("--format")) {
            if (r > 0 && cli_format_parse(v, &o->format) != 0)
                return cli_usage_error("run", "--format '%s': expected f64 or csv", v);
            o->format_set = 1;
        } else if (VALUE("--seed")) {
            if (r > 0 && cli_parse_u64(v, &o->seed) != 0)
                return cli_usage_error(
                    "run", "--seed '%s': expected an integer from 0 to 18446744073709551615", v);
        } else if (VALUE("--ratios")) {
            if (r > 0)
                o->ratios = v;
        } else if (VALUE("--split")) {
            if (r > 0) {
                if (strcmp(v, "rows") == 0)
                    o->split = APO_SPLIT_ROWS;
                else if (strcmp(v, "time") == 0)
                    o->split = APO_SPLIT_TIME;
                else if (strcmp(v, "auto") == 0)
                    o->split = APO_SPLIT_AUTO;
                else
                    return cli_usage_error("run", "--split '%s': expected rows, time or auto", v);
            }
        } else if (VALUE("--devices")) {
            if (r > 0)
                o->devices = v;
        } else if (REPEATABLE("--param")) {
            if (r > 0) {
                int rc = add_param(o, v);
                if (rc != CLI_EXIT_OK)
                    return rc;
            }
        } else if (a[0] == '-') {
            return cli_usage_error("run", "unknown option '%s'", a);
        } else {
            return cli_usage_error("run", "unexpected argument '%s'", a);
        }
#undef VALUE
#undef REPEATABLE
        if (r < 0)
            return CLI_EXIT_USAGE;
    }
    if (o->kernel == NULL)
        return cli_usage_error("run", "missing --kernel");
    if (o->kernel[0] == '\0')
        return cli_usage_error("run", "--kernel: empty name");
    if (o->input != NULL && o->cols_set)
        return cli_usage_error("run", "--cols cannot be combined with --input: the file gives "
                                      "the length (use --rows to cut it into series)");
    if (o->input == NULL && o->column != NULL)
        return cli_usage_error("run", "--column needs --input");
    if (o->input == NULL && o->input_format_set)
        return cli_usage_error("run", "--input-format needs --input");
    if (o->input == NULL && o->missing_as_nan)
        return cli_usage_error("run", "--missing-as-nan needs --input");
    if (o->input != NULL && o->input[0] == '\0')
        return cli_usage_error("run", "--input: empty file name (- reads standard input)");
    if (o->output == NULL && o->format_set)
        return cli_usage_error("run", "--format needs --output");
    if (o->output != NULL && o->output[0] == '\0')
        return cli_usage_error("run", "--output: empty directory name");
    return CLI_EXIT_OK;
}

/* Matches one --ratios id against the runtime's devices: the exact id, or `cuda:N` for the
 * GPU labelled "cuda:N ...". Returns the device index or n when nothing matches. */
static size_t match_device(const apo_device_info *devs, size_t n, const char *id) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(devs[i].id, id) == 0)
            return i;
    if (strncmp(id, "cuda:", 5) == 0) {
        const size_t len = strlen(id);
        for (size_t i = 0; i < n; i++)
            if (devs[i].kind == APO_DEVICE_CUDA && strncmp(devs[i].label, id, len) == 0 &&
                (devs[i].label[len] == ' ' || devs[i].label[len] == '\0'))
                return i;
    }
    return n;
}

static void list_ids(char *dst, size_t size, const apo_device_info *devs, size_t n) {
    size_t o = 0;
    dst[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        int w = snprintf(dst + o, size - o, "%s%s", i ? ", " : "", devs[i].id);
        if (w < 0 || (size_t)w >= size - o)
            return;
        o += (size_t)w;
    }
}

/* Parses "ID=R,ID=R,..." into ratios[n] in device order (unlisted devices get 0). */
static int parse_ratios(const apo_runtime *rt, const char *text, double *ratios, size_t *n_out) {
    apo_device_info devs[APO_MAX_DEVICES];
    size_t n = 0;
    apo_status st = apo_device_count(rt, &n);
    if (st != APO_OK)
        return cli_status_error(st, "cannot query the devices");
    if (n > APO_MAX_DEVICES)
        n = APO_MAX_DEVICES;
    for (size_t i = 0; i < n; i++) {
        apo_device_info init = {.size = sizeof(apo_device_info)};
        devs[i] = init;
        st = apo_device_get(rt, i, &devs[i]);
        if (st != APO_OK)
            return cli_status_error(st, "cannot describe a device");
    }
    int given[APO_MAX_DEVICES] = {0};
    for (size_t i = 0; i < n; i++)
        ratios[i] = 0.0;
    char ids[1024];
    list_ids(ids, sizeof ids, devs, n);
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        const size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        char item[256];
        if (len == 0)
            return cli_usage_error("run", "--ratios '%s': empty item", text);
        if (len >= sizeof item)
            return cli_usage_error("run", "--ratios: item '%.40s...' is too long", p);
        memcpy(item, p, len);
        item[len] = '\0';
        char *eq = strrchr(item, '=');
        if (eq == NULL || eq == item)
            return cli_usage_error("run", "--ratios: item '%s': expected ID=RATIO", item);
        *eq = '\0';
        double v;
        if (cli_parse_double(eq + 1, &v) != 0 || v < 0)
            return cli_usage_error(
                "run", "--ratios: '%s' for device %s is not a finite number >= 0", eq + 1, item);
        const size_t d = match_device(devs, n, item);
        if (d == n)
            return cli_usage_error("run", "--ratios: no device '%s' in this run (devices: %s)",
                                   item, ids);
        if (given[d])
            return cli_usage_error("run", "--ratios: device %s is given twice", devs[d].id);
        given[d] = 1;
        ratios[d] = v;
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    *n_out = n;
    return CLI_EXIT_OK;
}

/* The value of parameter `name` in the call: given, else the kernel's default. */
static double param_value(const cli_run_options *o, const apo_kernel_info *info, const char *name) {
    for (size_t i = 0; i < o->n_params; i++)
        if (strcmp(o->params[i].name, name) == 0)
            return o->params[i].value;
    for (size_t i = 0; i < info->n_params; i++)
        if (strcmp(info->param_names[i], name) == 0)
            return info->param_defaults[i];
    return 0;
}

/* MACD's outputs are all NaN before index (max(fast, slow) - 1) + (signal - 1)
 * (docs/kernels.md). On a series too short to reach it every output would be NaN, which
 * the library computes without a word; bollinger's period longer than the series is
 * refused, and so is this, in the same words. */
static int check_macd_warmup(const cli_run_options *o, const apo_kernel_info *info, size_t cols) {
    if (strcmp(info->name, "macd") != 0)
        return CLI_EXIT_OK;
    const double fast = param_value(o, info, "fast"), slow = param_value(o, info, "slow");
    const double signal = param_value(o, info, "signal");
    const double longer = fast > slow ? fast : slow;
    if (!(longer >= 1 && signal >= 1))
        return CLI_EXIT_OK; /* the library refuses such parameters with its own message */
    const double needed = longer + signal - 1;
    if ((double)cols >= needed)
        return CLI_EXIT_OK;
    cli_error("invalid workload: macd: the warm-up of %.0f samples (max(fast, slow) + signal - 1) "
              "is longer than the series (cols %zu): every output would be NaN",
              needed, cols);
    return CLI_EXIT_USAGE;
}

/* Output names become file names: refuse anything that could leave DIR. */
static int safe_file_name(const char *name) {
    if (name == NULL || name[0] == '\0' || name[0] == '.')
        return 0;
    for (const char *c = name; *c != '\0'; c++)
        if (*c == '/' || *c == '\\')
            return 0;
    return 1;
}

static int load_input(const cli_run_options *o, double **data, size_t *rows, size_t *cols) {
    char err[1024];
    if (o->input == NULL) {
        *rows = o->rows_set ? o->rows : DEFAULT_ROWS;
        *cols = o->cols_set ? o->cols : DEFAULT_COLS;
        if (*cols > SIZE_MAX / sizeof(double) / *rows)
            return cli_usage_error("run", "--rows %zu x --cols %zu is too large", *rows, *cols);
        *data = malloc(*rows * *cols * sizeof **data);
        if (*data == NULL) {
            cli_error("out of memory for %zu x %zu values", *rows, *cols);
            return CLI_EXIT_FAILURE;
        }
        apo__random_walk(*data, *rows, *cols, o->seed);
        return CLI_EXIT_OK;
    }
    size_t count = 0;
    const size_t want_rows = o->rows_set ? o->rows : 0;
    if (cli_read_input(o->input, o->input_format, o->column, want_rows,
                       o->missing_as_nan ? APO_CSV_MISSING_AS_NAN : 0, data, &count, err,
                       sizeof err) != 0) {
        cli_error("%s", err);
        return CLI_EXIT_USAGE;
    }
    *rows = o->rows_set ? o->rows : 1;
    *cols = count / *rows;
    return CLI_EXIT_OK;
}

_Static_assert(CLI_OUTPUT_FILES_MAX >= APO_MAX_IO, "every output of a kernel can be written");

typedef struct run_state {
    apo_runtime *rt;
    double *input;
    cli_host_array outputs[APO_MAX_IO];
    double *output_data[APO_MAX_IO];
    cli_output_desc descs[APO_MAX_IO];
    size_t n_outputs;
    cli_run_times times;
} run_state;

static void free_state(run_state *s) {
    /* Whatever failed after the output files were opened: no temporary file is left. */
    cli_output_files_abort();
    for (size_t i = 0; i < APO_MAX_IO; i++)
        cli_host_array_free(&s->outputs[i]);
    free(s->input);
    apo_runtime_destroy(s->rt);
}

/* Faults the outputs in before the timed call, so that the devices' times are their
 * computing, not the tool's allocation (host_arrays.h). */
static void prepare_outputs(run_state *s) {
    cli_host_array *arrays[APO_MAX_IO];
    for (size_t i = 0; i < s->n_outputs; i++)
        arrays[i] = &s->outputs[i];
    cli_host_arrays_fault_in(arrays, s->n_outputs);
}

static int run(const cli_run_options *o, run_state *s) {
    size_t rows = 0, cols = 0;
    double t0 = cli_now_s();
    int rc = load_input(o, &s->input, &rows, &cols);
    if (rc != CLI_EXIT_OK)
        return rc;
    s->times.read_input_ms = (cli_now_s() - t0) * 1e3;

    rc = cli_runtime_create_learning(o->devices, o->no_learn ? APO_SWITCH_OFF : APO_SWITCH_UNSET,
                                     &s->rt);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!o->json)
        cli_print_runtime_warnings(s->rt);

    apo_kernel_info info = {.size = sizeof(apo_kernel_info)};
    apo_status st = apo_kernel_get(s->rt, o->kernel, &info);
    if (st == APO_ERR_UNKNOWN_KERNEL)
        return cli_unknown_kernel_error(s->rt, o->kernel, st, "--kernel");
    if (st != APO_OK)
        return cli_status_error(st, "--kernel");
    if (info.n_inputs != 1)
        return cli_usage_error("run", "kernel %s takes %zu inputs; the command line gives one",
                               info.name, info.n_inputs);
    if (info.n_outputs > APO_MAX_IO) {
        cli_error("kernel %s has %zu outputs (at most %d)", info.name, info.n_outputs, APO_MAX_IO);
        return CLI_EXIT_FAILURE;
    }

    const double *inputs[1] = {s->input};
    apo_workload w = {.size = sizeof(apo_workload)};
    w.kernel = o->kernel;
    w.rows = rows;
    w.cols = cols;
    w.inputs = inputs;
    w.n_inputs = 1;
    w.n_outputs = info.n_outputs;
    w.params = o->params;
    w.n_params = o->n_params;
    w.seed = o->seed;
    w.split = o->split;
    w.learn = o->no_learn ? APO_SWITCH_OFF : APO_SWITCH_UNSET;

    s->n_outputs = info.n_outputs;
    for (size_t i = 0; i < info.n_outputs; i++) {
        size_t orows = 0, ocols = 0;
        st = apo_output_shape(s->rt, &w, i, &orows, &ocols);
        if (st != APO_OK)
            return cli_status_error(st, "invalid workload");
        if (orows == 0 || ocols == 0 || ocols > SIZE_MAX / sizeof(double) / orows) {
            cli_error("output %s has an impossible shape %zu x %zu", info.output_names[i], orows,
                      ocols);
            return CLI_EXIT_FAILURE;
        }
        if (o->output != NULL && !safe_file_name(info.output_names[i])) {
            cli_error("output name '%s' cannot be used as a file name", info.output_names[i]);
            return CLI_EXIT_FAILURE;
        }
        if (cli_host_array_alloc(&s->outputs[i], orows * ocols) != 0) {
            cli_error("out of memory for output %s (%zu x %zu)", info.output_names[i], orows,
                      ocols);
            return CLI_EXIT_FAILURE;
        }
        s->descs[i].name = info.output_names[i];
        s->descs[i].rows = orows;
        s->descs[i].cols = ocols;
        s->descs[i].file = NULL;
        s->output_data[i] = s->outputs[i].data;
    }
    w.outputs = s->output_data;
    /* After apo_output_shape(): the library has checked the parameters by now. */
    rc = check_macd_warmup(o, &info, cols);
    if (rc != CLI_EXIT_OK)
        return rc;

    double ratios[APO_MAX_DEVICES];
    if (o->ratios != NULL) {
        size_t n_ratios = 0;
        rc = parse_ratios(s->rt, o->ratios, ratios, &n_ratios);
        if (rc != CLI_EXIT_OK)
            return rc;
        w.ratios = ratios;
        w.n_ratios = n_ratios;
    }

    /* The output files are opened before the work (docs/cli.md, "Output files"): a folder
     * that cannot be written, or a disk without room for raw outputs, costs no computing. */
    char err[1024];
    if (o->output != NULL) {
        const char *names[APO_MAX_IO];
        size_t out_rows[APO_MAX_IO], out_cols[APO_MAX_IO];
        for (size_t i = 0; i < s->n_outputs; i++) {
            names[i] = s->descs[i].name;
            out_rows[i] = s->descs[i].rows;
            out_cols[i] = s->descs[i].cols;
        }
        if (cli_output_files_open(o->output, o->format, names, out_rows, out_cols, s->n_outputs,
                                  err, sizeof err) != 0) {
            cli_error("--output: %s", err);
            return CLI_EXIT_FAILURE;
        }
    }

    const int progress = cli_stderr_is_tty();
    if (progress) {
        fprintf(stderr, "running %s on %zu x %zu...", o->kernel, rows, cols);
        fflush(stderr);
    }
    t0 = cli_now_s();
    prepare_outputs(s);
    s->times.prepare_ms = (cli_now_s() - t0) * 1e3;
    apo_report report = {.size = sizeof(apo_report)};
    t0 = cli_now_s();
    st = apo_distribute_workload(s->rt, &w, &report);
    s->times.compute_ms = (cli_now_s() - t0) * 1e3;
    if (progress) {
        fprintf(stderr, "\r%*s\r", 60, "");
        fflush(stderr);
    }
    if (st != APO_OK)
        return cli_status_error(st, "run failed");
    /* On stderr whatever the format, so that a script reading --json on stdout still
     * shows it to a person; --json carries it too. */
    char note[512];
    if (cli_nonfinite_warning(&report, note, sizeof note))
        fprintf(stderr, "apportion: warning: %s\n", note);

    if (o->output != NULL) {
        t0 = cli_now_s();
        /* Every file complete before any old one gives way. */
        for (size_t i = 0; i < s->n_outputs; i++) {
            if (cli_output_files_write(i, s->output_data[i], err, sizeof err) != 0) {
                cli_error("%s (no output file was changed)", err);
                return CLI_EXIT_FAILURE;
            }
        }
        if (cli_output_files_commit(err, sizeof err) != 0) {
            cli_error("%s", err);
            return CLI_EXIT_FAILURE;
        }
        for (size_t i = 0; i < s->n_outputs; i++)
            s->descs[i].file = cli_output_files_path(i);
        s->times.write_output_ms = (cli_now_s() - t0) * 1e3;
    }

    if (o->json) {
        json_t *j = cli_report_json(&report, &s->times, s->rt, s->descs, s->n_outputs);
        rc = cli_json_print(j);
        json_decref(j);
        return rc;
    }
    cli_report_print(stdout, &report, &s->times);
    if (fflush(stdout) != 0) {
        cli_error("cannot write to standard output");
        return CLI_EXIT_FAILURE;
    }
    return CLI_EXIT_OK;
}

int cli_cmd_run(int argc, char **argv) {
    cli_run_options o;
    cli_run_options_init(&o);
    int help = 0;
    int rc = cli_run_parse_options(argc, argv, &o, &help);
    if (rc == CLI_EXIT_OK && help) {
        fputs(run_help, stdout);
    } else if (rc == CLI_EXIT_OK) {
        run_state s;
        memset(&s, 0, sizeof s);
        rc = run(&o, &s);
        /* With --json the warnings belong in the report; a failed run has none, so they go
         * to stderr rather than being lost. */
        if (rc != CLI_EXIT_OK && o.json)
            cli_print_runtime_warnings(s.rt);
        free_state(&s);
    }
    cli_run_options_free(&o);
    return rc;
}
