/*
 * The portable trigonometry (kernels/common/trig.h) over millions of seeded points of each
 * function's domain against glibc's long-double functions (trig_sweep.c): the maxima that
 * docs/kernels.md ("Portable trigonometry") states. Some 10 s of CPU: the slow suite's.
 */
#include "trig_sweep.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "trig.h"

static const char *const trig_names[] = {"sin", "cos", "tan", "atan", "asin", "acos"};

Test(trig_slow, is_within_one_ulp_over_millions_of_points, .timeout = 600) {
    for (int f = TRIG_SIN; f <= TRIG_ACOS; f++) {
        const trig_worst w = trig_sweep((trig_fn)f, 1000000, 7);
        fprintf(stderr, "%s: at most %.3f ulp (at %a) over %zu points\n", trig_names[f], w.ulps,
                w.x, w.points);
        cr_assert(w.ulps <= 1.0, "%s: %.3f ulp at %a", trig_names[f], w.ulps, w.x);
    }
}

Test(trig_slow, is_within_one_ulp_at_every_multiple_of_pi_over_2, .timeout = 600) {
    /* The double nearest each k pi/2 up to 2^20 and its two neighbours: where the reduction
     * cancels the most (2^-60.5 from k pi/2 at the closest). */
    const long double pio2 = acosl(0.0L);
    for (int f = TRIG_SIN; f <= TRIG_TAN; f++) {
        double worst = 0.0, where = 0.0;
        for (long k = 1; (double)k * (double)pio2 <= APO_TRIG_MAX_ARG; k++) {
            const double x = (double)((long double)k * pio2);
            const double xs[3] = {x, nextafter(x, 0.0), nextafter(x, INFINITY)};
            for (int j = 0; j < 3; j++) {
                const double u = trig_ulps((trig_fn)f, xs[j]);
                if (!(u <= worst))
                    worst = u, where = xs[j];
            }
        }
        fprintf(stderr, "%s: at most %.3f ulp (at %a) near the multiples of pi/2\n", trig_names[f],
                worst, where);
        cr_assert(worst <= 1.0, "%s: %.3f ulp at %a", trig_names[f], worst, where);
    }
}
