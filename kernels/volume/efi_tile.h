/*
 * efi_tile.h: EFI(timeperiod), TA-Lib 0.8's Elder force index: the EMA of rate k = 2/(p+1) of
 * the force `(close[t] - close[t-1]) * volume[t]`, seeded with the mean of the first p forces
 * (their sum in index order over p), then `e = (force - e) * k + e` (TA-Lib's EMA order, ema's);
 * at p = 1 the force itself (TA-Lib's: k = 1 would round). Inputs close, volume; lookback p
 * (the first force needs the close before it).
 *
 * Tile: ema's recurrence design ("Recurrences"): a tile [begin, end) runs the definition from
 * w0 = max(0, begin - halo), the halo p plus the steps the EMA takes to forget its seed (to
 * 2^-64), and emits [begin, end) only, so the outputs are a pure function of the tile grid and
 * the first tile has TA-Lib's operations. Gaps: a force whose close, close before or volume is
 * not finite gives NaN and the EMA skips it; the seed is the mean of the first p finite forces.
 * Stream: NONE (a piece re-runs its tile).
 */
#ifndef APO_KERNELS_EFI_TILE_H
#define APO_KERNELS_EFI_TILE_H

#include "catalog.h"

static inline APO_HD void apo__efi_tile(const apo__cat_io *io, size_t begin, size_t end) {
    const double *close = io->in[0], *volume = io->in[1];
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const double k = 2.0 / ((double)p + 1.0);
    const size_t w0 = begin > io->h ? begin - io->h : 0;
    if (begin == w0)
        out[begin] = NAN;
    size_t seen = 0;
    double e = 0.0;
    for (size_t t = w0 + 1; t < end; t++) {
        const double c = close[t], prev = close[t - 1], v = volume[t];
        const double force = (c - prev) * v;
        const int clean = apo__finite(c) & apo__finite(prev) & apo__finite(v);
        if (!clean || seen < p) {
            if (clean) {
                e += force;
                seen++;
                if (seen == p)
                    e = e / (double)p;
            }
            if (t >= begin)
                out[t] = clean && seen == p ? apo__canonical_nan(e) : (double)NAN;
            continue;
        }
        e = p == 1 ? force : (force - e) * k + e;
        if (t >= begin)
            out[t] = apo__canonical_nan(e);
    }
}

#endif /* APO_KERNELS_EFI_TILE_H */
