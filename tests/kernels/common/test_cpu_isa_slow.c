/*
 * The slow suite's share of the vector paths of the CPU kernels (docs/kernels-vector-paths.md,
 * "Vector paths"; test_cpu_isa.c has the rest): on every path this machine supports, bollinger and
 * macd over every flavour of input, every shape and every grouping and order of tiles, with
 * streaming and ordinary stores, give bitwise the outputs of the scalar single-tile
 * functions. These two cases take about a minute of CPU, more than half of what the unit
 * suite may spend (tests/README.md, "The budget"), so they run in the `slow` suite, which CI
 * runs on every change.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_isa_bollinger.h"
#include "cpu_isa_inputs.h"
#include "kernels.h"
#include "reference.h"

/* How many path, grouping and order combinations the cases compared. */
static size_t paths_checked;

Test(cpu_isa, bollinger_every_path_gives_the_bits_of_the_scalar_tiles, .timeout = 300) {
    size_t every_variant[N_VARIANTS];
    for (size_t v = 0; v < N_VARIANTS; v++)
        every_variant[v] = v;
    static const struct {
        size_t rows, cols, period, len;
    } shapes[] = {
        {1, 100003, 20, 4096}, /* the runtime's grid for period 20, short last tile */
        {5, 9001, 2, 4096},    /* period 2: short runs, many restarts */
        {3, 12288, 3, 4096},   /* whole tiles only */
        {7, 5000, 50, 700},    /* tiles shorter than a round's stagger, several per row */
        {2, 20011, 300, 4800}, /* the runtime's grid for period 300 */
        {9, 37, 5, 16},        /* a few windows per tile */
        {4, 3, 2, 1},          /* one-sample tiles, the first ones without a full window */
        {2, 9, 1, 4},          /* period 1: every window is constant */
        {1, 20000, 1000, 16000},
    };
    static const double nbdev[][2] = {{2.0, 2.0}, {1.5, -0.5}, {0.0, 0.0}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int f = 0; f < FLAVOURS; f++)
            paths_checked += check_bollinger_paths(
                (enum flavour)f, shapes[s].rows, shapes[s].cols, shapes[s].period, nbdev[s % 3][0],
                nbdev[s % 3][1], shapes[s].len, every_variant, N_VARIANTS);
    cr_assert_gt(paths_checked, 0);
}

static void check_macd(enum flavour f, size_t rows, size_t cols, size_t fast, size_t slow,
                       size_t signal, size_t len) {
    size_t every_variant[N_VARIANTS];
    for (size_t v = 0; v < N_VARIANTS; v++)
        every_variant[v] = v;
    paths_checked +=
        check_macd_paths(f, rows, cols, fast, slow, signal, len, every_variant, N_VARIANTS);
}

Test(cpu_isa, macd_every_path_gives_the_bits_of_the_scalar_tiles, .timeout = 300) {
    static const struct {
        size_t rows, cols, fast, slow, signal, len;
    } cases[] = {
        {1, 70001, 12, 26, 9, 16384}, /* the runtime's grid, warm-up 809, short last tile */
        {3, 20000, 26, 12, 9, 3000},  /* swapped periods; warm-up longer than a tile */
        {5, 4000, 2, 3, 1, 500},      {2, 9000, 5, 35, 1, 2000}, {4, 300, 1, 1, 1, 64},
        {2, 5000, 3, 10, 16, 1024},   {9, 40, 2, 3, 1, 7}, /* tiles that end inside the seeds */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int f = 0; f < FLAVOURS; f++)
            check_macd((enum flavour)f, cases[c].rows, cases[c].cols, cases[c].fast, cases[c].slow,
                       cases[c].signal, cases[c].len);
    cr_assert_gt(paths_checked, 0);
}
