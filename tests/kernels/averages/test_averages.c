/*
 * test_averages.c: the catalog's moving averages (kernels/averages/: sma, ema, wma, dema,
 * tema, kama) against independent long-double references (catalog_reference.c): sma and wma
 * slid plain between wide anchors, within window_plain.h's bound. Every kernel of the
 * catalog is also checked by the cases of common/: against its reference over lengths 1 to
 * 1e5, at its upper bound, in any tile order, its tiles joined, reading only its halo
 * (test_catalog_kernels.c and its slow counterpart for sma, ema, wma, dema and tema;
 * test_catalog_more.c and its slow counterpart for kama, with its recurrence over several
 * tiles); there too ema's first tile against TA-Lib's recursion, sma, wma and ema against
 * TA-Lib's published values, and the streams' pieces of sma, wma and ema. bollinger, the
 * built-in, is tested in tests/kernels/test_kernels.c.
 *
 * Measured worst errors are printed on stderr; docs/kernels.md quotes them.
 */
#include <criterion/criterion.h>

#include <stdio.h>

#include "catalog_dispatch.h"
#include "catalog_fixtures.h"
#include "window_plain.h"

/* sma and wma slid plain with anchors 128, 256 and 512 apart (window_plain.h, periods 65 to
 * APO_PLAIN_MAX): against the long-double reference, with gaps, at both ends of each spacing's
 * range and between, across the plain slide's old limit (1024) and on either side of its
 * present one (APO_PLAIN_MAX, the double-doubles' first past it). The bound of window_plain.h
 * is 1.7e-13 of the window's largest sample; the scale here is that sample. */
Test(catalog, sma_wma_slid_plain_between_wide_anchors, .timeout = 300) {
    const size_t periods[] = {APO_PLAIN_ANCHOR_NEAR + 1,
                              100,
                              APO_PLAIN_ANCHOR_MID,
                              APO_PLAIN_ANCHOR_MID + 1,
                              200,
                              APO_PLAIN_NEAR_MAX,
                              APO_PLAIN_NEAR_MAX + 1,
                              500,
                              APO_PLAIN_ANCHOR_FAR,
                              APO_PLAIN_ANCHOR_FAR + 1,
                              777,
                              1024,
                              1025,
                              2000,
                              APO_PLAIN_MAX,
                              APO_PLAIN_MAX + 1};
    const apo__cat_id ids[] = {APO_CAT_SMA, APO_CAT_WMA};
    for (size_t ii = 0; ii < 2; ii++) {
        const ref_kernel *k = kernel_of(ids[ii]);
        double worst = 0;
        for (size_t pi = 0; pi < sizeof periods / sizeof periods[0]; pi++)
            for (int gaps = 0; gaps < 2; gaps++) {
                series s;
                series_make(&s, 71 + pi, 6007, 1, 100.0, 0.5, gaps);
                const double p[4] = {(double)periods[pi], 0, 0, 0};
                char what[64];
                snprintf(what, sizeof what, "period %zu gaps %d", periods[pi], gaps);
                const double w = check_against_reference(k, &s, p, 1e-12, what);
                worst = w > worst ? w : worst;
                series_free(&s);
            }
        fprintf(stderr, "catalog %s slid plain, wide anchors: worst error %.2g of the scale\n",
                k->name, worst);
        cr_expect(worst < 1.7e-13, "%s: worst %g, above window_plain.h's bound", k->name, worst);
    }
}
