/*
 * The columns of a kernel's inputs: the --input-map text checked and applied over the
 * default, each input read from the column of its own name (input_map.h).
 */
#include "input_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void cli_input_columns_free(cli_input_columns *c) {
    for (size_t i = 0; i < CLI_INPUTS_MAX; i++)
        free(c->names[i]);
    memset(c, 0, sizeof *c);
}

/* The kernel's inputs as "high, low, close", for messages. */
static void list_inputs(const char *const *names, size_t n, char *buf, size_t size) {
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < size; i++) {
        int w = snprintf(buf + used, size - used, "%s%s", i > 0 ? ", " : "", names[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static int find_input(const char *const *names, size_t n, const char *name, size_t len) {
    for (size_t i = 0; i < n; i++)
        if (strlen(names[i]) == len && strncasecmp(names[i], name, len) == 0)
            return (int)i;
    return -1;
}

int cli_input_columns_resolve(const char *kernel, const char *const *input_names, size_t n_inputs,
                              const char *map, cli_input_columns *out, char *err, size_t err_size) {
    memset(out, 0, sizeof *out);
    char inputs[256];
    list_inputs(input_names, n_inputs, inputs, sizeof inputs);
    if (n_inputs == 0 || n_inputs > CLI_INPUTS_MAX) {
        snprintf(err, err_size, "kernel %s has %zu inputs (1 to %d)", kernel, n_inputs,
                 CLI_INPUTS_MAX);
        return -1;
    }
    out->n = n_inputs;
    for (const char *p = map; p != NULL && *p != '\0';) {
        const char *end = strchr(p, ',');
        const size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (eq == NULL || eq == p || eq == p + len - 1) {
            snprintf(err, err_size, "--input-map: '%.*s' is not INPUT=COLUMN", (int)len, p);
            goto fail;
        }
        const int i = find_input(input_names, n_inputs, p, (size_t)(eq - p));
        if (i < 0) {
            snprintf(err, err_size, "--input-map: kernel %s has no input '%.*s' (its inputs: %s)",
                     kernel, (int)(eq - p), p, inputs);
            goto fail;
        }
        if (out->names[i] != NULL) {
            snprintf(err, err_size, "--input-map: input %s is mapped twice", input_names[i]);
            goto fail;
        }
        out->names[i] = strndup(eq + 1, (size_t)(p + len - eq - 1));
        if (out->names[i] == NULL) {
            snprintf(err, err_size, "out of memory");
            goto fail;
        }
        p = end != NULL ? end + 1 : p + len;
        if (end != NULL && *p == '\0') {
            snprintf(err, err_size, "--input-map: empty mapping at the end of the list");
            goto fail;
        }
    }
    for (size_t i = 0; i < n_inputs; i++) {
        if (out->names[i] == NULL && (out->names[i] = strdup(input_names[i])) == NULL) {
            snprintf(err, err_size, "out of memory");
            goto fail;
        }
    }
    /* Two inputs of one column would be one series read twice: surely a mistake. */
    for (size_t i = 0; i < n_inputs; i++) {
        for (size_t j = 0; j < i; j++) {
            if (strcasecmp(out->names[i], out->names[j]) == 0) {
                snprintf(err, err_size, "--input-map: inputs %s and %s both read column '%s'",
                         input_names[j], input_names[i], out->names[i]);
                goto fail;
            }
        }
    }
    return 0;
fail:
    cli_input_columns_free(out);
    return -1;
}
