/*
 * The state file of `apportion stream` (docs/cli/stream.md, "apportion stream"): the library's
 * saved stream (apo_stream_save(), docs/streaming.md "The state") wrapped with what the tool needs
 * besides: each series' name, and the index (date) of the last bar it was fed, so that a
 * row that is not newer can be refused.
 *
 * The file is written whole to FILE.new, synced, and renamed over FILE, so that FILE is
 * always a complete state: the old one or the new one. It is read back only when all of it
 * checks (magic, version, lengths, checksum); nothing is half-loaded.
 *
 * Depends on libc, POSIX, record_order.h and kernels/common/fnv1a.h only, so that the unit
 * tests link it alone. Functions that can fail return 0, or -1 with a one-line message in err.
 */
#ifndef APO_CLI_STREAM_STATE_FILE_H
#define APO_CLI_STREAM_STATE_FILE_H

#include <stddef.h>

#include "record_order.h"

/* A name or a date text in the file is at most this long. */
#define CLI_STREAM_TEXT_MAX 4096

typedef struct cli_stream_series {
    char *name;         /* the column or group it is read from, or its number */
    int has_last;       /* a dated bar has been fed */
    cli_index_key last; /* that bar's index; kind CLI_INDEX_NONE when it had none */
    char *last_text;    /* its text as read, for messages ("" without one) */
} cli_stream_series;

typedef struct cli_stream_file {
    size_t n_series;
    cli_stream_series *series;
    unsigned char *stream; /* the bytes of apo_stream_save() */
    size_t stream_len;
} cli_stream_file;

/* The state as bytes (malloc'd into *buf, *len long). */
int cli_stream_file_encode(const cli_stream_file *f, unsigned char **buf, size_t *len, char *err,
                           size_t err_size);
/* Reads the bytes of a state file (name in messages) into *f, or refuses them whole: *f is
 * then empty. */
int cli_stream_file_decode(const unsigned char *buf, size_t len, const char *name,
                           cli_stream_file *f, char *err, size_t err_size);
void cli_stream_file_free(cli_stream_file *f);

/* Reads the file at path: 1 with its bytes in *buf (malloc'd), 0 when it does not exist, -1
 * on an error (a folder, unreadable). */
int cli_stream_file_read(const char *path, unsigned char **buf, size_t *len, char *err,
                         size_t err_size);
/* Replaces the file at path by buf whole: written to path.new, synced, renamed, and the
 * folder synced. On failure path is as it was and path.new removed. */
int cli_stream_file_replace(const char *path, const unsigned char *buf, size_t len, char *err,
                            size_t err_size);
/* Takes an exclusive lock (flock) on path.lock, created if missing, so that two jobs never
 * work on one state at once: the lock's descriptor, or -1 (another process holds it, or the
 * file cannot be made). The lock ends with the process. */
int cli_stream_file_lock(const char *path, char *err, size_t err_size);

#endif /* APO_CLI_STREAM_STATE_FILE_H */
