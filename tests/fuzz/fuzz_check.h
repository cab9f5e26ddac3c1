/*
 * What the fuzz targets share: a check that turns a broken invariant into a crash that
 * libFuzzer records (with the input that caused it), and small independent predicates.
 *
 * A failed check prints its message to stderr and also through the sanitizer's report
 * channel, because `scripts/test.sh --fuzz` runs the targets with -close_fd_mask=3 (the CLI
 * parsers print usage errors, which would drown the log): libFuzzer keeps that channel open.
 */
#ifndef APO_FUZZ_CHECK_H
#define APO_FUZZ_CHECK_H

#include <sanitizer/common_interface_defs.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((format(printf, 3, 4), noreturn)) static void fuzz_fail(const char *file, int line,
                                                                      const char *fmt, ...) {
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    char message[1200];
    snprintf(message, sizeof message, "fuzz invariant broken at %s:%d: %s", file, line, what);
    fprintf(stderr, "%s\n", message);
    __sanitizer_report_error_summary(message);
    abort();
}

#define FUZZ_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fuzz_fail(__FILE__, __LINE__, __VA_ARGS__);                                            \
    } while (0)

/* A char array of `size` bytes holds a terminated string. */
static inline int fuzz_terminated(const char *s, size_t size) {
    return memchr(s, '\0', size) != NULL;
}

/* A message holds no control byte: it goes to a terminal or a log on one line, and bytes
 * from the input must not act there (escape sequences) or hide what was wrong. */
static inline int fuzz_printable(const char *s) {
    for (; *s != '\0'; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

/* Well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF), written
 * here from RFC 3629's table rather than taken from the code under test. */
static inline int fuzz_utf8(const char *text) {
    const unsigned char *s = (const unsigned char *)text;
    while (*s != 0) {
        size_t n;
        uint32_t c;
        if (s[0] < 0x80) {
            s++;
            continue;
        } else if (s[0] >= 0xc2 && s[0] <= 0xdf) {
            n = 1, c = s[0] & 0x1fu;
        } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
            n = 2, c = s[0] & 0x0fu;
        } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
            n = 3, c = s[0] & 0x07u;
        } else {
            return 0;
        }
        for (size_t i = 1; i <= n; i++) {
            if ((s[i] & 0xc0) != 0x80)
                return 0;
            c = (c << 6) | (s[i] & 0x3fu);
        }
        if ((n == 2 && c < 0x800) || (n == 3 && (c < 0x10000 || c > 0x10ffff)) ||
            (c >= 0xd800 && c <= 0xdfff))
            return 0;
        s += n + 1;
    }
    return 1;
}

/* The fuzz input up to its first NUL (where a C string from the environment or argv would
 * end), in a buffer of exactly its length plus the terminator, so that ASan sees any read
 * past the end. Free with free(). */
static inline char *fuzz_string(const uint8_t *data, size_t size) {
    const uint8_t *nul = size > 0 ? memchr(data, 0, size) : NULL;
    const size_t len = nul != NULL ? (size_t)(nul - data) : size;
    char *s = malloc(len + 1);
    if (s == NULL)
        abort();
    if (len > 0)
        memcpy(s, data, len);
    s[len] = '\0';
    return s;
}

#endif /* APO_FUZZ_CHECK_H */
