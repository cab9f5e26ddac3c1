/*
 * bollinger and macd path by path against their scalar tiles, through one driver
 * (cpu_isa_bollinger.h).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>

#include "cpu_isa_bollinger.h"
#include "kernels.h"
#include "three_output_kernels.h"

/* k's tiles `spans` on path isa. */
static void path_tiles(const three_kernel *k, const double *x, size_t rows, size_t cols,
                       const apo__tile_span *spans, size_t count, double *const out[3],
                       apo__cpu_isa isa) {
    if (k->kernel == THREE_BOLLINGER)
        apo__cpu_bollinger_tiles(x, rows, cols, spans, count, k->n[0], k->up, k->dn, out[0], out[1],
                                 out[2], isa);
    else
        apo__cpu_macd_tiles(x, rows, cols, spans, count, k->n[0], k->n[1], k->n[2], out[0], out[1],
                            out[2], isa);
}

/* Kernel k over rows x cols of flavour f (seeded by seed) in tiles of len, on every path this
 * machine supports and each of the given variants, against its scalar single tiles: asserts
 * every output's bits (the messages name the kernel, its parameters, the input, the path and
 * the variant) and returns how many path and variant combinations it compared. */
static size_t check_paths(const three_kernel *k, enum flavour f, size_t rows, size_t cols,
                          size_t len, uint64_t seed, const size_t *variants, size_t n_variants) {
    size_t checked = 0;
    const size_t n = rows * cols;
    double *x = make_input(f, rows, cols, seed);
    double *want[3], *got[3];
    for (int o = 0; o < 3; o++)
        want[o] = poisoned(n);
    for (size_t r = 0; r < rows; r++)
        for (size_t b = 0; b < cols; b += len) {
            double *const row_want[3] = {want[0] + r * cols, want[1] + r * cols,
                                         want[2] + r * cols};
            three_kernel_tile(k, x + r * cols, cols, b, b + len < cols ? b + len : cols, row_want);
        }
    char what[64];
    three_kernel_text(k, what, sizeof what);
    apo__tile_span spans[512];
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        for (size_t v = 0; v < n_variants; v++) {
            const size_t variant = variants[v];
            const int order = (int)(variant / N_GROUPINGS);
            const size_t count = make_spans(rows, cols, len, order, spans, 512);
            const size_t group = groupings[variant % N_GROUPINGS];
            for (int o = 0; o < 3; o++)
                got[o] = poisoned(n);
            streaming_for(variant);
            for (size_t g = 0; g < count; g += group)
                path_tiles(k, x, rows, cols, spans + g, count - g < group ? count - g : group, got,
                           (apo__cpu_isa)isa);
            streaming_as_built();
            for (int o = 0; o < 3; o++) {
                const size_t i = first_difference(want[o], got[o], n);
                cr_assert_eq(i, n,
                             "%s %s %zux%zu tiles of %zu, path %s, order %d: output %d, "
                             "element %zu: %a, scalar tiles give %a",
                             what, flavour_names[f], rows, cols, len,
                             apo__cpu_isa_name((apo__cpu_isa)isa), order, o, i,
                             i < n ? got[o][i] : 0.0, i < n ? want[o][i] : 0.0);
                free(got[o]);
            }
            checked++;
        }
    }
    for (int o = 0; o < 3; o++)
        free(want[o]);
    free(x);
    return checked;
}

size_t check_bollinger_paths(enum flavour f, size_t rows, size_t cols, size_t period, double up,
                             double dn, size_t len, const size_t *variants, size_t n_variants) {
    const three_kernel k = {THREE_BOLLINGER, {period, 0, 0}, up, dn};
    return check_paths(&k, f, rows, cols, len, 17 + period, variants, n_variants);
}

size_t check_macd_paths(enum flavour f, size_t rows, size_t cols, size_t fast, size_t slow,
                        size_t signal, size_t len, const size_t *variants, size_t n_variants) {
    const three_kernel k = {THREE_MACD, {fast, slow, signal}, 0, 0};
    return check_paths(&k, f, rows, cols, len, 29 + fast + slow, variants, n_variants);
}
