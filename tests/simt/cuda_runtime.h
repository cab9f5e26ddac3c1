/*
 * cuda_runtime.h of the SIMT layer: what a .cu file compiled for the host (tests/simt/simt.h,
 * docs/simt.md) finds when it includes the CUDA runtime. The
 * folder is first on that compile's include path; the real header is never reached.
 */
#include "simt.h"
