/*
 * flow.h: the typical price, the money flow and the accumulation/distribution step of a bar,
 * shared by the volume family's bodies.
 */
#ifndef APO_KERNELS_FLOW_H
#define APO_KERNELS_FLOW_H

#include "catalog.h"
#include "dd.h"

/* TA-Lib's typical price (high + low + close) / 3, in that order. */
static inline APO_HD double apo__typical(const apo__cat_io *io, size_t t) {
    return (io->in[0][t] + io->in[1][t] + io->in[2][t]) / 3.0;
}

/* The money flow tp * volume of bar t, exact as a double-double, tp its typical price
 * (apo__typical) where the caller already has it. */
static inline APO_HD apo__dd apo__money_flow_of(const apo__cat_io *io, size_t t, double tp) {
    return apo__two_prod(tp, io->in[3][t]);
}

/* The money flow typical * volume of bar t, exact as a double-double. */
static inline APO_HD apo__dd apo__money_flow(const apo__cat_io *io, size_t t) {
    return apo__money_flow_of(io, t, apo__typical(io, t));
}

/* TA-Lib's accumulation/distribution step: ad plus bar t's money flow volume
 * ((close - low) - (high - close)) / (high - low) * volume, in that order, where
 * high - low > 0; ad unchanged otherwise (a bar with high at or below low adds nothing). The
 * one definition of the A/D line's step, so that ad and adosc cannot drift apart. Inputs
 * high, low, close, volume are in[0 .. 3]; the caller has checked they are finite. */
static inline APO_HD double apo__ad_add(double ad, const apo__cat_io *io, size_t t) {
    const double high = io->in[0][t], low = io->in[1][t], close = io->in[2][t];
    const double range = high - low;
    if (range > 0.0)
        ad += (((close - low) - (high - close)) / range) * io->in[3][t];
    return ad;
}

#endif /* APO_KERNELS_FLOW_H */
