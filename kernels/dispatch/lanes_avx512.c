/*
 * lanes_avx512.c: the avx512 path of the lane kernels, 8 lanes of doubles per vector, built with
 * -mavx512f (meson.build). Only called after apo__cpu_isa_supported(APO_CPU_ISA_AVX512)
 * (cpu_isa.h).
 */
#define APO_LANES 8
#define APO_LANES_NAME(name) name##_avx512

#include "lanes_entry.h"
