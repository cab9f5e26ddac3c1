/* The SIMT tests' bars; see simt_bars.h. */
#include "simt_bars.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "random_walk.h"
#include "splitmix64.h"

static double uniform(uint64_t seed, uint64_t i) {
    return (double)(apo__splitmix64(seed, i) >> 11) * 0x1p-53;
}

int simt_bars(size_t rows, size_t cols, double **in) {
    double *close = malloc(rows * cols * sizeof *close);
    if (close == NULL)
        return 0;
    apo__random_walk(close, rows, cols, 17);
    for (int i = 0; i < SIMT_BARS_INPUTS; i++)
        if ((in[i] = malloc(rows * cols * sizeof(double))) == NULL)
            return 0;
    for (size_t k = 0; k < rows * cols; k++) {
        const double c = 100.0 + close[k], spread = 0.5 + uniform(3, k);
        in[0][k] = c + spread * uniform(5, k);
        in[1][k] = c - spread * uniform(7, k);
        in[2][k] = c;
        in[3][k] = 1000.0 + 9000.0 * uniform(11, k);
        in[4][k] = 50.0 + close[(k * 7) % (rows * cols)];
    }
    for (size_t t = 0; t < cols; t++) {
        const size_t k = cols + t;
        const double u = uniform(13, t);
        if (u < 0.004 || (t >= 5000 && t < 5040))
            for (int i = 0; i < SIMT_BARS_INPUTS; i++)
                in[i][k] = NAN;
        else if (u < 0.005)
            in[0][k] = INFINITY;
        else if (t >= 700 && t < 760)
            for (int i = 0; i < SIMT_BARS_INPUTS; i++)
                in[i][k] = 123.25;
        if (u > 0.995)
            in[2][2 * cols + t] = NAN;
    }
    free(close);
    return 1;
}

double simt_poison(void) {
    const uint64_t bits = 0x7ff4000badc0ffeeull;
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

int simt_same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }
