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

/* The five sums' blocks, for the blocked slides of window_sum.h. */
typedef struct apo__pair_block {
    apo__dd_block sa, sb, saa, sbb, sab;
} apo__pair_block;

/* Step k's terms of apo__pair_slide(., a, b, oa, ob, .). */
static inline APO_HD void apo__pair_block_step(apo__pair_block *terms, size_t k, double a, double b,
                                               double oa, double ob) {
    apo__dd_block_step(&terms->sa, k, a, oa);
    apo__dd_block_step(&terms->sb, k, b, ob);
    apo__dd_block_step_dd(&terms->saa, k, apo__two_prod(a, a), apo__two_prod(oa, oa));
    apo__dd_block_step_dd(&terms->sbb, k, apo__two_prod(b, b), apo__two_prod(ob, ob));
    apo__dd_block_step_dd(&terms->sab, k, apo__two_prod(a, b), apo__two_prod(oa, ob));
}

/* Slides the sums over the n steps of the block at samples t .. t + n - 1: the blocks then
 * hold the sums after each step (apo__dd_block_slide). */
static inline APO_HD void apo__pair_block_slide(apo__pair_sums *s, apo__pair_block *b, size_t t,
                                                size_t n) {
    s->sa = apo__dd_block_slide(s->sa, &b->sa, t, n, 0);
    s->sb = apo__dd_block_slide(s->sb, &b->sb, t, n, 0);
    s->saa = apo__dd_block_slide(s->saa, &b->saa, t, n, 1);
    s->sbb = apo__dd_block_slide(s->sbb, &b->sbb, t, n, 1);
    s->sab = apo__dd_block_slide(s->sab, &b->sab, t, n, 1);
}

/* apo__pair_centred of the sums after step k of slid blocks. */
static inline APO_HD double apo__pair_block_centred(const apo__dd_block *uv, const apo__dd_block *u,
                                                    const apo__dd_block *v, size_t k, double n) {
    return apo__pair_centred(apo__dd_make(uv->h[k], uv->l[k]), apo__dd_make(u->h[k], u->l[k]),
                             apo__dd_make(v->h[k], v->l[k]), n);
}

#endif /* APO_KERNELS_PAIR_SUMS_H */
