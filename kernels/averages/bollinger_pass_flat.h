/*
 * bollinger_pass_flat.h: the one value of bollinger's pass that is not a window's sd, shared by
 * the pass's body (bollinger_pass_tile.h), which stores it, and the bands taken from the pass
 * (bollinger_pass.h), which read it.
 */
#ifndef APO_BOLLINGER_PASS_FLAT_H
#define APO_BOLLINGER_PASS_FLAT_H

/* A pass's sd (or variance, bollinger_pass_stores.h) at a constant window, whose bands are the
 * constant itself rather than middle +- nbdev * 0 (those differ from it when it is -0). A real
 * sd is never below 0: sqrt() gives a value >= 0 (or -0, which compares equal to 0), or NaN; nor
 * is a variance: an exact one is a sum of squares over p, and a sliding one is kept only when
 * the error bound, a sum of absolute values, is at most 65536 times it (bollinger_tile.h). */
#define APO_BOLLINGER_PASS_FLAT (-1.0)

#endif /* APO_BOLLINGER_PASS_FLAT_H */
