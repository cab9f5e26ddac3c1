/* The kernel registry: built-ins first, then user kernels in registration order. */
#include <stdlib.h>
#include <string.h>

#include "core/runtime.h"

const apo__kernel *apo__find_kernel(apo_runtime *rt, const char *name) {
    for (size_t i = 0; i < apo__builtin_kernel_count(); i++)
        if (strcmp(apo__builtin_kernel(i)->name, name) == 0)
            return apo__builtin_kernel(i);
    const apo__kernel *found = NULL;
    pthread_mutex_lock(&rt->kernel_mutex);
    for (size_t i = 0; i < rt->n_user_kernels && found == NULL; i++)
        if (strcmp(rt->user_kernels[i]->name, name) == 0)
            found = rt->user_kernels[i];
    pthread_mutex_unlock(&rt->kernel_mutex);
    return found;
}

apo_status apo_kernel_register(apo_runtime *rt, const apo_kernel_desc *desc) {
    if (rt == NULL || desc == NULL)
        return apo__fail(APO_ERR_NULL, "apo_kernel_register: NULL argument");
    apo__kernel *k = malloc(sizeof *k);
    if (k == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_kernel_register: out of memory");
    char err[256];
    apo_status st = apo__user_kernel_init(k, desc, err, sizeof err);
    if (st != APO_OK) {
        free(k);
        return apo__fail(st, "apo_kernel_register: %s", err);
    }
    if (apo__find_kernel(rt, k->name) != NULL) {
        apo_status fail = apo__fail(APO_ERR_ALREADY_EXISTS,
                                    "apo_kernel_register: a kernel named %s exists", k->name);
        free(k);
        return fail;
    }
    pthread_mutex_lock(&rt->kernel_mutex);
    /* Checked again under the lock: two threads may register the same name at once. */
    int taken = 0;
    for (size_t i = 0; i < rt->n_user_kernels; i++)
        taken |= strcmp(rt->user_kernels[i]->name, k->name) == 0;
    if (taken || rt->n_user_kernels == APO_USER_KERNELS_MAX) {
        pthread_mutex_unlock(&rt->kernel_mutex);
        apo_status fail =
            taken ? apo__fail(APO_ERR_ALREADY_EXISTS,
                              "apo_kernel_register: a kernel named %s exists", k->name)
                  : apo__fail(APO_ERR_INVALID_ARGUMENT,
                              "apo_kernel_register: at most %d user kernels per runtime",
                              APO_USER_KERNELS_MAX);
        free(k);
        return fail;
    }
    rt->user_kernels[rt->n_user_kernels++] = k;
    pthread_mutex_unlock(&rt->kernel_mutex);
    return APO_OK;
}

static const apo__kernel *kernel_at(apo_runtime *rt, size_t index) {
    size_t nb = apo__builtin_kernel_count();
    if (index < nb)
        return apo__builtin_kernel(index);
    const apo__kernel *k = NULL;
    pthread_mutex_lock(&rt->kernel_mutex);
    if (index - nb < rt->n_user_kernels)
        k = rt->user_kernels[index - nb];
    pthread_mutex_unlock(&rt->kernel_mutex);
    return k;
}

apo_status apo_kernel_count(const apo_runtime *rt, size_t *count) {
    if (rt == NULL || count == NULL)
        return apo__fail(APO_ERR_NULL, "apo_kernel_count: NULL argument");
    apo_runtime *mrt = (apo_runtime *)rt; /* the lock is not part of the logical state */
    pthread_mutex_lock(&mrt->kernel_mutex);
    *count = apo__builtin_kernel_count() + mrt->n_user_kernels;
    pthread_mutex_unlock(&mrt->kernel_mutex);
    return APO_OK;
}

apo_status apo_kernel_name(const apo_runtime *rt, size_t index, const char **name) {
    if (rt == NULL || name == NULL)
        return apo__fail(APO_ERR_NULL, "apo_kernel_name: NULL argument");
    const apo__kernel *k = kernel_at((apo_runtime *)rt, index);
    if (k == NULL)
        return apo__fail(APO_ERR_NOT_FOUND, "apo_kernel_name: no kernel at index %zu", index);
    *name = k->name;
    return APO_OK;
}

apo_status apo_kernel_get(const apo_runtime *rt, const char *name, apo_kernel_info *info) {
    if (rt == NULL || name == NULL || info == NULL)
        return apo__fail(APO_ERR_NULL, "apo_kernel_get: NULL argument");
    APO_CHECK_STRUCT_SIZE(info, apo_kernel_info, APO_KERNEL_INFO_INIT);
    const apo__kernel *k = apo__find_kernel((apo_runtime *)rt, name);
    if (k == NULL)
        return apo__fail(APO_ERR_UNKNOWN_KERNEL, "no kernel named \"%s\"", name);
    memset(info, 0, sizeof *info);
    info->size = sizeof *info;
    info->name = k->name;
    info->builtin = k->builtin;
    info->n_inputs = k->n_inputs;
    info->n_outputs = k->n_outputs;
    info->n_params = k->n_params;
    for (size_t i = 0; i < k->n_outputs; i++)
        info->output_names[i] = k->output_names[i];
    for (size_t i = 0; i < k->n_params; i++) {
        info->param_names[i] = k->params[i].name;
        info->param_defaults[i] = k->params[i].def;
    }
    return APO_OK;
}
