/*
 * moments_tile.h: the apo__moments partial and the inline bodies of its empty set and its
 * pairwise merge, shared by the CPU kernels (moments.c, through reductions.h) and the CUDA
 * kernels (returns_stats.cu, bootstrap.cu, cuda/staged.cu), with the store of a partial into
 * a GPU chunk's partials (apo__store_partial).
 *
 * What: the reductions (returns_stats, bootstrap) produce one apo__moments partial per tile;
 * the runtime merges the partials in tile order with a fixed pairwise tree on the host
 * (apo__cpu_moments_merge, Chan, Golub and LeVeque's pairwise update) and the kernel's finalize
 * turns the root into statistics.
 *
 * Launch shape: scalar helpers: the empty set once per empty tile, the merge once per tree
 * node (on the host today; the body is APO_HD so a device-side tree could use it too).
 *
 * Determinism: both are pure functions of the bits of their operands with a fixed
 * operation order and no FMA contraction, so a fixed tree over a fixed tile grid gives the
 * same bits whatever computed the leaves.
 */
#ifndef APO_MOMENTS_TILE_H
#define APO_MOMENTS_TILE_H

#include "apo_hd.h"

/*
 * Partial moments of a set of values: count, mean, m2 (sum of squared deviations from the
 * mean), min and max. Five doubles and no padding, so the runtime may store an array of
 * them as a plain double array. The empty set is {0, 0, 0, +inf, -inf}.
 */
typedef struct apo__moments {
    double count, mean, m2, min, max;
} apo__moments;

static inline APO_HD void apo__moments_empty(apo__moments *m) {
    m->count = 0.0;
    m->mean = 0.0;
    m->m2 = 0.0;
    m->min = INFINITY;
    m->max = -INFINITY;
}

static inline APO_HD void apo__moments_merge(const apo__moments *a, const apo__moments *b,
                                             apo__moments *out) {
    /* Copy both operands first: out may alias either. */
    const apo__moments ma = *a;
    const apo__moments mb = *b;
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
    /* NaN canonicalisation (apo_hd.h): partials whose means overflowed to infinities make
     * inf - inf here. */
    out->mean = apo__canonical_nan(ma.mean + delta * (mb.count / count));
    out->m2 = apo__canonical_nan((ma.m2 + mb.m2) + delta * delta * (ma.count * mb.count / count));
    /* Written so that a NaN on one side never replaces a number on the other. */
    out->min = mb.min < ma.min ? mb.min : ma.min;
    out->max = mb.max > ma.max ? mb.max : ma.max;
}

/* Doubles per tile partial: an apo__moments. */
#define APO_PARTIAL_DOUBLES 5

/* Writes a tile's moments into its slot of the view's partials, in apo__moments order (the
 * layout the host reads back as a plain double array). */
static inline APO_HD void apo__store_partial(double *p, const apo__moments *m) {
    p[0] = m->count;
    p[1] = m->mean;
    p[2] = m->m2;
    p[3] = m->min;
    p[4] = m->max;
}

#endif /* APO_MOMENTS_TILE_H */
