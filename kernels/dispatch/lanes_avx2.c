/*
 * lanes_avx2.c: the avx2 path of the lane kernels, 4 lanes of doubles per vector, built with
 * -mavx2 (meson.build). Only called after apo__cpu_isa_supported(APO_CPU_ISA_AVX2) (cpu_isa.h).
 */
#define APO_LANES 4
#define APO_LANES_NAME(name) name##_avx2

#include "lanes_entry.h"
