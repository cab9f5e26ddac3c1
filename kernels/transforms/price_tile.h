/*
 * price_tile.h: TA-Lib's price transforms, each bar's prices combined in TA-Lib's order of
 * operations (so with its bits): AVGPRICE (h + l + c + o) / 4 of open, high, low, close;
 * MEDPRICE (h + l) / 2 of high, low; TYPPRICE (h + l + c) / 3 and WCLPRICE (h + l + 2c) / 4
 * of high, low, close. Element-wise (elementwise.h: a bar with a price that is not finite
 * gives NaN).
 */
#ifndef APO_KERNELS_PRICE_TILE_H
#define APO_KERNELS_PRICE_TILE_H

#include "elementwise.h"

APO_ELEMENTWISE_CLOSED_4(avgprice, (h + l + c + o) / 4.0)
APO_ELEMENTWISE_CLOSED_2(medprice, (a + b) / 2.0)
APO_ELEMENTWISE_CLOSED_3(typprice, (h + l + c) / 3.0)
APO_ELEMENTWISE_CLOSED_3(wclprice, (h + l + c * 2.0) / 4.0)

#endif /* APO_KERNELS_PRICE_TILE_H */
