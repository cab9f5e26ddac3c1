/*
 * A scored run's ranges (`apportion run --score RULE --ranges A:B,...` or `--walk-forward
 * TRAIN:TEST[:anchored]`, docs/cli/run.md "Ranges and walk-forward"): the text resolved
 * into bars of the call (a date looked up in the input's index), the lines' names, and the
 * walk-forward's winners and stitched record in the report.
 *
 * A ranged call's scores are (sets x rows) x ranges (docs/api.md, "Scores"): set-major with
 * rows x ranges lines a set, so the rest of the scored run (scores.csv, the best lines)
 * takes each series' range as a line of its own, named SERIES[A:B].
 */
#ifndef APO_CLI_RUN_RANGES_H
#define APO_CLI_RUN_RANGES_H

#include <jansson.h>
#include <stdio.h>

#include "options.h"
#include "run_state.h"

/* Resolves o->ranges or o->walk_forward into s->ranges over s->call.cols bars, after the
 * input is read: bars as given, or dates of the series' one index (both ends included).
 * Nothing to do without either. Returns CLI_EXIT_OK, or CLI_EXIT_USAGE with the message
 * printed (an unreadable range, a date not in a sorted index, windows the library
 * refuses). */
int cli_run_ranges_resolve(const cli_run_options *o, run_state *s);

/* The lines' names of a ranged run, SERIES[A:B] for row r and range i at r * ranges + i,
 * from s->row_names: s->line_names. Returns CLI_EXIT_OK or the exit status. */
int cli_run_ranges_name_lines(run_state *s);

/* The walk-forward's windows and record as a table after the best lines (nothing without
 * --walk-forward). */
void cli_walk_forward_print(FILE *f, const cli_run_options *o, const run_state *s);

/* The report's "walk_forward" object, or NULL without --walk-forward. */
json_t *cli_walk_forward_json(const cli_run_options *o, const run_state *s);

/* Frees what the two first made. */
void cli_run_ranges_free(run_state *s);

#endif /* APO_CLI_RUN_RANGES_H */
