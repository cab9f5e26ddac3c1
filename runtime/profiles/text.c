/*
 * Text helpers of profiles/ (see text.h): the `err` buffer, errno text, UTF-8 checks, keys
 * shown in messages. (Numbers written and read with '.' are base/c_number.h's.)
 */
#include "profiles/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void apo__errf(char *err, size_t err_size, const char *fmt, ...) {
    if (err == NULL || err_size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
}

const char *apo__errno_text(int e, char *buf, size_t size) {
    if (strerror_r(e, buf, size) != 0)
        snprintf(buf, size, "error %d", e);
    return buf;
}

int apo__utf8_valid(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p != 0) {
        unsigned c = *p;
        size_t extra;
        unsigned min;
        if (c < 0x80) {
            p++;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            extra = 1, min = 0x80, c &= 0x1f;
        } else if ((c & 0xf0) == 0xe0) {
            extra = 2, min = 0x800, c &= 0x0f;
        } else if ((c & 0xf8) == 0xf0) {
            extra = 3, min = 0x10000, c &= 0x07;
        } else {
            return 0;
        }
        p++;
        for (size_t i = 0; i < extra; i++, p++) {
            if ((*p & 0xc0) != 0x80)
                return 0;
            c = (c << 6) | (*p & 0x3fu);
        }
        if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
            return 0;
    }
    return 1;
}

void apo__show_key(char *out, size_t size, const char *key) {
    size_t len = strlen(key), n = len;
    if (n > APO_KEY_SHOWN_MAX) {
        n = APO_KEY_SHOWN_MAX;
        while (n > 0 && ((unsigned char)key[n] & 0xc0) == 0x80)
            n--;
    }
    size_t o = 0;
    for (size_t i = 0; i < n && o + 1 < size; i++) {
        unsigned char c = (unsigned char)key[i];
        out[o++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    out[o] = '\0';
    if (n < len && o + 4 <= size)
        memcpy(out + o, "...", 4);
}
