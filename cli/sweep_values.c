/*
 * The values of a swept --param, shared by `apportion run` and `apportion stream` so that a
 * sweep is written the same way for both (docs/cli/run.md, "Sweeps"): a range START:STOP:STEP,
 * STOP included, or a comma-separated list.
 */
#include "sweep_values.h"

#include "cli.h"

#include <apportion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Parses one number of a --param value (text[0..len)). */
static int parse_number(const char *text, size_t len, double *v) {
    char buf[128];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, text, len);
    buf[len] = '\0';
    return cli_parse_double(buf, v);
}

/* The values of a swept parameter: START:STOP:STEP, inclusive, where STEP > 0 divides
 * STOP - START (to within rounding: the values are START + k * STEP, the last one STOP
 * itself); or a comma-separated list. *values is allocated. */
int cli_parse_sweep_values(const char *command, const char *param, const char *text,
                           double **values, size_t *n) {
    *values = NULL;
    *n = 0;
    if (strchr(text, ':') != NULL) {
        const char *c1 = strchr(text, ':'), *c2 = strchr(c1 + 1, ':');
        double start, stop, step;
        if (c2 == NULL || strchr(c2 + 1, ':') != NULL ||
            parse_number(text, (size_t)(c1 - text), &start) != 0 ||
            parse_number(c1 + 1, (size_t)(c2 - c1 - 1), &stop) != 0 ||
            parse_number(c2 + 1, strlen(c2 + 1), &step) != 0)
            return cli_usage_error(
                command, "--param %s: expected START:STOP:STEP with finite numbers", param);
        if (!(step > 0))
            return cli_usage_error(command, "--param %s: the step must be positive", param);
        if (stop < start)
            return cli_usage_error(command, "--param %s: the range is empty (STOP < START)", param);
        const double steps = (stop - start) / step;
        if (!(steps < (double)APO_MAX_SWEEP_SETS))
            return cli_usage_error(command, "--param %s: more than %d values", param,
                                   APO_MAX_SWEEP_SETS);
        const double k = nearbyint(steps);
        const double scale = fabs(stop) > fabs(start) ? fabs(stop) : fabs(start);
        if (fabs(start + k * step - stop) > 1e-9 * (scale > step ? scale : step))
            return cli_usage_error(command, "--param %s: the step does not divide STOP - START",
                                   param);
        *n = (size_t)k + 1;
        *values = malloc(*n * sizeof **values);
        if (*values == NULL) {
            cli_error("out of memory");
            return CLI_EXIT_FAILURE;
        }
        for (size_t i = 0; i + 1 < *n; i++)
            (*values)[i] = start + (double)i * step;
        (*values)[*n - 1] = stop;
        return CLI_EXIT_OK;
    }
    size_t count = 1;
    for (const char *c = text; *c != '\0'; c++)
        count += *c == ',';
    if (count > APO_MAX_SWEEP_SETS)
        return cli_usage_error(command, "--param %s: more than %d values", param,
                               APO_MAX_SWEEP_SETS);
    *values = malloc(count * sizeof **values);
    if (*values == NULL) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    for (const char *p = text;;) {
        const char *comma = strchr(p, ',');
        const size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        if (len == 0)
            return cli_usage_error(command, "--param %s: empty item in the list '%s'", param, text);
        if (parse_number(p, len, &(*values)[*n]) != 0)
            return cli_usage_error(command, "--param %s: '%.*s' is not a finite number", param,
                                   (int)len, p);
        (*n)++;
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    return CLI_EXIT_OK;
}
