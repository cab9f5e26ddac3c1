/*
 * `apportion run`: which columns of a CSV input the kernel reads (run_inputs.h).
 */
#include "run_inputs.h"

#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Splits a --column list at its commas into names (pointers into a copy kept in *storage). */
int cli_split_columns(const char *text, char **storage, const char ***names, size_t *n) {
    *storage = strdup(text);
    size_t count = 1;
    for (const char *c = text; *c != '\0'; c++)
        count += *c == ',';
    *names = calloc(count, sizeof **names);
    if (*storage == NULL || *names == NULL) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    size_t k = 0;
    for (char *p = *storage;;) {
        char *comma = strchr(p, ',');
        if (comma != NULL)
            *comma = '\0';
        if (*p == '\0')
            return cli_usage_error("run", "--column '%s': empty name in the list", text);
        (*names)[k++] = p;
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    *n = k;
    return CLI_EXIT_OK;
}

/* The columns of a kernel of several inputs (or of one input under --input-map), by the
 * inputs' names (input_map.h); refuses what cannot give them. */
int cli_run_input_columns(const cli_run_options *o, const apo_kernel_info *info, int csv,
                          cli_input_columns *cols) {
    char err[512];
    if (o->input == NULL || !csv || o->rows_set || o->column != NULL) {
        cli_input_columns listed = {0};
        if (cli_input_columns_resolve(info->name, info->input_names, info->n_inputs, NULL, &listed,
                                      err, sizeof err) != 0)
            return cli_usage_error("run", "%s", err);
        char names[256] = "";
        for (size_t i = 0; i < listed.n; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                     listed.names[i]);
        cli_input_columns_free(&listed);
        return cli_usage_error("run",
                               "kernel %s reads the inputs %s by name: give a CSV --input with "
                               "those columns (--input-map INPUT=COLUMN for others)%s",
                               info->name, names,
                               o->column != NULL ? "; --column reads one input"
                               : o->rows_set     ? "; --rows cuts one column"
                                                 : "");
    }
    if (cli_input_columns_resolve(info->name, info->input_names, info->n_inputs, o->input_map, cols,
                                  err, sizeof err) != 0)
        return cli_usage_error("run", "%s", err);
    return CLI_EXIT_OK;
}

void cli_input_read_error(const char *err, const apo_kernel_info *info,
                          const cli_input_columns *cols) {
    if (cols == NULL) {
        cli_error("%s", err);
        return;
    }
    char map[512] = "";
    for (size_t i = 0; i < cols->n; i++)
        snprintf(map + strlen(map), sizeof map - strlen(map), "%s%s=%s", i ? "," : "",
                 info->input_names[i], cols->names[i]);
    cli_error("%s (kernel %s reads its inputs as %s; a column defaults to its input's name, "
              "--input-map INPUT=COLUMN picks another)",
              err, info->name, map);
}
