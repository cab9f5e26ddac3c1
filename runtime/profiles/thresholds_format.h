/*
 * thresholds.json as the rest of profiles/ uses it: its reader, its writer and its order
 * (thresholds_merge.c merges into the file through them). Private to profiles/.
 */
#ifndef APO_RUNTIME_PROFILES_THRESHOLDS_FORMAT_H
#define APO_RUNTIME_PROFILES_THRESHOLDS_FORMAT_H

#include <jansson.h>

#include "profiles/file_read.h"
#include "profiles/profile_store.h"

/* So that a hostile file within APO_PROFILE_FILE_MAX still cannot make a load allocate
 * gigabytes (an entry takes about 300 bytes); far beyond what real profiles hold. */
#define APO_THRESHOLD_ENTRIES_MAX 65536

/* The reader of thresholds.json, both the apportion and the ThreadX shape. */
extern const apo__profile_format apo__thresholds_format;

/* Orders entries by key, as a load returns them. */
int apo__threshold_cmp(const void *a, const void *b);

/* The file as written (always the apportion shape), or NULL when out of memory. */
json_t *apo__thresholds_to_json(const apo__thresholds *t);

#endif
