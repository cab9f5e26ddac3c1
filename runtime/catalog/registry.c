/* The kernel registry; see registry.h. */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "catalog/registry.h"
#include "catalog/scored_kernels.h"

void apo__registry_init(apo__registry *reg) {
    memset(reg, 0, sizeof *reg);
    pthread_mutex_init(&reg->mutex, NULL);
}

void apo__registry_destroy(apo__registry *reg) {
    for (size_t i = 0; i < reg->n_user; i++)
        free(reg->user[i]);
    reg->n_user = 0;
    pthread_mutex_destroy(&reg->mutex);
}

static const apo__kernel *find_user_locked(const apo__registry *reg, const char *name) {
    for (size_t i = 0; i < reg->n_user; i++)
        if (strcmp(reg->user[i]->name, name) == 0)
            return reg->user[i];
    return NULL;
}

const apo__kernel *apo__registry_find(apo__registry *reg, const char *name) {
    const apo__kernel *builtin = apo__builtin_kernel_named(name);
    if (builtin != NULL)
        return builtin;
    const apo__kernel *scored = apo__scored_kernel_find(name);
    if (scored != NULL)
        return scored;
    pthread_mutex_lock(&reg->mutex);
    const apo__kernel *found = find_user_locked(reg, name);
    pthread_mutex_unlock(&reg->mutex);
    return found;
}

apo_status apo__registry_add(apo__registry *reg, const apo_kernel_desc *desc) {
    apo__kernel *k = malloc(sizeof *k);
    if (k == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_kernel_register: out of memory");
    char err[256];
    apo_status st = apo__user_kernel_init(k, desc, err, sizeof err);
    if (st != APO_OK) {
        free(k);
        return apo__fail(st, "apo_kernel_register: %s", err);
    }
    if (apo__builtin_kernel_named(k->name) != NULL)
        goto taken;
    pthread_mutex_lock(&reg->mutex);
    /* Looked up under the lock: two threads may register the same name at once. */
    if (find_user_locked(reg, k->name) != NULL) {
        pthread_mutex_unlock(&reg->mutex);
        goto taken;
    }
    if (reg->n_user == APO_USER_KERNELS_MAX) {
        pthread_mutex_unlock(&reg->mutex);
        free(k);
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_kernel_register: at most %d user kernels per runtime",
                         APO_USER_KERNELS_MAX);
    }
    reg->user[reg->n_user++] = k;
    pthread_mutex_unlock(&reg->mutex);
    return APO_OK;
taken:
    st =
        apo__fail(APO_ERR_ALREADY_EXISTS, "apo_kernel_register: a kernel named %s exists", k->name);
    free(k);
    return st;
}

size_t apo__registry_count(apo__registry *reg) {
    pthread_mutex_lock(&reg->mutex);
    size_t n = apo__builtin_kernel_count() + reg->n_user;
    pthread_mutex_unlock(&reg->mutex);
    return n;
}

const apo__kernel *apo__registry_at(apo__registry *reg, size_t index) {
    size_t nb = apo__builtin_kernel_count();
    if (index < nb)
        return apo__builtin_kernel(index);
    const apo__kernel *k = NULL;
    pthread_mutex_lock(&reg->mutex);
    if (index - nb < reg->n_user)
        k = reg->user[index - nb];
    pthread_mutex_unlock(&reg->mutex);
    return k;
}

apo_status apo__registry_lookup(apo__registry *reg, const char *name, const apo__kernel **out) {
    *out = apo__registry_find(reg, name);
    if (*out != NULL)
        return APO_OK;
    const char *colon = strchr(name, ':');
    if (colon != NULL && (size_t)(colon - name) < APO_NAME_MAX) {
        /* "<kernel>:<rule>" that is no scored kernel: say which part is wrong. */
        char indicator[APO_NAME_MAX];
        memcpy(indicator, name, (size_t)(colon - name));
        indicator[colon - name] = '\0';
        if (apo__registry_find(reg, indicator) != NULL)
            return apo__scored_kernel_of(indicator, colon + 1, out);
    }
    return apo__fail(APO_ERR_UNKNOWN_KERNEL,
                     "no kernel named \"%s\" (`apportion kernels` lists them: the built-ins, the "
                     "catalog's and the ones registered)",
                     name);
}
