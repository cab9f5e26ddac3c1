/*
 * `apportion run`'s command line: its help text and the parsing of its options into a
 * cli_run_options (options.h). Every value is checked here, before any work is done;
 * cmd_run.c runs what was asked for.
 */
#include "cli.h"
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cli_run_help[] =
    "Usage: apportion run --kernel K [--rows R --cols C | --input FILE [--column NAME,...]\n"
    "                     [--group-by COL] [--index-column COL] [--missing-as-nan]\n"
    "                     [--rows R]] [--param k=v ...] [--output DIR]\n"
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
    "  --column A,B,...     CSV: several columns, one series each\n"
    "  --group-by COL       CSV: one series per distinct value of COL (long format), in\n"
    "                       order of first appearance; series of one length run together\n"
    "  --index-column COL   CSV: copied into CSV outputs as their first column (default:\n"
    "                       the first non-numeric column)\n"
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
        } else if (VALUE("--index-column")) {
            if (r > 0)
                o->index_column = v;
        } else if (VALUE("--group-by")) {
            if (r > 0)
                o->group_by = v;
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
    if (o->input == NULL && o->index_column != NULL)
        return cli_usage_error("run", "--index-column needs --input");
    if (o->input == NULL && o->group_by != NULL)
        return cli_usage_error("run", "--group-by needs --input");
    if (o->group_by != NULL && o->column != NULL && strchr(o->column, ',') != NULL)
        return cli_usage_error("run", "--group-by reads one value column: give --column one name");
    if (o->rows_set && (o->group_by != NULL || (o->column != NULL && strchr(o->column, ','))))
        return cli_usage_error("run", "--rows cannot be combined with --group-by or a --column "
                                      "list: each series is one row");
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
