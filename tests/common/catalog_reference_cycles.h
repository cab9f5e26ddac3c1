/*
 * catalog_reference_cycles.h: an independent long-double reference for the catalog's
 * Hilbert-transform cycle indicators (docs/kernels/cycles.md, "Cycle indicators"), written plainly
 * from the definition (Ehlers' transform as TA-Lib defines it) with whole arrays indexed by bar,
 * nothing shared with kernels/.
 *
 * Gaps: the gap bars are taken out of the series, the definition runs over the bars left, and
 * its values go back to those bars' places, NaN elsewhere (obv's rule).
 */
#ifndef APO_TEST_CATALOG_REFERENCE_CYCLES_H
#define APO_TEST_CATALOG_REFERENCE_CYCLES_H

#include <stddef.h>

/* Which indicator: its outputs, in TA-Lib's order. */
typedef enum ref_ht_kind {
    REF_HT_DCPERIOD,  /* ht_dcperiod */
    REF_HT_DCPHASE,   /* ht_dcphase */
    REF_HT_PHASOR,    /* inphase, quadrature */
    REF_HT_SINE,      /* sine, leadsine */
    REF_HT_TRENDMODE, /* 1 in a trend, 0 in a cycle */
    REF_HT_TRENDLINE  /* ht_trendline */
} ref_ht_kind;

/* out[k][t] for t < n, out[1] only for the two-output kernels; NaN in the lookback (32 for
 * ht_dcperiod and ht_phasor, 63 for the others, counted in clean bars) and at gaps. */
void apo__ref_cat_ht(ref_ht_kind kind, const double *x, size_t n, double *const *out);

/* mama (out[0]) and fama (out[1]) at fastlimit `fast` and slowlimit `slow`, t < n; NaN in
 * the lookback (32 clean bars) and at gaps. */
void apo__ref_cat_mama(const double *x, size_t n, double fast, double slow, double *const *out);

#endif /* APO_TEST_CATALOG_REFERENCE_CYCLES_H */
