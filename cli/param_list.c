/*
 * The --param options of `run` and `stream` (param_list.h). Both commands take the same
 * forms, so one parser keeps their messages and limits the same.
 */
#include "param_list.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sweep_values.h"

void cli_param_list_init(cli_param_list *l) {
    memset(l, 0, sizeof *l);
    l->sweep_sets = 1;
}

void cli_param_list_free(cli_param_list *l) {
    for (size_t i = 0; i < l->n_params; i++)
        free(l->param_names[i]);
    for (size_t i = 0; i < l->n_sweep; i++) {
        free(l->sweep_names[i]);
        free(l->sweep_values[i]);
    }
    cli_param_list_init(l);
}

/* Whether the first n characters of `name` are a name given. */
static int given(const cli_param_list *l, const char *name, size_t n) {
    for (size_t i = 0; i < l->n_params; i++)
        if (strlen(l->param_names[i]) == n && strncmp(l->param_names[i], name, n) == 0)
            return 1;
    for (size_t i = 0; i < l->n_sweep; i++)
        if (strlen(l->sweep_names[i]) == n && strncmp(l->sweep_names[i], name, n) == 0)
            return 1;
    return 0;
}

int cli_param_list_has(const cli_param_list *l, const char *name) {
    return given(l, name, strlen(name));
}

/* One more fixed parameter; takes `name`. */
static void add_fixed(cli_param_list *l, char *name, double v) {
    l->param_names[l->n_params] = name;
    l->params[l->n_params].name = name;
    l->params[l->n_params].value = v;
    l->n_params++;
}

static int out_of_memory(void) {
    cli_error("out of memory");
    return CLI_EXIT_FAILURE;
}

static int full(const char *command) {
    return cli_usage_error(command, "too many --param options (at most %d)", CLI_RUN_MAX_PARAMS);
}

int cli_param_list_add_value(cli_param_list *l, const char *command, const char *option,
                             const char *name, double v) {
    if (cli_param_list_has(l, name))
        return cli_usage_error(command, "%s and --param %s give the same parameter", option, name);
    if (l->n_params + l->n_sweep == CLI_RUN_MAX_PARAMS)
        return full(command);
    char *copy = malloc(strlen(name) + 1);
    if (copy == NULL)
        return out_of_memory();
    strcpy(copy, name);
    add_fixed(l, copy, v);
    return CLI_EXIT_OK;
}

/* NAME's values, a list or a range: one more swept parameter of the grid. Takes `name`. */
static int add_swept(cli_param_list *l, const char *command, char *name, const char *value) {
    double *values = NULL;
    size_t count = 0;
    int rc = cli_parse_sweep_values(command, name, value, &values, &count);
    if (rc == CLI_EXIT_OK && count > APO_MAX_SWEEP_SETS / l->sweep_sets)
        rc = cli_usage_error(command, "the sweep has more than %d parameter sets",
                             APO_MAX_SWEEP_SETS);
    if (rc != CLI_EXIT_OK) {
        free(name);
        free(values);
        return rc;
    }
    l->sweep_names[l->n_sweep] = name;
    l->sweep_values[l->n_sweep] = values;
    l->sweep[l->n_sweep].name = name;
    l->sweep[l->n_sweep].values = values;
    l->sweep[l->n_sweep].n_values = count;
    l->n_sweep++;
    l->sweep_sets *= count;
    return CLI_EXIT_OK;
}

int cli_param_list_add(cli_param_list *l, const char *command, const char *text) {
    const char *eq = strchr(text, '=');
    if (eq == NULL || eq == text)
        return cli_usage_error(command, "--param '%s': expected NAME=VALUE", text);
    const size_t n = (size_t)(eq - text);
    if (given(l, text, n))
        return cli_usage_error(command, "--param %.*s is given twice", (int)n, text);
    if (l->n_params + l->n_sweep == CLI_RUN_MAX_PARAMS)
        return full(command);
    const char *value = eq + 1;
    double v = 0;
    const int swept = strchr(value, ',') != NULL || strchr(value, ':') != NULL;
    if (!swept && cli_parse_double(value, &v) != 0)
        return cli_usage_error(command, "--param '%s': '%s' is not a finite number", text, value);
    char *name = malloc(n + 1);
    if (name == NULL)
        return out_of_memory();
    memcpy(name, text, n);
    name[n] = '\0';
    if (swept)
        return add_swept(l, command, name, value);
    add_fixed(l, name, v);
    return CLI_EXIT_OK;
}
