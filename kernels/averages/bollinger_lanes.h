/*
 * bollinger_lanes.h: up to APO_LANES bollinger tiles at once, one per lane of a vector
 * (lanes.h), with the bits of apo__bollinger_tile (bollinger_tile.h) for each.
 *
 * What: the tiles of one round start together: each lane writes its NaN prefix and
 * evaluates its first window exactly with the scalar code of bollinger_tile.h, then all
 * lanes slide in lockstep, lane i emitting window t0_i + j at step j. A step computes, in
 * every lane, the operations of one pass of the sliding loop of apo__bollinger_slide_run,
 * in the same order. Where the scalar loop would stop (the incoming sample outside the
 * run's range or not finite, a constant window next, the error bound exceeded) that lane
 * takes the scalar path for that one window: apo__bollinger_slide_counts, then
 * apo__bollinger_emit with the window's own index + 1 as the end, which writes the window
 * (non-finite, constant, or exact evaluation) and hands back the new run's state; the lane
 * then slides on from that state in the vector. So every window is computed by the same
 * operations, in the same order, as in apo__bollinger_tile, whatever lane or path runs it.
 *
 * A lane keeps `eq`, the number of consecutive equal samples ending at its window (window
 * index minus the scalar code's last_change, exact in a double), so the constant-window
 * test costs one comparison; the scalar path rebuilds last_change from it.
 *
 * Memory: lane i starts i * APO_LANES_STAGGER steps after lane 0 plus the few steps that
 * align its arrays (lanes.h, apo__bollinger_lane_phase), and steps go in blocks of APO_LANES: each
 * lane's incoming samples arrive as one vector and are transposed into one vector per step, and the
 * middle band and sd go back the same way, the bands being computed after the transpose (the same
 * operations, lane by lane). For periods up to APO_BOLLINGER_RING - APO_LANES the leaving
 * samples come from a ring of the vectors of the last steps. A window the scalar path
 * wrote inside a block is written again after the block's stores.
 *
 * Blocks apart (APO_BOLLINGER_BLOCKS_APART, which a lanes_<path>.c may define to 1): the
 * blocks of a stretch run in a function of their own while none of their windows takes the
 * scalar path, and a block where one does is run again from its starting state by the
 * round's own block loop, step by step with the restarts. The same operations in the same
 * order for every window, so the same bits; what changes is only what the compiler can keep
 * in registers (apo__bollinger_blocks_body says why). With AVX-512VL (APO_BOLLINGER_PAIRS), a
 * stretch where only lanes 0 and 1 move takes its square roots two steps to a vector
 * (apo__bollinger_pair_out).
 *
 * Lanes that do not move (before their first step, after their last, or without a tile)
 * read NaN and store nothing; they never take the scalar path, and take up their state
 * when they start. Tiles of one round should have similar lengths (lanes_dispatch.c sorts
 * them).
 *
 * Included by lanes_<path>.c after lanes.h; builds APO_LANES_NAME(apo__bollinger_round).
 */
#ifndef APO_BOLLINGER_LANES_H
#define APO_BOLLINGER_LANES_H

#include "bollinger.h"
#include "bollinger_tile.h"
#include "force_inline.h"
#include "lanes.h"

/* What a lane stores for a window from its mean and sd, vector by vector: the bands, as the
 * tile's APO_BOLLINGER_PUT_BANDS stores them (NaN canonicalisation: nbdev 0 times an sd that
 * overflowed is a NaN). A file that includes this header with the tile's stores redefined
 * (kernels/dispatch/pass_lanes_entry.h, bollinger's pass of a scored sweep) defines these
 * three to match. */
#ifndef APO_BOLLINGER_LANES_UPPER
#define APO_BOLLINGER_LANES_UPPER(mean, sd, k) apo_vd_canonical_nan((mean) + (k).nbu * (sd))
#define APO_BOLLINGER_LANES_MIDDLE(mean, sd, k) apo_vd_canonical_nan(mean)
#define APO_BOLLINGER_LANES_LOWER(mean, sd, k) apo_vd_canonical_nan((mean) - (k).nbd * (sd))
#endif

/* Steps the ring of incoming samples holds (a power of two). */
#define APO_BOLLINGER_RING 128

/* The vector state of the lanes: the run state of apo__bollinger_run, the equal-sample
 * count `eq` and the previous sample `xlast`. */
typedef struct apo__bollinger_lanes {
    apo_vd shift, lo, hi, s, c, ybar, var, acc, eq, xlast;
} apo__bollinger_lanes;

/* The constants of a round. */
typedef struct apo__bollinger_consts {
    apo_vd inv_p, pm1, limit, nbu, nbd, one, neg_max;
} apo__bollinger_consts;

/* Sets lane i of the run state from *run, or, when the lane is not in a run, to the empty
 * range [+inf, -inf], which every incoming sample fails. */
static inline void apo__bollinger_lane_load(apo__bollinger_lanes *v, size_t i, int sliding,
                                            const apo__bollinger_run *run) {
    v->shift = apo_vd_with_lane(v->shift, i, sliding ? run->shift : 0.0);
    v->lo = apo_vd_with_lane(v->lo, i, sliding ? run->lo : INFINITY);
    v->hi = apo_vd_with_lane(v->hi, i, sliding ? run->hi : -INFINITY);
    v->s = apo_vd_with_lane(v->s, i, sliding ? run->s : 0.0);
    v->c = apo_vd_with_lane(v->c, i, sliding ? run->c : 0.0);
    v->ybar = apo_vd_with_lane(v->ybar, i, sliding ? run->ybar : 0.0);
    v->var = apo_vd_with_lane(v->var, i, sliding ? run->var : 0.0);
    v->acc = apo_vd_with_lane(v->acc, i, sliding ? run->acc : 0.0);
}

/* One step of every lane: the sliding step of apo__bollinger_slide_on, in the same order,
 * with its three stop tests. Returns the lanes whose step is valid (bit i for lane i) and
 * their outputs in *mean, *sd. The state moves on in every lane: a lane that failed gets
 * its whole state again from the scalar path.
 *
 * With `with_ed` 0 the step leaves out the error ed of d = xn - xo, which is exactly +0 in
 * a shifted run (K != 0; bollinger_tile.h): c + (+0 + es) is then c + es bit for bit (es is
 * never -0 there, since d is not), so only a round with a lane in a run with K = 0 needs
 * it. A constant argument, so each call site compiles to the step it names. */
static inline unsigned apo__bollinger_lanes_step(apo__bollinger_lanes *v,
                                                 const apo__bollinger_consts *k, apo_vd xn,
                                                 apo_vd xo, apo_vd *mean, apo_vd *sd,
                                                 const int with_ed) {
    /* eq + 1 where the sample equals the last one, else 0 (a NaN is never equal). */
    v->eq = apo_vd_add_or_zero(apo_vd_eq(xn, v->xlast), v->eq, k->one);
    v->xlast = xn;

    const apo_vd d = xn - xo;
    const apo_vd st = v->s + d;
    const apo_vd bs = st - v->s;
    const apo_vd es = (v->s - (st - bs)) + (d - bs);
    apo_vd err = es;
    if (with_ed) {
        const apo_vd bd = d - xn;
        const apo_vd ed = (xn - (d - bd)) + (-xo - bd);
        err = ed + es;
    }

    const apo_vd ybar_new = (st + v->c) * k->inv_p;
    const apo_vd yn = xn - v->shift;
    const apo_vd yo = xo - v->shift;
    const apo_vd dp = d * k->inv_p;
    const apo_vd a = yn - ybar_new;
    const apo_vd b = yo - v->ybar;
    const apo_vd var_new = v->var + dp * (a + b);
    const apo_vd acc_new =
        v->acc + apo_vd_abs(dp) * ((apo_vd_abs(a) + apo_vd_abs(b)) + 2.0 * apo_vd_abs(ybar_new));

    v->s = st;
    v->c = v->c + err;
    v->ybar = ybar_new;
    v->var = var_new;
    v->acc = acc_new;

    *sd = apo_vd_sqrt(v->var);
    *mean = v->shift + v->ybar;
    /* The three stop tests. In range also rejects NaN and, since the range is finite,
     * infinities. */
#if APO_LANES_X86 == 512
    /* The 8-lane build keeps them as ANDs: the ORs below gained it nothing, and a batch of
     * 1000 x 10000 took about 1% more CPU time with them
     * (docs/perf-log/2026-11-25-catalog-round-6.md, sixth round). */
    const apo_vm in_range = apo_vm_and(apo_vd_ge(xn, v->lo), apo_vd_le(xn, v->hi));
    const apo_vm not_constant = apo_vd_lt(v->eq, k->pm1);
    const apo_vm bounded = apo_vd_le(acc_new, k->limit * var_new);
    return apo_vm_bits(apo_vm_and(apo_vm_and(in_range, not_constant), bounded));
#else
    /* Their negations joined by ORs: with the k-register masks of the AVX-512VL build the
     * compiler turns ANDs of comparisons into comparisons masked by the one before, and a
     * block's tests became one chain of twenty comparisons that its stores waited on
     * (docs/perf-log/2026-11-25-catalog-round-6.md, sixth round); ORs leave them side by side. */
    const apo_vm out_of_range = apo_vm_or(apo_vd_nge(xn, v->lo), apo_vd_nle(xn, v->hi));
    const apo_vm constant = apo_vd_nlt(v->eq, k->pm1);
    const apo_vm unbounded = apo_vd_nle(acc_new, k->limit * var_new);
    return ~apo_vm_bits(apo_vm_or(apo_vm_or(out_of_range, constant), unbounded)) & APO_LANES_ALL;
#endif
}

/* A block's samples, one vector per step: each moving lane's APO_LANES incoming samples
 * from at[i] on, as one vector per lane transposed into xn[], and the leaving ones into
 * xo[], from the ring of the last steps' incoming vectors (`ring`, NULL for a period beyond
 * it), which takes this block's, or loaded and transposed the same way. Lanes that do not
 * move read NaN. */
static APO_FORCE_INLINE void apo__bollinger_block_in(const double *x, const size_t *at,
                                                     unsigned moving, size_t step, size_t p,
                                                     apo_vd *ring, apo_vd *xn, apo_vd *xo) {
    for (size_t i = 0; i < APO_LANES; i++)
        xn[i] = apo_vd_loadu((moving >> i & 1u) ? x + at[i] : apo_lanes_idle);
    apo_vd_transpose(xn);
    if (ring != NULL) {
        for (size_t j = 0; j < APO_LANES; j++) {
            xo[j] = ring[(step + j - p) % APO_BOLLINGER_RING];
            ring[(step + j) % APO_BOLLINGER_RING] = xn[j];
        }
    } else {
        for (size_t i = 0; i < APO_LANES; i++)
            xo[i] = apo_vd_loadu((moving >> i & 1u) ? x + at[i] - p : apo_lanes_idle);
        apo_vd_transpose(xo);
    }
}

/* A block's stores from each lane's means and sds (mean[i], sd[i]: lane i's APO_LANES
 * windows from at[i] on, in order), for the moving lanes. The bands are computed here, lane
 * by lane with the same operations as a step's. Two loops, so that the loop of ordinary
 * stores stays free of the streaming stores' alignment tests. */
static APO_FORCE_INLINE void apo__bollinger_block_store(const apo_vd *mean, const apo_vd *sd,
                                                        const size_t *at, unsigned moving,
                                                        const apo__bollinger_consts *kp,
                                                        double *upper, double *middle,
                                                        double *lower, int stream) {
    (void)kp; /* the pass's stores (pass_lanes_entry.h) do not read the widths */
    if (stream) {
        for (size_t i = 0; i < APO_LANES; i++) {
            if (moving >> i & 1u) {
                apo_vd_stream(upper + at[i], APO_BOLLINGER_LANES_UPPER(mean[i], sd[i], *kp));
                apo_vd_stream(middle + at[i], APO_BOLLINGER_LANES_MIDDLE(mean[i], sd[i], *kp));
                apo_vd_stream(lower + at[i], APO_BOLLINGER_LANES_LOWER(mean[i], sd[i], *kp));
            }
        }
    } else {
        for (size_t i = 0; i < APO_LANES; i++) {
            if (moving >> i & 1u) {
                apo_vd_storeu(upper + at[i], APO_BOLLINGER_LANES_UPPER(mean[i], sd[i], *kp));
                apo_vd_storeu(middle + at[i], APO_BOLLINGER_LANES_MIDDLE(mean[i], sd[i], *kp));
                apo_vd_storeu(lower + at[i], APO_BOLLINGER_LANES_LOWER(mean[i], sd[i], *kp));
            }
        }
    }
}

/* A block's outputs from its steps' means and sds (one vector per step, both transposed
 * here into one vector per lane): two transposes instead of three, the bands being formed
 * after them. */
static APO_FORCE_INLINE void apo__bollinger_block_out(apo_vd *mean, apo_vd *sd, const size_t *at,
                                                      unsigned moving,
                                                      const apo__bollinger_consts *kp,
                                                      double *upper, double *middle, double *lower,
                                                      int stream) {
    apo_vd_transpose(mean);
    apo_vd_transpose(sd);
    apo__bollinger_block_store(mean, sd, at, moving, kp, upper, middle, lower, stream);
}

#if APO_BOLLINGER_BLOCKS_APART && APO_LANES_X86 == 256 && APO_LANES_KMASK
#define APO_BOLLINGER_PAIRS 1
/* A block's outputs where only lanes 0 and 1 move, from its steps' means and variances:
 * mean_t[i], sd_t[i] for lane i = 0, 1, its windows in order. The two lanes of two steps
 * go into one vector (VPERMT2PD), so a block takes two square roots instead of four and
 * moves its values with six permutations instead of two transposes of eight; the roots are
 * the same correctly rounded ones of the same variances, so are the bits. */
static APO_FORCE_INLINE void apo__bollinger_pair_out(const apo_vd *mean, const apo_vd *var,
                                                     apo_vd *mean_t, apo_vd *sd_t) {
    /* {step j lane 0, step j+1 lane 0, step j lane 1, step j+1 lane 1} */
    const __m256i pick = _mm256_set_epi64x(5, 1, 4, 0);
    const __m256d m01 = _mm256_permutex2var_pd((__m256d)mean[0], pick, (__m256d)mean[1]);
    const __m256d m23 = _mm256_permutex2var_pd((__m256d)mean[2], pick, (__m256d)mean[3]);
    const __m256d s01 =
        _mm256_sqrt_pd(_mm256_permutex2var_pd((__m256d)var[0], pick, (__m256d)var[1]));
    const __m256d s23 =
        _mm256_sqrt_pd(_mm256_permutex2var_pd((__m256d)var[2], pick, (__m256d)var[3]));
    mean_t[0] = (apo_vd)_mm256_permute2f128_pd(m01, m23, 0x20);
    mean_t[1] = (apo_vd)_mm256_permute2f128_pd(m01, m23, 0x31);
    sd_t[0] = (apo_vd)_mm256_permute2f128_pd(s01, s23, 0x20);
    sd_t[1] = (apo_vd)_mm256_permute2f128_pd(s01, s23, 0x31);
}
#else
#define APO_BOLLINGER_PAIRS 0
#endif

#if APO_BOLLINGER_BLOCKS_APART
/* The blocks of a stretch while no window in them leaves the vector: from `step` (a
 * multiple of APO_LANES) up to `end`, whole blocks of APO_LANES steps of the lanes in
 * `moving`, whose next windows are at[], with the ring (NULL for a period beyond it) and
 * the stores of apo__bollinger_round. Returns the number of steps done, a multiple of
 * APO_LANES; at[] has moved on by as many for the moving lanes. At a block where a moving
 * lane's step is not valid it stops before that block: *vp is then the state before it,
 * and the caller runs that block with the scalar path's restarts.
 *
 * Why a function of its own: the block loop of the round also holds the scalar path
 * (calls, and a loop that indexes the steps' vectors), and with it in the same loop the
 * compiler kept the lanes' state and the steps' vectors on the stack, storing and
 * loading them at every step. Here nothing is called, the steps of a block are unrolled
 * and their vectors stay in registers; the state goes to *vp once a block, which is what
 * lets a failed block start again. `with_ed` is a constant at each call (the two wrappers
 * below), as in apo__bollinger_lanes_step. */
static APO_FORCE_INLINE size_t apo__bollinger_blocks_body(
    apo__bollinger_lanes *vp, const apo__bollinger_consts *kp, const double *x, size_t *at,
    unsigned moving, size_t step, size_t end, size_t p, apo_vd *ring, double *upper, double *middle,
    double *lower, int stream, const int with_ed, const int pairs) {
    apo__bollinger_lanes v = *vp;
    const apo__bollinger_consts k = *kp;
    const size_t first = step;
    (void)pairs; /* without APO_BOLLINGER_PAIRS every block is transposed */
    while (end - step >= APO_LANES) {
        apo_vd xn[APO_LANES], xo[APO_LANES], mean[APO_LANES], sd[APO_LANES];
        *vp = v;
        apo__bollinger_block_in(x, at, moving, step, p, ring, xn, xo);
        apo_vd var[APO_LANES];
        unsigned failed = 0;
#pragma GCC unroll 8
        for (size_t j = 0; j < APO_LANES; j++) {
            failed |= ~apo__bollinger_lanes_step(&v, &k, xn[j], xo[j], &mean[j], &sd[j], with_ed);
            var[j] = v.var;
        }
        if ((failed & moving) != 0)
            return step - first;
#if APO_BOLLINGER_PAIRS
        if (pairs) {
            apo_vd mean_t[APO_LANES], sd_t[APO_LANES];
            apo__bollinger_pair_out(mean, var, mean_t, sd_t);
            mean_t[2] = mean_t[3] = mean_t[0]; /* not stored: lanes 2 and 3 do not move */
            sd_t[2] = sd_t[3] = sd_t[0];
            apo__bollinger_block_store(mean_t, sd_t, at, moving & 3u, &k, upper, middle, lower,
                                       stream);
        } else
#endif
            apo__bollinger_block_out(mean, sd, at, moving, &k, upper, middle, lower, stream);
        for (size_t i = 0; i < APO_LANES; i++)
            at[i] += (moving >> i & 1u) * APO_LANES;
        step += APO_LANES;
    }
    *vp = v;
    return step - first;
}

/* The four builds of the blocks: with the error of d or without (with_ed), for any lanes or
 * for lanes 0 and 1 alone (pairs). */
#define APO_BOLLINGER_BLOCKS_FN(name, with_ed, pairs)                                              \
    static __attribute__((noinline)) size_t APO_LANES_NAME(name)(                                  \
        apo__bollinger_lanes * vp, const apo__bollinger_consts *kp, const double *x, size_t *at,   \
        unsigned moving, size_t step, size_t end, size_t p, apo_vd *ring, double *upper,           \
        double *middle, double *lower, int stream) {                                               \
        return apo__bollinger_blocks_body(vp, kp, x, at, moving, step, end, p, ring, upper,        \
                                          middle, lower, stream, with_ed, pairs);                  \
    }
APO_BOLLINGER_BLOCKS_FN(apo__bollinger_blocks_plain, 0, 0)
APO_BOLLINGER_BLOCKS_FN(apo__bollinger_blocks_ed, 1, 0)
#if APO_BOLLINGER_PAIRS
APO_BOLLINGER_BLOCKS_FN(apo__bollinger_blocks_plain_pairs, 0, 1)
APO_BOLLINGER_BLOCKS_FN(apo__bollinger_blocks_ed_pairs, 1, 1)
#endif
#undef APO_BOLLINGER_BLOCKS_FN
#endif /* APO_BOLLINGER_BLOCKS_APART */

/* The step, modulo APO_LANES, at which a lane whose first sliding window is at x, upper,
 * middle and lower should start so that its blocks' vectors of that array are aligned: the
 * array's own position in units of doubles, modulo APO_LANES (blocks start at multiples of
 * APO_LANES). The round aligns `upper` (apo_vd_stream writes around the caches only from an
 * aligned address), unless the outputs do not stream and more of the four arrays share
 * another start. Arrays from malloc() are 16-byte aligned, so on the 4-lane path some may
 * lie 16 bytes off the others: 1 x 1e4 bars through the runtime with `upper` alone 16 bytes
 * off took 3.7% less time with the three others aligned. With two against two, which pair to
 * align depended on the path (the input's pair: 1.4% less on the AVX-512VL build, 1.7% more
 * on the avx2 one), so a tie keeps `upper` (docs/perf-log/2026-11-25-catalog-round-7.md, seventh
 * round). Which lane starts when does not change a window's operations, so neither its bits. */
static inline size_t apo__bollinger_lane_phase(const double *x, const double *upper,
                                               const double *middle, const double *lower,
                                               int stream) {
    const uintptr_t at[4] = {(uintptr_t)upper, (uintptr_t)x, (uintptr_t)middle, (uintptr_t)lower};
    size_t phase[4], count[4] = {0, 0, 0, 0};
    for (size_t a = 0; a < 4; a++)
        phase[a] = (size_t)(at[a] / sizeof(double)) % APO_LANES;
    if (stream)
        return phase[0];
    for (size_t a = 0; a < 4; a++)
        for (size_t b = 0; b < 4; b++)
            count[a] += phase[b] == phase[a] && at[b] % sizeof(double) == 0;
    size_t best = 0;
    for (size_t a = 1; a < 4; a++)
        if (count[a] > count[best])
            best = a;
    return phase[best];
}

/* Where each lane of a round starts sliding: its counts and run, whether it slides, its
 * row's sample 0, its next window, the steps of its first and after its last sliding window,
 * and the lane's eq and xlast at its start (apo__bollinger_round). */
typedef struct apo__bollinger_lane_begin {
    apo__bollinger_counts w[APO_LANES];
    apo__bollinger_run run[APO_LANES];
    int sliding[APO_LANES];
    size_t row0[APO_LANES];  /* index of the lane's row's sample 0 in the arrays */
    size_t at[APO_LANES];    /* the lane's next window, absolute in the arrays */
    size_t start[APO_LANES]; /* the step of the lane's first sliding window */
    size_t stop[APO_LANES];  /* ... and the step after its last one */
    double eq0[APO_LANES], xlast0[APO_LANES];
} apo__bollinger_lane_begin;

/* Each lane's NaN prefix and first window, scalar, into `b`; returns the lanes with windows
 * left to slide over and the step after the last one's last in *end_stepp. */
static inline unsigned APO_LANES_NAME(apo__bollinger_lanes_begin)(
    const double *x, size_t cols, const apo__tile_span *tiles, size_t count, size_t p,
    double nbdev_up, double nbdev_dn, double *upper, double *middle, double *lower, int stream,
    apo__bollinger_lane_begin *b, size_t *end_stepp) {
    unsigned lanes = 0; /* lanes with windows left to slide over */
    size_t end_step = 0;
    for (size_t i = 0; i < APO_LANES; i++) {
        b->sliding[i] = 0;
        b->row0[i] = 0;
        b->at[i] = 0;
        b->start[i] = 0;
        b->stop[i] = 0;
        b->eq0[i] = 0.0;
        b->xlast0[i] = 0.0;
        if (i >= count)
            continue;
        const apo__tile_span *tl = &tiles[i];
        b->row0[i] = tl->row * cols;
        const double *xr = x + b->row0[i];
        size_t t =
            apo__bollinger_tile_begin(xr, tl->begin, tl->end, p, &b->w[i], upper + b->row0[i],
                                      middle + b->row0[i], lower + b->row0[i]);
        if (t >= tl->end)
            continue;
        b->sliding[i] =
            apo__bollinger_emit(xr, t + 1, p, nbdev_up, nbdev_dn, &b->w[i], &t, &b->run[i],
                                upper + b->row0[i], middle + b->row0[i], lower + b->row0[i]);
        if (t + 1 >= tl->end)
            continue;
        b->at[i] = b->row0[i] + t + 1;
        b->eq0[i] = (double)(t - b->w[i].last_change);
        b->xlast0[i] = xr[t];
        /* Blocks start at steps that are multiples of APO_LANES; the lane starts so that
         * a block's samples and outputs fill whole aligned vectors of as many of its arrays
         * as can be (apo__bollinger_lane_phase). */
        b->start[i] = i * APO_LANES_STAGGER +
                      apo__bollinger_lane_phase(x + b->at[i], upper + b->at[i], middle + b->at[i],
                                                lower + b->at[i], stream);
        b->stop[i] = b->start[i] + (tl->end - 1 - t);
        lanes |= 1u << i;
        if (b->stop[i] > end_step)
            end_step = b->stop[i];
    }
    *end_stepp = end_step;
    return lanes;
}

/* The round's constants. */
static inline apo__bollinger_consts apo__bollinger_consts_of(size_t p, double nbdev_up,
                                                             double nbdev_dn) {
    apo__bollinger_consts k;
    k.inv_p = apo_vd_splat(1.0 / (double)p);
    k.pm1 = apo_vd_splat((double)(p - 1));
    k.limit = apo_vd_splat(APO_BOLLINGER_LIMIT); /* as apo__bollinger_slide_step's */
    k.nbu = apo_vd_splat(nbdev_up);
    k.nbd = apo_vd_splat(nbdev_dn);
    k.one = apo_vd_splat(1.0);
    k.neg_max = apo_vd_splat(-DBL_MAX);
    return k;
}

/* The scalar path for lane i at absolute window index `abs`: the counts move on, then the
 * window is emitted by apo__bollinger_emit and the lane takes up its new state. Inlined, as
 * the macro it was, so that the lanes' state stays in registers. */
static APO_FORCE_INLINE void
apo__bollinger_lane_restart(apo__bollinger_lanes *v, apo__bollinger_lane_begin *b, size_t i,
                            size_t abs, const double *x, size_t p, double nbdev_up, double nbdev_dn,
                            double *upper, double *middle, double *lower) {
    const double *xr = x + b->row0[i];
    size_t t = abs - b->row0[i];
    apo__bollinger_slide_counts(&b->w[i], xr, t, p);
    b->w[i].last_change = t - (size_t)apo_vd_lane(v->eq, i);
    b->sliding[i] =
        apo__bollinger_emit(xr, t + 1, p, nbdev_up, nbdev_dn, &b->w[i], &t, &b->run[i],
                            upper + b->row0[i], middle + b->row0[i], lower + b->row0[i]);
    apo__bollinger_lane_load(v, i, b->sliding[i], &b->run[i]);
}

/* A block of APO_LANES steps from `step` (a multiple of APO_LANES): each moving lane's samples
 * come in as one vector per lane and are transposed into one vector per step; the outputs go
 * back the same way. Lanes that do not move read zeros and store nothing. `ring` as
 * apo__bollinger_block_in's (NULL: none). Inlined into the round. */
static APO_FORCE_INLINE void
apo__bollinger_block(apo__bollinger_lanes *v, const apo__bollinger_consts *kp,
                     apo__bollinger_lane_begin *b, const double *x, unsigned moving, size_t step,
                     size_t p, apo_vd *ring, double nbdev_up, double nbdev_dn, double *upper,
                     double *middle, double *lower, int stream) {
    size_t *const at = b->at;
    apo_vd xn[APO_LANES], xo[APO_LANES], mean[APO_LANES], sd[APO_LANES];
    /* Windows the scalar path wrote inside the block, and what it wrote: the block's
     * stores below overwrite them, and they are written again after. */
    struct {
        size_t at;
        double upper, middle, lower;
    } kept[APO_LANES * APO_LANES];
    size_t n_kept = 0;
    apo__bollinger_block_in(x, at, moving, step, p, ring, xn, xo);
    /* Lanes in a run with K = 0 (lo = -DBL_MAX; a lane in no run has lo = +inf) need
     * the step with ed; a restart inside the block may start one. */
    int with_ed = (moving & ~apo_vm_bits(apo_vd_gt(v->lo, kp->neg_max))) != 0;
    for (size_t j = 0; j < APO_LANES; j++) {
        const unsigned ok =
            with_ed ? apo__bollinger_lanes_step(v, kp, xn[j], xo[j], &mean[j], &sd[j], 1)
                    : apo__bollinger_lanes_step(v, kp, xn[j], xo[j], &mean[j], &sd[j], 0);
        unsigned fail = moving & ~ok;
        while (fail != 0) {
            const size_t i = (size_t)__builtin_ctz(fail);
            fail &= fail - 1;
            apo__bollinger_lane_restart(v, b, i, at[i] + j, x, p, nbdev_up, nbdev_dn, upper, middle,
                                        lower);
            with_ed |= b->sliding[i] && b->run[i].lo == -DBL_MAX;
            kept[n_kept].at = at[i] + j;
            kept[n_kept].upper = upper[at[i] + j];
            kept[n_kept].middle = middle[at[i] + j];
            kept[n_kept].lower = lower[at[i] + j];
            n_kept++;
        }
    }
    apo__bollinger_block_out(mean, sd, at, moving, kp, upper, middle, lower, stream);
    if (n_kept > 0)
        apo_lanes_fence(stream);
    for (size_t q = 0; q < n_kept; q++) {
        upper[kept[q].at] = kept[q].upper;
        middle[kept[q].at] = kept[q].middle;
        lower[kept[q].at] = kept[q].lower;
    }
    for (size_t i = 0; i < APO_LANES; i++)
        at[i] += (moving >> i & 1u) * APO_LANES;
}

static void APO_LANES_NAME(apo__bollinger_round)(const double *x, size_t cols,
                                                 const apo__tile_span *tiles, size_t count,
                                                 size_t p, double nbdev_up, double nbdev_dn,
                                                 double *upper, double *middle, double *lower,
                                                 int stream) {
    /* Only where a block's store of a lane is a whole line (lanes.h, APO_LANES_STREAM). */
    stream = stream && APO_LANES_STREAM;
    apo__bollinger_lane_begin b;
    apo__bollinger_run *const run = b.run;
    int *const sliding = b.sliding;
    size_t *const at = b.at, *const start = b.start, *const stop = b.stop;
    const double *const eq0 = b.eq0, *const xlast0 = b.xlast0;
    apo__bollinger_lanes v;
    /* For periods up to APO_BOLLINGER_RING - APO_LANES, the samples leaving the windows come
     * from a ring of the last steps' incoming samples (already one vector per step) instead
     * of a second load and transpose per block. */
    apo_vd ring[APO_BOLLINGER_RING];
    const int use_ring = p + APO_LANES <= APO_BOLLINGER_RING;
    v.shift = v.lo = v.hi = v.s = v.c = v.ybar = v.var = v.acc = v.eq = v.xlast = apo_vd_splat(0.0);

    /* One step of every lane, with each lane's outputs stored on their own. */
#define APO_BOLLINGER_SINGLE_STEP()                                                                \
    do {                                                                                           \
        /* Every lane is set below; the splats say so to gcc, which at -O2 warned otherwise. */    \
        apo_vd xn = apo_vd_splat(NAN), xo = apo_vd_splat(NAN), mean, sd;                           \
        for (size_t i = 0; i < APO_LANES; i++) {                                                   \
            const int on_ = moving >> i & 1u;                                                      \
            xn[i] = on_ ? x[at[i]] : NAN;                                                          \
            xo[i] = on_ ? x[at[i] - p] : NAN;                                                      \
        }                                                                                          \
        if (use_ring)                                                                              \
            ring[step % APO_BOLLINGER_RING] = xn;                                                  \
        const unsigned ok = apo__bollinger_lanes_step(&v, &k, xn, xo, &mean, &sd, 1);              \
        const apo_vd up = APO_BOLLINGER_LANES_UPPER(mean, sd, k);                                  \
        const apo_vd dn = APO_BOLLINGER_LANES_LOWER(mean, sd, k);                                  \
        mean = APO_BOLLINGER_LANES_MIDDLE(mean, sd, k);                                            \
        const unsigned emit = moving & ok;                                                         \
        for (size_t i = 0; i < APO_LANES; i++) {                                                   \
            if (emit >> i & 1u) {                                                                  \
                upper[at[i]] = up[i];                                                              \
                middle[at[i]] = mean[i];                                                           \
                lower[at[i]] = dn[i];                                                              \
            }                                                                                      \
        }                                                                                          \
        unsigned fail = moving & ~ok;                                                              \
        while (fail != 0) {                                                                        \
            const size_t i = (size_t)__builtin_ctz(fail);                                          \
            fail &= fail - 1;                                                                      \
            apo__bollinger_lane_restart(&v, &b, i, at[i], x, p, nbdev_up, nbdev_dn, upper, middle, \
                                        lower);                                                    \
        }                                                                                          \
        for (size_t i = 0; i < APO_LANES; i++)                                                     \
            at[i] += moving >> i & 1u;                                                             \
    } while (0)

    /* Each lane's NaN prefix and first window, scalar. */
    size_t end_step = 0;
    const unsigned lanes = APO_LANES_NAME(apo__bollinger_lanes_begin)(
        x, cols, tiles, count, p, nbdev_up, nbdev_dn, upper, middle, lower, stream, &b, &end_step);
    if (lanes == 0)
        return;
    const apo__bollinger_consts k = apo__bollinger_consts_of(p, nbdev_up, nbdev_dn);

    size_t step = 0;
    while (step < end_step) {
        /* Lanes sliding in this stretch, which lasts up to the next lane starting or
         * stopping. A lane starting now takes up its first window's state. */
        unsigned moving = 0;
        size_t next = end_step;
        for (size_t i = 0; i < APO_LANES; i++) {
            if (!(lanes >> i & 1u))
                continue;
            if (step == start[i]) {
                apo__bollinger_lane_load(&v, i, sliding[i], &run[i]);
                v.eq = apo_vd_with_lane(v.eq, i, eq0[i]);
                v.xlast = apo_vd_with_lane(v.xlast, i, xlast0[i]);
                if (use_ring) {
                    /* The lane's samples before its first sliding window, at the steps
                     * they would have come in at. */
                    for (size_t m = 1; m <= p; m++)
                        ring[(step - m) % APO_BOLLINGER_RING][i] = x[at[i] - m];
                }
            }
            if (step < start[i]) {
                next = start[i] < next ? start[i] : next;
            } else if (step < stop[i]) {
                moving |= 1u << i;
                next = stop[i] < next ? stop[i] : next;
            }
        }

        /* Single steps up to the next multiple of APO_LANES. */
        for (; step < next && step % APO_LANES != 0; step++) {
            APO_BOLLINGER_SINGLE_STEP();
        }
        /* Blocks of APO_LANES steps: each moving lane's samples come in as one vector per
         * lane and are transposed into one vector per step; the outputs go back the same
         * way. Lanes that do not move read zeros and store nothing. */
        while (next - step >= APO_LANES) {
#if APO_BOLLINGER_BLOCKS_APART
            {
                const int ed = (moving & ~apo_vm_bits(apo_vd_gt(v.lo, k.neg_max))) != 0;
                apo_vd *const r = use_ring ? ring : NULL;
#if APO_BOLLINGER_PAIRS
                if ((moving & ~3u) == 0)
                    step += ed ? APO_LANES_NAME(apo__bollinger_blocks_ed_pairs)(
                                     &v, &k, x, at, moving, step, next, p, r, upper, middle, lower,
                                     stream)
                               : APO_LANES_NAME(apo__bollinger_blocks_plain_pairs)(
                                     &v, &k, x, at, moving, step, next, p, r, upper, middle, lower,
                                     stream);
                else
#endif
                    step += ed ? APO_LANES_NAME(apo__bollinger_blocks_ed)(&v, &k, x, at, moving,
                                                                          step, next, p, r, upper,
                                                                          middle, lower, stream)
                               : APO_LANES_NAME(apo__bollinger_blocks_plain)(
                                     &v, &k, x, at, moving, step, next, p, r, upper, middle, lower,
                                     stream);
                if (next - step < APO_LANES)
                    break;
            }
#endif
            apo__bollinger_block(&v, &k, &b, x, moving, step, p, use_ring ? ring : NULL, nbdev_up,
                                 nbdev_dn, upper, middle, lower, stream);
            step += APO_LANES;
        }

        /* The rest of the stretch, one step at a time. */
        for (; step < next; step++) {
            APO_BOLLINGER_SINGLE_STEP();
        }
    }
    apo_lanes_fence(stream);
#undef APO_BOLLINGER_SINGLE_STEP
}

#endif /* APO_BOLLINGER_LANES_H */
