/*
 * transforms.cu: the transforms family of the catalog on a GPU (catalog_cuda.h): one thread per
 * tile running the tile bodies of transforms_tiles.h, which the CPU runs too
 * (dispatch/catalog_dispatch.c).
 */
#include "catalog_launch.h"
#include "transforms_tiles.h"

APO_CATALOG_CUDA_FAMILY(transforms)
