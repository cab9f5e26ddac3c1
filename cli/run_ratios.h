/* `apportion run --ratios`: see run_ratios.c. */
#ifndef APO_CLI_RUN_RATIOS_H
#define APO_CLI_RUN_RATIOS_H

#include <stddef.h>

#include "apportion.h"

/* Parses "ID=R,ID=R,..." into ratios[n] in device order (unlisted devices get 0) and writes
 * n, the runtime's device count. Returns CLI_EXIT_OK, or the exit status of a usage error
 * (the message names the item and the devices) or of a failed device query. */
int cli_parse_ratios(const apo_runtime *rt, const char *text, double *ratios, size_t *n_out);

#endif
