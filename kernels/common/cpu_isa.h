/*
 * cpu_isa.h: the vector paths of the CPU kernels, and which of them this CPU can run.
 *
 * What: bollinger, macd and returns_stats can compute several independent tiles at once,
 * one tile per lane of a vector register (the *_lanes.h bodies, built once per path in
 * lanes_<path>.c). Every lane performs exactly the IEEE operations of the scalar tile body
 * (kernels/<room>/<name>_tile.h) in the same order, so every path gives the same bits as the
 * scalar body and as the GPU; a path only sets the speed (docs/kernels-vector-paths.md, "Vector
 * paths").
 *
 * Paths: sse2 (two lanes; the x86-64 baseline, so every x86-64 CPU has it; on another
 * architecture the same code built for its baseline), avx2 (four lanes) and avx512 (eight
 * lanes, AVX-512F). The library is built for the baseline; the avx2 and avx512 paths are
 * compiled separately with their own flags and only ever called after the CPU and the
 * operating system were found to support them (cpuid and the OS-enabled register state,
 * through the compiler's __builtin_cpu_supports).
 */
#ifndef APO_CPU_ISA_H
#define APO_CPU_ISA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum apo__cpu_isa {
    APO_CPU_ISA_AUTO = 0, /* not a path: the best this CPU has (the settings' unset value) */
    APO_CPU_ISA_SSE2 = 1,
    APO_CPU_ISA_AVX2 = 2,
    APO_CPU_ISA_AVX512 = 3
} apo__cpu_isa;

/* The last path, for loops over all of them. */
#define APO_CPU_ISA_LAST APO_CPU_ISA_AVX512

/* Whether this build has the path and this CPU and operating system can run it. AUTO and
 * unknown values: 0. */
int apo__cpu_isa_supported(apo__cpu_isa isa);

/* The fastest path apo__cpu_isa_supported() accepts (sse2 at least). */
apo__cpu_isa apo__cpu_isa_best(void);

/* `wanted` when supported, else the best supported path (AUTO: the best). */
apo__cpu_isa apo__cpu_isa_resolve(apo__cpu_isa wanted);

/* "sse2", "avx2", "avx512" ("auto" for AUTO, "?" for anything else). */
const char *apo__cpu_isa_name(apo__cpu_isa isa);

/* Lanes of one vector of doubles on the path: 2, 4, 8 (1 for AUTO and unknown values). */
size_t apo__cpu_isa_lanes(apo__cpu_isa isa);

/* The CPUs with AVX-512 on which some kernels were measured faster on avx2's 4 lanes than on
 * 8 (docs/kernels-vector-paths.md, "Vector paths"); each has its own list of such kernels
 * (catalog.h, apo__catalog_path). */
typedef enum apo__avx512_kind {
    APO_AVX512_MEASURED_NONE = 0, /* no AVX-512, or another vendor's CPU: the widest */
    APO_AVX512_AMD_HALVED = 1,    /* AMD family 19h (Zen 4): 512-bit operations in two halves */
    APO_AVX512_AMD_WHOLE = 2,     /* AMD family 1Ah (Zen 5): whole, but gathers still slow */
    APO_AVX512_INTEL = 3          /* Intel (measured: family 6 model 207, Emerald Rapids): a
                                   * lane gathered is a masked broadcast, one shuffle port's
                                   * work, so a round of few tiles pays for eight lanes; a
                                   * short list too (catalog_table.h, AVX2_INTEL) */
} apo__avx512_kind;

/* Which of them this CPU is, from cpuid's vendor and family, read once (a hypervisor answers
 * cpuid with a trap of microseconds). Kernels whose 8-lane form loses there (gathered lanes,
 * loops the compiler widens) then run on avx2 when the runtime picks the path; on Intel and
 * Zen 4, the rounds of lanes of at most four tiles (catalog_dispatch.h,
 * apo__catalog_round_path_on). */
apo__avx512_kind apo__cpu_avx512_kind(void);

/* Whether the avx512 path may run bollinger's 4-lane rounds in 256-bit vectors with
 * AVX-512VL's registers (dispatch/lanes_avx512_ymm.c): the build has them and the CPU and
 * operating system have AVX-512F and AVX-512VL. */
int apo__cpu_has_avx512_ymm(void);

/* The supported paths' names, space-separated ("sse2 avx2 avx512"), into out. */
void apo__cpu_isa_list_supported(char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* APO_CPU_ISA_H */
