/*
 * var_blocks.h: VAR and STDDEV for periods APO_VAR_DIRECT_MAX + 1 .. APO_VAR_BLOCKS_MAX in
 * blocks of plain sums (docs/kernels.md "var and stddev in blocks").
 *
 * The bars are cut into blocks of apo__var_block_len(p) bars at multiples of that length
 * (shifted_blocks.h). A block's first window is summed directly, its samples shifted by a value
 * c near its mean (apo__shifted_center): sx = sum (x - c) and sxx = sum (x - c)^2 in eight partial
 * sums of fixed samples (vector lanes on the CPU, one by one on a GPU: the same bits). The two sums
 * are then slid to the block's other bars in plain double, each adding its entering sample's terms
 * less the leaving one's, and var = (sxx - sx^2 / p) / p. Where the bound on the slide's rounding
 * (apo__shifted_bounds) may exceed APO_VAR_MARGIN of a bar's centred sum (a quiet stretch after
 * a jump, a constant window, a gap, an overflow, an underflow), the bar is evaluated from its
 * own window instead (apo__var_window), which also gives a constant window's exact 0 and a gap's
 * NaN. Every output is so a function of its data and absolute index alone: tiles, streams
 * (whose state is their position) and devices agree. About O(1) a bar plus p / len for the
 * direct sums, where the double-double slide this replaces cost about four times TA-Lib's
 * running sums (docs/perf-log/2026-11-25-catalog-round-8.md, "var and stddev in blocks").
 */
#ifndef APO_KERNELS_VAR_BLOCKS_H
#define APO_KERNELS_VAR_BLOCKS_H

#include <stdint.h>
#include <string.h>

#include "shifted_blocks.h"
#include "tile_vec.h"
#include "var_direct.h"

/* The longest period evaluated in blocks; longer ones slide double-doubles (var_tile.h). The
 * direct sums cost p / 64 a bar there (16 samples at 1024), and their bound grows as 3p / 8
 * ulps. */
#define APO_VAR_BLOCKS_MAX 1024

/* The bound on the relative error of a slid bar's variance: a quarter of the tests' 1e-12. */
#define APO_VAR_MARGIN 2.5e-13

/* The blocks' lengths. A longer block sums fewer windows directly (p / len a bar), but its
 * bound grows by 3 ulps a slid bar while the walk drifts from the block's shift, and the
 * cancellation in sxx - sx^2 / p, which the bound multiplies, grows with the drift. Simulated on
 * the bench's walks with this margin (docs/perf-log/2026-11-25-catalog-round-8.md, "var and stddev
 * in blocks"), a bar fell back once in 94 at period 33 with blocks of 32 (200,000 with 16), once in
 * 300 at 40, once in 60,000 to 110,000 at 100 (170 with 64), once in 2,400 at 200 with 64, almost
 * never at 512 and 1000 with 64. Blocks of 16 cost more than the fallbacks they save: a 1e4-bar
 * call took 23.0 and 23.2 us at periods 40 and 47 with 16, 19.9 and 19.8 with 32 (at 33, 22.7
 * against 23.2). So 32 bars below period 160, then 64. */
static inline APO_HD size_t apo__var_block_len(size_t p) { return p < 160 ? 32 : 64; }

/* Blocks whose loops run side by side (the CPU): one block's slide is a chain of one addition
 * a bar per sum, bound by the addition's latency, and so are its direct sums; four blocks'
 * chains interleave in one vector step. A GPU thread takes one block at a time. The bits of a
 * block do not depend on the blocks beside it: each performs its own operations in its order. */
#ifdef __CUDA_ARCH__
#define APO_VAR_GROUP 1
#else
#define APO_VAR_GROUP 4
#endif

/* The two sums of the windows of the bars of up to APO_VAR_GROUP blocks (bar k of block g at
 * [k][g], so that one vector step advances every block's sums) and the running largest sum of
 * squares of each block. */
typedef struct apo__var_sums {
    double sx[APO_SHIFTED_BLOCK_MAX_LEN][APO_VAR_GROUP],
        sxx[APO_SHIFTED_BLOCK_MAX_LEN][APO_VAR_GROUP],
        top[APO_SHIFTED_BLOCK_MAX_LEN][APO_VAR_GROUP];
} apo__var_sums;

/* The window w[0 .. p - 1]'s sums shifted by c in the partials of shifted_blocks.h, one by
 * one, into a (the dx partials) and a + 8 (the dx^2 partials). */
static inline APO_HD void apo__var_parts_scalar(const double *w, size_t p, double c, double *a) {
    const size_t r = p % APO_PARTS;
    for (size_t l = 0; l < 2 * APO_PARTS; l++)
        a[l] = 0.0;
    for (size_t l = 0; l < r; l++) {
        const double d = w[l] - c;
        a[l] += d;
        a[APO_PARTS + l] += d * d;
    }
    for (size_t i = r; i < p; i += APO_PARTS)
        for (size_t l = 0; l < APO_PARTS; l++) {
            const double d = w[i + l] - c;
            a[l] += d;
            a[APO_PARTS + l] += d * d;
        }
}

#ifdef APO_TILE_LANES
/* The same for the first windows of `count` blocks at once (count a constant where this is
 * inlined, so that the sums stay in registers), their chains interleaved: window g ends at
 * b[g], its shift is c[g] and its partials go to a[g]. p >= 8, so the first 8 samples are the
 * window's: each lane performs what the scalar loop does for its partial, a lane past r of the
 * first 8 samples adding +0 to 0.0 where the scalar loop adds nothing (the same +0). */
static inline void apo__var_parts_lanes(const double *x, const size_t *b, size_t count, size_t p,
                                        const double *c, double (*a)[2 * APO_PARTS]) {
    enum { V = APO_PARTS / APO_TILE_LANES };
    static const int64_t lane_no[APO_PARTS] = {0, 1, 2, 3, 4, 5, 6, 7};
    const size_t r = p % APO_PARTS;
    const apo_tv zero = {0};
    const double *w[APO_VAR_GROUP];
    apo_tv vc[APO_VAR_GROUP], ax[APO_VAR_GROUP][V], axx[APO_VAR_GROUP][V];
    for (size_t g = 0; g < count; g++) {
        w[g] = x + b[g] + 1 - p;
        vc[g] = zero + c[g];
    }
    for (size_t v = 0; v < V; v++) {
        apo_tm keep;
        memcpy(&keep, lane_no + v * APO_TILE_LANES, sizeof keep);
        keep = keep < (int64_t)r;
        for (size_t g = 0; g < count; g++) {
            const apo_tv d =
                (apo_tv)((apo_tm)(apo_tv_load(w[g] + v * APO_TILE_LANES) - vc[g]) & keep);
            ax[g][v] = zero + d;
            axx[g][v] = zero + d * d;
        }
    }
    for (size_t i = r; i < p; i += APO_PARTS)
        for (size_t g = 0; g < count; g++)
            for (size_t v = 0; v < V; v++) {
                const apo_tv d = apo_tv_load(w[g] + i + v * APO_TILE_LANES) - vc[g];
                ax[g][v] += d;
                axx[g][v] += d * d;
            }
    for (size_t g = 0; g < count; g++)
        for (size_t v = 0; v < V; v++) {
            apo_tv_store(a[g] + v * APO_TILE_LANES, ax[g][v]);
            apo_tv_store(a[g] + APO_PARTS + v * APO_TILE_LANES, axx[g][v]);
        }
}
#endif

/* The variance of the window w[0 .. p - 1] alone, for a bar that fails the bound: shifted by
 * its newest sample (so a constant window is exactly 0 and a non-finite sample NaN, as in
 * var_direct.h), the mean of the shifted samples, then the sum of the squared deviations from
 * it, each sum in the partials of shifted_blocks.h (the compiler widens the partials' loop,
 * each lane doing one partial's additions in order: the same bits on every path): about 2p / 8
 * dependent additions, where one chain over the window cost eight times as long. Within about
 * (p / 8 + 8) ulps of the variance. */
static inline APO_HD double apo__var_window(const double *w, size_t p, double inv_p) {
    const double c = w[p - 1];
    const size_t r = p % APO_PARTS;
    double a[APO_PARTS];
    for (size_t l = 0; l < APO_PARTS; l++)
        a[l] = 0.0;
    for (size_t l = 0; l < r; l++)
        a[l] += w[l] - c;
    for (size_t i = r; i < p; i += APO_PARTS)
        for (size_t l = 0; l < APO_PARTS; l++)
            a[l] += w[i + l] - c;
    const double mean = apo__parts_combine(a) * inv_p;
    for (size_t l = 0; l < APO_PARTS; l++)
        a[l] = 0.0;
    for (size_t l = 0; l < r; l++) {
        const double d = (w[l] - c) - mean;
        a[l] += d * d;
    }
    for (size_t i = r; i < p; i += APO_PARTS)
        for (size_t l = 0; l < APO_PARTS; l++) {
            const double d = (w[i + l] - c) - mean;
            a[l] += d * d;
        }
    return apo__parts_combine(a) * inv_p;
}

/* The sums of `count` blocks of n bars each, starting at b[0 .. count - 1], into s: each
 * block's first window summed directly, then each bar's terms, then the running sums, the
 * blocks' chains side by side (one vector addition a bar per sum, where the compiler widens
 * it). */
static inline APO_HD void apo__var_group_sums(const double *x, size_t p, const size_t *b,
                                              size_t count, size_t n, apo__var_sums *s) {
    double c[APO_VAR_GROUP], a[APO_VAR_GROUP][2 * APO_PARTS];
    for (size_t g = 0; g < count; g++)
        c[g] = apo__shifted_center(x, b[g], p, apo__var_block_len(p));
#ifdef APO_TILE_LANES
    apo__var_parts_lanes(x, b, count, p, c, a);
#else
    for (size_t g = 0; g < count; g++)
        apo__var_parts_scalar(x + b[g] + 1 - p, p, c[g], a[g]);
#endif
    double gx[APO_SHIFTED_BLOCK_MAX_LEN][APO_VAR_GROUP],
        gxx[APO_SHIFTED_BLOCK_MAX_LEN][APO_VAR_GROUP];
    for (size_t g = 0; g < count; g++) {
        s->sx[0][g] = apo__parts_combine(a[g]);
        s->sxx[0][g] = apo__parts_combine(a[g] + APO_PARTS);
        s->top[0][g] = s->sxx[0][g];
        for (size_t k = 1; k < n; k++) {
            const double in = x[b[g] + k] - c[g], out = x[b[g] + k - p] - c[g];
            gx[k][g] = in - out;
            gxx[k][g] = in * in - out * out;
        }
    }
    for (size_t k = 1; k < n; k++)
        for (size_t g = 0; g < count; g++) {
            s->sx[k][g] = s->sx[k - 1][g] + gx[k][g];
            s->sxx[k][g] = s->sxx[k - 1][g] + gxx[k][g];
            /* A NaN sum leaves the largest as it was; its centred sum is NaN and fails the
             * bound. */
            s->top[k][g] = s->sxx[k][g] > s->top[k - 1][g] ? s->sxx[k][g] : s->top[k - 1][g];
        }
}

/* Bars from .. b[count - 1] + n - 1 of `count` blocks of n bars (from lies in the first): the
 * slid sums' variance where the bound e allows it, else the bar's own window's; into out_var
 * and sqrt(var) * nbdev into out_sd (either NULL: not wanted). */
static inline APO_HD void apo__var_group_out(const double *x, size_t p, double nbdev,
                                             const double *e, const size_t *b, size_t count,
                                             size_t n, size_t from, double *out_var,
                                             double *out_sd) {
    apo__var_sums s;
    apo__var_group_sums(x, p, b, count, n, &s);
    const double inv_p = 1.0 / (double)p;
    double var[APO_VAR_GROUP][APO_SHIFTED_BLOCK_MAX_LEN];
    int64_t bad = 0;
    for (size_t k = 0; k < n; k++)
        for (size_t g = 0; g < count; g++) {
            const double centred = s.sxx[k][g] - s.sx[k][g] * s.sx[k][g] * inv_p;
            const int64_t ok = e[k] * s.top[k][g] + APO_SHIFTED_TINY < APO_VAR_MARGIN * centred;
            bad |= !ok;
            /* A bar that fails the bound is marked by a NaN, which no bar that passes it has
             * (its centred sum is positive and finite). */
            var[g][k] = ok ? centred * inv_p : NAN;
        }
    for (size_t g = 0; g < count; g++) {
        const size_t k0 = g == 0 ? from - b[0] : 0;
        if (bad)
            for (size_t k = k0; k < n; k++)
                if (var[g][k] != var[g][k])
                    var[g][k] = apo__var_window(x + b[g] + k + 1 - p, p, inv_p);
        if (out_var != NULL)
            for (size_t k = k0; k < n; k++)
                out_var[b[g] + k] = apo__canonical_nan(var[g][k]);
        if (out_sd != NULL) {
            apo__var_roots(var[g] + k0, n - k0, nbdev);
            for (size_t k = k0; k < n; k++)
                out_sd[b[g] + k] = apo__canonical_nan(var[g][k]);
        }
    }
}

/* The bars begin .. end - 1 in blocks (APO_VAR_DIRECT_MAX < p <= APO_VAR_BLOCKS_MAX):
 * APO_VAR_GROUP whole blocks at a time where the bars hold them, else one. */
static inline APO_HD void apo__var_blocks(const double *x, size_t p, double nbdev, size_t begin,
                                          size_t end, double *out_var, double *out_sd) {
    size_t t = apo__var_lead(p, begin, end, out_var, out_sd);
    const size_t len = apo__var_block_len(p);
    double e[APO_SHIFTED_BLOCK_MAX_LEN];
    apo__shifted_bounds(p, len, e);
    while (t < end) {
        const size_t b = apo__shifted_anchor(t, p, len);
        if (b == t && b % len == 0 && end - t >= APO_VAR_GROUP * len) {
            size_t group[APO_VAR_GROUP];
            for (size_t g = 0; g < APO_VAR_GROUP; g++)
                group[g] = t + g * len;
            apo__var_group_out(x, p, nbdev, e, group, APO_VAR_GROUP, len, t, out_var, out_sd);
            t += APO_VAR_GROUP * len;
            continue;
        }
        const size_t block_end = b - b % len + len;
        const size_t stop = block_end < end ? block_end : end;
        apo__var_group_out(x, p, nbdev, e, &b, 1, stop - b, t, out_var, out_sd);
        t = block_end;
    }
}

#endif /* APO_KERNELS_VAR_BLOCKS_H */
