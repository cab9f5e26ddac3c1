/*
 * Reading a profile, from a file or from a text in memory, through the format it holds:
 * the size and value-count limits, the JSON parse, then the format's own checks. What a
 * failed read tells a writer (left alone, or set aside) is in apo__file_info. Private to
 * profiles/.
 */
#ifndef APO_RUNTIME_PROFILES_FILE_READ_H
#define APO_RUNTIME_PROFILES_FILE_READ_H

#include <jansson.h>
#include <stddef.h>
#include <sys/types.h>

#include "profiles/json_fields.h"

/* Why a read failed, so that a writer knows whether it may set the file aside. */
typedef enum apo__read_fault {
    APO_READ_FAULT_NONE = 0,
    APO_READ_UNREADABLE,  /* could not be read (permissions, a folder, an I/O error): left alone */
    APO_READ_BAD_CONTENT, /* read, but unusable (too large, not JSON, invalid): set aside */
    APO_READ_FOREIGN      /* a JSON object without apportion's "format" (ThreadX's shape, or
                             another program's) that could not be read: left alone, since it
                             is someone else's file and the write does not need it gone */
} apo__read_fault;

typedef struct apo__file_info {
    int missing;
    int exists;
    mode_t mode; /* permission bits of the existing file */
    apo__read_fault fault;
} apo__file_info;

/* One of the two formats, as reading needs it (multigpu_format.h, thresholds_format.h). */
typedef struct apo__profile_format {
    const char *default_name; /* what messages call an in-memory text given no name */
    size_t size;              /* of the struct a read fills */
    /* Checks a parsed file and fills `out` (left for `release` on failure). */
    apo_status (*from_json)(const apo__field_ctx *v, const json_t *root, void *out);
    /* Frees what `out` holds and empties it. */
    void (*release)(void *out);
} apo__profile_format;

/* Reads the file `path` into `out` (emptied first; empty again on failure). APO_OK with
 * info->missing when there is no file. Otherwise APO_ERR_IO (unreadable, too large),
 * APO_ERR_INVALID_ARGUMENT (not JSON, too many values, refused by the format) or
 * APO_ERR_OUT_OF_MEMORY, with err saying why and info->fault saying which kind. */
apo_status apo__profile_read(const apo__profile_format *f, const char *path, void *out,
                             apo__file_info *info, char *err, size_t err_size);

/* As apo__profile_read, but a symbolic link at `path` itself is not followed: it fails with
 * APO_ERR_IO (ELOOP, info->fault APO_READ_UNREADABLE). For a writer, which has resolved the
 * path it replaces already (write_target.h), so that a link put there since is not read. */
apo_status apo__profile_read_no_link(const apo__profile_format *f, const char *path, void *out,
                                     apo__file_info *info, char *err, size_t err_size);

/* A public load (apo__multigpu_load, apo__thresholds_load): arguments checked, the file
 * read, and whether it was missing. */
apo_status apo__profile_load(const apo__profile_format *f, const char *path, void *out,
                             int *missing, char *err, size_t err_size);

/* A public parse of a text in memory (apo__multigpu_parse, apo__thresholds_parse). */
apo_status apo__profile_parse(const apo__profile_format *f, const char *name, const char *text,
                              size_t len, void *out, char *err, size_t err_size);

#endif
