/*
 * catalog_halo.c: see catalog_halo.h.
 */
#include "catalog_halo.h"

#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

void catalog_halo_tile(apo__cat_id id, const double *p, size_t *begin, size_t *end, size_t *n) {
    const size_t len = apo__catalog_tile_len(id, p), h = apo__catalog_halo(id, p);
    *begin = (h / len + 1) * len;
    *end = *begin + len;
    *n = *end + 100;
}

static double *doubles_of(size_t n, double v) {
    double *a = malloc(n * sizeof *a);
    cr_assert_not_null(a);
    for (size_t t = 0; t < n; t++)
        a[t] = v;
    return a;
}

void check_tile_reads_only_its_halo(apo__cat_id id, const double *p, const double *const *in,
                                    size_t n_in, size_t n, const char *name) {
    size_t b, e, need;
    catalog_halo_tile(id, p, &b, &e, &need);
    cr_assert(n >= e && n_in <= APO_CAT_MAX_IN);
    const size_t h = apo__catalog_halo(id, p);
    apo__cat_io whole, alone;
    memset(&whole, 0, sizeof whole);
    memset(&alone, 0, sizeof alone);
    double *poisoned[APO_CAT_MAX_IN] = {NULL};
    for (size_t i = 0; i < n_in; i++) {
        poisoned[i] = doubles_of(n, NAN);
        memcpy(poisoned[i] + (b - h), in[i] + (b - h), (e - (b - h)) * sizeof(double));
        whole.in[i] = in[i];
        alone.in[i] = poisoned[i];
    }
    /* The outputs a kernel does not write stay equal. */
    for (size_t o = 0; o < APO_CAT_MAX_OUT; o++) {
        whole.out[o] = doubles_of(n, -1.0);
        alone.out[o] = doubles_of(n, -1.0);
    }
    for (size_t j = 0; j < APO_CAT_MAX_PAR; j++)
        whole.p[j] = alone.p[j] = p[j];
    whole.h = alone.h = h;
    apo__cpu_catalog_tile(id, &whole, b, e);
    apo__cpu_catalog_tile(id, &alone, b, e);
    for (size_t o = 0; o < APO_CAT_MAX_OUT; o++)
        for (size_t t = b; t < e; t++)
            cr_assert(memcmp(&whole.out[o][t], &alone.out[o][t], sizeof(double)) == 0,
                      "%s(%g) output %zu: t %zu with the halo alone %.17g, whole %.17g (halo "
                      "%zu, tile %zu .. %zu)",
                      name, p[0], o, t, alone.out[o][t], whole.out[o][t], h, b, e);
    for (size_t o = 0; o < APO_CAT_MAX_OUT; o++) {
        free(whole.out[o]);
        free(alone.out[o]);
    }
    for (size_t i = 0; i < n_in; i++)
        free(poisoned[i]);
}
