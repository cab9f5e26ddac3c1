/*
 * simt_bars.h: the bars the SIMT tests feed the CUDA sources (test_catalog_simt.c,
 * test_scored_simt.c): random walks with the hard cases of real data, and the poison that
 * marks an output no launch should have written.
 */
#ifndef APO_SIMT_BARS_H
#define APO_SIMT_BARS_H

#include <stddef.h>

#define SIMT_BARS_INPUTS 5

/* Every input a catalog kernel can read, rows x cols each (rows >= 3), malloc'd into in[0 ..
 * SIMT_BARS_INPUTS), as bars: in[0] >= in[2] >= in[1] (high, close, low), in[3] a positive
 * volume, in[4] another positive series. Row 1 has NaN runs, an infinite high and a flat
 * stretch, in every input at once; row 2 has single NaN bars in the close only; the other rows
 * are plain walks. Returns 0 when memory ran out. */
int simt_bars(size_t rows, size_t cols, double **in);

/* A NaN with a payload no kernel makes. */
double simt_poison(void);

/* Whether a and b have the same bits. */
int simt_same_bits(double a, double b);

#endif /* APO_SIMT_BARS_H */
