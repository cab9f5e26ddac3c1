/*
 * volume.cu: the volume family of the catalog on a GPU (catalog_cuda.h): one thread per tile
 * running the tile bodies of volume_tiles.h, which the CPU runs too (dispatch/catalog_dispatch.c).
 */
#include "catalog_launch.h"
#include "volume_tiles.h"

APO_CATALOG_CUDA_FAMILY(volume)
