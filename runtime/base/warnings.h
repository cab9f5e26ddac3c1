/*
 * Warnings gathered while a runtime is created. The library never prints: callers read
 * them through apo_runtime_warning(), and the debug log repeats them.
 */
#ifndef APO_RUNTIME_BASE_WARNINGS_H
#define APO_RUNTIME_BASE_WARNINGS_H

#include <stddef.h>

#include "base/error.h"

#define APO_WARNINGS_MAX 16
#define APO_WARNING_LEN 256

typedef struct apo__warnings {
    size_t count;
    size_t dropped; /* warnings past APO_WARNINGS_MAX, summarised in the last slot */
    char text[APO_WARNINGS_MAX][APO_WARNING_LEN];
    apo_warning_kind kind[APO_WARNINGS_MAX]; /* zero, APO_WARNING_PLAIN, unless said */
} apo__warnings;

/* Appends a warning of kind APO_WARNING_PLAIN (and logs it at WARN level). */
void apo__warn(apo__warnings *w, const char *fmt, ...) APO_PRINTF_LIKE(2, 3);

/* Appends a warning of the given kind (and logs it at WARN level). */
void apo__warn_kind(apo__warnings *w, apo_warning_kind kind, const char *fmt, ...)
    APO_PRINTF_LIKE(3, 4);

#endif
