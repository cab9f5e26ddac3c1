/*
 * catalog_more_fixtures.c: see catalog_more_fixtures.h.
 */
#include "catalog_more_fixtures.h"

#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_reference.h"

const ref_kernel catalog_more_kernels[] = {
    {APO_CAT_ZSCORE, "zscore", CLOSE, 1, apo__ref_cat_zscore, 2, 0},
    {APO_CAT_PLUS_DI, "plus_di", HLC, 1, apo__ref_cat_plus_di, 1, 0},
    {APO_CAT_MINUS_DI, "minus_di", HLC, 1, apo__ref_cat_minus_di, 1, 0},
    {APO_CAT_ADX, "adx", HLC, 1, apo__ref_cat_adx, 2, 0},
    {APO_CAT_MFI, "mfi", HLCV, 1, apo__ref_cat_mfi, 2, 0},
    {APO_CAT_MVWAP, "mvwap", HLCV, 1, apo__ref_cat_mvwap, 1, 0},
    {APO_CAT_KAMA, "kama", CLOSE, 1, apo__ref_cat_kama, 2, 0},
    {APO_CAT_ADOSC, "adosc", HLCV, 1, apo__ref_cat_adosc, 2, 10},
    {APO_CAT_PLUS_DM, "plus_dm", HL, 1, apo__ref_cat_plus_dm, 1, 0},
    {APO_CAT_MINUS_DM, "minus_dm", HL, 1, apo__ref_cat_minus_dm, 1, 0},
    {APO_CAT_DX, "dx", HLC, 1, apo__ref_cat_dx, 2, 0},
    {APO_CAT_ADXR, "adxr", HLC, 1, apo__ref_cat_adxr, 2, 0},
    {APO_CAT_AROONOSC, "aroonosc", HL, 1, apo__ref_cat_aroonosc, 2, 0},
    {APO_CAT_BOP, "bop", OHLC, 1, apo__ref_cat_bop, 0, 0},
    {APO_CAT_IMI, "imi", OC, 1, apo__ref_cat_imi, 2, 0},
    {APO_CAT_ULTOSC, "ultosc", HLC, 1, apo__ref_cat_ultosc, 1, 14},
    {APO_CAT_ROCP, "rocp", CLOSE, 1, apo__ref_cat_rocp, 1, 0},
    {APO_CAT_ROCR, "rocr", CLOSE, 1, apo__ref_cat_rocr, 1, 0},
    {APO_CAT_ROCR100, "rocr100", CLOSE, 1, apo__ref_cat_rocr100, 1, 0},
    {APO_CAT_AVGPRICE, "avgprice", OHLC, 1, apo__ref_cat_avgprice, 0, 0},
    {APO_CAT_MEDPRICE, "medprice", HL, 1, apo__ref_cat_medprice, 0, 0},
    {APO_CAT_TYPPRICE, "typprice", HLC, 1, apo__ref_cat_typprice, 0, 0},
    {APO_CAT_WCLPRICE, "wclprice", HLC, 1, apo__ref_cat_wclprice, 0, 0},
    {APO_CAT_ADD, "add", XY, 1, apo__ref_cat_add, 0, 0},
    {APO_CAT_SUB, "sub", XY, 1, apo__ref_cat_sub, 0, 0},
    {APO_CAT_MULT, "mult", XY, 1, apo__ref_cat_mult, 0, 0},
    {APO_CAT_DIV, "div", XY, 1, apo__ref_cat_div, 0, 0},
    {APO_CAT_SUM, "sum", CLOSE, 1, apo__ref_cat_sum, 2, 0},
    {APO_CAT_MINMAX, "minmax", CLOSE, 2, apo__ref_cat_minmax, 2, 0},
    {APO_CAT_CEIL, "ceil", CLOSE, 1, apo__ref_cat_ceil, 0, 0},
    {APO_CAT_FLOOR, "floor", CLOSE, 1, apo__ref_cat_floor, 0, 0},
    {APO_CAT_SQRT, "sqrt", CLOSE, 1, apo__ref_cat_sqrt, 0, 0},
    {APO_CAT_EXP, "exp", CLOSE, 1, apo__ref_cat_exp, 0, 0},
    {APO_CAT_LN, "ln", CLOSE, 1, apo__ref_cat_ln, 0, 0},
    {APO_CAT_LOG10, "log10", CLOSE, 1, apo__ref_cat_log10, 0, 0},
    {APO_CAT_SINH, "sinh", CLOSE, 1, apo__ref_cat_sinh, 0, 0},
    {APO_CAT_COSH, "cosh", CLOSE, 1, apo__ref_cat_cosh, 0, 0},
    {APO_CAT_TANH, "tanh", CLOSE, 1, apo__ref_cat_tanh, 0, 0},
    {APO_CAT_ACOS, "acos", UNIT, 1, apo__ref_cat_acos, 0, 0},
    {APO_CAT_ASIN, "asin", UNIT, 1, apo__ref_cat_asin, 0, 0},
    {APO_CAT_ATAN, "atan", CLOSE, 1, apo__ref_cat_atan, 0, 0},
    {APO_CAT_COS, "cos", CLOSE, 1, apo__ref_cat_cos, 0, 0},
    {APO_CAT_SIN, "sin", CLOSE, 1, apo__ref_cat_sin, 0, 0},
    {APO_CAT_TAN, "tan", CLOSE, 1, apo__ref_cat_tan, 0, 0},
    {APO_CAT_MAXINDEX, "maxindex", CLOSE, 1, apo__ref_cat_maxindex, 2, 0},
    {APO_CAT_MININDEX, "minindex", CLOSE, 1, apo__ref_cat_minindex, 2, 0},
    {APO_CAT_MINMAXINDEX, "minmaxindex", CLOSE, 2, apo__ref_cat_minmaxindex, 2, 0},
    {APO_CAT_MARKETFI, "marketfi", HLV, 1, apo__ref_cat_marketfi, 0, 0},
    {APO_CAT_ADR, "adr", HL, 1, apo__ref_cat_adr, 1, 0},
    {APO_CAT_CMF, "cmf", HLCV, 1, apo__ref_cat_cmf, 2, 0},
    {APO_CAT_RVOL, "rvol", V, 1, apo__ref_cat_rvol, 1, 0},
    {APO_CAT_EFI, "efi", CV, 1, apo__ref_cat_efi, 1, 0},
    {APO_CAT_PVO, "pvo", V, 1, apo__ref_cat_pvo, 2, 26},
    {APO_CAT_VWMA, "vwma", CV, 1, apo__ref_cat_vwma, 1, 0},
    {APO_CAT_QSTICK, "qstick", OC, 1, apo__ref_cat_qstick, 1, 0},
    {APO_CAT_AO, "ao", HL, 1, apo__ref_cat_ao, 2, 34},
    {APO_CAT_AC, "ac", HL, 1, apo__ref_cat_ac, 2, 34},
    {APO_CAT_DPO, "dpo", CLOSE, 1, apo__ref_cat_dpo, 2, 0},
    {APO_CAT_CMOU, "cmou", CLOSE, 1, apo__ref_cat_cmou, 2, 0},
    {APO_CAT_ER, "er", CLOSE, 1, apo__ref_cat_er, 2, 0},
    {APO_CAT_VHF, "vhf", CLOSE, 1, apo__ref_cat_vhf, 2, 0},
    {APO_CAT_COPPOCK, "coppock", CLOSE, 1, apo__ref_cat_coppock, 1, 11},
    {APO_CAT_ERI, "eri", HLC, 2, apo__ref_cat_eri, 1, 0},
    {APO_CAT_TSI, "tsi", CLOSE, 1, apo__ref_cat_tsi, 2, 13},
    {APO_CAT_VORTEX, "vortex", HLC, 2, apo__ref_cat_vortex, 1, 0},
    {APO_CAT_FOSC, "fosc", CLOSE, 1, apo__ref_cat_fosc, 2, 0},
    {APO_CAT_CVI, "cvi", HL, 1, apo__ref_cat_cvi, 2, 10},
    {APO_CAT_KC, "kc", HLC, 3, apo__ref_cat_kc, 2, 10},
    {APO_CAT_HA, "ha", OHLC, 4, apo__ref_cat_ha, 0, 0},
};
const size_t n_catalog_more_kernels = sizeof catalog_more_kernels / sizeof catalog_more_kernels[0];

void kernel_params(const ref_kernel *k, double period, double p[3]) {
    p[0] = period;
    p[1] = k->second;
    /* The third parameter: ultosc's timeperiod3, ac's signalperiod, coppock's roc2period, pvo's
     * matype (EMA), kc's nbdev. */
    p[2] = k->id == APO_CAT_ULTOSC    ? 28
           : k->id == APO_CAT_AC      ? 5
           : k->id == APO_CAT_COPPOCK ? 14
           : k->id == APO_CAT_PVO     ? 1
           : k->id == APO_CAT_KC      ? 2
                                      : 0;
}

void series_make(series *s, uint64_t seed, size_t n, cols_kind kind, double start, double step,
                 int gaps) {
    memset(s, 0, sizeof *s);
    s->n = n;
    for (size_t i = 0; i < 7; i++)
        s->col[i] = alloc_doubles(n);
    apo__ref_ohlcv(seed, n, start, step, s->col[5], s->col[0], s->col[1], s->col[2], s->col[3]);
    apo__ref_ohlcv(seed ^ 0x5555, n, start * 2, step, NULL, NULL, NULL, s->col[4], NULL);
    for (size_t t = 0; t < n; t++)
        s->col[6][t] = 1.1 * sin(s->col[2][t]);
    static const size_t order[11][4] = {{2},          {2, 4}, {0, 1},       {0, 1, 2},
                                        {0, 1, 2, 3}, {5, 2}, {5, 0, 1, 2}, {6},
                                        {0, 1, 3},    {2, 3}, {3}};
    static const size_t count[11] = {1, 2, 2, 3, 4, 2, 4, 1, 3, 2, 1};
    s->n_in = count[kind];
    for (size_t i = 0; i < s->n_in; i++)
        s->in[i] = s->col[order[kind][i]];
    if (gaps) {
        /* A lone NaN, an infinity, a run of NaN and a NaN near the end, spread over the
         * inputs in turn. */
        const size_t at[] = {n / 7, n / 3, n / 2, n / 2 + 1, n / 2 + 2, n - 1 - n / 50};
        for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
            if (at[i] < n)
                ((double *)s->in[i % s->n_in])[at[i]] = i == 1 ? INFINITY : NAN;
    }
}

void series_free(series *s) {
    for (size_t i = 0; i < 7; i++)
        free(s->col[i]);
}

void io_make(apo__cat_io *io, apo__cat_id id, const series *s, const double *p, double *const *out,
             size_t n_out) {
    memset(io, 0, sizeof *io);
    for (size_t i = 0; i < s->n_in; i++)
        io->in[i] = s->in[i];
    for (size_t o = 0; o < n_out; o++)
        io->out[o] = out[o];
    io->p[0] = p[0];
    io->p[1] = p[1];
    io->p[2] = p[2];
    io->h = apo__catalog_halo(id, p);
}

apo__cat_io tile_io(apo__cat_id id, const double *const *in, size_t n_in, const double *p,
                    size_t n_par, double *const *out, size_t n_out) {
    apo__cat_io io;
    memset(&io, 0, sizeof io);
    for (size_t i = 0; i < n_in; i++)
        io.in[i] = in[i];
    for (size_t o = 0; o < n_out; o++)
        io.out[o] = out[o];
    for (size_t i = 0; i < n_par; i++)
        io.p[i] = p[i];
    io.h = apo__catalog_halo(id, io.p);
    return io;
}

void run_tile_once(apo__cat_id id, const double *const *in, size_t n_in, const double *p,
                   size_t n_par, double *const *out, size_t n_out, size_t n) {
    const apo__cat_io io = tile_io(id, in, n_in, p, n_par, out, n_out);
    apo__cpu_catalog_tile(id, &io, 0, n);
}

void run_one_tile(apo__cat_id id, const double *const *in, size_t n_in, const double *p,
                  double *out0, double *out1, size_t n) {
    double *const out[2] = {out0, out1};
    run_tile_once(id, in, n_in, p, 3, out, 2, n);
}

/* Runs the kernel over the tile grid of apo__catalog_tile_len, the tiles backwards. */
void run_grid(const ref_kernel *k, const series *s, const double *p, double *const *out) {
    apo__cat_io io;
    io_make(&io, k->id, s, p, out, k->n_out);
    const size_t len = apo__catalog_tile_len(k->id, p);
    const size_t tiles = (s->n + len - 1) / len;
    for (size_t j = tiles; j-- > 0;) {
        const size_t b = j * len, e = b + len < s->n ? b + len : s->n;
        apo__cpu_catalog_tile(k->id, &io, b, e);
    }
}

/* Checks every output against the reference: NaN exactly where it is NaN, else within
 * tol * scale. Returns the worst error relative to the scale. */
double check_against_reference(const ref_kernel *k, const series *s, const double *p, double tol,
                               const char *what) {
    const size_t n = s->n;
    double *got[APO_CAT_MAX_OUT], *want[APO_CAT_MAX_OUT], *scale[APO_CAT_MAX_OUT];
    for (size_t o = 0; o < APO_CAT_MAX_OUT; o++) {
        got[o] = alloc_doubles(n);
        want[o] = alloc_doubles(n);
        scale[o] = alloc_doubles(n);
        for (size_t t = 0; t < n; t++)
            got[o][t] = -12345.678;
    }
    if (n > 0)
        run_grid(k, s, p, got);
    k->ref(s->in, n, p, want, scale);
    double worst = 0;
    for (size_t o = 0; o < k->n_out; o++) {
        char output[160];
        snprintf(output, sizeof output, "%s: output %zu", what, o);
        const double w =
            compare_with_reference(k->name, output, got[o], want[o], scale[o], n, tol, 0);
        worst = w > worst ? w : worst;
    }
    for (size_t o = 0; o < APO_CAT_MAX_OUT; o++) {
        free(got[o]);
        free(want[o]);
        free(scale[o]);
    }
    return worst;
}

void talib_run_make(talib_run *r, const ref_kernel *k, const double *p, uint64_t seed, size_t tiles,
                    size_t extra) {
    r->len = apo__catalog_tile_len(k->id, p);
    series_make(&r->s, seed, tiles * r->len + extra, k->cols, 100.0, 0.5, 0);
    r->got = alloc_doubles(r->s.n);
    r->want = alloc_doubles(r->s.n);
    double *out[2] = {r->got, NULL};
    run_grid(k, &r->s, p, out);
}

int talib_same_at(const talib_run *r, size_t t) {
    return memcmp(&r->got[t], &r->want[t], sizeof(double)) == 0 ||
           (isnan(r->got[t]) && isnan(r->want[t]));
}

void talib_assert_first_tile(const talib_run *r, const char *what) {
    for (size_t t = 0; t < r->len && t < r->s.n; t++)
        cr_assert(talib_same_at(r, t), "%s t %zu: %.17g, TA-Lib %.17g", what, t, r->got[t],
                  r->want[t]);
}

void talib_run_free(talib_run *r) {
    free(r->got);
    free(r->want);
    series_free(&r->s);
}
