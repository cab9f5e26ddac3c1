/*
 * What the profile targets check alike: a refusal of either file (fuzz_multigpu.c,
 * fuzz_thresholds.c), as the loaders promise the same error contract for both; and a
 * threshold key that parsed, whether it came from a file (fuzz_thresholds.c) or alone
 * (fuzz_profile_strings.c).
 */
#ifndef APO_FUZZ_PROFILE_H
#define APO_FUZZ_PROFILE_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "apportion.h"
#include "fuzz_check.h"
#include "profiles/profile_store.h"

/* A refused profile named `name`: a parse error (or out of memory) whose message starts
 * with the name, says why after it, and holds no control byte. */
static inline void fuzz_check_profile_refusal(apo_status st, const char *err, const char *name) {
    const size_t n = strlen(name);
    FUZZ_CHECK(st == APO_ERR_INVALID_ARGUMENT || st == APO_ERR_OUT_OF_MEMORY, "status %d", st);
    FUZZ_CHECK(strncmp(err, name, n) == 0 && strncmp(err + n, ": ", 2) == 0 && err[n + 2] != '\0',
               "message does not name the file and say why: \"%s\"", err);
    FUZZ_CHECK(fuzz_printable(err), "message holds a control byte: \"%s\"", err);
}

/* A function or parameter name: 1 to APO_NAME_MAX-1 letters, digits and underscores. */
static inline int fuzz_valid_name(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n >= APO_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return 0;
    return 1;
}

/* The parts apo__threshold_key_parse() read from `key`: a valid function name, at most
 * APO_MAX_PARAMS + 1 distinct, sorted, valid names other than 'size' with finite values,
 * and the size as the key holds it. */
static inline void fuzz_check_key_parts(const char *key, const apo__threshold_key_parts *parts) {
    FUZZ_CHECK(fuzz_valid_name(parts->function), "%s: function \"%s\"", key, parts->function);
    FUZZ_CHECK(parts->n_params <= APO_MAX_PARAMS + 1, "%s: %zu params", key, parts->n_params);
    for (size_t p = 0; p < parts->n_params; p++) {
        FUZZ_CHECK(fuzz_valid_name(parts->names[p]) && strcmp(parts->names[p], "size") != 0,
                   "%s: name \"%s\"", key, parts->names[p]);
        FUZZ_CHECK(isfinite(parts->values[p]), "%s: value %g", key, parts->values[p]);
        if (p > 0)
            FUZZ_CHECK(strcmp(parts->names[p - 1], parts->names[p]) < 0, "%s: names unsorted", key);
    }
    char size[48];
    snprintf(size, sizeof size, "'size': %" PRIu64, parts->samples);
    FUZZ_CHECK(strstr(key, size) != NULL, "%s: size %" PRIu64 " not in the key", key,
               parts->samples);
}

#endif
