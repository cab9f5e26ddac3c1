/*
 * Text helpers the profile files need everywhere: the caller's `err` buffer, errno as
 * text from any thread, UTF-8 and length checks on strings that become JSON, keys cut
 * short for messages; and, through base/c_number.h, numbers written and read with '.'.
 * Private to profiles/.
 */
#ifndef APO_RUNTIME_PROFILES_TEXT_H
#define APO_RUNTIME_PROFILES_TEXT_H

#include <stddef.h>
#include <string.h>

#include "base/c_number.h"
#include "base/error.h"

/* Keys are shown in messages cut to this many bytes, so a hostile key cannot drown them. */
#define APO_KEY_SHOWN_MAX 60

/* Writes a message into a caller's `err` buffer (base/error.h): nothing when it is NULL
 * or empty. */
void apo__errf(char *err, size_t err_size, const char *fmt, ...) APO_PRINTF_LIKE(3, 4);

/* errno `e` as text in `buf`, which it returns: strerror() is not thread-safe, and
 * profiles are written from runtime threads. */
const char *apo__errno_text(int e, char *buf, size_t size);

/* Bytes are well-formed UTF-8 (no overlong forms, no surrogates): jansson refuses anything
 * else as an object key or string, so updates are checked before they are turned into JSON. */
int apo__utf8_valid(const char *s);

/* A string fits a fixed buffer of `size` bytes, terminator included. */
static inline int apo__fits(const char *s, size_t size) { return strnlen(s, size) < size; }

/* Writes `key` for a message: cut to APO_KEY_SHOWN_MAX bytes at a character boundary (with
 * "..."), control characters shown as '?'. */
void apo__show_key(char *out, size_t size, const char *key);

#endif
