/*
 * The positions of one set of a scored run (`apportion run --score RULE --positions SET
 * --output DIR`, docs/cli/run.md "The positions of one set"): the indicator of set SET is
 * computed over each series by a plain call of that series alone, and the library's
 * apo_score_positions() folds it with the rule's own code, writing each bar's position,
 * return and running total; so the positions are those the set's scores were folded from,
 * and its scores bit for bit the scored call's. DIR/positions.csv is written in the run's
 * output set, beside scores.csv.
 */
#ifndef APO_CLI_RUN_POSITIONS_H
#define APO_CLI_RUN_POSITIONS_H

#include <stddef.h>

#include "run_state.h"

/* The name of the positions' file in the output set: DIR/positions.csv. */
#define CLI_POSITIONS_OUTPUT_NAME "positions"

/* Writes output `i` of the open output set as positions.csv: `series`, `bar` (from 0), the
 * index column's text when the input has one, `close`, `position`, `return` (nan
 * where the bar is not scored) and `equity`, one line per series and bar, series in the
 * call's order. Returns 0, or -1 with the reason in err. */
int cli_run_write_positions(const cli_run_options *o, run_state *s, size_t i, char *err,
                            size_t err_size);

#endif /* APO_CLI_RUN_POSITIONS_H */
