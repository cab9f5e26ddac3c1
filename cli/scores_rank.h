/*
 * Ranking the sets of a scored run over the universe of its series (`apportion run --score
 * RULE --by SCORE:AGG --min-trades N`, docs/cli/run.md "Ranking sets over the series"): the
 * aggregate over series of one score for each set (mean, median or a quantile) and the best
 * sets, on the names, the ranking and the lines a minimum of trades keeps of
 * scores_output.h. The heatmap (--plot) draws the same aggregate.
 *
 * A line (set, series) counts for its set when its trades (`round_trips` under RULE/more,
 * which has no `trades`) are at least --min-trades and its --by score is finite; a set none of
 * whose lines counts has a NaN aggregate and ranks after every number.
 */
#ifndef APO_CLI_SCORES_RANK_H
#define APO_CLI_SCORES_RANK_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "scores_output.h"

/* Parses the aggregate of --by SCORE:AGG, `text` being what follows the colon: "mean",
 * "median" or "qQ" with Q a number from 0 to 1 ("q0.25"). Returns 0 with *agg and
 * *quantile set, or -1 with the reason in err. */
int cli_scores_parse_agg(const char *text, int *agg, double *quantile, char *err, size_t err_size);

/* The name of o's aggregate as --by takes it ("median", "q0.25"), into buf. */
const char *cli_scores_agg_name(const cli_run_options *o, char *buf, size_t size);

/* The aggregate over series of score o->by for each set (sets values; o->agg CLI_AGG_LINES
 * takes the mean, as the heatmap did before aggregates), and in counted (sets values, or
 * NULL) how many series counted; *best_set the set of the best aggregate in --by's direction
 * (-1: none). The mean adds the counted values in series order from 0 and divides by their
 * count; the median is the middle value, or the mean (a + b) / 2 of the middle two; the
 * quantile Q of n sorted values x is x[i] + (h - i) * (x[i + 1] - x[i]), h = Q * (n - 1),
 * i = floor(h) (x[i] when h is whole). Returns a malloc'ed array, or NULL when out of memory. */
double *cli_scores_set_aggregates(const cli_scores *sc, size_t *counted, long *best_set);

/* The best min(o->top, sets) sets by their aggregates, best first: NaN after every number,
 * equal values in set order. Returns a malloc'ed array of *n set indices, or NULL when out of
 * memory. */
size_t *cli_scores_best_sets(const cli_scores *sc, const double *agg, size_t *n);

/* The ranked sets of a run, borrowed from its state: the aggregates and counts of
 * cli_scores_set_aggregates and the best of cli_scores_best_sets. */
typedef struct cli_ranked_sets {
    const double *agg;
    const size_t *counted;
    const size_t *best;
    size_t n_best;
} cli_ranked_sets;

/* Prints the best sets as a table: rank, set, the swept values, the aggregate, the series
 * counted. */
void cli_scores_print_best_sets(FILE *f, const cli_scores *sc, const cli_ranked_sets *rk);

/* The report's "scores" object for sets ranked by an aggregate: rule, by, agg, order, lines,
 * sets, min_trades (when given), file (or null), and best: {rank, set, params, value,
 * series}. */
json_t *cli_scores_sets_json(const cli_scores *sc, const cli_ranked_sets *rk, const char *file);

#endif /* APO_CLI_SCORES_RANK_H */
