/*
 * pass_lanes_sse2.c: bollinger's pass shared by band widths on the sse2 path, 2 lanes of doubles
 * per vector, built with the x86-64 baseline (no extra flags) (pass_lanes_entry.h). Only called
 * after apo__cpu_isa_supported() has accepted the path (cpu_isa.h).
 */
#define APO_LANES 2
#define APO_LANES_NAME(name) name##_pass_sse2

#include "pass_lanes_entry.h"
