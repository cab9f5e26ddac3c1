/*
 * The options of the commands that take more than --help, --json and --devices (those use
 * cli_parse_json_devices() in option_table.h): what each command's argv parses into, apart from
 * running it, so that the parsing can be tested and fuzzed alone
 * (tests/fuzz/fuzz_cli_options.c).
 *
 * Each parser takes the command's argv (argv[0] is the command name) and an options struct
 * set up by its *_init(); it reads the options through the command's rows of the option
 * table (option_table.h), then checks every combination of options, all before the command
 * does any work; it prints a usage error to stderr when one is wrong, and never touches a
 * file, a device or the environment. Strings in the struct point into argv.
 * *_free() releases what the parser allocated, also after a failed parse.
 */
#ifndef APO_CLI_OPTIONS_H
#define APO_CLI_OPTIONS_H

#include <apportion.h>
#include <stddef.h>
#include <stdint.h>

#include "input.h"
#include "param_list.h"

/* ---- run ------------------------------------------------------------------------------- */

typedef struct cli_run_options {
    const char *kernel; /* non-empty after a successful parse */
    size_t rows, cols;  /* > 0 where set */
    int rows_set, cols_set;
    const char *input;
    const char *column;       /* only with input: one name, or a comma-separated list */
    const char *index_column; /* only with CSV input */
    const char *group_by;     /* only with CSV input */
    const char *input_map;    /* INPUT=COLUMN,...: the columns of a kernel's named inputs */
    cli_format input_format;
    int input_format_set; /* only with input */
    int missing_as_nan;   /* only with input */
    int keep_file_order;  /* --record-order file: only with CSV input, not with --rows */
    const char *output;   /* non-empty when given */
    cli_format format;
    int format_set; /* only with output */
    uint64_t seed;
    const char *ratios; /* checked against the devices when the command runs */
    apo_split split;
    const char *devices;
    int json;
    int no_learn;         /* the run refines no model and writes no profile file */
    cli_param_list given; /* the --param options, fixed and swept */
    size_t memory;        /* --memory in bytes (> 0); 0: not given */
    /* A scored run (--score RULE, docs/cli/run.md "Scores"): the call's outputs are the rule's
     * scores, written to DIR/scores.csv and ranked on stdout. --cost and --periods-per-year
     * become the parameters `cost` and `periods_per_year` (in params); top and by apply
     * only with score. */
    const char *score;   /* non-empty when given */
    size_t top;          /* lines shown, >= 1 (default CLI_RUN_DEFAULT_TOP) */
    int by;              /* the score ranked by: an APO_SCORE_* index (default sharpe) */
    int top_set, by_set; /* given (they need --score) */
    const char *by_text; /* --by as given, checked against the rule's view */
    /* --cost and --periods-per-year as read, each alone (cost_set, periods_set: given); they
     * become the parameters cost and periods_per_year in `given` once every option is read. */
    double cost, periods_per_year;
    int cost_set, periods_set;
    const char *plot; /* --plot FILE.png: score `by` over the two swept parameters */
    /* With --score (docs/cli/run.md, "Ranges and walk-forward"): --ranges A:B,... (bars, or
     * dates of the input's index), or --walk-forward TRAIN:TEST[:anchored]; resolved into
     * bars once the input is read (run_ranges.c). NULL when not given. */
    const char *ranges;
    const char *walk_forward;
    /* --by SCORE:AGG ranks sets by an aggregate over their series (scores_rank.h): agg is
     * CLI_AGG_LINES (no :AGG, the lines ranked one by one), MEAN, MEDIAN or QUANTILE
     * (quantile in [0, 1]). --min-trades leaves out of the ranking, the aggregates and the
     * plot every line with fewer trades (0: none left out); min_trades_set: given. */
    int agg;
    double quantile;
    size_t min_trades;
    int min_trades_set;
    /* --positions SET: the positions, returns and running total of set SET bar by bar,
     * written to DIR/positions.csv (run_positions.c); positions_set: given. */
    size_t positions;
    int positions_set;
} cli_run_options;

/* How --by ranks: lines one by one (no :AGG), or sets by an aggregate over their series. */
enum { CLI_AGG_LINES = 0, CLI_AGG_MEAN, CLI_AGG_MEDIAN, CLI_AGG_QUANTILE };

#define CLI_RUN_DEFAULT_TOP 10

/* The help of `apportion run` (run_options.c), in parts to print one after the other, up to
 * a NULL. */
extern const char *const cli_run_help[];

void cli_run_options_init(cli_run_options *o);
/* Returns CLI_EXIT_OK (with *help set when --help was asked for), or the exit status of a
 * usage error (CLI_EXIT_USAGE) or of running out of memory (CLI_EXIT_FAILURE). */
int cli_run_parse_options(int argc, char **argv, cli_run_options *o, int *help);
void cli_run_options_free(cli_run_options *o);
/* Refuses (usage error, with the message printed) a macd call whose warm-up, for the longest
 * parameters given or swept, is longer than series of `cols` samples: every output would be
 * NaN (docs/kernels.md, macd). CLI_EXIT_OK for any other kernel. */
int cli_run_check_macd_warmup(const cli_run_options *o, const apo_kernel_info *info, size_t cols);
/* The samples a series needs for one macd output (max(fast, slow) + signal - 1, the largest
 * values given or swept); 0 for any other kernel, or for parameters the library refuses. */
double cli_run_macd_warmup(const cli_run_options *o, const apo_kernel_info *info);
/* The words of the refusal above, for a series of `cols` samples. */
void cli_run_macd_warmup_text(double needed, size_t cols, char *out, size_t size);

/* ---- profile --------------------------------------------------------------------------- */

#define CLI_PROFILE_MAX_KERNELS 16
#define CLI_PROFILE_MAX_SIZES 32
#define CLI_PROFILE_MAX_RUNS 10000

typedef struct cli_profile_options {
    const char *kernels_text;
    char *kernels[CLI_PROFILE_MAX_KERNELS]; /* 1 or more distinct names after a parse */
    size_t n_kernels;
    uint64_t sizes[CLI_PROFILE_MAX_SIZES]; /* none, or at least two distinct, all > 0 */
    size_t n_sizes;
    uint64_t sample_size; /* 0: the library's default (only when no sizes are given) */
    unsigned runs;        /* 1 to CLI_PROFILE_MAX_RUNS */
    uint64_t seed;
    const char *older_text;
    double older_s; /* > 0 when older_text is set */
    const char *devices;
    int json;
} cli_profile_options;

void cli_profile_options_init(cli_profile_options *o);
/* Returns as cli_run_parse_options() does. */
int cli_profile_parse_options(int argc, char **argv, cli_profile_options *o, int *help);
void cli_profile_options_free(cli_profile_options *o);

/* ---- set-ratios ------------------------------------------------------------------------ */

typedef struct cli_set_ratios_options {
    const char *tag; /* 1 to APO_TAG_MAX-1 bytes after a parse */
    int clear;       /* then no items */
    int custom_tag;  /* the tag need not be a kernel's or a stored one */
    const char *devices;
    char *ids[APO_MAX_DEVICES];     /* non-empty */
    double ratios[APO_MAX_DEVICES]; /* finite, >= 0, at least one > 0 */
    size_t n;
} cli_set_ratios_options;

void cli_set_ratios_options_init(cli_set_ratios_options *o);
/* Returns as cli_run_parse_options() does. */
int cli_set_ratios_parse_options(int argc, char **argv, cli_set_ratios_options *o, int *help);
void cli_set_ratios_options_free(cli_set_ratios_options *o);

/* ---- stream ---------------------------------------------------------------------------- */
/* What `apportion stream` does with a row whose date is not after its series' last one. */
typedef enum cli_old_rows {
    CLI_OLD_ROWS_REFUSE = 0, /* the default: nothing is computed, exit 2 */
    CLI_OLD_ROWS_SKIP = 1,   /* left out, counted on stderr (a file that overlaps the last) */
    CLI_OLD_ROWS_ACCEPT = 2  /* fed as new bars all the same; no date is checked */
} cli_old_rows;

typedef struct cli_stream_options {
    const char *state;  /* required, non-empty */
    const char *kernel; /* required to start a state; else checked against it when given */
    const char *input;  /* "-" (standard input) by default */
    const char *column, *index_column, *group_by, *input_map;
    cli_format input_format;
    int input_format_set;
    int missing_as_nan;
    size_t series;      /* raw input: the number of series (> 0 where set) */
    const char *output; /* a CSV file; "-" (standard output) by default */
    cli_old_rows old_rows;
    const char *devices;
    cli_param_list given; /* the --param options: swept ones make a sweep stream */
    /* --score RULE: a live rule's stream (docs/cli/stream.md, "Live rules"), its parameters
     * those of `run --score`; --cost and --periods-per-year are in `given` as the parameters
     * cost and periods_per_year, as run puts them. NULL when not given. */
    const char *score;
    /* "--cost" or "--periods-per-year" when one was given (NULL else): they need a rule,
     * --score's or the state's, which only the state file can say. */
    const char *rule_option;
    /* --cost and --periods-per-year as given (NULL: not given), checked once every option
     * is read. */
    const char *cost_text, *periods_text;
} cli_stream_options;

extern const char cli_stream_help[];
void cli_stream_options_init(cli_stream_options *o);
/* Returns as cli_run_parse_options() does. */
int cli_stream_parse_options(int argc, char **argv, cli_stream_options *o, int *help);
void cli_stream_options_free(cli_stream_options *o);

/* ---- selftest -------------------------------------------------------------------------- */

#define CLI_SELFTEST_MAX_SHAPES 32
#define CLI_SELFTEST_DEFAULT_GPU_MB 8
#define CLI_SELFTEST_MIN_GPU_MB ((size_t)4) /* gpu_memory_mb bounds (docs/cuda.md) */
#define CLI_SELFTEST_MAX_GPU_MB ((size_t)1 << 20)

typedef struct cli_shape {
    size_t rows, cols; /* > 0, rows * cols doubles fit in memory's address range */
} cli_shape;

typedef struct cli_selftest_options {
    int json;
    const char *devices;
    uint64_t seed;
    size_t gpu_mb;
    const char *sizes_text; /* --sizes as given (the last one); NULL: the default shapes */
    cli_shape shapes[CLI_SELFTEST_MAX_SHAPES]; /* 1 or more after a parse */
    size_t n_shapes;
} cli_selftest_options;

void cli_selftest_options_init(cli_selftest_options *o);
/* Returns -1 to go on, CLI_EXIT_OK after printing the help, or CLI_EXIT_USAGE. */
int cli_selftest_parse_options(int argc, char **argv, cli_selftest_options *o);

#endif /* APO_CLI_OPTIONS_H */
