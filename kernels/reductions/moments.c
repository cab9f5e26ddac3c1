/*
 * moments.c: partial moments (count, mean, M2, min, max) and their pairwise merge.
 *
 * What: the reductions (returns_stats, bootstrap) produce one apo__moments partial per tile;
 * the runtime combines the partials in tile order with a fixed pairwise tree on the host,
 * using apo__cpu_moments_merge, and the kernel's finalize turns the root into statistics. The
 * bodies are the APO_HD inline functions of moments_tile.h, shared with the CUDA kernels;
 * this file exports them with the host-side precondition checks.
 *
 * Launch shape: a host-side helper, called once per tree node.
 *
 * Determinism: the merge is a pure function of the bits of its two operands with a fixed
 * operation order (Chan, Golub and LeVeque's pairwise update, no FMA contraction), so a
 * fixed tree over a fixed tile grid gives the same bits whatever computed the leaves.
 */
#include "reductions.h"

#include <assert.h>

void apo__cpu_moments_empty(apo__moments *m) {
    assert(m != NULL);
    apo__moments_empty(m);
}

void apo__cpu_moments_merge(const apo__moments *a, const apo__moments *b, apo__moments *out) {
    assert(a != NULL && b != NULL && out != NULL);
    apo__moments_merge(a, b, out);
}
