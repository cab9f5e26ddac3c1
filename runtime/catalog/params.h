/*
 * A kernel's parameters as a call sees them: the caller's named values resolved against the
 * kernel's specs (defaults, integers, bounds), in the kernel's own order.
 */
#ifndef APO_RUNTIME_CATALOG_PARAMS_H
#define APO_RUNTIME_CATALOG_PARAMS_H

#include <stddef.h>

#include "catalog/kernel.h"

/* A kernel's parameter values in its own order: defaults, overridden by `params`, each
 * checked against its bounds. Returns APO_ERR_NULL or APO_ERR_BAD_PARAM (with the last
 * error naming the kernel and parameter). */
/* 1 when `name` names parameter i of kernel k: its name, or the name it had before it took
 * TA-Lib's (params.c, aliases), else 0. */
int apo__param_named(const apo__kernel *k, size_t i, const char *name);

apo_status apo__resolve_params(const apo__kernel *k, const apo_param *params, size_t n_params,
                               double *values);

#endif
