/*
 * averages.cu: the averages family of the catalog on a GPU (catalog_cuda.h): one thread per tile
 * running the tile bodies of averages_tiles.h, which the CPU runs too
 * (dispatch/catalog_dispatch.c), or per block between anchors for the plain sma, wma and ma
 * (averages_anchors.h).
 */
#include "averages_anchors.h"
#include "catalog_launch.h"

/* sma, wma and ma each take a blocks kernel of their own (catalog_launch.h): in the family's
 * they ran with its largest body's 127 registers. */
#define APO_AVERAGES_OWN_BLOCKS(X, family) X(family, SMA) X(family, WMA) X(family, MA)

APO_CATALOG_CUDA_FAMILY_OWN_BLOCKS(averages, apo__averages_anchor_spacing, APO_AVERAGES_OWN_BLOCKS)
