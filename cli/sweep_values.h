/* The values of a swept --param (NAME=A,B,... or NAME=START:STOP:STEP): see sweep_values.c. */
#ifndef APO_CLI_SWEEP_VALUES_H
#define APO_CLI_SWEEP_VALUES_H

#include <stddef.h>

/* The values of swept parameter `param` from `text`, a range START:STOP:STEP or a
 * comma-separated list (docs/cli/run.md, "Sweeps"); *values is allocated (free it, whatever the
 * result). `command` names the command in usage messages. Returns CLI_EXIT_OK, or
 * CLI_EXIT_USAGE / CLI_EXIT_FAILURE with the message printed. */
int cli_parse_sweep_values(const char *command, const char *param, const char *text,
                           double **values, size_t *n);

#endif
