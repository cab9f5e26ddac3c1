/* Long-double references of the oscillators of matype averages; see
 * catalog_reference_momentum_ma2.h. */
#include "catalog_reference_momentum_ma2.h"

#include <math.h>
#include <stdlib.h>

#include "catalog_reference_overlap.h"

static double *doubles(size_t n) {
    double *v = calloc(n ? n : 1, sizeof *v);
    if (v == NULL)
        abort();
    return v;
}

/* MA(period, matype) of the close and its scale, from the overlap studies' reference. */
static void ma_of(const double *const *in, size_t n, double period, double matype, double *ma,
                  double *scale) {
    const double p[2] = {period, matype};
    double *out[1] = {ma}, *sc[1] = {scale};
    apo__ref_cat_ma(in, n, p, out, sc);
}

/* The fast and slow averages: TA-Lib swaps the periods where slowperiod < fastperiod. Writes
 * out[0][t] = fast - slow (percent 0) or ((fast - slow) / slow) * 100, 0 where slow is 0. */
static void price_osc(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale, int percent) {
    const double fast_p = p[0] < p[1] ? p[0] : p[1], slow_p = p[0] < p[1] ? p[1] : p[0];
    double *fast = doubles(n), *fast_s = doubles(n), *slow = doubles(n), *slow_s = doubles(n);
    ma_of(in, n, fast_p, p[2], fast, fast_s);
    ma_of(in, n, slow_p, p[2], slow, slow_s);
    for (size_t t = 0; t < n; t++) {
        out[0][t] = NAN;
        scale[0][t] = NAN;
        if (!isfinite(fast[t]) || !isfinite(slow[t]))
            continue;
        const long double f = fast[t], s = slow[t], sc = (long double)fast_s[t] + slow_s[t];
        if (!percent) {
            out[0][t] = (double)(f - s);
            scale[0][t] = (double)sc;
        } else if (s == 0) {
            out[0][t] = 0;
            scale[0][t] = 0;
        } else {
            out[0][t] = (double)(((f - s) / s) * 100);
            scale[0][t] = (double)(100 * (sc + fabsl(f - s)) / fabsl(s));
        }
    }
    free(fast);
    free(fast_s);
    free(slow);
    free(slow_s);
}

void apo__ref_cat_apo(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    price_osc(in, n, p, out, scale, 0);
}

void apo__ref_cat_ppo(const double *const *in, size_t n, const double *p, double *const *out,
                      double *const *scale) {
    price_osc(in, n, p, out, scale, 1);
}
