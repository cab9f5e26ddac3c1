/*
 * The folder tests make their temporary files and folders in: TMPDIR, which scripts/test.sh
 * sets to a private folder and checks is empty afterwards, else /tmp.
 */
#ifndef APO_TEST_TMPDIR_H
#define APO_TEST_TMPDIR_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Makes a private folder test_tmpdir()/PREFIX-XXXXXX, whose path goes to dir[size]. Returns 0,
 * or -1 when it could not be made (the caller asserts). */
static inline int test_make_dir(const char *prefix, char *dir, size_t size) {
    snprintf(dir, size, "%s/%s-XXXXXX", test_tmpdir(), prefix);
    return mkdtemp(dir) != NULL ? 0 : -1;
}

/* Removes the folder at path with everything below it. Returns 0, or -1 when something could
 * not be removed (the caller asserts: a folder left in TMPDIR fails the run). */
static inline int test_remove_tree(const char *path) {
    DIR *d = opendir(path);
    if (d == NULL)
        return -1;
    int ok = 1;
    const struct dirent *e;
    char below[4096];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        const int len = snprintf(below, sizeof below, "%s/%s", path, e->d_name);
        if (len < 0 || (size_t)len >= sizeof below ||
            (unlink(below) != 0 && test_remove_tree(below) != 0))
            ok = 0;
    }
    closedir(d);
    return ok && rmdir(path) == 0 ? 0 : -1;
}

#endif
