/*
 * pass_lanes_avx512.c: bollinger's pass shared by band widths on the avx512 path, 8 lanes of
 * doubles per vector, built with -mavx512f (meson.build) (pass_lanes_entry.h). Only called after
 * apo__cpu_isa_supported() has accepted the path (cpu_isa.h).
 */
#define APO_LANES 8
#define APO_LANES_NAME(name) name##_pass_avx512

#include "pass_lanes_entry.h"
