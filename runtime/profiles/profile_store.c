/*
 * The profile files on disk (see profile_store.h for the contract and docs/profiles.md for
 * the formats).
 *
 * Reading is strict: a profile is outside input, possibly written by another tool, an older
 * version or by hand, so every field is checked for type and range before anything is
 * copied into the fixed-size structs, and one bad field rejects the whole file. A file that
 * is half right is not worth the risk of balancing on a half-read model.
 *
 * Writing is a read-modify-write under flock() on a separate `<path>.lock` (the lock file is
 * never renamed or deleted, so every writer locks the same inode), into a temporary file in
 * the same folder that is fsynced and renamed over the target. Readers take no lock: rename
 * is atomic, so they see the old file or the new one, never a mix.
 */
/* realpath() is an X/Open function, beyond the project's _POSIX_C_SOURCE. */
#define _XOPEN_SOURCE 700

#include "profiles/profile_store.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"

/* Limits besides APO_PROFILE_FILE_MAX, so that a hostile file within the size limit still
 * cannot make a load allocate gigabytes (a stored workload takes about 15 KiB, a threshold
 * entry about 300 bytes). Both are far beyond what real profiles hold. */
#define WORKLOADS_MAX 4096
#define THRESHOLD_ENTRIES_MAX 65536
/* A writer waits at most this long for the lock, so that a stopped process holding it cannot
 * hang the library forever; a killed one releases it at once (flock dies with its holder). */
#define LOCK_TIMEOUT_S 30.0
/* jansson stores integers as long long: larger counts cannot be written, so none are read. */
#define COUNT_MAX ((uint64_t)LLONG_MAX)
#define JPATH_MAX 320
/* Keys are shown in messages cut to this many bytes, so a hostile key cannot drown them. */
#define KEY_SHOWN_MAX 60
/* The largest time apo__timestamp_format writes with a four-digit year (9999-12-31T23:59:59). */
#define TIMESTAMP_LAST 253402300799.0

static void errf(char *err, size_t err_size, const char *fmt, ...) APO_PRINTF_LIKE(3, 4);

static void errf(char *err, size_t err_size, const char *fmt, ...) {
    if (err == NULL || err_size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
}

/* strerror() is not thread-safe, and profiles are written from runtime threads. */
static const char *errno_text(int e, char *buf, size_t size) {
    if (strerror_r(e, buf, size) != 0)
        snprintf(buf, size, "error %d", e);
    return buf;
}

/* ---- small text helpers ----------------------------------------------------------------- */

/* Bytes are well-formed UTF-8 (no overlong forms, no surrogates): jansson refuses anything
 * else as an object key or string, so updates are checked before they are turned into JSON. */
static int utf8_valid(const char *s) {
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

/* A string fits a fixed buffer of `size` bytes, terminator included. */
static int fits(const char *s, size_t size) { return strnlen(s, size) < size; }

/* Writes `key` for a message: cut to KEY_SHOWN_MAX bytes at a character boundary (with
 * "..."), control characters shown as '?'. */
static void show_key(char *out, size_t size, const char *key) {
    size_t len = strlen(key), n = len;
    if (n > KEY_SHOWN_MAX) {
        n = KEY_SHOWN_MAX;
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

static void jpath_join(char *out, size_t size, const char *parent, const char *key) {
    char shown[KEY_SHOWN_MAX + 4];
    show_key(shown, sizeof shown, key);
    /* Cut to fit: a message with a shortened path is still better than none. */
    size_t o = 0;
    const char *parts[3] = {parent, parent[0] != '\0' ? "." : "", shown};
    for (size_t i = 0; i < 3; i++)
        for (const char *c = parts[i]; *c != '\0' && o + 1 < size; c++)
            out[o++] = *c;
    out[o] = '\0';
}

/* What a JSON value is, for "expected X, got Y" messages. */
static const char *describe(const json_t *j, char *buf, size_t size) {
    switch (json_typeof(j)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING: {
        char shown[KEY_SHOWN_MAX + 4];
        show_key(shown, sizeof shown, json_string_value(j));
        snprintf(buf, size, "\"%s\"", shown);
        return buf;
    }
    case JSON_INTEGER:
        snprintf(buf, size, "%lld", (long long)json_integer_value(j));
        return buf;
    case JSON_REAL:
        snprintf(buf, size, "%g", json_real_value(j));
        return buf;
    case JSON_TRUE:
        return "true";
    case JSON_FALSE:
        return "false";
    case JSON_NULL:
        return "null";
    }
    return "an unknown value";
}

/* printf and strtod follow LC_NUMERIC, but the key format and the files always use '.'. */
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

/* Reads a number written as -?D+(.D+)?(e[+-]?D+)? (what %g writes), and nothing else. */
static int parse_c_double(const char *s, size_t len, double *out) {
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

/* ---- time ------------------------------------------------------------------------------- */

/* Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil):
 * timegm() is not POSIX, and mktime() would apply the local time zone. */
static long long days_from_civil(long long y, unsigned m, unsigned d) {
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long long)doe - 719468;
}

static unsigned days_in_month(unsigned y, unsigned m) {
    static const unsigned days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : days[m - 1];
}

void apo__timestamp_format(double t, char *out, size_t out_size) {
    if (out == NULL || out_size == 0)
        return;
    out[0] = '\0';
    if (!isfinite(t) || t < 0 || t >= TIMESTAMP_LAST + 1)
        return;
    time_t secs = (time_t)floor(t);
    struct tm tm;
    if (gmtime_r(&secs, &tm) == NULL)
        return;
    snprintf(out, out_size, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* Reads exactly `n` decimal digits. */
static int digits_at(const char *s, size_t n, unsigned *out) {
    unsigned v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    *out = v;
    return 0;
}

double apo__timestamp_parse(const char *text) {
    if (text == NULL)
        return -1;
    const char *s = text;
    unsigned y, mo, d, h, mi, sec;
    if (digits_at(s, 4, &y) || s[4] != '-' || digits_at(s + 5, 2, &mo) || s[7] != '-' ||
        digits_at(s + 8, 2, &d) || (s[10] != 'T' && s[10] != 't') || digits_at(s + 11, 2, &h) ||
        s[13] != ':' || digits_at(s + 14, 2, &mi) || s[16] != ':' || digits_at(s + 17, 2, &sec))
        return -1;
    /* RFC 3339 allows a leap second (60); it is counted as the first second of the next
     * minute, which is what POSIX time does with it anyway. */
    if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || sec > 60)
        return -1;
    s += 19;
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
    if (*s == 'Z' || *s == 'z') {
        s++;
    } else if (*s == '+' || *s == '-') {
        unsigned oh, om;
        if (digits_at(s + 1, 2, &oh) || s[3] != ':' || digits_at(s + 4, 2, &om) || oh > 23 ||
            om > 59)
            return -1;
        offset = (*s == '-' ? -1 : 1) * (long)(oh * 3600 + om * 60);
        s += 6;
    } else {
        return -1;
    }
    if (*s != '\0')
        return -1;
    long long days = days_from_civil(y, mo, d);
    double t = (double)(days * 86400 + h * 3600 + mi * 60 + sec - offset) + frac;
    return t >= 0 ? t : -1;
}

static double now_seconds(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return (double)time(NULL);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double monotonic_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- locations -------------------------------------------------------------------------- */

/* dir + "/" + rest (one slash between them), or -1 when it does not fit APO_PATH_MAX. */
static int join_path(char *out, const char *dir, const char *rest) {
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        len--;
    int sep = !(len == 1 && dir[0] == '/');
    int n = snprintf(out, APO_PATH_MAX, "%.*s%s%s", (int)len, dir, sep ? "/" : "", rest);
    return (n < 0 || n >= APO_PATH_MAX) ? -1 : 0;
}

static int set(const char *s) { return s != NULL && s[0] != '\0'; }

static apo_status resolve_one(const apo__profile_location *loc, const char *explicit_path,
                              const char *name, char *out, char *err, size_t err_size) {
    out[0] = '\0';
    char file[32];
    snprintf(file, sizeof file, "%s.json", name);
    int failed;
    const char *from;
    if (set(explicit_path)) {
        from = "the explicit path";
        failed = snprintf(out, APO_PATH_MAX, "%s", explicit_path) >= APO_PATH_MAX;
    } else if (set(loc->profile_dir)) {
        from = "APPORTION_PROFILE_DIR";
        failed = join_path(out, loc->profile_dir, file);
    } else if (set(loc->xdg_state_home) && loc->xdg_state_home[0] == '/') {
        /* The XDG Base Directory specification says a relative value is invalid and is to
         * be ignored, so it falls through to HOME. */
        char rest[96];
        snprintf(rest, sizeof rest, "apportion/%s", file);
        from = "XDG_STATE_HOME";
        failed = join_path(out, loc->xdg_state_home, rest);
    } else if (set(loc->home)) {
        char rest[96];
        snprintf(rest, sizeof rest, ".local/state/apportion/%s", file);
        from = "HOME";
        failed = join_path(out, loc->home, rest);
    } else {
        errf(err, err_size,
             "no location for %s: no explicit path, and none of APPORTION_PROFILE_DIR, "
             "XDG_STATE_HOME and HOME is set",
             file);
        return APO_ERR_NOT_FOUND;
    }
    if (failed) {
        out[0] = '\0';
        errf(err, err_size, "the path of %s from %s is longer than %d bytes", file, from,
             APO_PATH_MAX - 1);
        return APO_ERR_INVALID_ARGUMENT;
    }
    return APO_OK;
}

apo_status apo__profile_paths(const apo__profile_location *loc, char *multigpu, char *thresholds,
                              char *err, size_t err_size) {
    errf(err, err_size, "%s", "");
    if (loc == NULL || multigpu == NULL || thresholds == NULL) {
        errf(err, err_size, "apo__profile_paths: NULL argument");
        return APO_ERR_INVALID_ARGUMENT;
    }
    /* Both are resolved even when the first fails, so that a caller can still use the one
     * that has a location. */
    apo_status a = resolve_one(loc, loc->multigpu_path, "multigpu", multigpu, err, err_size);
    char err2[APO_LABEL_MAX * 2];
    apo_status b =
        resolve_one(loc, loc->thresholds_path, "thresholds", thresholds, err2, sizeof err2);
    if (a != APO_OK)
        return a;
    if (b != APO_OK)
        errf(err, err_size, "%s", err2);
    return b;
}

apo_status apo__profile_make_dir(const char *path, char *err, size_t err_size) {
    char dir[APO_PATH_MAX];
    char why[128];
    if (path == NULL || !fits(path, sizeof dir)) {
        errf(err, err_size, "profile path missing or longer than %d bytes", APO_PATH_MAX - 1);
        return APO_ERR_INVALID_ARGUMENT;
    }
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        return APO_OK; /* the current folder */
    while (slash > dir && slash[-1] == '/')
        slash--;
    if (slash == dir)
        return APO_OK; /* the root */
    *slash = '\0';

    struct stat st;
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        return APO_OK;
    /* Each missing component is made in turn; one that exists is fine as long as it is a
     * folder, which the next mkdir (ENOTDIR) or the final check finds out. */
    for (char *p = dir + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
            int e = errno;
            errf(err, err_size, "cannot create the folder %s: %s", dir,
                 errno_text(e, why, sizeof why));
            return APO_ERR_IO;
        }
        *p = saved;
        if (saved == '\0')
            break;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        errf(err, err_size, "cannot use %s as the profile folder: it is not a folder", dir);
        return APO_ERR_IO;
    }
    return APO_OK;
}

/* ---- reading ---------------------------------------------------------------------------- */

/* Why a read failed, so that a writer knows whether it may set the file aside. */
typedef enum read_fault {
    FAULT_NONE = 0,
    FAULT_UNREADABLE, /* could not be read (permissions, a folder, an I/O error): left alone */
    FAULT_CONTENT     /* read, but unusable (too large, not JSON, invalid): set aside */
} read_fault;

typedef struct file_info {
    int missing;
    int exists;
    mode_t mode; /* permission bits of the existing file */
    read_fault fault;
} file_info;

/* An upper bound on the JSON values of `text`: the ':' and ',' outside strings, plus one.
 * Cheap enough to run before the parser, which is what it protects. */
static size_t count_values(const char *text, size_t len) {
    size_t n = 1;
    int in_string = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == ':' || c == ',') {
            n++;
        }
    }
    return n;
}

/* Parses the whole text of a profile, or returns NULL with err naming `name` and where the
 * text went wrong. Files and in-memory texts (apo__*_parse) go through here alike. */
static json_t *parse_json(const char *name, const char *text, size_t len, char *err,
                          size_t err_size) {
    json_error_t jerr;
    /* Duplicate keys are refused: which of two ratios for one device would be meant? */
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL) {
        /* jansson quotes the bytes near the error as they are; control bytes are shown as
         * \xNN, so that the message stays one line and a hostile file cannot put escape
         * sequences on a terminal. */
        char why[4 * sizeof jerr.text];
        size_t o = 0;
        for (const unsigned char *c = (const unsigned char *)jerr.text; *c != '\0'; c++) {
            if (*c < 0x20 || *c == 0x7f)
                o += (size_t)snprintf(why + o, sizeof why - o, "\\x%02x", *c);
            else
                why[o++] = (char)*c;
        }
        why[o] = '\0';
        errf(err, err_size, "%s: not valid JSON (line %d, column %d): %s", name, jerr.line,
             jerr.column, why);
    }
    return root;
}

/* Reads `path` whole and parses it. APO_OK with *root, or with info->missing and no root. */
static apo_status read_json(const char *path, json_t **root, file_info *info, char *err,
                            size_t err_size) {
    char why[128];
    *root = NULL;
    memset(info, 0, sizeof *info);
    /* O_NONBLOCK: opening a FIFO put in the file's place must not block the caller. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT) {
            info->missing = 1;
            return APO_OK;
        }
        info->fault = FAULT_UNREADABLE;
        errf(err, err_size, "%s: cannot open: %s", path, errno_text(e, why, sizeof why));
        return APO_ERR_IO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        info->fault = FAULT_UNREADABLE;
        errf(err, err_size, "%s: cannot stat: %s", path, errno_text(e, why, sizeof why));
        return APO_ERR_IO;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        info->fault = FAULT_UNREADABLE;
        errf(err, err_size, "%s: is %s, not a profile file", path,
             S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
        return APO_ERR_IO;
    }
    info->exists = 1;
    info->mode = st.st_mode & 0777;
    if ((uint64_t)st.st_size > APO_PROFILE_FILE_MAX) {
        close(fd);
        info->fault = FAULT_CONTENT;
        errf(err, err_size,
             "%s: is %lld bytes, larger than the %u-byte limit of a profile; refused", path,
             (long long)st.st_size, (unsigned)APO_PROFILE_FILE_MAX);
        return APO_ERR_IO;
    }
    /* The file may change size under us (only a hostile or foreign writer would do that, ours
     * rename); the buffer grows, still within the limit. */
    size_t cap = (size_t)st.st_size + 1, len = 0;
    char *buf = malloc(cap);
    if (buf == NULL) {
        close(fd);
        errf(err, err_size, "%s: out of memory reading %zu bytes", path, cap);
        return APO_ERR_OUT_OF_MEMORY;
    }
    for (;;) {
        if (len == cap) {
            if (cap > APO_PROFILE_FILE_MAX) {
                free(buf);
                close(fd);
                info->fault = FAULT_CONTENT;
                errf(err, err_size, "%s: grew past the %u-byte limit of a profile; refused", path,
                     (unsigned)APO_PROFILE_FILE_MAX);
                return APO_ERR_IO;
            }
            size_t ncap =
                cap * 2 > (size_t)APO_PROFILE_FILE_MAX + 1 ? APO_PROFILE_FILE_MAX + 1 : cap * 2;
            char *nbuf = realloc(buf, ncap);
            if (nbuf == NULL) {
                free(buf);
                close(fd);
                errf(err, err_size, "%s: out of memory reading it", path);
                return APO_ERR_OUT_OF_MEMORY;
            }
            buf = nbuf, cap = ncap;
        }
        ssize_t got = read(fd, buf + len, cap - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            free(buf);
            close(fd);
            info->fault = FAULT_UNREADABLE;
            errf(err, err_size, "%s: cannot read: %s", path, errno_text(e, why, sizeof why));
            return APO_ERR_IO;
        }
        if (got == 0)
            break;
        len += (size_t)got;
    }
    close(fd);

    size_t values = count_values(buf, len);
    if (values > APO_PROFILE_VALUES_MAX) {
        free(buf);
        info->fault = FAULT_CONTENT;
        errf(err, err_size,
             "%s: holds about %zu JSON values, more than the %u a profile may hold; "
             "refused",
             path, values, APO_PROFILE_VALUES_MAX);
        return APO_ERR_INVALID_ARGUMENT;
    }
    *root = parse_json(path, buf, len, err, err_size);
    free(buf);
    if (*root == NULL) {
        info->fault = FAULT_CONTENT;
        return APO_ERR_INVALID_ARGUMENT;
    }
    return APO_OK;
}

/* ---- validation of parsed files --------------------------------------------------------- */

typedef struct vctx {
    const char *file;
    char *err;
    size_t err_size;
} vctx;

static apo_status invalid(const vctx *v, const char *jpath, const char *fmt, ...)
    APO_PRINTF_LIKE(3, 4);

static apo_status invalid(const vctx *v, const char *jpath, const char *fmt, ...) {
    char what[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (jpath[0] != '\0')
        errf(v->err, v->err_size, "%s: %s: %s", v->file, jpath, what);
    else
        errf(v->err, v->err_size, "%s: %s", v->file, what);
    return APO_ERR_INVALID_ARGUMENT;
}

static apo_status check_nonneg(const vctx *v, const char *jp, const json_t *j, double *out) {
    char got[80];
    double x = json_is_number(j) ? json_number_value(j) : NAN;
    if (!json_is_number(j) || !isfinite(x) || x < 0)
        return invalid(v, jp, "expected a finite number >= 0, got %s",
                       describe(j, got, sizeof got));
    *out = x;
    return APO_OK;
}

/* An optional number >= 0: absent or null gives NaN. */
static apo_status get_nonneg(const vctx *v, const json_t *obj, const char *pp, const char *name,
                             double *out) {
    char jp[JPATH_MAX];
    jpath_join(jp, sizeof jp, pp, name);
    const json_t *j = json_object_get(obj, name);
    *out = NAN;
    if (j == NULL || json_is_null(j))
        return APO_OK;
    return check_nonneg(v, jp, j, out);
}

/* A count: an integer from 0 to max. Absent gives 0 unless it is required. */
static apo_status get_count(const vctx *v, const json_t *obj, const char *pp, const char *name,
                            int required, uint64_t max, uint64_t *out) {
    char jp[JPATH_MAX], got[80];
    jpath_join(jp, sizeof jp, pp, name);
    const json_t *j = json_object_get(obj, name);
    *out = 0;
    if (j == NULL) {
        if (required)
            return invalid(v, jp, "missing; expected an integer >= 0");
        return APO_OK;
    }
    if (!json_is_integer(j) || json_integer_value(j) < 0 || (uint64_t)json_integer_value(j) > max) {
        if (max == COUNT_MAX)
            return invalid(v, jp, "expected an integer >= 0, got %s", describe(j, got, sizeof got));
        return invalid(v, jp, "expected an integer from 0 to %llu, got %s", (unsigned long long)max,
                       describe(j, got, sizeof got));
    }
    *out = (uint64_t)json_integer_value(j);
    return APO_OK;
}

/* An optional string of fewer than dst_size bytes ("" when absent). */
static apo_status get_string(const vctx *v, const json_t *obj, const char *pp, const char *name,
                             char *dst, size_t dst_size) {
    char jp[JPATH_MAX], got[80];
    jpath_join(jp, sizeof jp, pp, name);
    const json_t *j = json_object_get(obj, name);
    dst[0] = '\0';
    if (j == NULL)
        return APO_OK;
    if (!json_is_string(j))
        return invalid(v, jp, "expected a string, got %s", describe(j, got, sizeof got));
    size_t len = json_string_length(j);
    if (len >= dst_size)
        return invalid(v, jp, "expected a string of at most %zu bytes, got %zu bytes", dst_size - 1,
                       len);
    memcpy(dst, json_string_value(j), len + 1);
    return APO_OK;
}

/* An optional timestamp, stored in the canonical form; ThreadX files may hold Unix seconds. */
static apo_status get_timestamp(const vctx *v, const json_t *obj, const char *pp, int allow_number,
                                char dst[APO_TIMESTAMP_MAX]) {
    char jp[JPATH_MAX], got[80];
    jpath_join(jp, sizeof jp, pp, "updated_at");
    const json_t *j = json_object_get(obj, "updated_at");
    dst[0] = '\0';
    if (j == NULL || json_is_null(j))
        return APO_OK;
    double t = -1;
    if (json_is_string(j))
        t = apo__timestamp_parse(json_string_value(j));
    else if (allow_number && json_is_number(j))
        t = json_number_value(j);
    if (!(t >= 0) || t > TIMESTAMP_LAST)
        return invalid(v, jp,
                       "expected an RFC 3339 timestamp such as \"2026-11-21T10:00:00Z\"%s, got %s",
                       allow_number ? " or Unix seconds" : "", describe(j, got, sizeof got));
    apo__timestamp_format(t, dst, APO_TIMESTAMP_MAX);
    return APO_OK;
}

/* A key used as a tag, device id or threshold key: 1 to size-1 bytes. */
static apo_status check_key(const vctx *v, const char *jp, const char *key, size_t size,
                            const char *what) {
    size_t len = strlen(key);
    if (len == 0 || len >= size)
        return invalid(v, jp, "expected %s of 1 to %zu bytes, got %zu bytes", what, size - 1, len);
    return APO_OK;
}

static int device_cmp(const void *a, const void *b) {
    return strcmp(((const apo__stored_device *)a)->id, ((const apo__stored_device *)b)->id);
}

static int workload_cmp(const void *a, const void *b) {
    return strcmp(((const apo__stored_workload *)a)->tag, ((const apo__stored_workload *)b)->tag);
}

static int threshold_cmp(const void *a, const void *b) {
    return strcmp(((const apo__threshold *)a)->key, ((const apo__threshold *)b)->key);
}

static void device_init(apo__stored_device *d, const char *id) {
    memset(d, 0, sizeof *d);
    snprintf(d->id, sizeof d->id, "%s", id);
    d->ratio = NAN;
    d->latency_ms = NAN;
    d->ms_per_melem = NAN;
}

static const char *const origin_names[] = {"profile", "online", "forced", "threadx"};

/* Reads a `ratios` object into the workload: a device listed in `devices` keeps its own
 * ratio when it has one, any other id becomes a ratios-only device. */
static apo_status read_ratios(const vctx *v, const char *wp, const json_t *ratios,
                              apo__stored_workload *w) {
    char rp[JPATH_MAX], jp[JPATH_MAX], got[80];
    jpath_join(rp, sizeof rp, wp, "ratios");
    if (!json_is_object(ratios))
        return invalid(v, rp, "expected an object of device id to ratio, got %s",
                       describe(ratios, got, sizeof got));
    const char *id;
    const json_t *r;
    json_object_foreach((json_t *)ratios, id, r) {
        jpath_join(jp, sizeof jp, rp, id);
        apo_status st = check_key(v, jp, id, APO_ID_MAX, "a device id");
        double x = 0;
        if (st == APO_OK)
            st = check_nonneg(v, jp, r, &x);
        if (st != APO_OK)
            return st;
        apo__stored_device *d = NULL;
        for (size_t i = 0; i < w->n_devices; i++)
            if (strcmp(w->devices[i].id, id) == 0)
                d = &w->devices[i];
        if (d == NULL) {
            if (w->n_devices == APO_MAX_DEVICES)
                return invalid(v, rp, "more than %d devices", APO_MAX_DEVICES);
            d = &w->devices[w->n_devices++];
            device_init(d, id);
        }
        if (isnan(d->ratio))
            d->ratio = x;
    }
    return APO_OK;
}

/* The ratios an entry holds must sum to a positive finite value, or it splits nothing. */
static apo_status check_ratio_sum(const vctx *v, const char *wp, const apo__stored_workload *w) {
    double sum = 0;
    for (size_t i = 0; i < w->n_devices; i++)
        if (!isnan(w->devices[i].ratio))
            sum += w->devices[i].ratio;
    if (!(sum > 0) || !isfinite(sum))
        return invalid(v, wp, "the device ratios sum to %g; expected a positive finite sum", sum);
    return APO_OK;
}

static apo_status device_from_json(const vctx *v, const char *dp, const char *id, const json_t *j,
                                   apo__stored_device *d) {
    char jp[JPATH_MAX], got[80];
    jpath_join(jp, sizeof jp, dp, id);
    apo_status st = check_key(v, jp, id, APO_ID_MAX, "a device id");
    if (st != APO_OK)
        return st;
    if (!json_is_object(j))
        return invalid(v, jp,
                       "expected an object (label, ratio, latency_ms, ms_per_melem, samples), "
                       "got %s",
                       describe(j, got, sizeof got));
    device_init(d, id);
    if ((st = get_string(v, j, jp, "label", d->label, sizeof d->label)) != APO_OK ||
        (st = get_nonneg(v, j, jp, "ratio", &d->ratio)) != APO_OK ||
        (st = get_nonneg(v, j, jp, "latency_ms", &d->latency_ms)) != APO_OK ||
        (st = get_nonneg(v, j, jp, "ms_per_melem", &d->ms_per_melem)) != APO_OK ||
        (st = get_count(v, j, jp, "samples", 0, COUNT_MAX, &d->samples)) != APO_OK)
        return st;
    return APO_OK;
}

static apo_status workload_from_json(const vctx *v, const char *tag, const json_t *j,
                                     apo__stored_workload *w) {
    char wp[JPATH_MAX], jp[JPATH_MAX], got[80];
    jpath_join(wp, sizeof wp, "workloads", tag);
    apo_status st = check_key(v, wp, tag, APO_TAG_MAX, "a workload tag");
    if (st != APO_OK)
        return st;
    if (!json_is_object(j))
        return invalid(v, wp, "expected an object, got %s", describe(j, got, sizeof got));
    memset(w, 0, sizeof *w);
    snprintf(w->tag, sizeof w->tag, "%s", tag);
    uint64_t runs;
    if ((st = get_timestamp(v, j, wp, 0, w->updated_at)) != APO_OK ||
        (st = get_count(v, j, wp, "sample_size", 0, COUNT_MAX, &w->sample_size)) != APO_OK ||
        (st = get_count(v, j, wp, "runs", 0, UINT_MAX, &runs)) != APO_OK)
        return st;
    w->runs = (unsigned)runs;

    const json_t *source = json_object_get(j, "source");
    w->origin = APO_ORIGIN_PROFILE;
    if (source != NULL) {
        jpath_join(jp, sizeof jp, wp, "source");
        int found = 0;
        for (size_t i = 0; json_is_string(source) && i < 4; i++) {
            if (strcmp(json_string_value(source), origin_names[i]) == 0) {
                w->origin = (apo__entry_origin)i;
                found = 1;
            }
        }
        if (!found)
            return invalid(v, jp,
                           "expected \"profile\", \"online\", \"forced\" or \"threadx\", got %s",
                           describe(source, got, sizeof got));
    }

    const json_t *devices = json_object_get(j, "devices");
    const json_t *ratios = json_object_get(j, "ratios");
    if (devices == NULL && ratios == NULL)
        return invalid(v, wp, "no \"devices\" and no \"ratios\"; expected at least one device");
    if (devices != NULL) {
        jpath_join(jp, sizeof jp, wp, "devices");
        if (!json_is_object(devices))
            return invalid(v, jp, "expected an object of device id to device, got %s",
                           describe(devices, got, sizeof got));
        if (json_object_size(devices) > APO_MAX_DEVICES)
            return invalid(v, jp, "%zu devices; at most %d are supported",
                           json_object_size(devices), APO_MAX_DEVICES);
        const char *id;
        const json_t *d;
        json_object_foreach((json_t *)devices, id, d) {
            st = device_from_json(v, jp, id, d, &w->devices[w->n_devices]);
            if (st != APO_OK)
                return st;
            w->n_devices++;
        }
    }
    if (ratios != NULL && (st = read_ratios(v, wp, ratios, w)) != APO_OK)
        return st;
    if ((st = check_ratio_sum(v, wp, w)) != APO_OK)
        return st;
    qsort(w->devices, w->n_devices, sizeof w->devices[0], device_cmp);
    return APO_OK;
}

/* ThreadX's {"updated_at", "workload_tag", "ratios"}: one entry, ratios only. */
static apo_status threadx_multigpu_from_json(const vctx *v, const json_t *root, apo__multigpu *p) {
    char got[80];
    p->threadx = 1;
    apo_status st = get_timestamp(v, root, "", 1, p->updated_at);
    if (st != APO_OK)
        return st;
    const json_t *tag = json_object_get(root, "workload_tag");
    if (!json_is_string(tag))
        return invalid(v, "workload_tag", "expected a string, got %s",
                       describe(tag, got, sizeof got));
    if ((st = check_key(v, "workload_tag", json_string_value(tag), APO_TAG_MAX,
                        "a workload tag")) != APO_OK)
        return st;
    p->workloads = calloc(1, sizeof *p->workloads);
    if (p->workloads == NULL) {
        errf(v->err, v->err_size, "%s: out of memory", v->file);
        return APO_ERR_OUT_OF_MEMORY;
    }
    p->n_workloads = 1;
    apo__stored_workload *w = &p->workloads[0];
    snprintf(w->tag, sizeof w->tag, "%s", json_string_value(tag));
    snprintf(w->updated_at, sizeof w->updated_at, "%s", p->updated_at);
    w->origin = APO_ORIGIN_THREADX;
    if ((st = read_ratios(v, "", json_object_get(root, "ratios"), w)) != APO_OK ||
        (st = check_ratio_sum(v, "ratios", w)) != APO_OK)
        return st;
    qsort(w->devices, w->n_devices, sizeof w->devices[0], device_cmp);
    return APO_OK;
}

static apo_status multigpu_from_json(const vctx *v, const json_t *root, apo__multigpu *p) {
    char got[80];
    if (!json_is_object(root))
        return invalid(v, "", "expected a JSON object at the top level, got %s",
                       describe(root, got, sizeof got));
    const json_t *format = json_object_get(root, "format");
    if (format == NULL) {
        if (json_object_get(root, "workload_tag") != NULL &&
            json_object_get(root, "ratios") != NULL)
            return threadx_multigpu_from_json(v, root, p);
        return invalid(v, "",
                       "unknown format: no \"format\" field, and not ThreadX's {\"updated_at\", "
                       "\"workload_tag\", \"ratios\"} shape either");
    }
    if (!json_is_string(format) || strcmp(json_string_value(format), APO_MULTIGPU_FORMAT) != 0)
        return invalid(v, "format", "unknown format %s; expected \"%s\"",
                       describe(format, got, sizeof got), APO_MULTIGPU_FORMAT);
    apo_status st;
    if ((st = get_string(v, root, "", "host", p->host, sizeof p->host)) != APO_OK ||
        (st = get_string(v, root, "", "library_version", p->library_version,
                         sizeof p->library_version)) != APO_OK ||
        (st = get_timestamp(v, root, "", 0, p->updated_at)) != APO_OK)
        return st;
    const json_t *workloads = json_object_get(root, "workloads");
    if (!json_is_object(workloads))
        return invalid(v, "workloads", "expected an object of tag to workload, got %s",
                       workloads == NULL ? "nothing" : describe(workloads, got, sizeof got));
    size_t n = json_object_size(workloads);
    if (n > WORKLOADS_MAX)
        return invalid(v, "workloads", "%zu workloads; at most %d are read", n, WORKLOADS_MAX);
    p->workloads = calloc(n > 0 ? n : 1, sizeof *p->workloads);
    if (p->workloads == NULL) {
        errf(v->err, v->err_size, "%s: out of memory for %zu workloads", v->file, n);
        return APO_ERR_OUT_OF_MEMORY;
    }
    const char *tag;
    const json_t *w;
    json_object_foreach((json_t *)workloads, tag, w) {
        st = workload_from_json(v, tag, w, &p->workloads[p->n_workloads]);
        if (st != APO_OK)
            return st;
        p->n_workloads++;
    }
    qsort(p->workloads, p->n_workloads, sizeof p->workloads[0], workload_cmp);
    return APO_OK;
}

static apo_status threshold_from_json(const vctx *v, const char *key, const json_t *j, int threadx,
                                      apo__threshold *t) {
    char ep[JPATH_MAX], jp[JPATH_MAX], got[80];
    jpath_join(ep, sizeof ep, "entries", key);
    apo_status st = check_key(v, ep, key, APO_THRESHOLD_KEY_MAX, "a key");
    if (st != APO_OK)
        return st;
    if (!json_is_object(j))
        return invalid(v, ep, "expected an object (cpu_ms_avg, gpu_ms_avg, samples), got %s",
                       describe(j, got, sizeof got));
    memset(t, 0, sizeof *t);
    snprintf(t->key, sizeof t->key, "%s", key);
    if ((st = get_nonneg(v, j, ep, "cpu_ms_avg", &t->cpu_ms_avg)) != APO_OK ||
        (st = get_nonneg(v, j, ep, "gpu_ms_avg", &t->gpu_ms_avg)) != APO_OK ||
        (st = get_count(v, j, ep, "samples", 1, COUNT_MAX, &t->samples)) != APO_OK)
        return st;
    static const char *const side_names[2] = {"cpu", "gpu"};
    const double avg[2] = {t->cpu_ms_avg, t->gpu_ms_avg};
    uint64_t *count[2] = {&t->cpu_samples, &t->gpu_samples};
    for (int s = 0; s < 2; s++) {
        char name[16];
        snprintf(name, sizeof name, "%s_samples", side_names[s]);
        const json_t *c = threadx ? NULL : json_object_get(j, name);
        if (c == NULL) {
            /* ThreadX kept one count: every measurement timed the sides it has a time for. */
            *count[s] = isnan(avg[s]) ? 0 : t->samples;
            continue;
        }
        if ((st = get_count(v, j, ep, name, 0, COUNT_MAX, count[s])) != APO_OK)
            return st;
        jpath_join(jp, sizeof jp, ep, name);
        if (*count[s] > t->samples)
            return invalid(v, jp, "expected at most samples (%llu), got %llu",
                           (unsigned long long)t->samples, (unsigned long long)*count[s]);
        if (isnan(avg[s]) && *count[s] != 0)
            return invalid(v, jp, "expected 0 since %s_ms_avg is absent, got %llu", side_names[s],
                           (unsigned long long)*count[s]);
    }
    const json_t *simulated = threadx ? NULL : json_object_get(j, "simulated");
    if (simulated != NULL) {
        jpath_join(jp, sizeof jp, ep, "simulated");
        if (!json_is_boolean(simulated))
            return invalid(v, jp, "expected true or false, got %s",
                           describe(simulated, got, sizeof got));
        t->simulated = json_is_true(simulated);
    }
    return APO_OK;
}

static apo_status thresholds_from_json(const vctx *v, const json_t *root, apo__thresholds *t) {
    char got[80];
    if (!json_is_object(root))
        return invalid(v, "", "expected a JSON object at the top level, got %s",
                       describe(root, got, sizeof got));
    const json_t *format = json_object_get(root, "format");
    const json_t *entries = json_object_get(root, "entries");
    int threadx = format == NULL;
    if (format == NULL && entries == NULL)
        return invalid(v, "",
                       "unknown format: no \"format\" field, and not ThreadX's {\"updated_at\", "
                       "\"entries\"} shape either");
    if (format != NULL &&
        (!json_is_string(format) || strcmp(json_string_value(format), APO_THRESHOLDS_FORMAT) != 0))
        return invalid(v, "format", "unknown format %s; expected \"%s\"",
                       describe(format, got, sizeof got), APO_THRESHOLDS_FORMAT);
    apo_status st = get_timestamp(v, root, "", threadx, t->updated_at);
    if (st != APO_OK)
        return st;
    if (!json_is_object(entries))
        return invalid(v, "entries", "expected an object of key to timings, got %s",
                       entries == NULL ? "nothing" : describe(entries, got, sizeof got));
    size_t n = json_object_size(entries);
    if (n > THRESHOLD_ENTRIES_MAX)
        return invalid(v, "entries", "%zu entries; at most %d are read", n, THRESHOLD_ENTRIES_MAX);
    t->entries = calloc(n > 0 ? n : 1, sizeof *t->entries);
    if (t->entries == NULL) {
        errf(v->err, v->err_size, "%s: out of memory for %zu entries", v->file, n);
        return APO_ERR_OUT_OF_MEMORY;
    }
    const char *key;
    const json_t *e;
    json_object_foreach((json_t *)entries, key, e) {
        st = threshold_from_json(v, key, e, threadx, &t->entries[t->n]);
        if (st != APO_OK)
            return st;
        t->n++;
    }
    qsort(t->entries, t->n, sizeof t->entries[0], threshold_cmp);
    return APO_OK;
}

/* Validates a parsed multigpu.json into *out (left empty on failure) and releases root. */
static apo_status multigpu_from_root(const char *name, json_t *root, apo__multigpu *out, char *err,
                                     size_t err_size) {
    vctx v = {name, err, err_size};
    apo_status st = multigpu_from_json(&v, root, out);
    json_decref(root);
    if (st != APO_OK)
        apo__multigpu_free(out);
    return st;
}

static apo_status thresholds_from_root(const char *name, json_t *root, apo__thresholds *out,
                                       char *err, size_t err_size) {
    vctx v = {name, err, err_size};
    apo_status st = thresholds_from_json(&v, root, out);
    json_decref(root);
    if (st != APO_OK)
        apo__thresholds_free(out);
    return st;
}

static apo_status multigpu_read(const char *path, apo__multigpu *out, file_info *info, char *err,
                                size_t err_size) {
    memset(out, 0, sizeof *out);
    json_t *root;
    apo_status st = read_json(path, &root, info, err, err_size);
    if (st != APO_OK || info->missing)
        return st;
    st = multigpu_from_root(path, root, out, err, err_size);
    if (st != APO_OK)
        info->fault = FAULT_CONTENT;
    return st;
}

static apo_status thresholds_read(const char *path, apo__thresholds *out, file_info *info,
                                  char *err, size_t err_size) {
    memset(out, 0, sizeof *out);
    json_t *root;
    apo_status st = read_json(path, &root, info, err, err_size);
    if (st != APO_OK || info->missing)
        return st;
    st = thresholds_from_root(path, root, out, err, err_size);
    if (st != APO_OK)
        info->fault = FAULT_CONTENT;
    return st;
}

/* An in-memory profile text: the size limit of a file, then the same parse and checks. */
static json_t *parse_text(const char *name, const char *text, size_t len, char *err,
                          size_t err_size) {
    if (len > APO_PROFILE_FILE_MAX) {
        errf(err, err_size, "%s: is %zu bytes, larger than the %u-byte limit of a profile; refused",
             name, len, (unsigned)APO_PROFILE_FILE_MAX);
        return NULL;
    }
    return parse_json(name, text != NULL ? text : "", text != NULL ? len : 0, err, err_size);
}

apo_status apo__multigpu_parse(const char *name, const char *text, size_t len, apo__multigpu *out,
                               char *err, size_t err_size) {
    errf(err, err_size, "%s", "");
    if (out == NULL || (text == NULL && len > 0)) {
        errf(err, err_size, "profile parse: NULL argument");
        return APO_ERR_INVALID_ARGUMENT;
    }
    memset(out, 0, sizeof *out);
    name = name != NULL ? name : "multigpu.json";
    json_t *root = parse_text(name, text, len, err, err_size);
    if (root == NULL)
        return APO_ERR_INVALID_ARGUMENT;
    return multigpu_from_root(name, root, out, err, err_size);
}

apo_status apo__thresholds_parse(const char *name, const char *text, size_t len,
                                 apo__thresholds *out, char *err, size_t err_size) {
    errf(err, err_size, "%s", "");
    if (out == NULL || (text == NULL && len > 0)) {
        errf(err, err_size, "profile parse: NULL argument");
        return APO_ERR_INVALID_ARGUMENT;
    }
    memset(out, 0, sizeof *out);
    name = name != NULL ? name : "thresholds.json";
    json_t *root = parse_text(name, text, len, err, err_size);
    if (root == NULL)
        return APO_ERR_INVALID_ARGUMENT;
    return thresholds_from_root(name, root, out, err, err_size);
}

typedef apo_status (*file_reader)(const char *path, void *out, file_info *info, char *err,
                                  size_t err_size);

static apo_status read_multigpu_file(const char *path, void *out, file_info *info, char *err,
                                     size_t err_size) {
    return multigpu_read(path, out, info, err, err_size);
}

static apo_status read_thresholds_file(const char *path, void *out, file_info *info, char *err,
                                       size_t err_size) {
    return thresholds_read(path, out, info, err, err_size);
}

/* A public load: arguments checked, the file read, and whether it was missing. */
static apo_status load_file(const char *path, file_reader read, void *out, int *missing, char *err,
                            size_t err_size) {
    errf(err, err_size, "%s", "");
    if (missing != NULL)
        *missing = 0;
    if (out == NULL || path == NULL) {
        errf(err, err_size, "profile load: NULL argument");
        return APO_ERR_INVALID_ARGUMENT;
    }
    file_info info;
    apo_status st = read(path, out, &info, err, err_size);
    if (missing != NULL)
        *missing = info.missing;
    return st;
}

apo_status apo__multigpu_load(const char *path, apo__multigpu *out, int *missing, char *err,
                              size_t err_size) {
    return load_file(path, read_multigpu_file, out, missing, err, err_size);
}

void apo__multigpu_free(apo__multigpu *p) {
    if (p == NULL)
        return;
    free(p->workloads);
    memset(p, 0, sizeof *p);
}

const apo__stored_workload *apo__multigpu_find(const apo__multigpu *p, const char *tag) {
    if (p == NULL || tag == NULL || p->n_workloads == 0)
        return NULL;
    apo__stored_workload probe;
    snprintf(probe.tag, sizeof probe.tag, "%s", tag);
    if (strcmp(probe.tag, tag) != 0)
        return NULL; /* longer than any stored tag */
    return bsearch(&probe, p->workloads, p->n_workloads, sizeof p->workloads[0], workload_cmp);
}

apo_status apo__thresholds_load(const char *path, apo__thresholds *out, int *missing, char *err,
                                size_t err_size) {
    return load_file(path, read_thresholds_file, out, missing, err, err_size);
}

void apo__thresholds_free(apo__thresholds *t) {
    if (t == NULL)
        return;
    free(t->entries);
    memset(t, 0, sizeof *t);
}

/* ---- writing ---------------------------------------------------------------------------- */

/* Takes the exclusive lock of `path`, waiting at most LOCK_TIMEOUT_S; returns its fd. */
static apo_status lock_take(const char *path, int *fd_out, char *err, size_t err_size) {
    char lock_path[APO_PATH_MAX + 8], why[128];
    *fd_out = -1;
    if (snprintf(lock_path, sizeof lock_path, "%s.lock", path) >= (int)sizeof lock_path) {
        errf(err, err_size, "%s: path too long for its lock file", path);
        return APO_ERR_IO;
    }
    int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
    if (fd < 0) {
        int e = errno;
        errf(err, err_size, "cannot open the lock file %s: %s", lock_path,
             errno_text(e, why, sizeof why));
        return APO_ERR_IO;
    }
    double deadline = monotonic_seconds() + LOCK_TIMEOUT_S;
    long wait_ns = 1000000;
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        if (e == EINTR)
            continue;
        if (e != EWOULDBLOCK) {
            close(fd);
            errf(err, err_size, "cannot lock %s: %s", lock_path, errno_text(e, why, sizeof why));
            return APO_ERR_IO;
        }
        if (monotonic_seconds() > deadline) {
            close(fd);
            errf(err, err_size,
                 "%s is locked by another process and stayed locked for %.0f s; not written",
                 lock_path, LOCK_TIMEOUT_S);
            return APO_ERR_IO;
        }
        /* Polling with a growing pause (1 ms to 16 ms) keeps a short wait short and a long
         * one cheap. */
        struct timespec pause = {0, wait_ns};
        nanosleep(&pause, NULL);
        if (wait_ns < 16000000)
            wait_ns *= 2;
    }
    *fd_out = fd;
    return APO_OK;
}

/* Closing the descriptor releases the lock. */
static void lock_release(int fd) {
    if (fd >= 0)
        close(fd);
}

static int write_all(int fd, const char *data, size_t len) {
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Replaces `path` by `data` atomically: a temporary file in the same folder, written, fsynced
 * and renamed over it, then the folder fsynced so that the rename itself is durable. When
 * `aside` is given, the existing file is first linked (or, where links are not supported,
 * renamed) to it. `mode` (0: leave mkstemp's 0600) gives the file the permissions of the
 * one it replaces. On failure the temporary file is removed and `path` is as it was. */
static apo_status write_atomic(const char *path, const char *data, size_t len, mode_t mode,
                               const char *aside, char *err, size_t err_size) {
    char dir[APO_PATH_MAX], tmp[APO_PATH_MAX + 16], why[128];
    const char *slash = strrchr(path, '/');
    const char *base = slash != NULL ? slash + 1 : path;
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (snprintf(tmp, sizeof tmp, "%s/.%s.XXXXXX", dir, base) >= (int)sizeof tmp) {
        errf(err, err_size, "%s: path too long for a temporary file", path);
        return APO_ERR_IO;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        errf(err, err_size, "%s: cannot create a temporary file in %s: %s", path, dir,
             errno_text(e, why, sizeof why));
        return APO_ERR_IO;
    }
    /* A failed chmod only leaves the new file private (0600), which is not worth failing. */
    if (mode != 0)
        (void)fchmod(fd, mode);
    const char *step = NULL;
    int e = 0;
    if (write_all(fd, data, len) != 0) {
        step = "write", e = errno;
    } else if (fsync(fd) != 0) {
        step = "fsync", e = errno;
    }
    if (close(fd) != 0 && e == 0)
        step = "close", e = errno;
    if (e != 0) {
        unlink(tmp);
        errf(err, err_size, "%s: cannot %s the temporary file %s: %s", path, step, tmp,
             errno_text(e, why, sizeof why));
        return APO_ERR_IO;
    }
    if (aside != NULL) {
        if (unlink(aside) != 0 && errno != ENOENT) {
            e = errno;
        } else if (link(path, aside) != 0 && errno != ENOENT) {
            if (rename(path, aside) != 0 && errno != ENOENT)
                e = errno;
        }
        if (e != 0) {
            unlink(tmp);
            errf(err, err_size, "%s: cannot keep the unusable file aside as %s: %s", path, aside,
                 errno_text(e, why, sizeof why));
            return APO_ERR_IO;
        }
    }
    if (rename(tmp, path) != 0) {
        e = errno;
        unlink(tmp);
        errf(err, err_size, "%s: cannot rename %s over it: %s", path, tmp,
             errno_text(e, why, sizeof why));
        return APO_ERR_IO;
    }
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        /* Some file systems cannot sync a folder (EINVAL); the rename is done regardless. */
        if (fsync(dfd) != 0 && errno != EINVAL)
            e = errno;
        close(dfd);
    } else {
        e = errno;
    }
    if (e != 0) {
        errf(err, err_size, "%s: written, but its folder %s could not be synced: %s", path, dir,
             errno_text(e, why, sizeof why));
        return APO_ERR_IO;
    }
    return APO_OK;
}

/* The shortest of %.15g, %.16g and %.17g that reads back to `v` exactly. */
static void format_shortest(char *buf, size_t size, double v) {
    for (int precision = 15; precision <= 17; precision++) {
        format_c_double(buf, size, precision, v);
        double back;
        if (parse_c_double(buf, strlen(buf), &back) == 0 && back == v)
            return;
    }
}

/* jansson writes every real with the 17 significant digits of JSON_REAL_PRECISION(17): that
 * reads back exactly, but shows 0.91 as 0.91000000000000003. This copies the dumped text with
 * each real (a number token with '.' or 'e') rewritten to its shortest exact form, still
 * written as a real ("1.0", not "1"); strings are copied untouched. */
static char *shorten_reals(const char *in, size_t *len) {
    size_t in_len = strlen(in), cap = in_len + in_len / 2 + 64, o = 0;
    char *out = malloc(cap);
    if (out == NULL)
        return NULL;
    int in_string = 0;
    for (size_t i = 0; i < in_len;) {
        /* Room for the longest rewritten number, with margin. */
        if (o + 64 > cap) {
            char *grown = realloc(out, cap *= 2);
            if (grown == NULL) {
                free(out);
                return NULL;
            }
            out = grown;
        }
        char c = in[i];
        if (in_string) {
            out[o++] = in[i++];
            if (c == '\\' && i < in_len)
                out[o++] = in[i++];
            else if (c == '"')
                in_string = 0;
            continue;
        }
        if (c == '"')
            in_string = 1;
        if (c != '-' && (c < '0' || c > '9')) {
            out[o++] = in[i++];
            continue;
        }
        size_t end = i;
        int real = 0;
        while (end < in_len && strchr("0123456789+-.eE", in[end]) != NULL) {
            real |= in[end] == '.' || in[end] == 'e' || in[end] == 'E';
            end++;
        }
        double v;
        char num[48];
        if (real && end - i < 40 && parse_c_double(in + i, end - i, &v) == 0) {
            format_shortest(num, sizeof num - 2, v);
            if (strpbrk(num, ".e") == NULL)
                strcat(num, ".0");
            size_t n = strlen(num);
            memcpy(out + o, num, n);
            o += n;
        } else {
            /* Integers, and anything unexpected, are copied as they are. */
            if (o + (end - i) + 64 > cap) {
                char *grown = realloc(out, cap = o + (end - i) + 128);
                if (grown == NULL) {
                    free(out);
                    return NULL;
                }
                out = grown;
            }
            memcpy(out + o, in + i, end - i);
            o += end - i;
        }
        i = end;
    }
    out[o] = '\0';
    *len = o;
    return out;
}

/* Serialises a tree: indented, keys sorted, every real in its shortest form that reads back
 * to the same double, and a final newline. */
static char *dump_json(const json_t *root, size_t *len) {
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    if (text == NULL)
        return NULL;
    char *out = shorten_reals(text, len);
    free(text);
    if (out == NULL)
        return NULL;
    char *with_newline = realloc(out, *len + 2);
    if (with_newline == NULL) {
        free(out);
        return NULL;
    }
    with_newline[(*len)++] = '\n';
    with_newline[*len] = '\0';
    return with_newline;
}

/* json_object_set_new that remembers a failure (a NULL value is out of memory). */
static void put(json_t *obj, const char *key, json_t *value, int *failed) {
    if (obj == NULL || value == NULL || json_object_set_new(obj, key, value) != 0) {
        json_decref(value);
        *failed = 1;
    }
}

static void put_real(json_t *obj, const char *key, double x, int *failed) {
    if (!isnan(x))
        put(obj, key, json_real(x), failed);
}

static void put_count(json_t *obj, const char *key, uint64_t n, int *failed) {
    put(obj, key, json_integer((json_int_t)(n > COUNT_MAX ? COUNT_MAX : n)), failed);
}

static json_t *multigpu_to_json(const apo__multigpu *p) {
    int failed = 0;
    json_t *root = json_object(), *workloads = json_object();
    put(root, "format", json_string(APO_MULTIGPU_FORMAT), &failed);
    put(root, "updated_at", json_string(p->updated_at), &failed);
    put(root, "host", json_string(p->host), &failed);
    put(root, "library_version", json_string(p->library_version), &failed);
    for (size_t i = 0; i < p->n_workloads && !failed; i++) {
        const apo__stored_workload *w = &p->workloads[i];
        json_t *wj = json_object(), *devices = json_object(), *ratios = json_object();
        if (w->updated_at[0] != '\0')
            put(wj, "updated_at", json_string(w->updated_at), &failed);
        put_count(wj, "sample_size", w->sample_size, &failed);
        put_count(wj, "runs", w->runs, &failed);
        put(wj, "source", json_string(origin_names[w->origin]), &failed);
        for (size_t d = 0; d < w->n_devices; d++) {
            const apo__stored_device *dev = &w->devices[d];
            json_t *dj = json_object();
            put(dj, "label", json_string(dev->label), &failed);
            put_real(dj, "ratio", dev->ratio, &failed);
            put_real(dj, "latency_ms", dev->latency_ms, &failed);
            put_real(dj, "ms_per_melem", dev->ms_per_melem, &failed);
            put_count(dj, "samples", dev->samples, &failed);
            put(devices, dev->id, dj, &failed);
            put_real(ratios, dev->id, dev->ratio, &failed);
        }
        put(wj, "devices", devices, &failed);
        put(wj, "ratios", ratios, &failed);
        put(workloads, w->tag, wj, &failed);
    }
    put(root, "workloads", workloads, &failed);
    if (failed) {
        json_decref(root);
        return NULL;
    }
    return root;
}

static json_t *thresholds_to_json(const apo__thresholds *t) {
    int failed = 0;
    json_t *root = json_object(), *entries = json_object();
    put(root, "format", json_string(APO_THRESHOLDS_FORMAT), &failed);
    put(root, "updated_at", json_string(t->updated_at), &failed);
    for (size_t i = 0; i < t->n && !failed; i++) {
        const apo__threshold *e = &t->entries[i];
        json_t *ej = json_object();
        put_real(ej, "cpu_ms_avg", e->cpu_ms_avg, &failed);
        put_real(ej, "gpu_ms_avg", e->gpu_ms_avg, &failed);
        put_count(ej, "samples", e->samples, &failed);
        put_count(ej, "cpu_samples", e->cpu_samples, &failed);
        put_count(ej, "gpu_samples", e->gpu_samples, &failed);
        if (e->simulated)
            put(ej, "simulated", json_true(), &failed);
        put(entries, e->key, ej, &failed);
    }
    put(root, "entries", entries, &failed);
    if (failed) {
        json_decref(root);
        return NULL;
    }
    return root;
}

/* Dumps `root` (taking it; NULL means it could not be built) and writes it atomically,
 * unless the text is over the size a load accepts: a file written must read back. */
static apo_status write_profile(const char *path, json_t *root, const file_info *info,
                                const char *aside, char *err, size_t err_size) {
    size_t len = 0;
    char *text = root != NULL ? dump_json(root, &len) : NULL;
    json_decref(root);
    if (text == NULL) {
        errf(err, err_size, "%s: out of memory", path);
        return APO_ERR_OUT_OF_MEMORY;
    }
    apo_status st;
    size_t values = 0;
    if (len > APO_PROFILE_FILE_MAX) {
        st = APO_ERR_INVALID_ARGUMENT;
        errf(err, err_size,
             "%s: would be %zu bytes, more than the %u a profile may be; not written", path, len,
             (unsigned)APO_PROFILE_FILE_MAX);
    } else if ((values = count_values(text, len)) > APO_PROFILE_VALUES_MAX) {
        st = APO_ERR_INVALID_ARGUMENT;
        errf(err, err_size,
             "%s: would hold about %zu JSON values, more than the %u a profile may hold; not "
             "written",
             path, values, APO_PROFILE_VALUES_MAX);
    } else {
        st = write_atomic(path, text, len, info->exists ? info->mode : 0, aside, err, err_size);
    }
    free(text);
    return st;
}

static int valid_ratio_or_nan(double x) { return isnan(x) || (isfinite(x) && x >= 0); }

/* An update must be something a load accepts back, or writing it would get the whole file
 * rejected (and set aside) on the next read. */
static apo_status check_update(const apo__stored_workload *w, char *err, size_t err_size) {
    if (!fits(w->tag, sizeof w->tag) || w->tag[0] == '\0' || !utf8_valid(w->tag)) {
        errf(err, err_size, "update: a workload tag must be 1 to %d bytes of UTF-8",
             APO_TAG_MAX - 1);
        return APO_ERR_INVALID_ARGUMENT;
    }
    if (!fits(w->updated_at, sizeof w->updated_at) ||
        (w->updated_at[0] != '\0' && apo__timestamp_parse(w->updated_at) < 0)) {
        errf(err, err_size, "update of \"%s\": updated_at is not an RFC 3339 timestamp", w->tag);
        return APO_ERR_INVALID_ARGUMENT;
    }
    if ((unsigned)w->origin > APO_ORIGIN_THREADX || w->n_devices == 0 ||
        w->n_devices > APO_MAX_DEVICES || w->sample_size > COUNT_MAX) {
        errf(err, err_size,
             "update of \"%s\": origin, device count (1 to %d) or sample size out of range", w->tag,
             APO_MAX_DEVICES);
        return APO_ERR_INVALID_ARGUMENT;
    }
    double sum = 0;
    for (size_t d = 0; d < w->n_devices; d++) {
        const apo__stored_device *dev = &w->devices[d];
        if (!fits(dev->id, sizeof dev->id) || dev->id[0] == '\0' || !utf8_valid(dev->id) ||
            !fits(dev->label, sizeof dev->label) || !utf8_valid(dev->label)) {
            errf(err, err_size,
                 "update of \"%s\": device %zu: the id must be 1 to %d bytes and the label at "
                 "most %d bytes, both UTF-8",
                 w->tag, d, APO_ID_MAX - 1, APO_LABEL_MAX - 1);
            return APO_ERR_INVALID_ARGUMENT;
        }
        for (size_t k = 0; k < d; k++) {
            if (strcmp(w->devices[k].id, dev->id) == 0) {
                errf(err, err_size, "update of \"%s\": device \"%s\" appears twice", w->tag,
                     dev->id);
                return APO_ERR_INVALID_ARGUMENT;
            }
        }
        if (!valid_ratio_or_nan(dev->ratio) || !valid_ratio_or_nan(dev->latency_ms) ||
            !valid_ratio_or_nan(dev->ms_per_melem) || dev->samples > COUNT_MAX) {
            errf(err, err_size,
                 "update of \"%s\": device \"%s\": ratio, latency_ms and ms_per_melem must be "
                 "finite and >= 0 (or NaN when unknown)",
                 w->tag, dev->id);
            return APO_ERR_INVALID_ARGUMENT;
        }
        if (!isnan(dev->ratio))
            sum += dev->ratio;
    }
    if (!(sum > 0) || !isfinite(sum)) {
        errf(err, err_size, "update of \"%s\": the ratios sum to %g; expected a positive sum",
             w->tag, sum);
        return APO_ERR_INVALID_ARGUMENT;
    }
    return APO_OK;
}

/* The note left in err when an unusable file was set aside, with the reason it was. */
static void note_aside(char *err, size_t err_size, const char *aside, const char *reason) {
    errf(err, err_size, "kept the unusable file aside as %s and started afresh: %s", aside, reason);
}

/* The state of one read-modify-write of a profile file, between taking its lock and
 * writing it back. */
typedef struct locked_file {
    char target[APO_PATH_MAX]; /* the file written: the path, or the file a link names */
    int lock;
    file_info info;
    const char *aside; /* where an unusable file goes, or NULL */
    char aside_path[APO_PATH_MAX + 16];
    char reason[APO_LABEL_MAX * 4]; /* why it was unusable */
} locked_file;

/* The file a write replaces: `path`, or, when `path` is a symbolic link, the file it names.
 * Writing through the link (a temporary file in the target's folder, renamed over the
 * target, locked by `<target>.lock`) keeps the link a link, and every writer, through the
 * link or not, takes the same lock. A link whose target does not exist is refused: there
 * is no folder to write the file in that the user clearly meant. */
static apo_status write_target(const char *path, char *target, char *err, size_t err_size) {
    char why[128];
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)) {
        snprintf(target, APO_PATH_MAX, "%s", path);
        return APO_OK;
    }
    char *real = realpath(path, NULL);
    if (real == NULL) {
        int e = errno;
        errf(err, err_size,
             "%s is a symbolic link whose target cannot be resolved (%s); nothing written", path,
             errno_text(e, why, sizeof why));
        return APO_ERR_IO;
    }
    int too_long = !fits(real, APO_PATH_MAX);
    if (!too_long)
        snprintf(target, APO_PATH_MAX, "%s", real);
    free(real);
    if (too_long) {
        errf(err, err_size, "%s: the file its link names has a path longer than %d bytes", path,
             APO_PATH_MAX - 1);
        return APO_ERR_IO;
    }
    return APO_OK;
}

/* Removes the temporary files (`.<name>.XXXXXX`, as write_atomic makes them) that writers
 * killed between creating and renaming them left in the folder of `path`. Called with the
 * lock held: every live writer of `path` holds the lock while its temporary file exists, so
 * any such file now is a dead writer's. Failures are ignored; the files are only clutter. */
static void sweep_dead_temporaries(const char *path) {
    char dir[APO_PATH_MAX], prefix[APO_PATH_MAX + 2];
    const char *slash = strrchr(path, '/');
    const char *base = slash != NULL ? slash + 1 : path;
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    int n = snprintf(prefix, sizeof prefix, ".%s.", base);
    if (n < 0 || (size_t)n >= sizeof prefix)
        return;
    size_t plen = (size_t)n;
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        if (strncmp(name, prefix, plen) != 0 || strlen(name) != plen + 6)
            continue;
        int random_part = 1;
        for (size_t i = plen; i < plen + 6; i++)
            random_part &= isalnum((unsigned char)name[i]) != 0;
        if (random_part)
            (void)unlinkat(dirfd(d), name, 0);
    }
    closedir(d);
}

/* Resolves the file to write (write_target), creates its folder, takes its lock, clears
 * dead writers' temporary files and reads the current file into `out` (out_size bytes)
 * with `read`. An unusable file is to be kept aside (lf->aside) and `out` starts empty; a
 * file that cannot be read at all fails, with the lock released. */
static apo_status lock_and_read(const char *path, file_reader read, void *out, size_t out_size,
                                locked_file *lf, char *err, size_t err_size) {
    lf->aside = NULL;
    apo_status st = write_target(path, lf->target, err, err_size);
    if (st != APO_OK)
        return st;
    path = lf->target;
    if ((st = apo__profile_make_dir(path, err, err_size)) != APO_OK)
        return st;
    if ((st = lock_take(path, &lf->lock, err, err_size)) != APO_OK)
        return st;
    sweep_dead_temporaries(path);
    st = read(path, out, &lf->info, lf->reason, sizeof lf->reason);
    if (st != APO_OK && lf->info.fault == FAULT_CONTENT) {
        snprintf(lf->aside_path, sizeof lf->aside_path, "%s.corrupt", path);
        lf->aside = lf->aside_path;
        memset(out, 0, out_size);
        return APO_OK;
    }
    if (st != APO_OK) {
        lock_release(lf->lock);
        errf(err, err_size, "%s", lf->reason);
    }
    return st;
}

/* Writes `root` (which it takes) unless the file would hold more than `max` `what`, and
 * releases the lock; on success notes in err when the old file was kept aside. */
static apo_status write_and_unlock(const char *path, json_t *root, size_t count, size_t max,
                                   const char *what, locked_file *lf, char *err, size_t err_size) {
    apo_status st;
    if (count > max) {
        json_decref(root);
        st = APO_ERR_INVALID_ARGUMENT;
        errf(err, err_size, "%s: would hold %zu %s, more than the %zu a file may hold; not written",
             path, count, what, max);
    } else {
        st = write_profile(path, root, &lf->info, lf->aside, err, err_size);
    }
    lock_release(lf->lock);
    if (st == APO_OK && lf->aside != NULL)
        note_aside(err, err_size, lf->aside, lf->reason);
    return st;
}

apo_status apo__multigpu_update(const char *path, const char *host,
                                const apo__stored_workload *updates, size_t n_updates,
                                const char *const *removals, size_t n_removals,
                                apo__multigpu *merged, char *err, size_t err_size) {
    return apo__multigpu_update_rebased(path, host, updates, n_updates, removals, n_removals, NULL,
                                        NULL, merged, err, err_size);
}

apo_status apo__multigpu_update_rebased(const char *path, const char *host,
                                        const apo__stored_workload *updates, size_t n_updates,
                                        const char *const *removals, size_t n_removals,
                                        apo__multigpu_rebase_fn rebase, void *rebase_ctx,
                                        apo__multigpu *merged, char *err, size_t err_size) {
    errf(err, err_size, "%s", "");
    if (merged != NULL)
        memset(merged, 0, sizeof *merged);
    if (path == NULL || (n_updates > 0 && updates == NULL) ||
        (n_removals > 0 && removals == NULL)) {
        errf(err, err_size, "apo__multigpu_update: NULL argument");
        return APO_ERR_INVALID_ARGUMENT;
    }
    if (host != NULL && (!fits(host, APO_LABEL_MAX) || !utf8_valid(host))) {
        errf(err, err_size, "update: the host name must be at most %d bytes of UTF-8",
             APO_LABEL_MAX - 1);
        return APO_ERR_INVALID_ARGUMENT;
    }
    for (size_t i = 0; i < n_updates; i++) {
        apo_status st = check_update(&updates[i], err, err_size);
        if (st != APO_OK)
            return st;
    }
    for (size_t i = 0; i < n_removals; i++) {
        if (removals[i] == NULL) {
            errf(err, err_size, "apo__multigpu_update: removal %zu is NULL", i);
            return APO_ERR_INVALID_ARGUMENT;
        }
    }
    /* The updates as applied: a copy, which the rebase may rewrite under the lock. */
    apo__stored_workload *applied = malloc((n_updates > 0 ? n_updates : 1) * sizeof *applied);
    if (applied == NULL) {
        errf(err, err_size, "%s: out of memory", path);
        return APO_ERR_OUT_OF_MEMORY;
    }
    if (n_updates > 0)
        memcpy(applied, updates, n_updates * sizeof *applied);
    apo__multigpu p;
    locked_file lf;
    apo_status st = lock_and_read(path, read_multigpu_file, &p, sizeof p, &lf, err, err_size);
    if (st != APO_OK) {
        free(applied);
        return st;
    }
    if (rebase != NULL) {
        rebase(&p, applied, n_updates, rebase_ctx);
        for (size_t i = 0; i < n_updates && st == APO_OK; i++)
            st = check_update(&applied[i], err, err_size);
        if (st != APO_OK) {
            free(applied);
            apo__multigpu_free(&p);
            lock_release(lf.lock);
            return st;
        }
    }

    /* Room for every old entry plus every update; removals only shrink it. */
    size_t cap = p.n_workloads + n_updates;
    apo__stored_workload *list = realloc(p.workloads, (cap > 0 ? cap : 1) * sizeof *list);
    if (list == NULL) {
        free(applied);
        apo__multigpu_free(&p);
        lock_release(lf.lock);
        errf(err, err_size, "%s: out of memory", path);
        return APO_ERR_OUT_OF_MEMORY;
    }
    p.workloads = list;
    double now = now_seconds();
    for (size_t i = 0; i < n_updates; i++) {
        size_t at = p.n_workloads;
        for (size_t k = 0; k < p.n_workloads; k++)
            if (strcmp(p.workloads[k].tag, applied[i].tag) == 0)
                at = k;
        p.workloads[at] = applied[i];
        if (p.workloads[at].updated_at[0] == '\0')
            apo__timestamp_format(now, p.workloads[at].updated_at, APO_TIMESTAMP_MAX);
        /* Devices are kept in id order, as a load returns them. */
        qsort(p.workloads[at].devices, p.workloads[at].n_devices, sizeof(apo__stored_device),
              device_cmp);
        if (at == p.n_workloads)
            p.n_workloads++;
    }
    free(applied);
    for (size_t i = 0; i < n_removals; i++) {
        for (size_t k = 0; k < p.n_workloads; k++) {
            if (strcmp(p.workloads[k].tag, removals[i]) == 0) {
                p.workloads[k] = p.workloads[--p.n_workloads];
                break;
            }
        }
    }
    qsort(p.workloads, p.n_workloads, sizeof p.workloads[0], workload_cmp);
    if (host != NULL)
        snprintf(p.host, sizeof p.host, "%s", host);
    snprintf(p.library_version, sizeof p.library_version, "%s", APO_VERSION_STRING);
    apo__timestamp_format(now, p.updated_at, sizeof p.updated_at);
    p.threadx = 0;

    st = write_and_unlock(lf.target, multigpu_to_json(&p), p.n_workloads, WORKLOADS_MAX,
                          "workloads", &lf, err, err_size);
    if (st != APO_OK) {
        apo__multigpu_free(&p);
        return st;
    }
    if (merged != NULL)
        *merged = p;
    else
        apo__multigpu_free(&p);
    return APO_OK;
}

/* One side's count in an add: its own count, else `samples` when it has a time (the ThreadX
 * rule), and nothing when its time is NaN. */
static uint64_t add_count(double avg, uint64_t side, uint64_t samples) {
    if (isnan(avg))
        return 0;
    return side != 0 ? side : samples;
}

static uint64_t sat_add(uint64_t a, uint64_t b) {
    return (a > COUNT_MAX || b > COUNT_MAX - a) ? COUNT_MAX : a + b;
}

/* avg = (avg * n + add * m) / (n + m), with a never-measured side taking the add as is. */
static void merge_side(double *avg, uint64_t *n, double add, uint64_t m) {
    if (m == 0)
        return;
    double nn = (double)*n, mm = (double)m;
    if (*n == 0 || isnan(*avg)) {
        *avg = add;
    } else {
        double mean = (*avg * nn + add * mm) / (nn + mm);
        /* Only the products can overflow (both times are finite and >= 0, so the mean is in
         * range): this form of the same mean cannot. */
        if (!isfinite(mean))
            mean = *avg + (add - *avg) * (mm / (nn + mm));
        *avg = mean;
    }
    *n = sat_add(*n, m);
}

apo_status apo__thresholds_add(apo__thresholds *t, const apo__threshold *adds, size_t n_adds) {
    size_t cap = t->n + n_adds;
    apo__threshold *list = realloc(t->entries, (cap > 0 ? cap : 1) * sizeof *list);
    if (list == NULL)
        return APO_ERR_OUT_OF_MEMORY;
    t->entries = list;
    /* The entries are sorted and searched by bisection; keys new in this merge are few and
     * looked up linearly after them. */
    size_t n_sorted = t->n;
    for (size_t i = 0; i < n_adds; i++) {
        const apo__threshold *a = &adds[i];
        apo__threshold *e = bsearch(a, t->entries, n_sorted, sizeof *e, threshold_cmp);
        for (size_t k = n_sorted; e == NULL && k < t->n; k++)
            if (strcmp(t->entries[k].key, a->key) == 0)
                e = &t->entries[k];
        if (e == NULL) {
            e = &t->entries[t->n++];
            memset(e, 0, sizeof *e);
            snprintf(e->key, sizeof e->key, "%s", a->key);
            e->cpu_ms_avg = NAN;
            e->gpu_ms_avg = NAN;
        }
        merge_side(&e->cpu_ms_avg, &e->cpu_samples, a->cpu_ms_avg,
                   add_count(a->cpu_ms_avg, a->cpu_samples, a->samples));
        merge_side(&e->gpu_ms_avg, &e->gpu_samples, a->gpu_ms_avg,
                   add_count(a->gpu_ms_avg, a->gpu_samples, a->samples));
        e->samples = sat_add(e->samples, a->samples);
        e->simulated |= a->simulated && !isnan(a->gpu_ms_avg);
        /* A file must keep cpu_samples <= samples to be read back. */
        if (e->samples < e->cpu_samples)
            e->samples = e->cpu_samples;
        if (e->samples < e->gpu_samples)
            e->samples = e->gpu_samples;
    }
    qsort(t->entries, t->n, sizeof t->entries[0], threshold_cmp);
    return APO_OK;
}

apo_status apo__thresholds_merge(const char *path, const apo__threshold *adds, size_t n_adds,
                                 apo__thresholds *merged, char *err, size_t err_size) {
    errf(err, err_size, "%s", "");
    if (merged != NULL)
        memset(merged, 0, sizeof *merged);
    if (path == NULL || (n_adds > 0 && adds == NULL)) {
        errf(err, err_size, "apo__thresholds_merge: NULL argument");
        return APO_ERR_INVALID_ARGUMENT;
    }
    for (size_t i = 0; i < n_adds; i++) {
        const apo__threshold *a = &adds[i];
        if (!fits(a->key, sizeof a->key) || a->key[0] == '\0' || !utf8_valid(a->key) ||
            !valid_ratio_or_nan(a->cpu_ms_avg) || !valid_ratio_or_nan(a->gpu_ms_avg)) {
            errf(err, err_size,
                 "merge: add %zu: the key must be 1 to %d bytes of UTF-8 and the times finite "
                 "and >= 0 (or NaN when not measured)",
                 i, APO_THRESHOLD_KEY_MAX - 1);
            return APO_ERR_INVALID_ARGUMENT;
        }
    }
    apo__thresholds t;
    locked_file lf;
    apo_status st = lock_and_read(path, read_thresholds_file, &t, sizeof t, &lf, err, err_size);
    if (st != APO_OK)
        return st;
    if (apo__thresholds_add(&t, adds, n_adds) != APO_OK) {
        apo__thresholds_free(&t);
        lock_release(lf.lock);
        errf(err, err_size, "%s: out of memory", path);
        return APO_ERR_OUT_OF_MEMORY;
    }
    apo__timestamp_format(now_seconds(), t.updated_at, sizeof t.updated_at);

    st = write_and_unlock(lf.target, thresholds_to_json(&t), t.n, THRESHOLD_ENTRIES_MAX, "entries",
                          &lf, err, err_size);
    if (st != APO_OK) {
        apo__thresholds_free(&t);
        return st;
    }
    if (merged != NULL)
        *merged = t;
    else
        apo__thresholds_free(&t);
    return APO_OK;
}

/* ---- threshold keys --------------------------------------------------------------------- */

static int valid_name(const char *s) {
    size_t len = 0;
    for (; s[len] != '\0'; len++) {
        unsigned char c = (unsigned char)s[len];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return 0;
        if (len + 1 >= APO_NAME_MAX)
            return 0;
    }
    return len > 0;
}

/* Integral values up to 2^53 (where every integer is a double) print as integers; others as
 * the shortest of %.15g, %.16g and %.17g that reads back to the same double. */
static void format_value(char *buf, size_t size, double v) {
    if (v == floor(v) && fabs(v) <= 9007199254740992.0) {
        snprintf(buf, size, "%.0f", v == 0 ? 0.0 : v);
        return;
    }
    format_shortest(buf, size, v);
}

apo_status apo__threshold_key(char *key, const char *function, const char *const *names,
                              const double *values, size_t n, uint64_t samples) {
    if (key == NULL)
        return APO_ERR_INVALID_ARGUMENT;
    key[0] = '\0';
    if (function == NULL || !valid_name(function) || n > APO_MAX_PARAMS + 1 ||
        (n > 0 && (names == NULL || values == NULL)))
        return APO_ERR_INVALID_ARGUMENT;
    for (size_t i = 0; i < n; i++) {
        if (names[i] == NULL || !valid_name(names[i]) || strcmp(names[i], "size") == 0 ||
            !isfinite(values[i]))
            return APO_ERR_INVALID_ARGUMENT;
        for (size_t k = 0; k < i; k++)
            if (strcmp(names[k], names[i]) == 0)
                return APO_ERR_INVALID_ARGUMENT;
    }

    /* The pairs in byte order of their names, 'size' among them; at most ten, so an
     * insertion sort. */
    const char *pair_name[APO_MAX_PARAMS + 2];
    char pair_value[APO_MAX_PARAMS + 2][40];
    size_t n_pairs = 0;
    for (size_t i = 0; i <= n; i++) {
        const char *name = i < n ? names[i] : "size";
        char value[40];
        if (i < n)
            format_value(value, sizeof value, values[i]);
        else
            snprintf(value, sizeof value, "%llu", (unsigned long long)samples);
        size_t k = n_pairs++;
        for (; k > 0 && strcmp(pair_name[k - 1], name) > 0; k--) {
            pair_name[k] = pair_name[k - 1];
            memcpy(pair_value[k], pair_value[k - 1], sizeof pair_value[k]);
        }
        pair_name[k] = name;
        memcpy(pair_value[k], value, sizeof value);
    }

    char out[APO_THRESHOLD_KEY_MAX];
    size_t len = 0;
    int w = snprintf(out, sizeof out, "%s:{", function);
    for (size_t i = 0; i < n_pairs && w >= 0 && (size_t)w < sizeof out - len; i++) {
        len += (size_t)w;
        w = snprintf(out + len, sizeof out - len, "%s'%s': %s", i > 0 ? ", " : "", pair_name[i],
                     pair_value[i]);
    }
    if (w < 0 || (size_t)w >= sizeof out - len)
        return APO_ERR_INVALID_ARGUMENT;
    len += (size_t)w;
    if (len + 2 > sizeof out)
        return APO_ERR_INVALID_ARGUMENT;
    out[len++] = '}';
    out[len] = '\0';
    memcpy(key, out, len + 1);
    return APO_OK;
}

apo_status apo__threshold_key_parse(const char *key, apo__threshold_key_parts *parts) {
    if (key == NULL || parts == NULL)
        return APO_ERR_INVALID_ARGUMENT;
    memset(parts, 0, sizeof *parts);
    if (!fits(key, APO_THRESHOLD_KEY_MAX))
        return APO_ERR_INVALID_ARGUMENT;
    const char *colon = strchr(key, ':');
    if (colon == NULL || colon == key || (size_t)(colon - key) >= APO_NAME_MAX)
        return APO_ERR_INVALID_ARGUMENT;
    memcpy(parts->function, key, (size_t)(colon - key));
    const char *s = colon + 1;
    if (*s++ != '{')
        return APO_ERR_INVALID_ARGUMENT;
    int have_size = 0;
    for (int first = 1;; first = 0) {
        if (!first) {
            if (*s == '}')
                break;
            if (s[0] != ',' || s[1] != ' ')
                return APO_ERR_INVALID_ARGUMENT;
            s += 2;
        }
        if (*s++ != '\'')
            return APO_ERR_INVALID_ARGUMENT;
        const char *name = s;
        while (*s != '\0' && *s != '\'')
            s++;
        size_t name_len = (size_t)(s - name);
        if (*s != '\'' || name_len == 0 || name_len >= APO_NAME_MAX || s[1] != ':' || s[2] != ' ')
            return APO_ERR_INVALID_ARGUMENT;
        s += 3;
        const char *value = s;
        while (*s != '\0' && *s != ',' && *s != '}')
            s++;
        size_t value_len = (size_t)(s - value);
        if (name_len == 4 && memcmp(name, "size", 4) == 0) {
            if (have_size || value_len == 0 || value_len > 20)
                return APO_ERR_INVALID_ARGUMENT;
            uint64_t n = 0;
            for (size_t i = 0; i < value_len; i++) {
                unsigned dgt = (unsigned)(value[i] - '0');
                if (dgt > 9 || n > (UINT64_MAX - dgt) / 10)
                    return APO_ERR_INVALID_ARGUMENT;
                n = n * 10 + dgt;
            }
            parts->samples = n;
            have_size = 1;
        } else {
            if (parts->n_params == APO_MAX_PARAMS + 1)
                return APO_ERR_INVALID_ARGUMENT;
            double x;
            if (parse_c_double(value, value_len, &x) != 0)
                return APO_ERR_INVALID_ARGUMENT;
            memcpy(parts->names[parts->n_params], name, name_len);
            parts->names[parts->n_params][name_len] = '\0';
            parts->values[parts->n_params] = x;
            parts->n_params++;
        }
    }
    if (s[1] != '\0' || !have_size)
        return APO_ERR_INVALID_ARGUMENT;
    /* Whatever was read must be the canonical key of what it holds: this one comparison
     * rejects unsorted or repeated names, bad characters, and non-canonical numbers ("20.0",
     * "1e1", "-0", leading zeros) without a rule for each. */
    const char *names[APO_MAX_PARAMS + 1];
    for (size_t i = 0; i < parts->n_params; i++)
        names[i] = parts->names[i];
    char again[APO_THRESHOLD_KEY_MAX];
    if (apo__threshold_key(again, parts->function, names, parts->values, parts->n_params,
                           parts->samples) != APO_OK ||
        strcmp(again, key) != 0) {
        memset(parts, 0, sizeof *parts);
        return APO_ERR_INVALID_ARGUMENT;
    }
    return APO_OK;
}
