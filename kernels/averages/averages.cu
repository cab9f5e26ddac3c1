/*
 * averages.cu: the averages family of the catalog on a GPU (catalog_cuda.h): one thread per tile
 * running the tile bodies of averages_tiles.h, which the CPU runs too
 * (dispatch/catalog_dispatch.c), or per block between anchors for the plain sma, wma and ma
 * (averages_anchors.h).
 */
#include "averages_anchors.h"
#include "catalog_launch.h"

APO_CATALOG_CUDA_FAMILY_ANCHORED(averages, apo__averages_anchor_spacing)
