/*
 * cuda_views.h: what the tests of the CUDA kernels run on the host share
 * (kernels/cuda/test_cuda_staging.c, the staged emulation; simt/test_cuda_simt.c, the SIMT
 * layer): the views the runtime gives a launcher for a chunk, and arrays poisoned outside what
 * a view may read, so that a read or a write out of bounds shows as different bits. Each test
 * passes its own poison, a NaN payload that neither the kernels nor its layer make. And the
 * input that makes every piece of macd's cut launch run again.
 */
#ifndef APO_TESTS_CUDA_VIEWS_H
#define APO_TESTS_CUDA_VIEWS_H

#include <stddef.h>

#include "kernels_cuda.h"

/* The most views cuda_chunk_views gives. */
#define CUDA_CHUNK_VIEWS_MAX 4

/* The views of a chunk of `rows` x `len` along the tiled axis (tiles of `tile`): the whole
 * array, and the runtime's row-uniform views of a chunk from the second tile of row 0 to the
 * last tile's start in the last row (one view when there is one row; none but the whole array
 * when there are fewer than three tiles). Returns how many it wrote to out. */
size_t cuda_chunk_views(size_t rows, size_t len, size_t tile, apo__cuda_view *out);

/* n doubles of poison (the test fails when memory runs out). */
double *cuda_poisoned(size_t n, double poison);

/* x (rows x cols) with every sample view v may not read poisoned: rows outside the view, and
 * in its rows the positions outside [begin - halo, end) (a halo of SIZE_MAX keeps the whole
 * row). */
double *cuda_input_for_view(const double *x, size_t rows, size_t cols, const apo__cuda_view *v,
                            size_t halo, double poison);

/*
 * One row of three macd tiles of `tile` (fast 12, slow 26, signal 9: warm-up h; cut into up to
 * `most` pieces, apo__cut_pieces_most with quarters 2) whose every piece after the first must be
 * run again: each cut of the first and third tiles follows, one bar before its piece's warm-up,
 * a sample of 1e300 / 1e4^(j - 1): the whole tile's EMAs carry it into the cut (its trace
 * decays by about e^-62 over the warm-up), the piece's never saw it. Each is 1e4 times the next
 * cut's, which the piece does see, so that the trace the tile adds stays above the last bit of
 * the piece's states. The third tile's fourth piece also has its whole warm-up NaN (its seeds
 * not done by its start: not steady), and the second tile's first piece, its warm-up included,
 * is NaN (its seeds not done within it: the tile is computed whole, serially). 3 * tile doubles,
 * malloc'd.
 */
double *cuda_macd_cut_mismatches(size_t tile, size_t h, size_t most);

/* That input (tiles of `tile`, up to `most` pieces), the cpu's outputs of it tile by tile
 * (want), outputs of poison (got) and the view of its whole row into them (v). */
typedef struct cuda_macd_cut_case {
    size_t cols;
    double *x, *want[3], *got[3];
    apo__cuda_view v;
} cuda_macd_cut_case;
void cuda_macd_cut_case_init(cuda_macd_cut_case *c, size_t tile, size_t most, double poison);
void cuda_macd_cut_case_free(cuda_macd_cut_case *c);

#endif
