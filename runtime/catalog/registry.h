/*
 * The kernel registry of one runtime: the built-ins, then the user kernels in registration
 * order. User kernels are never removed, so a pointer found under the lock stays valid for
 * the registry's life; the built-ins are static.
 */
#ifndef APO_RUNTIME_CATALOG_REGISTRY_H
#define APO_RUNTIME_CATALOG_REGISTRY_H

#include <pthread.h>
#include <stddef.h>

#include "catalog/kernel.h"
#include "catalog/scored_kernels.h"

#define APO_USER_KERNELS_MAX 64
#define APO_USER_RULES_MAX 64

/* A user's rule as its scored kernel "<kernel>:<rule>" (apo_rule_register). */
typedef struct apo__user_rule {
    apo__kernel kernel;
    apo__scoring scoring;
    apo__rule_failure failure;
    char rule_name[APO_NAME_MAX];
} apo__user_rule;

typedef struct apo__registry {
    pthread_mutex_t mutex; /* guards `user`, `n_user`, `rules` and `n_rules` */
    apo__kernel *user[APO_USER_KERNELS_MAX];
    size_t n_user;
    apo__user_rule *rules[APO_USER_RULES_MAX];
    size_t n_rules;
} apo__registry;

void apo__registry_init(apo__registry *reg);

/* Frees the user kernels. */
void apo__registry_destroy(apo__registry *reg);

/* Finds a kernel by name (built-ins, scored kernels "<kernel>:<rule>", then user kernels and
 * user rules' scored kernels), or NULL. */
const apo__kernel *apo__registry_find(apo__registry *reg, const char *name);

/* apo__registry_find() that says why not: APO_ERR_UNKNOWN_KERNEL, or for "<kernel>:<rule>"
 * of a known kernel the reason apo__scored_kernel_of() gives. */
apo_status apo__registry_lookup(apo__registry *reg, const char *name, const apo__kernel **out);

/* Checks and copies a user kernel's descriptor and adds it. Fails (with the last error
 * set, prefixed "apo_kernel_register: ") on a bad descriptor, a taken name or a full
 * registry. */
apo_status apo__registry_add(apo__registry *reg, const apo_kernel_desc *desc);

/* Checks a user rule's descriptor and adds its scored kernel. Fails (with the last error
 * set, prefixed "apo_rule_register: ") on a bad descriptor, an unknown kernel or one that
 * cannot be scored, a taken name or a full table. */
apo_status apo__registry_add_rule(apo__registry *reg, const apo_rule_desc *desc);

/* Kernels in the registry, and the kernel at an index of that order (NULL past the end). */
size_t apo__registry_count(apo__registry *reg);
const apo__kernel *apo__registry_at(apo__registry *reg, size_t index);

#endif
