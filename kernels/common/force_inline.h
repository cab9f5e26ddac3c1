/*
 * force_inline.h: APO_FORCE_INLINE, a body always inlined into its callers, for the bodies
 * whose speed is the copy specialised by their constant arguments (catalog.h's
 * APO_CAT_SPECIALISED, the lane bodies of bollinger, macd, the scores and stoch).
 *
 * Under a sanitizer (gcc's __SANITIZE_ADDRESS__ and __SANITIZE_THREAD__; the builds of
 * scripts/test.sh --sanitize and --tsan) it is plain inline and the compiler decides: each
 * forced copy was instrumented whole, and gcc took about 350 s for dispatch/lanes_sse2.c under
 * ASan+UBSan with the copies forced, 22 s without (the 2-core VM, 2026-11-28), in the stage
 * that held the CI past its hour. The operations and their order are the same either way
 * (no contraction, -ffp-contract=off), so the bits are too; what changes is only which
 * calls stay calls in a build whose speed nobody measures.
 *
 * APO_NOINLINE keeps a function out of its callers: the score lanes' per-kind functions
 * (score_lanes.h), each compiled on its own, where one function that held every kind's
 * forced copies took gcc longer than its size alone explains.
 */
#ifndef APO_FORCE_INLINE_H
#define APO_FORCE_INLINE_H

#if defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define APO_FORCE_INLINE inline __attribute__((always_inline))
#else
#define APO_FORCE_INLINE inline
#endif

#if defined(__GNUC__)
#define APO_NOINLINE __attribute__((noinline))
#else
#define APO_NOINLINE
#endif

#endif /* APO_FORCE_INLINE_H */
