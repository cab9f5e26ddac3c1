/*
 * The options of `apportion stream` (options.h; docs/cli/stream.md, "apportion stream"): its
 * help text, its options as rows of the option table (option_table.h) and the checks after
 * them.
 */
#include "cli.h"
#include "option_table.h"
#include "options.h"
#include "sweep_values.h"

#include <inttypes.h>
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

/* The words of --old-rows, indexed by their values. */
static const char *const old_rows_words[] = {[CLI_OLD_ROWS_REFUSE] = "refuse",
                                             [CLI_OLD_ROWS_SKIP] = "skip",
                                             [CLI_OLD_ROWS_ACCEPT] = "accept"};
_Static_assert(sizeof(cli_old_rows) == sizeof(int), "--old-rows is read as an int");

#define STREAM(field) offsetof(cli_stream_options, field)

/* Every option of `stream`; every value must be non-empty. --cost and --periods-per-year are
 * checked after the others (add_score_param). */
static const cli_option stream_rows[] = {
    CLI_ROW_FLAG("--missing-as-nan", STREAM(missing_as_nan)),
    CLI_ROW_TEXT("--state", CLI_ONCE, STREAM(state)),
    CLI_ROW_TEXT("--kernel", CLI_ONCE, STREAM(kernel)),
    CLI_ROW_TEXT("--input", CLI_ONCE, STREAM(input)),
    CLI_ROW_READ("--input-format", CLI_ONCE, STREAM(input_format), STREAM(input_format_set),
                 cli_option_read_input_format, "f64, csv or parquet"),
    CLI_ROW_TEXT("--column", CLI_ONCE, STREAM(column)),
    CLI_ROW_TEXT("--input-map", CLI_ONCE, STREAM(input_map)),
    CLI_ROW_TEXT("--group-by", CLI_ONCE, STREAM(group_by)),
    CLI_ROW_TEXT("--index-column", CLI_ONCE, STREAM(index_column)),
    CLI_ROW_SIZE("--series", CLI_ONCE, STREAM(series), CLI_NO_FIELD, 1, APO_STREAM_MAX_SERIES,
                 "%" PRIu64 " to %" PRIu64),
    CLI_ROW_TEXT("--output", CLI_ONCE, STREAM(output)),
    CLI_ROW_WORD("--old-rows", CLI_ONCE, STREAM(old_rows), old_rows_words,
                 "refuse, skip or accept"),
    CLI_ROW_TEXT("--devices", CLI_ONCE, STREAM(devices)),
    CLI_ROW_TEXT("--score", CLI_ONCE, STREAM(score)),
    CLI_ROW_TEXT("--cost", CLI_ONCE, STREAM(cost_text)),
    CLI_ROW_TEXT("--periods-per-year", CLI_ONCE, STREAM(periods_text)),
    CLI_ROW_READ("--param", CLI_REPEATABLE, STREAM(given), CLI_NO_FIELD, cli_option_read_param,
                 NULL),
};

static const cli_option_table stream_table = {
    .command = "stream", CLI_TABLE_ROWS(stream_rows), .nonempty = 1};

int cli_stream_parse_options(int argc, char **argv, cli_stream_options *o, int *help) {
    int rc = cli_options_read(&stream_table, argc, argv, o, help);
    if (*help)
        return CLI_EXIT_OK;
    if (rc != CLI_EXIT_OK)
        return rc;
    if (o->state == NULL)
        return cli_usage_error("stream", "--state FILE is required");
    rc = add_score_param(o, "--cost", "cost", o->cost_text);
    if (rc == CLI_EXIT_OK)
        rc = add_score_param(o, "--periods-per-year", "periods_per_year", o->periods_text);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (o->output != NULL && strcmp(o->output, o->state) == 0)
        return cli_usage_error("stream", "--output and --state name one file");
    return CLI_EXIT_OK;
}
