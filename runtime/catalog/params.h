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
apo_status apo__resolve_params(const apo__kernel *k, const apo_param *params, size_t n_params,
                               double *values);

#endif
