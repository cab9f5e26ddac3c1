/*
 * Which CSV column feeds each input of a kernel (docs/cli/run.md, "Several inputs"): by default
 * the column named like the input (open, high, low, close, volume, or any other name the
 * kernel gives), found by the CSV reader whatever its case; `--input-map INPUT=COLUMN,...`
 * names another column for some inputs. Depends on libc only, so the unit tests link it
 * alone.
 */
#ifndef APO_CLI_INPUT_MAP_H
#define APO_CLI_INPUT_MAP_H

#include <stddef.h>

#define CLI_INPUTS_MAX 8 /* APO_MAX_IO */

typedef struct cli_input_columns {
    size_t n;
    char *names[CLI_INPUTS_MAX]; /* the column of input i (malloc'd) */
} cli_input_columns;

/* The column of each of the n_inputs inputs named input_names, under the mapping text
 * `map` (NULL: none). Refuses, with a message in err: a mapping that is not INPUT=COLUMN,
 * an input the kernel does not have, an input mapped twice, and two inputs that would read
 * one column (names compared whatever their case, as the CSV reader finds them). Returns 0
 * with *out filled (free it with cli_input_columns_free()), or -1 with *out empty. */
int cli_input_columns_resolve(const char *kernel, const char *const *input_names, size_t n_inputs,
                              const char *map, cli_input_columns *out, char *err, size_t err_size);

void cli_input_columns_free(cli_input_columns *c);

#endif /* APO_CLI_INPUT_MAP_H */
