/*
 * FNV-1a, 64 bits: the checksum of a saved stream state (runtime/streaming/) and of the
 * state file of `apportion stream` (cli/), which wraps one. Not a defence against someone who
 * forges a state, only against bytes changed by accident: every single changed byte changes
 * the sum (each step is a bijection of the running value), and most other damage does.
 */
#ifndef APO_KERNELS_COMMON_FNV1A_H
#define APO_KERNELS_COMMON_FNV1A_H

#include <stddef.h>
#include <stdint.h>

uint64_t apo__fnv1a64(const void *data, size_t len);

#endif
