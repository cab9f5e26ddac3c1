/* The --param options of `run` and `stream`: fixed values and swept ones; see param_list.c. */
#ifndef APO_CLI_PARAM_LIST_H
#define APO_CLI_PARAM_LIST_H

#include <apportion.h>
#include <stddef.h>

#define CLI_RUN_MAX_PARAMS 64

typedef struct cli_param_list {
    apo_param params[CLI_RUN_MAX_PARAMS]; /* distinct non-empty names, finite values */
    char *param_names[CLI_RUN_MAX_PARAMS];
    size_t n_params;
    /* Swept parameters (--param NAME=A,B,... or NAME=START:STOP:STEP), in the order given:
     * the first varies slowest. Names distinct from each other and from params. */
    apo_sweep_param sweep[CLI_RUN_MAX_PARAMS];
    char *sweep_names[CLI_RUN_MAX_PARAMS];
    double *sweep_values[CLI_RUN_MAX_PARAMS];
    size_t n_sweep;
    size_t sweep_sets; /* the product of the swept values' counts: 1 to APO_MAX_SWEEP_SETS */
} cli_param_list;

/* An empty list (one parameter set). */
void cli_param_list_init(cli_param_list *l);

/* Adds one --param of `command`: NAME=VALUE, or NAME=A,B,... / NAME=START:STOP:STEP to
 * sweep it (docs/cli/run.md, "Sweeps"). A name given twice, a value that is not a finite number,
 * more than CLI_RUN_MAX_PARAMS names or more than APO_MAX_SWEEP_SETS sets is a usage error.
 * Returns CLI_EXIT_OK, or CLI_EXIT_USAGE / CLI_EXIT_FAILURE with the message printed; the
 * list is unchanged on failure. */
int cli_param_list_add(cli_param_list *l, const char *command, const char *text);

/* Whether NAME is given, fixed or swept. */
int cli_param_list_has(const cli_param_list *l, const char *name);

/* Adds NAME=v as a fixed parameter (an option that stands for a parameter, as run's --cost),
 * with the checks of cli_param_list_add(); a NAME given already is refused as `option` and
 * --param giving the same parameter. */
int cli_param_list_add_value(cli_param_list *l, const char *command, const char *option,
                             const char *name, double v);

/* Frees the names and values, leaving an empty list. */
void cli_param_list_free(cli_param_list *l);

#endif
