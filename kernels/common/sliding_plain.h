/*
 * sliding_plain.h: the window sums of per-bar terms (adr's ranges, cmf's flows and volumes,
 * rvol's baseline volumes, vwma's products and volumes) slid in plain double between anchors,
 * as window_plain.h slides sma's samples, for windows up to APO_PLAIN_MAX; longer windows keep
 * sliding_sums.h's double-doubles (apo__sliding_either_run picks). APO_HD, shared by the CPU
 * and CUDA.
 *
 * Why: the double-doubles put a TwoSum in and one out on every bar's chain, and held these
 * four kernels at a third to nine tenths of TA-Lib's speed, whose running sums are plain
 * additions (docs/kernels/talib.md, the row of double-double sums).
 *
 * What: each sum is evaluated directly at every anchor (a bar that is a multiple of
 * apo__plain_anchor(p)) and at the first clean window after a tile's start or a gap, its p
 * terms gathered in partials.h's eight partials, then slid for at most anchor - 1 steps:
 * S' = S + (term_in - term_out). Its error stays below (A + p / 8 + 4) eps times p times the
 * largest term's modulus over the windows slid since the anchor (window_plain.h's bound for S,
 * A the anchors' spacing); a quotient of two sums adds that of each. TA-Lib's running sums
 * carry their roundings from the series' first window on.
 *
 * Zero divisors: a plain slide of a window that has become all zeros (a stretch without
 * trades after fractional volumes) may leave a residue of the terms slid out, where the
 * exact sum is 0 and the kernel's rule for no trade (cmf's 0, rvol's and vwma's NaN) must
 * hold. So the run also counts the window's nonzero terms of the sum a body names (`counted`;
 * an exact integer, slid with it) and sets that sum to exactly 0 where the count is 0. A chunk
 * whose every window holds p nonzero terms (a market that trades every bar) slides the sums
 * alone and sets the count to p after it: no step of it could have met a count of 0.
 *
 * The anchors sit at fixed indices and the other restarts at a tile's start and after a gap,
 * so every output is a function of the tile grid alone, and a stream that runs the same steps
 * from the state gets the same bits. Between anchors, runs of clean bars go in chunks that
 * end at multiples of APO_PLAIN_CHUNK (apo__sliding_plain_chunk): the steps' differences
 * first, then the serial slides, then the outputs, so that only the slides are serial and
 * the other two loops vectorise; on the CPU, APO_PLAIN_LANES whole blocks between anchors
 * go side by side (apo__sliding_plain_lanes), their chains interleaved. Each step is the
 * per-bar loop's operations in its order (apo__plain_state_add), so the same bits whichever
 * loop runs a bar.
 *
 * State (apo__cat_run, window.h): n[0] the last gap, n[1] whether the sums are the last
 * window's, v[0] and v[1] the sums, v[2] the count (a double holding an integer).
 */
#ifndef APO_KERNELS_SLIDING_PLAIN_H
#define APO_KERNELS_SLIDING_PLAIN_H

#include "partials.h"
#include "sliding_sums.h"
#include "window_plain.h"

/* Bar t's term of a plain window sum. */
typedef double (*apo__plain_term)(const apo__cat_io *io, size_t t);

/* The output at t from the window's sums (b: 0 for a body of one sum). */
typedef double (*apo__plain_output)(const apo__cat_io *io, size_t t, double a, double b);

#ifdef APO_TILE_LANES
/* The first sum's terms of the APO_TILE_LANES bars from t in vector lanes, for a term whose
 * scalar form gcc leaves scalar (cmf's flow: a division under a branch). Each lane must give
 * the scalar term's value, or a zero of the other sign where the scalar term is a zero: the
 * sums never read a term's sign of zero (a difference of two zeros is +0 whatever their
 * signs, x - 0 is x, 0 - x is -x, and a sum is never -0: it starts at +0, and a zero result of
 * an addition of nonzero values is +0). */
typedef apo_tv (*apo__plain_term_tv)(const apo__cat_io *io, size_t t);
#endif

/* What one body sums and writes, and its gap rule (sliding_sums.h's fields, plain terms). */
typedef struct apo__plain_body {
    size_t n_in;              /* the inputs whose non-finite samples are gaps */
    size_t extra;             /* bars the gap window reaches before the terms' (rvol: 1) */
    apo__plain_term term_a;   /* the first sum's terms */
    apo__plain_term term_b;   /* the second sum's terms; NULL: one sum */
    int counted;              /* the divisor sum whose all-zero windows read 0: 0 a, 1 b, -1 none */
    apo__plain_output output; /* the output of a clean window */
#ifdef APO_TILE_LANES
    apo__plain_term_tv term_a_tv; /* term_a in lanes for the chunks' differences; NULL: none */
#endif
} apo__plain_body;

/* A body from its parts, in the order of apo__plain_body's fields. */
static inline APO_HD apo__plain_body apo__plain_body_of(size_t n_in, size_t extra,
                                                        apo__plain_term term_a,
                                                        apo__plain_term term_b, int counted,
                                                        apo__plain_output output) {
    apo__plain_body body;
    body.n_in = n_in;
    body.extra = extra;
    body.term_a = term_a;
    body.term_b = term_b;
    body.counted = counted;
    body.output = output;
#ifdef APO_TILE_LANES
    body.term_a_tv = NULL;
#endif
    return body;
}

/* The chunks between anchors end at multiples of this (the anchors' spacings are multiples
 * of it), so their scratch is a fixed stack block on the CPU and the GPU alike. */
#define APO_PLAIN_CHUNK 64

/* The sums and count of one window. */
typedef struct apo__plain_state {
    double a, b, c;
} apo__plain_state;

/* 1.0 where a term counts as nonzero (an exact step of the count), else 0.0. */
static APO_HD_STEP APO_HD double apo__plain_nonzero(double term) { return term != 0.0 ? 1.0 : 0.0; }

/* The counted sum's term at t (the body counts one; 0.0 where it counts none). */
static APO_HD_STEP APO_HD double apo__plain_counted_term(const apo__cat_io *io,
                                                         const apo__plain_body *body, size_t t) {
    if (body->counted < 0)
        return 0.0;
    return body->counted == 0 ? body->term_a(io, t) : body->term_b(io, t);
}

/* The sum of the terms of the p bars ending at t in the eight partials of partials.h (sample i
 * of the window to partial (i - r) % 8, the first r = p % 8 one to a partial, as
 * apo__plain_parts_scalar): the same bits on every path. */
static APO_CAT_SPECIALISED APO_HD double
apo__plain_terms_direct(const apo__cat_io *io, apo__plain_term term, size_t p, size_t t) {
    const size_t first = t + 1 - p, r = p % APO_PARTS;
    double s[APO_PARTS];
    for (size_t l = 0; l < APO_PARTS; l++)
        s[l] = 0.0;
    for (size_t l = 0; l < r; l++)
        s[l] += term(io, first + l);
    for (size_t i = r; i < p; i += APO_PARTS)
        for (size_t l = 0; l < APO_PARTS; l++)
            s[l] += term(io, first + i + l);
    return apo__parts_combine(s);
}

/* The window ending at t evaluated directly: its sums and its count of nonzero terms (exact,
 * so in any order). */
static APO_CAT_SPECIALISED APO_HD apo__plain_state
apo__plain_state_direct(const apo__cat_io *io, const apo__plain_body *body, size_t p, size_t t) {
    apo__plain_state z;
    z.a = apo__plain_terms_direct(io, body->term_a, p, t);
    z.b = body->term_b != NULL ? apo__plain_terms_direct(io, body->term_b, p, t) : 0.0;
    z.c = 0.0;
    if (body->counted >= 0)
        for (size_t i = t + 1 - p; i <= t; i++)
            z.c += apo__plain_nonzero(apo__plain_counted_term(io, body, i));
    return z;
}

/* The counted sum after a step whose count is c: exactly 0 where no term of its window is
 * nonzero, so that a window that has become all zeros reads 0 (and the next steps slide from
 * it). A select on the serial chain, so that the outputs' loop, which vectorises, tests
 * nothing more. */
static APO_HD_STEP APO_HD double apo__plain_counted_sum(double sum, double c) {
    return c != 0.0 ? sum : 0.0;
}

/* The state slid by one step's differences (term in - term out, and the count's): every
 * slide of every loop is this, so the same bits. */
static APO_CAT_SPECIALISED APO_HD apo__plain_state apo__plain_state_add(const apo__plain_body *body,
                                                                        apo__plain_state z,
                                                                        double da, double db,
                                                                        double dc) {
    z.a = z.a + da;
    if (body->term_b != NULL)
        z.b = z.b + db;
    if (body->counted >= 0)
        z.c = z.c + dc;
    if (body->counted == 0)
        z.a = apo__plain_counted_sum(z.a, z.c);
    if (body->counted == 1)
        z.b = apo__plain_counted_sum(z.b, z.c);
    return z;
}

/* Step t's differences: each sum's term in minus its term out, and the count's. */
static APO_CAT_SPECIALISED APO_HD double apo__plain_diff(const apo__cat_io *io,
                                                         apo__plain_term term, size_t p, size_t t) {
    return term(io, t) - term(io, t - p);
}

static APO_CAT_SPECIALISED APO_HD double
apo__plain_count_diff(const apo__cat_io *io, const apo__plain_body *body, size_t p, size_t t) {
    return apo__plain_nonzero(apo__plain_counted_term(io, body, t)) -
           apo__plain_nonzero(apo__plain_counted_term(io, body, t - p));
}

/* The state slid from the window ending at t - 1 to the one ending at t. */
static APO_CAT_SPECIALISED APO_HD apo__plain_state apo__plain_state_step(
    const apo__cat_io *io, const apo__plain_body *body, apo__plain_state z, size_t p, size_t t) {
    const double da = apo__plain_diff(io, body->term_a, p, t);
    const double db = body->term_b != NULL ? apo__plain_diff(io, body->term_b, p, t) : 0.0;
    const double dc = body->counted >= 0 ? apo__plain_count_diff(io, body, p, t) : 0.0;
    return apo__plain_state_add(body, z, da, db, dc);
}

/*
 * The chunks' scratch: for each of up to APO_PLAIN_LANES blocks and each of its chunk's bars,
 * the step's differences, then the sums after it.
 */
typedef struct apo__plain_scratch {
    double a[APO_PLAIN_CHUNK], b[APO_PLAIN_CHUNK], c[APO_PLAIN_CHUNK];
    /* Whether every window of the chunk holds p nonzero counted terms (or the body counts
     * none): then no step's count can reach 0, the counted sum's select never takes its 0,
     * and the chunk slides the sums alone (apo__plain_chunk_slide_full), c unwritten. */
    int full;
} apo__plain_scratch;

/* Whether each of the bars t - p + 1 .. t + n - 1 (the windows ending at t .. t + n - 1) has
 * a nonzero counted term; 1 for a body that counts none. A pass of compares without a chain
 * in place of the count's differences and its slide: a build without the count made cmf
 * 0.86 to 0.89 of the time, this pass 0.98 to 0.99 and rvol 0.88 to 0.89
 * (docs/perf-log/2026-12-07-zen3-cmf-count.md). */
static APO_CAT_SPECIALISED APO_HD int apo__plain_chunk_full(const apo__cat_io *io,
                                                            const apo__plain_body *body, size_t p,
                                                            size_t t, size_t n) {
    if (body->counted < 0)
        return 1;
    int full = 1;
    for (size_t i = t + 1 - p; i < t + n; i++)
        full &= apo__plain_counted_term(io, body, i) != 0.0;
    return full;
}

/* The differences of the n steps from t on into x (the loop vectorises: no chain). */
static APO_CAT_SPECIALISED APO_HD void apo__plain_chunk_diffs(const apo__cat_io *io,
                                                              const apo__plain_body *body, size_t p,
                                                              size_t t, size_t n,
                                                              apo__plain_scratch *x) {
    size_t k = 0;
#ifdef APO_TILE_LANES
    if (body->term_a_tv != NULL && p <= APO_PLAIN_CHUNK) {
        /* The terms of bars t - p .. t + n - 1 once each, then their differences: a term in
         * lanes costs a division (cmf's flow), and each bar's term is both a step's term in
         * and, p steps on, one's term out, so n + p terms for n steps where the pairs took 2n.
         * Lanes and the scalar tail may differ in a zero's sign only, which no sum reads
         * (apo__plain_term_tv), so the differences slide the sums to the same bits. */
        double terms[2 * APO_PLAIN_CHUNK];
        const size_t m = n + p;
        size_t j = 0;
        for (; j + APO_TILE_LANES <= m; j += APO_TILE_LANES)
            apo_tv_store(terms + j, body->term_a_tv(io, t - p + j));
        for (; j < m; j++)
            terms[j] = body->term_a(io, t - p + j);
        for (; k < n; k++)
            x->a[k] = terms[k + p] - terms[k];
    } else if (body->term_a_tv != NULL) {
        for (; k + APO_TILE_LANES <= n; k += APO_TILE_LANES)
            apo_tv_store(x->a + k, body->term_a_tv(io, t + k) - body->term_a_tv(io, t + k - p));
    }
#endif
    for (; k < n; k++)
        x->a[k] = apo__plain_diff(io, body->term_a, p, t + k);
    if (body->term_b != NULL)
        for (size_t k = 0; k < n; k++)
            x->b[k] = apo__plain_diff(io, body->term_b, p, t + k);
    x->full = apo__plain_chunk_full(io, body, p, t, n);
    if (!x->full)
        for (size_t k = 0; k < n; k++)
            x->c[k] = apo__plain_count_diff(io, body, p, t + k);
}

/* Step k of a chunk: the state slid by x's differences, the sums kept in x in their place
 * (a body's unused columns are not read: apo__plain_chunk_diffs left them unwritten). */
static APO_CAT_SPECIALISED APO_HD apo__plain_state apo__plain_chunk_slide(
    const apo__plain_body *body, apo__plain_state z, size_t k, apo__plain_scratch *x) {
    const double db = body->term_b != NULL ? x->b[k] : 0.0;
    const double dc = body->counted >= 0 ? x->c[k] : 0.0;
    z = apo__plain_state_add(body, z, x->a[k], db, dc);
    x->a[k] = z.a;
    x->b[k] = z.b;
    return z;
}

/* Step k of a chunk whose windows are full (apo__plain_scratch.full): apo__plain_state_add's
 * additions without the count, whose select would keep each sum (its count is p, not 0), so
 * the same bits; the caller sets the count to p after the chunk's last step. */
static APO_CAT_SPECIALISED APO_HD apo__plain_state apo__plain_chunk_slide_full(
    const apo__plain_body *body, apo__plain_state z, size_t k, apo__plain_scratch *x) {
    z.a = z.a + x->a[k];
    if (body->term_b != NULL)
        z.b = z.b + x->b[k];
    x->a[k] = z.a;
    x->b[k] = z.b;
    return z;
}

/* The count of a window of p nonzero counted terms, after a full chunk's slides (a body that
 * counts none keeps its 0). */
static APO_HD_STEP APO_HD double apo__plain_full_count(const apo__plain_body *body, size_t p,
                                                       double c) {
    return body->counted >= 0 ? (double)p : c;
}

/* The outputs of the n bars from t on from the sums in x. The body reads its parameters
 * from a copy of io on the stack, which no store to out can alias: read from io itself, they
 * are reloaded after every store (io->p and out are doubles both) and the loop stays scalar;
 * written to the stack first and copied, gcc makes the copy a `rep movs`, which cost more
 * than the loop on these 64 bars. */
static APO_CAT_SPECIALISED APO_HD void apo__plain_chunk_outputs(const apo__cat_io *io,
                                                                const apo__plain_body *body,
                                                                size_t t, size_t n,
                                                                const apo__plain_scratch *x) {
    const apo__cat_io own = *io;
    const int two = body->term_b != NULL;
    double *out = io->out[0] + t;
    for (size_t k = 0; k < n; k++)
        out[k] = body->output(&own, t + k, x->a[k], two ? x->b[k] : 0.0);
}

/*
 * Slides the state over the clean windows t .. e - 1 (no anchor among them; the window before
 * t was clean and held z), writes their outputs and returns the state at e - 1: the steps'
 * differences first, then the slides, then the outputs, so that only the slides are serial.
 */
static APO_CAT_SPECIALISED APO_HD apo__plain_state
apo__sliding_plain_chunk(const apo__cat_io *io, const apo__plain_body *body, size_t p, size_t t,
                         size_t e, apo__plain_state z) {
    const size_t n = e - t;
    apo__plain_scratch x;
    apo__plain_chunk_diffs(io, body, p, t, n, &x);
    if (x.full) {
        for (size_t k = 0; k < n; k++)
            z = apo__plain_chunk_slide_full(body, z, k, &x);
        z.c = apo__plain_full_count(body, p, z.c);
    } else {
        for (size_t k = 0; k < n; k++)
            z = apo__plain_chunk_slide(body, z, k, &x);
    }
    apo__plain_chunk_outputs(io, body, t, n, &x);
    return z;
}

/*
 * APO_PLAIN_LANES whole blocks between anchors from the anchor a on (anchors `anchor` apart),
 * every window in them clean, side by side (window_plain.h's apo__plain_blocks: one chain
 * alone waits on the add's latency at every bar, where TA-Lib's loop carries one add): each
 * block's state evaluated at its anchor, then the blocks' chunks of APO_PLAIN_CHUNK bars
 * taken together: the differences of all, the chains' slides interleaved, then the outputs.
 * Returns the last block's state at its end. CPU only: the scratch is 6 KiB, which a GPU
 * thread would hold in local memory; there the chunks take one block at a time, with the same
 * bits.
 */
#ifndef __CUDA_ARCH__
static APO_CAT_SPECIALISED apo__plain_state apo__sliding_plain_lanes(const apo__cat_io *io,
                                                                     const apo__plain_body *body,
                                                                     size_t p, size_t a,
                                                                     size_t anchor) {
    enum { L = APO_PLAIN_LANES, C = APO_PLAIN_CHUNK };
    apo__plain_state z[L];
    for (size_t j = 0; j < L; j++) {
        const size_t t = a + j * anchor;
        z[j] = apo__plain_state_direct(io, body, p, t);
        io->out[0][t] = body->output(io, t, z[j].a, z[j].b);
    }
    apo__plain_scratch x[L];
    for (size_t k0 = 1; k0 < anchor; k0 = k0 - k0 % C + C) {
        /* Each block's chunk from k0 to the next multiple of C. */
        const size_t n = C - k0 % C;
        int full = 1;
        for (size_t j = 0; j < L; j++) {
            apo__plain_chunk_diffs(io, body, p, a + j * anchor + k0, n, &x[j]);
            full &= x[j].full;
        }
        if (full) {
            for (size_t k = 0; k < n; k++)
                for (size_t j = 0; j < L; j++)
                    z[j] = apo__plain_chunk_slide_full(body, z[j], k, &x[j]);
            for (size_t j = 0; j < L; j++)
                z[j].c = apo__plain_full_count(body, p, z[j].c);
        } else {
            /* A block whose chunk is full has no counts' differences (c unwritten): its
             * slides go as the full ones, the others with their counts. */
            for (size_t k = 0; k < n; k++)
                for (size_t j = 0; j < L; j++)
                    z[j] = x[j].full ? apo__plain_chunk_slide_full(body, z[j], k, &x[j])
                                     : apo__plain_chunk_slide(body, z[j], k, &x[j]);
            for (size_t j = 0; j < L; j++)
                if (x[j].full)
                    z[j].c = apo__plain_full_count(body, p, z[j].c);
        }
        for (size_t j = 0; j < L; j++)
            apo__plain_chunk_outputs(io, body, a + j * anchor + k0, n, &x[j]);
    }
    return z[L - 1];
}
#endif

/* The end of the chunk starting at t when its windows are all clean and none of its bars is an
 * anchor: the window before t was (valid 1), t is not an anchor and the bars up to the next
 * multiple of APO_PLAIN_CHUNK (or end) are at least APO_DD_BLOCK_MIN (window_sum.h: the fewest
 * bars worth a block's setup, a chunk's as well) and hold no non-finite sample of the n_in inputs.
 * Otherwise t, which then takes the per-bar step, and where the chunk holds a gap, *plain_until
 * becomes its end (apo__clean_block_end's rule). */
static inline APO_HD size_t apo__plain_chunk_end(const double *const *in, size_t n_in, int valid,
                                                 size_t anchor, size_t t, size_t end,
                                                 size_t *plain_until) {
    if (!valid || t < *plain_until || t % anchor == 0)
        return t;
    const size_t next = t + (APO_PLAIN_CHUNK - t % APO_PLAIN_CHUNK);
    return apo__clean_span_end(in, n_in, t, next < end ? next : end, APO_DD_BLOCK_MIN, plain_until);
}

/*
 * The loop from r->t to end, after apo__sliding_start over the body's n_in inputs and windows
 * of p + extra bars (p = io->p[0] <= APO_PLAIN_MAX): a window of those bars holding a gap gives
 * NaN, a clean one the output of the sums of the terms of its last p bars, evaluated directly
 * at anchors and at the first clean window after a gap or the tile's start, slid between.
 */
static APO_CAT_SPECIALISED APO_HD void apo__sliding_plain_run(const apo__cat_io *io, size_t end,
                                                              apo__cat_run *r,
                                                              const apo__plain_body *body) {
    double *out = io->out[0];
    const size_t p = (size_t)io->p[0];
    const size_t anchor = apo__plain_anchor(p);
    size_t bad = r->n[0];
    int valid = r->n[1] != 0;
    apo__plain_state z;
    z.a = r->v[0];
    z.b = r->v[1];
    z.c = r->v[2];
    size_t plain_until = 0;
    for (size_t t = r->t; t < end; t++) {
#ifndef __CUDA_ARCH__
        const size_t span = APO_PLAIN_LANES * anchor, w = p + body->extra;
        if (t >= plain_until && t % anchor == 0 && t + 1 >= w && end - t >= span) {
            /* Whole blocks side by side, when every window in them is clean. */
            if (apo__inputs_finite(io->in, body->n_in, t + 1 - w, t + span)) {
                /* The next span's samples asked for while this one is computed (sma's reason:
                 * window_plain.h; here the gap scan above met them first, at a million bars
                 * waiting on memory for most of the kernel's time). */
                if (end - t >= 2 * span)
                    apo__plain_prefetch_inputs(io->in, body->n_in, out, t + span, span);
                z = apo__sliding_plain_lanes(io, body, p, t, anchor);
                valid = 1;
                t += span - 1;
                continue;
            }
            plain_until = t + span;
        }
#endif
        const size_t e =
            apo__plain_chunk_end(io->in, body->n_in, valid, anchor, t, end, &plain_until);
        if (e > t) {
            z = apo__sliding_plain_chunk(io, body, p, t, e, z);
            t = e - 1;
            continue;
        }
        if (!apo__window_step(apo__all_finite_at(io->in, body->n_in, t), out, t, p + body->extra,
                              &bad, &valid))
            continue;
        if (!valid || t % anchor == 0) {
            z = apo__plain_state_direct(io, body, p, t);
            valid = 1;
        } else {
            z = apo__plain_state_step(io, body, z, p, t);
        }
        out[t] = body->output(io, t, z.a, z.b);
    }
    apo__window_keep(r, end, bad, valid);
    r->v[0] = z.a;
    r->v[1] = z.b;
    r->v[2] = z.c;
}

/* The run of a kernel with a plain body up to APO_PLAIN_MAX and a double-double one past it,
 * both taken by value so that the kernel's entry points (run_entries.h) name them by their
 * calls; inlined, the bodies' functions stay constants of the runs. The two share their start
 * (apo__sliding_stream_start: the same gap window). */
static APO_CAT_SPECIALISED APO_HD void apo__sliding_either_run(const apo__cat_io *io, size_t end,
                                                               apo__cat_run *r,
                                                               apo__plain_body plain,
                                                               apo__sliding_body dd) {
    if ((size_t)io->p[0] <= APO_PLAIN_MAX)
        apo__sliding_plain_run(io, end, r, &plain);
    else
        apo__sliding_run(io, end, r, &dd);
}

#endif /* APO_KERNELS_SLIDING_PLAIN_H */
