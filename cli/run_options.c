/*
 * `apportion run`'s command line: its help text, its options as rows of the option table
 * (option_table.h) read into a cli_run_options (options.h), and the checks of the options
 * against each other. Every value is checked here, before any work is done; cmd_run.c runs
 * what was asked for.
 */
#include "cli.h"
#include "option_table.h"
#include "options.h"
#include "scores_output.h"
#include "scores_rank.h"
#include "sweep_values.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* In parts: C11 compilers need take no string literal longer than 4095 bytes. */
const char *const cli_run_help[] = {
    "Usage: apportion run --kernel K [--rows R --cols C | --input FILE [--column NAME,...]\n"
    "                     [--input-map INPUT=COLUMN,...]\n"
    "                     [--group-by COL] [--index-column COL] [--missing-as-nan]\n"
    "                     [--record-order index|file]\n"
    "                     [--rows R]] [--param k=v ...] [--output DIR]\n"
    "                     [--memory SIZE]\n"
    "                     [--format f64|csv]\n"
    "                     [--score RULE [--cost C] [--periods-per-year P]\n"
    "                      [--top N] [--by SCORE[:AGG]] [--min-trades N]\n"
    "                      [--plot FILE.png] [--positions SET]]\n"
    "                      [--ranges A:B,... | --walk-forward TRAIN:TEST[:anchored]]]\n"
    "                     [--seed S] [--ratios ID=R,...] [--split rows|time|auto]\n"
    "                     [--devices LIST] [--no-learn] [--json]\n"
    "\n"
    "Distribute one workload across the devices and print the report.\n"
    "\n"
    "Workload:\n"
    "  --kernel K           kernel to run (bollinger, macd, ...)\n"
    "  --param k=v          kernel parameter, repeatable (bollinger: period, nbdev_up,\n"
    "                       nbdev_dn; macd: fastperiod, slowperiod, signalperiod, or fast,\n"
    "                       slow, signal); others take their defaults\n"
    "  --param k=A,B,...    sweep: one parameter set per value (a list), or\n"
    "  --param k=LO:HI:STEP every value from LO to HI inclusive; several swept parameters\n"
    "                       give every combination, the first varying slowest\n"
    "  --memory SIZE        sweep: memory for the outputs (512M, 2G; default half of the\n"
    "                       available memory, and raw outputs in pieces of about 64M);\n"
    "                       more sets run in several pieces\n"
    "  --rows R, --cols C   shape of the generated input: R series of C samples\n"
    "                       (default 1 x 100000), a random walk from --seed\n"
    "  --seed S             seed of the generated input and of the workload (default 1)\n"
    "  --input FILE         read the input instead: raw little-endian float64 when FILE ends\n"
    "                       in .f64 or .bin, Parquet when it ends in .parquet (through\n"
    "                       pyarrow, in the Python of APPORTION_PYTHON, default python3;\n"
    "                       its columns as a CSV file's), else CSV with a header line; -\n"
    "                       reads standard input (CSV unless --input-format); --rows R cuts\n"
    "                       it into R series of equal length (default 1)\n"
    "  --input-format F     f64, csv or parquet, overriding the file name\n"
    "  --column NAME        CSV column to read (default: the only column, else 'close')\n"
    "  --missing-as-nan     CSV: read empty fields and NA, N/A, #N/A, null, None as NaN\n"
    "  --column A,B,...     CSV: several columns, one series each\n"
    "  --input-map IN=COL,...  CSV: the column of each named input of the kernel (default:\n"
    "                       the column named like the input, any case: open, high, low,\n"
    "                       close, volume, ...)\n"
    "  --group-by COL       CSV: one series per distinct value of COL (long format), in\n"
    "                       order of first appearance, of any lengths, in one call\n"
    "  --index-column COL   CSV: copied into CSV outputs as their first column (default:\n"
    "                       the first non-numeric column)\n"
    "  --record-order O     CSV: index (default: each series in order of its index, ISO\n"
    "                       dates or numbers; equal dates in a series refused) or file\n"
    "\n",
    "Scores (instead of the indicator's outputs):\n"
    "  --score RULE         score each set and series with a trading rule: bands_revert or\n"
    "                       bands_zone (bollinger), macd_cross (macd), rsi_zone, rsi_revert\n"
    "                       (and on stochf, willr, cci, mfi, cmo; thresholds --param\n"
    "                       lower=L --param upper=U), stoch_cross, stochf_cross,\n"
    "                       price_cross (sma, ema, wma, dema, tema, kama); or on any\n"
    "                       output: zone.OUT, revert.OUT (both need lower and upper),\n"
    "                       cross.A.B, price_cross.OUT, signal.OUT; writes DIR/scores.csv\n"
    "                       (set, swept parameters, series, total, mean, sd, sharpe,\n"
    "                       max_drawdown, trades, exposure, bars) and no output file\n"
    "  --cost C             cost per unit of position change, 0 to 1 (default 0); the\n"
    "                       same as --param cost=C, which may sweep it\n"
    "  --periods-per-year P bars a year, > 0 (default 252), for sharpe\n"
    "  --top N              show the best N lines (set and series; default 10)\n"
    "  --by SCORE           rank by SCORE (default sharpe); sd and max_drawdown smallest\n"
    "                       first, the others largest first, NaN last\n"
    "  --by SCORE:AGG       rank sets instead, by an aggregate of SCORE over their series:\n"
    "                       mean, median or qQ (the quantile Q, 0 to 1: sharpe:q0.25)\n"
    "  --min-trades N       leave out of the ranking and the plot every set and series\n"
    "                       with fewer than N trades\n"
    "  --plot FILE.png      draw --by's aggregate over the series (the mean by default) as\n"
    "                       a heatmap over the two swept parameters, the best set circled\n"
    "                       (needs gnuplot)\n"
    "  --positions SET      also write DIR/positions.csv: set SET's position, return and\n"
    "                       running total bar by bar for every series\n"
    "  --ranges A:B,...     score every set on each range: bars [A, B), or dates of the\n"
    "                       CSV index, both included; each line is SERIES[A:B]\n"
    "  --walk-forward TRAIN:TEST[:anchored]\n"
    "                       windows of TRAIN bars (from bar 0 when anchored) then TEST;\n"
    "                       reports each train winner by --by on its test window\n"
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
    "Exit status: 0 success, 1 runtime failure, 2 usage error.\n",
    NULL};

void cli_run_options_init(cli_run_options *o) {
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->split = APO_SPLIT_AUTO;
    o->format = CLI_FORMAT_F64;
    o->input_format = CLI_FORMAT_AUTO;
    cli_param_list_init(&o->given);
    o->top = CLI_RUN_DEFAULT_TOP;
    o->by = APO_SCORE_SHARPE;
}

void cli_run_options_free(cli_run_options *o) { cli_param_list_free(&o->given); }

/* Parses SIZE: bytes, or with a suffix K, M, G or T (powers of 1024). */
static int parse_memory(const char *text, size_t *out) {
    char digits[64];
    size_t len = strlen(text), shift = 0;
    if (len == 0 || len >= sizeof digits)
        return -1;
    const char last = text[len - 1];
    const char *suffixes = "KMGT";
    const char *s = strchr(suffixes, last >= 'a' && last <= 'z' ? last - 32 : last);
    if (last != '\0' && s != NULL) {
        shift = 10 * (size_t)(s - suffixes + 1);
        len--;
    }
    memcpy(digits, text, len);
    digits[len] = '\0';
    size_t v;
    if (cli_parse_size(digits, &v) != 0 || v == 0 || v > (SIZE_MAX >> shift))
        return -1;
    *out = v << shift;
    return 0;
}

/* --cost and --periods-per-year as the parameters they stand for, once each: a --param of
 * the same name (fixed or swept) is refused rather than one of them silently winning. */
static int add_score_param(cli_run_options *o, const char *option, const char *name, double v) {
    return cli_param_list_add_value(&o->given, "run", option, name, v);
}

/* --by SCORE or SCORE:AGG into o->by (and the aggregate), o->by_text the value as given. */
static int read_by(const char *command, const char *v, void *dest) {
    cli_run_options *o = dest;
    char name[64], why[160];
    const char *colon = strchr(v, ':');
    if (colon != NULL) {
        snprintf(name, sizeof name, "%.*s", (int)(colon - v), v);
        if (cli_scores_parse_agg(colon + 1, &o->agg, &o->quantile, why, sizeof why) != 0)
            return cli_usage_error(command, "--by '%s': %s", v, why);
    }
    if ((o->by = cli_score_index(colon != NULL ? name : v)) < 0)
        return cli_usage_error(command,
                               "--by '%s': no such score (total, mean, sd, sharpe, "
                               "max_drawdown, trades, exposure, bars; with --score "
                               "RULE/more: sortino, calmar, cagr, win_rate, "
                               "profit_factor, avg_trade, turnover, round_trips)",
                               v);
    o->by_text = v;
    return CLI_EXIT_OK;
}

static int read_memory(const char *command, const char *v, void *dest) {
    (void)command;
    return parse_memory(v, dest) == 0 ? CLI_EXIT_OK : CLI_OPT_BAD;
}

static int read_format(const char *command, const char *v, void *dest) {
    (void)command;
    return cli_format_parse(v, dest) == 0 ? CLI_EXIT_OK : CLI_OPT_BAD;
}

static int read_score(const char *command, const char *v, void *dest) {
    if (v[0] == '\0')
        return cli_usage_error(command, "--score: empty rule name");
    *(const char **)dest = v;
    return CLI_EXIT_OK;
}

/* The words of --record-order (o->keep_file_order) and --split, indexed by their values. */
static const char *const record_orders[] = {"index", "file"};
static const char *const splits[] = {
    [APO_SPLIT_AUTO] = "auto", [APO_SPLIT_ROWS] = "rows", [APO_SPLIT_TIME] = "time"};
_Static_assert(sizeof(apo_split) == sizeof(int), "--split is read as an int");

#define RUN(field) offsetof(cli_run_options, field)
#define SEED_RANGE "an integer from 0 to 18446744073709551615"

/* Every option of `run`, each checked alone; the checks after them are the functions below. */
static const cli_option run_rows[] = {
    CLI_ROW_FLAG("--json", RUN(json)),
    CLI_ROW_FLAG("--missing-as-nan", RUN(missing_as_nan)),
    CLI_ROW_FLAG("--no-learn", RUN(no_learn)),
    CLI_ROW_TEXT("--kernel", CLI_ONCE, RUN(kernel)),
    CLI_ROW_SIZE("--rows", CLI_ONCE, RUN(rows), RUN(rows_set), 1, SIZE_MAX, "a positive integer"),
    CLI_ROW_SIZE("--cols", CLI_ONCE, RUN(cols), RUN(cols_set), 1, SIZE_MAX, "a positive integer"),
    CLI_ROW_TEXT("--input", CLI_ONCE, RUN(input)),
    CLI_ROW_TEXT("--column", CLI_ONCE, RUN(column)),
    CLI_ROW_TEXT("--index-column", CLI_ONCE, RUN(index_column)),
    CLI_ROW_TEXT("--group-by", CLI_ONCE, RUN(group_by)),
    CLI_ROW_WORD("--record-order", CLI_ONCE, RUN(keep_file_order), record_orders, "index or file"),
    CLI_ROW_TEXT("--input-map", CLI_ONCE, RUN(input_map)),
    CLI_ROW_READ("--input-format", CLI_ONCE, RUN(input_format), RUN(input_format_set),
                 cli_option_read_input_format, "f64, csv or parquet"),
    CLI_ROW_TEXT("--output", CLI_ONCE, RUN(output)),
    CLI_ROW_READ("--format", CLI_ONCE, RUN(format), RUN(format_set), read_format, "f64 or csv"),
    CLI_ROW_U64("--seed", CLI_ONCE, RUN(seed), CLI_NO_FIELD, 0, UINT64_MAX, SEED_RANGE),
    CLI_ROW_TEXT("--ratios", CLI_ONCE, RUN(ratios)),
    CLI_ROW_WORD("--split", CLI_ONCE, RUN(split), splits, "rows, time or auto"),
    CLI_ROW_READ("--memory", CLI_ONCE, RUN(memory), CLI_NO_FIELD, read_memory,
                 "a positive size (bytes, or 512M, 2G, ...)"),
    CLI_ROW_READ("--score", CLI_ONCE, RUN(score), CLI_NO_FIELD, read_score, NULL),
    CLI_ROW_DOUBLE("--cost", CLI_ONCE, RUN(cost), RUN(cost_set), 0, 1, "a number from 0 to 1"),
    CLI_ROW_DOUBLE("--periods-per-year", CLI_ONCE, RUN(periods_per_year), RUN(periods_set),
                   CLI_ABOVE_ZERO, DBL_MAX, "a number > 0"),
    CLI_ROW_SIZE("--top", CLI_ONCE, RUN(top), RUN(top_set), 1, SIZE_MAX, "a positive integer"),
    CLI_ROW_READ("--by", CLI_ONCE, 0, RUN(by_set), read_by, NULL),
    CLI_ROW_SIZE("--min-trades", CLI_ONCE, RUN(min_trades), RUN(min_trades_set), 0, SIZE_MAX,
                 "a whole number >= 0"),
    CLI_ROW_SIZE("--positions", CLI_ONCE, RUN(positions), RUN(positions_set), 0, SIZE_MAX,
                 "a set's index (from 0, as in scores.csv)"),
    CLI_ROW_TEXT("--ranges", CLI_ONCE, RUN(ranges)),
    CLI_ROW_TEXT("--walk-forward", CLI_ONCE, RUN(walk_forward)),
    CLI_ROW_TEXT("--plot", CLI_ONCE, RUN(plot)),
    CLI_ROW_TEXT("--devices", CLI_ONCE, RUN(devices)),
    CLI_ROW_READ("--param", CLI_REPEATABLE, RUN(given), CLI_NO_FIELD, cli_option_read_param, NULL),
};

static const cli_option_table run_table = {.command = "run", CLI_TABLE_ROWS(run_rows)};

/* The checks of the options against each other, the score's aside. */
static int check_input_options(const cli_run_options *o) {
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
    if (o->input == NULL && o->keep_file_order)
        return cli_usage_error("run", "--record-order needs --input");
    if (o->input != NULL && o->input[0] == '\0')
        return cli_usage_error("run", "--input: empty file name (- reads standard input)");
    if (o->output == NULL && o->format_set)
        return cli_usage_error("run", "--format needs --output");
    if (o->memory != 0 && o->given.n_sweep == 0)
        return cli_usage_error("run", "--memory applies to a sweep only (a --param list or range)");
    if (o->output != NULL && o->output[0] == '\0')
        return cli_usage_error("run", "--output: empty directory name");
    return CLI_EXIT_OK;
}

/* --ranges, --walk-forward, the aggregate and --positions against each other. */
static int check_ranked_options(const cli_run_options *o) {
    const char *ranged = o->ranges != NULL ? "--ranges" : "--walk-forward";
    if ((o->ranges != NULL || o->walk_forward != NULL) &&
        (o->agg != CLI_AGG_LINES || o->positions_set))
        return cli_usage_error("run", "%s with %s: each series has a line a range, and %s",
                               o->agg != CLI_AGG_LINES ? "--by SCORE:AGG" : "--positions", ranged,
                               o->agg != CLI_AGG_LINES
                                   ? "an aggregate over a set's lines would mix its ranges"
                                   : "positions.csv is one set's whole history");
    if ((o->ranges != NULL || o->walk_forward != NULL) && o->plot != NULL)
        return cli_usage_error("run",
                               "--plot draws one score a set and series; with %s each "
                               "has one a range",
                               ranged);
    const size_t sets = o->given.n_sweep > 0 ? o->given.sweep_sets : 1;
    if (o->positions_set && o->output == NULL)
        return cli_usage_error("run",
                               "--positions writes DIR/positions.csv: it needs --output DIR");
    if (o->positions_set && o->positions >= sets)
        return cli_usage_error("run", "--positions %zu: the run has %zu set(s), 0 to %zu",
                               o->positions, sets, sets - 1);
    return CLI_EXIT_OK;
}

/* The score's options against each other and against --score, then --cost and
 * --periods-per-year as the parameters they stand for. */
static int check_score_options(cli_run_options *o) {
    if (o->ranges != NULL && o->walk_forward != NULL)
        return cli_usage_error("run", "--ranges and --walk-forward: give one (a walk-forward's "
                                      "windows are its ranges)");
    const char *score_only = o->cost_set               ? "--cost"
                             : o->periods_set          ? "--periods-per-year"
                             : o->top_set              ? "--top"
                             : o->by_set               ? "--by"
                             : o->plot != NULL         ? "--plot"
                             : o->min_trades_set       ? "--min-trades"
                             : o->positions_set        ? "--positions"
                             : o->ranges != NULL       ? "--ranges"
                             : o->walk_forward != NULL ? "--walk-forward"
                                                       : NULL;
    if (o->score == NULL && score_only != NULL)
        return cli_usage_error("run", "%s needs --score RULE", score_only);
    if (o->score != NULL) {
        /* --by names an output of the rule's view; by default sharpe, or sortino for the
         * view of more (docs/cli/run.md, "Scores"). */
        const int more = cli_score_view_more(o->score);
        if (o->by_set && (o->by >= APO_N_SCORES) != more)
            return cli_usage_error("run", "--by: %s is not a score of --score %s%s", o->by_text,
                                   o->score, more ? "" : " (its view of more, RULE/more, has it)");
        o->by = o->by_set ? o->by % APO_N_SCORES : more ? APO_MORE_SORTINO : APO_SCORE_SHARPE;
    }
    int rc = check_ranked_options(o);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (o->score != NULL && o->format_set)
        return cli_usage_error("run", "--format applies to the indicator's outputs; --score "
                                      "writes DIR/scores.csv only");
    if (o->cost_set)
        rc = add_score_param(o, "--cost", "cost", o->cost);
    if (rc == CLI_EXIT_OK && o->periods_set)
        rc = add_score_param(o, "--periods-per-year", "periods_per_year", o->periods_per_year);
    return rc;
}

int cli_run_parse_options(int argc, char **argv, cli_run_options *o, int *help) {
    int rc = cli_options_read(&run_table, argc, argv, o, help);
    if (*help)
        return CLI_EXIT_OK;
    if (rc == CLI_EXIT_OK)
        rc = check_input_options(o);
    return rc == CLI_EXIT_OK ? check_score_options(o) : rc;
}

/* Matches one --ratios id against the runtime's devices: the exact id, or `cuda:N` for the
 * GPU labelled "cuda:N ...". Returns the device index or n when nothing matches. */

/* The value of parameter `name` in the call, given by that name or by `alias` (the name it had
 * before TA-Lib's, which the library still takes), else the kernel's default; for a swept
 * parameter, its largest value (the warm-up check below needs the longest). */
static double param_value(const cli_run_options *o, const apo_kernel_info *info, const char *name,
                          const char *alias) {
    for (size_t i = 0; i < o->given.n_sweep; i++) {
        if (strcmp(o->given.sweep[i].name, name) != 0 && strcmp(o->given.sweep[i].name, alias) != 0)
            continue;
        double v = o->given.sweep[i].values[0];
        for (size_t k = 1; k < o->given.sweep[i].n_values; k++)
            v = o->given.sweep[i].values[k] > v ? o->given.sweep[i].values[k] : v;
        return v;
    }
    for (size_t i = 0; i < o->given.n_params; i++)
        if (strcmp(o->given.params[i].name, name) == 0 ||
            strcmp(o->given.params[i].name, alias) == 0)
            return o->given.params[i].value;
    for (size_t i = 0; i < info->n_params; i++)
        if (strcmp(info->param_names[i], name) == 0)
            return info->param_defaults[i];
    return 0;
}

/* MACD's outputs are all NaN before index (max(fast, slow) - 1) + (signal - 1)
 * (docs/kernels.md): the samples a series needs for one output, or 0 for another kernel or
 * for parameters the library refuses with its own message. */
double cli_run_macd_warmup(const cli_run_options *o, const apo_kernel_info *info) {
    if (strcmp(info->name, "macd") != 0)
        return 0;
    const double fast = param_value(o, info, "fastperiod", "fast");
    const double slow = param_value(o, info, "slowperiod", "slow");
    const double signal = param_value(o, info, "signalperiod", "signal");
    const double longer = fast > slow ? fast : slow;
    if (!(longer >= 1 && signal >= 1))
        return 0;
    return longer + signal - 1;
}

/* On a series too short to reach macd's warm-up every output would be NaN, which the
 * library computes without a word; bollinger's period longer than the series is refused,
 * and so is this, in the same words. */
int cli_run_check_macd_warmup(const cli_run_options *o, const apo_kernel_info *info, size_t cols) {
    const double needed = cli_run_macd_warmup(o, info);
    if ((double)cols >= needed)
        return CLI_EXIT_OK;
    char text[256];
    cli_run_macd_warmup_text(needed, cols, text, sizeof text);
    cli_error("invalid workload: %s", text);
    return CLI_EXIT_USAGE;
}

void cli_run_macd_warmup_text(double needed, size_t cols, char *out, size_t size) {
    snprintf(out, size,
             "macd: the warm-up of %.0f samples (max(fast, slow) + signal - 1) is longer than "
             "the series (cols %zu): every output would be NaN",
             needed, cols);
}
