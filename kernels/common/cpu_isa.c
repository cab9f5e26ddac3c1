/*
 * cpu_isa.c: which vector paths this build has and this CPU can run (cpu_isa.h).
 *
 * The avx2 and avx512 paths exist when meson compiled lanes_avx2.c and lanes_avx512.c
 * (x86-64 with a compiler that takes -mavx2 and -mavx512f): it then defines
 * APO_HAVE_LANES_AVX2 and APO_HAVE_LANES_AVX512 for this file. The CPU check goes through
 * __builtin_cpu_supports, which reads cpuid and, for AVX and AVX-512, whether the
 * operating system saves the wider registers (XGETBV), so a path is never chosen on a CPU
 * or a kernel that would fault on its instructions.
 */
#include "cpu_isa.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#if defined(__x86_64__) && (defined(APO_HAVE_LANES_AVX2) || defined(APO_HAVE_LANES_AVX512))
#define APO_CPU_ISA_PROBE 1
#endif

int apo__cpu_isa_supported(apo__cpu_isa isa) {
    switch (isa) {
    case APO_CPU_ISA_SSE2:
        return 1;
#if defined(APO_CPU_ISA_PROBE) && defined(APO_HAVE_LANES_AVX2)
    case APO_CPU_ISA_AVX2:
        __builtin_cpu_init();
        /* Its files are built with -mfma too (kernels/meson.build, tile_vec.h's apo_tv_fma). */
        return __builtin_cpu_supports("avx2") != 0 && __builtin_cpu_supports("fma") != 0;
#endif
#if defined(APO_CPU_ISA_PROBE) && defined(APO_HAVE_LANES_AVX512)
    case APO_CPU_ISA_AVX512:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") != 0;
#endif
    default:
        return 0;
    }
}

int apo__cpu_has_avx512_ymm(void) {
#if defined(APO_CPU_ISA_PROBE) && defined(APO_HAVE_LANES_AVX512_YMM)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") != 0 && __builtin_cpu_supports("avx512vl") != 0;
#else
    return 0;
#endif
}

apo__cpu_isa apo__cpu_isa_best(void) {
    for (int isa = APO_CPU_ISA_LAST; isa > APO_CPU_ISA_SSE2; isa--)
        if (apo__cpu_isa_supported((apo__cpu_isa)isa))
            return (apo__cpu_isa)isa;
    return APO_CPU_ISA_SSE2;
}

apo__cpu_isa apo__cpu_isa_resolve(apo__cpu_isa wanted) {
    return apo__cpu_isa_supported(wanted) ? wanted : apo__cpu_isa_best();
}

const char *apo__cpu_isa_name(apo__cpu_isa isa) {
    switch (isa) {
    case APO_CPU_ISA_AUTO:
        return "auto";
    case APO_CPU_ISA_SSE2:
        return "sse2";
    case APO_CPU_ISA_AVX2:
        return "avx2";
    case APO_CPU_ISA_AVX512:
        return "avx512";
    }
    return "?";
}

size_t apo__cpu_isa_lanes(apo__cpu_isa isa) {
    switch (isa) {
    case APO_CPU_ISA_SSE2:
        return 2;
    case APO_CPU_ISA_AVX2:
        return 4;
    case APO_CPU_ISA_AVX512:
        return 8;
    default:
        return 1;
    }
}

void apo__cpu_isa_list_supported(char *out, size_t size) {
    if (size == 0)
        return;
    out[0] = '\0';
    size_t used = 0;
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        int n = snprintf(out + used, size - used, "%s%s", used > 0 ? " " : "",
                         apo__cpu_isa_name((apo__cpu_isa)isa));
        if (n < 0 || (size_t)n >= size - used)
            return;
        used += (size_t)n;
    }
}

/* Reads cpuid, which a virtual machine's hypervisor answers by a trap of microseconds: called
 * once, through apo__cpu_avx512_kind's cache. */
static apo__avx512_kind avx512_kind_uncached(void) {
#if defined(__x86_64__)
    if (!apo__cpu_isa_supported(APO_CPU_ISA_AVX512))
        return APO_AVX512_MEASURED_NONE;
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx))
        return APO_AVX512_MEASURED_NONE;
    /* "AuthenticAMD" and "GenuineIntel" in ebx, edx, ecx. */
    const int amd = ebx == 0x68747541u && edx == 0x69746e65u && ecx == 0x444d4163u;
    const int intel = ebx == 0x756e6547u && edx == 0x49656e69u && ecx == 0x6c65746eu;
    if (intel)
        return APO_AVX512_INTEL;
    if (!amd || !__get_cpuid(1, &eax, &ebx, &ecx, &edx))
        return APO_AVX512_MEASURED_NONE;
    /* The family: the base field, plus the extended field when the base is 0xF. */
    const unsigned base = (eax >> 8) & 0xFu;
    const unsigned family = base == 0xFu ? base + ((eax >> 20) & 0xFFu) : base;
    return family == 0x19u   ? APO_AVX512_AMD_HALVED
           : family == 0x1Au ? APO_AVX512_AMD_WHOLE
                             : APO_AVX512_MEASURED_NONE;
#else
    return APO_AVX512_MEASURED_NONE;
#endif
}

apo__avx512_kind apo__cpu_avx512_kind(void) {
    /* -1: not read yet. Threads that race here read the same CPU and store the same value. */
    static _Atomic int cached = -1;
    int v = atomic_load_explicit(&cached, memory_order_relaxed);
    if (v < 0) {
        v = (int)avx512_kind_uncached();
        atomic_store_explicit(&cached, v, memory_order_relaxed);
    }
    return (apo__avx512_kind)v;
}
