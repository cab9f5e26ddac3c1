/*
 * The read-modify-write of a profile file, shared by both formats: take the file's lock,
 * read what is there now (setting an unusable file aside as PATH.corrupt), and write the
 * result back atomically before letting go. Private to profiles/.
 */
#ifndef APO_RUNTIME_PROFILES_FILE_UPDATE_H
#define APO_RUNTIME_PROFILES_FILE_UPDATE_H

#include <jansson.h>
#include <stddef.h>

#include "profiles/file_read.h"

/* The state of one read-modify-write of a profile file, between taking its lock and
 * writing it back. */
typedef struct apo__locked_file {
    char target[APO_PATH_MAX]; /* the file written: the path, or the file a link names */
    int lock;                  /* the lock file's descriptor, -1 when not held */
    apo__file_info info;
    const char *aside; /* where an unusable file goes, or NULL */
    char aside_path[APO_PATH_MAX + 16];
    char reason[APO_LABEL_MAX * 4]; /* why it was unusable */
} apo__locked_file;

/* Decides the file to write (write_target.h: through a symbolic link only under the link
 * rule; never a folder, a FIFO or a device, beside which nothing is created), creates its
 * folder, takes its lock (waiting at most 30 s), decides the file again under the lock
 * (it must be the same), clears dead writers' temporary files and reads the current file
 * into `out` in format `f`. An unusable file is to be kept aside (lf->aside) and `out`
 * starts empty; never one that a link names, which is refused. Returns APO_OK with the lock
 * held, or the failure (err says why) with the lock not held and `out` empty. */
apo_status apo__lock_and_read(const char *path, const apo__profile_format *f, void *out,
                              apo__locked_file *lf, char *err, size_t err_size);

/* Writes `root` (which it takes; NULL means it could not be built: out of memory) to
 * lf->target atomically, unless the file would hold more than `max` `what` or more than
 * the limits of a load, and releases the lock. On success notes in err when the old file
 * was kept aside. */
apo_status apo__write_and_unlock(json_t *root, size_t count, size_t max, const char *what,
                                 apo__locked_file *lf, char *err, size_t err_size);

/* Releases the lock when it is held (a failed update's cleanup). */
void apo__unlock(apo__locked_file *lf);

#endif
