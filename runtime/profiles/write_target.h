/*
 * The file a write of a profile path replaces, and whether it may be written at all
 * (docs/profiles.md, "Symbolic links"): the path itself when it is a regular file or
 * missing; the file a symbolic link names only under the link rule; never a folder, a FIFO
 * or a device. Nothing here creates, writes or renames anything, so that a refused path
 * is left exactly as it was, with no lock file beside it. Private to profiles/.
 */
#ifndef APO_RUNTIME_PROFILES_WRITE_TARGET_H
#define APO_RUNTIME_PROFILES_WRITE_TARGET_H

#include <stddef.h>

#include "profiles/file_read.h"

/* A chain of symbolic links longer than this is refused, as the system's ELOOP does. */
#define APO_LINKS_FOLLOWED_MAX 40

/* Writes the folder of `path` into `dir` ("." or "/" where that is all it has) and returns
 * the file's own name within it. */
const char *apo__split_path(const char *path, char dir[APO_PATH_MAX]);

/* Decides the file that a write of `path` in format `f` replaces and writes it into
 * `target`; *through_link says whether a symbolic link was followed to it.
 *  - `path` missing or a regular file: target = path.
 *  - `path` a symbolic link (or a chain of them): followed only when every link, and the
 *    folder holding it, belong to the user writing (the effective uid), and the file at the
 *    end is missing, in a folder that exists, or a regular file that reads as a profile of
 *    format `f`. target is then that file, its folder resolved (realpath).
 *  - anything else (a folder, a FIFO, a device, a socket) is refused.
 * Returns APO_OK, or APO_ERR_IO with err naming the path and the reason (APO_ERR_OUT_OF_MEMORY
 * when a profile could not be read for lack of memory). */
apo_status apo__write_target(const char *path, const apo__profile_format *f,
                             char target[APO_PATH_MAX], int *through_link, char *err,
                             size_t err_size);

#endif
