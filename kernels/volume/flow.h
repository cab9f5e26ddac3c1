/*
 * flow.h: the typical price and money flow of a bar, shared by the volume family's bodies.
 */
#ifndef APO_KERNELS_FLOW_H
#define APO_KERNELS_FLOW_H

#include "catalog.h"
#include "dd.h"

/* TA-Lib's typical price (high + low + close) / 3, in that order. */
static inline APO_HD double apo__typical(const apo__cat_io *io, size_t t) {
    return (io->in[0][t] + io->in[1][t] + io->in[2][t]) / 3.0;
}

/* The money flow typical * volume of bar t, exact as a double-double. */
static inline APO_HD apo__dd apo__money_flow(const apo__cat_io *io, size_t t) {
    return apo__two_prod(apo__typical(io, t), io->in[3][t]);
}

#endif /* APO_KERNELS_FLOW_H */
