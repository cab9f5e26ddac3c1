/*
 * lanes_sse2.c: the sse2 path of the lane kernels, 2 lanes of doubles per vector, built with
 * the x86-64 baseline (no extra flags). Only called after apo__cpu_isa_supported(APO_CPU_ISA_SSE2)
 * (cpu_isa.h).
 */
#define APO_LANES 2
#define APO_LANES_NAME(name) name##_sse2

#include "lanes_entry.h"
