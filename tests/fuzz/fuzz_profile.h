/*
 * What the two profile targets (fuzz_multigpu.c, fuzz_thresholds.c) check alike on a
 * refusal: the loaders promise the same error contract for both files.
 */
#ifndef APO_FUZZ_PROFILE_H
#define APO_FUZZ_PROFILE_H

#include "apportion.h"
#include "fuzz_check.h"

/* A refused profile named `name`: a parse error (or out of memory) whose message starts
 * with the name, says why after it, and holds no control byte. */
static inline void fuzz_check_profile_refusal(apo_status st, const char *err, const char *name) {
    const size_t n = strlen(name);
    FUZZ_CHECK(st == APO_ERR_INVALID_ARGUMENT || st == APO_ERR_OUT_OF_MEMORY, "status %d", st);
    FUZZ_CHECK(strncmp(err, name, n) == 0 && strncmp(err + n, ": ", 2) == 0 && err[n + 2] != '\0',
               "message does not name the file and say why: \"%s\"", err);
    FUZZ_CHECK(fuzz_printable(err), "message holds a control byte: \"%s\"", err);
}

#endif
