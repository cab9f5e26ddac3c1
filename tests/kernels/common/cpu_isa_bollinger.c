/*
 * bollinger path by path against its scalar tiles, and the driver it shares with macd's check
 * (cpu_isa_bollinger.h).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>

#include "cpu_isa_bollinger.h"
#include "kernels.h"

size_t check_paths(const path_kernel *k, enum flavour f, size_t rows, size_t cols, size_t len,
                   uint64_t seed, const size_t *variants, size_t n_variants) {
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
            k->scalar_tile(x + r * cols, cols, b, b + len < cols ? b + len : cols, k->params,
                           row_want);
        }
    char what[96];
    k->describe(k->params, what, sizeof what);
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
                k->tiles(x, rows, cols, spans + g, count - g < group ? count - g : group, k->params,
                         got, (apo__cpu_isa)isa);
            streaming_as_built();
            for (int o = 0; o < 3; o++) {
                const size_t i = first_difference(want[o], got[o], n);
                cr_assert_eq(i, n,
                             "%s %s %zux%zu %s tiles of %zu, path %s, order %d: output %d, "
                             "element %zu: %a, scalar tiles give %a",
                             k->name, flavour_names[f], rows, cols, what, len,
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

typedef struct bollinger_params {
    size_t period;
    double up, dn;
} bollinger_params;

static void bollinger_scalar_tile(const double *x, size_t cols, size_t b, size_t e,
                                  const void *params, double *const out[3]) {
    const bollinger_params *p = params;
    apo__cpu_bollinger_tile(x, cols, b, e, p->period, p->up, p->dn, out[0], out[1], out[2]);
}

static void bollinger_tiles(const double *x, size_t rows, size_t cols, const apo__tile_span *spans,
                            size_t count, const void *params, double *const out[3],
                            apo__cpu_isa isa) {
    const bollinger_params *p = params;
    apo__cpu_bollinger_tiles(x, rows, cols, spans, count, p->period, p->up, p->dn, out[0], out[1],
                             out[2], isa);
}

static void bollinger_describe(const void *params, char *buf, size_t size) {
    const bollinger_params *p = params;
    snprintf(buf, size, "period %zu nbdev %g/%g", p->period, p->up, p->dn);
}

size_t check_bollinger_paths(enum flavour f, size_t rows, size_t cols, size_t period, double up,
                             double dn, size_t len, const size_t *variants, size_t n_variants) {
    const bollinger_params p = {period, up, dn};
    const path_kernel k = {"bollinger", bollinger_scalar_tile, bollinger_tiles, bollinger_describe,
                           &p};
    return check_paths(&k, f, rows, cols, len, 17 + period, variants, n_variants);
}
