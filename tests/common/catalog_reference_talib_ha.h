/*
 * catalog_reference_talib_ha.h: an independent long-double reference for TA-Lib 0.8's
 * Heikin-Ashi candles, the catalog's ha (docs/kernels/transforms.md, "Heikin-Ashi (TA-Lib
 * 0.8)"), written from the definition: one sequential pass over the whole series in long
 * double, nothing shared with kernels/.
 *
 * The signature is catalog_reference_more.h's: out[k][t] for each output k (NaN where the
 * definition gives none, with the section's gap rule) and scale[k][t], the magnitude the
 * kernel's error is measured against.
 */
#ifndef APO_TEST_CATALOG_REFERENCE_TALIB_HA_H
#define APO_TEST_CATALOG_REFERENCE_TALIB_HA_H

#include <stddef.h>

#include "catalog_reference_more.h"

/* in: open, high, low, close; no parameters. Outputs haopen, hahigh, halow, haclose from the
 * series' first clean bar; a bar with a price that is not finite is NaN and the recurrence
 * skips it. scale: the largest abs(price) of the clean bars up to t (every output is a mean
 * of those prices or one of them). */
void apo__ref_cat_ha(const double *const *in, size_t n, const double *p, double *const *out,
                     double *const *scale);

#endif /* APO_TEST_CATALOG_REFERENCE_TALIB_HA_H */
