/* Resolving a call's kernel parameters; see params.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/c_number.h"
#include "base/error.h"
#include "catalog/params.h"

/* v as the shortest text that reads back to it, for messages (1e+300, not
 * 1.0000000000000001e+300). */
static const char *shortest(double v, char *buf, size_t size) {
    apo__format_shortest(buf, size, v);
    return buf;
}

/* The names parameters had before they took TA-Lib's, which calls written with them still use:
 * {kernel, parameter, old name}. The descriptors, messages and saved keys use the parameter's
 * own name. */
static const char *const aliases[][3] = {
    {"macd", "fastperiod", "fast"},
    {"macd", "slowperiod", "slow"},
    {"macd", "signalperiod", "signal"},
};

/* 1 when kernel k is the built-in `indicator` or one of its scored kernels, which take its
 * parameters under the name "<indicator>:<rule>" (scored_kernels.c). */
static int is_indicator(const apo__kernel *k, const char *indicator) {
    const size_t n = strlen(indicator);
    return k->builtin && strncmp(k->name, indicator, n) == 0 &&
           (k->name[n] == '\0' || k->name[n] == ':');
}

int apo__param_named(const apo__kernel *k, size_t i, const char *name) {
    if (strcmp(k->params[i].name, name) == 0)
        return 1;
    for (size_t a = 0; a < sizeof aliases / sizeof aliases[0]; a++)
        if (is_indicator(k, aliases[a][0]) && strcmp(aliases[a][1], k->params[i].name) == 0 &&
            strcmp(aliases[a][2], name) == 0)
            return 1;
    return 0;
}

apo_status apo__resolve_params(const apo__kernel *k, const apo_param *params, size_t n_params,
                               double *values) {
    int given[APO_MAX_PARAMS] = {0};
    for (size_t i = 0; i < k->n_params; i++)
        values[i] = k->params[i].def;
    if (n_params > 0 && params == NULL)
        return apo__fail(APO_ERR_NULL, "%s: n_params is %zu but params is NULL", k->name, n_params);
    for (size_t j = 0; j < n_params; j++) {
        const apo_param *p = &params[j];
        if (p->name == NULL)
            return apo__fail(APO_ERR_NULL, "%s: parameter %zu has a NULL name", k->name, j);
        size_t i = 0;
        while (i < k->n_params && !apo__param_named(k, i, p->name))
            i++;
        if (i == k->n_params) {
            char known[APO_MAX_PARAMS * APO_NAME_MAX + 16] = "";
            for (size_t m = 0; m < k->n_params; m++) {
                strcat(known, m ? ", " : "");
                strcat(known, k->params[m].name);
            }
            return apo__fail(APO_ERR_BAD_PARAM, "%s has no parameter \"%s\" (it has: %s)", k->name,
                             p->name, k->n_params ? known : "none");
        }
        const apo__param_spec *spec = &k->params[i];
        if (given[i]++)
            return apo__fail(APO_ERR_BAD_PARAM, "%s: parameter %s given twice", k->name,
                             spec->name);
        double v = p->value;
        if (!isfinite(v))
            return apo__fail(APO_ERR_BAD_PARAM, "%s: parameter %s must be finite", k->name,
                             spec->name);
        char lo[32], hi[32], got[32];
        if (spec->integer && v != floor(v))
            return apo__fail(APO_ERR_BAD_PARAM, "%s: parameter %s must be an integer, got %s",
                             k->name, spec->name, shortest(v, got, sizeof got));
        if (v < spec->min || v > spec->max)
            return apo__fail(APO_ERR_BAD_PARAM, "%s: parameter %s must be from %s to %s, got %s",
                             k->name, spec->name, shortest(spec->min, lo, sizeof lo),
                             shortest(spec->max, hi, sizeof hi), shortest(v, got, sizeof got));
        values[i] = v;
    }
    return APO_OK;
}
