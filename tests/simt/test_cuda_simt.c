/*
 * Every CUDA kernel source (the .cu files of kernels/: the staged and the simple kernels, and
 * bollinger in pairs of warps) run on the host through the SIMT layer (tests/simt/simt.h,
 * docs/simt.md): the real launchers of kernels_cuda.h, with one host thread per CUDA thread, real
 * warp and block barriers, poisoned shared memory, async copies landing early and late and the
 * launch limits of an sm_90 device. Their outputs and partials must have the bits of the CPU tile
 * functions (kernels/dispatch/kernels.h), on the gpu suite's shapes, with the threads running
 * at once (what ThreadSanitizer watches in its build) and in serial orders drawn at random. A
 * barrier left out must change the bits, and the layer's own rules (indices, limits, intrinsics,
 * faults) are checked on small kernels of its own (tests/simt/probe.cu).
 *
 * As in tests/kernels/cuda/test_cuda_staging.c, each view runs on an input poisoned outside what it
 * may read, into outputs poisoned outside what it may write.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_views.h"
#include "kernels.h"
#include "kernels_cuda.h"
#include "random_walk.h"
#include "simt_api.h"
#include "splitmix64.h"

/* The probe kernels' launchers (tests/simt/probe.cu). */
int probe_indices(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                  unsigned *out);
int probe_dynamic_shared(size_t bytes, int opt_in, unsigned char *out);
int probe_static_shared(size_t dynamic_bytes, double *out);
int probe_warp(unsigned threads, int *out);
int probe_barrier(unsigned threads, double *out);
int probe_copy(unsigned threads, const double *src, double *out);
int probe_exit(int *out);
int probe_bad_copy(const double *src);

/* cudaError_t values (the CUDA runtime's). */
#define CUDA_SUCCESS 0
#define CUDA_INVALID_VALUE 1
#define CUDA_INVALID_CONFIGURATION 9
#define CUDA_LAUNCH_FAILURE 719

/* A NaN with a payload no kernel makes, and not the layer's shared-memory poison. */
static double poison(void) {
    const uint64_t bits = 0x7ff4000badc0ffeeull;
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* Under ThreadSanitizer (5 to 15 times slower) the serial orders, which it has nothing to
 * watch in (one thread runs at a time), run one schedule instead of three; the other builds
 * run them all. */
#if defined(__SANITIZE_THREAD__)
static const int under_tsan = 1;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
static const int under_tsan = 1;
#else
static const int under_tsan = 0;
#endif
#else
static const int under_tsan = 0;
#endif

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static void set_options(simt_schedule schedule, simt_copies copies, uint64_t seed,
                        unsigned long skip) {
    /* Host threads, as ThreadSanitizer needs; every block as the schedule says. */
    const simt_options o = {schedule, copies, seed, skip, 0, 0};
    simt_set_options(&o);
}

/* ---- inputs ------------------------------------------------------------------------------ */

typedef enum { INPUT_WALK, INPUT_GAPS, INPUT_HUGE } input_kind;

static double uniform(uint64_t seed, uint64_t i) {
    return (double)(apo__splitmix64(seed, i) >> 11) * 0x1p-53;
}

/* rows x cols samples: a random walk per row, then the kind's damage (NaN runs, infinities,
 * zeros and constant stretches; or alternating magnitudes near 1e300). */
static double *make_input(size_t rows, size_t cols, input_kind kind, uint64_t seed) {
    double *x = malloc(rows * cols * sizeof *x);
    cr_assert_not_null(x);
    apo__random_walk(x, rows, cols, seed);
    for (size_t i = 0; i < rows * cols; i++) {
        const double u = uniform(seed * 31 + 7, i);
        if (kind == INPUT_GAPS) {
            if (u < 0.002) {
                for (size_t k = i; k < rows * cols && k < i + 1 + (size_t)(u * 20000); k++)
                    x[k] = NAN;
            } else if (u < 0.003) {
                x[i] = u < 0.0025 ? INFINITY : -INFINITY;
            } else if (u < 0.004) {
                x[i] = 0.0;
            } else if (u < 0.005) {
                for (size_t k = i; k < rows * cols && k < i + 60; k++)
                    x[k] = 123.25;
            }
        } else if (kind == INPUT_HUGE) {
            x[i] = (i % 2 == 0 ? 1e300 : -1e300) * (1.0 + (double)(i % 7) * 1e-3);
        }
    }
    return x;
}

static double *poisoned(size_t n) { return cuda_poisoned(n, poison()); }

/* ---- comparison ---------------------------------------------------------------------------- */

static char first_mismatch[256];

static void note_mismatch(size_t *count, const char *what, size_t r, size_t t, double have,
                          double want) {
    if ((*count)++ == 0)
        snprintf(first_mismatch, sizeof first_mismatch, "%s: row %zu index %zu: %a, the cpu %a",
                 what, r, t, have, want);
}

/* got (rows x len) must equal ref inside the view and be poison outside it. */
static size_t compare_outputs(const double *ref, const double *got, size_t rows, size_t len,
                              const apo__cuda_view *v, const char *what) {
    size_t bad = 0;
    for (size_t r = 0; r < rows; r++)
        for (size_t t = 0; t < len; t++) {
            const int inside = r >= v->row0 && r < v->row0 + v->rows && t >= v->begin && t < v->end;
            const double want = inside ? ref[r * len + t] : poison();
            if (!same_bits(got[r * len + t], want))
                note_mismatch(&bad, what, r, t, got[r * len + t], want);
        }
    return bad;
}

/* The view's partials (5 per tile) against the cpu's partials of whole rows of len. */
static size_t compare_partials(const double *ref, const double *got, size_t len,
                               const apo__cuda_view *v, const char *what) {
    const size_t row_tiles = (len + v->tile - 1) / v->tile;
    const size_t first = v->begin / v->tile;
    const size_t chunk_tiles = (v->end + v->tile - 1) / v->tile - first;
    size_t bad = 0;
    for (size_t r = 0; r < v->rows; r++)
        for (size_t j = 0; j < chunk_tiles; j++)
            for (size_t k = 0; k < 5; k++) {
                const double want = ref[((v->row0 + r) * row_tiles + first + j) * 5 + k];
                const double have = got[(r * chunk_tiles + j) * 5 + k];
                if (!same_bits(have, want))
                    note_mismatch(&bad, what, v->row0 + r, (first + j) * 5 + k, have, want);
            }
    return bad;
}

/* ---- one kernel on one input: every view, against the cpu -------------------------------- */

typedef enum { K_BOLLINGER, K_MACD, K_RETURNS_STATS, K_BOOTSTRAP } kernel_id;

typedef struct shape {
    kernel_id kernel;
    size_t rows, cols, tile; /* bootstrap: cols samples per row, tile over the replicates */
    input_kind input;
    size_t a, b, c; /* bollinger: period; macd: fast, slow, signal; bootstrap: replicates */
    double up, dn;
} shape;

/* Runs the kernel's launcher on every chunk view of the shape's input and returns the
 * values that differ from the cpu's (0: every bit is the cpu's); a launch that fails fails
 * the test. */
static size_t run_shape(const shape *s) {
    const int is_boot = s->kernel == K_BOOTSTRAP;
    const size_t len = is_boot ? s->a : s->cols; /* the tiled axis */
    double *x = make_input(s->rows, s->cols, s->input, 1000 + s->cols + s->a);
    const size_t row_tiles = (len + s->tile - 1) / s->tile;
    double *ref[3] = {NULL, NULL, NULL};
    double *ref_partials = NULL;
    size_t halo = 0, outs = 0;
    if (s->kernel == K_BOLLINGER || s->kernel == K_MACD) {
        outs = 3;
        for (int o = 0; o < 3; o++)
            ref[o] = poisoned(s->rows * len);
    } else {
        ref_partials = poisoned(s->rows * row_tiles * 5);
        if (is_boot) {
            outs = 1;
            ref[0] = poisoned(s->rows * len);
        }
    }
    for (size_t r = 0; r < s->rows; r++)
        for (size_t j = 0; j < row_tiles; j++) {
            const size_t b = j * s->tile, e = b + s->tile < len ? b + s->tile : len;
            const double *xr = x + r * s->cols;
            const size_t o = r * len;
            apo__moments m;
            switch (s->kernel) {
            case K_BOLLINGER:
                apo__cpu_bollinger_tile(xr, s->cols, b, e, s->a, s->up, s->dn, ref[0] + o,
                                        ref[1] + o, ref[2] + o);
                break;
            case K_MACD:
                apo__cpu_macd_tile(xr, s->cols, b, e, s->a, s->b, s->c, ref[0] + o, ref[1] + o,
                                   ref[2] + o);
                break;
            case K_RETURNS_STATS:
                apo__cpu_returns_stats_tile(xr, s->cols, b, e, &m);
                memcpy(ref_partials + (r * row_tiles + j) * 5, &m, sizeof m);
                break;
            case K_BOOTSTRAP:
                apo__cpu_bootstrap_tile(xr, s->cols, 77, r, b, e, ref[0] + o);
                apo__cpu_bootstrap_tile_moments(ref[0] + o, b, e, &m);
                memcpy(ref_partials + (r * row_tiles + j) * 5, &m, sizeof m);
                break;
            }
        }
    halo = s->kernel == K_BOLLINGER       ? s->a - 1
           : s->kernel == K_MACD          ? apo__macd_warmup(s->a, s->b, s->c)
           : s->kernel == K_RETURNS_STATS ? 1
                                          : SIZE_MAX;

    apo__cuda_view views[CUDA_CHUNK_VIEWS_MAX];
    const size_t nv = cuda_chunk_views(s->rows, len, s->tile, views);
    size_t bad = 0;
    for (size_t i = 0; i < nv; i++) {
        apo__cuda_view v = views[i];
        double *y = cuda_input_for_view(x, s->rows, s->cols, &v, halo, poison());
        double *got[3] = {NULL, NULL, NULL};
        double *partials = ref_partials != NULL ? poisoned(s->rows * row_tiles * 5) : NULL;
        for (size_t o = 0; o < outs; o++)
            got[o] = poisoned(s->rows * len);
        v.x = y;
        v.cols = s->cols;
        v.out_cols = len;
        for (size_t o = 0; o < outs; o++)
            v.out[o] = got[o];
        v.partials = partials;
        int rc = 0;
        switch (s->kernel) {
        case K_BOLLINGER:
            rc = apo__cuda_bollinger(&v, s->a, s->up, s->dn, NULL);
            break;
        case K_MACD:
            rc = apo__cuda_macd(&v, s->a, s->b, s->c, NULL);
            break;
        case K_RETURNS_STATS:
            rc = apo__cuda_returns_stats(&v, NULL);
            break;
        case K_BOOTSTRAP:
            rc = apo__cuda_bootstrap(&v, 77, NULL);
            break;
        }
        cr_assert_eq(rc, CUDA_SUCCESS, "kernel %d %zux%zu: launch failed (%d): %s", (int)s->kernel,
                     s->rows, s->cols, rc, simt_last_failure());
        char what[128];
        snprintf(what, sizeof what, "kernel %d %zux%zu tile %zu view rows %zu+%zu [%zu, %zu)",
                 (int)s->kernel, s->rows, s->cols, s->tile, v.row0, v.rows, v.begin, v.end);
        for (size_t o = 0; o < outs; o++)
            bad += compare_outputs(ref[o], got[o], s->rows, len, &v, what);
        if (partials != NULL)
            bad += compare_partials(ref_partials, partials, len, &v, what);
        for (size_t o = 0; o < outs; o++)
            free(got[o]);
        free(partials);
        free(y);
    }
    for (int o = 0; o < 3; o++)
        free(ref[o]);
    free(ref_partials);
    free(x);
    return bad;
}

static void expect_cpu_bits(const shape *shapes, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const size_t bad = run_shape(&shapes[i]);
        cr_assert_eq(bad, 0, "%zu values differ from the cpu; the first: %s", bad, first_mismatch);
    }
}

/* The gpu suite's shapes (tests/gpu/test_gpu.c, tests/kernels/cuda/test_cuda_staging.c), kept
 * small: tile boundaries and ragged last tiles, several rows, chunks that start and end inside
 * rows, NaN runs, infinities, huge magnitudes, nbdev 0, tiles much shorter than the real ones (a
 * warp's lanes then span rows), bollinger's periods around the longest staged lookback
 * (96 takes the largest ring: 48128 bytes of dynamic shared memory; 97 the simple kernel),
 * and rows of many short tiles, whose inner warps take the staged fast path. */
static size_t gpu_suite_shapes(shape *out) {
    const size_t p20 = apo__bollinger_tile_len(20), t_macd = apo__macd_tile_len(12, 26, 9);
    const size_t t_ret = apo__returns_stats_tile_len(), t_boot = apo__bootstrap_tile_len();
    const shape all[] = {
        {K_BOLLINGER, 1, 4097, p20, INPUT_WALK, 20, 0, 0, 2, 2},
        {K_BOLLINGER, 3, 901, apo__bollinger_tile_len(2), INPUT_WALK, 2, 0, 0, 2, 2},
        {K_BOLLINGER, 7, 1001, 37, INPUT_GAPS, 5, 0, 0, 2, 2},
        {K_BOLLINGER, 5, 777, 50, INPUT_WALK, 96, 0, 0, 1.5, 2.5},
        {K_BOLLINGER, 3, 500, 64, INPUT_GAPS, 97, 0, 0, 2, 2},
        {K_BOLLINGER, 2, 999, 41, INPUT_HUGE, 20, 0, 0, 0, 0},
        {K_MACD, 1, 1, t_macd, INPUT_WALK, 12, 26, 9, 0, 0},
        {K_MACD, 1, t_macd + 77, t_macd, INPUT_GAPS, 12, 26, 9, 0, 0},
        {K_MACD, 6, 1201, 100, INPUT_GAPS, 12, 26, 9, 0, 0},
        {K_MACD, 4, 803, 37, INPUT_WALK, 26, 12, 9, 0, 0},
        {K_MACD, 4, 600, 16, INPUT_HUGE, 3, 5, 1, 0, 0},
        {K_RETURNS_STATS, 1, 1, t_ret, INPUT_WALK, 0, 0, 0, 0, 0},
        {K_RETURNS_STATS, 1, t_ret + 5, t_ret, INPUT_GAPS, 0, 0, 0, 0, 0},
        {K_RETURNS_STATS, 37, 300, t_ret, INPUT_WALK, 0, 0, 0, 0, 0},
        {K_RETURNS_STATS, 9, 1003, 33, INPUT_GAPS, 0, 0, 0, 0, 0},
        {K_RETURNS_STATS, 3, 700, 64, INPUT_HUGE, 0, 0, 0, 0, 0},
        {K_BOOTSTRAP, 1, 130, t_boot, INPUT_WALK, 33, 0, 0, 0, 0},
        {K_BOOTSTRAP, 3, 66, t_boot, INPUT_GAPS, 17, 0, 0, 0, 0},
        {K_BOOTSTRAP, 2, 2, t_boot, INPUT_WALK, 17, 0, 0, 0, 0},
        {K_BOOTSTRAP, 2, 131, t_boot, INPUT_HUGE, 9, 0, 0, 0, 0},
        /* Rows of 126 tiles of 16: warps of 32 full tiles of one row take the staged
         * kernels' fast path (stage.h), the row's first and last warps the general one. */
        {K_BOLLINGER, 2, 125 * 16 + 3, 16, INPUT_WALK, 5, 0, 0, 2, 2},
        {K_MACD, 2, 125 * 16 + 3, 16, INPUT_WALK, 12, 26, 9, 0, 0},
        {K_RETURNS_STATS, 2, 125 * 16 + 3, 16, INPUT_GAPS, 0, 0, 0, 0, 0},
    };
    memcpy(out, all, sizeof all);
    return sizeof all / sizeof all[0];
}

Test(cuda_simt, every_kernel_gives_the_cpu_bits_with_its_threads_running_at_once, .timeout = 600) {
    shape shapes[32];
    const size_t n = gpu_suite_shapes(shapes);
    const int variants[] = {APO_CUDA_KERNELS_STAGED, APO_CUDA_KERNELS_SIMPLE};
    for (size_t v = 0; v < 2; v++) {
        apo__cuda_kernels_set(variants[v]);
        set_options(SIMT_FREE, SIMT_COPIES_RANDOM, 11 + v, 0);
        simt_reset_stats();
        expect_cpu_bits(shapes, n);
        simt_stats st;
        simt_get_stats(&st);
        cr_assert_eq(st.failed_launches, 0);
        if (variants[v] == APO_CUDA_KERNELS_STAGED) {
            /* The staged code ran: warps synced, copies landed both ways, the largest ring
             * used its 48128 bytes, and bootstrap's 4-warp blocks their static buffer. */
            cr_assert_gt(st.barriers, 0);
            cr_assert_gt(st.copies_early, 0);
            cr_assert_gt(st.copies_late, 0);
            cr_assert_eq(st.most_dynamic_shared, 48128);
            cr_assert_eq(st.most_static_shared, 4 * 128 * sizeof(double));
            /* Both paths of the staged passes ran (stage.h): the rows of 126 tiles of 16
             * hold warps of 32 full tiles of one row, the other shapes none. */
            cr_assert_gt(st.staged_fast, 0);
            cr_assert_gt(st.staged_general, 0);
        } else {
            cr_assert_eq(st.copies_early + st.copies_late, 0);
            cr_assert_eq(st.most_block_threads, 256);
        }
    }
}

/* The shapes of bollinger with a period up to 32, which run as pairs of warps when asked
 * (kernels/cuda/bollinger_split.h). */
static size_t pair_shapes(shape *out, size_t longest_tile) {
    shape all[32];
    const size_t n_all = gpu_suite_shapes(all);
    size_t n = 0;
    for (size_t i = 0; i < n_all; i++)
        if (all[i].kernel == K_BOLLINGER && all[i].a <= 32 && all[i].tile <= longest_tile)
            out[n++] = all[i];
    return n;
}

Test(cuda_simt, bollinger_in_pairs_of_warps_gives_the_cpu_bits_with_its_threads_running_at_once,
     .timeout = 600) {
    shape shapes[32];
    const size_t n = pair_shapes(shapes, SIZE_MAX);
    cr_assert_geq(n, 4);
    apo__cuda_kernels_set(APO_CUDA_KERNELS_STAGED);
    apo__cuda_bollinger_split_set(1);
    set_options(SIMT_FREE, SIMT_COPIES_RANDOM, 21, 0);
    simt_reset_stats();
    expect_cpu_bits(shapes, n);
    simt_stats st;
    simt_get_stats(&st);
    apo__cuda_bollinger_split_set(0);
    cr_assert_eq(st.failed_launches, 0);
    /* The pairs ran: blocks of 64 threads, each with the input rings of a period up to 32 and
     * the window rings (2048 + 32 x 65 x 8 + 2 x 32 x 33 x 8 bytes), and both paths. */
    cr_assert_eq(st.most_block_threads, 64);
    cr_assert_eq(st.most_dynamic_shared, 35584);
    cr_assert_gt(st.barriers, 0);
    cr_assert_gt(st.staged_fast, 0);
    cr_assert_gt(st.staged_general, 0);
}

Test(cuda_simt, staged_kernels_give_the_cpu_bits_in_serial_orders_drawn_at_random, .timeout = 600) {
    /* The shapes with short tiles: every lane of a warp busy, many warps, few segments
     * each (the real tiles' thousands of segments add barriers, not orders). */
    shape all[32], shapes[32];
    const size_t n_all = gpu_suite_shapes(all);
    size_t n = 0;
    for (size_t i = 0; i < n_all; i++)
        if (all[i].tile <= 100)
            shapes[n++] = all[i];
    apo__cuda_kernels_set(APO_CUDA_KERNELS_STAGED);
    const simt_schedule schedules[] = {SIMT_SERIAL_RANDOM, SIMT_SERIAL_DESCENDING,
                                       SIMT_SERIAL_ASCENDING};
    const simt_copies copies[] = {SIMT_COPIES_RANDOM, SIMT_COPIES_LATE, SIMT_COPIES_EARLY};
    for (size_t i = 0; i < (under_tsan ? 1 : 3); i++) {
        set_options(schedules[i], copies[i], 100 + i, 0);
        expect_cpu_bits(shapes, n);
    }
    /* bollinger's pairs of warps in the same orders: either warp may run ahead of the other
     * up to the next barrier. */
    n = pair_shapes(shapes, 100);
    apo__cuda_bollinger_split_set(1);
    for (size_t i = 0; i < (under_tsan ? 1 : 3); i++) {
        set_options(schedules[i], copies[i], 200 + i, 0);
        expect_cpu_bits(shapes, n);
    }
    apo__cuda_bollinger_split_set(0);
}

/* ---- macd's tiles cut into pieces ----------------------------------------------------------- */

Test(cuda_simt, macd_cut_runs_again_every_piece_whose_states_differ, .timeout = 300) {
    /* Three tiles of 4096: the launch's budget gives each 32 pieces (h + 128 <= 2048). */
    cuda_macd_cut_case c;
    cuda_macd_cut_case_init(&c, 4096, 32, poison());
    apo__cuda_kernels_set(APO_CUDA_KERNELS_STAGED);
    set_options(SIMT_FREE, SIMT_COPIES_RANDOM, 31, 0);
    size_t pieces[2];
    cr_assert_eq(apo__cuda_macd_cut(&c.v, 12, 26, 9, apo__macd_warmup(12, 26, 9), NULL, pieces), 0,
                 "%s", simt_last_failure());
    /* Every piece after each tile's first run again: the first and third tiles' at their
     * states, the second tile whole. */
    cr_assert_eq(pieces[0], 3 * 32, "pieces %zu", pieces[0]);
    cr_assert_eq(pieces[1], 3 * 31, "run again %zu", pieces[1]);
    size_t bad = 0;
    for (int o = 0; o < 3; o++)
        bad += compare_outputs(c.want[o], c.got[o], 1, c.cols, &c.v,
                               "macd cut, every piece run again");
    cr_assert_eq(bad, 0, "%s", first_mismatch);
    cuda_macd_cut_case_free(&c);
}

/* ---- the planted fault: a barrier left out -------------------------------------------------- */

/* The shape run with barrier `skip` of every thread left out (bollinger as pairs of warps
 * where `pairs`); the values that differ. */
static size_t without_barrier(shape s, simt_schedule schedule, simt_copies copies,
                              unsigned long skip, int pairs) {
    apo__cuda_kernels_set(APO_CUDA_KERNELS_STAGED);
    apo__cuda_bollinger_split_set(pairs);
    set_options(schedule, copies, 5, skip);
    simt_reset_stats();
    const size_t bad = run_shape(&s);
    simt_stats st;
    simt_get_stats(&st);
    if (skip > 0)
        cr_assert_gt(st.skipped_barriers, 0, "barrier %lu was never reached", skip);
    set_options(SIMT_FREE, SIMT_COPIES_RANDOM, 1, 0);
    apo__cuda_bollinger_split_set(0);
    return bad;
}

Test(cuda_simt, a_barrier_left_out_of_a_staged_kernel_changes_its_bits, .timeout = 300) {
    const shape boll = {K_BOLLINGER, 7, 1001, 37, INPUT_WALK, 5, 0, 0, 2, 2};
    const shape macd = {K_MACD, 6, 1201, 100, INPUT_WALK, 12, 26, 9, 0, 0};
    const shape ret = {K_RETURNS_STATS, 9, 1003, 33, INPUT_WALK, 0, 0, 0, 0, 0};
    const shape boot = {K_BOOTSTRAP, 2, 130, apo__bootstrap_tile_len(), INPUT_WALK, 17, 0, 0, 0, 0};
    /* The same schedules with every barrier give the cpu's bits. */
    cr_assert_eq(without_barrier(boll, SIMT_SERIAL_DESCENDING, SIMT_COPIES_LATE, 0, 0), 0, "%s",
                 first_mismatch);
    cr_assert_eq(without_barrier(macd, SIMT_SERIAL_DESCENDING, SIMT_COPIES_LATE, 0, 0), 0, "%s",
                 first_mismatch);
    cr_assert_eq(without_barrier(ret, SIMT_SERIAL_DESCENDING, SIMT_COPIES_LATE, 0, 0), 0, "%s",
                 first_mismatch);
    cr_assert_eq(without_barrier(boot, SIMT_SERIAL_ASCENDING, SIMT_COPIES_LATE, 0, 0), 0, "%s",
                 first_mismatch);
    /* A warp's third barrier (bollinger, macd: after the lanes computed the first segment,
     * before the warp stores their outputs): lane 31 stores outputs lanes 1 to 29 have not
     * computed yet. */
    cr_assert_gt(without_barrier(boll, SIMT_SERIAL_DESCENDING, SIMT_COPIES_LATE, 3, 0), 0);
    cr_assert_gt(without_barrier(macd, SIMT_SERIAL_DESCENDING, SIMT_COPIES_LATE, 3, 0), 0);
    /* The fourth (returns_stats: after the copies of the second segment were waited for):
     * lane 31 reads samples that lanes 16 to 30 copy, before their copies land. */
    cr_assert_gt(without_barrier(ret, SIMT_SERIAL_DESCENDING, SIMT_COPIES_LATE, 4, 0), 0);
    /* bootstrap's first (after the lanes drew the first of the 3 rounds of 129 draws): lane
     * 0 adds draws the other lanes have not made yet. */
    cr_assert_gt(without_barrier(boot, SIMT_SERIAL_ASCENDING, SIMT_COPIES_LATE, 1, 0), 0);
    /* bollinger's pairs: with every barrier, the cpu's bits; without the third (the end of
     * the first trip, after the chain computed the first segment), the finish warp, whose
     * threads run first in descending order, reads windows the chain has not written yet. */
    cr_assert_eq(without_barrier(boll, SIMT_SERIAL_DESCENDING, SIMT_COPIES_LATE, 0, 1), 0, "%s",
                 first_mismatch);
    cr_assert_gt(without_barrier(boll, SIMT_SERIAL_DESCENDING, SIMT_COPIES_LATE, 3, 1), 0);
}

/* ---- the layer's own rules, on its probe kernels ---------------------------------------- */

Test(cuda_simt, every_thread_of_every_block_runs_once_with_its_indices, .timeout = 120) {
    const unsigned shapes[][6] = {{1, 1, 1, 1, 1, 1},
                                  {3, 2, 1, 8, 4, 2},
                                  {2, 1, 3, 33, 1, 1},
                                  {1, 1, 1, 1024, 1, 1},
                                  {5, 1, 1, 4, 4, 64}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const unsigned *s = shapes[i];
        const size_t blocks = (size_t)s[0] * s[1] * s[2], per = (size_t)s[3] * s[4] * s[5];
        unsigned *out = calloc(blocks * per, sizeof *out);
        cr_assert_not_null(out);
        cr_assert_eq(probe_indices(s[0], s[1], s[2], s[3], s[4], s[5], out), CUDA_SUCCESS, "%s",
                     simt_last_failure());
        for (size_t b = 0; b < blocks; b++)
            for (size_t t = 0; t < per; t++)
                cr_assert_eq(out[b * per + t], (unsigned)(t + 1000 * b),
                             "shape %zu: block %zu thread %zu", i, b, t);
        free(out);
    }
}

Test(cuda_simt, launches_beyond_the_limits_of_an_sm_90_device_fail, .timeout = 120) {
    unsigned *out = calloc(2048, sizeof *out);
    cr_assert_not_null(out);
    cr_assert_eq(probe_indices(1, 1, 1, 1025, 1, 1, out), CUDA_INVALID_CONFIGURATION);
    cr_assert_eq(probe_indices(1, 1, 1, 32, 33, 1, out), CUDA_INVALID_CONFIGURATION);
    cr_assert_eq(probe_indices(1, 1, 1, 1, 1, 65, out), CUDA_INVALID_CONFIGURATION);
    cr_assert_eq(probe_indices(0, 1, 1, 32, 1, 1, out), CUDA_INVALID_CONFIGURATION);
    cr_assert_eq(probe_indices(1, 65536, 1, 1, 1, 1, out), CUDA_INVALID_CONFIGURATION);
    cr_assert_eq(probe_indices(1, 1, 65536, 1, 1, 1, out), CUDA_INVALID_CONFIGURATION);
    cr_assert(strstr(simt_last_failure(), "grid") != NULL, "%s", simt_last_failure());
    free(out);

    /* Dynamic shared memory: 48 KiB without the opt-in, up to 227 KiB with it. */
    unsigned char touched = 0;
    cr_assert_eq(probe_dynamic_shared(48 * 1024, -1, &touched), CUDA_SUCCESS);
    cr_assert_eq(touched, 7);
    cr_assert_eq(probe_dynamic_shared(48 * 1024 + 8, -1, &touched), CUDA_INVALID_VALUE);
    cr_assert_eq(probe_dynamic_shared(0, 227 * 1024 + 1, &touched), CUDA_INVALID_VALUE);
    cr_assert_eq(probe_dynamic_shared(100000, 100000, &touched), CUDA_SUCCESS);
    cr_assert_eq(probe_dynamic_shared(100008, -1, &touched), CUDA_INVALID_VALUE);

    /* Static plus dynamic: 40000 static bytes leave 9152 dynamic ones. */
    double got[64];
    cr_assert_eq(probe_static_shared(9152, got), CUDA_SUCCESS, "%s", simt_last_failure());
    cr_assert_eq(got[63], 1.0);
    cr_assert_eq(probe_static_shared(9160, got), CUDA_INVALID_VALUE);
    cr_assert(strstr(simt_last_failure(), "40000 bytes of static") != NULL, "%s",
              simt_last_failure());
}

Test(cuda_simt, warp_intrinsics_exchange_the_lanes_values, .timeout = 120) {
    const simt_schedule schedules[] = {SIMT_FREE, SIMT_SERIAL_RANDOM};
    for (size_t s = 0; s < 2; s++) {
        set_options(schedules[s], SIMT_COPIES_RANDOM, 3, 0);
        int out[4 * 64];
        cr_assert_eq(probe_warp(64, out), CUDA_SUCCESS, "%s", simt_last_failure());
        for (unsigned t = 0; t < 64; t++) {
            const unsigned src = t / 32 * 32 + (t % 32 + 1) % 32;
            cr_assert_eq(out[4 * t], (int)src, "thread %u", t);
            cr_assert_eq((unsigned)out[4 * t + 1], 0x49249249u, "thread %u", t);
            cr_assert_eq(out[4 * t + 2], 1);
            cr_assert_eq(out[4 * t + 3], 1);
        }
    }
}

Test(cuda_simt, a_block_barrier_and_async_copies_order_shared_memory, .timeout = 120) {
    double out[256], src[64], got[64];
    for (unsigned i = 0; i < 64; i++)
        src[i] = 0.25 * i;
    const simt_schedule schedules[] = {SIMT_FREE, SIMT_SERIAL_RANDOM, SIMT_SERIAL_DESCENDING};
    for (size_t s = 0; s < 3; s++) {
        set_options(schedules[s], SIMT_COPIES_RANDOM, 9, 0);
        cr_assert_eq(probe_barrier(256, out), CUDA_SUCCESS, "%s", simt_last_failure());
        for (unsigned t = 0; t < 256; t++)
            cr_assert_eq(out[t], (double)((t + 1) % 256));
        cr_assert_eq(probe_copy(64, src, got), CUDA_SUCCESS, "%s", simt_last_failure());
        for (unsigned t = 0; t < 64; t++)
            cr_assert_eq(got[t], src[t / 32 * 32 + (t % 32 + 1) % 32]);
    }
    /* Without the barrier, the last thread runs first and reads a slot never written: the
     * layer's poison, a NaN. */
    set_options(SIMT_SERIAL_DESCENDING, SIMT_COPIES_LATE, 9, 1);
    cr_assert_eq(probe_barrier(256, out), CUDA_SUCCESS);
    cr_assert(isnan(out[255]) && out[0] == 1.0);
    cr_assert_eq(probe_copy(64, src, got), CUDA_SUCCESS);
    cr_assert(isnan(got[31]) && got[0] == src[1]);
    set_options(SIMT_FREE, SIMT_COPIES_RANDOM, 1, 0);
}

Test(cuda_simt, faults_of_the_device_code_fail_the_launch, .timeout = 120) {
    int out[64];
    double src[40] = {0};
    const simt_schedule schedules[] = {SIMT_FREE, SIMT_SERIAL_RANDOM};
    for (size_t s = 0; s < 2; s++) {
        set_options(schedules[s], SIMT_COPIES_RANDOM, 2, 0);
        cr_assert_eq(probe_exit(out), CUDA_LAUNCH_FAILURE);
        cr_assert(strstr(simt_last_failure(), "exited") != NULL, "%s", simt_last_failure());
        cr_assert_eq(probe_bad_copy(src), CUDA_LAUNCH_FAILURE);
        cr_assert(strstr(simt_last_failure(), "aligned") != NULL, "%s", simt_last_failure());
    }
}
