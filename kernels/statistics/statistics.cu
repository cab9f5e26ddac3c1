/*
 * statistics.cu: the statistics family of the catalog on a GPU (catalog_cuda.h): one thread per
 * tile running the tile bodies of statistics_tiles.h, which the CPU runs too
 * (dispatch/catalog_dispatch.c).
 */
#include "catalog_launch.h"
#include "statistics_tiles.h"

APO_CATALOG_CUDA_FAMILY(statistics)
