/*
 * Internal error reporting: every failing public call records a detailed, per-thread
 * message through apo__fail(), and returns the status it is given.
 */
#ifndef APO_RUNTIME_ERROR_H
#define APO_RUNTIME_ERROR_H

#include "apportion.h"

#if defined(__GNUC__)
#define APO_PRINTF_LIKE(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define APO_PRINTF_LIKE(fmt, args)
#endif

/* Records "<message>" as this thread's last error and returns `status`. */
apo_status apo__fail(apo_status status, const char *fmt, ...) APO_PRINTF_LIKE(2, 3);

#endif
