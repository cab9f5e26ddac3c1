/*
 * score_fixtures.c: the bars, outputs, scalar folds, tiles and sets that the checks of the scored
 * folds in vector lanes share, the assertion of a fold's state and the check of chains of ranges
 * (score_fixtures.h says what each is).
 */
#include "score_fixtures.h"

#include <criterion/criterion.h>

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bollinger_pass.h"
#include "cpu_isa.h"
#include "reference.h"
#include "score_fold_equal.h"

bars *make_bars(const bars_shape *shape) {
    const size_t n = shape->n;
    /* The doubles first, the flags last, so every array is aligned as its type wants. */
    bars *b = malloc(sizeof *b + 8 * n * sizeof(double) + n);
    cr_assert_not_null(b);
    double *d = (double *)(b + 1);
    b->n = n;
    b->close = d, b->move = d + n, b->sd = d + 2 * n, b->mean = d + 3 * n;
    b->upper = d + 4 * n, b->lower = d + 5 * n, b->osc = d + 6 * n, b->events = d + 7 * n;
    b->finite = (unsigned char *)(d + 8 * n);
    apo__test_random_walk(shape->seed, n, 100.0, 0.5, b->close);
    shape->close_gaps(shape, b->close);
    for (size_t t = 0; t < n; t++) {
        b->finite[t] =
            (unsigned char)apo__score_move(t > 0 ? b->close[t - 1] : NAN, b->close[t], &b->move[t]);
        b->mean[t] = t >= 5 ? (b->close[t - 3] + b->close[t - 4] + b->close[t - 5]) / 3.0 : NAN;
        b->sd[t] = t < shape->sd.from ? NAN
                   : t < shape->sd.calm
                       ? 1e306
                       : shape->sd.level + shape->sd.swing * sin((double)t / shape->sd.period);
        if (shape->flat(t))
            b->sd[t] = APO_BOLLINGER_PASS_FLAT;
        const double width =
            shape->width.swing * sin((double)t / shape->width.period) + shape->width.level;
        b->upper[t] = b->mean[t] + width;
        b->lower[t] = b->mean[t] - width;
        b->osc[t] = b->close[t] - b->mean[t];
        b->events[t] = shape->event(shape, t);
    }
    for (size_t t = shape->gap.from; t < shape->gap.to; t++)
        b->sd[t] = b->mean[t] = b->upper[t] = b->lower[t] = b->osc[t] = b->events[t] = NAN;
    return b;
}

void outputs_of(const bars *b, int kind, int widths, const double **o) {
    if (widths) {
        o[0] = b->sd, o[1] = b->mean, o[2] = b->mean;
        return;
    }
    o[0] = kind == APO_RULE_SIGNAL                            ? b->events
           : kind == APO_RULE_ZONE || kind == APO_RULE_REVERT ? b->osc
                                                              : b->upper;
    o[1] = b->mean;
    o[2] = kind == APO_RULE_MACD_CROSS ? b->osc : b->lower;
}

void scalar_fold_more(const bars *b, int kind, int widths, const double *const *o,
                      const apo__score_set *set, size_t t0, size_t t1, apo__score_fold *f,
                      apo__score_more *more) {
    apo__rule rule = apo__rule_make(kind, 0, 1, set->lower, set->upper);
    rule.side = set->side;
    for (size_t t = t0; t < t1; t++) {
        double v[3] = {o[0][t], o[1][t], o[2][t]};
        if (widths)
            apo__bollinger_pass_bands_compared(o[1][t], o[0][t], set->nbdev_up, set->nbdev_dn, v);
        if (more == NULL) {
            apo__score_bar_move(f, &rule, set->cost, b->close[t], b->finite[t], b->move[t], v, 3);
            continue;
        }
        const int pos =
            isfinite(b->close[t]) ? apo__rule_position(&rule, f->pos, b->close[t], v) : f->pos;
        apo__score_bar_more(f, more, pos, set->cost, b->finite[t], b->move[t], v, 3);
    }
}

void scalar_fold(const bars *b, int kind, int widths, const double *const *o,
                 const apo__score_set *set, size_t t0, size_t t1, apo__score_fold *f) {
    scalar_fold_more(b, kind, widths, o, set, t0, t1, f, NULL);
}

apo__score_sets_tile tile_of(const bars *b, const double *const *o, int kind, int widths, size_t t,
                             size_t e, const double **at) {
    for (int k = 0; k < 3; k++)
        at[k] = o[k] + t;
    return (apo__score_sets_tile){
        b->close + t, b->move + t, b->finite + t, at, e - t, 3, widths, kind, 0, 1};
}

void make_sets(apo__score_set *sets, size_t n_sets, const int *sides, size_t n_sides) {
    static const double ups[6] = {1.0, 2.0, 1e3, 0.0, 1.5, 2.5};
    for (size_t j = 0; j < n_sets; j++) {
        apo__score_set s = {ups[j % 6],
                            2.0 - 0.25 * (double)(j % 7),
                            -0.3 + 0.02 * (double)j,
                            0.3 - 0.01 * (double)j,
                            0.0,
                            0.0005 * (double)(j % 4),
                            sides[j % n_sides],
                            NULL,
                            NULL};
        s.middle = (s.lower + s.upper) / 2;
        sets[j] = s;
    }
}

void same_fold(const apo__score_fold *a, const apo__score_fold *b, int isa, int kind, int widths,
               size_t n_sets, size_t chain, size_t set, int side, size_t bar) {
    char in_chain[32] = "";
    if (chain != NO_CHAIN)
        snprintf(in_chain, sizeof in_chain, "chain %zu ", chain);
    cr_assert(score_folds_equal(a, b),
              "path %s, kind %d, widths %d, %zu sets: %sset %zu (side %d) at bar %zu folds "
              "otherwise (pos %d vs %d, bars %lld vs %lld, trades %lld vs %lld, exposed %lld vs "
              "%lld, total %.17g vs %.17g)",
              apo__cpu_isa_name((apo__cpu_isa)isa), kind, widths, n_sets, in_chain, set, side, bar,
              a->pos, b->pos, (long long)a->bars, (long long)b->bars, (long long)a->trades,
              (long long)b->trades, (long long)a->exposed, (long long)b->exposed, a->total,
              b->total);
}

/* The fields of apo__score_more that a view's fold keeps, in its order: each one's name, its
 * place, its type (0 a double, 1 an int, 2 an int64_t) and whether only the `/more` view's fold
 * keeps it (the book). */
static const struct {
    const char *name;
    size_t at;
    int type, book;
} more_fields[] = {
#define MORE_FIELD(field, type, book)                                                              \
    { #field, offsetof(apo__score_more, field), type, book }
    MORE_FIELD(equity, 0, 0), MORE_FIELD(epeak, 0, 0),   MORE_FIELD(dd_num, 0, 0),
    MORE_FIELD(dd_den, 0, 0), MORE_FIELD(down_sq, 0, 1), MORE_FIELD(units, 0, 1),
    MORE_FIELD(trade, 0, 1),  MORE_FIELD(won, 0, 1),     MORE_FIELD(lost, 0, 1),
    MORE_FIELD(held, 1, 1),   MORE_FIELD(closed, 2, 1),  MORE_FIELD(wins, 2, 1),
#undef MORE_FIELD
};

/* Field f of m as a double for a message (a count is exact there below 2^53). */
static double more_field(const apo__score_more *m, size_t f) {
    const char *p = (const char *)m + more_fields[f].at;
    double d;
    int i;
    int64_t w;
    switch (more_fields[f].type) {
    case 0:
        memcpy(&d, p, sizeof d);
        return d;
    case 1:
        memcpy(&i, p, sizeof i);
        return (double)i;
    default:
        memcpy(&w, p, sizeof w);
        return (double)w;
    }
}

void same_more(const apo__score_more *a, const apo__score_more *b, int view, int isa, int kind,
               int widths, size_t n_sets, size_t set, int side, size_t bar) {
    static const size_t size_of[3] = {sizeof(double), sizeof(int), sizeof(int64_t)};
    for (size_t f = 0; f < sizeof more_fields / sizeof more_fields[0]; f++) {
        if (more_fields[f].book && view != APO_SCORE_VIEW_MORE)
            continue;
        const size_t at = more_fields[f].at;
        cr_assert(
            memcmp((const char *)a + at, (const char *)b + at, size_of[more_fields[f].type]) == 0,
            "path %s, kind %d, widths %d, %zu sets, view %d: set %zu (side %d) at bar %zu "
            "has another %s (%.17g vs %.17g)",
            apo__cpu_isa_name((apo__cpu_isa)isa), kind, widths, n_sets, view, set, side, bar,
            more_fields[f].name, more_field(a, f), more_field(b, f));
    }
}

long long check_chains(const bars *b, int isa, int kind, int widths, const apo__score_set *sets,
                       size_t n_sets, const chains *ch) {
    cr_assert(n_sets <= MAX_SETS && ch->n <= MAX_CHAINS, "%zu sets in %zu chains", n_sets, ch->n);
    const double *o[3];
    outputs_of(b, kind, widths, o);
    /* Static: 40 chains of 17 folds are too large for a case's stack. */
    static apo__score_fold got[MAX_CHAINS][MAX_SETS], want[MAX_CHAINS][MAX_SETS];
    apo__score_fold *active[MAX_CHAINS];
    /* The reference's positions move on from piece to piece (apo__cpu_score_ride_sets leaves
     * them at the position after each), so the check carries its own copy. */
    int ref_pos[MAX_SETS];
    for (size_t j = 0; j < n_sets; j++)
        ref_pos[j] = ch->ref_pos[j];
    for (size_t c = 0; c < ch->n; c++)
        for (size_t j = 0; j < n_sets; j++) {
            apo__score_fold_init(&got[c][j]);
            apo__score_fold_init(&want[c][j]);
        }
    size_t t = 0;
    while (t < b->n) {
        size_t e = ch->piece_end(t, ch->cut), n_active = 0;
        e = e < b->n ? e : b->n;
        for (size_t c = 0; c < ch->n; c++) {
            if (ch->begins[c] > t) {
                e = ch->begins[c] < e ? ch->begins[c] : e;
                continue;
            }
            active[n_active++] = got[c];
        }
        const double *at[3];
        const apo__score_sets_tile tile = tile_of(b, o, kind, widths, t, e, at);
        apo__cpu_score_ride_sets(&tile, sets, n_sets, ref_pos, active, n_active, (apo__cpu_isa)isa);
        for (size_t c = 0; c < ch->n; c++)
            for (size_t j = 0; j < n_sets && ch->begins[c] <= t; j++) {
                scalar_fold(b, kind, widths, o, &sets[j], t, e, &want[c][j]);
                same_fold(&got[c][j], &want[c][j], isa, kind, widths, n_sets, c, j, sets[j].side,
                          e);
            }
        t = e;
    }
    long long scored = 0;
    for (size_t c = 0; c < ch->n; c++)
        for (size_t j = 0; j < n_sets; j++)
            scored += got[c][j].bars;
    return scored;
}
