/*
 * Reading a profile (see file_read.h). A profile is outside input, and a file in its place
 * may be anything: a FIFO, a folder, a file of gigabytes, a file that grows while it is
 * read. Each of these is refused with a reason before the parser sees it, and a text in
 * memory goes through the same limits and checks as a file.
 */
#include "profiles/file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profiles/json_text.h"
#include "profiles/text.h"

/* Reads the open file `fd` whole into a malloc'ed *text of *len bytes, once it is known to
 * be a regular file within the size limit (which it records in info). */
static apo_status read_open_file(int fd, const char *path, char **text, size_t *len,
                                 apo__file_info *info, char *err, size_t err_size) {
    char why[128];
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        info->fault = APO_READ_UNREADABLE;
        apo__errf(err, err_size, "%s: cannot stat: %s", path, apo__errno_text(e, why, sizeof why));
        return APO_ERR_IO;
    }
    if (!S_ISREG(st.st_mode)) {
        info->fault = APO_READ_UNREADABLE;
        apo__errf(err, err_size, "%s: is %s, not a profile file", path,
                  S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
        return APO_ERR_IO;
    }
    info->exists = 1;
    info->mode = st.st_mode & 0777;
    if ((uint64_t)st.st_size > APO_PROFILE_FILE_MAX) {
        info->fault = APO_READ_BAD_CONTENT;
        apo__errf(err, err_size,
                  "%s: is %lld bytes, larger than the %u-byte limit of a profile; refused", path,
                  (long long)st.st_size, (unsigned)APO_PROFILE_FILE_MAX);
        return APO_ERR_IO;
    }
    /* The file may change size under us (only a hostile or foreign writer would do that, ours
     * rename); the buffer grows, still within the limit. */
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(cap);
    if (buf == NULL) {
        apo__errf(err, err_size, "%s: out of memory reading %zu bytes", path, cap);
        return APO_ERR_OUT_OF_MEMORY;
    }
    apo_status status;
    for (;;) {
        if (n == cap) {
            if (cap > APO_PROFILE_FILE_MAX) {
                info->fault = APO_READ_BAD_CONTENT;
                apo__errf(err, err_size, "%s: grew past the %u-byte limit of a profile; refused",
                          path, (unsigned)APO_PROFILE_FILE_MAX);
                status = APO_ERR_IO;
                goto fail;
            }
            size_t ncap =
                cap * 2 > (size_t)APO_PROFILE_FILE_MAX + 1 ? APO_PROFILE_FILE_MAX + 1 : cap * 2;
            char *nbuf = realloc(buf, ncap);
            if (nbuf == NULL) {
                apo__errf(err, err_size, "%s: out of memory reading it", path);
                status = APO_ERR_OUT_OF_MEMORY;
                goto fail;
            }
            buf = nbuf, cap = ncap;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            info->fault = APO_READ_UNREADABLE;
            apo__errf(err, err_size, "%s: cannot read: %s", path,
                      apo__errno_text(e, why, sizeof why));
            status = APO_ERR_IO;
            goto fail;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    *text = buf;
    *len = n;
    return APO_OK;
fail:
    free(buf);
    return status;
}

/* Reads `path` whole and parses it. APO_OK with *root, or with info->missing and no root.
 * `extra_flags` is added to open()'s flags (O_NOFOLLOW for a writer). */
static apo_status read_json(const char *path, int extra_flags, json_t **root, apo__file_info *info,
                            char *err, size_t err_size) {
    char why[128];
    *root = NULL;
    memset(info, 0, sizeof *info);
    /* O_NONBLOCK: opening a FIFO put in the file's place must not block the caller. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | extra_flags);
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT) {
            info->missing = 1;
            return APO_OK;
        }
        info->fault = APO_READ_UNREADABLE;
        apo__errf(err, err_size, "%s: cannot open: %s", path, apo__errno_text(e, why, sizeof why));
        return APO_ERR_IO;
    }
    char *text = NULL;
    size_t len = 0;
    apo_status st = read_open_file(fd, path, &text, &len, info, err, err_size);
    close(fd);
    if (st != APO_OK)
        return st;

    size_t values = apo__json_count_values(text, len);
    if (values > APO_PROFILE_VALUES_MAX) {
        free(text);
        info->fault = APO_READ_BAD_CONTENT;
        apo__errf(err, err_size,
                  "%s: holds about %zu JSON values, more than the %u a profile may hold; "
                  "refused",
                  path, values, APO_PROFILE_VALUES_MAX);
        return APO_ERR_INVALID_ARGUMENT;
    }
    *root = apo__json_parse(path, text, len, err, err_size);
    free(text);
    if (*root == NULL) {
        info->fault = APO_READ_BAD_CONTENT;
        return APO_ERR_INVALID_ARGUMENT;
    }
    return APO_OK;
}

/* Checks a parsed profile into *out (left empty on failure) and releases root. */
static apo_status from_root(const apo__profile_format *f, const char *name, json_t *root, void *out,
                            char *err, size_t err_size) {
    apo__field_ctx v = {name, err, err_size};
    apo_status st = f->from_json(&v, root, out);
    json_decref(root);
    if (st != APO_OK)
        f->release(out);
    return st;
}

static apo_status read_profile(const apo__profile_format *f, const char *path, int extra_flags,
                               void *out, apo__file_info *info, char *err, size_t err_size) {
    memset(out, 0, f->size);
    json_t *root;
    apo_status st = read_json(path, extra_flags, &root, info, err, err_size);
    if (st != APO_OK || info->missing)
        return st;
    const int foreign = json_is_object(root) && json_object_get(root, "format") == NULL;
    st = from_root(f, path, root, out, err, err_size);
    if (st != APO_OK)
        info->fault = foreign ? APO_READ_FOREIGN : APO_READ_BAD_CONTENT;
    return st;
}

apo_status apo__profile_read(const apo__profile_format *f, const char *path, void *out,
                             apo__file_info *info, char *err, size_t err_size) {
    return read_profile(f, path, 0, out, info, err, err_size);
}

apo_status apo__profile_read_no_link(const apo__profile_format *f, const char *path, void *out,
                                     apo__file_info *info, char *err, size_t err_size) {
    return read_profile(f, path, O_NOFOLLOW, out, info, err, err_size);
}

apo_status apo__profile_load(const apo__profile_format *f, const char *path, void *out,
                             int *missing, char *err, size_t err_size) {
    apo__errf(err, err_size, "%s", "");
    if (missing != NULL)
        *missing = 0;
    if (out == NULL || path == NULL) {
        apo__errf(err, err_size, "profile load: NULL argument");
        return APO_ERR_INVALID_ARGUMENT;
    }
    apo__file_info info;
    apo_status st = apo__profile_read(f, path, out, &info, err, err_size);
    if (missing != NULL)
        *missing = info.missing;
    return st;
}

apo_status apo__profile_parse(const apo__profile_format *f, const char *name, const char *text,
                              size_t len, void *out, char *err, size_t err_size) {
    apo__errf(err, err_size, "%s", "");
    if (out == NULL || (text == NULL && len > 0)) {
        apo__errf(err, err_size, "profile parse: NULL argument");
        return APO_ERR_INVALID_ARGUMENT;
    }
    memset(out, 0, f->size);
    name = name != NULL ? name : f->default_name;
    /* A text in memory gets the size limit of a file, then the same parse and checks. */
    if (len > APO_PROFILE_FILE_MAX) {
        apo__errf(err, err_size,
                  "%s: is %zu bytes, larger than the %u-byte limit of a profile; refused", name,
                  len, (unsigned)APO_PROFILE_FILE_MAX);
        return APO_ERR_INVALID_ARGUMENT;
    }
    json_t *root =
        apo__json_parse(name, text != NULL ? text : "", text != NULL ? len : 0, err, err_size);
    if (root == NULL)
        return APO_ERR_INVALID_ARGUMENT;
    return from_root(f, name, root, out, err, err_size);
}
