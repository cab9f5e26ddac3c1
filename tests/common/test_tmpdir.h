/*
 * The folder tests make their temporary files and folders in: TMPDIR, which scripts/test.sh
 * sets to a private folder and checks is empty afterwards, else /tmp.
 */
#ifndef APO_TEST_TMPDIR_H
#define APO_TEST_TMPDIR_H

#include <stdlib.h>

static inline const char *test_tmpdir(void) {
    const char *tmp = getenv("TMPDIR");
    return tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp";
}

#endif
