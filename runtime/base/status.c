/*
 * Status codes, their messages and the per-thread last error. The messages come from the
 * APO_STATUS_MAP table in the public header, so codes and texts cannot drift apart.
 */
#include <stdarg.h>
#include <stdio.h>

#include "base/error.h"

#define APO_LAST_ERROR_MAX 512

static _Thread_local char last_error[APO_LAST_ERROR_MAX];

const char *apo_version(void) { return APO_VERSION_STRING; }

const char *apo_strerror(apo_status status) {
    switch (status) {
#define APO_STATUS_MESSAGE_(name, value, message)                                                  \
    case APO_##name:                                                                               \
        return value == 0 ? message : message " (apo_last_error() has the details)";
        APO_STATUS_MAP(APO_STATUS_MESSAGE_)
#undef APO_STATUS_MESSAGE_
    }
    return "unknown status";
}

const char *apo_status_name(apo_status status) {
    switch (status) {
#define APO_STATUS_NAME_(name, value, message)                                                     \
    case APO_##name:                                                                               \
        return "APO_" #name;
        APO_STATUS_MAP(APO_STATUS_NAME_)
#undef APO_STATUS_NAME_
    }
    return "APO_UNKNOWN";
}

const char *apo_last_error(void) { return last_error; }

apo_status apo__fail(apo_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}
