/*
 * multigpu.json as the rest of profiles/ uses it: its reader, its writer and its order
 * (multigpu_update.c updates the file through them). Private to profiles/.
 */
#ifndef APO_RUNTIME_PROFILES_MULTIGPU_FORMAT_H
#define APO_RUNTIME_PROFILES_MULTIGPU_FORMAT_H

#include <jansson.h>

#include "profiles/file_read.h"
#include "profiles/profile_store.h"

/* So that a hostile file within APO_PROFILE_FILE_MAX still cannot make a load allocate
 * gigabytes (a stored workload takes about 23 KiB, some 90 MB for all); far beyond what real
 * profiles hold. */
#define APO_WORKLOADS_MAX 4096

/* The reader of multigpu.json, both the apportion and the ThreadX shape. */
extern const apo__profile_format apo__multigpu_format;

/* Orders devices by id and workloads by tag, as a load returns them. */
int apo__device_cmp(const void *a, const void *b);
int apo__workload_cmp(const void *a, const void *b);

/* The file as written (always the apportion shape), or NULL when out of memory. */
json_t *apo__multigpu_to_json(const apo__multigpu *p);

#endif
