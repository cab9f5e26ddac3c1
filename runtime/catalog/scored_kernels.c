/*
 * The scored kernels; see scored_kernels.h. Each is built once from its indicator's
 * descriptor (the same inputs and parameters, then the rule's `cost` and
 * `periods_per_year`), with the scores as outputs of one column and a tile that is a whole
 * series: a series is scored by one device in one pass, so scores are the same bits on any
 * devices, ratios and split (a split along time cuts nothing: the tiled axis is one long).
 * Here: the hooks every scored kernel runs (the series' fold on the host), the views' names
 * and building a kernel from a rule's row (the lowest of the scored sources: it calls none
 * of the others). The table of built-in rules and the lookups by name are
 * scored_table.c's, the CUDA launch scored_launch.c's, a user's rule scored_user_rules.c's;
 * the rules on any output, built on first use, are scored_generic.c's (scored_build.h).
 */
#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/error.h"
#include "catalog/call_span.h"
#include "catalog/catalog_kernels.h"
#include "catalog/grid.h"
#include "catalog/score_pass.h"
#include "catalog/scored_build.h"
#include "catalog/scored_kernels.h"
#include "catalog_dispatch.h"
#include "score_more.h"
#include "score_tile.h"
#include "scored_cuda.h"

/* The scores' names, in output order (score_tile.h's APO_SCORE_IX_*), and the `/more` view's
 * (score_more.h's APO_SCORE_MORE_IX_*). */
static const char *const score_names[APO_SCORE_IX_COUNT] = {
    "total", "mean", "sd", "sharpe", "max_drawdown", "trades", "exposure", "bars"};
static const char *const more_names[APO_SCORE_MORE_IX_COUNT] = {
    "sortino",       "calmar",    "cagr",     "win_rate",
    "profit_factor", "avg_trade", "turnover", "round_trips"};

/* ---- the kernel's hooks ------------------------------------------------------------------ */

static size_t one_len(const apo__kernel *k, const double *params, size_t cols) {
    (void)k, (void)params, (void)cols;
    return 1;
}

static size_t one_tile(const apo__kernel *k, const double *params) {
    (void)k, (void)params;
    return 1;
}

/* A score per series, or per range of a ranged call (catalog/score_ranges.h). */
static size_t one_col(const apo__kernel *k, const double *params, size_t cols, size_t index) {
    (void)params, (void)cols, (void)index;
    return k->scoring->ranges != NULL ? k->scoring->ranges->n : 1;
}

/* A series' work is its indicator's over every bar. */
static uint64_t series_work(const apo__kernel *k, const double *params, size_t cols) {
    const apo__kernel *ind = k->scoring->indicator;
    return ind->unit_work(ind, params, cols) * (uint64_t)cols;
}

/* The scratch and the chains at once of a scored call on a GPU (scored_kernels.h): what the
 * planner's wave and the replayed GPUs take, built with or without CUDA. */
size_t apo__scored_scratch_of(const apo__call *call) {
    const apo__scoring *sc = call->kernel->scoring;
    if (sc == NULL)
        return 0;
    const apo__kernel *ind = sc->indicator;
    return apo__scored_scratch_doubles(sc->pass.n_out, apo__kernel_halo(ind, call->params),
                                       ind->tile_len(ind, call->params),
                                       apo__kernel_whole_row_input(ind, call->params), call->cols);
}

size_t apo__scored_gpu_chains(size_t scratch, int sms) {
    return apo__scored_chains_at_once(scratch, sms);
}

/* ---- the series' fold --------------------------------------------------------------------- */

/* Tiles of a row whose pass is computed at once, at most (apo__score_pass_group: the lanes
 * of the widest path). */
#define APO_SCORED_GROUP_MAX 8

/* The close's change at a bar, as apo__score_move gives it. */
typedef struct user_bar {
    int finite;
    double move;
} user_bar;

/* A user rule's return outside {-1, 0, 1}: the first one of the call is kept for the caller
 * (apo__rule_failure), naming the rule, the series and the bar. */
static apo_status user_rule_failed(const apo__call *call, size_t row, size_t t, int got) {
    const apo__scoring *sc = call->kernel->scoring;
    apo__rule_failure *fail = sc->failure;
    pthread_mutex_lock(&fail->mutex);
    if (!fail->failed) {
        fail->failed = 1;
        snprintf(fail->message, sizeof fail->message,
                 "%s: rule %s returned %d at series %zu, bar %zu (a rule returns -1, 0 or 1)",
                 call->kernel->name, sc->rule_name, got, row, t);
    }
    pthread_mutex_unlock(&fail->mutex);
    return APO_ERR_KERNEL_FAILED;
}

/* Folds bar t of every set under a user's rule: the rule is asked at a finite close, with the
 * kernel's inputs and the set's outputs at the bar and its previous position; the position
 * carries over a close that is not finite. The fold is the built-in rules' own
 * (apo__score_bar_pos), so only the positions can differ. */
static apo_status user_rule_bar(const apo__call *call, size_t row, size_t t, const double *const *x,
                                size_t n_in, const user_bar *bar, const apo__call *sets,
                                size_t n_sets, const double *const *pass_in, size_t at,
                                apo__score_fold *f, const double *cost) {
    const apo__scoring *sc = call->kernel->scoring;
    const size_t n_out = sc->indicator->n_outputs;
    const int ask = isfinite(x[sc->close_input][t]);
    double in[APO_MAX_IO], out[APO_MAX_IO];
    for (size_t i = 0; i < n_in; i++)
        in[i] = x[i][t];
    for (size_t j = 0; j < n_sets; j++) {
        apo__score_pass_outputs(&sc->pass, sets[j].params, pass_in, at, n_out, 0, out);
        int pos = f[j].pos;
        if (ask) {
            pos = sc->user_fn(in, out, f[j].pos, sc->user);
            if (pos < -1 || pos > 1)
                return user_rule_failed(call, row, t, pos);
        }
        apo__score_bar_pos(&f[j], pos, cost[j], bar->finite, bar->move, out, n_out);
    }
    return APO_OK;
}

/* A pass of a row's sets: the indicator's call on a window of the row that starts at the
 * first tile's halo (or at the row's start for a kernel that reads whole rows), and its
 * outputs there: `out` as the call writes them, `in` the same arrays as the fold reads them. */
typedef struct row_pass {
    apo__call view;
    const double *view_in[APO_MAX_IO];
    double *out[APO_MAX_IO];
    const double *in[APO_MAX_IO];
    size_t halo;
    size_t origin; /* the window's first bar */
} row_pass;

/* What folding a row's bars needs, the same for every tile: the sets, their rules and costs,
 * and where the current tile's pass and changes of the close are. */
typedef struct row_fold {
    const apo__call *call;
    const apo__scoring *sc;
    size_t row;
    const apo__call *sets;
    size_t n_sets;
    const double *const *x; /* the row's inputs */
    size_t n_in;
    const double *close;
    /* The sets' passes, in their current windows: set j's is passes[pass_of[j]]; with more
     * than one, each round's lanes read their sets' own (APO_SCORE_WIDTHS_OWN), else every set
     * reads passes[0]. */
    const row_pass *passes;
    size_t n_passes;
    const size_t *pass_of;
    size_t t0; /* the tile's first bar: move and finite start there */
    const double *move;
    const unsigned char *finite;
    const apo__rule *rules;
    const double *cost;
    apo__score_set *lane_sets; /* each points at its more statistics (fold_bars) */
    int compound;              /* a view: the lanes fold its more statistics (score_sets.h) */
    apo__cpu_isa isa;
} row_fold;

/* Bars [b0, b1) of the current tile as the lanes take them (score_sets.h); lane_out holds the
 * pass's outputs from b0 on. */
static apo__score_sets_tile lane_tile_of(const row_fold *rf, size_t b0, size_t b1,
                                         const double **lane_out) {
    const apo__scoring *sc = rf->sc;
    for (size_t k = 0; k < sc->pass.n_out; k++)
        lane_out[k] = rf->passes[0].in[k] + (b0 - rf->passes[0].origin);
    return (apo__score_sets_tile){rf->close + b0,
                                  rf->move + (b0 - rf->t0),
                                  rf->finite + (b0 - rf->t0),
                                  lane_out,
                                  b1 - b0,
                                  sc->indicator->n_outputs,
                                  sc->pass.kind == APO_SCORE_PASS_BOLLINGER_WIDTHS,
                                  rf->rules[0].kind,
                                  rf->rules[0].a,
                                  rf->rules[0].b};
}

/* Folds bars [b0, b1) of the current tile into the sets' folds f (and more): a user's rule by
 * the scalar body bar after bar, else every set, of any side, in the lanes of a vector (with a
 * view's more statistics in more: the `/compound` and `/log` views' compounded equity, every
 * statistic of the `/more` view's), each lane a set's fold with the bits of apo__score_bar_move
 * and apo__score_bar_more (score_sets.h), the close's
 * changes taken once per tile for all (a lone set takes its bars in the lanes instead,
 * kernels/scores/score_lone_lanes.h). Every fold keeps its whole state in f and more, so a
 * tile folded in pieces (at a range's end) gives the bits of the tile folded whole. */
static apo_status fold_bars(const row_fold *rf, size_t b0, size_t b1, apo__score_fold *f,
                            apo__score_more *more) {
    const apo__scoring *sc = rf->sc;
    if (sc->user_fn != NULL) {
        apo_status st = APO_OK;
        for (size_t t = b0; t < b1 && st == APO_OK; t++)
            st = user_rule_bar(rf->call, rf->row, t, rf->x, rf->n_in,
                               &(user_bar){rf->finite[t - rf->t0], rf->move[t - rf->t0]}, rf->sets,
                               rf->n_sets, rf->passes[0].in, t - rf->passes[0].origin, f, rf->cost);
        return st;
    }
    const double *lane_out[APO_MAX_IO];
    apo__score_sets_tile lane_tile = lane_tile_of(rf, b0, b1, lane_out);
    /* Sets of several passes: each lane reads its set's, from b0 on. */
    const double *own[APO_GRID_SHARE_MAX][APO_MAX_IO];
    if (rf->n_passes > 1) {
        lane_tile.widths = APO_SCORE_WIDTHS_OWN;
        for (size_t p = 0; p < rf->n_passes; p++)
            for (size_t k = 0; k < sc->pass.n_out; k++)
                own[p][k] = rf->passes[p].in[k] + (b0 - rf->passes[p].origin);
        for (size_t j = 0; j < rf->n_sets; j++)
            rf->lane_sets[j].pass = own[rf->pass_of[j]];
    }
    /* A view's sets fold into this chain's more statistics. */
    for (size_t j = 0; j < rf->n_sets && rf->compound; j++)
        rf->lane_sets[j].compound = &more[j];
    apo__cpu_score_fold_sets(&lane_tile, rf->lane_sets, rf->n_sets, f, rf->isa);
    return APO_OK;
}

/* Writes the scores of the sets' folds f (and more) as column `col` of their outputs. */
static void finish_sets(const row_fold *rf, const apo__score_fold *f, const apo__score_more *more,
                        size_t col, size_t n_cols) {
    const apo__scoring *sc = rf->sc;
    const size_t fold_params = sc->indicator->n_params + sc->n_rule_params;
    for (size_t j = 0; j < rf->n_sets; j++) {
        double scores[APO_SCORE_IX_COUNT];
        const double periods = rf->sets[j].params[fold_params + 1];
        if (sc->view == APO_SCORE_VIEW_SUM)
            apo__score_finish(&f[j], sqrt(periods), scores);
        else
            apo__score_more_finish(&f[j], &more[j], sc->view, periods, scores);
        for (size_t k = 0; k < APO_SCORE_IX_COUNT; k++)
            rf->sets[j].outputs[k][rf->row * n_cols + col] = scores[k];
    }
}

/* The ranges a row folds: the call's (clipped to the row, which a ragged row may end
 * before), else the whole row as one range of one chain. */
typedef struct row_ranges {
    const apo_range *range;
    size_t n, n_chains;
    const size_t *first;
    size_t n_rows; /* the row's length: every range is cut there */
} row_ranges;

/* Folds tile [rf->t0, t1) into every chain of ranges that it reaches: a chain's fold takes
 * the bars from its first on, and each of its ranges is finished as the fold passes its end
 * (next[c], the chain's next range to finish). The fold of a chain is fresh at its first bar,
 * so each range's scores are those of the range scored alone (docs/scores.md, "Ranges"). */
static apo_status fold_tile_ranges(const row_fold *rf, size_t t1, const row_ranges *rr,
                                   size_t *next, apo__score_fold *f, apo__score_more *more) {
    for (size_t c = 0; c < rr->n_chains; c++) {
        apo__score_fold *cf = f + c * rf->n_sets;
        apo__score_more *cm = more + c * rf->n_sets;
        const size_t a = rr->range[rr->first[c]].begin;
        size_t pos = a > rf->t0 ? a : rf->t0;
        while (next[c] < rr->first[c + 1]) {
            const size_t e0 = rr->range[next[c]].end;
            const size_t e = e0 < rr->n_rows ? e0 : rr->n_rows;
            const size_t stop = e < t1 ? e : t1;
            if (stop > pos) {
                APO_CHECK(fold_bars(rf, pos, stop, cf, cm));
                pos = stop;
            }
            if (e > t1)
                break;
            finish_sets(rf, cf, cm, next[c]++, rr->n);
        }
    }
    return APO_OK;
}

/* The shared fold of a ranged call's chains (apo__cpu_score_ride_sets): each set's reference
 * position, and the folds of the chains that cover the bars being folded. */
typedef struct row_ride {
    int *ref_pos;             /* n_sets */
    apo__score_fold **active; /* n_chains */
} row_ride;

/* A range's last bar + 1 as its chain's fold passes it: its end cut at the row's, and never
 * before its chain's first bar (a range that begins past a ragged row's end scores no bar). */
static size_t range_stop(const row_ranges *rr, size_t c, size_t i) {
    const size_t a = rr->range[rr->first[c]].begin, e = rr->range[i].end;
    const size_t cut = e < rr->n_rows ? e : rr->n_rows;
    return cut > a ? cut : a;
}

/* fold_tile_ranges for the lanes' rules with more than one chain: the tile in pieces between
 * the bars where a chain begins or a range ends, each piece folded once for every chain that
 * covers it, each set's positions and returns taken once (apo__cpu_score_ride_sets), then the
 * ranges that end there finished. The bits of fold_tile_ranges: each chain's fold is fresh at
 * its first bar and takes its bars in order, and a piece folded with the reference's returns
 * holds the values its own fold would (kernels/scores/score_ride_lanes.h). */
static void fold_tile_ride(const row_fold *rf, size_t t1, const row_ranges *rr, size_t *next,
                           apo__score_fold *f, apo__score_more *more, const row_ride *ride) {
    size_t b = rf->t0;
    while (b < t1) {
        size_t e = t1, n_active = 0;
        for (size_t c = 0; c < rr->n_chains; c++) {
            const size_t a = rr->range[rr->first[c]].begin;
            if (a > b) {
                e = a < e ? a : e;
                continue;
            }
            if (next[c] == rr->first[c + 1])
                continue;
            const size_t stop = range_stop(rr, c, next[c]);
            if (stop <= b)
                continue; /* a range past a ragged row's end: finished at the row's end */
            e = stop < e ? stop : e;
            ride->active[n_active++] = f + c * rf->n_sets;
        }
        if (n_active > 0) {
            const double *lane_out[APO_MAX_IO];
            const apo__score_sets_tile lane_tile = lane_tile_of(rf, b, e, lane_out);
            apo__cpu_score_ride_sets(&lane_tile, rf->lane_sets, rf->n_sets, ride->ref_pos,
                                     ride->active, n_active, rf->isa);
        }
        for (size_t c = 0; c < rr->n_chains; c++)
            while (next[c] < rr->first[c + 1] && rr->range[rr->first[c]].begin <= e &&
                   range_stop(rr, c, next[c]) == e)
                finish_sets(rf, f + c * rf->n_sets, more + c * rf->n_sets, next[c]++, rr->n);
        b = e;
    }
    /* The row's last tile: what is left (ranges that begin past a ragged row's end) scores no
     * bar. */
    if (t1 >= rr->n_rows)
        for (size_t c = 0; c < rr->n_chains; c++)
            while (next[c] < rr->first[c + 1])
                finish_sets(rf, f + c * rf->n_sets, more + c * rf->n_sets, next[c]++, rr->n);
}

/* The pass `rp` of a row's tiles [g0, g1) (tiles `tile` long, computed at once), into its
 * window from the first tile's halo (the row's start for a kernel that reads whole rows). */
static apo_status pass_of_group(const apo__score_pass *pass, row_pass *rp, const double *const *x,
                                size_t n_in, size_t g0, size_t g1, size_t tile, int whole,
                                apo__cpu_isa isa) {
    rp->origin = whole ? 0 : (g0 > rp->halo ? g0 - rp->halo : 0);
    for (size_t i = 0; i < n_in; i++)
        rp->view_in[i] = x[i] + rp->origin;
    rp->view.cols = g1 - rp->origin;
    apo__call_grid(&rp->view);
    apo__tile_span spans[APO_SCORED_GROUP_MAX];
    size_t n_spans = 0;
    for (size_t t0 = g0; t0 < g1; t0 += tile)
        spans[n_spans++] =
            (apo__tile_span){0, t0 - rp->origin, (t0 + tile < g1 ? t0 + tile : g1) - rp->origin};
    return apo__score_pass_tiles(pass, &rp->view, spans, n_spans, rp->out, isa);
}

/* Whether sets of several passes fold in one round's lanes (APO_SCORE_WIDTHS_OWN, each lane
 * reading its set's pass): the built-in rules of bollinger's band widths (the kinds the lanes
 * compile so, APO_SCORE_LANES_OWN_KIND) over whole rows (no user's rule, no ranges: those
 * fold each pass on its own), and passes whose tiles are as long (a group of tiles is then
 * the same bars in every pass). */
static int folds_own_passes(const apo__kernel *k, const double *a, const double *b) {
    const apo__scoring *sc = k->scoring;
    const apo__kernel *ind = sc->indicator;
    return sc->pass.kind == APO_SCORE_PASS_BOLLINGER_WIDTHS && sc->user_fn == NULL &&
           (sc->rule.kind == APO_RULE_BANDS_REVERT || sc->rule.kind == APO_RULE_BANDS_ZONE) &&
           sc->ranges == NULL && !apo__kernel_whole_row_input(ind, a) &&
           !apo__kernel_whole_row_input(ind, b) && ind->tile_len(ind, a) == ind->tile_len(ind, b);
}

static apo_status scored_row_sets(const apo__call *call, const apo__call *sets, size_t n_sets,
                                  const size_t *pass_of, size_t n_passes, size_t row,
                                  apo__cpu_isa isa);

/* The passes of sets[0 .. n_sets): runs of consecutive sets that share one. Set j is of pass
 * pass_of[j] (NULL: not wanted), pass p's first set first_of[p] (NULL: not wanted; else it has
 * n_passes + 1 entries, the last n_sets); *own: whether the passes fold in the same rounds
 * (folds_own_passes). Returns the count of passes. */
static size_t scored_passes(const apo__kernel *k, const apo__call *sets, size_t n_sets,
                            size_t *pass_of, size_t *first_of, int *own) {
    size_t n_passes = 0;
    *own = 1;
    for (size_t j = 0; j < n_sets; j++) {
        if (j == 0 || !apo__score_pass_shared(&k->scoring->pass, k->n_params, sets[j - 1].params,
                                              sets[j].params)) {
            if (first_of != NULL)
                first_of[n_passes] = j;
            n_passes++;
            *own = *own && folds_own_passes(k, sets[0].params, sets[j].params);
        }
        if (pass_of != NULL)
            pass_of[j] = n_passes - 1;
    }
    if (first_of != NULL)
        first_of[n_passes] = n_sets;
    return n_passes;
}

int apo__scored_path_on(size_t n_passes, int own, int widest, int avx512_kind) {
    if (widest == APO_CPU_ISA_AVX512 && avx512_kind == APO_AVX512_AMD_HALVED && n_passes > 1 &&
        own && apo__cpu_isa_supported(APO_CPU_ISA_AVX2))
        return APO_CPU_ISA_AVX2;
    return widest;
}

/* The path a scored call runs fastest on where the runtime picks it (apo__kernel.path):
 * apo__scored_path_on for its sets on this CPU. */
static int scored_path(const apo__call *call, int widest) {
    size_t n_sets;
    const apo__call *sets = apo__grid_shared_pieces(call, &n_sets);
    if (n_sets > APO_GRID_SHARE_MAX)
        return widest; /* refused where it runs (scored_row) */
    int own;
    const size_t n_passes = scored_passes(call->kernel, sets, n_sets, NULL, NULL, &own);
    return apo__scored_path_on(n_passes, own, widest, (int)apo__cpu_avx512_kind());
}

/*
 * Scores row `row` of the call, for the call's set alone or for every set of a shared call
 * (apo__call.shared). The sets' passes are runs of consecutive sets that share one; sets of
 * several passes come together where the grid groups them (folds_own_passes, the kernel's
 * shares_host_call: bollinger's periods). Those fold in the same rounds of lanes when
 * folds_own_passes says so:
 * each pass's full rounds first, so that their lanes read one pass, and the sets left over
 * from them in rounds of several passes after (apo__score_fold_own, kernels/scores/
 * score_lanes.h); else they run one pass after another. Which round a set folds in leaves
 * its bits as they are (docs/scores.md, "Sets of several periods").
 */
static apo_status scored_row(const apo__call *call, size_t row, apo__cpu_isa isa) {
    size_t n_sets;
    const apo__call *sets = apo__grid_shared_pieces(call, &n_sets);
    if (n_sets > APO_GRID_SHARE_MAX)
        return apo__fail(APO_ERR_INVALID_ARGUMENT, "%s: %zu sets share a pass, at most %d",
                         call->kernel->name, n_sets, APO_GRID_SHARE_MAX);
    size_t pass_of[APO_GRID_SHARE_MAX], first_of[APO_GRID_SHARE_MAX + 1];
    int own;
    const size_t n_passes = scored_passes(call->kernel, sets, n_sets, pass_of, first_of, &own);
    if (n_passes == 1)
        return scored_row_sets(call, sets, n_sets, pass_of, 1, row, isa);
    apo_status st = APO_OK;
    if (!own) {
        const size_t in_pass[APO_GRID_SHARE_MAX] = {0};
        for (size_t p = 0; p < n_passes && st == APO_OK; p++)
            st = scored_row_sets(call, sets + first_of[p], first_of[p + 1] - first_of[p], in_pass,
                                 1, row, isa);
        return st;
    }
    apo__call *order = malloc(n_sets * sizeof *order);
    if (order == NULL)
        return APO_ERR_OUT_OF_MEMORY;
    size_t order_pass[APO_GRID_SHARE_MAX], m = 0;
    const size_t lanes = apo__cpu_isa_lanes(apo__cpu_isa_resolve(isa));
    for (int left = 0; left < 2; left++)
        for (size_t p = 0; p < n_passes; p++) {
            const size_t full = first_of[p] + (first_of[p + 1] - first_of[p]) / lanes * lanes;
            for (size_t j = left ? full : first_of[p]; j < (left ? first_of[p + 1] : full); j++) {
                order[m] = sets[j];
                order_pass[m++] = p;
            }
        }
    st = scored_row_sets(call, order, n_sets, order_pass, n_passes, row, isa);
    free(order);
    return st;
}

/*
 * Scores row `row` for sets[0 .. n_sets) of the call, set j of pass pass_of[j] (n_passes of
 * them, each computed with its first set's parameters): each pass of the indicator's tiles [T, T +
 * L) of its own grid, a group of tiles at a time, computed into a scratch window that starts at the
 * first tile's halo (or at the row's start for a kernel that reads whole rows), then each
 * set's outputs from its pass folded into that set's scores (catalog/score_pass.h), once per
 * chain of ranges (the whole row without ranges). A tile body reads its samples from
 * begin - halo on and restarts its state there, so shifting the window's origin shifts every
 * index it uses alike and leaves every bit as in the full row; the sets of a pass differ only
 * in what it leaves out, so each set's outputs are bitwise those of its own tile
 * (tests/runtime/catalog/test_scores.c compares with the materialised outputs, and shared
 * sets with sets alone, bitwise). Several passes (folds_own_passes) have tiles as long, so a
 * group's tiles are the same bars in each.
 */
static apo_status scored_row_sets(const apo__call *call, const apo__call *sets, size_t n_sets,
                                  const size_t *pass_of, size_t n_passes, size_t row,
                                  apo__cpu_isa isa) {
    const apo__scoring *sc = call->kernel->scoring;
    const apo__score_pass *pass = &sc->pass;
    const apo__kernel *ind = sc->indicator;
    const size_t n = call->cols;
    const size_t n_in = ind->n_inputs;
    const size_t tile = ind->tile_len(ind, sets[0].params);
    const int whole = apo__kernel_whole_row_input(ind, sets[0].params);
    /* Tiles whose pass is computed at once (apo__score_pass_tiles): they share a window. */
    size_t group = whole ? 1 : apo__score_pass_group(pass, isa);
    group = group < APO_SCORED_GROUP_MAX ? group : APO_SCORED_GROUP_MAX;
    const size_t span = group * tile;
    const apo_range whole_row = {0, n};
    const size_t whole_first[2] = {0, 1};
    row_ranges rr = {&whole_row, 1, 1, whole_first, n};
    if (sc->ranges != NULL)
        rr = (row_ranges){sc->ranges->range, sc->ranges->n, sc->ranges->n_chains, sc->ranges->first,
                          n};
    /* Each pass's window, then the tiles' changes of the close and whether each is finite;
     * each chain's folds, and its next range to finish. */
    row_pass *passes = calloc(n_passes, sizeof *passes);
    /* Each pass's parameters: those of its first set. */
    const double *pass_params[APO_GRID_SHARE_MAX];
    for (size_t j = n_sets; j-- > 0;)
        pass_params[pass_of[j]] = sets[j].params;
    size_t scratch_len = 0;
    for (size_t p = 0; p < n_passes && passes != NULL; p++) {
        passes[p].halo = apo__kernel_halo(ind, pass_params[p]);
        const size_t cap = whole ? n : (passes[p].halo + span < n ? passes[p].halo + span : n);
        scratch_len += pass->n_out * cap;
    }
    const size_t moves = span < n ? span : n;
    double *scratch = malloc((scratch_len + moves) * sizeof *scratch + moves);
    apo__score_fold *f = malloc(rr.n_chains * n_sets * sizeof *f);
    apo__score_more *more = malloc(rr.n_chains * n_sets * sizeof *more);
    size_t *next = malloc(rr.n_chains * sizeof *next);
    row_ride ride = {calloc(n_sets, sizeof *ride.ref_pos),
                     malloc(rr.n_chains * sizeof *ride.active)};
    if (passes == NULL || scratch == NULL || f == NULL || more == NULL || next == NULL ||
        ride.ref_pos == NULL || ride.active == NULL) {
        free(passes), free(scratch), free(f), free(more), free(next), free(ride.ref_pos);
        free(ride.active);
        return APO_ERR_OUT_OF_MEMORY;
    }

    const double *x[APO_MAX_IO];
    for (size_t i = 0; i < n_in; i++)
        x[i] = call->inputs[i] + row * n;

    double *window = scratch;
    for (size_t p = 0; p < n_passes; p++) {
        row_pass *rp = &passes[p];
        const size_t cap = whole ? n : (rp->halo + span < n ? rp->halo + span : n);
        apo__call *view = &rp->view;
        view->kernel = ind;
        view->rows = 1;
        memcpy(view->params, pass_params[p], sizeof view->params);
        view->seed = call->seed;
        view->ctx = &apo__call_ctx_host;
        view->inputs = rp->view_in;
        view->outputs = rp->out;
        for (size_t k = 0; k < pass->n_out; k++, window += cap)
            rp->in[k] = rp->out[k] = window;
    }

    /* Each set's rule (its thresholds) and cost: the rule's parameters enter only the fold,
     * so sets that differ in them share the pass (score_pass.h). */
    const size_t fold_params = ind->n_params + sc->n_rule_params;
    apo__rule rules[APO_GRID_SHARE_MAX];
    double cost[APO_GRID_SHARE_MAX];
    apo__score_set lane_sets[APO_GRID_SHARE_MAX];
    /* The lanes fold the eight of the plain view on every side, sets of different sides in
     * one round (score_sets.h), and a view's more statistics beside them: the `/compound` and
     * `/log` views' compounded equity, the `/more` view's every one (apo__score_more's view). */
    const int compound = sc->view != APO_SCORE_VIEW_SUM;
    for (size_t j = 0; j < n_sets; j++) {
        rules[j] = apo__scoring_rule(sc, sets[j].params);
        cost[j] = sets[j].params[fold_params];
        lane_sets[j] = apo__score_pass_set(pass, sets[j].params, &rules[j], cost[j]);
    }
    for (size_t c = 0; c < rr.n_chains; c++) {
        next[c] = rr.first[c];
        for (size_t j = 0; j < n_sets; j++) {
            apo__score_fold_init(&f[c * n_sets + j]);
            apo__score_more_init(&more[c * n_sets + j]);
            more[c * n_sets + j].view = sc->view;
        }
    }
    /* Chains that share the sets' positions: the plain view's rules, every side (a user's rule
     * and a view fold each chain on its own: the ride carries no compounded equity). */
    const int ride_chains =
        rr.n_chains > 1 && sc->user_fn == NULL && sc->view == APO_SCORE_VIEW_SUM;
    double *move = scratch + scratch_len;
    unsigned char *finite = (unsigned char *)(move + moves);
    row_fold rf = {.call = call,
                   .sc = sc,
                   .row = row,
                   .sets = sets,
                   .n_sets = n_sets,
                   .x = x,
                   .n_in = n_in,
                   .close = x[sc->close_input],
                   .passes = passes,
                   .n_passes = n_passes,
                   .pass_of = pass_of,
                   .move = move,
                   .finite = finite,
                   .rules = rules,
                   .cost = cost,
                   .lane_sets = lane_sets,
                   .compound = compound,
                   .isa = isa};
    apo_status st = APO_OK;
    for (size_t g0 = 0; g0 < n && st == APO_OK; g0 += span) {
        const size_t g1 = g0 + span < n ? g0 + span : n;
        for (size_t p = 0; p < n_passes && st == APO_OK; p++)
            st = pass_of_group(pass, &passes[p], x, n_in, g0, g1, tile, whole, isa);
        /* Then each tile's bars in order, as the tiles come. */
        for (size_t t0 = g0; t0 < g1 && st == APO_OK; t0 += tile) {
            const size_t t1 = t0 + tile < g1 ? t0 + tile : g1;
            apo__cpu_score_moves(rf.close, t0, t1, move, finite, isa);
            rf.t0 = t0;
            if (ride_chains)
                fold_tile_ride(&rf, t1, &rr, next, f, more, &ride);
            else
                st = fold_tile_ranges(&rf, t1, &rr, next, f, more);
        }
    }
    free(passes), free(scratch), free(f), free(more), free(next), free(ride.ref_pos);
    free(ride.active);
    return st;
}

/* One series on the best vector path: for callers without a device's path (a rank, the
 * tests). */
static apo_status scored_run(const apo__call *call, size_t row, size_t begin, size_t end,
                             double *partial) {
    (void)begin, (void)end, (void)partial;
    return scored_row(call, row, APO_CPU_ISA_AUTO);
}

/* Series [first, end) on the host device's vector path `isa` (APPORTION_CPU_ISA, docs/env.md):
 * a tile of a scored kernel is a whole series, so the tiles are the rows, one after another. */
static apo_status scored_run_tiles(const apo__call *call, uint64_t first, uint64_t end, int isa,
                                   double *scratch, size_t scratch_len) {
    (void)scratch, (void)scratch_len;
    apo_status st = APO_OK;
    for (uint64_t g = first; g < end && st == APO_OK; g++) {
        size_t row, begin, stop;
        apo__tile_range(call, g, &row, &begin, &stop);
        st = scored_row(call, row, (apo__cpu_isa)isa);
    }
    return st;
}

/* Sets share a pass when they differ only in the parameters it leaves out. */
static int scored_shares_pass(const apo__kernel *k, const double *a, const double *b) {
    return apo__score_pass_shared(&k->scoring->pass, k->n_params, a, b);
}

/* A rule's thresholds must leave a zone between them: at lower >= upper a value could be
 * both below lower and above upper, and the revert rule's middle would not lie between. */
static apo_status thresholds_validate(const apo__kernel *k, const double *params, size_t rows,
                                      size_t cols, char *err, size_t err_size) {
    (void)rows, (void)cols;
    const size_t i = k->scoring->indicator->n_params;
    if (!(params[i] < params[i + 1])) {
        snprintf(err, err_size, "%s: lower (%.17g) must be below upper (%.17g)%s", k->name,
                 params[i], params[i + 1],
                 k->scoring->generic ? " (a rule on any output has no thresholds of its own: "
                                       "give lower and upper)"
                                     : "");
        return APO_ERR_BAD_PARAM;
    }
    return APO_OK;
}

apo__rule apo__scoring_rule(const apo__scoring *sc, const double *params) {
    apo__rule r = sc->rule;
    const size_t i = sc->indicator->n_params;
    if (sc->n_rule_params == 2)
        r = apo__rule_make(r.kind, r.a, r.b, params[i], params[i + 1]);
    /* After cost and periods_per_year; an integer the parameter's bounds hold in -1 .. 1. */
    if (sc->has_side)
        r.side = (int)params[i + sc->n_rule_params + 2];
    return r;
}

/* Whether a rule can read `ind` with `extra` parameters of its own after the indicator's
 * (thresholds, cost, periods_per_year, side), else the reason in err. A user kernel's
 * function needs its runtime's frame and may have a halo the scored tile does not ask; the
 * built-ins are what the scored tile is proven on. A rule takes a position per bar from the
 * outputs at that bar: each output must have one value per bar, computed tile by tile
 * without partials. */
int apo__scored_scorable(const apo__kernel *ind, size_t extra, char *err, size_t err_size) {
    if (!ind->builtin || ind->scoring != NULL) {
        snprintf(err, err_size, "%s cannot be scored: a rule reads a built-in indicator's outputs",
                 ind->name);
        return 0;
    }
    double defaults[APO_MAX_PARAMS];
    for (size_t p = 0; p < ind->n_params; p++)
        defaults[p] = ind->params[p].def;
    const size_t cols = 1000;
    int per_bar =
        ind->partial_len == 0 && ind->merge == NULL && ind->axis_len(ind, defaults, cols) == cols;
    for (size_t o = 0; per_bar && o < ind->n_outputs; o++)
        per_bar = ind->output_cols(ind, defaults, cols, o) == cols;
    if (!per_bar) {
        snprintf(err, err_size, "%s cannot be scored: its outputs are not one value per bar",
                 ind->name);
        return 0;
    }
    if (ind->n_params + extra > APO_MAX_PARAMS) {
        snprintf(err, err_size,
                 "%s cannot be scored so: its %zu parameters and the rule's %zu (%scost, "
                 "periods_per_year%s) are past APO_MAX_PARAMS (%d)",
                 ind->name, ind->n_params, extra, extra > 3 ? "lower, upper, " : "",
                 extra > 2 ? ", side" : "", APO_MAX_PARAMS);
        return 0;
    }
    return 1;
}

/* ---- building them ----------------------------------------------------------------------- */

/* The views' suffixes of a rule's name (score_more.h's APO_SCORE_VIEW_*): `bands_revert`,
 * `bands_revert/compound`, `bands_revert/log`, `bands_revert/more`. */
static const char *const view_names[APO_SCORE_VIEW_COUNT] = {"", "compound", "log", "more"};

/* The view a rule's name asks for after its '/' (none: the sum), or -1. `base` gets the
 * rule's own name. */
int apo__scored_view_of(const char *rule, char *base, size_t base_size) {
    const char *slash = strchr(rule, '/');
    const size_t len = slash != NULL ? (size_t)(slash - rule) : strlen(rule);
    snprintf(base, base_size, "%.*s", (int)len, rule);
    if (slash == NULL)
        return APO_SCORE_VIEW_SUM;
    for (int v = 1; v < APO_SCORE_VIEW_COUNT; v++)
        if (apo__kernel_name_equal(slash + 1, view_names[v]))
            return v;
    return -1;
}

const char *apo__scored_view_name(int view) { return view_names[view]; }

/* The scored kernel of `ind` and a rule named rule_name, with thresholds when `d` has them
 * (d NULL: a user's rule, which has none): built-in and user rules share every hook, so a
 * user rule that takes the positions of a built-in one gives its bits. */
void apo__scored_fill(apo__kernel *k, apo__scoring *sc, const apo__kernel *ind,
                      const char *rule_name, const apo__scored_def *d, int view) {
    const int thresholds = d != NULL && d->thresholds;
    sc->indicator = ind;
    sc->rule = d != NULL ? apo__rule_make(d->kind, d->a, d->b, d->lower, d->upper)
                         : apo__rule_make(APO_RULE_ZONE, 0, 0, 0.0, 0.0);
    sc->rule_name = rule_name;
    sc->n_rule_params = thresholds ? 2 : 0;
    sc->has_side = d != NULL;
    sc->view = view;
    /* Every parameter of the rule, thresholds, cost, periods_per_year and side, enters only
     * the fold: sets that differ in them alone share the pass. */
    apo__score_pass_of(ind, sc->n_rule_params + 2 + (size_t)sc->has_side, &sc->pass);
    sc->close_input = 0;
    for (size_t k = 0; k < ind->n_inputs; k++)
        if (strcmp(ind->input_names[k], "close") == 0)
            sc->close_input = k;

    memset(k, 0, sizeof *k);
    /* The built-ins' names fit, and apo__scored_kernel_user refuses a user's that does not. */
    if (snprintf(k->name, sizeof k->name, "%s:%s%s%s", ind->name, rule_name, view ? "/" : "",
                 apo__scored_view_name(view)) >= (int)sizeof k->name)
        k->name[0] = '\0';
    k->builtin = d != NULL;
    k->n_inputs = ind->n_inputs;
    memcpy(k->input_names, ind->input_names, sizeof k->input_names);
    k->n_outputs = APO_SCORE_IX_COUNT;
    for (size_t o = 0; o < APO_SCORE_IX_COUNT; o++)
        snprintf(k->output_names[o], sizeof k->output_names[o], "%s",
                 view == APO_SCORE_VIEW_MORE ? more_names[o] : score_names[o]);
    /* The indicator's parameters, then the rule's: its thresholds, cost, periods_per_year
     * (the table leaves out a rule that would need more than APO_MAX_PARAMS). */
    size_t np = ind->n_params;
    memcpy(k->params, ind->params, np * sizeof ind->params[0]);
    if (thresholds) {
        k->params[np++] = (apo__param_spec){"lower", d->lower, d->min, d->max, 0};
        k->params[np++] = (apo__param_spec){"upper", d->upper, d->min, d->max, 0};
    }
    k->params[np++] = (apo__param_spec){"cost", 0.0, 0.0, 1.0, 0};
    k->params[np++] = (apo__param_spec){"periods_per_year", 252.0, 1e-9, 1e9, 0};
    /* -1 short-only, 0 both (the default: the positions of a rule without a side), 1
     * long-only. The table leaves no built-in rule past APO_MAX_PARAMS with it. */
    if (sc->has_side)
        k->params[np++] = (apo__param_spec){"side", 0.0, -1.0, 1.0, 1};
    assert(np <= APO_MAX_PARAMS);
    k->n_params = np;
    k->halo_rule = "the whole series: one tile scores one series";
    /* No shape check: a series shorter than the warm-up scores no bar (bars 0), which is an
     * answer, where its indicator alone would refuse it. Thresholds are checked against
     * each other. */
    k->validate = thresholds ? thresholds_validate : NULL;
    k->axis_len = one_len;
    k->tile_len = one_tile;
    k->unit_work = series_work;
    k->output_cols = one_col;
    k->run_tile = scored_run;
    k->run_tiles = scored_run_tiles;
    k->path = scored_path;
    k->cuda =
        d != NULL && view == APO_SCORE_VIEW_SUM ? &apo__scored_cuda : &apo__scored_host_only_cuda;
    k->shares_pass = scored_shares_pass;
    k->shares_host_call = folds_own_passes; /* their folds share the lanes */
    k->scoring = sc;
}

void apo__scored_host_only(apo__kernel *k) { k->cuda = &apo__scored_host_only_cuda; }
