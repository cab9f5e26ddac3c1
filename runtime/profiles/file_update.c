/*
 * The read-modify-write of a profile file (see file_update.h). Writing happens under flock()
 * on a separate `<path>.lock` (the lock file is never renamed or deleted, so every writer
 * locks the same inode), into a temporary file in the same folder that is fsynced and
 * renamed over the target. Readers take no lock: rename is atomic, so they see the old
 * file or the new one, never a mix, and concurrent writers lose nothing since each reads
 * under the lock what the one before it wrote.
 */
#include "profiles/file_update.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "profiles/json_text.h"
#include "profiles/text.h"
#include "profiles/write_target.h"

/* A writer waits at most this long for the lock, so that a stopped process holding it cannot
 * hang the library forever; a killed one releases it at once (flock dies with its holder). */
#define LOCK_TIMEOUT_S 30.0

/* Takes the exclusive lock of `path`, waiting at most LOCK_TIMEOUT_S; returns its fd. */
static apo_status lock_take(const char *path, int *fd_out, char *err, size_t err_size) {
    char lock_path[APO_PATH_MAX + 8], why[128];
    *fd_out = -1;
    if (snprintf(lock_path, sizeof lock_path, "%s.lock", path) >= (int)sizeof lock_path) {
        apo__errf(err, err_size, "%s: path too long for its lock file", path);
        return APO_ERR_IO;
    }
    /* O_NOFOLLOW: a link put in the lock file's place (by whoever can write the folder)
     * must not make this writer create or open a file elsewhere; O_NONBLOCK: nor may a
     * FIFO there block it. */
    int fd =
        open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK, 0600);
    if (fd < 0) {
        int e = errno;
        apo__errf(err, err_size, "cannot open the lock file %s: %s", lock_path,
                  e == ELOOP ? "it is a symbolic link" : apo__errno_text(e, why, sizeof why));
        return APO_ERR_IO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        apo__errf(err, err_size, "cannot use the lock file %s: it is not a regular file",
                  lock_path);
        goto fail;
    }
    double deadline = apo__now() + LOCK_TIMEOUT_S;
    long wait_ns = 1000000;
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        if (e == EINTR)
            continue;
        if (e != EWOULDBLOCK) {
            apo__errf(err, err_size, "cannot lock %s: %s", lock_path,
                      apo__errno_text(e, why, sizeof why));
            goto fail;
        }
        if (apo__now() > deadline) {
            apo__errf(err, err_size,
                      "%s is locked by another process and stayed locked for %.0f s; not written",
                      lock_path, LOCK_TIMEOUT_S);
            goto fail;
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
fail:
    close(fd);
    return APO_ERR_IO;
}

void apo__unlock(apo__locked_file *lf) {
    /* Closing the descriptor releases the lock. */
    if (lf->lock >= 0)
        close(lf->lock);
    lf->lock = -1;
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
    const char *base = apo__split_path(path, dir);
    if (snprintf(tmp, sizeof tmp, "%s/.%s.XXXXXX", dir, base) >= (int)sizeof tmp) {
        apo__errf(err, err_size, "%s: path too long for a temporary file", path);
        return APO_ERR_IO;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        apo__errf(err, err_size, "%s: cannot create a temporary file in %s: %s", path, dir,
                  apo__errno_text(e, why, sizeof why));
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
        apo__errf(err, err_size, "%s: cannot %s the temporary file %s: %s", path, step, tmp,
                  apo__errno_text(e, why, sizeof why));
        goto discard;
    }
    if (aside != NULL) {
        if (unlink(aside) != 0 && errno != ENOENT) {
            e = errno;
        } else if (link(path, aside) != 0 && errno != ENOENT) {
            if (rename(path, aside) != 0 && errno != ENOENT)
                e = errno;
        }
        if (e != 0) {
            apo__errf(err, err_size, "%s: cannot keep the unusable file aside as %s: %s", path,
                      aside, apo__errno_text(e, why, sizeof why));
            goto discard;
        }
    }
    if (rename(tmp, path) != 0) {
        e = errno;
        apo__errf(err, err_size, "%s: cannot rename %s over it: %s", path, tmp,
                  apo__errno_text(e, why, sizeof why));
        goto discard;
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
        apo__errf(err, err_size, "%s: written, but its folder %s could not be synced: %s", path,
                  dir, apo__errno_text(e, why, sizeof why));
        return APO_ERR_IO;
    }
    return APO_OK;
discard:
    unlink(tmp);
    return APO_ERR_IO;
}

/* Dumps `root` (taking it; NULL means it could not be built) and writes it atomically,
 * unless the text is over the size a load accepts: a file written must read back. */
static apo_status write_profile(const char *path, json_t *root, const apo__file_info *info,
                                const char *aside, char *err, size_t err_size) {
    size_t len = 0;
    char *text = root != NULL ? apo__json_dump(root, &len) : NULL;
    json_decref(root);
    if (text == NULL) {
        apo__errf(err, err_size, "%s: out of memory", path);
        return APO_ERR_OUT_OF_MEMORY;
    }
    apo_status st;
    size_t values = 0;
    if (len > APO_PROFILE_FILE_MAX) {
        st = APO_ERR_INVALID_ARGUMENT;
        apo__errf(err, err_size,
                  "%s: would be %zu bytes, more than the %u a profile may be; not written", path,
                  len, (unsigned)APO_PROFILE_FILE_MAX);
    } else if ((values = apo__json_count_values(text, len)) > APO_PROFILE_VALUES_MAX) {
        st = APO_ERR_INVALID_ARGUMENT;
        apo__errf(err, err_size,
                  "%s: would hold about %zu JSON values, more than the %u a profile may hold; "
                  "not written",
                  path, values, APO_PROFILE_VALUES_MAX);
    } else {
        st = write_atomic(path, text, len, info->exists ? info->mode : 0, aside, err, err_size);
    }
    free(text);
    return st;
}

/* Removes the temporary files (`.<name>.XXXXXX`, as write_atomic makes them) that writers
 * killed between creating and renaming them left in the folder of `path`. Called with the
 * lock held: every live writer of `path` holds the lock while its temporary file exists, so
 * any such file now is a dead writer's. Failures are ignored; the files are only clutter. */
static void sweep_dead_temporaries(const char *path) {
    char dir[APO_PATH_MAX], prefix[APO_PATH_MAX + 2];
    const char *base = apo__split_path(path, dir);
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

apo_status apo__lock_and_read(const char *path, const apo__profile_format *f, void *out,
                              apo__locked_file *lf, char *err, size_t err_size) {
    lf->lock = -1;
    lf->aside = NULL;
    memset(out, 0, f->size);
    int through_link;
    apo_status st = apo__write_target(path, f, lf->target, &through_link, err, err_size);
    if (st != APO_OK)
        return st;
    /* Through a link, the target's folder exists already (write_target.h); only a path of
     * the user's own gets its missing folders. */
    if (!through_link && (st = apo__profile_make_dir(lf->target, err, err_size)) != APO_OK)
        return st;
    if ((st = lock_take(lf->target, &lf->lock, err, err_size)) != APO_OK)
        return st;
    /* The path may have changed while the lock was taken (a link put in its place, or
     * moved): it is decided again under the lock, and must name the file locked. */
    char again[APO_PATH_MAX];
    st = apo__write_target(path, f, again, &through_link, err, err_size);
    if (st == APO_OK && strcmp(again, lf->target) != 0) {
        apo__errf(err, err_size,
                  "%s changed while its lock was taken (it now names %s, not %s); nothing "
                  "written",
                  path, again, lf->target);
        st = APO_ERR_IO;
    }
    if (st != APO_OK) {
        apo__unlock(lf);
        return st;
    }
    const char *target = lf->target;
    sweep_dead_temporaries(target);
    /* The target is no link (decided above, under the lock); one put there since is not
     * read, and the rename below replaces whatever entry is there, never what it names. */
    st = apo__profile_read_no_link(f, target, out, &lf->info, lf->reason, sizeof lf->reason);
    /* A file valid in no format (apportion's, or ThreadX's shape read as apportion reads
     * it) is unusable whoever wrote it: left in place it would fail every write for good (a
     * scheduled job's every run), so it is kept aside whole as an unusable file of
     * apportion's own is (docs/profiles.md, "An unusable file"). */
    const int unusable = st != APO_OK && (lf->info.fault == APO_READ_BAD_CONTENT ||
                                          lf->info.fault == APO_READ_FOREIGN);
    /* A file that a link names is never set aside: it read as a profile just above, so if
     * it is unusable now someone else changed it since, and it is left to them. */
    if (unusable && through_link) {
        apo__unlock(lf);
        apo__errf(err, err_size,
                  "%s is a symbolic link to %s, which is no longer a %s profile; nothing "
                  "written: %s",
                  path, target, f->default_name, lf->reason);
        return APO_ERR_IO;
    }
    if (unusable) {
        snprintf(lf->aside_path, sizeof lf->aside_path, "%s.corrupt", target);
        lf->aside = lf->aside_path;
        memset(out, 0, f->size);
        return APO_OK;
    }
    if (st != APO_OK) {
        apo__unlock(lf);
        apo__errf(err, err_size, "%s", lf->reason);
    }
    return st;
}

apo_status apo__write_and_unlock(json_t *root, size_t count, size_t max, const char *what,
                                 apo__locked_file *lf, char *err, size_t err_size) {
    apo_status st;
    if (count > max) {
        json_decref(root);
        st = APO_ERR_INVALID_ARGUMENT;
        apo__errf(err, err_size,
                  "%s: would hold %zu %s, more than the %zu a file may hold; not written",
                  lf->target, count, what, max);
    } else {
        st = write_profile(lf->target, root, &lf->info, lf->aside, err, err_size);
    }
    apo__unlock(lf);
    /* The note left in err when an unusable file was set aside, with the reason it was. */
    if (st == APO_OK && lf->aside != NULL)
        apo__errf(err, err_size, "kept the unusable file aside as %s and started afresh: %s",
                  lf->aside, lf->reason);
    return st;
}
