/*
 * The file a write of a profile path replaces (see write_target.h). A profile may be
 * written by a privileged, unattended job (a root cron job re-profiling a machine) in a
 * folder that others can write. Following any symbolic link there would let anyone who
 * can place a link make that job replace any file on the system, or create one anywhere.
 * So a link is followed for writing only in the manner of the kernel's protected_symlinks:
 * when the link and the folder holding it belong to the user writing, so that nobody else
 * can have placed it; and only to a file that is an apportion profile of the kind written,
 * or to none yet, so that even a link of one's own never has a foreign file replaced.
 * Reads still follow any link: reading a file changes nothing.
 */
/* realpath() is an X/Open function, beyond the project's _POSIX_C_SOURCE. */
#define _XOPEN_SOURCE 700

#include "profiles/write_target.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profiles/profile_store.h"
#include "profiles/text.h"

const char *apo__split_path(const char *path, char dir[APO_PATH_MAX]) {
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(dir, APO_PATH_MAX, ".");
    else if (slash == path)
        snprintf(dir, APO_PATH_MAX, "/");
    else
        snprintf(dir, APO_PATH_MAX, "%.*s", (int)(slash - path), path);
    return slash != NULL ? slash + 1 : path;
}

/* What a file that is not a regular one is, for messages. */
static const char *kind_of(mode_t mode) {
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISLNK(mode))
        return "a symbolic link";
    return "not a regular file";
}

/* The link `link` may be followed by this user: the link and the folder holding it are
 * the user's. `st` is the link's lstat. */
static apo_status check_link_owner(const char *path, const char *link, const struct stat *st,
                                   char *err, size_t err_size) {
    char dir[APO_PATH_MAX], why[128];
    uid_t me = geteuid();
    if (st->st_uid != me) {
        apo__errf(err, err_size,
                  "%s: the symbolic link %s belongs to uid %lu, not to uid %lu who is writing; "
                  "not followed for writing, nothing written",
                  path, link, (unsigned long)st->st_uid, (unsigned long)me);
        return APO_ERR_IO;
    }
    apo__split_path(link, dir);
    struct stat dst;
    if (stat(dir, &dst) != 0) {
        int e = errno;
        apo__errf(err, err_size, "%s: cannot examine %s, the folder of the symbolic link %s: %s",
                  path, dir, link, apo__errno_text(e, why, sizeof why));
        return APO_ERR_IO;
    }
    if (dst.st_uid != me) {
        apo__errf(err, err_size,
                  "%s: the symbolic link %s is in %s, a folder of uid %lu, not of uid %lu who is "
                  "writing; not followed for writing, nothing written",
                  path, link, dir, (unsigned long)dst.st_uid, (unsigned long)me);
        return APO_ERR_IO;
    }
    return APO_OK;
}

/* Follows the chain of links from `path` under the owner rule; writes where it ends into
 * `end` (a name that does not exist, or is no link) and the number of links into *links. */
static apo_status follow_links(const char *path, char end[APO_PATH_MAX], int *links, char *err,
                               size_t err_size) {
    char why[128], dir[APO_PATH_MAX], to[APO_PATH_MAX];
    snprintf(end, APO_PATH_MAX, "%s", path);
    for (*links = 0;; (*links)++) {
        struct stat st;
        if (lstat(end, &st) != 0) {
            int e = errno;
            /* A missing file is what a first write creates; other errors (a folder that is
             * a file, permissions) are left for the steps that create or open it, which
             * say so, unless a link led here. */
            if (e == ENOENT || *links == 0)
                return APO_OK;
            apo__errf(err, err_size, "%s: cannot examine %s, which its symbolic link names: %s",
                      path, end, apo__errno_text(e, why, sizeof why));
            return APO_ERR_IO;
        }
        if (!S_ISLNK(st.st_mode))
            return APO_OK;
        if (*links == APO_LINKS_FOLLOWED_MAX) {
            apo__errf(err, err_size,
                      "%s: more than %d symbolic links in a row; not followed, nothing written",
                      path, APO_LINKS_FOLLOWED_MAX);
            return APO_ERR_IO;
        }
        apo_status status = check_link_owner(path, end, &st, err, err_size);
        if (status != APO_OK)
            return status;
        ssize_t n = readlink(end, to, sizeof to);
        if (n < 0 || (size_t)n >= sizeof to) {
            int e = n < 0 ? errno : ENAMETOOLONG;
            apo__errf(err, err_size, "%s: cannot read the symbolic link %s: %s", path, end,
                      apo__errno_text(e, why, sizeof why));
            return APO_ERR_IO;
        }
        to[n] = '\0';
        /* A relative link is relative to the folder that holds it. */
        apo__split_path(end, dir);
        int fits = to[0] == '/' ? snprintf(end, APO_PATH_MAX, "%s", to) < APO_PATH_MAX
                                : snprintf(end, APO_PATH_MAX, "%s/%s", dir, to) < APO_PATH_MAX;
        if (!fits) {
            apo__errf(err, err_size, "%s: the file its link names has a path longer than %d bytes",
                      path, APO_PATH_MAX - 1);
            return APO_ERR_IO;
        }
    }
}

/* `end`, the file a chain of links named, with its folder resolved: the name the lock and
 * the temporary file are made beside. Its folder must exist: apportion does not guess
 * which folder a link to nowhere meant. */
static apo_status resolve_folder(const char *path, const char *end, char target[APO_PATH_MAX],
                                 char *err, size_t err_size) {
    char dir[APO_PATH_MAX], why[128];
    const char *base = apo__split_path(end, dir);
    char *real = realpath(dir, NULL);
    if (real == NULL) {
        int e = errno;
        apo__errf(err, err_size,
                  "%s is a symbolic link whose target cannot be resolved (%s: %s); nothing "
                  "written",
                  path, dir, apo__errno_text(e, why, sizeof why));
        return APO_ERR_IO;
    }
    int fits = snprintf(target, APO_PATH_MAX, "%s%s%s", real, strcmp(real, "/") == 0 ? "" : "/",
                        base) < APO_PATH_MAX;
    free(real);
    if (!fits) {
        apo__errf(err, err_size, "%s: the file its link names has a path longer than %d bytes",
                  path, APO_PATH_MAX - 1);
        return APO_ERR_IO;
    }
    return APO_OK;
}

/* A file a link named may be replaced only when it reads as a profile of format `f`. */
static apo_status check_is_profile(const char *path, const char *target,
                                   const apo__profile_format *f, char *err, size_t err_size) {
    /* Large enough for either format's struct. */
    union {
        apo__multigpu multigpu;
        apo__thresholds thresholds;
    } contents;
    char reason[APO_LABEL_MAX * 2];
    apo__file_info info;
    if (f->size > sizeof contents) {
        apo__errf(err, err_size, "%s: internal error: unknown profile format", path);
        return APO_ERR_IO;
    }
    apo_status st = apo__profile_read_no_link(f, target, &contents, &info, reason, sizeof reason);
    if (st == APO_OK) {
        f->release(&contents);
        return APO_OK;
    }
    if (st == APO_ERR_OUT_OF_MEMORY) {
        apo__errf(err, err_size, "%s: %s", path, reason);
        return st;
    }
    apo__errf(err, err_size,
              "%s is a symbolic link to %s, which is not a %s profile, so it is not replaced "
              "(nothing written): %s",
              path, target, f->default_name, reason);
    return APO_ERR_IO;
}

apo_status apo__write_target(const char *path, const apo__profile_format *f,
                             char target[APO_PATH_MAX], int *through_link, char *err,
                             size_t err_size) {
    char end[APO_PATH_MAX];
    int links = 0;
    *through_link = 0;
    target[0] = '\0';
    if (!apo__fits(path, APO_PATH_MAX)) {
        apo__errf(err, err_size, "profile path longer than %d bytes", APO_PATH_MAX - 1);
        return APO_ERR_IO;
    }
    apo_status st = follow_links(path, end, &links, err, err_size);
    if (st != APO_OK)
        return st;
    if (links == 0)
        snprintf(target, APO_PATH_MAX, "%s", path);
    else if ((st = resolve_folder(path, end, target, err, err_size)) != APO_OK)
        return st;
    *through_link = links > 0;

    struct stat ts;
    if (lstat(target, &ts) != 0)
        return APO_OK; /* missing, or an error the steps that create or open it report */
    if (!S_ISREG(ts.st_mode)) {
        /* Refused before its lock file is made: nothing is created beside it. */
        if (links == 0)
            apo__errf(err, err_size, "%s: is %s, not a profile file; nothing written", path,
                      kind_of(ts.st_mode));
        else
            apo__errf(err, err_size,
                      "%s is a symbolic link to %s, which is %s, not a profile file; nothing "
                      "written",
                      path, target, kind_of(ts.st_mode));
        return APO_ERR_IO;
    }
    return links > 0 ? check_is_profile(path, target, f, err, err_size) : APO_OK;
}
