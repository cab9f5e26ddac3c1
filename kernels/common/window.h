/*
 * window.h: the gap rule of the catalog's sliding-window bodies (APO_HD, shared by the CPU
 * and CUDA).
 *
 * What: a window [t - p + 1, t] that holds a non-finite sample of any input gives NaN
 * outputs; the next clean window is evaluated afresh, so a gap affects exactly the windows
 * that contain it (docs/kernels.md, "Non-finite policy"). A body keeps `bad`, one past the
 * index of the last non-finite sample seen (0: none), starting from the samples of its
 * halo, and asks apo__window_clean at each position.
 */
#ifndef APO_KERNELS_WINDOW_H
#define APO_KERNELS_WINDOW_H

#include "apo_hd.h"
#include "catalog.h"
#include "dd.h"

/* 1 unless one of the first `n_in` inputs is not finite at t. Every input is tested (&,
 * not &&): the tests cost less than a branch after each, and samples are almost always
 * finite. */
static inline APO_HD int apo__all_finite_at(const double *const *in, size_t n_in, size_t t) {
    int ok = 1;
    for (size_t i = 0; i < n_in; i++)
        ok = ok & apo__finite(in[i][t]);
    return ok;
}

/* One past the last index in [from, to) where an input is not finite; 0 when none. */
static inline APO_HD size_t apo__last_gap(const double *const *in, size_t n_in, size_t from,
                                          size_t to) {
    size_t bad = 0;
    for (size_t t = from; t < to; t++)
        if (!apo__all_finite_at(in, n_in, t))
            bad = t + 1;
    return bad;
}

/* The first sample of the window of p samples that a tile starting at `begin` reads. */
static inline APO_HD size_t apo__window_from(size_t begin, size_t p) {
    return begin + 1 >= p ? begin + 1 - p : 0;
}

/* 1 when the window of p samples ending at t exists (t >= p - 1) and holds no gap, given
 * `bad` (one past the last gap at or before t, 0: none). */
static inline APO_HD int apo__window_clean(size_t t, size_t p, size_t bad) {
    return t + 1 >= p && (bad == 0 || bad + p <= t + 1);
}

/* The tile's start of a window body (wma, max, min, willr, aroon, cci): the loop runs
 * from begin, with n[0] the position after the last gap among the first n_in inputs in the
 * w - 1 samples before it, and nothing valid yet (apo__cat_run). willr gives its highs and
 * lows only: its close is read at its own bar (willr_tile.h). */
static inline APO_HD void apo__window_start(const apo__cat_io *io, size_t n_in, size_t w,
                                            size_t begin, apo__cat_run *r) {
    apo__cat_run_from(r, begin);
    r->n[0] = apo__last_gap(io->in, n_in, apo__window_from(begin, w), begin);
}

/*
 * A sliding-window body's state between the pieces of a tile (apo__cat_run): n[0] the last
 * gap (`bad` above), n[1] whether the running sums are the last window's, and its
 * double-double sums two words each from v[0]. Every window body resumes and keeps its state
 * through these, so the pieces of a tile hand on the same words whichever body runs them.
 */

/* Sum k of the state (v[2k], v[2k + 1]). */
static inline APO_HD apo__dd apo__window_sum(const apo__cat_run *r, int k) {
    return apo__dd_make(r->v[2 * k], r->v[2 * k + 1]);
}

/* Keeps sum k of the state (as apo__window_sum reads it). */
static inline APO_HD void apo__window_keep_sum(apo__cat_run *r, int k, apo__dd s) {
    r->v[2 * k] = s.hi;
    r->v[2 * k + 1] = s.lo;
}

/* Keeps the position a piece ran to, its last gap and whether its sums are valid. */
static inline APO_HD void apo__window_keep(apo__cat_run *r, size_t end, size_t bad, int valid) {
    r->t = end > r->t ? end : r->t;
    r->n[0] = bad;
    r->n[1] = (size_t)valid;
}

/* The gap step of a window body at t, `finite` whether its inputs are finite there: notes a
 * gap in `bad`, and where the window of p samples ending at t is not clean, writes NaN at
 * out[t], marks the running sums or extremes stale and returns 0 (the body goes on to
 * t + 1). */
static inline APO_HD int apo__window_step(int finite, double *out, size_t t, size_t p, size_t *bad,
                                          int *valid) {
    if (!finite)
        *bad = t + 1;
    if (apo__window_clean(t, p, *bad))
        return 1;
    out[t] = NAN;
    *valid = 0;
    return 0;
}

#endif /* APO_KERNELS_WINDOW_H */
