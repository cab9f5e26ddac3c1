/*
 * candles.cu: TA-Lib's candlestick patterns on a GPU (catalog_cuda.h): one thread per tile
 * running the tile bodies of candles_tiles.h, which the CPU runs too (dispatch/catalog_dispatch.c).
 */
#include "candles_tiles.h"
#include "catalog_launch.h"

APO_CATALOG_CUDA_FAMILY(candles)
