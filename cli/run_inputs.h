/*
 * `apportion run`: which columns of a CSV input the kernel reads: a --column list, or the
 * columns of the kernel's named inputs (input_map.h; docs/cli/run.md, "Several inputs").
 */
#ifndef APO_CLI_RUN_INPUTS_H
#define APO_CLI_RUN_INPUTS_H

#include "apportion.h"
#include "input_map.h"
#include "options.h"

#include <stddef.h>

/* Splits a --column list at its commas into names (pointers into a copy kept in *storage). */
int cli_split_columns(const char *text, char **storage, const char ***names, size_t *n);

/* The columns of a kernel of several inputs (or of one input under --input-map), by the
 * inputs' names; refuses, as a usage error naming the inputs, an input that cannot give
 * them (generated, raw float64, --rows, --column). */
int cli_run_input_columns(const cli_run_options *o, const apo_kernel_info *info, int csv,
                          cli_input_columns *cols);

/* Prints the CSV reader's message `err`; for a kernel's named inputs (`cols`, else NULL) it
 * adds which column each input was read from and how to pick another. */
void cli_input_read_error(const char *err, const apo_kernel_info *info,
                          const cli_input_columns *cols);

#endif /* APO_CLI_RUN_INPUTS_H */
