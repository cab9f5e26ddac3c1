/*
 * Shares rounded to whole units (rows or tiles) by largest remainder, ties to the lower
 * device index. A pure function of its arguments, so it is tested alone.
 */
#ifndef APO_RUNTIME_BALANCE_LARGEST_REMAINDER_H
#define APO_RUNTIME_BALANCE_LARGEST_REMAINDER_H

#include <stddef.h>
#include <stdint.h>

/* Splits `units` among `n` (at most APO_MAX_DEVICES) non-negative weights whose sum is
 * positive: counts[i] is floor(units * w_i / sum) plus one for the devices with the
 * largest remainders (ties to the lower index) until the counts add up to `units`. A zero
 * weight gets zero units. */
void apo__largest_remainder(const double *weights, size_t n, uint64_t units, uint64_t *counts);

#endif
