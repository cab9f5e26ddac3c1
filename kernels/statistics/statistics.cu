/*
 * statistics.cu: the statistics family of the catalog on a GPU (catalog_cuda.h): one thread per
 * tile running the tile bodies of statistics_tiles.h, which the CPU runs too
 * (dispatch/catalog_dispatch.c), or per block between anchors for the kernels that restart at
 * fixed positions (statistics_anchors.h).
 */
#include "catalog_launch.h"
#include "statistics_anchors.h"

/* Which anchored kernels take the staged launch (catalog_launch.h, anchor_stage.h): var, stddev
 * and the linearreg family, whose bodies read each window afresh, ran 1.3 to 2 times faster so
 * on an H200; correl ran 1.9 times slower (two inputs' regions leave few warps an SM), and
 * beta's regions do not fit (docs/perf-log/2026-11-27-h200-fourth-visit.md). */
static inline int apo__statistics_stages(int id) {
    return id != APO_CAT_CORREL && id != APO_CAT_BETA;
}
#define APO_STATISTICS_STAGED(X, family) X(family, apo__statistics_stages)

APO_CATALOG_CUDA_FAMILY_STAGED(statistics, apo__statistics_anchor_spacing,
                               APO__CATALOG_NO_OWN_BLOCKS, APO_STATISTICS_STAGED)
