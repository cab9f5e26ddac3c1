/*
 * The CPU kernels of three outputs, bollinger and macd, as the tests that run both alike
 * describe them: kernels/cuda/test_cuda_staging.c (the staged CUDA emulation against the CPU
 * tiles) and cpu_isa_bollinger.c (the vector paths against the scalar tiles). Which kernel and
 * its parameters, its scalar single tile, and its name with its parameters for messages;
 * each test adds the calls of its own (an emulation, the tiles on a path).
 */
#ifndef APO_TEST_THREE_OUTPUT_KERNELS_H
#define APO_TEST_THREE_OUTPUT_KERNELS_H

#include <stddef.h>
#include <stdio.h>

#include "kernels.h"

typedef enum { THREE_BOLLINGER, THREE_MACD } three_kernel_id;

typedef struct three_kernel {
    three_kernel_id kernel;
    size_t n[3];   /* bollinger: period; macd: fast, slow, signal */
    double up, dn; /* bollinger's deviations */
} three_kernel;

/* k's scalar single tile over [b, e) of one row x of cols samples. */
static inline void three_kernel_tile(const three_kernel *k, const double *x, size_t cols, size_t b,
                                     size_t e, double *const out[3]) {
    if (k->kernel == THREE_BOLLINGER)
        apo__cpu_bollinger_tile(x, cols, b, e, k->n[0], k->up, k->dn, out[0], out[1], out[2]);
    else
        apo__cpu_macd_tile(x, cols, b, e, k->n[0], k->n[1], k->n[2], out[0], out[1], out[2]);
}

/* "bollinger(20, 2, 2)" or "macd(12, 26, 9)" into buf. */
static inline void three_kernel_text(const three_kernel *k, char *buf, size_t size) {
    if (k->kernel == THREE_BOLLINGER)
        snprintf(buf, size, "bollinger(%zu, %g, %g)", k->n[0], k->up, k->dn);
    else
        snprintf(buf, size, "macd(%zu, %zu, %zu)", k->n[0], k->n[1], k->n[2]);
}

#endif
