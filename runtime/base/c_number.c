/* Numbers as text with '.' whatever the locale; see c_number.h. */
#include "base/c_number.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
