/*
 * statistics.cu: the statistics family of the catalog on a GPU (catalog_cuda.h): one thread per
 * tile running the tile bodies of statistics_tiles.h, which the CPU runs too
 * (dispatch/catalog_dispatch.c), or per block between anchors for the kernels that restart at
 * fixed positions (statistics_anchors.h).
 */
#include "catalog_launch.h"
#include "statistics_anchors.h"

APO_CATALOG_CUDA_FAMILY_ANCHORED(statistics, apo__statistics_anchor_spacing)
