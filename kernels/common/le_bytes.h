/*
 * le_bytes.h: the one reader and writer of little-endian words in apportion, for the bytes
 * of a saved stream state (runtime/streaming/state_format.c), the state file of
 * `apportion stream` (cli/stream_state_file.c, cli/cmd_stream.c) and the Python package's
 * reading of a state (python/src/stream_type.c): docs/streaming.md, "The state".
 *
 * Byte by byte, whatever the host's order, so that a state saved on one machine reads the
 * same on any other; p may have any alignment. Header-only: each caller inlines the few
 * instructions, and the CLI and the Python package use it without linking kernels/.
 */
#ifndef APO_LE_BYTES_H
#define APO_LE_BYTES_H

#include <stdint.h>
#include <string.h>

static inline void apo__put_u32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline void apo__put_u64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint32_t apo__get_u32(const unsigned char *p) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static inline uint64_t apo__get_u64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* A double as the little-endian bytes of its IEEE 754 bits, and back. */
static inline void apo__put_f64(unsigned char *p, double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    apo__put_u64(p, bits);
}

static inline double apo__get_f64(const unsigned char *p) {
    const uint64_t bits = apo__get_u64(p);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

#endif
