/* The kernel registry; see registry.h. */
#include <stdio.h>
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
    for (size_t i = 0; i < reg->n_rules; i++) {
        pthread_mutex_destroy(&reg->rules[i]->failure.mutex);
        free(reg->rules[i]);
    }
    reg->n_rules = 0;
    pthread_mutex_destroy(&reg->mutex);
}

static const apo__kernel *find_user_locked(const apo__registry *reg, const char *name) {
    for (size_t i = 0; i < reg->n_user; i++)
        if (apo__kernel_name_equal(reg->user[i]->name, name))
            return reg->user[i];
    for (size_t i = 0; i < reg->n_rules; i++)
        if (apo__kernel_name_equal(reg->rules[i]->kernel.name, name))
            return &reg->rules[i]->kernel;
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

/* A rule's name is a word, as a kernel's: it follows the kernel's after a colon. */
static int rule_name_ok(const char *name) {
    size_t n = strlen(name);
    if (n == 0 || n >= APO_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return 0;
    }
    return 1;
}

apo_status apo__registry_add_rule(apo__registry *reg, const apo_rule_desc *desc) {
    APO_CHECK_STRUCT_SIZE(desc, apo_rule_desc, APO_RULE_DESC_INIT);
    if (desc->name == NULL || desc->kernel == NULL || desc->fn == NULL)
        return apo__fail(APO_ERR_NULL, "apo_rule_register: %s is NULL",
                         desc->name == NULL     ? "name"
                         : desc->kernel == NULL ? "kernel"
                                                : "fn");
    if (!rule_name_ok(desc->name))
        return apo__fail(APO_ERR_INVALID_ARGUMENT,
                         "apo_rule_register: name \"%s\" is not 1 to %d of [A-Za-z0-9_]",
                         desc->name, APO_NAME_MAX - 1);
    if (apo__scored_rule_builtin(desc->name))
        return apo__fail(APO_ERR_ALREADY_EXISTS,
                         "apo_rule_register: %s is a built-in rule's name (docs/kernels.md, "
                         "\"Rules\")",
                         desc->name);
    const apo__kernel *ind = apo__registry_find(reg, desc->kernel);
    if (ind == NULL)
        return apo__fail(APO_ERR_UNKNOWN_KERNEL, "apo_rule_register: no kernel named \"%s\"",
                         desc->kernel);
    apo__user_rule *r = calloc(1, sizeof *r);
    if (r == NULL)
        return apo__fail(APO_ERR_OUT_OF_MEMORY, "apo_rule_register: out of memory");
    snprintf(r->rule_name, sizeof r->rule_name, "%s", desc->name);
    char err[256];
    apo_status st = apo__scored_kernel_user(&r->kernel, &r->scoring, ind, r->rule_name, desc->fn,
                                            desc->user, &r->failure, err, sizeof err);
    if (st != APO_OK) {
        free(r);
        return apo__fail(st, "apo_rule_register: %s", err);
    }
    pthread_mutex_init(&r->failure.mutex, NULL);
    pthread_mutex_lock(&reg->mutex);
    /* Looked up under the lock: two threads may register the same rule at once. */
    const char *why = NULL;
    if (find_user_locked(reg, r->kernel.name) != NULL)
        why = "taken";
    else if (reg->n_rules == APO_USER_RULES_MAX)
        why = "full";
    else
        reg->rules[reg->n_rules++] = r;
    pthread_mutex_unlock(&reg->mutex);
    if (why == NULL)
        return APO_OK;
    pthread_mutex_destroy(&r->failure.mutex);
    st = why[0] == 't' ? apo__fail(APO_ERR_ALREADY_EXISTS,
                                   "apo_rule_register: kernel %s has a rule named %s already",
                                   desc->kernel, desc->name)
                       : apo__fail(APO_ERR_INVALID_ARGUMENT,
                                   "apo_rule_register: at most %d user rules per runtime",
                                   APO_USER_RULES_MAX);
    free(r);
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
