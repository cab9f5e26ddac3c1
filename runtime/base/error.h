/*
 * Internal error reporting, and the one convention for failing (docs/design.md, "Errors").
 *
 * A function that can fail returns apo_status. The function that finds the fault records
 * a detailed, per-thread message with apo__fail(), which returns the status it is given;
 * its callers pass the status up unchanged and add no message of their own, so the text
 * apo_last_error() shows is the one written where the detail was known. Code that only
 * checks a value and whose verdict may become a warning instead of an error (the device
 * list parser, profile validation, kernel parameter checks) writes its reason into a
 * caller's `char *err, size_t err_size` buffer instead and does not touch the last error;
 * the caller decides whether it is an apo__fail() or an apo__warn().
 *
 * A function holding more than one resource releases them at one cleanup label:
 *
 *     apo_status st;
 *     APO_CHECK_GOTO(step_one(a), st, fail);
 *     APO_CHECK_GOTO(step_two(b), st, fail);
 *     return APO_OK;
 * fail:
 *     release(b);
 *     release(a);
 *     return st;
 */
#ifndef APO_RUNTIME_BASE_ERROR_H
#define APO_RUNTIME_BASE_ERROR_H

#include "apportion.h"

#if defined(__GNUC__)
#define APO_PRINTF_LIKE(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define APO_PRINTF_LIKE(fmt, args)
#endif

/* Records "<message>" as this thread's last error and returns `status`. */
apo_status apo__fail(apo_status status, const char *fmt, ...) APO_PRINTF_LIKE(2, 3);

/* Returns the status of `call` from the enclosing function unless it is APO_OK. */
#define APO_CHECK(call)                                                                            \
    do {                                                                                           \
        apo_status apo__check_st = (call);                                                         \
        if (apo__check_st != APO_OK)                                                               \
            return apo__check_st;                                                                  \
    } while (0)

/* Stores the status of `call` in `st` and jumps to `label` unless it is APO_OK. */
#define APO_CHECK_GOTO(call, st, label)                                                            \
    do {                                                                                           \
        (st) = (call);                                                                             \
        if ((st) != APO_OK)                                                                        \
            goto label;                                                                            \
    } while (0)

/* The check every public struct with a `size` field gets: a caller built against another
 * layout of the header (or that forgot the INIT macro) is refused, naming the macro. */
#define APO_CHECK_STRUCT_SIZE(ptr, type, init_macro)                                               \
    do {                                                                                           \
        if ((ptr)->size != sizeof(type))                                                           \
            return apo__fail(APO_ERR_INVALID_ARGUMENT,                                             \
                             #type ".size is %zu, expected %zu: initialise it with " #init_macro,  \
                             (ptr)->size, sizeof(type));                                           \
    } while (0)

#endif
