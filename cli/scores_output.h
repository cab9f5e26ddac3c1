/*
 * The scores of a scored run (`apportion run --score RULE`, docs/cli/run.md "Scores"): their
 * names, the order that ranks them, the lines --min-trades keeps, DIR/scores.csv, and the
 * best lines in the report, with the first columns and JSON entries of a ranking's table
 * that the best sets (scores_rank.h) share.
 *
 * A scored call's outputs are the APO_N_SCORES scores, each (sets x rows) x 1, set-major
 * (docs/api.md, "Scores"); a "line" here is one set and one series, line = set * rows + row,
 * as in the call's outputs and in scores.csv.
 */
#ifndef APO_CLI_SCORES_OUTPUT_H
#define APO_CLI_SCORES_OUTPUT_H

#include <apportion.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "options.h"

/* The name of the scores' file in the output set: DIR/scores.csv. */
#define CLI_SCORES_OUTPUT_NAME "scores"

/* Whether the rule `score` names the view of more statistics ("RULE/more"; docs/kernels.md,
 * "More statistics and compounding"), whose outputs are APO_MORE_*. */
int cli_score_view_more(const char *score);

/* The name of output k of o's scored run, as docs/kernels.md names it. */
const char *cli_score_name(const cli_run_options *o, int k);

/* The name of score k of the rule `score` ("bands_revert/more"): cli_score_name() for a rule
 * given on its own, as `apportion stream --score` names its columns. */
const char *cli_score_name_of(const char *score, int k);

/* APO_SCORE_* of `name`, or APO_N_SCORES + APO_MORE_* for a score of the view of more, or -1
 * when no score has that name. */
int cli_score_index(const char *name);

/* Whether a smaller value of output `score` of o's run ranks first (sd, max_drawdown); the
 * others rank larger first. */
int cli_score_smaller_first(const cli_run_options *o, int score);

/* The scores of one run, borrowed from its state. */
typedef struct cli_scores {
    const cli_run_options *o;           /* the sweep's names and values, score, top, by */
    const double *values[APO_N_SCORES]; /* each sets x rows, set-major */
    size_t sets, rows;                  /* sets: 1 without a sweep */
    const char *const *series;          /* rows names */
} cli_scores;

/* Whether line `line` has at least o->min_trades trades (its `round_trips` under RULE/more,
 * which has no `trades`): the lines --min-trades leaves in the ranking, the aggregates of
 * scores_rank.h and the plot. */
int cli_scores_line_kept(const cli_scores *sc, size_t line);

/* The lines of the best min(o->top, sets x rows) by o->by, best first: a NaN ranks after
 * every number, and equal values keep line order (set, then series). Returns a malloc'ed
 * array of *n line numbers, or NULL when out of memory. */
size_t *cli_scores_best(const cli_scores *sc, size_t *n);

/* The best min(o->top, count) indices of values v by o->by's order, best first, a NaN after
 * every number and equal values in index order; with `lines`, v is by line and the lines
 * --min-trades leaves out are not ranked. The one ranking of cli_scores_best (lines) and
 * cli_scores_best_sets (sets). A malloc'ed array of *n indices, or NULL when out of memory. */
size_t *cli_scores_top(const cli_scores *sc, const double *v, size_t count, int lines, size_t *n);

/* Writes output `i` of the open output set (output_files.h), opened as CSV, as scores.csv:
 * `set`, the swept parameters, `series`, then every score, one line per set and series. */
int cli_scores_write_file(size_t i, const cli_scores *sc, char *err, size_t err_size);

/* Prints the best lines as a table under a heading that says the order. */
void cli_scores_print_best(FILE *f, const cli_scores *sc, const size_t *best, size_t n);

/* The first columns of both rankings' tables (the best lines here, the best sets in
 * scores_rank.h): the heading "rank", "set" and the swept parameters' names, then a line's
 * rank, set and the set's swept values (shortest form). */
void cli_scores_print_set_head(FILE *f, const cli_run_options *o);
void cli_scores_print_set_cells(FILE *f, const cli_run_options *o, size_t rank, size_t set);

/* One entry of a report's "best" list, as both rankings open it: {rank, set, params}, the
 * params being the set's swept values by name; the caller adds what it ranked by. */
json_t *cli_scores_best_entry(const cli_run_options *o, size_t rank, size_t set);

/* The report's "scores" object: rule, by, order, lines, file (or null) and the best lines. */
json_t *cli_scores_json(const cli_scores *sc, const size_t *best, size_t n, const char *file);

/* The scored kernel `<kernel>:<rule>` of a --score run, described into *scored, or the exit
 * status of a rule that is unknown or does not fit the kernel (a usage error, with the
 * library's message). */
int cli_scores_kernel(apo_runtime *rt, const cli_run_options *o, apo_kernel_info *scored);

#endif /* APO_CLI_SCORES_OUTPUT_H */
