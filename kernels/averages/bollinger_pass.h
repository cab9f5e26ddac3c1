/*
 * bollinger_pass.h: bollinger's pass shared by band widths. Sets of a scored sweep that
 * differ only in nbdev_up and nbdev_dn run one pass of the sliding sums (this file's
 * apo__cpu_bollinger_pass_tile), and each width takes its bands from it with
 * apo__bollinger_pass_bands (docs/scores.md, "Scores"). The bands are bitwise those that
 * apo__cpu_bollinger_tile stores for that width: the pass runs the same tile body
 * (bollinger_tile.h) on the same tile grid, and only where it stores differs.
 */
#ifndef APO_BOLLINGER_PASS_H
#define APO_BOLLINGER_PASS_H

#include <stddef.h>

#include "apo_hd.h"
#include "bollinger_pass_flat.h"
#include "cpu_isa.h"
#include "tile_span.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The pass over tile [begin, end) of a row, with the conventions of apo__cpu_bollinger_tile
 * (bollinger.h): for each t, mean[t] is the window's mean before NaN canonicalisation and
 * sd[t] its standard deviation; a window with no deviation (the warm-up, a non-finite
 * sample) has sd NaN and mean the middle the tile would store; a constant window has the
 * constant as mean and sd APO_BOLLINGER_PASS_FLAT.
 */
void apo__cpu_bollinger_pass_tile(const double *x, size_t n, size_t begin, size_t end,
                                  size_t period, double *mean, double *sd);

/* `count` tiles of the pass at once on vector path `isa` (AUTO: the best), rows of `cols`
 * samples (see apo__tile_span): the bits of apo__cpu_bollinger_pass_tile for each, a
 * tile per lane (kernels/dispatch/pass_lanes_entry.h). The scored sweep's pass of a row
 * computes several consecutive tiles this way (runtime/catalog/score_pass.h). */
void apo__cpu_bollinger_pass_tiles(const double *x, size_t rows, size_t cols,
                                   const apo__tile_span *tiles, size_t count, size_t period,
                                   double *mean, double *sd, apo__cpu_isa isa);

/* The bands of one width at a bar of the pass, as apo__cpu_bollinger_tile stores them
 * (bollinger_tile.h, APO_BOLLINGER_PUT_*): out[0] upper, out[1] middle, out[2] lower. An sd
 * of NaN makes both bands NaN and leaves the middle as the tile stores it. */
static inline APO_HD void apo__bollinger_pass_bands(double mean, double sd, double nbdev_up,
                                                    double nbdev_dn, double *out) {
    if (sd < 0.0) {
        out[0] = out[1] = out[2] = mean;
        return;
    }
    out[0] = apo__canonical_nan(mean + nbdev_up * sd);
    out[1] = apo__canonical_nan(mean);
    out[2] = apo__canonical_nan(mean - nbdev_dn * sd);
}

/* The bands as apo__bollinger_pass_bands gives them but for the bits of a NaN, which are left
 * as the arithmetic makes them: for a built-in rule, which only compares the bands, so its
 * scores are the same bits, with fewer instructions per set and bar (docs/PERF.md). */
static inline APO_HD void apo__bollinger_pass_bands_compared(double mean, double sd,
                                                             double nbdev_up, double nbdev_dn,
                                                             double *out) {
    const int flat = sd < 0.0;
    out[0] = flat ? mean : mean + nbdev_up * sd;
    out[1] = mean;
    out[2] = flat ? mean : mean - nbdev_dn * sd;
}

#ifdef __cplusplus
}
#endif

#endif /* APO_BOLLINGER_PASS_H */
