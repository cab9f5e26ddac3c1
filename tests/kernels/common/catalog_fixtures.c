/*
 * catalog_fixtures.c: see catalog_fixtures.h.
 */
#include "catalog_fixtures.h"

#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_reference_momentum_ma.h"
#include "catalog_reference_stats_sar.h"
#include "cpu_isa.h"

const ref_kernel catalog_kernels[] = {
    {APO_CAT_SMA, "sma", 1, apo__ref_cat_sma, {0, 0}, 2, 0},
    {APO_CAT_EMA, "ema", 1, apo__ref_cat_ema, {0, 0}, 2, 0},
    {APO_CAT_WMA, "wma", 1, apo__ref_cat_wma, {0, 0}, 2, 0},
    {APO_CAT_DEMA, "dema", 1, apo__ref_cat_dema, {0, 0}, 2, 0},
    {APO_CAT_TEMA, "tema", 1, apo__ref_cat_tema, {0, 0}, 2, 0},
    {APO_CAT_MOM, "mom", 1, apo__ref_cat_mom, {0, 0}, 1, 0},
    {APO_CAT_ROC, "roc", 1, apo__ref_cat_roc, {0, 0}, 1, 0},
    {APO_CAT_RSI, "rsi", 1, apo__ref_cat_rsi, {0, 0}, 2, 0},
    {APO_CAT_CMO, "cmo", 1, apo__ref_cat_cmo, {0, 0}, 2, 0},
    {APO_CAT_WILLR, "willr", 3, apo__ref_cat_willr, {0, 0}, 2, 0},
    {APO_CAT_CCI, "cci", 3, apo__ref_cat_cci, {0, 0}, 2, 0},
    {APO_CAT_STOCHF, "stochf fastk", 3, apo__ref_cat_stochf_fastk, {3, 0, 0}, 1, 0},
    {APO_CAT_STOCHF, "stochf fastd", 3, apo__ref_cat_stochf_fastd, {3, 0, 0}, 1, 1},
    {APO_CAT_STOCH, "stoch slowk", 3, apo__ref_cat_stoch_slowk, {3, 0, 3}, 1, 0},
    {APO_CAT_STOCH, "stoch slowd", 3, apo__ref_cat_stoch_slowd, {4, 0, 2}, 1, 1},
    {APO_CAT_STDDEV, "stddev", 1, apo__ref_cat_stddev, {1.5, 0}, 2, 0},
    {APO_CAT_VAR, "var", 1, apo__ref_cat_var, {1, 0}, 1, 0},
    {APO_CAT_MAX, "max", 1, apo__ref_cat_max, {0, 0}, 2, 0},
    {APO_CAT_MIN, "min", 1, apo__ref_cat_min, {0, 0}, 2, 0},
    {APO_CAT_LINEARREG, "linearreg", 1, apo__ref_cat_linearreg, {0, 0}, 2, 0},
    {APO_CAT_LINEARREG_SLOPE, "linearreg_slope", 1, apo__ref_cat_linearreg_slope, {0, 0}, 2, 0},
    {APO_CAT_CORREL, "correl", 4, apo__ref_cat_correl, {0, 0}, 1, 0},
    {APO_CAT_BETA, "beta", 4, apo__ref_cat_beta, {0, 0}, 1, 0},
    {APO_CAT_TRANGE, "trange", 3, apo__ref_cat_trange, {0, 0}, 0, 0},
    {APO_CAT_ATR, "atr", 3, apo__ref_cat_atr, {0, 0}, 1, 0},
    {APO_CAT_NATR, "natr", 3, apo__ref_cat_natr, {0, 0}, 1, 0},
    {APO_CAT_AROON, "aroondown", 2, apo__ref_cat_aroondown, {0, 0}, 2, 0},
    {APO_CAT_AROON, "aroonup", 2, apo__ref_cat_aroonup, {0, 0}, 2, 1},
    {APO_CAT_TRIX, "trix", 1, apo__ref_cat_trix, {0, 0}, 1, 0},
    {APO_CAT_MACDFIX, "macdfix macd", 1, apo__ref_cat_macdfix_macd, {0, 0}, 1, 0},
    {APO_CAT_MACDFIX, "macdfix macdsignal", 1, apo__ref_cat_macdfix_signal, {0, 0}, 1, 1},
    {APO_CAT_MACDFIX, "macdfix macdhist", 1, apo__ref_cat_macdfix_hist, {0, 0}, 1, 2},
    {APO_CAT_LINEARREG_INTERCEPT,
     "linearreg_intercept",
     1,
     apo__ref_cat_linearreg_intercept,
     {0, 0},
     2,
     0},
    {APO_CAT_TSF, "tsf", 1, apo__ref_cat_tsf, {0, 0}, 2, 0},
    {APO_CAT_AVGDEV, "avgdev", 1, apo__ref_cat_avgdev, {0, 0}, 2, 0},
    {APO_CAT_LINEARREG_ANGLE, "linearreg_angle", 1, apo__ref_cat_linearreg_angle, {0, 0}, 2, 0},
};
const size_t n_catalog_kernels = sizeof catalog_kernels / sizeof catalog_kernels[0];

void series_make(series *s, uint64_t seed, size_t n, size_t n_in, double start, double step,
                 int gaps) {
    memset(s, 0, sizeof *s);
    s->n = n;
    s->high = alloc_doubles(n);
    s->low = alloc_doubles(n);
    s->close = alloc_doubles(n);
    apo__ref_ohlcv(seed, n, start, step, NULL, s->high, s->low, s->close, NULL);
    if (n_in == 4) /* y: a walk of its own */
        apo__ref_ohlcv(seed ^ 0x5555, n, start, step, NULL, NULL, s->low, NULL, NULL);
    if (gaps) {
        /* A lone NaN, an infinity, a run of NaN and a NaN near the end, in every input. */
        const size_t at[] = {n / 7, n / 3, n / 2, n / 2 + 1, n / 2 + 2, n - 1 - n / 50};
        for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
            double *row = i % 3 == 0 ? s->close : i % 3 == 1 ? s->high : s->low;
            if (n_in == 1)
                row = s->close;
            if (n_in == 4)
                row = i % 2 == 0 ? s->close : s->low;
            if (at[i] < n)
                row[at[i]] = i == 1 ? INFINITY : NAN;
        }
    }
    if (n_in == 1) {
        s->in[0] = s->close;
    } else if (n_in == 4) {
        s->in[0] = s->close;
        s->in[1] = s->low;
    } else {
        s->in[0] = s->high;
        s->in[1] = s->low;
        s->in[2] = s->close;
    }
}

void series_free(series *s) {
    free(s->high);
    free(s->low);
    free(s->close);
}

/* Runs the kernel over the tile grid of apo__catalog_tile_len, the tiles backwards, on vector
 * path isa (apo__cpu_catalog_tile's is sse2). */
void run_grid_on(apo__cat_id id, const series *s, const double *p, double *out, size_t out_index,
                 int isa) {
    apo__cat_io io;
    memset(&io, 0, sizeof io);
    for (size_t i = 0; i < 3; i++)
        io.in[i] = s->in[i];
    /* The other outputs into a buffer of their own. */
    double *other = alloc_doubles(s->n);
    for (size_t o = 0; o < APO_CAT_MAX_OUT; o++)
        io.out[o] = o == out_index ? out : other;
    for (size_t i = 0; i < 4; i++)
        io.p[i] = p[i];
    io.h = apo__catalog_halo(id, p);
    const size_t len = apo__catalog_tile_len(id, p);
    const size_t tiles = (s->n + len - 1) / len;
    for (size_t j = tiles; j-- > 0;) {
        const size_t b = j * len, e = b + len < s->n ? b + len : s->n;
        apo__cpu_catalog_tile_on(id, &io, b, e, isa);
    }
    free(other);
}

void run_grid(apo__cat_id id, const series *s, const double *p, double *out, size_t out_index) {
    run_grid_on(id, s, p, out, out_index, APO_CPU_ISA_SSE2);
}

/* Checks every output against the reference: NaN exactly where it is NaN, else within
 * tol * scale. Returns the worst error relative to the scale (0 where the scale is 0, which
 * requires equality). */
double check_against_reference(const ref_kernel *k, const series *s, const double *p, double tol,
                               const char *what) {
    const size_t n = s->n;
    double *got = alloc_doubles(n), *want = alloc_doubles(n), *scale = alloc_doubles(n);
    for (size_t t = 0; t < n; t++)
        got[t] = -12345.678;
    run_grid(k->id, s, p, got, k->out_index);
    k->ref(s->in, n, p, want, scale);
    const double worst = compare_with_reference(k->name, what, got, want, scale, n, tol, 0);
    free(got);
    free(want);
    free(scale);
    return worst;
}

const ref_kernel *kernel_named(const char *name) {
    const ref_kernel *k = &catalog_kernels[0];
    while (strcmp(k->name, name) != 0)
        k++;
    return k;
}

const ref_kernel *kernel_of(apo__cat_id id) {
    const ref_kernel *k = &catalog_kernels[0];
    while (k->id != id)
        k++;
    return k;
}

/* A (high, low, close) series of n bars whose samples are drawn at random from values, so
 * that equal samples (and zeros of both signs) meet everywhere; not a valid OHLC series (the
 * high may be below the low), which the kernels do not assume. */
void series_of_ties(series *s, uint64_t seed, size_t n, const double *values, size_t count) {
    series_make(s, 5, n, 3, 100.0, 0.5, 0);
    uint64_t state = seed;
    for (size_t t = 0; t < n; t++) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        s->high[t] = values[(state >> 33) % count];
        s->low[t] = values[(state >> 45) % count];
        s->close[t] = values[(state >> 57) % count];
    }
}

/* Kernel id's bars [0, n) of io on path isa, one call a piece of `piece` bars (the last one
 * shorter): a tile's bits must not depend on where its calls begin and end. */
void tile_in_pieces(apo__cat_id id, const apo__cat_io *io, size_t n, size_t piece, int isa) {
    for (size_t b = 0; b < n; b += piece)
        apo__cpu_catalog_tile_on(id, io, b, b + piece < n ? b + piece : n, isa);
}

/* Room for n doubles starting at any double of a 64-byte line: n + 8 doubles from a line's
 * start. aligned_alloc() takes a size that is a multiple of the alignment (C11; the
 * sanitizers refuse any other). */
double *on_a_line(size_t n) {
    const size_t bytes = ((n + 8) * sizeof(double) + 63) / 64 * 64;
    double *line = aligned_alloc(64, bytes);
    cr_assert_not_null(line);
    return line;
}

void tiles_on_every_path(apo__cat_id id, const apo__cat_io *io, size_t n, const size_t *pieces,
                         size_t n_pieces, void (*check)(const path_run *run, size_t n, void *ctx),
                         void *ctx) {
    double *line = on_a_line(n);
    for (int isa = APO_CPU_ISA_SSE2; isa <= APO_CPU_ISA_LAST; isa++) {
        if (!apo__cpu_isa_supported((apo__cpu_isa)isa))
            continue;
        for (size_t c = 0; c < n_pieces; c++)
            for (size_t offset = 0; offset < 8; offset++) {
                apo__cat_io at = *io;
                at.out[0] = line + offset;
                tile_in_pieces(id, &at, n, pieces[c], isa);
                const path_run run = {line + offset, isa, pieces[c], offset};
                check(&run, n, ctx);
            }
    }
    free(line);
}

/* A stream's pieces (apo__cpu_catalog_resume) of kernel id at parameters p give the bits of
 * the tiles run whole, however the tiles are cut: pieces of 1 to 300 bars, cycling, with gaps,
 * so that blocks and single steps meet everywhere. */
void check_resumed_pieces(apo__cat_id id, const double *p, uint64_t seed) {
    const ref_kernel *k = kernel_of(id);
    const size_t len = apo__catalog_tile_len(k->id, p);
    series s;
    series_make(&s, seed, 2 * len + 555, k->n_in, 100.0, 0.5, 1);
    double *a = alloc_doubles(s.n), *b = alloc_doubles(s.n);
    run_grid(k->id, &s, p, a, 0);
    apo__cat_io io;
    memset(&io, 0, sizeof io);
    /* Every slot of the series (n_in 4 names a pair, x and y, in the first two). */
    for (size_t i = 0; i < 3; i++)
        io.in[i] = s.in[i];
    io.out[0] = b;
    for (size_t i = 0; i < 4; i++)
        io.p[i] = p[i];
    io.h = apo__catalog_halo(k->id, p);
    void *state = calloc(1, apo__catalog_resume_size(k->id));
    cr_assert_not_null(state);
    size_t piece = 1;
    for (size_t b0 = 0; b0 < s.n; b0 += len) {
        const size_t e = b0 + len < s.n ? b0 + len : s.n;
        for (size_t t = b0; t < e; piece = piece % 300 + 1) {
            const size_t stop = t + piece < e ? t + piece : e;
            apo__cpu_catalog_resume(k->id, &io, state, t == b0, b0, stop);
            t = stop;
        }
    }
    for (size_t t = 0; t < s.n; t++)
        cr_assert(memcmp(&a[t], &b[t], sizeof a[t]) == 0, "%s(%g): t %zu pieces %.17g, whole %.17g",
                  k->name, p[0], t, b[t], a[t]);
    free(state);
    free(a);
    free(b);
    series_free(&s);
}
