/*
 * Text helpers of profiles/ (see text.h): the `err` buffer, errno text, UTF-8 checks, keys
 * shown in messages, and C-locale numbers. The files and the threshold keys always use
 * '.' as the decimal point, but printf and strtod follow LC_NUMERIC, which a program using
 * the library may have set; the conversions here undo that.
 */
#include "profiles/text.h"

#include <locale.h>
#include <math.h>
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

/* The decimal point printf and strtod use under the current LC_NUMERIC. */
static char locale_point(void) {
    const char *dp = localeconv()->decimal_point;
    return (dp != NULL && dp[0] != '\0') ? dp[0] : '.';
}

static void format_c_double(char *buf, size_t size, int precision, double v) {
    snprintf(buf, size, "%.*g", precision, v);
    char point = locale_point();
    if (point != '.') {
        char *p = strchr(buf, point);
        if (p != NULL)
            *p = '.';
    }
}

int apo__parse_c_double(const char *s, size_t len, double *out) {
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return -1;
    size_t i = 0;
    if (s[i] == '-')
        i++;
    size_t digits = 0;
    while (i < len && s[i] >= '0' && s[i] <= '9')
        i++, digits++;
    if (digits == 0)
        return -1;
    if (i < len && s[i] == '.') {
        i++, digits = 0;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++, digits++;
        if (digits == 0)
            return -1;
    }
    if (i < len && s[i] == 'e') {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        digits = 0;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++, digits++;
        if (digits == 0)
            return -1;
    }
    if (i != len)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char point = locale_point();
    if (point != '.') {
        char *p = strchr(buf, '.');
        if (p != NULL)
            *p = point;
    }
    /* ERANGE is not checked: glibc sets it for subnormal results, which are exact doubles
     * (5e-324 must read back); an overflow shows as infinity. */
    char *end;
    double v = strtod(buf, &end);
    if (*end != '\0' || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

void apo__format_shortest(char *buf, size_t size, double v) {
    for (int precision = 15; precision <= 17; precision++) {
        format_c_double(buf, size, precision, v);
        double back;
        if (apo__parse_c_double(buf, strlen(buf), &back) == 0 && back == v)
            return;
    }
}
