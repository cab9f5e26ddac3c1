/*
 * Fuzz target: the two string grammars inside the profile files, reached from a file's
 * content without JSON around them, so that the fuzzer works on their bytes directly:
 * - threshold keys, "<function>:{'<name>': <value>, ..., 'size': <samples>}", which
 *   apo__threshold_key_parse() reads for every thresholds.json entry (apo_should_use_gpu());
 * - timestamps, "YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)", which
 *   apo__timestamp_parse() reads from every updated_at.
 * The input is one C string (up to its first NUL), given to both.
 *
 * Checked beyond "no crash, no leak":
 * - a key that parses has a valid function name, at most APO_MAX_PARAMS + 1 distinct,
 *   sorted, valid names other than 'size' with finite values, holds its size, and builds
 *   back (apo__threshold_key) to exactly the input;
 * - a timestamp parses to -1 or to a finite time >= 0 whose canonical form (whole seconds,
 *   UTC) parses back to the same whole second; a text without a 'Z' or an offset, or of
 *   fewer than 20 bytes, does not parse.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_check.h"
#include "fuzz_profile.h"
#include "profiles/profile_store.h"

static void check_key(const char *text) {
    apo__threshold_key_parts parts;
    /* After a refusal the parts are unspecified (profile_store.h): nothing to check. */
    if (apo__threshold_key_parse(text, &parts) != APO_OK)
        return;
    FUZZ_CHECK(strlen(text) < APO_THRESHOLD_KEY_MAX, "a key of %zu bytes parsed", strlen(text));
    fuzz_check_key_parts(text, &parts);
    const char *names[APO_MAX_PARAMS + 1];
    for (size_t p = 0; p < parts.n_params; p++)
        names[p] = parts.names[p];
    char again[APO_THRESHOLD_KEY_MAX];
    FUZZ_CHECK(apo__threshold_key(again, parts.function, names, parts.values, parts.n_params,
                                  parts.samples) == APO_OK,
               "parts of a parsed key do not build a key");
    FUZZ_CHECK(strcmp(again, text) == 0, "key \"%s\" builds back as \"%s\"", text, again);
}

static void check_timestamp(const char *text) {
    double t = apo__timestamp_parse(text);
    if (t == -1) {
        return;
    }
    FUZZ_CHECK(isfinite(t) && t >= 0, "timestamp parsed to %g", t);
    /* The shortest form is "YYYY-MM-DDTHH:MM" (ThreadX's seconds are optional); it ends in
     * its zone (Z, or the digits of +HH:MM, +HHMM, +HH) or, zone-less (local time), in a
     * digit of the time. */
    size_t len = strlen(text);
    FUZZ_CHECK(len >= 16, "a %zu-byte timestamp parsed", len);
    const char last = text[len - 1];
    FUZZ_CHECK(last == 'Z' || last == 'z' || (last >= '0' && last <= '9'),
               "timestamp \"%s\" ending in '%c' parsed", text, last);
    char canonical[APO_TIMESTAMP_MAX];
    apo__timestamp_format(t, canonical, sizeof canonical);
    if (canonical[0] == '\0') {
        /* Only a time past year 9999 has no four-digit form. */
        FUZZ_CHECK(t >= 253402300800.0, "time %.17g has no canonical form", t);
        return;
    }
    FUZZ_CHECK(strlen(canonical) == 20, "canonical form \"%s\"", canonical);
    FUZZ_CHECK(apo__timestamp_parse(canonical) == floor(t), "\"%s\" -> %.17g -> \"%s\" -> %.17g",
               text, t, canonical, apo__timestamp_parse(canonical));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_string(data, size);
    check_key(text);
    check_timestamp(text);
    free(text);
    return 0;
}
