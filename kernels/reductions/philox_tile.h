/*
 * philox_tile.h: the inline bodies of Philox4x32-10 and of the 64x64 high multiply,
 * shared by the CPU kernels (through reductions.h) and the CUDA kernels (bootstrap.cu,
 * cuda/staged.cu).
 *
 * What: apo__philox4x32_10 maps a 128-bit counter and a 64-bit key to 128 random bits with
 * ten rounds of multiply-xor-permute, bumping the key by the Weyl constants between rounds
 * (Salmon et al., SC'11); apo__mulhi64 returns the high 64 bits of a 64x64-bit product.
 * philox.c exports the out-of-line apo__cpu_philox4x32_10 and apo__cpu_mulhi64 of kernels.h; the
 * bootstrap tile body inlines these in its hot loop without LTO. Internal: use the apo_
 * names outside kernels/.
 *
 * Launch shape: scalar helpers, called per draw.
 *
 * Determinism: integer arithmetic only, fully specified for uint32_t and uint64_t in C11
 * and C++, and the same source on the CPU and the GPU. apo__mulhi64 is built from 32-bit
 * limbs (ISO C, no unsigned __int128); it equals CUDA's __umul64hi bit for bit, but keeping
 * one source keeps the argument trivial, and Philox's ten rounds dominate the cost anyway.
 */
#ifndef APO_PHILOX_TILE_H
#define APO_PHILOX_TILE_H

#include "apo_hd.h"

static inline APO_HD void apo__philox4x32_10(const uint32_t ctr[4], const uint32_t key[2],
                                             uint32_t out[4]) {
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
    uint32_t k0 = key[0], k1 = key[1];
    for (int round = 0; round < 10; ++round) {
        if (round > 0) {
            /* The key is bumped by the Weyl constants between rounds. */
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        const uint64_t p0 = (uint64_t)0xD2511F53u * c0;
        const uint64_t p1 = (uint64_t)0xCD9E8D57u * c2;
        const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
        const uint32_t n1 = (uint32_t)p1;
        const uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        const uint32_t n3 = (uint32_t)p0;
        c0 = n0;
        c1 = n1;
        c2 = n2;
        c3 = n3;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

static inline APO_HD uint64_t apo__mulhi64(uint64_t a, uint64_t b) {
    const uint64_t a_lo = a & 0xFFFFFFFFu, a_hi = a >> 32;
    const uint64_t b_lo = b & 0xFFFFFFFFu, b_hi = b >> 32;
    const uint64_t ll = a_lo * b_lo;
    const uint64_t lh = a_lo * b_hi;
    const uint64_t hl = a_hi * b_lo;
    const uint64_t hh = a_hi * b_hi;
    /* The middle column adds three 32-bit quantities, so it cannot overflow 64 bits. */
    const uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

#endif /* APO_PHILOX_TILE_H */
