/* The public calls on a runtime's kernels (apportion.h, "Kernels"): the registry's face. */
#include <string.h>

#include "base/error.h"
#include "catalog/call_span.h"
#include "catalog/registry.h"
#include "core/runtime.h"

apo_status apo_kernel_register(apo_runtime *rt, const apo_kernel_desc *desc) {
    if (rt == NULL || desc == NULL)
        return apo__fail(APO_ERR_NULL, "apo_kernel_register: NULL argument");
    return apo__registry_add(&rt->registry, desc);
}

apo_status apo_rule_register(apo_runtime *rt, const apo_rule_desc *desc) {
    if (rt == NULL || desc == NULL)
        return apo__fail(APO_ERR_NULL, "apo_rule_register: NULL argument");
    return apo__registry_add_rule(&rt->registry, desc);
}

apo_status apo_kernel_count(const apo_runtime *rt, size_t *count) {
    if (rt == NULL || count == NULL)
        return apo__fail(APO_ERR_NULL, "apo_kernel_count: NULL argument");
    /* The registry's lock is not part of the runtime's logical state. */
    *count = apo__registry_count(&((apo_runtime *)rt)->registry);
    return APO_OK;
}

apo_status apo_kernel_name(const apo_runtime *rt, size_t index, const char **name) {
    if (rt == NULL || name == NULL)
        return apo__fail(APO_ERR_NULL, "apo_kernel_name: NULL argument");
    const apo__kernel *k = apo__registry_at(&((apo_runtime *)rt)->registry, index);
    if (k == NULL)
        return apo__fail(APO_ERR_NOT_FOUND, "apo_kernel_name: no kernel at index %zu", index);
    *name = k->name;
    return APO_OK;
}

apo_status apo_kernel_get(const apo_runtime *rt, const char *name, apo_kernel_info *info) {
    if (rt == NULL || name == NULL || info == NULL)
        return apo__fail(APO_ERR_NULL, "apo_kernel_get: NULL argument");
    APO_CHECK_STRUCT_SIZE(info, apo_kernel_info, APO_KERNEL_INFO_INIT);
    const apo__kernel *k = NULL;
    apo_status st = apo__registry_lookup(&((apo_runtime *)rt)->registry, name, &k);
    if (st != APO_OK)
        return st;
    memset(info, 0, sizeof *info);
    info->size = sizeof *info;
    info->name = k->name;
    info->builtin = k->builtin;
    info->n_inputs = k->n_inputs;
    info->n_outputs = k->n_outputs;
    info->n_params = k->n_params;
    for (size_t i = 0; i < k->n_inputs; i++)
        info->input_names[i] = k->input_names[i];
    for (size_t i = 0; i < k->n_outputs; i++)
        info->output_names[i] = k->output_names[i];
    double defaults[APO_MAX_PARAMS] = {0};
    for (size_t i = 0; i < k->n_params; i++) {
        info->param_names[i] = k->params[i].name;
        info->param_defaults[i] = defaults[i] = k->params[i].def;
        info->param_min[i] = k->params[i].min;
        info->param_max[i] = k->params[i].max;
        info->param_integer[i] = k->params[i].integer;
    }
    info->halo_whole_row = apo__kernel_whole_row_input(k, defaults);
    info->halo = info->halo_whole_row ? 0 : apo__kernel_halo(k, defaults);
    info->halo_rule = k->halo_rule;
    return APO_OK;
}
