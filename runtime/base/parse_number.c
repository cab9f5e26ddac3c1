/* Strict number parsing; see parse_number.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "base/parse_number.h"

/* isdigit() depends on the locale; the grammar does not. */
static int is_digit(char c) { return c >= '0' && c <= '9'; }

static const char *skip_digits(const char *p) {
    while (is_digit(*p))
        p++;
    return p;
}

int apo__parse_integer(const char *text, long long *out) {
    const char *p = text;
    if (*p == '+' || *p == '-')
        p++;
    /* Checked before strtoll(), which would skip white space and read "0x10" as hexadecimal
     * with base 0 (and is called with base 10 anyway). */
    if (!is_digit(*p) || *skip_digits(p) != '\0')
        return -1;
    errno = 0;
    char *end;
    long long v = strtoll(text, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

/* Whether `text` is the decimal grammar of apo__parse_real(), whole. */
static int is_decimal_real(const char *text) {
    const char *p = text;
    if (*p == '+' || *p == '-')
        p++;
    const char *int_end = skip_digits(p);
    const char *frac_end = int_end;
    if (*int_end == '.')
        frac_end = skip_digits(int_end + 1);
    size_t digits =
        (size_t)(int_end - p) + (frac_end > int_end ? (size_t)(frac_end - int_end - 1) : 0);
    if (digits == 0)
        return 0;
    p = frac_end;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!is_digit(*p))
            return 0;
        p = skip_digits(p);
    }
    return *p == '\0';
}

int apo__parse_real(const char *text, double *out) {
    if (!is_decimal_real(text))
        return -1;
    errno = 0;
    char *end;
    double v = strtod(text, &end);
    /* ERANGE: the value overflowed (to infinity) or underflowed (towards 0). */
    if (errno != 0 || *end != '\0' || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}
