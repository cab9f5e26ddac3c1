/*
 * lanes_avx512_ymm.c: bollinger's rounds of four tiles on a CPU with AVX-512, in 4-lane
 * (256-bit) vectors built with -mavx512f -mavx512vl.
 *
 * Why: a round of 2 to 4 tiles (a series of 1e4 bars is three bollinger tiles) goes to the
 * 4-lane path (lanes_dispatch.c), whose step keeps ten vectors of state and eight of
 * constants: with the 16 registers of AVX2 the compiler spills several of them to the stack
 * at every step, the equal-sample count among them, so its chain runs through a store and a
 * load. AVX-512VL gives 256-bit operations the 32 registers of AVX-512, and the step keeps
 * its state in registers (docs/PERF.md: 10% less time a call at 1e4 bars on Zen 4). The
 * operations on the values are the avx2 path's, so are the bits; its masks are k-registers
 * (lanes.h, APO_LANES_KMASK), which take a comparison in one instruction and let a NaN band
 * be canonicalised by one VFIXUPIMMPD (docs/perf-log/2026-11-25-catalog-round-6.md, sixth round).
 *
 * It also runs its blocks apart (APO_BOLLINGER_BLOCKS_APART, bollinger_lanes.h): the blocks
 * without a scalar restart in a function that holds no calls, whose four steps are unrolled
 * and keep their vectors in registers, a block with a restart being run again step by step.
 * Where only lanes 0 and 1 move, a block takes its square roots two steps to a vector
 * (APO_BOLLINGER_PAIRS, bollinger_lanes.h). Same bits; 13-15% less time a call at 1e4 bars
 * on Zen 4 for the blocks apart, 12% more for the sixth round (docs/PERF.md). Blocks apart
 * only here: the 8-lane avx512 build lost 25-30% with them (eight 512-bit steps do not fit the
 * registers, and a block of 8 x 8 windows takes the scalar path more often); the avx2 and
 * sse2 builds, with 16 registers, were not measured and keep the round's block loop.
 *
 * Built only into the avx512 library's companion (kernels/meson.build) and called only
 * when apo__cpu_has_avx512_ymm() says that the CPU has AVX-512VL.
 */
#define APO_LANES 4
#define APO_LANES_NAME(name) name##_avx512_ymm
#define APO_BOLLINGER_BLOCKS_APART 1

#include "bollinger_lanes.h"
#include "lanes_paths.h"

void apo__bollinger_tiles_avx512_ymm(const double *x, size_t cols, const apo__tile_span *tiles,
                                     size_t count, size_t period, double nbdev_up, double nbdev_dn,
                                     double *upper, double *middle, double *lower, int stream) {
    for (size_t r = 0; r < count; r += APO_LANES)
        APO_LANES_NAME(apo__bollinger_round)
    (x, cols, tiles + r, count - r < APO_LANES ? count - r : APO_LANES, period, nbdev_up, nbdev_dn,
     upper, middle, lower, stream);
}
