/*
 * philox.c: the Philox4x32-10 counter-based generator and a portable 64x64 high multiply.
 *
 * What: Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as
 * 1, 2, 3", SC'11) maps a 128-bit counter and a 64-bit key to 128 random bits with ten
 * rounds of multiply-xor-permute, bumping the key by the Weyl constants between rounds.
 * Because a draw is a pure function of (counter, key), a draw keyed by the global index of
 * what is drawn is the same on every device and in every split.
 *
 * Launch shape: scalar helpers. Their bodies are the APO_HD static inline
 * apo__philox4x32_10 and apo__mulhi64 in philox_tile.h (included by kernels.h), so that the
 * bootstrap hot loop inlines them without LTO on the CPU and the CUDA bootstrap kernel runs
 * the same source; this file exports the out-of-line versions declared in kernels.h.
 *
 * Determinism: integer arithmetic only, fully specified by C11 for uint32_t/uint64_t.
 * apo__cpu_mulhi64 uses 32-bit limbs rather than unsigned __int128 so that it is ISO C and
 * matches the CUDA __umul64hi bit for bit.
 */
#include "reductions.h"

void apo__cpu_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
    apo__philox4x32_10(ctr, key, out);
}

uint64_t apo__cpu_mulhi64(uint64_t a, uint64_t b) { return apo__mulhi64(a, b); }
