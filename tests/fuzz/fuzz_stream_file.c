/*
 * Fuzz target: the state file of `apportion stream` (cli/stream_state_file.h), read from
 * hostile bytes. The checksum would refuse nearly every mutation before the parser sees it,
 * so each input is read twice: as it is, and with its last 8 bytes replaced by the checksum
 * of the rest (a file whose damage the checksum cannot see, or that was forged).
 *
 * Checked beyond "no crash, no leak":
 * - a refusal is one line that names the file, with nothing filled in;
 * - a success holds at least one series, each name and date text within the limit, and
 *   encodes back to exactly the bytes read (the format has one way to write each state).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fnv1a.h"
#include "fuzz_check.h"
#include "stream_state_file.h"

#define NAME "fuzz.state"

static void check(const unsigned char *data, size_t size) {
    cli_stream_file f;
    char err[512] = "";
    if (cli_stream_file_decode(data, size, NAME, &f, err, sizeof err) != 0) {
        FUZZ_CHECK(strncmp(err, NAME ": ", strlen(NAME) + 2) == 0, "message: %s", err);
        FUZZ_CHECK(strchr(err, '\n') == NULL, "a message of several lines: %s", err);
        FUZZ_CHECK(f.series == NULL && f.stream == NULL && f.n_series == 0,
                   "a refused state left something filled in");
        return;
    }
    FUZZ_CHECK(f.n_series >= 1 && f.series != NULL, "a state without series");
    for (size_t r = 0; r < f.n_series; r++)
        FUZZ_CHECK(strlen(f.series[r].name) <= CLI_STREAM_TEXT_MAX &&
                       strlen(f.series[r].last_text) <= CLI_STREAM_TEXT_MAX,
                   "series %zu: a text past the limit", r);
    unsigned char *again = NULL;
    size_t len = 0;
    FUZZ_CHECK(cli_stream_file_encode(&f, &again, &len, err, sizeof err) == 0, "encode: %s", err);
    FUZZ_CHECK(len == size && memcmp(again, data, size) == 0,
               "the state does not encode back to its bytes (%zu, %zu)", len, size);
    free(again);
    cli_stream_file_free(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    check(data, size);
    if (size >= 8) {
        unsigned char *sealed = malloc(size);
        FUZZ_CHECK(sealed != NULL, "out of memory");
        memcpy(sealed, data, size);
        const uint64_t sum = apo__fnv1a64(sealed, size - 8);
        for (int i = 0; i < 8; i++)
            sealed[size - 8 + i] = (unsigned char)(sum >> (8 * i));
        check(sealed, size);
        free(sealed);
    }
    return 0;
}
