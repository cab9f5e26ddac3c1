/*
 * bollinger_pass_stores.h: the stores of bollinger's pass shared by band widths
 * (bollinger_pass.h), for a file to define before it includes bollinger_tile.h: the tile
 * body then stores each window's standard deviation into its "upper" output and its mean
 * into its "middle", never writes "lower", and is otherwise the very body that computes the
 * bands. bollinger_pass_tile.h builds the scalar pass with them (for the host and the GPU), and the
 * pass in vector lanes (kernels/dispatch/pass_lanes_entry.h) the scalar windows of its lanes.
 * A unit that defines APO_BOLLINGER_PASS_VARIANCE first gets each window's variance in "upper"
 * instead, its root left to code off the sliding chain (the GPU's pairs of warps,
 * kernels/cuda/bollinger_split.h).
 */
#ifndef APO_BOLLINGER_PASS_STORES_H
#define APO_BOLLINGER_PASS_STORES_H

#include "bollinger_pass_flat.h"

#ifdef APO_BOLLINGER_PASS_VARIANCE
#define APO_BOLLINGER_PASS_SPREAD(var) (var)
#else
#define APO_BOLLINGER_PASS_SPREAD(var) sqrt(var)
#endif

#define APO_BOLLINGER_PUT_BANDS(upper, middle, lower, t, mean, var, nbdev_up, nbdev_dn)            \
    do {                                                                                           \
        (void)(lower), (void)(nbdev_up), (void)(nbdev_dn);                                         \
        APO_OUT(upper, t) = APO_BOLLINGER_PASS_SPREAD(var);                                        \
        APO_OUT(middle, t) = (mean);                                                               \
    } while (0)
#define APO_BOLLINGER_PUT_FLAT(upper, middle, lower, t, v)                                         \
    do {                                                                                           \
        (void)(lower);                                                                             \
        APO_OUT(upper, t) = APO_BOLLINGER_PASS_FLAT;                                               \
        APO_OUT(middle, t) = (v);                                                                  \
    } while (0)
#define APO_BOLLINGER_PUT_UNDEF(upper, middle, lower, t, mid)                                      \
    do {                                                                                           \
        (void)(lower);                                                                             \
        APO_OUT(upper, t) = NAN;                                                                   \
        APO_OUT(middle, t) = (mid);                                                                \
    } while (0)

#endif /* APO_BOLLINGER_PASS_STORES_H */
