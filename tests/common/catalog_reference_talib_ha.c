/*
 * catalog_reference_talib_ha.c: see catalog_reference_talib_ha.h.
 */
#include "catalog_reference_talib_ha.h"

#include <math.h>

#include "catalog_reference_common.h"

void apo__ref_cat_ha(const double *const *in, size_t n, const double *p, double *const *out,
                     double *const *scale) {
    (void)p;
    for (size_t o = 0; o < 4; o++)
        nan_fill(out[o], scale[o], n);
    /* The previous clean bar's candle body, which the next haopen averages. */
    long double prev_open = 0, prev_close = 0, largest = 0;
    int started = 0;
    for (size_t t = 0; t < n; t++) {
        if (!clean(in, 4, t, t))
            continue;
        const long double o = in[0][t], h = in[1][t], l = in[2][t], c = in[3][t];
        largest = fmaxl(largest, fmaxl(fmaxl(fabsl(o), fabsl(h)), fmaxl(fabsl(l), fabsl(c))));
        const long double body_open = started ? (prev_open + prev_close) / 2 : (o + c) / 2;
        const long double body_close = (o + h + l + c) / 4;
        started = 1;
        prev_open = body_open;
        prev_close = body_close;
        out[0][t] = (double)body_open;
        out[1][t] = (double)fmaxl(h, fmaxl(body_open, body_close));
        out[2][t] = (double)fminl(l, fminl(body_open, body_close));
        out[3][t] = (double)body_close;
        for (size_t k = 0; k < 4; k++)
            scale[k][t] = (double)largest;
    }
}
