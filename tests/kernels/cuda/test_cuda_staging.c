/*
 * The staged CUDA kernels, run on the host (kernels/cuda/staged_emulation.c runs the GPU's warp
 * code of kernels/cuda/staged_kernels.h and kernels/cuda/stage.h with the lanes in turn), against
 * the CPU kernels tile by tile, bit for bit; bollinger also as pairs of warps, a chain warp and a
 * finish warp (kernels/cuda/bollinger_split.h, run by bollinger_split_emulation.c with the
 * finish of a segment after the chain's next one). Runs in every build, without a GPU.
 *
 * The cases are the gpu suite's (tests/gpu/test_gpu.c, checks/gpu_checks.c): tile boundaries
 * and ragged last tiles, several rows, chunks that start and end inside rows (the runtime's
 * three row-uniform views of such a chunk), NaN runs, infinities, constant stretches, huge
 * magnitudes and bollinger with nbdev 0; plus tiles much shorter than the real ones, so that
 * a warp's 32 lanes hold tiles of several rows and a tile spans few segments, and
 * bollinger's periods around the longest lookback the staged kernel takes.
 *
 * Each view runs on an input whose samples outside what the view may read (its halo and
 * positions) are poison, into outputs that are poison outside the view: a read or a write
 * out of bounds shows as different bits.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_views.h"
#include "kernels.h"
#include "lone_tile_cut.h"
#include "reference.h"
#include "staged_emulation.h"
#include "three_output_kernels.h"

/* A NaN with a payload no kernel makes. */
static double poison(void) {
    const uint64_t bits = 0x7ff4deadbeef0001ull;
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

typedef enum { INPUT_WALK, INPUT_GAPS, INPUT_HUGE, INPUT_OVERFLOW } input_kind;

/* rows x cols samples: a random walk per row, then the kind's damage. */
static double *make_input(size_t rows, size_t cols, input_kind kind, uint64_t seed) {
    double *x = malloc(rows * cols * sizeof *x);
    cr_assert_not_null(x);
    for (size_t r = 0; r < rows; r++) {
        double *row = x + r * cols;
        apo__test_random_walk(seed + r, cols, 100.0, 1.0, row);
        for (size_t t = 0; t < cols; t++) {
            const double u = apo__test_uniform(seed * 31 + r, t);
            if (kind == INPUT_GAPS) {
                /* NaN runs of up to 40, single infinities of both signs, zeros and
                 * constant stretches, at random places. */
                if (u < 0.002) {
                    for (size_t k = t; k < cols && k < t + 1 + (size_t)(u * 20000); k++)
                        row[k] = NAN;
                } else if (u < 0.003) {
                    row[t] = u < 0.0025 ? INFINITY : -INFINITY;
                } else if (u < 0.004) {
                    row[t] = 0.0;
                } else if (u < 0.005) {
                    for (size_t k = t; k < cols && k < t + 60; k++)
                        row[k] = 123.25;
                }
            } else if (kind == INPUT_HUGE) {
                row[t] = (t % 2 == 0 ? 1e300 : -1e300) * (1.0 + (double)(t % 7) * 1e-3);
            } else if (kind == INPUT_OVERFLOW) {
                row[t] = t % 2 == 0 ? 1.5e308 : 1.6e308;
            }
        }
    }
    if (kind == INPUT_GAPS) {
        /* A NaN run over the start of the first row: macd's seeds move, bollinger's first
         * windows are NaN. */
        for (size_t t = 3; t < 90 && t < cols; t++)
            x[t] = NAN;
    }
    return x;
}

static double *poisoned(size_t n) { return cuda_poisoned(n, poison()); }

/* got must equal ref inside the view's rows and [begin, end), and be poison elsewhere. */
static void check_outputs(const double *ref, const double *got, size_t rows, size_t cols,
                          const apo__cuda_view *v, const char *what) {
    for (size_t r = 0; r < rows; r++) {
        for (size_t t = 0; t < cols; t++) {
            const int inside = r >= v->row0 && r < v->row0 + v->rows && t >= v->begin && t < v->end;
            const double want = inside ? ref[r * cols + t] : poison();
            const double have = got[r * cols + t];
            if (!same_bits(want, have))
                cr_assert_fail("%s: view rows %zu+%zu [%zu, %zu) tile %zu: row %zu t %zu: %a, "
                               "the cpu %a",
                               what, v->row0, v->rows, v->begin, v->end, v->tile, r, t, have, want);
        }
    }
}

/* The partials of view v (5 doubles per tile, kernels_cuda.h) against the cpu's tile
 * partials `ref` (5 doubles per tile of each whole row). */
static void check_partials(const double *ref, const double *got, size_t len,
                           const apo__cuda_view *v, const char *what) {
    const size_t row_tiles = (len + v->tile - 1) / v->tile;
    const size_t first = v->begin / v->tile;
    const size_t chunk_tiles = (v->end + v->tile - 1) / v->tile - first;
    for (size_t r = 0; r < v->rows; r++) {
        for (size_t j = 0; j < chunk_tiles; j++) {
            const double *want = ref + ((v->row0 + r) * row_tiles + first + j) * 5;
            const double *have = got + (r * chunk_tiles + j) * 5;
            for (size_t k = 0; k < 5; k++)
                if (!same_bits(want[k], have[k]))
                    cr_assert_fail("%s: view rows %zu+%zu [%zu, %zu) tile %zu: partial of row %zu "
                                   "tile %zu, field %zu: %a, the cpu %a",
                                   what, v->row0, v->rows, v->begin, v->end, v->tile, v->row0 + r,
                                   first + j, k, have[k], want[k]);
        }
    }
}

/* ---- the views of one input --------------------------------------------------------- */

/* A kernel's emulation on one view, with its parameters: the variant it ran. */
typedef int (*emulate_fn)(const apo__cuda_view *v, const void *params);

/* Runs `emulate` on every chunk view of rows x cols input x (tiles of `tile`, lookback
 * `halo`) and compares its three outputs bit for bit with the cpu's `ref`; each run must
 * be the variant `expect`. `label` names the case in messages. */
static void check_every_view(const double *x, double *const ref[3], size_t rows, size_t cols,
                             size_t tile, size_t halo, emulate_fn emulate, const void *params,
                             int expect, const char *label) {
    apo__cuda_view views[CUDA_CHUNK_VIEWS_MAX];
    const size_t n = cuda_chunk_views(rows, cols, tile, views);
    for (size_t i = 0; i < n; i++) {
        apo__cuda_view v = views[i];
        double *y = cuda_input_for_view(x, rows, cols, &v, halo, poison());
        double *got[3];
        for (int o = 0; o < 3; o++)
            got[o] = poisoned(rows * cols);
        v.x = y;
        v.cols = cols;
        v.out_cols = cols;
        for (int o = 0; o < 3; o++)
            v.out[o] = got[o];
        const int ran = emulate(&v, params);
        cr_assert_eq(ran, expect, "%s: ran variant %d, expected %d", label, ran, expect);
        char what[128];
        for (int o = 0; o < 3; o++) {
            snprintf(what, sizeof what, "%s output %d", label, o);
            check_outputs(ref[o], got[o], rows, cols, &v, what);
            free(got[o]);
        }
        free(y);
    }
}

/* Where not 0, macd runs as its cut launch runs it, with up to this many pieces a tile
 * (apo__emulate_macd_cut); cut_pieces sums what those runs counted. */
static size_t macd_cut_most;
static size_t cut_pieces[2];

/* Whether bollinger runs as the launcher runs it with pairs of warps
 * (APPORTION_CUDA_KERNELS=split: kernels/cuda/bollinger_split.h) rather than one warp. */
static int bollinger_pairs;

/* k's emulation on view v (three_output_kernels.h describes k). */
static int emulate_three(const apo__cuda_view *v, const void *params) {
    const three_kernel *k = params;
    if (k->kernel == THREE_BOLLINGER && bollinger_pairs)
        return apo__emulate_bollinger_split(v, k->n[0], k->up, k->dn);
    if (k->kernel == THREE_BOLLINGER)
        return apo__emulate_bollinger(v, k->n[0], k->up, k->dn);
    if (macd_cut_most > 0) {
        size_t counts[2];
        const int ran = apo__emulate_macd_cut(v, k->n[0], k->n[1], k->n[2], macd_cut_most, counts);
        cut_pieces[0] += counts[0];
        cut_pieces[1] += counts[1];
        return ran;
    }
    return apo__emulate_macd(v, k->n[0], k->n[1], k->n[2]);
}

/* The CPU's outputs of k over every row of a seeded input of `kind` (rows x cols, tiles of
 * `tile`), then every chunk view of it through k's emulation against them
 * (check_every_view), each run the variant `expect`; the label names k and the input. */
static void three_outputs_case(const three_kernel *k, size_t rows, size_t cols, size_t tile,
                               input_kind kind, int expect) {
    const int boll = k->kernel == THREE_BOLLINGER;
    const size_t halo = boll ? k->n[0] - 1 : apo__macd_warmup(k->n[0], k->n[1], k->n[2]);
    char text[64], label[96];
    three_kernel_text(k, text, sizeof text);
    snprintf(label, sizeof label, "%s %zux%zu input %d", text, rows, cols, (int)kind);
    double *x = make_input(rows, cols, kind, boll ? 100 + k->n[0] : 200 + k->n[1]);
    double *ref[3];
    for (int o = 0; o < 3; o++)
        ref[o] = poisoned(rows * cols);
    for (size_t r = 0; r < rows; r++)
        for (size_t b = 0; b < cols; b += tile) {
            const size_t e = b + tile < cols ? b + tile : cols;
            const size_t off = r * cols;
            double *const row_out[3] = {ref[0] + off, ref[1] + off, ref[2] + off};
            three_kernel_tile(k, x + off, cols, b, e, row_out);
        }
    check_every_view(x, ref, rows, cols, tile, halo, emulate_three, k, expect, label);
    for (int o = 0; o < 3; o++)
        free(ref[o]);
    free(x);
}

/* ---- bollinger ------------------------------------------------------------------------- */

/* The case with one warp a group (pairs 0) or pairs of warps (1), expecting `expect` to run. */
static void bollinger_run(size_t rows, size_t cols, size_t period, size_t tile, double up,
                          double dn, input_kind kind, int pairs, int expect) {
    const three_kernel k = {THREE_BOLLINGER, {period, 0, 0}, up, dn};
    bollinger_pairs = pairs;
    three_outputs_case(&k, rows, cols, tile, kind, expect);
    bollinger_pairs = 0;
}

/* The case in both forms of the staged kernel: `expect` is what one warp a group runs; pairs
 * run where their block fits 48 KiB (a period up to 32), else the same as one warp. */
static void bollinger_case(size_t rows, size_t cols, size_t period, size_t tile, double up,
                           double dn, input_kind kind, int expect) {
    bollinger_run(rows, cols, period, tile, up, dn, kind, 0, expect);
    const int pairs = expect == APO_EMULATED_STAGED && period <= 32 ? APO_EMULATED_SPLIT : expect;
    bollinger_run(rows, cols, period, tile, up, dn, kind, 1, pairs);
}

Test(cuda_staging, bollinger_staged_gives_the_cpu_bits_on_the_gpu_suites_shapes, .timeout = 300) {
    const size_t p20 = apo__bollinger_tile_len(20);
    bollinger_case(1, 4095, 20, p20, 2, 2, INPUT_WALK, APO_EMULATED_STAGED);
    bollinger_case(1, 4097, 20, p20, 2, 2, INPUT_WALK, APO_EMULATED_STAGED);
    bollinger_case(1, 3 * p20 + 123, 20, p20, 2, 2, INPUT_GAPS, APO_EMULATED_STAGED);
    bollinger_case(3, 9001, 2, apo__bollinger_tile_len(2), 2, 2, INPUT_WALK, APO_EMULATED_STAGED);
    bollinger_case(1, 2, 2, apo__bollinger_tile_len(2), 2, 2, INPUT_WALK, APO_EMULATED_STAGED);
    bollinger_case(1, 100003, 20, p20, 2, 2, INPUT_GAPS, APO_EMULATED_STAGED);
}

Test(cuda_staging, bollinger_staged_gives_the_cpu_bits_with_short_tiles_and_many_rows,
     .timeout = 300) {
    /* Tiles of 37 and 50: a warp's lanes span several rows, a tile two to four segments,
     * and the period may exceed the tile (the lookback then reaches into earlier tiles). */
    const size_t periods[] = {1, 2, 5, 20, 33, 60, 96};
    for (size_t i = 0; i < sizeof periods / sizeof periods[0]; i++) {
        bollinger_case(7, 1001, periods[i], 37, 2, 2, INPUT_GAPS, APO_EMULATED_STAGED);
        bollinger_case(5, 777, periods[i], 50, 1.5, 2.5, INPUT_WALK, APO_EMULATED_STAGED);
    }
    bollinger_case(40, 700, 20, 16, 2, 2, INPUT_GAPS, APO_EMULATED_STAGED);
}

Test(cuda_staging, bollinger_past_the_longest_lookback_runs_the_simple_kernel, .timeout = 300) {
    bollinger_case(3, 2000, 97, 64, 2, 2, INPUT_GAPS, APO_EMULATED_SIMPLE);
    bollinger_case(40, 700, 700, apo__bollinger_tile_len(700), 2, 2, INPUT_WALK,
                   APO_EMULATED_SIMPLE);
}

Test(cuda_staging, bollinger_staged_keeps_the_bits_of_huge_magnitudes_and_nbdev_0, .timeout = 300) {
    const size_t cols = 3 * 8192 + 5;
    bollinger_case(3, cols, 20, apo__bollinger_tile_len(20), 0, 0, INPUT_HUGE, APO_EMULATED_STAGED);
    bollinger_case(3, cols, 20, apo__bollinger_tile_len(20), 2, 2, INPUT_OVERFLOW,
                   APO_EMULATED_STAGED);
    bollinger_case(2, 999, 20, 41, 0, 0, INPUT_HUGE, APO_EMULATED_STAGED);
}

/* ---- macd ------------------------------------------------------------------------------ */

static void macd_case(size_t rows, size_t cols, size_t fast, size_t slow, size_t signal,
                      size_t tile, input_kind kind) {
    const three_kernel k = {THREE_MACD, {fast, slow, signal}, 0, 0};
    three_outputs_case(&k, rows, cols, tile, kind, APO_EMULATED_STAGED);
}

Test(cuda_staging, macd_staged_gives_the_cpu_bits, .timeout = 300) {
    const size_t t = apo__macd_tile_len(12, 26, 9);
    macd_case(1, 1, 12, 26, 9, t, INPUT_WALK);
    macd_case(1, 2 * t + 77, 12, 26, 9, t, INPUT_GAPS);
    macd_case(5, 20000, 12, 26, 1, apo__macd_tile_len(12, 26, 1), INPUT_WALK);
    macd_case(3, 50001, 12, 26, 9, t, INPUT_GAPS);
    macd_case(3, 3 * 8192 + 5, 12, 26, 9, t, INPUT_HUGE);
    macd_case(2, 3 * 8192 + 5, 12, 26, 9, t, INPUT_OVERFLOW);
    /* Short tiles (the warm-up spans many of them), swapped periods, signal 1. */
    macd_case(6, 3001, 12, 26, 9, 100, INPUT_GAPS);
    macd_case(4, 2003, 26, 12, 9, 37, INPUT_WALK);
    macd_case(4, 1500, 3, 5, 1, 16, INPUT_GAPS);
}

/* ---- macd's tiles cut into pieces ------------------------------------------------------ */

/* The case through the cut launch's code with up to `most` pieces a tile, on every view:
 * `expect` is what runs (APO_EMULATED_CUT where the longest tile's cut pays). Returns the
 * pieces run and those run again, summed over the views. */
static void macd_cut_case(size_t rows, size_t cols, size_t tile, input_kind kind, size_t most,
                          int expect, size_t counts[2]) {
    const three_kernel k = {THREE_MACD, {12, 26, 9}, 0, 0};
    macd_cut_most = most;
    cut_pieces[0] = cut_pieces[1] = 0;
    three_outputs_case(&k, rows, cols, tile, kind, expect);
    counts[0] = cut_pieces[0];
    counts[1] = cut_pieces[1];
    macd_cut_most = 0;
}

Test(cuda_staging, macd_cut_into_pieces_gives_the_cpu_bits, .timeout = 300) {
    const size_t t = apo__macd_tile_len(12, 26, 9), h = apo__macd_warmup(12, 26, 9);
    size_t counts[2];
    /* The real tiles, a piece per lane of a warp and more; tiles of 4096, 8 pieces each
     * (h + 512 <= 2048); a tile too short for its cut to pay runs the staged kernel. */
    macd_cut_case(1, 2 * t + 77, t, INPUT_GAPS, 32, APO_EMULATED_CUT, counts);
    cr_assert_gt(counts[0], 2 * 3, "no tile was cut: %zu pieces", counts[0]);
    macd_cut_case(3, 50001, 4096, INPUT_WALK, 8, APO_EMULATED_CUT, counts);
    /* On a walk the warm-up leaves every piece's states at its cut the whole tile's: none runs
     * again (a check that ran every piece again would still give the bits, not this count). */
    cr_assert_gt(counts[0], 3 * 12);
    cr_assert_eq(counts[1], 0, "%zu of %zu pieces run again on a walk", counts[1], counts[0]);
    macd_cut_case(3, 50001, 4096, INPUT_GAPS, 8, APO_EMULATED_CUT, counts);
    macd_cut_case(3, 3 * 8192 + 5, 4096, INPUT_HUGE, 4, APO_EMULATED_CUT, counts);
    macd_cut_case(2, 3 * 8192 + 5, 4096, INPUT_OVERFLOW, 8, APO_EMULATED_CUT, counts);
    macd_cut_case(2, 5000, 2 * h, INPUT_WALK, 8, APO_EMULATED_STAGED, counts);
}

Test(cuda_staging, macd_cut_runs_again_every_piece_whose_states_differ, .timeout = 300) {
    const size_t tile = 4096, most = 8;
    cuda_macd_cut_case c;
    cuda_macd_cut_case_init(&c, tile, most, poison());
    size_t counts[2];
    cr_assert_eq(apo__emulate_macd_cut(&c.v, 12, 26, 9, most, counts), APO_EMULATED_CUT);
    /* 3 tiles of 8 pieces; every cut of the first and third run again, the second tile
     * whole (its 7 cuts counted as run again). */
    cr_assert_eq(apo__cut_pieces_most(tile, apo__macd_warmup(12, 26, 9), most, 2), 8);
    cr_assert_eq(counts[0], 24, "pieces %zu", counts[0]);
    cr_assert_eq(counts[1], 21, "run again %zu", counts[1]);
    for (int o = 0; o < 3; o++)
        check_outputs(c.want[o], c.got[o], 1, c.cols, &c.v, "macd cut, every piece run again");
    cuda_macd_cut_case_free(&c);
}

/* ---- returns_stats ---------------------------------------------------------------------- */

static void returns_stats_case(size_t rows, size_t cols, size_t tile, input_kind kind) {
    double *x = make_input(rows, cols, kind, 300 + cols);
    if (kind == INPUT_WALK && cols > 8192 + 12 && rows >= 3) {
        /* The gpu suite's infinite partials: returns of +-1.5e308 overflow the tile sums. */
        double *row2 = x + 2 * cols;
        row2[9] = row2[11] = row2[8192 + 9] = row2[8192 + 11] = 1.0;
        row2[10] = row2[12] = 1.5e308;
        row2[8192 + 10] = row2[8192 + 12] = -1.5e308;
    }
    const size_t row_tiles = (cols + tile - 1) / tile;
    double *ref = malloc(rows * row_tiles * 5 * sizeof *ref);
    cr_assert_not_null(ref);
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < row_tiles; j++) {
            const size_t b = j * tile, e = b + tile < cols ? b + tile : cols;
            apo__moments m;
            apo__cpu_returns_stats_tile(x + r * cols, cols, b, e, &m);
            memcpy(ref + (r * row_tiles + j) * 5, &m, sizeof m);
        }
    apo__cuda_view views[CUDA_CHUNK_VIEWS_MAX];
    const size_t n = cuda_chunk_views(rows, cols, tile, views);
    for (size_t i = 0; i < n; i++) {
        apo__cuda_view v = views[i];
        double *y = cuda_input_for_view(x, rows, cols, &v, 1, poison());
        double *got = poisoned(rows * row_tiles * 5);
        v.x = y;
        v.cols = cols;
        v.out_cols = cols;
        v.partials = got;
        cr_assert_eq(apo__emulate_returns_stats(&v), APO_EMULATED_STAGED);
        char what[96];
        snprintf(what, sizeof what, "returns_stats %zux%zu input %d", rows, cols, (int)kind);
        check_partials(ref, got, cols, &v, what);
        free(got);
        free(y);
    }
    free(ref);
    free(x);
}

Test(cuda_staging, returns_stats_staged_gives_the_cpu_bits, .timeout = 300) {
    const size_t t = apo__returns_stats_tile_len();
    returns_stats_case(1, 1, t, INPUT_WALK);
    returns_stats_case(1, 5 * t + 5, t, INPUT_GAPS);
    returns_stats_case(37, 3000, t, INPUT_WALK);
    returns_stats_case(3, 3 * 8192 + 5, t, INPUT_WALK);
    returns_stats_case(3, 3 * 8192 + 5, t, INPUT_HUGE);
    returns_stats_case(2, 3 * 8192 + 5, t, INPUT_OVERFLOW);
    returns_stats_case(9, 1003, 33, INPUT_GAPS);
    returns_stats_case(5, 400, 1, INPUT_GAPS);
}

/* ---- the fast path and the general path ---------------------------------------------------- */

/* The passes each path ran since the last call (staged_emulation.h). */
typedef struct passes {
    size_t general, fast;
} passes;

static passes passes_since(void) {
    passes p;
    apo__emulate_passes(&p.general, &p.fast);
    return p;
}

/* A row of 126 tiles of 16 (the last 3 samples long) gives warps of 32 full tiles of one row
 * (items 32 to 95: the fast path) and warps of a row's first tile (its halo and warm-up cut
 * at 0), of its ragged last tile, and spanning two rows (the general path). Each case above
 * compares every output with the cpu's; here each must have run both paths, so that the
 * comparison covers both. */
Test(cuda_staging, both_paths_of_the_staged_warps_run_and_give_the_cpu_bits, .timeout = 300) {
    const size_t cols = 125 * 16 + 3;
    passes p = passes_since();
    bollinger_run(2, cols, 5, 16, 2, 2, INPUT_WALK, 0, APO_EMULATED_STAGED);
    p = passes_since();
    cr_assert_gt(p.fast, 0, "bollinger: no warp took the fast path");
    cr_assert_gt(p.general, 0, "bollinger: no warp took the general path");
    /* A period past the tile: the halo reaches three tiles back. */
    bollinger_run(2, cols, 60, 16, 1.5, 2.5, INPUT_GAPS, 0, APO_EMULATED_STAGED);
    p = passes_since();
    cr_assert_gt(p.fast, 0, "bollinger(60): no warp took the fast path");
    cr_assert_gt(p.general, 0, "bollinger(60): no warp took the general path");
    /* The pairs of warps alone, with a halo of one tile and of two. */
    const size_t pair_periods[] = {5, 32};
    for (size_t i = 0; i < 2; i++) {
        bollinger_run(2, cols, pair_periods[i], 16, 2, 2, INPUT_GAPS, 1, APO_EMULATED_SPLIT);
        p = passes_since();
        cr_assert_gt(p.fast, 0, "bollinger(%zu) pairs: no pair took the fast path",
                     pair_periods[i]);
        cr_assert_gt(p.general, 0, "bollinger(%zu) pairs: no pair took the general path",
                     pair_periods[i]);
    }
    /* macd's lanes start where their seeds end: apart by the tile on a clean walk (the fast
     * path), by the NaN runs' lengths where a run falls in a warm-up (the general path). */
    macd_case(2, cols, 12, 26, 9, 16, INPUT_WALK);
    p = passes_since();
    cr_assert_gt(p.fast, 0, "macd: no warp took the fast path");
    cr_assert_gt(p.general, 0, "macd: no warp took the general path");
    macd_case(2, 4 * cols, 12, 26, 9, 16, INPUT_GAPS);
    p = passes_since();
    cr_assert_gt(p.fast, 0, "macd on gaps: no warp took the fast path");
    cr_assert_gt(p.general, 0, "macd on gaps: no warp took the general path");
    returns_stats_case(2, cols, 16, INPUT_GAPS);
    p = passes_since();
    cr_assert_gt(p.fast, 0, "returns_stats: no warp took the fast path");
    cr_assert_gt(p.general, 0, "returns_stats: no warp took the general path");
    /* Tiles of 37 over rows of 1001 (27 tiles): every warp spans rows, none is fast. */
    bollinger_case(7, 1001, 5, 37, 2, 2, INPUT_WALK, APO_EMULATED_STAGED);
    p = passes_since();
    cr_assert_eq(p.fast, 0, "bollinger 7x1001 tile 37: a warp spanning rows took the fast path");
    cr_assert_gt(p.general, 0);
}

/* ---- bootstrap -------------------------------------------------------------------------- */

static void bootstrap_case(size_t rows, size_t n, size_t replicates, input_kind kind,
                           uint64_t seed) {
    double *x = make_input(rows, n, kind, 400 + n);
    const size_t tile = apo__bootstrap_tile_len();
    const size_t row_tiles = (replicates + tile - 1) / tile;
    double *ref_means = poisoned(rows * replicates);
    double *ref = malloc(rows * row_tiles * 5 * sizeof *ref);
    cr_assert_not_null(ref);
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < row_tiles; j++) {
            const size_t b = j * tile, e = b + tile < replicates ? b + tile : replicates;
            apo__cpu_bootstrap_tile(x + r * n, n, seed, r, b, e, ref_means + r * replicates);
            apo__moments m;
            apo__cpu_bootstrap_tile_moments(ref_means + r * replicates, b, e, &m);
            memcpy(ref + (r * row_tiles + j) * 5, &m, sizeof m);
        }
    apo__cuda_view views[CUDA_CHUNK_VIEWS_MAX];
    const size_t nv = cuda_chunk_views(rows, replicates, tile, views);
    for (size_t i = 0; i < nv; i++) {
        apo__cuda_view v = views[i];
        double *y = cuda_input_for_view(x, rows, n, &v, SIZE_MAX, poison());
        double *means = poisoned(rows * replicates);
        double *got = poisoned(rows * row_tiles * 5);
        v.x = y;
        v.cols = n;
        v.out_cols = replicates;
        v.out[0] = means;
        v.partials = got;
        cr_assert_eq(apo__emulate_bootstrap(&v, seed), APO_EMULATED_STAGED);
        char what[96];
        snprintf(what, sizeof what, "bootstrap %zux%zu, %zu replicates, input %d", rows, n,
                 replicates, (int)kind);
        check_outputs(ref_means, means, rows, replicates, &v, what);
        check_partials(ref, got, replicates, &v, what);
        free(got);
        free(means);
        free(y);
    }
    free(ref);
    free(ref_means);
    free(x);
}

Test(cuda_staging, bootstrap_warps_give_the_cpu_bits, .timeout = 300) {
    bootstrap_case(1, 3000, 203, INPUT_WALK, 7);
    bootstrap_case(3, 500, 64, INPUT_WALK, 0x123456789abcdefull);
    bootstrap_case(2, 10003, 24, INPUT_GAPS, 99);
    /* m = n - 1 of 1, 2, 63, 64, 65 and 130 draws: the last round partly full, odd m. */
    const size_t ns[] = {2, 3, 64, 65, 66, 131};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        bootstrap_case(2, ns[i], 17, INPUT_WALK, 5);
    bootstrap_case(3, 3 * 8192 + 5, 16, INPUT_HUGE, 3);
}
