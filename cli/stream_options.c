/*
 * The options of `apportion stream` (options.h; docs/cli/stream.md, "apportion stream").
 */
#include "cli.h"
#include "options.h"
#include "sweep_values.h"

#include <stdlib.h>
#include <string.h>

const char cli_stream_help[] =
    "Usage: apportion stream --state FILE [--kernel K] [--param k=v ...]\n"
    "                        [--input FILE|-] [--input-format csv|f64|parquet]\n"
    "                        [--column NAME[,NAME...]] [--input-map INPUT=COLUMN,...]\n"
    "                        [--group-by COL] [--index-column COL]\n"
    "                        [--missing-as-nan] [--series N] [--output FILE|-]\n"
    "                        [--old-rows refuse|skip|accept] [--devices LIST]\n"
    "                        [--score RULE [--cost C] [--periods-per-year P]]\n"
    "\n"
    "Feed new bars to a stream kept in a state file and write the outputs of exactly those\n"
    "bars: bit for bit what `apportion run` gives at those bars over the whole history.\n"
    "\n"
    "  --state FILE         the stream's state: read when it exists (else a new stream of\n"
    "                       --kernel starts), replaced whole only after the outputs are\n"
    "                       written, so a job killed at any point can simply run again\n"
    "  --kernel K           the kernel (required for a new state; checked against it else)\n"
    "  --param k=v          a kernel parameter, repeatable (checked against the state);\n"
    "                       k=A,B,... or k=START:STOP:STEP sweeps it, as for run: the\n"
    "                       stream follows every set, one output column per set\n"
    "  --input FILE         the new rows: CSV (a date column, one or several series), Parquet\n"
    "                       (.parquet, read as CSV through pyarrow: see run) or raw float64;\n"
    "                       default '-', standard input\n"
    "  --input-format F     csv, f64 or parquet (default: from the name, as for run)\n"
    "  --column NAME,...    CSV: the columns read, each one series (default: close)\n"
    "  --input-map I=C,...  CSV: the column of a named input of the kernel\n"
    "  --group-by COL       CSV, long format: one series per value of COL (a ticker)\n"
    "  --index-column COL   CSV: the dates (default: the first column that is not a number)\n"
    "  --missing-as-nan     CSV: empty fields and NA, null, ... read as NaN (a gap)\n"
    "  --series N           raw input: N series, each 1/N of the values in turn\n"
    "  --output FILE        the outputs as CSV, replaced whole; default '-', standard output\n"
    "  --old-rows WHAT      a row whose date is not after its series' last one: refuse\n"
    "                       (default; exit 2, nothing changed), skip it, or accept it as a\n"
    "                       new bar (no date is checked)\n"
    "  --devices LIST       as APPORTION_DEVICES (the update runs on the calling thread)\n"
    "  --score RULE         follow a trading rule, as run --score takes it (its thresholds,\n"
    "                       cost, periods_per_year and side by --param): each new bar gives\n"
    "                       the position, return, running total and running scores, bit\n"
    "                       for bit those of run --score over the history so far\n"
    "  --cost C             with --score: the same as --param cost=C\n"
    "  --periods-per-year P with --score: the same as --param periods_per_year=P\n"
    "\n"
    "Exit status: 0 success, 1 runtime failure, 2 usage error (bad input or state).\n";

void cli_stream_options_init(cli_stream_options *o) {
    memset(o, 0, sizeof *o);
    o->input = "-";
    o->output = "-";
    o->old_rows = CLI_OLD_ROWS_REFUSE;
    cli_param_list_init(&o->given);
}

void cli_stream_options_free(cli_stream_options *o) { cli_param_list_free(&o->given); }

/* --cost and --periods-per-year as the parameters they stand for, as `run` takes them: a
 * --param of the same name as well is refused rather than one of them silently winning.
 * Whether there is a rule they belong to is checked once the state is read (cmd_stream.c). */
static int add_score_param(cli_stream_options *o, const char *option, const char *name,
                           const char *text) {
    double v;
    if (text == NULL)
        return CLI_EXIT_OK;
    if (o->rule_option == NULL)
        o->rule_option = option;
    if (cli_parse_double(text, &v) != 0 || !(strcmp(name, "cost") == 0 ? v >= 0 && v <= 1 : v > 0))
        return cli_usage_error("stream", "%s '%s': expected %s", option, text,
                               strcmp(name, "cost") == 0 ? "a number from 0 to 1" : "a number > 0");
    return cli_param_list_add_value(&o->given, "stream", option, name, v);
}

int cli_stream_parse_options(int argc, char **argv, cli_stream_options *o, int *help) {
    const char *cost = NULL, *periods = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int r;
#define VALUE(name) ((r = cli_value_once("stream", argc, argv, &i, name, &v)) != 0)
        if (cli_flag(a, "--help") || cli_flag(a, "-h")) {
            *help = 1;
            return CLI_EXIT_OK;
        } else if (cli_flag(a, "--missing-as-nan")) {
            o->missing_as_nan = 1;
            continue;
        } else if (VALUE("--state")) {
            if (r > 0)
                o->state = v;
        } else if (VALUE("--kernel")) {
            if (r > 0)
                o->kernel = v;
        } else if (VALUE("--input")) {
            if (r > 0)
                o->input = v;
        } else if (VALUE("--input-format")) {
            if (r > 0 && cli_input_format_parse(v, &o->input_format) != 0)
                return cli_usage_error("stream",
                                       "--input-format '%s': expected f64, csv or parquet", v);
            o->input_format_set = 1;
        } else if (VALUE("--column")) {
            if (r > 0)
                o->column = v;
        } else if (VALUE("--input-map")) {
            if (r > 0)
                o->input_map = v;
        } else if (VALUE("--group-by")) {
            if (r > 0)
                o->group_by = v;
        } else if (VALUE("--index-column")) {
            if (r > 0)
                o->index_column = v;
        } else if (VALUE("--series")) {
            if (r > 0 && (cli_parse_size(v, &o->series) != 0 || o->series == 0 ||
                          o->series > APO_STREAM_MAX_SERIES))
                return cli_usage_error("stream", "--series '%s': expected 1 to %zu", v,
                                       APO_STREAM_MAX_SERIES);
        } else if (VALUE("--output")) {
            if (r > 0)
                o->output = v;
        } else if (VALUE("--old-rows")) {
            if (r > 0) {
                if (strcmp(v, "refuse") == 0)
                    o->old_rows = CLI_OLD_ROWS_REFUSE;
                else if (strcmp(v, "skip") == 0)
                    o->old_rows = CLI_OLD_ROWS_SKIP;
                else if (strcmp(v, "accept") == 0)
                    o->old_rows = CLI_OLD_ROWS_ACCEPT;
                else
                    return cli_usage_error("stream",
                                           "--old-rows '%s': expected refuse, skip or accept", v);
            }
        } else if (VALUE("--devices")) {
            if (r > 0)
                o->devices = v;
        } else if (VALUE("--score")) {
            if (r > 0)
                o->score = v;
        } else if (VALUE("--cost")) {
            if (r > 0)
                cost = v;
        } else if (VALUE("--periods-per-year")) {
            if (r > 0)
                periods = v;
        } else if ((r = cli_value("stream", argc, argv, &i, "--param", &v)) != 0) {
            if (r > 0) {
                const int rc = cli_param_list_add(&o->given, "stream", v);
                if (rc != CLI_EXIT_OK)
                    return rc;
            }
        } else if (a[0] == '-') {
            return cli_usage_error("stream", "unknown option '%s'", a);
        } else {
            return cli_usage_error("stream", "unexpected argument '%s'", a);
        }
#undef VALUE
        if (r < 0)
            return CLI_EXIT_USAGE;
        if (v != NULL && v[0] == '\0')
            return cli_usage_error("stream", "option %s needs a non-empty value", a);
    }
    if (o->state == NULL)
        return cli_usage_error("stream", "--state FILE is required");
    int rc = add_score_param(o, "--cost", "cost", cost);
    if (rc == CLI_EXIT_OK)
        rc = add_score_param(o, "--periods-per-year", "periods_per_year", periods);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (o->output != NULL && strcmp(o->output, o->state) == 0)
        return cli_usage_error("stream", "--output and --state name one file");
    return CLI_EXIT_OK;
}
