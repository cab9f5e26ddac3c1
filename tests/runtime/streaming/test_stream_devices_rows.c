/*
 * A stream's large update on the devices (docs/streaming.md, "Large updates") starts its row
 * at a tile boundary R deep in the history, not at the series' position 0: a kernel's tile
 * must give the same bits there as in the batch's row. A body that placed anything by the
 * row's own index (kama's noise carry was folded at every 64th index of the row, and its
 * tiles are 16 (halo + 1) long, so R is not a multiple of 64) gave the odd bar 1 ulp from the
 * batch, which test_stream_devices_slow found once in a whole catalog's run. Here kama runs on
 * data that shows its deviation's every rounding: noise around 0, so kama (x + deviation) is
 * about as small as the deviation itself, with a gap every 50 bars, fed so that the second
 * and third updates start their rows at R = L and 2 L (L the tile length).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "stream_fixtures.h"

/* Noise around 0 in [-1, 1), NaN at every 50th bar from 17 on. */
static void noise_with_gaps(double *x, size_t n, uint64_t seed) {
    for (size_t t = 0; t < n; t++)
        x[t] = t % 50 == 17 ? NAN : (double)(stream_rng(&seed) >> 11) * 0x1p-52 - 1.0;
}

Test(stream_devices_rows, kama_rows_from_a_tile_boundary_deep_in_the_history_equal_batch,
     .timeout = 300) {
    apo_runtime *cpu = test_runtime("cpu");
    apo_runtime *rt = test_runtime("cpu,sim:a:rate=2e8,sim:b:rate=5e8");
    apo_stream_desc d = APO_STREAM_DESC_INIT;
    d.kernel = "kama";
    d.n_series = 1;
    d.device_bars = 1;
    apo_stream *s = NULL;
    cr_assert_eq(apo_stream_create(rt, &d, &s), APO_OK, "%s", apo_last_error());
    const size_t tile = stream_tile_of(s);
    /* The updates: into the third tile from position 0 (a row from 0), then past the fourth
     * tile's start (the row from R = L: the kept window starts a halo before the third
     * tile), then the rest (from R = 2 L). Each brings a whole tile or more: the devices'. */
    const size_t counts[] = {2 * tile + 5, tile + 3, tile + 129};
    const size_t n = counts[0] + counts[1] + counts[2];
    /* The batch call over the whole series, on the cpu alone; its input is the job's
     * walk replaced by the noise. */
    test_job batch;
    test_job_init(&batch, cpu, "kama", 1, n, 1);
    noise_with_gaps(batch.input, n, 50);
    cr_assert_eq(test_job_run(&batch, cpu, NULL), APO_OK, "%s", apo_last_error());
    const double *x = batch.input, *want = batch.outputs[0];
    double *got = malloc(n * sizeof *got);
    cr_assert_not_null(got);

    size_t at = 0;
    for (size_t u = 0; u < sizeof counts / sizeof counts[0]; u++) {
        const double *in[1] = {x + at};
        double *out[1] = {got + at};
        cr_assert_eq(apo_stream_update(s, &counts[u], in, out), APO_OK, "%s", apo_last_error());
        at += counts[u];
    }
    size_t differ = 0, first = n;
    for (size_t t = 0; t < n; t++)
        if (memcmp(&want[t], &got[t], sizeof want[t]) != 0) {
            first = differ == 0 ? t : first;
            differ++;
        }
    cr_assert_eq(differ, 0,
                 "%zu bars differ from the batch, the first at %zu (tile %zu): %.17g, batch %.17g",
                 differ, first, first / tile, first < n ? got[first] : 0.0,
                 first < n ? want[first] : 0.0);
    free(got);
    test_job_free(&batch);
    apo_stream_destroy(s);
    apo_runtime_destroy(rt);
    apo_runtime_destroy(cpu);
}
