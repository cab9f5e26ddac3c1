/*
 * pass_lanes_avx2.c: bollinger's pass shared by band widths on the avx2 path, 4 lanes of doubles
 * per vector, built with -mavx2 (meson.build) (pass_lanes_entry.h). Only called after
 * apo__cpu_isa_supported() has accepted the path (cpu_isa.h).
 */
#define APO_LANES 4
#define APO_LANES_NAME(name) name##_pass_avx2

#include "pass_lanes_entry.h"
