/*
 * moments.c: partial moments (count, mean, M2, min, max) and their pairwise merge.
 *
 * What: the reductions (returns_stats, bootstrap) produce one apo_moments partial per tile;
 * the runtime combines the partials in tile order with a fixed pairwise tree on the host,
 * using apo_moments_merge, and the kernel's finalize turns the root into statistics. The
 * bodies are the APO_HD inline functions of moments_tile.h, shared with the CUDA kernels;
 * this file exports them with the host-side precondition checks.
 *
 * Launch shape: a host-side helper, called once per tree node.
 *
 * Determinism: the merge is a pure function of the bits of its two operands with a fixed
 * operation order (Chan, Golub and LeVeque's pairwise update, no FMA contraction), so a
 * fixed tree over a fixed tile grid gives the same bits whatever computed the leaves.
 */
#include "kernels.h"

#include <assert.h>

void apo_moments_empty(apo_moments *m) {
    assert(m != NULL);
    apo__moments_empty(m);
}

void apo_moments_merge(const apo_moments *a, const apo_moments *b, apo_moments *out) {
    assert(a != NULL && b != NULL && out != NULL);
    apo__moments_merge(a, b, out);
}
