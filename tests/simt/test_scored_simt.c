/*
 * The scored kernels' CUDA source (kernels/scores/scored.cu, scored_cuda.h) runs on the host
 * through the SIMT layer (docs/simt.md): every built-in rule, on
 * random walks with gaps, flat stretches and lone NaN closes, several tiles long, must give
 * the bits of the materialised scores: the indicator's outputs computed by the CPU tile by
 * tile over the whole series, then scored by apo__score_series (score.h), the path of
 * apo_score_outputs(). The launcher's one thread per series walks its series through windows
 * of scratch, so this checks the windows, the fold and the per-thread layout at once, with
 * fewer threads than series and with a chunk that starts inside the rows.
 *
 * The sets are written here rather than resolved by the runtime (runtime/catalog/scored_launch.c):
 * the runtime of a CUDA build links the launcher compiled by nvcc, whose symbols would clash
 * with these (as in test_catalog_simt.c). The inputs each catalog kernel reads are written
 * here too, in its descriptor's order.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bollinger.h"
#include "catalog_dispatch.h"
#include "kernels_cuda.h"
#include "macd.h"
#include "score.h"
#include "score_pass_outputs.h"
#include "scored_cuda.h"
#include "simt_api.h"
#include "simt_bars.h"

#define ROWS 5
#define COST 0.0005
#define PERIODS_PER_YEAR 252.0

/* A built-in rule of the scored kernels' table (runtime/catalog/scored_table.c) on its
 * indicator: APO_SCORED_CUDA_BOLLINGER and _MACD, or a catalog kernel with its inputs (1: the
 * close; 3: high, low, close; 4: and the volume) and parameters. */
typedef struct scored_case {
    const char *name;
    int indicator;
    apo__cat_id id;
    size_t n_in, n_out, n_params;
    double params[APO_CAT_MAX_PAR];
    int kind, a, b;
    double lower, upper;
} scored_case;

#define BOLL(name, kind, period, up, dn)                                                           \
    { name, APO_SCORED_CUDA_BOLLINGER, APO_CAT_SMA, 1, 3, 3, {period, up, dn}, kind, 0, 0, 0, 0 }
#define CAT(name, id, n_in, n_params, params, kind, a, b, lo, hi)                                  \
    { name, APO_SCORED_CUDA_CATALOG, id, n_in, 1, n_params, params, kind, a, b, lo, hi }
#define CAT2(name, id, n_in, n_params, params, kind, a, b, lo, hi)                                 \
    { name, APO_SCORED_CUDA_CATALOG, id, n_in, 2, n_params, params, kind, a, b, lo, hi }
#define P(...)                                                                                     \
    { __VA_ARGS__ }

static const scored_case cases[] = {
    BOLL("bollinger:bands_revert", APO_RULE_BANDS_REVERT, 20, 2, 2),
    BOLL("bollinger:bands_revert", APO_RULE_BANDS_REVERT, 7, 1.5, 0.5),
    BOLL("bollinger:bands_zone", APO_RULE_BANDS_ZONE, 20, 2, 2),
    BOLL("bollinger:bands_zone", APO_RULE_BANDS_ZONE, 300, 0, 3),
    {"macd:macd_cross",
     APO_SCORED_CUDA_MACD,
     APO_CAT_SMA,
     1,
     3,
     3,
     {12, 26, 9},
     APO_RULE_MACD_CROSS,
     0,
     0,
     0,
     0},
    /* fast > slow: swapped by the tile body as by the host */
    {"macd:macd_cross",
     APO_SCORED_CUDA_MACD,
     APO_CAT_SMA,
     1,
     3,
     3,
     {40, 5, 3},
     APO_RULE_MACD_CROSS,
     0,
     0,
     0,
     0},
    CAT("rsi:rsi_zone", APO_CAT_RSI, 1, 1, P(14), APO_RULE_ZONE, 0, 0, 30, 70),
    CAT("rsi:rsi_revert", APO_CAT_RSI, 1, 1, P(5), APO_RULE_REVERT, 0, 0, 25, 75),
    CAT2("stochf:stochf_zone", APO_CAT_STOCHF, 3, 3, P(5, 3, 0), APO_RULE_ZONE, 0, 0, 20, 80),
    CAT2("stochf:stochf_revert", APO_CAT_STOCHF, 3, 3, P(14, 5, 0), APO_RULE_REVERT, 0, 0, 20, 80),
    CAT2("stochf:stochf_cross", APO_CAT_STOCHF, 3, 3, P(5, 3, 0), APO_RULE_CROSS, 0, 1, 0, 0),
    CAT2("stoch:stoch_cross", APO_CAT_STOCH, 3, 5, P(5, 3, 0, 3, 0), APO_RULE_CROSS, 0, 1, 0, 0),
    CAT("willr:willr_zone", APO_CAT_WILLR, 3, 1, P(14), APO_RULE_ZONE, 0, 0, -80, -20),
    CAT("willr:willr_revert", APO_CAT_WILLR, 3, 1, P(40), APO_RULE_REVERT, 0, 0, -80, -20),
    CAT("cci:cci_zone", APO_CAT_CCI, 3, 1, P(14), APO_RULE_ZONE, 0, 0, -100, 100),
    CAT("cci:cci_revert", APO_CAT_CCI, 3, 1, P(20), APO_RULE_REVERT, 0, 0, -100, 100),
    CAT("mfi:mfi_zone", APO_CAT_MFI, 4, 1, P(14), APO_RULE_ZONE, 0, 0, 20, 80),
    CAT("mfi:mfi_revert", APO_CAT_MFI, 4, 1, P(3), APO_RULE_REVERT, 0, 0, 20, 80),
    CAT("cmo:cmo_zone", APO_CAT_CMO, 1, 1, P(14), APO_RULE_ZONE, 0, 0, -50, 50),
    CAT("cmo:cmo_revert", APO_CAT_CMO, 1, 1, P(9), APO_RULE_REVERT, 0, 0, -50, 50),
    CAT("sma:price_cross", APO_CAT_SMA, 1, 1, P(30), APO_RULE_PRICE_CROSS, 0, 0, 0, 0),
    CAT("ema:price_cross", APO_CAT_EMA, 1, 1, P(30), APO_RULE_PRICE_CROSS, 0, 0, 0, 0),
    CAT("wma:price_cross", APO_CAT_WMA, 1, 1, P(9), APO_RULE_PRICE_CROSS, 0, 0, 0, 0),
    CAT("dema:price_cross", APO_CAT_DEMA, 1, 1, P(30), APO_RULE_PRICE_CROSS, 0, 0, 0, 0),
    CAT("tema:price_cross", APO_CAT_TEMA, 1, 1, P(4), APO_RULE_PRICE_CROSS, 0, 0, 0, 0),
    CAT("kama:price_cross", APO_CAT_KAMA, 1, 1, P(30), APO_RULE_PRICE_CROSS, 0, 0, 0, 0),
};
#define N_CASES (sizeof cases / sizeof cases[0])

/* The bars of simt_bars.h (high, low, close, volume first), ROWS of them, with an infinite
 * close in row 4 besides. */
static void make_bars(size_t cols, double **bars) {
    cr_assert(simt_bars(ROWS, cols, bars));
    bars[2][4 * cols + cols / 2] = INFINITY;
}

static void free_bars(double **bars) {
    for (int i = 0; i < SIMT_BARS_INPUTS; i++)
        free(bars[i]);
}

/* The inputs a case's indicator reads, in its order: the close alone, or the bars from the
 * high on. */
static void inputs_of(const scored_case *c, double *const *bars, const double **in) {
    for (size_t i = 0; i < c->n_in; i++)
        in[i] = c->n_in == 1 ? bars[2] : bars[i];
}

static size_t tile_of(const scored_case *c) {
    if (c->indicator == APO_SCORED_CUDA_BOLLINGER)
        return apo__bollinger_tile_len((size_t)c->params[0]);
    if (c->indicator == APO_SCORED_CUDA_MACD) {
        const size_t f = (size_t)c->params[0], s = (size_t)c->params[1];
        return apo__macd_tile_len(f < s ? f : s, f < s ? s : f, (size_t)c->params[2]);
    }
    return apo__catalog_tile_len(c->id, c->params);
}

/* The reference: row r's indicator outputs over the whole series, tile by tile on the CPU,
 * then apo__score_series at the given cost. */
static void reference_scores(const scored_case *c, double *const *bars, size_t cols, size_t r,
                             double cost, double *scores) {
    const double *in[APO_CAT_MAX_IN] = {0};
    inputs_of(c, bars, in);
    for (size_t i = 0; i < c->n_in; i++)
        in[i] += r * cols;
    double *out[APO_CAT_MAX_OUT];
    for (int k = 0; k < APO_CAT_MAX_OUT; k++)
        cr_assert_not_null(out[k] = malloc(cols * sizeof(double)));
    const size_t tile = tile_of(c);
    apo__cat_io io;
    memset(&io, 0, sizeof io);
    for (size_t i = 0; i < c->n_in; i++)
        io.in[i] = in[i];
    for (size_t k = 0; k < c->n_out; k++)
        io.out[k] = out[k];
    memcpy(io.p, c->params, sizeof io.p);
    io.h = apo__catalog_halo(c->id, io.p);
    for (size_t b = 0; b < cols; b += tile) {
        const size_t e = b + tile < cols ? b + tile : cols;
        if (c->indicator == APO_SCORED_CUDA_BOLLINGER)
            apo__cpu_bollinger_tile(in[0], cols, b, e, (size_t)c->params[0], c->params[1],
                                    c->params[2], out[0], out[1], out[2]);
        else if (c->indicator == APO_SCORED_CUDA_MACD)
            apo__cpu_macd_tile(in[0], cols, b, e, (size_t)c->params[0], (size_t)c->params[1],
                               (size_t)c->params[2], out[0], out[1], out[2]);
        else
            apo__cpu_catalog_tile(c->id, &io, b, e);
    }
    const apo__rule rule = apo__rule_make(c->kind, c->a, c->b, c->lower, c->upper);
    apo__score_series(&rule, in[c->n_in == 1 ? 0 : 2], (const double *const *)out, c->n_out, cols,
                      cost, PERIODS_PER_YEAR, scores);
    for (int k = 0; k < APO_CAT_MAX_OUT; k++)
        free(out[k]);
}

/* The set the launcher takes for a case, resolved as the runtime resolves it. */
static apo__scored_cuda_set set_of(const scored_case *c) {
    apo__scored_cuda_set s;
    memset(&s, 0, sizeof s);
    s.indicator = c->indicator;
    s.pass = c->indicator == APO_SCORED_CUDA_BOLLINGER ? APO_SCORE_PASS_BOLLINGER_WIDTHS
                                                       : APO_SCORE_PASS_TILE;
    s.n_in = c->n_in;
    s.n_pass = c->indicator == APO_SCORED_CUDA_BOLLINGER ? 2 : c->n_out;
    s.n_out = c->n_out;
    s.close_in = c->n_in == 1 ? 0 : 2;
    s.tile = tile_of(c);
    memcpy(s.params, c->params, sizeof s.params);
    if (c->indicator == APO_SCORED_CUDA_BOLLINGER) {
        s.halo = (size_t)c->params[0] - 1;
    } else if (c->indicator == APO_SCORED_CUDA_MACD) {
        s.warmup = s.halo =
            apo__macd_warmup((size_t)c->params[0], (size_t)c->params[1], (size_t)c->params[2]);
    } else {
        s.cat_id = (int)c->id;
        memcpy(s.io.p, c->params, sizeof s.io.p);
        s.halo = s.io.h = apo__catalog_halo(c->id, s.io.p);
    }
    s.rule = apo__rule_make(c->kind, c->a, c->b, c->lower, c->upper);
    s.cost = COST;
    s.sqrt_periods = sqrt(PERIODS_PER_YEAR);
    return s;
}

/* Scores rows [row0, row0 + rows) of a case through the launcher, with `threads` threads
 * (0: apo__cuda_scored's own scratch), and counts the scores that differ from the reference's
 * bits (rows outside the chunk must keep the poison). */
static size_t check_case(const scored_case *c, double *const *bars, size_t cols, size_t row0,
                         size_t rows, size_t threads) {
    const apo__scored_cuda_set set = set_of(c);
    const double *in[APO_CAT_MAX_IN] = {0};
    inputs_of(c, bars, in);
    apo__scored_cuda_rows chunk;
    memset(&chunk, 0, sizeof chunk);
    double *got[APO_SCORE_IX_COUNT];
    for (size_t i = 0; i < c->n_in; i++)
        chunk.in[i] = in[i];
    for (int k = 0; k < APO_SCORE_IX_COUNT; k++) {
        cr_assert_not_null(got[k] = malloc(ROWS * sizeof(double)));
        for (size_t r = 0; r < ROWS; r++)
            got[k][r] = simt_poison();
        chunk.scores[k] = got[k];
    }
    chunk.cols = cols;
    chunk.row0 = row0;
    chunk.rows = rows;
    int rc;
    if (threads == 0) {
        rc = apo__cuda_scored(&set, 1, &chunk, NULL);
    } else {
        double *scratch = malloc(threads * apo__scored_cuda_scratch(&set, cols) * sizeof(double));
        cr_assert_not_null(scratch);
        rc = apo__cuda_scored_in(&set, 1, &chunk, scratch, threads, NULL);
        free(scratch);
    }
    cr_assert_eq(rc, 0, "%s: launch failed (%d): %s", c->name, rc, simt_last_failure());
    size_t wrong = 0;
    for (size_t r = 0; r < ROWS; r++) {
        const int inside = r >= row0 && r < row0 + rows;
        double want[APO_SCORE_IX_COUNT];
        if (inside)
            reference_scores(c, bars, cols, r, COST, want);
        for (int k = 0; k < APO_SCORE_IX_COUNT; k++) {
            const double w = inside ? want[k] : simt_poison();
            if (!simt_same_bits(got[k][r], w) && wrong++ == 0)
                fprintf(stderr, "%s (%g, %g, %g) row %zu score %d: %.17g, cpu %.17g%s\n", c->name,
                        c->params[0], c->params[1], c->params[2], r, k, got[k][r], w,
                        inside ? "" : " (outside the chunk)");
        }
    }
    for (int k = 0; k < APO_SCORE_IX_COUNT; k++)
        free(got[k]);
    return wrong;
}

/* The SIMT layer as the launcher's cases run it: threads free, copies in a random order drawn
 * from `seed`. */
static void simt_free_random(uint64_t seed) {
    const simt_options o = {SIMT_FREE, SIMT_COPIES_RANDOM, seed, 0, 0, 0};
    simt_set_options(&o);
}

/* Each case is one set, so the staged kernels fold it in registers (scored.cu, `lone`) and
 * the simple ones in the launch's array of folds: both must give the cpu's scores. */
Test(scored_simt, every_built_in_rule_gives_the_cpu_scores_through_the_launcher, .timeout = 600) {
    simt_free_random(7);
    static const int variants[] = {APO_CUDA_KERNELS_STAGED, APO_CUDA_KERNELS_SIMPLE};
    for (size_t i = 0; i < N_CASES; i++) {
        const scored_case *c = &cases[i];
        /* Two tiles and a part, so that the windows of the later tiles start at their halos. */
        const size_t cols = 2 * tile_of(c) + 311;
        double *bars[SIMT_BARS_INPUTS];
        make_bars(cols, bars);
        for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
            apo__cuda_kernels_set(variants[v]);
            /* Every row on its own thread; then a chunk from row 1 on two threads, which take
             * two and one rows in turn. */
            size_t wrong = check_case(c, bars, cols, 0, ROWS, 0);
            wrong += check_case(c, bars, cols, 1, 3, 2);
            apo__cuda_kernels_set(APO_CUDA_KERNELS_STAGED);
            cr_expect_eq(wrong, 0, "%s (%g, %g, %g), %s kernels: %zu scores differ", c->name,
                         c->params[0], c->params[1], c->params[2], v == 0 ? "staged" : "simple",
                         wrong);
        }
        free_bars(bars);
    }
}

/* Sets that share a pass through one call of the launcher: bollinger's widths, rsi's and cci's
 * thresholds, and costs, GROUP_SETS of them (more than APO_SCORED_CUDA_FOLDS, so the sets take
 * two launches over the same inputs), each set's scores in its own block of the outputs. Each
 * must be the bits of its set's reference alone: a pass or fold that read another set's
 * parameters, or scores written to another set's block, differs. */
#define GROUP_SETS (APO_SCORED_CUDA_FOLDS + 3)

/* Set j of a group from case `base`: the widths or thresholds moved by j, a cost by j. */
static scored_case group_member(const scored_case *base, size_t j, double *cost) {
    scored_case c = *base;
    if (c.indicator == APO_SCORED_CUDA_BOLLINGER) {
        c.params[1] = 0.5 + 0.25 * (double)j;
        c.params[2] = 3.0 - 0.2 * (double)j;
    } else {
        c.lower = base->lower + (double)j;
        c.upper = base->upper - 0.5 * (double)j;
    }
    *cost = (double)(j % 3) * 0.0007;
    return c;
}

/* The most sets a case's group holds (GROUP_SETS, MIXED_SETS below). */
#define MOST_SETS 24
_Static_assert(GROUP_SETS <= MOST_SETS, "a group of GROUP_SETS fits");

/* The sets of one call of the launcher: each member's case, its cost and its set resolved at
 * that cost, and, for a mixed group, where each run of sets that share a pass starts. */
typedef struct group {
    size_t n;
    scored_case members[MOST_SETS];
    double costs[MOST_SETS];
    apo__scored_cuda_set sets[MOST_SETS];
    unsigned char starts[MOST_SETS];
} group;

/* Adds `member` (made by the caller with its cost) to g, its set at that cost; `starts` marks
 * the first set of a run. */
static void group_add(group *g, scored_case member, double cost, int starts) {
    cr_assert_lt(g->n, MOST_SETS);
    const size_t j = g->n++;
    g->members[j] = member;
    g->costs[j] = cost;
    g->sets[j] = set_of(&g->members[j]);
    g->sets[j].cost = cost;
    g->starts[j] = (unsigned char)starts;
}

/* Scores the group g over ROWS rows of `bars` in one call of the launcher: apo__cuda_scored,
 * or apo__cuda_scored_mixed with g's starts when `mixed`. Returns how many scores differ from
 * each set's reference alone; *differs says whether sets 0 and `other` got different totals
 * (a launch that scored every set as the first would compare equal otherwise). */
static size_t check_group(const scored_case *base, const group *g, int mixed, double *const *bars,
                          size_t cols, size_t other, int *differs) {
    const size_t n = g->n;
    const double *in[APO_CAT_MAX_IN] = {0};
    inputs_of(base, bars, in);
    apo__scored_cuda_rows chunk;
    memset(&chunk, 0, sizeof chunk);
    for (size_t i = 0; i < base->n_in; i++)
        chunk.in[i] = in[i];
    double *got[APO_SCORE_IX_COUNT];
    for (int k = 0; k < APO_SCORE_IX_COUNT; k++) {
        cr_assert_not_null(got[k] = malloc(n * ROWS * sizeof(double)));
        for (size_t i = 0; i < n * ROWS; i++)
            got[k][i] = simt_poison();
        chunk.scores[k] = got[k];
    }
    chunk.cols = cols;
    chunk.rows = ROWS;
    chunk.set_stride = ROWS;
    const int rc = mixed ? apo__cuda_scored_mixed(g->sets, n, g->starts, &chunk, NULL)
                         : apo__cuda_scored(g->sets, n, &chunk, NULL);
    cr_assert_eq(rc, 0, "%s: launch failed (%d): %s", base->name, rc, simt_last_failure());
    size_t wrong = 0;
    for (size_t j = 0; j < n; j++)
        for (size_t r = 0; r < ROWS; r++) {
            double want[APO_SCORE_IX_COUNT];
            reference_scores(&g->members[j], bars, cols, r, g->costs[j], want);
            for (int k = 0; k < APO_SCORE_IX_COUNT; k++)
                if (!simt_same_bits(got[k][j * ROWS + r], want[k]) && wrong++ == 0)
                    fprintf(stderr, "%s set %zu row %zu score %d: %.17g, cpu %.17g\n", base->name,
                            j, r, k, got[k][j * ROWS + r], want[k]);
        }
    *differs = memcmp(&got[APO_SCORE_IX_TOTAL][0], &got[APO_SCORE_IX_TOTAL][other * ROWS],
                      ROWS * sizeof(double)) != 0;
    for (int k = 0; k < APO_SCORE_IX_COUNT; k++)
        free(got[k]);
    return wrong;
}

/* check_group over two tiles and a part of the longest of the members' tiles (so that the
 * windows of the later tiles start at their halos), expecting no score to differ and sets 0
 * and `other` to differ in their totals; what names the group's sets ("sets", "mixed sets")
 * and firsts what 0 and other begin. */
static void expect_group(const scored_case *base, const group *g, int mixed, size_t other,
                         const char *what, const char *firsts) {
    size_t longest = 0;
    for (size_t j = 0; j < g->n; j++) {
        const size_t t = tile_of(&g->members[j]);
        longest = t > longest ? t : longest;
    }
    const size_t cols = 2 * longest + 311;
    double *bars[SIMT_BARS_INPUTS];
    make_bars(cols, bars);
    int differs = 0;
    const size_t wrong = check_group(base, g, mixed, bars, cols, other, &differs);
    cr_expect_eq(wrong, 0, "%s: %zu scores of %zu %s differ", base->name, wrong, g->n, what);
    cr_expect(differs, "%s: the first two %s have the same totals", base->name, firsts);
    free_bars(bars);
}

/* The group that make() builds from each of the n base cases (indices into cases[]),
 * checked by expect_group. */
static void expect_groups(const size_t *bases, size_t n, void (*make)(const scored_case *, group *),
                          int mixed, size_t other, const char *what, const char *firsts) {
    for (size_t b = 0; b < n; b++) {
        const scored_case *base = &cases[bases[b]];
        group g = {0};
        make(base, &g);
        expect_group(base, &g, mixed, other, what, firsts);
    }
}

/* GROUP_SETS sets of one pass from `base` (group_member). */
static void one_pass_group(const scored_case *base, group *g) {
    for (size_t j = 0; j < GROUP_SETS; j++) {
        double cost;
        const scored_case member = group_member(base, j, &cost);
        group_add(g, member, cost, 0);
    }
}

Test(scored_simt, sets_sharing_a_pass_give_each_its_own_scores, .timeout = 600) {
    simt_free_random(11);
    /* bands_revert, bands_zone, macd_cross (costs alone), rsi_zone, cci_zone */
    const size_t bases[] = {0, 3, 4, 6, 14};
    expect_groups(bases, sizeof bases / sizeof bases[0], one_pass_group, 0, 1, "sets", "sets");
}

/* A GPU's group of a sweep's consecutive sets whose passes differ (periods) goes to
 * apo__cuda_scored_mixed: runs of 10, 1, 3 and 6 sets share a pass each (a run longer than
 * APO_SCORED_CUDA_FOLDS takes two units), and every set's scores must be the bits of its
 * reference alone. A unit that scored with another's pass, folded another run's sets, or wrote
 * its scores into another set's block differs. */
static const size_t mixed_runs[] = {10, 1, 3, 6};
#define MIXED_SETS 20
_Static_assert(MIXED_SETS <= MOST_SETS, "a group of MIXED_SETS fits");

/* Set j of run `run` of a mixed group from `base`: the period moved by the run, the widths
 * or thresholds and the cost by j. */
static scored_case mixed_member(const scored_case *base, size_t run, size_t j, double *cost) {
    scored_case c = group_member(base, j % 4, cost);
    if (c.indicator == APO_SCORED_CUDA_MACD)
        c.params[1] += 3.0 * (double)run; /* the slow period */
    else
        c.params[0] += 2.0 * (double)run;
    return c;
}

/* The runs of mixed_runs from `base` (mixed_member), each run's first set marked. */
static void mixed_group(const scored_case *base, group *g) {
    for (size_t run = 0; run < sizeof mixed_runs / sizeof mixed_runs[0]; run++)
        for (size_t i = 0; i < mixed_runs[run]; i++) {
            double cost;
            const scored_case member = mixed_member(base, run, g->n, &cost);
            group_add(g, member, cost, i == 0);
        }
    cr_assert_eq(g->n, MIXED_SETS);
}

Test(scored_simt, sets_of_several_passes_give_each_its_own_scores_in_one_launch, .timeout = 600) {
    simt_free_random(13);
    /* bands_revert, macd_cross, rsi_zone, cci_zone, mfi_zone */
    const size_t bases[] = {0, 4, 6, 14, 16};
    /* Sets 0 and 10: the first two runs (other periods). */
    expect_groups(bases, sizeof bases / sizeof bases[0], mixed_group, 1, 10, "mixed sets", "runs");
}

/* The launcher refuses a mixed group whose runs are of different kernels: their tile bodies
 * cannot share a launch. */
Test(scored_simt, a_mixed_launch_refuses_runs_of_different_indicators, .timeout = 120) {
    apo__scored_cuda_set sets[2] = {set_of(&cases[6]), set_of(&cases[14])}; /* rsi, cci */
    const unsigned char starts[2] = {1, 1};
    double *bars[SIMT_BARS_INPUTS];
    make_bars(64, bars);
    apo__scored_cuda_rows chunk;
    memset(&chunk, 0, sizeof chunk);
    double scores[APO_SCORE_IX_COUNT][2 * ROWS];
    for (int i = 0; i < 3; i++)
        chunk.in[i] = bars[i];
    for (int k = 0; k < APO_SCORE_IX_COUNT; k++)
        chunk.scores[k] = scores[k];
    chunk.cols = 64;
    chunk.rows = ROWS;
    chunk.set_stride = ROWS;
    cr_expect_neq(apo__cuda_scored_mixed(sets, 2, starts, &chunk, NULL), 0);
    cr_expect_eq(apo__cuda_scored_mixed(sets, 1, starts, &chunk, NULL), 0,
                 "one set alone is a valid mixed launch");
    free_bars(bars);
}

/* The scores fold something: a case whose scores were all NaN or zero bars would compare
 * equal however wrong the fold. */
Test(scored_simt, the_cases_score_bars_and_trade, .timeout = 300) {
    for (size_t i = 0; i < N_CASES; i++) {
        const scored_case *c = &cases[i];
        const size_t cols = 2 * tile_of(c) + 311;
        double *bars[SIMT_BARS_INPUTS];
        make_bars(cols, bars);
        double scores[APO_SCORE_IX_COUNT];
        reference_scores(c, bars, cols, 0, COST, scores);
        cr_expect(scores[APO_SCORE_IX_BARS] > 0.5 * (double)cols, "%s scores too few bars",
                  c->name);
        cr_expect(scores[APO_SCORE_IX_TRADES] > 0.0, "%s never trades", c->name);
        free_bars(bars);
    }
}

/* The launcher's refusals: no tile, a pass wider than the kernel keeps, a missing input or
 * score, or a catalog kernel no rule reads is cudaErrorInvalidValue (1); no rows launch nothing. */
Test(scored_simt, the_launcher_refuses_what_no_set_can_be, .timeout = 120) {
    double x[64] = {0}, s[APO_SCORE_IX_COUNT][1];
    apo__scored_cuda_set set = set_of(&cases[6]); /* rsi */
    apo__scored_cuda_rows rows;
    memset(&rows, 0, sizeof rows);
    rows.in[0] = x;
    for (int k = 0; k < APO_SCORE_IX_COUNT; k++)
        rows.scores[k] = s[k];
    rows.cols = 64;
    rows.rows = 1;
    apo__scored_cuda_set bad = set;
    bad.tile = 0;
    cr_assert_eq(apo__cuda_scored(&bad, 1, &rows, NULL), 1);
    bad = set;
    bad.n_pass = APO_CAT_MAX_OUT + 1;
    cr_assert_eq(apo__cuda_scored(&bad, 1, &rows, NULL), 1);
    bad = set;
    bad.cat_id = APO_CAT_ATR; /* no built-in rule reads it */
    cr_assert_eq(apo__cuda_scored(&bad, 1, &rows, NULL), 1);
    apo__scored_cuda_rows no_score = rows;
    no_score.scores[7] = NULL;
    cr_assert_eq(apo__cuda_scored(&set, 1, &no_score, NULL), 1);
    apo__scored_cuda_rows no_input = rows;
    no_input.in[0] = NULL;
    cr_assert_eq(apo__cuda_scored(&set, 1, &no_input, NULL), 1);
    /* Sets whose passes differ in shape, or several sets without a stride between their
     * scores. */
    apo__scored_cuda_set two[2] = {set, set};
    rows.set_stride = 1;
    two[1].halo = set.halo + 1;
    cr_assert_eq(apo__cuda_scored(two, 2, &rows, NULL), 1);
    two[1] = set;
    two[1].cat_id = APO_CAT_CMO;
    cr_assert_eq(apo__cuda_scored(two, 2, &rows, NULL), 1);
    two[1] = set;
    rows.set_stride = 0;
    cr_assert_eq(apo__cuda_scored(two, 2, &rows, NULL), 1);
    cr_assert_eq(apo__cuda_scored(two, 0, &rows, NULL), 1);
    rows.rows = 0;
    cr_assert_eq(apo__cuda_scored(&set, 1, &rows, NULL), 0);
}
