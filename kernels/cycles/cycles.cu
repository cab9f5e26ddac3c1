/*
 * cycles.cu: the cycle family of the catalog on a GPU (catalog_cuda.h): one thread per row
 * (the kernels are whole-row) running the tile bodies of cycles_tiles.h, which the CPU runs
 * too (dispatch/catalog_dispatch.c).
 */
#include "catalog_launch.h"
#include "cycles_tiles.h"

APO_CATALOG_CUDA_FAMILY(cycles)
