/*
 * operator_tile.h: TA-Lib's math operators on two series, x (TA-Lib's real0) and y (real1):
 * ADD x + y, SUB x - y, MULT x * y, DIV x / y, one correctly rounded operation each.
 * Element-wise (elementwise.h): NaN where x or y is not finite; a quotient by 0 is an
 * infinity (0 / 0 NaN), an overflow an infinity.
 */
#ifndef APO_KERNELS_OPERATOR_TILE_H
#define APO_KERNELS_OPERATOR_TILE_H

#include "elementwise.h"

APO_ELEMENTWISE_CLOSED_2(add, a + b)
APO_ELEMENTWISE_CLOSED_2(sub, a - b)
APO_ELEMENTWISE_CLOSED_2(mult, a *b)
APO_ELEMENTWISE_2(div, a / b)

#endif /* APO_KERNELS_OPERATOR_TILE_H */
