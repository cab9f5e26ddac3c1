/*
 * The picture of a scored grid (`apportion run --score RULE --plot FILE.png`, docs/cli/run.md
 * "Scores"): one score, its aggregate over the series (the mean unless --by names another:
 * scores_rank.h), over the two swept parameters as a heatmap, with the best set marked. gnuplot
 * draws it, as it draws the project's other figures (scripts/plots.sh); the tool writes gnuplot's
 * data and script to a private folder, runs it, and renames the picture into place whole.
 */
#ifndef APO_CLI_SCORES_PLOT_H
#define APO_CLI_SCORES_PLOT_H

#include <stddef.h>

#include "scores_output.h"

/* Before the work: --plot needs --score, exactly two swept parameters, a name ending in
 * ".png", a folder for it that exists and can be written, and gnuplot on PATH. Returns
 * CLI_EXIT_OK, CLI_EXIT_USAGE (the first three, with the message printed) or
 * CLI_EXIT_FAILURE (the folder, with why; no gnuplot: how to install it). */
int cli_scores_plot_check(const cli_run_options *o);

/* Draws o->plot. Returns 0, or -1 with the reason in err (no file is then left at the
 * path, and an older one stays as it was). */
int cli_scores_plot(const cli_scores *sc, char *err, size_t err_size);

#endif /* APO_CLI_SCORES_PLOT_H */
