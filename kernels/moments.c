/*
 * moments.c: partial moments (count, mean, M2, min, max) and their pairwise merge.
 *
 * What: the reductions (returns_stats, bootstrap) produce one apo_moments partial per tile;
 * the runtime combines the partials in tile order with a fixed pairwise tree on the host,
 * using apo_moments_merge, and the kernel's finalize turns the root into statistics.
 *
 * Launch shape: a host-side helper, called once per tree node.
 *
 * Determinism: the merge is a pure function of the bits of its two operands with a fixed
 * operation order (Chan, Golub and LeVeque's pairwise update, no FMA contraction), so a
 * fixed tree over a fixed tile grid gives the same bits whatever computed the leaves.
 */
#include "kernels.h"

#include <assert.h>
#include <math.h>

void apo_moments_empty(apo_moments *m) {
    assert(m != NULL);
    m->count = 0.0;
    m->mean = 0.0;
    m->m2 = 0.0;
    m->min = INFINITY;
    m->max = -INFINITY;
}

void apo_moments_merge(const apo_moments *a, const apo_moments *b, apo_moments *out) {
    assert(a != NULL && b != NULL && out != NULL);
    /* Copy both operands first: out may alias either. */
    const apo_moments ma = *a;
    const apo_moments mb = *b;
    if (mb.count == 0.0) {
        *out = ma;
        return;
    }
    if (ma.count == 0.0) {
        *out = mb;
        return;
    }
    const double count = ma.count + mb.count;
    const double delta = mb.mean - ma.mean;
    /* The mean moves toward b by its share of the count; M2 gains the between-group term
     * delta^2 * na * nb / n. Both are sums of non-negative terms or a single correction,
     * so nothing here cancels catastrophically. */
    out->count = count;
    out->mean = ma.mean + delta * (mb.count / count);
    out->m2 = (ma.m2 + mb.m2) + delta * delta * (ma.count * mb.count / count);
    /* Written so that a NaN on one side never replaces a number on the other. */
    out->min = mb.min < ma.min ? mb.min : ma.min;
    out->max = mb.max > ma.max ? mb.max : ma.max;
}
