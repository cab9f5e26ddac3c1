/*
 * trig_tv.h: trig.h's atan, asin, acos, sin, cos and tan in the vector lanes of tile_vec.h, each
 * lane with the operations of apo__atan (apo__sin, ...) in its order on its own value, so each lane
 * gives the scalar function's bits (and so the GPU's: -ffp-contract=off covers vector code too).
 * Host only: defined where tile_vec.h defines APO_TILE_LANES.
 *
 * Why: apo__atan branches on its argument (the reduction of |x| > 1, the table's cell, the
 * tiny and huge cases), and apo__sin, apo__cos and apo__tan on the quadrant, so gcc keeps their
 * loops scalar, a sample's double-double work one after another (atan 57 ns a sample at 1e6 on
 * the Zen 3 VM, TA-Lib's 13). Here every arm is computed in every lane (both series for sin and
 * cos) and the lane's own selected, so APO_TILE_LANES samples go at once and no branch waits on
 * a quadrant. The series are trig.h's lists (APO__TRIG_SIN_SERIES, ...), the table of
 * atan(k/16) arrays of its list (APO_TRIG_ATAN_TABLE), read by apo__trig_cell_tv. Every function is
 * always inlined: left to gcc, the angle and the cosine's series stayed calls once six tiles
 * used them, their double-doubles of vectors returned through memory (atan 0.38 ms at 1e4 bars
 * where it had taken 0.19, sin 0.14 against 0.08).
 */
#ifndef APO_KERNELS_TRIG_TV_H
#define APO_KERNELS_TRIG_TV_H

#include "dd_tv.h"
#include "force_inline.h"
#include "trig.h"

#ifdef APO_TILE_LANES

/* apo__trig_two_prod in lanes: the FMA instruction where the path has it, else Dekker's. */
static APO_FORCE_INLINE apo__dd_tv apo__trig_two_prod_tv(apo_tv a, apo_tv b) {
#ifdef APO_TRIG_FMA
    const apo_tv p = a * b;
    return apo__dd_tv_make(p, apo_tv_fma(a, b, -p));
#else
    return apo__two_prod_tv(a, b);
#endif
}

/* trunc(v) for 0 <= v < 2^51, lane by lane: the nearest integer, less one where it is above. */
static APO_FORCE_INLINE apo_tv apo__trunc_small_tv(apo_tv v) {
    const apo_tv big = apo_tv_splat(0x1p52);
    const apo_tv near = (v + big) - big;
    return apo_tv_pick(near > v, near - 1.0, near);
}

/* apo__trig_div in lanes. */
static APO_FORCE_INLINE apo__dd_tv apo__trig_div_tv(apo__dd_tv num, apo__dd_tv den) {
    const apo_tv q = num.hi / den.hi;
    const apo__dd_tv p = apo__trig_two_prod_tv(q, den.hi);
    const apo_tv rest = (((num.hi - p.hi) - p.lo) + num.lo) - q * den.lo;
    return apo__quick_two_sum_tv(q, rest / den.hi);
}

/* table[cell] in each lane, for a table of 17 doubles and whole cells 0 .. 16: on avx512 a
 * permute of two registers of the table (cells 0 .. 15: the low bits of cell + 2^52 are the
 * cell) and cell 16 picked; on avx2 a gather; else lane by lane. The same values either way: a
 * lane's cell read from memory had stored its k and loaded the cells back, which took a tenth
 * of atan's time on the Xeon 5 VM (docs/perf-log/2026-12-01-atan-cells.md). */
static APO_FORCE_INLINE apo_tv apo__trig_cell_tv(const double *table, apo_tv cell) {
#if APO_TILE_LANES == 8
    const __m512i low_bits = _mm512_castpd_si512((__m512d)(cell + 0x1p52));
    const apo_tv first16 = (apo_tv)_mm512_permutex2var_pd(_mm512_loadu_pd(table), low_bits,
                                                          _mm512_loadu_pd(table + 8));
    return apo_tv_pick(cell == 16.0, apo_tv_splat(table[16]), first16);
#elif APO_TILE_LANES == 4 && defined(__AVX2__)
    const __m256i index = _mm256_sub_epi64(_mm256_castpd_si256((__m256d)(cell + 0x1p52)),
                                           _mm256_castpd_si256(_mm256_set1_pd(0x1p52)));
    return (apo_tv)_mm256_i64gather_pd(table, index, 8);
#else
    apo_tv v;
    for (size_t l = 0; l < APO_TILE_LANES; l++)
        v[l] = table[(size_t)cell[l]];
    return v;
#endif
}

/* apo__trig_atan01 in lanes, for lanes whose t.hi is in [0, 1] (other lanes give values the
 * caller does not select). */
static APO_FORCE_INLINE apo__dd_tv apo__trig_atan01_tv(apo__dd_tv t) {
    /* k = ((int)(32 t) + 1) >> 1 as doubles: both truncations exact for 0 <= 32 t <= 32. */
    const apo_tv k = apo__trunc_small_tv((apo__trunc_small_tv(t.hi * 32.0) + 1.0) * 0.5);
    const apo_tv c = k * 0.0625;
    const apo__dd_tv num = apo__two_sum_tv(t.hi - c, t.lo);
    const apo__dd_tv tc = apo__trig_two_prod_tv(t.hi, c);
    const apo__dd_tv one_tc = apo__two_sum_tv(apo_tv_splat(1.0), tc.hi);
    const apo__dd_tv den = apo__quick_two_sum_tv(one_tc.hi, one_tc.lo + tc.lo + t.lo * c);
    const apo__dd_tv u = apo__trig_div_tv(num, den);
    const apo_tv z = u.hi * u.hi;
    apo_tv p;
    APO__TRIG_ATAN_SERIES(p, z, apo_tv_splat);
    const apo_tv series = u.lo + u.hi * z * p;
    /* atan(k/16) of each lane's cell (cell 0, k = 0, is not selected; a lane the caller drops
     * may hold any k and reads cell 0). */
    const apo_tv cell = apo_tv_pick((k >= 1.0) & (k <= 16.0), k, apo_tv_splat(0.0));
    const apo_tv bhi = apo__trig_cell_tv(apo__trig_atan_hi, cell);
    const apo_tv blo = apo__trig_cell_tv(apo__trig_atan_lo, cell);
    const apo__dd_tv s = apo__two_sum_tv(bhi, u.hi);
    const apo__dd_tv with_base = apo__quick_two_sum_tv(s.hi, s.lo + (blo + series));
    const apo__dd_tv alone = apo__quick_two_sum_tv(u.hi, series);
    const apo_tm first = k == 0.0;
    return apo__dd_tv_make(apo_tv_pick(first, alone.hi, with_base.hi),
                           apo_tv_pick(first, alone.lo, with_base.lo));
}

/* apo__trig_angle in lanes, for lanes with 0 <= y and 0 < x (others give values the caller
 * does not select): both arms, y <= x and pi/2 - atan(x / y), with one division. */
static APO_FORCE_INLINE apo__dd_tv apo__trig_angle_tv(apo__dd_tv y, apo__dd_tv x) {
    const apo_tm small = y.hi <= x.hi;
    const apo__dd_tv num =
        apo__dd_tv_make(apo_tv_pick(small, y.hi, x.hi), apo_tv_pick(small, y.lo, x.lo));
    const apo__dd_tv den =
        apo__dd_tv_make(apo_tv_pick(small, x.hi, y.hi), apo_tv_pick(small, x.lo, y.lo));
    const apo__dd_tv a = apo__trig_atan01_tv(apo__trig_div_tv(num, den));
    const apo__dd_tv s = apo__two_sum_tv(apo_tv_splat(APO_TRIG_PIO2_HI), -a.hi);
    const apo__dd_tv rest = apo__quick_two_sum_tv(s.hi, s.lo + (APO_TRIG_PIO2_LO - a.lo));
    return apo__dd_tv_make(apo_tv_pick(small, a.hi, rest.hi), apo_tv_pick(small, a.lo, rest.lo));
}

/* apo__atan of each lane from a, the angle of |x| as a double-double: the tiny, huge and NaN
 * cases and the sign, each a select. */
static APO_FORCE_INLINE apo_tv apo__atan_tv_of(apo_tv x, apo_tv ax, apo__dd_tv a) {
    apo_tv v = apo_tv_pick(ax > 0x1p60, apo_tv_splat(APO_TRIG_PIO2_HI), a.hi + a.lo);
    v = apo_tv_pick(x < 0.0, -v, v);
    v = apo_tv_pick(ax < 0x1p-27, x, v);
    return apo_tv_pick(x != x, apo_tv_splat((double)NAN), v);
}

/* apo__atan of each lane: apo__trig_angle((|x|, 0), (1, 0)), then apo__atan_tv_of. */
static APO_FORCE_INLINE apo_tv apo__atan_tv(apo_tv x) {
    const apo_tv ax = apo_tv_abs(x), zero = apo_tv_splat(0.0);
    const apo__dd_tv a =
        apo__trig_angle_tv(apo__dd_tv_make(ax, zero), apo__dd_tv_make(apo_tv_splat(1.0), zero));
    return apo__atan_tv_of(x, ax, a);
}

/* apo__atan_tv for values mostly at most 1 in magnitude (linearreg_angle's slopes): where every
 * lane is, the angle's exact division by one is left out, as apo__atan leaves it out, so the
 * same bits (linearreg_angle 0.73 of its time on the Zen 4 VM). Not apo__atan_tv's own test:
 * there the second copy of the table's step cost the atan kernel, whose prices are above 1,
 * 16% more time. */
static APO_FORCE_INLINE apo_tv apo__atan_small_tv(apo_tv x) {
    const apo_tv ax = apo_tv_abs(x);
    if (!apo_tm_all(ax <= 1.0))
        return apo__atan_tv(x);
    return apo__atan_tv_of(x, ax, apo__trig_atan01_tv(apo__dd_tv_make(ax, apo_tv_splat(0.0))));
}

#ifdef APO_TRIG_FMA
/* The short route's value (trig.h, apo__trig_atan01_short_value) in every lane, for t = t_hi +
 * t_lo in [0, 1], every lane in cell k: the same operations lane by lane. */
static APO_FORCE_INLINE apo__dd_tv apo__trig_atan_cell_tv(int k, apo_tv t_hi, apo_tv t_lo) {
    const double *c = apo__trig_atan_cells[k];
    apo_tv a[APO_TRIG_ATAN_CELL_TERMS];
    for (int i = 0; i < APO_TRIG_ATAN_CELL_TERMS; i++)
        a[i] = apo_tv_splat(c[i]);
    const apo_tv h = t_hi - (double)k * 0.0625;
    const apo_tv h2 = h * h, h4 = h2 * h2, h8 = h4 * h4;
    const apo_tv e0 = apo_tv_fma(a[3], h, a[2]), e1 = apo_tv_fma(a[5], h, a[4]);
    const apo_tv e2 = apo_tv_fma(a[7], h, a[6]), e3 = apo_tv_fma(a[9], h, a[8]);
    const apo_tv e4 = apo_tv_fma(a[11], h, a[10]), e5 = apo_tv_fma(a[13], h, a[12]);
    const apo_tv f0 = apo_tv_fma(e1, h2, e0), f1 = apo_tv_fma(e3, h2, e2);
    const apo_tv f2 = apo_tv_fma(e5, h2, e4);
    const apo_tv p = apo_tv_fma(f2, h8, apo_tv_fma(f1, h4, f0));
    const apo_tv b0h = c[0] * h, b0h_err = apo_tv_fma(a[0], h, -b0h);
    const double base_hi = apo__trig_atan_hi[k];
    const apo_tv hi = base_hi + b0h, sum_err = b0h - (hi - base_hi);
    const apo_tv lo = (sum_err + apo__trig_atan_lo[k]) +
                      (b0h_err + (c[1] * h + t_lo * apo_tv_fma(a[2] * 2.0, h, a[0])));
    return apo__dd_tv_make(hi, apo_tv_fma(h2, p, lo));
}

/* apo__atan of each lane by the scalar atan's short route where every lane is in [2^-27, 2^60]
 * in magnitude, all on one side of one and in one cell of the table, the double-double route
 * for a lane the route's rounding test leaves undecided; elsewhere apo__atan_tv. The same bits
 * either way, since the route decides only where its value rounds as the double-double route's
 * does (trig.h). Why: apo__atan_tv runs the double-double route in
 * every lane, two of its divisions one after the other, where a series of prices (above 32:
 * their inverses all in cell 0) or any series moving slowly keeps its lanes in one cell; lanes
 * of different cells would need their rows gathered, which measured slower than the
 * double-double route (docs/kernels/transforms.md). On the side above one, 1/|x|'s low part is
 * the exact remainder times 1/|x| rather than over |x| (2^-53 of that part, inside the
 * bound). */
static APO_FORCE_INLINE apo_tv apo__atan_cells_tv(apo_tv x) {
    const apo_tv ax = apo_tv_abs(x);
    /* The cheap tests first, so that a vector that goes to apo__atan_tv loses little: one side
     * of one for every lane, then (after 1/|x| on the side above) one cell. */
    const int above = apo_tm_all((ax > 1.0) & (ax <= 0x1p60));
    if (!above && !apo_tm_all((ax >= 0x1p-27) & (ax <= 1.0)))
        return apo__atan_tv(x);
    const apo_tv t_hi = above ? 1.0 / ax : ax;
    const apo_tv k = apo__trunc_small_tv((apo__trunc_small_tv(t_hi * 32.0) + 1.0) * 0.5);
    if (!apo_tm_all(k == k[0]))
        return apo__atan_tv(x);
    const apo_tv t_lo = above ? apo_tv_fma(-t_hi, ax, apo_tv_splat(1.0)) * t_hi : apo_tv_splat(0.0);
    const apo__dd_tv f = apo__trig_atan_cell_tv((int)k[0], t_hi, t_lo);
    /* The bound against the atan of t, as the scalar route's (trig.h). */
    const apo_tv bound =
        f.hi * (k[0] == 0.0 ? APO_TRIG_ATAN_SHORT_BOUND_CELL0 : APO_TRIG_ATAN_SHORT_BOUND);
    apo_tv hi = f.hi, lo = f.lo;
    if (above) {
        const apo__dd_tv s = apo__two_sum_tv(apo_tv_splat(APO_TRIG_PIO2_HI), -f.hi);
        hi = s.hi;
        lo = s.lo + (APO_TRIG_PIO2_LO - f.lo);
    }
    const apo_tm decided = hi + (lo - bound) == hi + (lo + bound);
    apo_tv v = hi + lo;
    v = apo_tv_pick(x < 0.0, -v, v);
    if (!apo_tm_all(decided))
        for (int l = 0; l < APO_TILE_LANES; l++)
            if (!decided[l]) {
                const double r =
                    above ? apo__trig_atan_above1_long(ax[l]) : apo__trig_atan01_long(ax[l]);
                v[l] = x[l] < 0.0 ? -r : r;
            }
    return v;
}
#endif

/* apo__trig_cofactor in lanes: sqrt(1 - x^2) for 0 <= x <= 1, (0, 0) where 1 - x^2 is not
 * above 0. */
static APO_FORCE_INLINE apo__dd_tv apo__trig_cofactor_tv(apo_tv x) {
    const apo__dd_tv xx = apo__trig_two_prod_tv(x, x);
    const apo__dd_tv d1 = apo__two_sum_tv(apo_tv_splat(1.0), -xx.hi);
    const apo__dd_tv d = apo__quick_two_sum_tv(d1.hi, d1.lo - xx.lo);
    const apo_tv s = apo_tv_sqrt(d.hi);
    const apo__dd_tv ss = apo__trig_two_prod_tv(s, s);
    const apo__dd_tv c = apo__quick_two_sum_tv(s, (((d.hi - ss.hi) - ss.lo) + d.lo) / (2.0 * s));
    const apo_tm none = d.hi <= 0.0;
    const apo_tv zero = apo_tv_splat(0.0);
    return apo__dd_tv_make(apo_tv_pick(none, zero, c.hi), apo_tv_pick(none, zero, c.lo));
}

/* apo__asin and apo__acos of each lane: the angle of (|x|, sqrt(1 - x^2)) or its complement,
 * NaN outside [-1, 1]. */
static APO_FORCE_INLINE apo_tv apo__asin_tv(apo_tv x) {
    const apo_tv ax = apo_tv_abs(x);
    /* No lane in the domain (prices, say): every lane's NaN, without the arms (what the scalar
     * form's first test spares it). */
    if (!apo_tm_any(ax <= 1.0))
        return apo_tv_splat((double)NAN);
    const apo__dd_tv a =
        apo__trig_angle_tv(apo__dd_tv_make(ax, apo_tv_splat(0.0)), apo__trig_cofactor_tv(ax));
    apo_tv v = a.hi + a.lo;
    v = apo_tv_pick(x < 0.0, -v, v);
    v = apo_tv_pick(ax < 0x1p-27, x, v);
    return apo_tv_pick(ax <= 1.0, v, apo_tv_splat((double)NAN));
}

static APO_FORCE_INLINE apo_tv apo__acos_tv(apo_tv x) {
    const apo_tv ax = apo_tv_abs(x);
    if (!apo_tm_any(ax <= 1.0)) /* as asin's */
        return apo_tv_splat((double)NAN);
    const apo__dd_tv a =
        apo__trig_angle_tv(apo__trig_cofactor_tv(ax), apo__dd_tv_make(ax, apo_tv_splat(0.0)));
    /* acos(-|x|) = pi - acos |x|. */
    const apo__dd_tv s = apo__two_sum_tv(apo_tv_splat(APO_TRIG_PI_HI), -a.hi);
    const apo__dd_tv far = apo__quick_two_sum_tv(s.hi, s.lo + (APO_TRIG_PI_LO - a.lo));
    apo_tv v = apo_tv_pick(x > 0.0, a.hi + a.lo, far.hi + far.lo);
    v = apo_tv_pick(ax < 0x1p-60, apo_tv_splat(APO_TRIG_PIO2_HI), v);
    return apo_tv_pick(ax <= 1.0, v, apo_tv_splat((double)NAN));
}

/* floor(v) for |v| < 2^51, lane by lane: the nearest integer, less one where it is above. */
static APO_FORCE_INLINE apo_tv apo__floor_small_tv(apo_tv v) {
    const apo_tv near = (v + APO_TRIG_ROUNDER) - APO_TRIG_ROUNDER;
    return apo_tv_pick(near > v, near - 1.0, near);
}

/* apo__trig_reduce in lanes: r, and k mod 4 as a double in *quadrant ((int)k & 3 is
 * k - 4 floor(k / 4) for an integer k, both exact below 2^20 in magnitude). */
static APO_FORCE_INLINE apo__dd_tv apo__trig_reduce_tv(apo_tv x, apo_tv *quadrant) {
    const apo_tv k = (x * APO_TRIG_INV_PIO2 + APO_TRIG_ROUNDER) - APO_TRIG_ROUNDER;
    const apo_tv t = x - k * APO_TRIG_PIO2_1;
    const apo__dd_tv r2 = apo__two_sum_tv(t, -(k * APO_TRIG_PIO2_2));
    const apo__dd_tv r3 = apo__two_sum_tv(r2.hi, -(k * APO_TRIG_PIO2_3));
    const apo__dd_tv r4 = apo__two_sum_tv(r3.hi, -(k * APO_TRIG_PIO2_4));
    *quadrant = k - 4.0 * apo__floor_small_tv(k * 0.25);
    return apo__quick_two_sum_tv(r4.hi, r4.lo + (r3.lo + r2.lo));
}

/* apo__trig_sin_dd and apo__trig_cos_dd in lanes. */
static APO_FORCE_INLINE apo__dd_tv apo__trig_sin_dd_tv(apo__dd_tv r) {
    const apo_tv x = r.hi, z = x * x;
    apo_tv p;
    APO__TRIG_SIN_SERIES(p, z, apo_tv_splat);
    return apo__quick_two_sum_tv(x, x * z * p + r.lo * (1.0 - 0.5 * z));
}

static APO_FORCE_INLINE apo__dd_tv apo__trig_cos_dd_tv(apo__dd_tv r) {
    const apo_tv x = r.hi;
    const apo__dd_tv zz = apo__trig_two_prod_tv(x, x);
    const apo_tv z = zz.hi;
    apo_tv q;
    APO__TRIG_COS_SERIES(q, z, apo_tv_splat);
    const apo__dd_tv w = apo__two_sum_tv(apo_tv_splat(1.0), -0.5 * z);
    return apo__quick_two_sum_tv(w.hi, w.lo + ((z * z * q - 0.5 * zz.lo) - x * r.lo));
}

/* What apo__sin, apo__cos and apo__tan return before their reduction, lane by lane: NaN beyond
 * APO_TRIG_MAX_ARG (and for NaN), `tiny` below 2^-27, v elsewhere. */
static APO_FORCE_INLINE apo_tv apo__trig_edges_tv(apo_tv x, apo_tv tiny, apo_tv v) {
    const apo_tv ax = apo_tv_abs(x);
    v = apo_tv_pick(ax < 0x1p-27, tiny, v);
    return apo_tv_pick(ax <= APO_TRIG_MAX_ARG, v, apo_tv_splat((double)NAN));
}

/* apo__sin and apo__cos of each lane: both series in every lane, the quadrant's picked. */
static APO_FORCE_INLINE apo_tv apo__sin_tv(apo_tv x) {
    apo_tv q;
    const apo__dd_tv r = apo__trig_reduce_tv(x, &q);
    const apo__dd_tv s = apo__trig_sin_dd_tv(r), c = apo__trig_cos_dd_tv(r);
    const apo_tv odd = apo_tv_pick((q == 1.0) | (q == 3.0), c.hi + c.lo, s.hi + s.lo);
    return apo__trig_edges_tv(x, x, apo_tv_pick(q >= 2.0, -odd, odd));
}

static APO_FORCE_INLINE apo_tv apo__cos_tv(apo_tv x) {
    apo_tv q;
    const apo__dd_tv r = apo__trig_reduce_tv(x, &q);
    const apo__dd_tv s = apo__trig_sin_dd_tv(r), c = apo__trig_cos_dd_tv(r);
    const apo_tv odd = apo_tv_pick((q == 1.0) | (q == 3.0), s.hi + s.lo, c.hi + c.lo);
    /* ((k + 1) & 2): quadrants 1 and 2. */
    return apo__trig_edges_tv(x, apo_tv_splat(1.0),
                              apo_tv_pick((q == 1.0) | (q == 2.0), -odd, odd));
}

/* apo__tan of each lane: sin over cos, or -(cos over sin) in the odd quadrants. */
static APO_FORCE_INLINE apo_tv apo__tan_tv(apo_tv x) {
    apo_tv q;
    const apo__dd_tv r = apo__trig_reduce_tv(x, &q);
    const apo__dd_tv s = apo__trig_sin_dd_tv(r), c = apo__trig_cos_dd_tv(r);
    const apo_tm odd = (q == 1.0) | (q == 3.0);
    const apo__dd_tv num =
        apo__dd_tv_make(apo_tv_pick(odd, c.hi, s.hi), apo_tv_pick(odd, c.lo, s.lo));
    const apo__dd_tv den =
        apo__dd_tv_make(apo_tv_pick(odd, s.hi, c.hi), apo_tv_pick(odd, s.lo, c.lo));
    const apo__dd_tv t = apo__trig_div_tv(num, den);
    const apo_tv v = t.hi + t.lo;
    return apo__trig_edges_tv(x, x, apo_tv_pick(odd, -v, v));
}
#endif

#endif /* APO_KERNELS_TRIG_TV_H */
