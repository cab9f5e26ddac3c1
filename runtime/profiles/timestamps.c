/*
 * RFC 3339 timestamps, the `updated_at` of the profile files (profile_store.h,
 * timestamps.h), and the ISO 8601 forms ThreadX writes (Python's isoformat(): a space or
 * 'T', microseconds, and no zone for a local time). The calendar arithmetic of zoned times
 * is kernels/common/civil_date.h's (timegm() is not POSIX); mktime() is used only where the
 * local zone is meant, for times written without one.
 */
#include "profiles/timestamps.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

#include "civil_date.h"
#include "profiles/profile_store.h"

void apo__timestamp_format(double t, char *out, size_t out_size) {
    if (out == NULL || out_size == 0)
        return;
    out[0] = '\0';
    if (!isfinite(t) || t < 0 || t >= APO_TIMESTAMP_LAST + 1)
        return;
    time_t secs = (time_t)floor(t);
    struct tm tm;
    if (gmtime_r(&secs, &tm) == NULL)
        return;
    snprintf(out, out_size, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* Reads a zone at s: Z, or an offset +HH:MM, +HHMM or +HH, into *offset (seconds east of
 * UTC). Returns the characters read, or 0 when there is none or it is malformed. */
static size_t zone_at(const char *s, long *offset) {
    if (*s == 'Z' || *s == 'z') {
        *offset = 0;
        return 1;
    }
    if (*s != '+' && *s != '-')
        return 0;
    unsigned oh, om = 0;
    size_t n = 3;
    if (apo__fixed_digits(s + 1, 2, &oh) || oh > 23)
        return 0;
    if (s[3] == ':' && !apo__fixed_digits(s + 4, 2, &om))
        n = 6;
    else if (s[3] >= '0' && s[3] <= '9' && !apo__fixed_digits(s + 3, 2, &om))
        n = 5;
    if (om > 59)
        return 0;
    *offset = (*s == '-' ? -1 : 1) * (long)(oh * 3600 + om * 60);
    return n;
}

/* Unix seconds of a wall-clock time in the process's local zone (TZ), as ThreadX's
 * datetime.now().isoformat() writes it; -1 when the C library cannot tell. */
static double local_time(unsigned y, unsigned mo, unsigned d, unsigned h, unsigned mi,
                         unsigned sec) {
    struct tm tm = {0};
    tm.tm_year = (int)y - 1900;
    tm.tm_mon = (int)mo - 1;
    tm.tm_mday = (int)d;
    tm.tm_hour = (int)h;
    tm.tm_min = (int)mi;
    tm.tm_sec = (int)sec;
    tm.tm_isdst = -1; /* the zone's rules decide whether summer time applies */
    const time_t t = mktime(&tm);
    return t == (time_t)-1 ? -1 : (double)t;
}

double apo__timestamp_parse(const char *text) {
    if (text == NULL)
        return -1;
    const char *s = text;
    unsigned y, mo, d, h, mi, sec = 0;
    /* ISO 8601 as RFC 3339 and Python's isoformat() write it: 'T' or a space between date
     * and time, seconds optional. */
    if (apo__fixed_digits(s, 4, &y) || s[4] != '-' || apo__fixed_digits(s + 5, 2, &mo) ||
        s[7] != '-' || apo__fixed_digits(s + 8, 2, &d) ||
        (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || apo__fixed_digits(s + 11, 2, &h) ||
        s[13] != ':' || apo__fixed_digits(s + 14, 2, &mi))
        return -1;
    s += 16;
    if (*s == ':') {
        if (apo__fixed_digits(s + 1, 2, &sec))
            return -1;
        s += 3;
    }
    /* RFC 3339 allows a leap second (60); it is counted as the first second of the next
     * minute, which is what POSIX time does with it anyway. */
    if (mo < 1 || mo > 12 || d < 1 || d > apo__days_in_month(y, mo) || h > 23 || mi > 59 ||
        sec > 60)
        return -1;
    double frac = 0, scale = 0.1;
    if (*s == '.') {
        s++;
        if (*s < '0' || *s > '9')
            return -1;
        while (*s >= '0' && *s <= '9') {
            frac += (*s - '0') * scale;
            scale /= 10;
            s++;
        }
    }
    long offset = 0;
    const size_t zone = zone_at(s, &offset);
    if (zone == 0 && *s != '\0')
        return -1;
    s += zone;
    if (*s != '\0')
        return -1;
    double t;
    if (zone == 0) {
        /* No zone: local time, the machine's own clock as ThreadX read it. */
        t = local_time(y, mo, d, h, mi, sec);
        if (t < 0)
            return -1;
        t += frac;
    } else {
        long long days = apo__days_from_civil(y, mo, d);
        t = (double)(days * 86400 + h * 3600 + mi * 60 + sec - offset) + frac;
    }
    return t >= 0 ? t : -1;
}

double apo__wall_clock_now(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return (double)time(NULL);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
