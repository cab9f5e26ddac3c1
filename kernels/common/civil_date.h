/*
 * civil_date.h: the one calendar arithmetic of apportion, for the timestamps of the profile
 * files (runtime/profiles/timestamps.c) and the dates of a CSV table's records
 * (cli/record_order.c). Done here rather than by the C library: timegm() is not POSIX, and
 * mktime() would apply the local time zone to dates that have none.
 *
 * Both also read their fixed-width digit fields with apo__fixed_digits.
 *
 * Dates are proleptic Gregorian; the arithmetic is exact in integers (Howard Hinnant's
 * days_from_civil), for any year a long long holds a day count of. Header-only: the CLI uses
 * it without linking kernels/.
 */
#ifndef APO_CIVIL_DATE_H
#define APO_CIVIL_DATE_H

#include <stddef.h>

/* Days from 1970-01-01 to the date y-m-d (m 1 to 12, d 1 to 31), negative before it. */
static inline long long apo__days_from_civil(long long y, unsigned m, unsigned d) {
    y -= m <= 2;
    const long long era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long long)doe - 719468;
}

/* The days of month m (1 to 12) of year y. */
static inline unsigned apo__days_in_month(unsigned y, unsigned m) {
    static const unsigned days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : days[m - 1];
}

/* Reads exactly n decimal digits at s into *out: the fixed-width fields of the dates and
 * times both parsers read. Returns 0, or -1 when one of the n characters is not a digit. */
static inline int apo__fixed_digits(const char *s, size_t n, unsigned *out) {
    unsigned v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    *out = v;
    return 0;
}

#endif
