/*
 * test_catalog_runtime_slow.c: every catalog kernel, and every candlestick pattern, gives
 * bitwise the outputs of the cpu device alone on simulated devices at skewed ratios, split by
 * rows and along time, with rows of several tiles and a gap (under the sanitizers a sample of
 * them, test_kernel_sampled in helpers.h). In the slow suite: about 50 s of CPU, where the unit
 * suite has a budget (tests/README.md).
 */
#include <criterion/criterion.h>

#include "catalog_runtime_fixtures.h"
#include "helpers.h"

Test(catalog_runtime_slow, every_kernel_same_bits_on_every_device_set_ratio_and_axis,
     .timeout = 900) {
    apo_runtime *cpu = test_runtime("cpu");
    for (size_t ci = 0; ci < n_cases; ci++)
        if (test_kernel_sampled(ci))
            same_bits_everywhere(cpu, &cases[ci], ci, NULL);
    for (size_t i = 0; i < n_candlesticks; i++) {
        const cat_case c = {candlesticks[i], 0, OHLC_COLS, OHLC};
        if (test_kernel_sampled(n_cases + i))
            same_bits_everywhere(cpu, &c, n_cases + i, NULL);
    }
    apo_runtime_destroy(cpu);
}
