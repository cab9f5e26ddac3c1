/*
 * Shares planned with the spread of a device's times (runtime/balance/model.h,
 * apo__model_spread; docs/scheduling.md, "Devices whose time varies"): two devices equally
 * fast on the median, one of whose times vary, through the balancing state as calls feed it.
 * The expected shares are worked out here from the text: a device planned q times slower
 * than its model takes 1 / (1 + q) of two equal devices' work.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "balance/balance_state.h"

#define ELEMENTS 1e6
#define COST 1e-8 /* seconds per element, both devices' median */

/* A balancing state on two sim devices, learning, profiles off. */
static void two_devices(apo__balance *b, apo_device_info info[2]) {
    static const apo_device_info *ptrs[2];
    for (int d = 0; d < 2; d++) {
        info[d] = (apo_device_info)APO_DEVICE_INFO_INIT;
        info[d].kind = APO_DEVICE_SIM;
        snprintf(info[d].id, sizeof info[d].id, "sim:%s", d == 0 ? "steady" : "varying");
        snprintf(info[d].config, sizeof info[d].config, "rate=1e+08,latency=0,clock=virtual");
        ptrs[d] = &info[d];
    }
    apo__balance_settings s;
    memset(&s, 0, sizeof s);
    s.learn = 1;
    s.persist_interval_s = 1e9;
    apo__warnings w;
    memset(&w, 0, sizeof w);
    apo__balance_init(b, ptrs, 2, &s, &w);
}

/* Eight calls of ELEMENTS each on both devices: device 1 takes factor[i] times device 0. */
static void feed(apo__balance *b, const double factor[8]) {
    for (int i = 0; i < 8; i++) {
        const uint64_t elements[2] = {(uint64_t)ELEMENTS, (uint64_t)ELEMENTS};
        const double busy[2] = {ELEMENTS * COST, ELEMENTS * COST * factor[i]};
        const int failed[2] = {0, 0};
        apo__balance_observe(b, "spread", 2 * ELEMENTS, elements, busy, failed);
    }
}

static void shares_of(apo__balance *b, double shares[2], double *predicted) {
    const int usable[2] = {1, 1};
    apo_ratio_source source;
    apo__balance_shares(b, "spread", usable, NULL, 2 * ELEMENTS, 0, shares, NULL, &source,
                        predicted);
    cr_assert_eq(source, APO_RATIOS_ONLINE, "the models gave the shares");
}

Test(spread, equal_steady_devices_share_equally, .timeout = 60) {
    apo__balance b;
    apo_device_info info[2];
    two_devices(&b, info);
    feed(&b, (const double[8]){1, 1, 1, 1, 1, 1, 1, 1});
    double shares[2], predicted;
    shares_of(&b, shares, &predicted);
    cr_assert_float_eq(shares[0], 0.5, 1e-9, "steady: %.17g", shares[0]);
    cr_assert_float_eq(shares[1], 0.5, 1e-9, "steady: %.17g", shares[1]);
    apo__balance_destroy(&b);
}

Test(spread, a_device_whose_time_varies_gets_less_than_its_median_says, .timeout = 60) {
    apo__balance b;
    apo_device_info info[2];
    two_devices(&b, info);
    /* Median 1.0 (five of eight), upper quartile 1.3: planned 1.3 times slower. */
    feed(&b, (const double[8]){1.3, 1, 1, 1.3, 1, 1, 1.3, 1});
    double shares[2], predicted;
    shares_of(&b, shares, &predicted);
    cr_assert_float_eq(shares[1], 1.0 / 2.3, 1e-9, "varying: %.17g", shares[1]);
    cr_assert_float_eq(shares[0], 1.3 / 2.3, 1e-9, "steady: %.17g", shares[0]);
    /* The predicted makespan is the models' own (median) time of the larger share, not the
     * margin's. */
    cr_assert_float_eq(predicted, 2 * ELEMENTS * (1.3 / 2.3) * COST, 1e-12, "predicted %.17g",
                       predicted);
    apo__balance_destroy(&b);
}
