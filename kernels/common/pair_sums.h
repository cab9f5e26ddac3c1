/*
 * pair_sums.h: double-double sums of a window of pairs (a, b) and their centred second
 * moments, for CORREL and BETA (APO_HD, shared by the CPU and CUDA).
 */
#ifndef APO_KERNELS_PAIR_SUMS_H
#define APO_KERNELS_PAIR_SUMS_H

#include "dd.h"
#include "window_sum.h"

typedef struct apo__pair_sums {
    apo__dd sa, sb, saa, sbb, sab;
} apo__pair_sums;

static inline APO_HD void apo__pair_clear(apo__pair_sums *s) {
    s->sa = s->sb = s->saa = s->sbb = s->sab = apo__dd_make(0.0, 0.0);
}

/* Adds the pair (a, b) (sign 1) or takes it out (sign -1); the products are exact. */
static inline APO_HD void apo__pair_add(apo__pair_sums *s, double a, double b, double sign) {
    const double sa = sign * a;
    s->sa = apo__dd_add_d(s->sa, sa);
    s->sb = apo__dd_add_d(s->sb, sign * b);
    s->saa = apo__dd_add(s->saa, apo__two_prod(sa, a));
    s->sbb = apo__dd_add(s->sbb, apo__two_prod(sign * b, b));
    s->sab = apo__dd_add(s->sab, apo__two_prod(sa, b));
}

/* Slides the window by the pair (a, b) in and (oa, ob) out, the sums' rounding errors
 * gathered beside them (apo__dd_slide, window_sum.h), so no double-double renormalisation
 * is on the serial chain; the sums are then unnormalised until apo__pair_centred. */
static inline APO_HD void apo__pair_slide(apo__pair_sums *s, double a, double b, double oa,
                                          double ob, size_t t) {
    s->sa = apo__dd_slide(s->sa, a, oa, t);
    s->sb = apo__dd_slide(s->sb, b, ob, t);
    s->saa = apo__dd_slide_dd(s->saa, apo__two_prod(a, a), apo__two_prod(oa, oa), t);
    s->sbb = apo__dd_slide_dd(s->sbb, apo__two_prod(b, b), apo__two_prod(ob, ob), t);
    s->sab = apo__dd_slide_dd(s->sab, apo__two_prod(a, b), apo__two_prod(oa, ob), t);
}

/* sum (u - mean u)(v - mean v) = suv - su sv / n, in double-double, rounded; the sums may
 * be slid ones (apo__pair_slide). */
static inline APO_HD double apo__pair_centred(apo__dd suv, apo__dd su, apo__dd sv, double n) {
    su = apo__dd_settle(su);
    sv = apo__dd_settle(sv);
    return apo__dd_add(apo__dd_settle(suv), apo__dd_neg(apo__dd_div_d(apo__dd_mul(su, sv), n))).hi;
}

#endif /* APO_KERNELS_PAIR_SUMS_H */
