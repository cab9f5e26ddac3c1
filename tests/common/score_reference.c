/*
 * score_reference.c: see score_reference.h. Two passes over the returns kept in an array:
 * the mean first, then the squared deviations and the running sum's drawdown.
 */
#include "score_reference.h"

#include <math.h>
#include <stdlib.h>

#include "apportion.h"

void apo__ref_scores_of_positions(const double *close, const int *pos, size_t n,
                                  size_t first_finite, double cost, double periods_per_year,
                                  long double *s) {
    long double *ret = malloc((n > 0 ? n : 1) * sizeof *ret);
    if (ret == NULL)
        abort();
    size_t bars = 0, trades = 0, exposed = 0;
    long double sum = 0;
    for (size_t t = first_finite + 1; t < n; t++) {
        if (!isfinite(close[t]) || !isfinite(close[t - 1]))
            continue;
        ret[bars] = (long double)pos[t - 1] * ((long double)close[t] / close[t - 1] - 1) -
                    (long double)cost * abs(pos[t] - pos[t - 1]);
        sum += ret[bars++];
        trades += pos[t] != pos[t - 1];
        exposed += pos[t] != 0;
    }
    const long double mean = bars ? sum / bars : NAN;
    long double ss = 0, run = 0, peak = 0, dd = 0;
    for (size_t i = 0; i < bars; i++) {
        ss += (ret[i] - mean) * (ret[i] - mean);
        run += ret[i];
        peak = run > peak ? run : peak;
        dd = peak - run > dd ? peak - run : dd;
    }
    const long double sd = bars ? sqrtl(ss / bars) : NAN;
    s[APO_SCORE_TOTAL] = bars ? sum : NAN;
    s[APO_SCORE_MEAN] = mean;
    s[APO_SCORE_SD] = sd;
    s[APO_SCORE_SHARPE] = bars && sd > 0 ? mean / sd * sqrtl(periods_per_year) : NAN;
    s[APO_SCORE_MAX_DRAWDOWN] = bars ? dd : NAN;
    s[APO_SCORE_TRADES] = trades;
    s[APO_SCORE_EXPOSURE] = bars ? (long double)exposed / bars : NAN;
    s[APO_SCORE_BARS] = bars;
    free(ret);
}
