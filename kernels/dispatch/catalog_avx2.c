/*
 * catalog_avx2.c: the catalog tile call on the avx2 path, 4 lanes of doubles per vector, built with
 * -mavx2 (meson.build). Only called after apo__cpu_isa_supported(APO_CPU_ISA_AVX2) (cpu_isa.h).
 */
#define APO_CATALOG_PATH_NAME(name) name##_avx2

#include "catalog_entry.h"
