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

/*
 * Where a correl or beta body stands between two calls (streams, apo__cpu_catalog_resume):
 * its tile is one start and one run, so a tile run in pieces, each going on from the state
 * the last left, performs the operations of the tile run whole. Its own type rather than
 * apo__cat_run (catalog.h): five double-doubles and two change indices do not fit there, and
 * widening that would grow every other kernel's state for these two.
 */
typedef struct apo__pair_run {
    size_t t;      /* the next position the loop computes */
    size_t from;   /* the first sample the tile reads */
    size_t bad;    /* one past the last gap seen */
    size_t chg[2]; /* one past the last change of value: correl x's and y's; beta rx's (and 0) */
    int valid;     /* whether s holds the last position's window */
    apo__pair_sums s;
} apo__pair_run;

/* A run at `begin` with no window yet; the caller sets bad and chg. */
static inline APO_HD void apo__pair_run_from(apo__pair_run *r, size_t begin, size_t from) {
    r->t = begin;
    r->from = from;
    r->bad = 0;
    r->chg[0] = r->chg[1] = 0;
    r->valid = 0;
    apo__pair_clear(&r->s);
}

/* Keeps a run's locals in r when a call that computed up to `end` returns. */
static inline APO_HD void apo__pair_run_keep(apo__pair_run *r, size_t end, size_t bad, size_t chg0,
                                             size_t chg1, int valid, const apo__pair_sums *s) {
    r->t = end > r->t ? end : r->t;
    r->bad = bad;
    r->chg[0] = chg0;
    r->chg[1] = chg1;
    r->valid = valid;
    r->s = *s;
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

/* A pair kernel's stream start and run, apo__<name>_start and apo__<name>_run, and its tile,
 * apo__<name>_tile, the start followed by the run. Up to blocks_max every output is a function of
 * its data and index, evaluated directly up to direct_max (apo__<name>_direct) and in blocks
 * past it (apo__<name>_blocks), so the run's state is its position alone; longer periods run the
 * double-double sums (apo__<name>_long_start, apo__<name>_long_run). A window reads p + extra
 * samples (correl 0; beta 1, whose p returns read p + 1 prices). */
#define APO_PAIR_ENTRIES(name, blocks_max, direct_max, extra)                                      \
    static inline APO_HD void apo__##name##_start(const apo__cat_io *io, size_t begin,             \
                                                  apo__pair_run *r) {                              \
        if ((size_t)io->p[0] <= (blocks_max))                                                      \
            apo__pair_run_from(r, begin, apo__window_from(begin, (size_t)io->p[0] + (extra)));     \
        else                                                                                       \
            apo__##name##_long_start(io, begin, r);                                                \
    }                                                                                              \
    static inline APO_HD void apo__##name##_run(const apo__cat_io *io, size_t end,                 \
                                                apo__pair_run *r) {                                \
        const size_t p = (size_t)io->p[0];                                                         \
        if (p > (blocks_max)) {                                                                    \
            apo__##name##_long_run(io, end, r);                                                    \
        } else if (end > r->t) {                                                                   \
            if (p <= (direct_max))                                                                 \
                apo__##name##_direct(io, r->t, end);                                               \
            else                                                                                   \
                apo__##name##_blocks(io, r->t, end);                                               \
            r->t = end;                                                                            \
        }                                                                                          \
    }                                                                                              \
    static inline APO_HD void apo__##name##_tile(const apo__cat_io *io, size_t begin,              \
                                                 size_t end) {                                     \
        apo__pair_run r;                                                                           \
        apo__##name##_start(io, begin, &r);                                                        \
        apo__##name##_run(io, end, &r);                                                            \
    }

#endif /* APO_KERNELS_PAIR_SUMS_H */
