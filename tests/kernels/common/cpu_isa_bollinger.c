/*
 * bollinger path by path against its scalar tiles (cpu_isa_bollinger.h).
 */
#include <criterion/criterion.h>

#include <stdlib.h>

#include "cpu_isa_bollinger.h"
#include "kernels.h"

size_t check_bollinger_paths(enum flavour f, size_t rows, size_t cols, size_t period, double up,
                             double dn, size_t len, const size_t *variants, size_t n_variants) {
    size_t checked = 0;
    const size_t n = rows * cols;
    double *x = make_input(f, rows, cols, 17 + period);
    double *want[3], *got[3];
    for (int k = 0; k < 3; k++)
        want[k] = poisoned(n);
    for (size_t r = 0; r < rows; r++)
        for (size_t b = 0; b < cols; b += len)
            apo__cpu_bollinger_tile(x + r * cols, cols, b, b + len < cols ? b + len : cols, period,
                                    up, dn, want[0] + r * cols, want[1] + r * cols,
                                    want[2] + r * cols);
    apo__tile_span spans[512];
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        for (size_t v = 0; v < n_variants; v++) {
            const size_t variant = variants[v];
            const int order = (int)(variant / N_GROUPINGS);
            const size_t count = make_spans(rows, cols, len, order, spans, 512);
            const size_t group = groupings[variant % N_GROUPINGS];
            for (int k = 0; k < 3; k++)
                got[k] = poisoned(n);
            streaming_for(variant);
            for (size_t g = 0; g < count; g += group)
                apo__cpu_bollinger_tiles(x, rows, cols, spans + g,
                                         count - g < group ? count - g : group, period, up, dn,
                                         got[0], got[1], got[2], (apo__cpu_isa)isa);
            streaming_as_built();
            for (int k = 0; k < 3; k++) {
                const size_t i = first_difference(want[k], got[k], n);
                cr_assert_eq(i, n,
                             "bollinger %s %zux%zu period %zu nbdev %g/%g tiles of %zu, path %s, "
                             "order %d: output %d, element %zu: %a, scalar tiles give %a",
                             flavour_names[f], rows, cols, period, up, dn, len,
                             apo__cpu_isa_name((apo__cpu_isa)isa), order, k, i,
                             i < n ? got[k][i] : 0.0, i < n ? want[k][i] : 0.0);
                free(got[k]);
            }
            checked++;
        }
    }
    for (int k = 0; k < 3; k++)
        free(want[k]);
    free(x);
    return checked;
}
