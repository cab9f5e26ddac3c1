/* Long-double references of the catalog's running sums; see catalog_reference_cumulative.h. */
#include "catalog_reference_cumulative.h"
#include "catalog_reference_common.h"

#include <math.h>
#include <stdlib.h>

static size_t *index_array(size_t n) {
    size_t *at = malloc((n > 0 ? n : 1) * sizeof *at);
    if (at == NULL)
        abort();
    return at;
}

void apo__ref_cat_obv(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    (void)p;
    const double *close = in[0], *volume = in[1];
    nan_fill_outputs(out, scale, 1, n);
    size_t *at = index_array(n);
    const size_t m = clean_bar_indices(in, 2, n, at);
    /* TA-Lib's OBV over the clean bars j = 0 .. m-1: the first one's volume, then plus or
     * minus each volume as its close is above or below the clean bar before it. */
    long double obv = 0, big = 0;
    for (size_t j = 0; j < m; j++) {
        const size_t t = at[j];
        if (j == 0)
            obv = volume[t];
        else if (close[t] > close[at[j - 1]])
            obv += volume[t];
        else if (close[t] < close[at[j - 1]])
            obv -= volume[t];
        big = fabsl(obv) > big ? fabsl(obv) : big;
        out[0][t] = (double)obv;
        scale[0][t] = (double)big;
    }
    free(at);
}

void apo__ref_cat_ad(const double *const *in, size_t n, const double *p, double *const *out,
                     double *const *scale) {
    (void)p;
    const double *high = in[0], *low = in[1], *close = in[2], *volume = in[3];
    nan_fill_outputs(out, scale, 1, n);
    size_t *at = index_array(n);
    const size_t m = clean_bar_indices(in, 4, n, at);
    /* TA-Lib's AD over the clean bars: the close location value (where the close lies in the
     * bar's range, -1 at the low to 1 at the high) times the volume, summed; a bar without a
     * positive range adds nothing. */
    long double ad = 0, big = 0;
    for (size_t j = 0; j < m; j++) {
        const size_t t = at[j];
        const long double h = high[t], l = low[t], c = close[t];
        if (h > l)
            ad += ((c - l) - (h - c)) / (h - l) * volume[t];
        const long double v = fabsl((long double)volume[t]);
        big = fabsl(ad) > big ? fabsl(ad) : big;
        big = v > big ? v : big;
        out[0][t] = (double)ad;
        scale[0][t] = (double)big;
    }
    free(at);
}
