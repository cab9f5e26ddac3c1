/*
 * The state file of `apportion stream`; see stream_state_file.h. Layout (all numbers
 * little-endian; docs/cli.md gives the same table):
 *
 *   magic "APOSJOB" and a NUL (8), format version 1 (4), reserved 0 (4), series count (8);
 *   per series: name length (4) and bytes, has_last (1), the last index's kind (4),
 *   seconds (8, two's complement), nanoseconds (4), number (8, IEEE-754 bits), the last
 *   index's text length (4) and bytes;
 *   the library state's length (8) and bytes; FNV-1a 64 of everything before it (8).
 */
#include "stream_state_file.h"

#include "fnv1a.h"
#include "le_bytes.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define ERR(...)                                                                                   \
    do {                                                                                           \
        if (err_size > 0)                                                                          \
            snprintf(err, err_size, __VA_ARGS__);                                                  \
    } while (0)

static const char magic[8] = "APOSJOB";
#define FORMAT_VERSION 1u
#define HEADER_BYTES 24
#define SERIES_FIXED_BYTES (4 + 1 + 4 + 8 + 4 + 8 + 4)

/* ---- encode ----------------------------------------------------------------------------- */

int cli_stream_file_encode(const cli_stream_file *f, unsigned char **buf, size_t *len, char *err,
                           size_t err_size) {
    *buf = NULL;
    *len = 0;
    size_t total = HEADER_BYTES + 8 + f->stream_len + 8;
    for (size_t r = 0; r < f->n_series; r++) {
        const size_t name = strlen(f->series[r].name), text = strlen(f->series[r].last_text);
        if (name > CLI_STREAM_TEXT_MAX || text > CLI_STREAM_TEXT_MAX) {
            ERR("series %zu: a name or date longer than %d bytes cannot be kept in the state", r,
                CLI_STREAM_TEXT_MAX);
            return -1;
        }
        total += SERIES_FIXED_BYTES + name + text;
    }
    unsigned char *b = malloc(total), *p = b;
    if (b == NULL) {
        ERR("out of memory for a state of %zu bytes", total);
        return -1;
    }
    memcpy(p, magic, 8);
    apo__put_u32(p + 8, FORMAT_VERSION);
    apo__put_u32(p + 12, 0);
    apo__put_u64(p + 16, f->n_series);
    p += HEADER_BYTES;
    for (size_t r = 0; r < f->n_series; r++) {
        const cli_stream_series *s = &f->series[r];
        const size_t name = strlen(s->name), text = strlen(s->last_text);
        apo__put_u32(p, (uint32_t)name);
        memcpy(p + 4, s->name, name);
        p += 4 + name;
        p[0] = (unsigned char)(s->has_last != 0);
        apo__put_u32(p + 1, (uint32_t)s->last.kind);
        apo__put_u64(p + 5, (uint64_t)s->last.seconds);
        apo__put_u32(p + 13, (uint32_t)s->last.nanoseconds);
        apo__put_f64(p + 17, s->last.number);
        apo__put_u32(p + 25, (uint32_t)text);
        memcpy(p + 29, s->last_text, text);
        p += 29 + text;
    }
    apo__put_u64(p, f->stream_len);
    memcpy(p + 8, f->stream, f->stream_len);
    p += 8 + f->stream_len;
    apo__put_u64(p, apo__fnv1a64(b, (size_t)(p - b)));
    *buf = b;
    *len = total;
    return 0;
}

/* ---- decode ----------------------------------------------------------------------------- */

void cli_stream_file_free(cli_stream_file *f) {
    for (size_t r = 0; f->series != NULL && r < f->n_series; r++) {
        free(f->series[r].name);
        free(f->series[r].last_text);
    }
    free(f->series);
    free(f->stream);
    memset(f, 0, sizeof *f);
}

/* A copy of n bytes as a C string; NULL when out of memory or when it holds a NUL. */
static char *text_copy(const unsigned char *p, size_t n) {
    if (memchr(p, '\0', n) != NULL)
        return NULL;
    char *t = malloc(n + 1);
    if (t != NULL) {
        memcpy(t, p, n);
        t[n] = '\0';
    }
    return t;
}

/* Reads one series at *at (advanced past it) of the bytes [0, end). */
static int decode_series(const unsigned char *b, size_t end, size_t *at, cli_stream_series *s,
                         const char *name, size_t r, char *err, size_t err_size) {
    size_t p = *at;
    if (end - p < 4 || apo__get_u32(b + p) > CLI_STREAM_TEXT_MAX ||
        end - p - 4 < apo__get_u32(b + p)) {
        ERR("%s: not a state of apportion stream: series %zu's name runs past the end", name, r);
        return -1;
    }
    const size_t name_len = apo__get_u32(b + p);
    s->name = text_copy(b + p + 4, name_len);
    p += 4 + name_len;
    if (s->name == NULL || end - p < 29) {
        ERR("%s: not a state of apportion stream: series %zu is cut short or holds a NUL", name, r);
        return -1;
    }
    const uint32_t has_last = b[p], kind = apo__get_u32(b + p + 1),
                   nanos = apo__get_u32(b + p + 13);
    const size_t text_len = apo__get_u32(b + p + 25);
    if (has_last > 1 || kind > CLI_INDEX_ZONED || nanos > 999999999u ||
        text_len > CLI_STREAM_TEXT_MAX || end - p - 29 < text_len) {
        ERR("%s: not a state of apportion stream: series %zu's last date is malformed", name, r);
        return -1;
    }
    s->has_last = (int)has_last;
    s->last.kind = (cli_index_kind)kind;
    s->last.seconds = (long long)apo__get_u64(b + p + 5);
    s->last.nanoseconds = (long)nanos;
    s->last.number = apo__get_f64(b + p + 17);
    s->last_text = text_copy(b + p + 29, text_len);
    if (s->last_text == NULL) {
        ERR("%s: not a state of apportion stream: series %zu's last date holds a NUL", name, r);
        return -1;
    }
    *at = p + 29 + text_len;
    return 0;
}

int cli_stream_file_decode(const unsigned char *b, size_t len, const char *name, cli_stream_file *f,
                           char *err, size_t err_size) {
    memset(f, 0, sizeof *f);
    if (len < HEADER_BYTES + 16 || memcmp(b, magic, 8) != 0) {
        ERR("%s: not a state of apportion stream (%zu bytes, no APOSJOB header)", name, len);
        return -1;
    }
    if (apo__get_u32(b + 8) != FORMAT_VERSION) {
        ERR("%s: a state of format version %u; this apportion reads version %u", name,
            apo__get_u32(b + 8), FORMAT_VERSION);
        return -1;
    }
    if (apo__get_u32(b + 12) != 0) {
        ERR("%s: not a state of apportion stream: the reserved field is not 0", name);
        return -1;
    }
    const uint64_t sum = apo__get_u64(b + len - 8), want = apo__fnv1a64(b, len - 8);
    if (sum != want) {
        ERR("%s: corrupt or truncated state: the checksum is %016llx, the bytes give %016llx", name,
            (unsigned long long)sum, (unsigned long long)want);
        return -1;
    }
    const uint64_t n = apo__get_u64(b + 16);
    const size_t end = len - 8;
    /* Each series takes at least its fixed bytes: a count past that cannot be right, and
     * checking it first bounds the allocation by the file's size. */
    if (n == 0 || n > (end - HEADER_BYTES) / SERIES_FIXED_BYTES) {
        ERR("%s: not a state of apportion stream: %llu series in %zu bytes", name,
            (unsigned long long)n, len);
        return -1;
    }
    f->series = calloc((size_t)n, sizeof *f->series);
    if (f->series == NULL) {
        ERR("%s: out of memory for %llu series", name, (unsigned long long)n);
        return -1;
    }
    f->n_series = (size_t)n;
    size_t at = HEADER_BYTES;
    for (size_t r = 0; r < f->n_series; r++) {
        if (decode_series(b, end, &at, &f->series[r], name, r, err, err_size) != 0) {
            cli_stream_file_free(f);
            return -1;
        }
    }
    if (end - at < 8 || apo__get_u64(b + at) != end - at - 8) {
        ERR("%s: not a state of apportion stream: the library state's length does not match "
            "the file's",
            name);
        cli_stream_file_free(f);
        return -1;
    }
    f->stream_len = end - at - 8;
    f->stream = malloc(f->stream_len > 0 ? f->stream_len : 1);
    if (f->stream == NULL) {
        ERR("%s: out of memory for a state of %zu bytes", name, f->stream_len);
        cli_stream_file_free(f);
        return -1;
    }
    memcpy(f->stream, b + at + 8, f->stream_len);
    return 0;
}

/* ---- files ------------------------------------------------------------------------------ */

int cli_stream_file_read(const char *path, unsigned char **buf, size_t *len, char *err,
                         size_t err_size) {
    *buf = NULL;
    *len = 0;
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return 0;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ERR("%s: %s", path, fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    const size_t size = (size_t)st.st_size;
    unsigned char *b = malloc(size > 0 ? size : 1);
    size_t got = 0;
    while (b != NULL && got < size) {
        const ssize_t k = read(fd, b + got, size - got);
        if (k <= 0) {
            ERR("%s: %s", path, k < 0 ? strerror(errno) : "the file shrank while read");
            free(b);
            close(fd);
            return -1;
        }
        got += (size_t)k;
    }
    close(fd);
    if (b == NULL) {
        ERR("%s: out of memory for %zu bytes", path, size);
        return -1;
    }
    *buf = b;
    *len = size;
    return 1;
}

/* The folder of path ("." for a bare name), in out. */
static void folder_of(const char *path, char *out, size_t size) {
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(out, size, ".");
    else if (slash == path)
        snprintf(out, size, "/");
    else
        snprintf(out, size, "%.*s", (int)(slash - path), path);
}

int cli_stream_file_replace(const char *path, const unsigned char *buf, size_t len, char *err,
                            size_t err_size) {
    char temp[PATH_MAX], dir[PATH_MAX];
    if (snprintf(temp, sizeof temp, "%s.new", path) >= (int)sizeof temp) {
        ERR("%s: the path is too long", path);
        return -1;
    }
    /* A FILE.new left by a process killed while writing it is truncated and written again
     * (the lock keeps two jobs from meeting here); a link there is refused, not followed. */
    const int fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        ERR("cannot write %s: %s (the state %s is unchanged)", temp, strerror(errno), path);
        return -1;
    }
    size_t put = 0;
    while (put < len) {
        const ssize_t k = write(fd, buf + put, len - put);
        if (k <= 0)
            break;
        put += (size_t)k;
    }
    const int failed = put < len || fsync(fd) != 0;
    const int saved = errno;
    if (close(fd) != 0 || failed) {
        ERR("cannot write %s: %s (the state %s is unchanged)", temp,
            strerror(failed ? saved : errno), path);
        unlink(temp);
        return -1;
    }
    if (rename(temp, path) != 0) {
        ERR("cannot rename %s to %s: %s (the state is unchanged)", temp, path, strerror(errno));
        unlink(temp);
        return -1;
    }
    /* The rename is durable once the folder is synced; a folder that cannot be opened for
     * that (no read permission) still has the new state in it. */
    folder_of(path, dir, sizeof dir);
    const int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
}

int cli_stream_file_lock(const char *path, char *err, size_t err_size) {
    char lock[PATH_MAX];
    if (snprintf(lock, sizeof lock, "%s.lock", path) >= (int)sizeof lock) {
        ERR("%s: the path is too long", path);
        return -1;
    }
    const int fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        ERR("cannot open the lock %s: %s", lock, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        ERR("%s: %s", lock,
            errno == EWOULDBLOCK ? "another apportion stream works on this state now; wait "
                                   "for it to end"
                                 : strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}
