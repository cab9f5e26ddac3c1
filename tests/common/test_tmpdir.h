/*
 * The folder tests make their temporary files and folders in: TMPDIR, which scripts/test.sh
 * sets to a private folder and checks is empty afterwards, else /tmp.
 */
#ifndef APO_TEST_TMPDIR_H
#define APO_TEST_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline const char *test_tmpdir(void) {
    const char *tmp = getenv("TMPDIR");
    return tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp";
}

/* Writes `text` to a new file in test_tmpdir(), whose path goes to path[size]. Returns 0, or
 * -1 when the file could not be made or written (the caller asserts). */
static inline int test_tmpfile_with(const char *text, char *path, size_t size) {
    snprintf(path, size, "%s/apo-test-XXXXXX", test_tmpdir());
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "w");
    if (f == NULL) {
        close(fd);
        return -1;
    }
    int ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}

#endif
