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

/* The returns of the scored bars, each with the position held into it and the one taken at
 * it: the bars apo__ref_scores_of_positions sums. Returns their count. */
static size_t scored_bars(const double *close, const int *pos, size_t n, size_t first_finite,
                          double cost, long double *ret, int *held, int *taken) {
    size_t bars = 0;
    for (size_t t = first_finite + 1; t < n; t++) {
        if (!isfinite(close[t]) || !isfinite(close[t - 1]))
            continue;
        ret[bars] = (long double)pos[t - 1] * ((long double)close[t] / close[t - 1] - 1) -
                    (long double)cost * abs(pos[t] - pos[t - 1]);
        held[bars] = pos[t - 1];
        taken[bars] = pos[t];
        bars++;
    }
    return bars;
}

/* The trades of docs/kernels.md's definition, their returns into trade[]: a bar's return
 * goes to the trade held into it, or to the one it opens from flat; a trade ends at the bar
 * its position changes, or before a scored bar whose held position is not the one the last
 * scored bar took (it changed in a gap). Returns the count, the open trade included. */
static size_t trades_of(const long double *ret, const int *held, const int *taken, size_t bars,
                        long double *trade) {
    size_t n = 0;
    int open = 0; /* a trade is open */
    int side = 0; /* the position the last scored bar took */
    for (size_t i = 0; i < bars; i++) {
        if (open && held[i] != side)
            open = 0; /* ended in a gap */
        if (!open && (held[i] != 0 || taken[i] != 0)) {
            trade[n++] = 0;
            open = 1;
        }
        if (open)
            trade[n - 1] += ret[i];
        if (open && held[i] != 0 && taken[i] != held[i])
            open = 0;
        /* A flip, or an entry from flat after the trade above ended, opens the next at the
         * bar after, with nothing yet. */
        if (!open && taken[i] != 0 && taken[i] != held[i] && held[i] != 0) {
            trade[n++] = 0;
            open = 1;
        }
        side = taken[i];
    }
    return n;
}

void apo__ref_view_of_positions(const double *close, const int *pos, size_t n, size_t first_finite,
                                double cost, double periods_per_year, int view, long double *s) {
    apo__ref_scores_of_positions(close, pos, n, first_finite, cost, periods_per_year, s);
    const size_t cap = n > 0 ? n : 1;
    long double *ret = malloc(cap * sizeof *ret), *trade = malloc(cap * sizeof *trade);
    int *held = malloc(cap * sizeof *held), *taken = malloc(cap * sizeof *taken);
    if (ret == NULL || trade == NULL || held == NULL || taken == NULL)
        abort();
    const size_t bars = scored_bars(close, pos, n, first_finite, cost, ret, held, taken);
    long double equity = 1, peak = 1, dd = 0, log_dd = 0, down = 0, units = 0, sum = 0;
    for (size_t i = 0; i < bars; i++) {
        sum += ret[i];
        equity *= 1 + ret[i];
        peak = equity > peak ? equity : peak;
        dd = (peak - equity) / peak > dd ? (peak - equity) / peak : dd;
        const long double fall = equity > 0 ? logl(peak) - logl(equity) : INFINITY;
        log_dd = fall > log_dd ? fall : log_dd;
        down += ret[i] < 0 ? ret[i] * ret[i] : 0;
        units += abs(taken[i] - held[i]);
    }
    if (view == 1 || view == 2) {
        s[APO_SCORE_TOTAL] = !bars        ? NAN
                             : view == 1  ? equity - 1
                             : equity > 0 ? logl(equity)
                                          : -INFINITY;
        s[APO_SCORE_MAX_DRAWDOWN] = !bars ? NAN : view == 1 ? dd : log_dd;
    } else if (view == 3) {
        const size_t trips = trades_of(ret, held, taken, bars, trade);
        long double won = 0, lost = 0, all = 0;
        size_t wins = 0;
        for (size_t k = 0; k < trips; k++) {
            wins += trade[k] > 0;
            won += trade[k] > 0 ? trade[k] : 0;
            lost += trade[k] < 0 ? -trade[k] : 0;
            all += trade[k];
        }
        const long double mean = bars ? sum / bars : NAN;
        const long double cagr = !bars ? NAN
                                 : equity > 0
                                     ? powl(equity, (long double)periods_per_year / bars) - 1
                                     : -1;
        s[0] = bars && down > 0 ? mean / sqrtl(down / bars) * sqrtl(periods_per_year) : NAN;
        s[1] = bars && dd > 0 ? cagr / dd : NAN;
        s[2] = cagr;
        s[3] = trips ? (long double)wins / trips : NAN;
        s[4] = lost > 0 ? won / lost : NAN;
        s[5] = trips ? all / trips : NAN;
        s[6] = bars ? units / bars * periods_per_year : NAN;
        s[7] = trips;
    }
    free(ret), free(trade), free(held), free(taken);
}
