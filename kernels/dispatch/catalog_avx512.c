/*
 * catalog_avx512.c: the catalog tile call on the avx512 path, 8 lanes of doubles per vector, built
 * with -mavx512f (meson.build). Only called after apo__cpu_isa_supported(APO_CPU_ISA_AVX512)
 * (cpu_isa.h).
 */
#define APO_CATALOG_PATH_NAME(name) name##_avx512

#include "catalog_entry.h"
