/*
 * apo_threshold_record(): one measurement added to thresholds.json from outside profiling,
 * for callers that time their own runs (the Python package's update_gpu_threshold_entry(),
 * ThreadX's call of that name, docs/python.md). The key and the merge are profiling's own
 * (profiles/threshold_keys.c, balance/balance_files.c), so an entry recorded here is read back by
 * apo_should_use_gpu() and `apportion show` like a profiled one.
 */
#include <math.h>
#include <string.h>

#include "balance/balance_files.h"
#include "catalog/params.h"
#include "core/runtime.h"

/* [A-Za-z0-9_], 1 to APO_NAME_MAX - 1 characters (the key's alphabet, docs/profiles.md). */
static int valid_name(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n >= APO_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return 0;
    }
    return 1;
}

static int valid_time(double ms) { return isnan(ms) || (isfinite(ms) && ms >= 0); }

/* The parameters the key holds: a kernel's, resolved with its defaults (as
 * apo_should_use_gpu() looks them up), else the ones given, checked. *key_name is the
 * kernel's own name, whatever case `function` wrote it in (apo_should_use_gpu() looks the
 * key up under it), else `function`. */
static apo_status key_params(apo_runtime *rt, const char *function, const apo_param *params,
                             size_t n_params, const char **names, double *values, size_t *n,
                             const char **key_name) {
    const apo__kernel *k = apo__registry_find(&rt->registry, function);
    *key_name = k != NULL ? k->name : function;
    if (k != NULL) {
        APO_CHECK(apo__resolve_params(k, params, n_params, values));
        for (size_t p = 0; p < k->n_params; p++)
            names[p] = k->params[p].name;
        *n = k->n_params;
        return APO_OK;
    }
    if (n_params > APO_MAX_PARAMS)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_threshold_record: %zu parameters, at most %d", n_params,
                         APO_MAX_PARAMS);
    for (size_t p = 0; p < n_params; p++) {
        const char *name = params[p].name;
        if (name == NULL)
            return apo__fail(APO_ERR_NULL, "apo_threshold_record: parameter %zu has no name", p);
        if (!valid_name(name) || strcmp(name, "size") == 0)
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "apo_threshold_record: parameter name \"%s\" is not 1-31 characters "
                             "of [A-Za-z0-9_] other than size (size is the samples argument)",
                             name);
        for (size_t q = 0; q < p; q++)
            if (strcmp(names[q], name) == 0)
                return apo__fail(APO_ERR_INVALID_ARGUMENT,
                                 "apo_threshold_record: parameter %s is given twice", name);
        if (!isfinite(params[p].value))
            return apo__fail(APO_ERR_INVALID_ARGUMENT,
                             "apo_threshold_record: parameter %s is not finite", name);
        names[p] = name;
        values[p] = params[p].value;
    }
    *n = n_params;
    return APO_OK;
}

apo_status apo_threshold_record(apo_runtime *rt, const char *function, const apo_param *params,
                                size_t n_params, uint64_t samples, double cpu_ms, double gpu_ms) {
    if (rt == NULL || function == NULL || (params == NULL && n_params > 0))
        return apo__fail(APO_ERR_NULL, "apo_threshold_record: NULL argument");
    if (!valid_name(function))
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_threshold_record: function name \"%s\" is not 1-31 characters of "
                         "[A-Za-z0-9_]",
                         function);
    if (!valid_time(cpu_ms) || !valid_time(gpu_ms) || (isnan(cpu_ms) && isnan(gpu_ms)))
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_threshold_record: times must be finite and >= 0 ms (NaN: not "
                         "measured) and one at least measured; got cpu %g, gpu %g",
                         cpu_ms, gpu_ms);
    const char *names[APO_MAX_PARAMS];
    double values[APO_MAX_PARAMS];
    size_t n = 0;
    const char *key_name = function;
    APO_CHECK(key_params(rt, function, params, n_params, names, values, &n, &key_name));
    apo__threshold add;
    memset(&add, 0, sizeof add);
    if (apo__threshold_key(add.key, key_name, names, values, n, samples) != APO_OK)
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_threshold_record: the key of %s with these parameters is over %d "
                         "bytes",
                         function, APO_THRESHOLD_KEY_MAX - 1);
    add.cpu_ms_avg = cpu_ms;
    add.gpu_ms_avg = gpu_ms;
    add.samples = 1;
    add.cpu_samples = !isnan(cpu_ms);
    add.gpu_samples = !isnan(gpu_ms);
    return apo__balance_add_thresholds(&rt->balance, &add, 1);
}
