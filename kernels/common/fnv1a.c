/* FNV-1a 64; see fnv1a.h. */
#include "fnv1a.h"

#define APO_FNV_OFFSET 0xcbf29ce484222325ULL
#define APO_FNV_PRIME 0x100000001b3ULL

uint64_t apo__fnv1a64(const void *data, size_t len) {
    const unsigned char *p = data;
    uint64_t h = APO_FNV_OFFSET;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= APO_FNV_PRIME;
    }
    return h;
}
