/*
 * Fuzz target: the one parser of numbers read from the environment
 * (runtime/base/parse_number.h; docs/env.md, "Numbers") and the one way a value from outside
 * is shown in a warning (apo__env_show_value, runtime/base/env.h). The input is one C
 * string, up to its first NUL, as the environment would give it.
 *
 * Checked beyond "no crash, no leak", against predicates written here:
 * - an integer is accepted exactly when the text is an optional sign and at least one
 *   decimal digit, with a value that fits a long long, and the value is that of the digits;
 * - a real is accepted only when the text starts with a digit, a sign or '.', holds only
 *   digits, signs, '.', 'e' and 'E', and the value is finite; an accepted integer of at most
 *   15 digits is accepted as a real too, with the same value;
 * - the value as shown is the text's first 64 bytes with each control byte as '?', then
 *   "..." when the text was longer, and nothing else.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/env.h"
#include "base/parse_number.h"
#include "fuzz_check.h"

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* The integer's value from its digits, with overflow seen here; 0 when the text is not an
 * optional sign and digits or does not fit. */
static int expected_integer(const char *text, long long *out, size_t *digits) {
    const char *p = text;
    int negative = *p == '-';
    if (*p == '+' || *p == '-')
        p++;
    if (*p == '\0')
        return 0;
    /* The magnitude of LLONG_MIN, the largest a long long can take with its sign. */
    const unsigned long long limit = (unsigned long long)LLONG_MAX + (negative ? 1u : 0u);
    unsigned long long m = 0;
    *digits = 0;
    for (; *p != '\0'; p++) {
        if (!is_digit(*p))
            return 0;
        unsigned d = (unsigned)(*p - '0');
        if (m > (limit - d) / 10)
            return 0;
        m = m * 10 + d;
        if (m != 0)
            (*digits)++;
    }
    if (!negative)
        *out = (long long)m;
    else
        *out = m == limit ? LLONG_MIN : -(long long)m;
    return 1;
}

static void check_integer(const char *text) {
    long long got = 12345, want = 0;
    size_t digits = 0;
    int accepted = apo__parse_integer(text, &got) == 0;
    int valid = expected_integer(text, &want, &digits);
    FUZZ_CHECK(accepted == valid, "integer \"%s\": accepted %d, expected %d", text, accepted,
               valid);
    if (accepted) {
        FUZZ_CHECK(got == want, "integer \"%s\": %lld, expected %lld", text, got, want);
        if (digits <= 15) {
            double real = 0;
            FUZZ_CHECK(apo__parse_real(text, &real) == 0 && real == (double)want,
                       "integer \"%s\" is not the same real", text);
        }
    } else {
        FUZZ_CHECK(got == 12345, "integer \"%s\": refused but written", text);
    }
}

static void check_real(const char *text) {
    double got = 12345;
    if (apo__parse_real(text, &got) != 0) {
        FUZZ_CHECK(got == 12345, "real \"%s\": refused but written", text);
        return;
    }
    FUZZ_CHECK(isfinite(got), "real \"%s\": %g", text, got);
    FUZZ_CHECK(is_digit(text[0]) || text[0] == '+' || text[0] == '-' || text[0] == '.',
               "real \"%s\" starts with '%c'", text, text[0]);
    for (const char *p = text; *p != '\0'; p++)
        FUZZ_CHECK(is_digit(*p) || strchr("+-.eE", *p) != NULL, "real \"%s\" holds '%c'", text, *p);
}

static void check_shown(const char *text) {
    char shown[APO_SHOWN_VALUE_SIZE];
    memset(shown, 'x', sizeof shown);
    apo__env_show_value(text, shown, sizeof shown);
    FUZZ_CHECK(fuzz_terminated(shown, sizeof shown), "shown value not terminated");
    FUZZ_CHECK(fuzz_printable(shown), "a control byte is shown");
    size_t len = strlen(text), kept = len < 64 ? len : 64;
    for (size_t i = 0; i < kept; i++) {
        unsigned char c = (unsigned char)text[i];
        char want = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
        FUZZ_CHECK(shown[i] == want, "byte %zu shown as 0x%02x", i, (unsigned char)shown[i]);
    }
    FUZZ_CHECK(strcmp(shown + kept, len > 64 ? "..." : "") == 0, "\"%s\" ends badly", shown);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_string(data, size);
    check_integer(text);
    check_real(text);
    check_shown(text);
    free(text);
    return 0;
}
