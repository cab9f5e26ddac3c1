/*
 * sliding_sums.h: the one run of the catalog's window bodies whose whole state is one or two
 * double-double sums of per-bar terms over the window of p bars (mvwap; adr, cmf, rvol and vwma
 * past APO_PLAIN_MAX, below which sliding_plain.h slides them plain), so that the gap rule, the
 * exact restart, the slide and the state kept between pieces are written once (APO_HD, shared
 * by the CPU and CUDA).
 *
 * A body gives the run its terms and its output as functions, and the run is always inlined
 * into the body's own run (APO_CAT_SPECIALISED), where they are constants: each body then
 * compiles to the loop it would have written itself, the same operations in the same order,
 * so the same bits. Runs of clean windows go in blocks (apo__sliding_block), each step the
 * loop's own operations, so the same bits again. A sum of doubles takes apo__dd_add_d and
 * apo__dd_slide on its terms' hi (their lo is not read); a sum of double-doubles (exact
 * products) apo__dd_add and apo__dd_slide_dd: the two are not interchangeable bit for bit (a
 * lo of +0 against -0 can reach a zero output's sign), so each sum says which it is.
 *
 * State (apo__cat_run, window.h): n[0] the last gap, n[1] whether the sums are the last
 * window's, sum k in v[2k], v[2k + 1].
 */
#ifndef APO_KERNELS_SLIDING_SUMS_H
#define APO_KERNELS_SLIDING_SUMS_H

#include "window.h"
#include "window_sum.h"

/* Bar t's term of a window sum: a double in hi (lo 0) or an exact double-double. */
typedef apo__dd (*apo__sliding_term)(const apo__cat_io *io, size_t t);

/* The output at t from the window's sums (b: 0 for a body of one sum). */
typedef double (*apo__sliding_output)(const apo__cat_io *io, size_t t, apo__dd a, apo__dd b);

/* What one body sums and writes, and its gap rule. */
typedef struct apo__sliding_body {
    size_t n_in;                /* the inputs whose non-finite samples are gaps */
    size_t extra;               /* bars the gap window reaches before the terms' (rvol: 1) */
    apo__sliding_term term_a;   /* the first sum's terms */
    int dd_a;                   /* whether they are double-doubles */
    apo__sliding_term term_b;   /* the second sum's terms, doubles; NULL: one sum */
    apo__sliding_output output; /* the output of a clean window */
} apo__sliding_body;

/* A body from its parts, in the order of apo__sliding_body's fields. */
static inline APO_HD apo__sliding_body apo__sliding_body_of(size_t n_in, size_t extra,
                                                            apo__sliding_term term_a, int dd_a,
                                                            apo__sliding_term term_b,
                                                            apo__sliding_output output) {
    apo__sliding_body body;
    body.n_in = n_in;
    body.extra = extra;
    body.term_a = term_a;
    body.dd_a = dd_a;
    body.term_b = term_b;
    body.output = output;
    return body;
}

/* The sum of the terms of bars t + 1 - p .. t, in that order, from 0. */
static inline APO_HD apo__dd apo__sliding_restart(const apo__cat_io *io, apo__sliding_term term,
                                                  int dd, size_t p, size_t t) {
    apo__dd s = apo__dd_make(0.0, 0.0);
    for (size_t i = t + 1 - p; i <= t; i++)
        s = dd ? apo__dd_add(s, term(io, i)) : apo__dd_add_d(s, term(io, i).hi);
    return s;
}

/* s slid to bar t: bar t's term in, bar t - p's out. */
static inline APO_HD apo__dd apo__sliding_slide(const apo__cat_io *io, apo__sliding_term term,
                                                int dd, apo__dd s, size_t p, size_t t) {
    return dd ? apo__dd_slide_dd(s, term(io, t), term(io, t - p), t)
              : apo__dd_slide(s, term(io, t).hi, term(io, t - p).hi, t);
}

/*
 * Slides the sums over the clean windows t .. e - 1, a block (window_sum.h) whose window before
 * t was clean and held the sums a and b, writes their outputs and returns the sums: the terms
 * of every step's bars in and out first, then the slides (two side by side), then the outputs,
 * so that only the slides are serial and the other two loops vectorise. Each step is
 * apo__sliding_slide's operations in its order (apo__dd_block_step against apo__dd_slide),
 * so the sums and outputs are the loop's bits however a tile is cut into blocks. Bodies of
 * one sum ignore b (their output does not read it).
 */
static APO_CAT_SPECIALISED APO_HD apo__dd_pair apo__sliding_block(const apo__cat_io *io,
                                                                  const apo__sliding_body *body,
                                                                  size_t p, size_t t, size_t e,
                                                                  apo__dd a, apo__dd b) {
    const size_t n = e - t;
    const int two = body->term_b != NULL;
    apo__dd_block ba, bb;
    for (size_t k = 0; k < n; k++) {
        if (body->dd_a)
            apo__dd_block_step_dd(&ba, k, body->term_a(io, t + k), body->term_a(io, t + k - p));
        else
            apo__dd_block_step(&ba, k, body->term_a(io, t + k).hi, body->term_a(io, t + k - p).hi);
        if (two)
            apo__dd_block_step(&bb, k, body->term_b(io, t + k).hi, body->term_b(io, t + k - p).hi);
    }
    apo__dd_pair slid;
    if (two)
        slid = apo__dd_block_slide_two(a, &ba, body->dd_a, b, &bb, 0, t, n);
    else
        slid = apo__dd_pair_of(apo__dd_block_slide(a, &ba, t, n, body->dd_a), b);
    /* The outputs go to the stack first: a store to io->out may alias io->p (doubles both),
     * so that a loop storing there reloads the period at every bar and stays scalar. */
    double o[APO_DD_FOLD];
    for (size_t k = 0; k < n; k++)
        o[k] = body->output(io, t + k, apo__dd_make(ba.h[k], ba.l[k]),
                            two ? apo__dd_make(bb.h[k], bb.l[k]) : b);
    double *out = io->out[0];
    for (size_t k = 0; k < n; k++)
        out[t + k] = o[k];
    return slid;
}

/*
 * The loop from r->t to end, after apo__window_start over the body's n_in inputs and windows
 * of p + extra bars (p = io->p[0]): a window of those bars holding a gap gives NaN, a clean
 * one the output of the sums of the terms of its last p bars, summed exactly at the first
 * clean window after a gap or the tile's start, then slid (window_sum.h), in blocks where
 * apo__clean_block_end allows.
 */
static APO_CAT_SPECIALISED APO_HD void apo__sliding_run(const apo__cat_io *io, size_t end,
                                                        apo__cat_run *r,
                                                        const apo__sliding_body *body) {
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const int two = body->term_b != NULL;
    size_t bad = r->n[0];
    int valid = r->n[1] != 0;
    apo__dd a = apo__window_sum(r, 0), b = apo__window_sum(r, 1);
    size_t plain_until = 0;
    for (size_t t = r->t; t < end; t++) {
        const size_t e = apo__clean_block_end(io->in, body->n_in, valid, t, end, &plain_until);
        if (e > t) {
            const apo__dd_pair s = apo__sliding_block(io, body, p, t, e, a, b);
            a = s.a;
            b = s.b;
            t = e - 1;
            continue;
        }
        if (!apo__window_step(apo__all_finite_at(io->in, body->n_in, t), out, t, p + body->extra,
                              &bad, &valid))
            continue;
        if (!valid) {
            a = apo__sliding_restart(io, body->term_a, body->dd_a, p, t);
            if (two)
                b = apo__sliding_restart(io, body->term_b, 0, p, t);
            valid = 1;
        } else {
            a = apo__sliding_slide(io, body->term_a, body->dd_a, a, p, t);
            if (two)
                b = apo__sliding_slide(io, body->term_b, 0, b, p, t);
        }
        out[t] = body->output(io, t, a, b);
    }
    apo__window_keep(r, end, bad, valid);
    apo__window_keep_sum(r, 0, a);
    if (two)
        apo__window_keep_sum(r, 1, b);
}

/* The start of such a body's tile or stream at `begin` (apo__window_start). */
static inline APO_HD void apo__sliding_start(const apo__cat_io *io, const apo__sliding_body *body,
                                             size_t begin, apo__cat_run *r) {
    apo__window_start(io, body->n_in, (size_t)io->p[0] + body->extra, begin, r);
}

/* The start and the run of a kernel whose body is `body`, taken by value so that the kernel's
 * entry points (run_entries.h) name it by its apo__<name>_body() call; inlined, the body's
 * functions stay constants of the run. */
static inline APO_HD void apo__sliding_stream_start(const apo__cat_io *io, apo__sliding_body body,
                                                    size_t begin, apo__cat_run *r) {
    apo__sliding_start(io, &body, begin, r);
}

static APO_CAT_SPECIALISED APO_HD void apo__sliding_stream_run(const apo__cat_io *io, size_t end,
                                                               apo__cat_run *r,
                                                               apo__sliding_body body) {
    apo__sliding_run(io, end, r, &body);
}

#endif /* APO_KERNELS_SLIDING_SUMS_H */
