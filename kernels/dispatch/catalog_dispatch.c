/*
 * catalog_dispatch.c: the host side of the catalog kernels (catalog_dispatch.h): halos and
 * tile lengths from the parameters and the table's rows (catalog_table.h), and the CPU's tile
 * call, which runs the same APO_HD bodies
 * (kernels/<room>/<name>_tile.h) as the CUDA launchers, compiled once per vector path
 * (catalog_entry.h) so that the bodies' branch-free loops vectorize as wide as the CPU
 * allows.
 *
 * The decay steps of the recurrences use libm's log and log1p: they size the halo and the
 * tile grid only and never enter per-sample arithmetic, and the host computes them for the
 * CPU and the GPU alike (the launchers get io->h from here).
 */
#include "catalog_dispatch.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>

#include "averages_tiles.h"
#include "bollinger.h"
#include "candles_tiles.h"
#include "catalog_paths.h"
#include "cpu_isa.h"
#include "cycles_tiles.h"
#include "isa_cases.h"
#include "macd.h"
#include "oscillators_tiles.h"
#include "statistics_tiles.h"
#include "transforms_tiles.h"
#include "trend_tiles.h"
#include "volume_tiles.h"

size_t apo__decay_steps(double k) {
    if (k >= 1.0)
        return 0;
    return (size_t)ceil(64.0 * log(2.0) / -log1p(-k));
}

size_t apo__catalog_lookback(apo__cat_id id, const double *params) {
#define APO_CAT_P(i) ((size_t)params[i])
    switch (id) {
#define APO__CAT_LOOKBACK(ID, name, room, inputs, outputs, par, lookback, ...)                     \
    case APO_CAT_##ID:                                                                             \
        return lookback;
        APO_CATALOG(APO__CAT_LOOKBACK)
#undef APO__CAT_LOOKBACK
    default:
        return 0;
    }
#undef APO_CAT_P
}

/* What each halo rule of the table adds to the lookback (catalog_table.h), from p, the first
 * parameter, and params. */
#define APO__HALO_WINDOW 0
#define APO__HALO_EMA(m) (m) * apo__decay_steps(2.0 / (p + 1.0))
#define APO__HALO_WILDER(m) (m) * apo__decay_steps(1.0 / p)
/* The slower EMA's. */
#define APO__HALO_ADOSC apo__decay_steps(2.0 / ((p > params[1] ? p : params[1]) + 1.0))
/* A tile starting inside a block reaches back to the block's first window. */
#define APO__HALO_VAR                                                                              \
    ((size_t)p > APO_VAR_DIRECT_MAX && (size_t)p <= APO_VAR_BLOCKS_MAX                             \
         ? apo__var_block_len((size_t)p) - 1                                                       \
         : 0)
/* As var's. */
#define APO__HALO_CORREL                                                                           \
    ((size_t)p <= APO_CORREL_BLOCKS_MAX ? apo__correl_block_len((size_t)p) - 1 : 0)
/* As correl's, whose blocks beta's are. */
#define APO__HALO_BETA                                                                             \
    ((size_t)p > APO_PAIR_DIRECT_MAX && (size_t)p <= APO_BETA_BLOCKS_MAX ? APO_BETA_BLOCK_LEN - 1  \
                                                                         : 0)
/* KAMA's slowest rate: an efficiency ratio of 0. */
#define APO__HALO_KAMA apo__decay_steps((2.0 / (30.0 + 1.0)) * (2.0 / (30.0 + 1.0)))
/* The warm-up of the average whose matype is parameter i, at period p (ma_type.h). */
#define APO__HALO_MA(i) apo__ma_warmup((int)params[i], p)
/* mavp's: that of its longest period, the halo of every period it may take. */
#define APO__HALO_MAVP apo__ma_warmup((int)params[2], params[1])

size_t apo__ma_warmup(int matype, double p) {
    if (p <= 1.0 || !apo__ma_supported(matype))
        return 0;
    const size_t d = apo__decay_steps(2.0 / (p + 1.0));
    switch (matype) {
    case APO_MA_EMA:
        return d;
    /* A chain of S stages: S + 1 decays, as dema's, tema's and t3's rules. */
    case APO_MA_DEMA:
        return 3 * d;
    case APO_MA_TEMA:
        return 4 * d;
    case APO_MA_T3:
        return 7 * d;
    case APO_MA_KAMA:
        return APO__HALO_KAMA;
    default:
        return 0;
    }
}

size_t apo__ma_halo(int matype, double p) {
    return apo__ma_lookback(matype, (size_t)p) + apo__ma_warmup(matype, p);
}
/* macd's rule (docs/kernels.md, "## macd") with macdfix's slow rate, 0.075, and its signal's. */
#define APO__HALO_MACDFIX (apo__decay_steps(0.075) + apo__decay_steps(2.0 / (p + 1.0)))
/* apo's and ppo's: the warm-up of their slow MA, the one at the longer period. */
#define APO__HALO_PO apo__ma_warmup((int)params[2], p > params[1] ? p : params[1])
/* tsi's: each stage's decay steps (firstperiod's, secondperiod's), and the longer once more for
 * the chain's polynomial factor (dema's rule, "Recurrences"). */
#define APO__HALO_TSI                                                                              \
    (apo__decay_steps(2.0 / (p + 1.0)) + apo__decay_steps(2.0 / (params[1] + 1.0)) +               \
     (p < params[1] ? apo__decay_steps(2.0 / (p + 1.0))                                            \
                    : apo__decay_steps(2.0 / (params[1] + 1.0))))

int apo__ma_series_takes(int matype, double p) {
    return apo__ma_series_supported(matype, (size_t)p);
}

/* macdext's: twice the largest halo of its three averages (macdext_tile.h); as a rule, that
 * less the lookback the halo adds it to. */
static size_t apo__macdext_halo(const double *params) {
    const apo__macdext_params m = apo__macdext_params_of(params);
    size_t h = apo__ma_halo(m.fast_ma, (double)m.fast);
    const size_t slow = apo__ma_halo(m.slow_ma, (double)m.slow),
                 signal = apo__ma_halo(m.signal_ma, (double)m.signal);
    h = slow > h ? slow : h;
    h = signal > h ? signal : h;
    return 2 * h;
}
#define APO__HALO_MACDEXT (apo__macdext_halo(params) - lookback)

/* stochrsi's (stochrsi_tile.h): twice the larger of the RSI's halo and fastd's, plus the fastk
 * window's fastk_period - 1; as a rule, that less the lookback. */
static size_t apo__stochrsi_halo(const double *params) {
    const size_t rsi = (size_t)params[0] + apo__decay_steps(1.0 / params[0]);
    const size_t fastd = apo__ma_halo((int)params[3], params[2]);
    return 2 * (rsi > fastd ? rsi : fastd) + ((size_t)params[1] - 1);
}
#define APO__HALO_STOCHRSI (apo__stochrsi_halo(params) - lookback)
/* kc's (kc_tile.h): the slower of its legs' decays, the EMA's at timeperiod and Wilder's average's
 * at atrperiod. */
#define APO__HALO_KC                                                                               \
    (apo__decay_steps(2.0 / (p + 1.0)) > apo__decay_steps(1.0 / params[1])                         \
         ? apo__decay_steps(2.0 / (p + 1.0))                                                       \
         : apo__decay_steps(1.0 / params[1]))

/* ha's (ha_tile.h): haopen halves its seed's weight each bar, ema's recurrence at rate 1/2. */
#define APO__HALO_HA apo__decay_steps(0.5)
/* smi's (smi_tile.h): tsi's rule over its three EMAs, slowperiod's, fastperiod's and
 * signalperiod's decay steps, and the slowest's once more for the chain. */
static size_t apo__smi_halo(const double *params) {
    const size_t fast = apo__decay_steps(2.0 / (params[1] + 1.0)),
                 slow = apo__decay_steps(2.0 / (params[2] + 1.0)),
                 signal = apo__decay_steps(2.0 / (params[3] + 1.0));
    const size_t slowest = APO_CAT_MAX3(fast, slow, signal);
    return fast + slow + signal + slowest;
}
#define APO__HALO_SMI apo__smi_halo(params)
/* The warm-up of one of kdj's averages (kdj_tile.h): a recurrence's decay steps, ZLEMA's EMA's
 * (zlema's rule), else ma_type.h's (DEMA's, TEMA's and T3's chains, KAMA's slowest rate; none for
 * SMA, WMA, TRIMA and HMA, whose windows the lookback covers). */
static size_t apo__kdj_warmup(int matype, double p) {
    if (apo__kdj_recurrence(matype, (size_t)p))
        return apo__decay_steps(apo__kdj_rate(matype, p));
    if (matype == APO_MA_ZLEMA)
        return apo__decay_steps(2.0 / (p + 1.0));
    return apo__ma_warmup(matype, p);
}

/* kdj's (kdj_tile.h): each average's warm-up, and the slower's once more for the chain. */
static size_t apo__kdj_halo(const double *params) {
    const size_t k = apo__kdj_warmup((int)params[2], params[1]),
                 d = apo__kdj_warmup((int)params[4], params[3]);
    return k + d + (k > d ? k : d);
}
#define APO__HALO_KDJ apo__kdj_halo(params)
/* stoch's and stochf's (oscillators/stoch_ma.h): at matype 0 their means are windows, which the
 * lookback covers; at another kind they take kdj's body, and so kdj's rule, stochf's with its
 * parameters as kdj's (apo__stochf_as_kdj). */
#define APO__HALO_STOCH (apo__stoch_is_sma(params) ? 0 : apo__kdj_halo(params))
static size_t apo__stochf_halo(const double *params) {
    if (apo__stochf_is_sma(params))
        return 0;
    double kdj[APO_CAT_MAX_PAR] = {0};
    apo__stochf_as_kdj(params, kdj);
    return apo__kdj_halo(kdj);
}
#define APO__HALO_STOCHF apo__stochf_halo(params)

int apo__kdj_takes_ma(int matype, double p) { return apo__kdj_takes(matype, (size_t)p); }

size_t apo__stochrsi_fastk_max(void) { return APO_STOCHRSI_RING; }

size_t apo__catalog_halo(apo__cat_id id, const double *params) {
    const size_t lookback = apo__catalog_lookback(id, params);
    const double p = params[0];
    switch (id) {
#define APO__CAT_HALO(ID, name, room, inputs, outputs, par, lb, halo, ...)                         \
    case APO_CAT_##ID:                                                                             \
        return lookback + APO__HALO_##halo;
        APO_CATALOG(APO__CAT_HALO)
#undef APO__CAT_HALO
    default:
        return lookback;
    }
}

int apo__catalog_whole_row_at(apo__cat_id id, const double *params) {
    if (apo__catalog_whole_row(id))
        return 1;
    /* The kernels whose bodies take MAMA through ma_type.h, and their matype's place. */
    switch (id) {
    case APO_CAT_MA:
        return apo__ma_whole_row((int)params[1], (size_t)params[0]);
    case APO_CAT_BBANDS:
        return apo__ma_whole_row((int)params[3], (size_t)params[0]);
    default:
        return 0;
    }
}

size_t apo__catalog_tile_len(apo__cat_id id, const double *params) {
    /* A whole-row tile costs its prefix too: with long tiles a row of n samples costs about
     * n + n^2 / 131072 steps, 8.6 single passes at a million samples (4096-sample tiles would
     * make that 123). */
    if (apo__catalog_whole_row_at(id, params))
        return APO_CAT_WHOLE_ROW_TILE;
    /* The Wilder recurrences' tiles of a row run side by side in vector lanes
     * (catalog_lanes.h): a row is only faster than one serial chain when it holds several
     * tiles. Five warm-ups a tile (3065 bars at p = 14) give a row of 1e4 bars four tiles,
     * one round of four lanes, for a fifth more work on long rows, where the lanes had that
     * much to spare. ADX too since its lanes gather each bar's samples once (trange_lanes.h):
     * its halo is two warm-ups, but a step of lanes now costs less than two scalar steps, so
     * four lanes of 1e4 bars beat one chain, and a million bars too (docs/PERF.md). */
    if (apo__catalog_wilder(id)) {
        const size_t one = (size_t)params[0] + apo__decay_steps(1.0 / params[0]);
        const size_t len = 5 * one;
        return len > 1024 ? len : 1024;
    }
    /* Each tile re-runs its halo: 16 halos a tile keep that within 1/16 of the work. ema's
     * and massi's tiles run side by side (ema_tile.h, massi_tile.h), so their halos overlap
     * and cost a quarter as much: shorter tiles give a short series several chains to
     * overlap, and a floor of 2048 bars, not 4096, gives a row of 1e4 bars four tiles at
     * their default periods, a round of four lanes where three tiles left one idle (ema
     * 0.88 and massi 0.68 of the time at 1e4 bars, docs/perf-log/2026-11-30-massi-lanes.md). */
    const size_t halos = apo__catalog_traits(id) & APO_CAT_T_SIDE_BY_SIDE ? 4 : 16;
    const size_t len = halos * (apo__catalog_halo(id, params) + 1);
    const size_t least = halos == 4 ? 2048 : 4096;
    return len > least ? len : least;
}

/* The kernels measured slower on 8 lanes than on 4 on an AMD or Intel CPU (the table's
 * APO_CAT_T_AVX2_ZEN4, APO_CAT_T_AVX2_ZEN5 and APO_CAT_T_AVX2_INTEL, catalog_table.h, which cite
 * the measurements):
 * the others' loops are widened by the compiler and keep the widest. */
int apo__catalog_path_on(apo__cat_id id, int widest, int avx512_kind) {
    const int traits = apo__catalog_traits(id);
    const int narrower = avx512_kind == APO_AVX512_AMD_HALVED  ? traits & APO_CAT_T_AVX2_ZEN4
                         : avx512_kind == APO_AVX512_AMD_WHOLE ? traits & APO_CAT_T_AVX2_ZEN5
                         : avx512_kind == APO_AVX512_INTEL     ? traits & APO_CAT_T_AVX2_INTEL
                                                               : 0;
    if (widest == APO_CPU_ISA_AVX512 && narrower && apo__cpu_isa_supported(APO_CPU_ISA_AVX2))
        return APO_CPU_ISA_AVX2;
    return widest;
}

int apo__catalog_path(apo__cat_id id, int widest) {
    return apo__catalog_path_on(id, widest, (int)apo__cpu_avx512_kind());
}

int apo__catalog_round_path_on(apo__cat_id id, size_t tiles, int isa, int avx512_kind) {
    if (isa == APO_CPU_ISA_AVX512 &&
        (avx512_kind == APO_AVX512_INTEL || avx512_kind == APO_AVX512_AMD_HALVED) &&
        tiles <= APO_CAT_NARROW_ROUND && apo__catalog_rounds(id) &&
        apo__cpu_isa_supported(APO_CPU_ISA_AVX2))
        return APO_CPU_ISA_AVX2;
    return isa;
}

int apo__catalog_round_path(apo__cat_id id, size_t tiles, int isa) {
    return apo__catalog_round_path_on(id, tiles, isa, (int)apo__cpu_avx512_kind());
}

void apo__cpu_catalog_tile(apo__cat_id id, const apo__cat_io *io, size_t begin, size_t end) {
    assert(io != NULL && begin < end && id < APO_CAT_COUNT);
    apo__catalog_tile_sse2(id, io, begin, end);
}

void apo__cpu_catalog_tile_on(apo__cat_id id, const apo__cat_io *io, size_t begin, size_t end,
                              int isa) {
    const apo__tile_span one = {0, begin, end};
    apo__cpu_catalog_tiles_on(id, io, &one, 1, isa);
}

/* The group functions of lanes_dispatch.c take tiles of rows of a matrix; io is one row, so
 * its tiles go as row 0 of a one-row call, a chunk at a time: tiles[from .. from + n) into
 * row[], returning the row's length they need (their last end). */
enum { APO_ROW_CHUNK = 64 };
static size_t one_row_spans(const apo__tile_span *tiles, size_t from, size_t n,
                            apo__tile_span *row) {
    size_t cols = 0;
    for (size_t j = 0; j < n; j++) {
        row[j] = (apo__tile_span){0, tiles[from + j].begin, tiles[from + j].end};
        cols = row[j].end > cols ? row[j].end : cols;
    }
    return cols;
}

/*
 * The catalog kernels whose tile body is a built-in kernel's, whose row of tiles takes that
 * kernel's lanes, in chunks of APO_ROW_CHUNK tiles, each tile with the bits of its scalar body,
 * where the catalog's path would run them one by one:
 * - bbands at matype 0 is bollinger's body itself (bbands_tile.h): bollinger's rounds;
 * - macdfix is macd's body at fixed rates (macdfix_tile.h): macd's rounds of lanes, and a lone
 *   tile macd's cut into pieces in lanes, checked bit for bit (apo__cpu_macdfix_tiles). A row
 *   of 1e4 bars is one tile: 0.75 of TA-Lib 0.8.1 to 1.03 on the Zen 3 VM. A row of 1e6 bars
 *   went from 3.4-3.6 ms one tile at a time to 1.4-2.0 in rounds on the Zen 3 VM
 *   (docs/perf-log/2026-12-06-zen3-finite-bits.md), where on 2026-11-29 its rounds had measured
 *   5.6 ms against 4.6 (docs/perf-log/2026-11-29-bbands-macdext-price-oscillators.md).
 */
static void builtin_body_tiles(apo__cat_id id, const apo__cat_io *io, const apo__tile_span *tiles,
                               size_t count, int isa) {
    apo__tile_span row[APO_ROW_CHUNK];
    for (size_t k = 0; k < count; k += APO_ROW_CHUNK) {
        const size_t n = count - k < APO_ROW_CHUNK ? count - k : APO_ROW_CHUNK;
        const size_t cols = one_row_spans(tiles, k, n, row);
        if (id == APO_CAT_BBANDS)
            apo__cpu_bollinger_tiles(io->in[0], 1, cols, row, n, (size_t)io->p[0], io->p[1],
                                     io->p[2], io->out[0], io->out[1], io->out[2],
                                     (apo__cpu_isa)isa);
        else
            apo__cpu_macdfix_tiles(io->in[0], 1, cols, row, n, (size_t)io->p[0], io->h, io->out[0],
                                   io->out[1], io->out[2], (apo__cpu_isa)isa);
    }
}

void apo__cpu_catalog_tiles_on(apo__cat_id id, const apo__cat_io *io, const apo__tile_span *tiles,
                               size_t count, int isa) {
    assert(io != NULL && id < APO_CAT_COUNT);
    for (size_t k = 0; k < count; k++)
        assert(tiles[k].begin < tiles[k].end);
    if ((id == APO_CAT_BBANDS && (int)io->p[3] == APO_MA_SMA && count > 1) ||
        id == APO_CAT_MACDFIX) {
        builtin_body_tiles(id, io, tiles, count, isa);
        return;
    }
    switch (isa) {
        APO_WIDE_PATH_CASES(apo__catalog_tiles, id, io, tiles, count)
    default:
        apo__catalog_tiles_sse2(id, io, tiles, count);
        return;
    }
}

size_t apo__cpu_catalog_cut_tile(apo__cat_id id, const apo__cat_io *io, size_t begin, size_t end,
                                 int isa) {
    assert(io != NULL && begin < end && id < APO_CAT_COUNT);
    switch (isa) {
#ifdef APO_HAVE_LANES_AVX512
    case APO_CPU_ISA_AVX512:
        return apo__catalog_cut_avx512(id, io, begin, end);
#endif
#ifdef APO_HAVE_LANES_AVX2
    case APO_CPU_ISA_AVX2:
        return apo__catalog_cut_avx2(id, io, begin, end);
#endif
    default:
        return apo__catalog_cut_sse2(id, io, begin, end);
    }
}

/*
 * What a stream keeps per series for a kernel whose body is a start and a run: the current
 * tile's run and the next tile's, started ahead. A tile starts by running its warm-up (the
 * h bars before it), which is most of a one-bar update's cost at a tile's first bar; so
 * while the last h bars of a tile arrive, the next tile's run is started at its own origin
 * and taken bar by bar, exactly as its start would take it, and the next tile starts from
 * it. A zeroed state holds no run ahead.
 */
typedef struct cat_resume {
    size_t begin, tile; /* the current tile's start and the tile length */
    int next_ready;
    apo__cat_run cur, next;
} cat_resume;

/* The kernels whose bodies are a start and a run (apo__cat_run): the averages and
 * recurrences a live feed asks for most (kama, adosc and the directional movement's plus_di,
 * minus_di and adx among them), the per-bar differences (mom, roc, trange: their state is the
 * position alone) and the sliding windows whose state is bounded whatever the period (wma, max,
 * min, willr, aroon, cci, var, stddev, zscore, linearreg, linearreg_slope, mvwap, mfi: sums and
 * extremes' indices; var and stddev up to timeperiod 1024 keep the position alone, var_tile.h, and
 * linearreg and linearreg_slope up to 24, linearreg_direct.h; from 25 to 1024 their shifted plain
 * sums and shift, linearreg_plain.h). The
 * stochastics (stoch, stochf) carry the last fastk and slowk values their next means read
 * (stoch_stream.h): each of their outputs is a function of its windows' bars, so those values are
 * the ones the tile body evaluates again from the inputs wherever it starts; at another matype,
 * and kdj, the two averages where both are recurrences (kdj_stream.h). rma, zlema, efi, cvi,
 * rvi, kc, ha, and apo, ppo and pvo at two EMAs carry their recurrences (apo_stream.h), and ma
 * its kind's run (ma_stream.h), and fosc tsf's a bar behind its positions (fosc_tile.h). correl and
 * beta are a start and a run too, of a state of their own (apo__pair_run, pair_sums.h: five
 * double-double sums; beta up to timeperiod 32 and correl up to 512 the position alone,
 * pair_direct.h, correl_tile.h). bbands keeps a state of its own (OWN: bollinger's cursor at
 * matype 0, ma's run of its middle band at the others, bbands_stream.h), and so do stochrsi and
 * macdext (their generators and averages, stochrsi_tile.h, macdext_tile.h) and adxr (its two
 * recurrences, dmi_tile.h). The others (massi) re-run their tile from its start at each
 * update. */
size_t apo__catalog_resume_size(apo__cat_id id) {
#define APO__RESUME_SIZE_RUN(ID, name) sizeof(cat_resume)
#define APO__RESUME_SIZE_POSITION(ID, name) sizeof(cat_resume)
#define APO__RESUME_SIZE_PAIR(ID, name) sizeof(apo__pair_run)
/* The running sums carry their run from the series' first bar instead (catalog.h,
 * apo__catalog_carries): a few doubles, nothing of the tile. */
#define APO__RESUME_SIZE_CARRY(ID, name) APO_##ID##_CARRY * sizeof(double)
#define APO__RESUME_SIZE_OWN(ID, name) sizeof(apo__##name##_stream)
#define APO__RESUME_SIZE_NONE(ID, name) 0
    switch (id) {
#define APO__CAT_RESUME(ID, name, room, inputs, outputs, par, lb, halo, stream, ...)               \
    case APO_CAT_##ID:                                                                             \
        return APO__RESUME_SIZE_##stream(ID, name);
        APO_CATALOG(APO__CAT_RESUME)
#undef APO__CAT_RESUME
    default:
        return 0;
    }
}

/* 1 for the recurrences, whose start reads nothing and whose next tile's run can be taken
 * ahead (apo__cpu_catalog_resume; APO_CAT_T_AHEAD). A window's start reads the window before
 * its tile and costs one window at most; a per-bar difference has no warm-up. */
static int runs_ahead(apo__cat_id id) { return (apo__catalog_traits(id) & APO_CAT_T_AHEAD) != 0; }

/* The bytes of a state of a kernel's own that a stream asks for ahead of a piece (two lines). */
#define APO__OWN_HOT 128

/* What a stream keeps for each kernel: its row's stream column (catalog_table.h). */
enum {
    APO__STREAM_RUN,
    APO__STREAM_POSITION,
    APO__STREAM_PAIR,
    APO__STREAM_CARRY,
    APO__STREAM_OWN,
    APO__STREAM_NONE
};
static int stream_of(apo__cat_id id) {
    switch (id) {
#define APO__CAT_STREAM(ID, name, room, inputs, outputs, par, lb, halo, stream, ...)               \
    case APO_CAT_##ID:                                                                             \
        return APO__STREAM_##stream;
        APO_CATALOG(APO__CAT_STREAM)
#undef APO__CAT_STREAM
    default:
        return APO__STREAM_NONE;
    }
}

/* A piece within a tile reads the tile's start and length, next_ready and the current run,
 * which lead the state: two cache lines of a state aligned to 64 bytes (112 bytes), where the
 * run ahead after them took the piece's reads to three lines and a stream's hints to four
 * (the whole state). The run ahead is read only in a tile's last h bars. A state of a kernel's
 * own (OWN) is read from its start, its first two lines at least (bbands' whole cursor); the
 * rest of a larger one (stochrsi's generators, some 7 KB; macdext's, 18 KB) is read where its
 * piece takes it, and asked for whole it would queue a hundred misses a series. */
size_t apo__catalog_resume_hot_size(apo__cat_id id) {
    const int stream = stream_of(id);
    if (stream == APO__STREAM_RUN || stream == APO__STREAM_POSITION)
        return offsetof(cat_resume, next);
    const size_t size = apo__catalog_resume_size(id);
    if (stream == APO__STREAM_OWN && size > APO__OWN_HOT)
        return APO__OWN_HOT;
    return size;
}

/* A stream's start of kernel id's tile at `begin`: a RUN body's own (apo__<name>_stream_start,
 * catalog_table.h); a POSITION kernel (mom, roc, trange) computes each position
 * from the samples of its own windows alone, so its state is the position. */
static void run_start(apo__cat_id id, const apo__cat_io *io, size_t begin, apo__cat_run *r) {
#define APO__START_RUN(name) apo__##name##_stream_start(io, begin, r);
#define APO__START_POSITION(name) apo__cat_run_from(r, begin);
#define APO__START_PAIR(name) apo__cat_run_from(r, begin);
#define APO__START_CARRY(name) apo__cat_run_from(r, begin);
#define APO__START_OWN(name) apo__cat_run_from(r, begin);
#define APO__START_NONE(name) apo__cat_run_from(r, begin);
    switch (id) {
#define APO__CAT_START(ID, name, room, inputs, outputs, par, lb, halo, stream, ...)                \
    case APO_CAT_##ID:                                                                             \
        APO__START_##stream(name) break;
        APO_CATALOG(APO__CAT_START)
#undef APO__CAT_START
    default:
        apo__cat_run_from(r, begin);
        break;
    }
}

/* The run of a stream's piece to `end`: a RUN body's own (apo__<name>_stream_run); a POSITION
 * kernel's tile body over the new positions performs, position by position, what the whole
 * tile does at them. */
void apo__catalog_run_to(apo__cat_id id, const apo__cat_io *io, size_t begin, size_t end,
                         apo__cat_run *r) {
#define APO__RUN_RUN(name) apo__##name##_stream_run(io, begin, end, r);
#define APO__RUN_BY_POSITIONS                                                                      \
    if (end > r->t) {                                                                              \
        apo__cpu_catalog_tile(id, io, r->t, end);                                                  \
        r->t = end;                                                                                \
    }
#define APO__RUN_POSITION(name) APO__RUN_BY_POSITIONS
#define APO__RUN_PAIR(name) APO__RUN_BY_POSITIONS
#define APO__RUN_CARRY(name) APO__RUN_BY_POSITIONS
#define APO__RUN_OWN(name) APO__RUN_BY_POSITIONS
#define APO__RUN_NONE(name) APO__RUN_BY_POSITIONS
    switch (id) {
#define APO__CAT_RUN(ID, name, room, inputs, outputs, par, lb, halo, stream, ...)                  \
    case APO_CAT_##ID:                                                                             \
        APO__RUN_##stream(name) break;
        APO_CATALOG(APO__CAT_RUN)
#undef APO__CAT_RUN
    default:
        break;
    }
}

/* The pieces of n series of kernel id side by side on path `isa` (catalog_entry.h). */
static void lanes_on(apo__cat_id id, const apo__cat_io *io, const size_t *begins,
                     const size_t *stops, apo__cat_run *const *runs, size_t n, int isa) {
    switch (isa) {
        APO_WIDE_PATH_CASES(apo__catalog_resume_lanes, id, io, begins, stops, runs, n)
    default:
        apo__catalog_resume_lanes_sse2(id, io, begins, stops, runs, n);
        return;
    }
}

/* Whether kernel id's piece that goes on to `stop` in the tile of `rs` also takes the next
 * tile's run ahead (apo__cpu_catalog_resume): the recurrences' last h bars of a tile. */
static int piece_runs_ahead(apo__cat_id id, const apo__cat_io *io, const cat_resume *rs,
                            size_t stop) {
    const size_t next_begin = rs->begin + rs->tile;
    return runs_ahead(id) && stop <= next_begin && next_begin > io->h && stop > next_begin - io->h;
}

void apo__cpu_catalog_resume_lanes(apo__cat_id id, const apo__cat_io *io, void *const *states,
                                   const size_t *begins, const size_t *stops, size_t n, int isa) {
    assert(n <= APO_CAT_RESUME_LANES);
    /* A piece that also runs the next tile ahead goes alone; the others' runs side by side
     * (their piece is their run alone). */
    apo__cat_io lane_io[APO_CAT_RESUME_LANES];
    apo__cat_run *runs[APO_CAT_RESUME_LANES];
    size_t lane_begins[APO_CAT_RESUME_LANES], lane_stops[APO_CAT_RESUME_LANES], m = 0;
    int alone = 0;
    for (size_t l = 0; l < n; l++)
        alone |= piece_runs_ahead(id, &io[l], states[l], stops[l]);
    if (!alone) {
        for (size_t l = 0; l < n; l++)
            runs[l] = &((cat_resume *)states[l])->cur;
        lanes_on(id, io, begins, stops, runs, n, isa);
        return;
    }
    for (size_t l = 0; l < n; l++) {
        if (piece_runs_ahead(id, &io[l], states[l], stops[l])) {
            apo__cpu_catalog_resume(id, &io[l], states[l], 0, begins[l], stops[l]);
            continue;
        }
        lane_io[m] = io[l];
        lane_begins[m] = begins[l];
        lane_stops[m] = stops[l];
        runs[m++] = &((cat_resume *)states[l])->cur;
    }
    if (m > 0)
        lanes_on(id, lane_io, lane_begins, lane_stops, runs, m, isa);
}

/* correl's and beta's piece of a tile (PAIR). Their start reads the window before the tile,
 * which is not all there until the tile's first bar, so, as the other windows, they start
 * when their tile does and run nothing ahead. */
static void pair_resume(apo__cat_id id, const apo__cat_io *io, apo__pair_run *r, int fresh,
                        size_t begin, size_t stop) {
#define APO__PAIR_RUN(name)
#define APO__PAIR_POSITION(name)
#define APO__PAIR_CARRY(name)
#define APO__PAIR_OWN(name)
#define APO__PAIR_NONE(name)
#define APO__PAIR_PAIR(name)                                                                       \
    if (fresh)                                                                                     \
        apo__##name##_start(io, begin, r);                                                         \
    apo__##name##_run(io, stop, r);
    switch (id) {
#define APO__CAT_PAIR(ID, name, room, inputs, outputs, par, lb, halo, stream, ...)                 \
    case APO_CAT_##ID:                                                                             \
        APO__PAIR_##stream(name) break;
        APO_CATALOG(APO__CAT_PAIR)
#undef APO__CAT_PAIR
    default:
        break;
    }
}

/* The piece of a kernel whose stream keeps a state of its own (OWN: apo__<name>_stream, resumed
 * by apo__<name>_resume; bbands, bbands_stream.h; stochrsi, macdext and adxr, their tile
 * headers). Such a kernel runs nothing ahead. */
static void own_resume(apo__cat_id id, const apo__cat_io *io, void *state, int fresh, size_t begin,
                       size_t stop) {
#define APO__OWN_RUN(name)
#define APO__OWN_POSITION(name)
#define APO__OWN_PAIR(name)
#define APO__OWN_CARRY(name)
#define APO__OWN_NONE(name)
#define APO__OWN_OWN(name) apo__##name##_resume(io, state, fresh, begin, stop);
    switch (id) {
#define APO__CAT_OWN(ID, name, room, inputs, outputs, par, lb, halo, stream, ...)                  \
    case APO_CAT_##ID:                                                                             \
        APO__OWN_##stream(name) break;
        APO_CATALOG(APO__CAT_OWN)
#undef APO__CAT_OWN
    default:
        break;
    }
}

void apo__cpu_catalog_resume(apo__cat_id id, const apo__cat_io *io, void *state, int fresh,
                             size_t begin, size_t stop) {
    /* A stream resumes only a kernel whose resume_size is not 0 (runtime/streaming/stream.c);
     * asking here again cost a call a series of every one-bar update (b_ndebug is false). */
    assert(io != NULL && state != NULL);
    if (apo__catalog_carries(id)) {
        /* No tile to start: the state is the run's at `begin`, wherever that falls. */
        (void)fresh;
        switch (id) {
#define APO__CARRY_RUN(name)
#define APO__CARRY_POSITION(name)
#define APO__CARRY_PAIR(name)
#define APO__CARRY_NONE(name)
#define APO__CARRY_OWN(name)
#define APO__CARRY_CARRY(name) apo__##name##_carry(io, state, begin, stop);
#define APO__CAT_CARRY(ID, name, room, inputs, outputs, par, lb, halo, stream, ...)                \
    case APO_CAT_##ID:                                                                             \
        APO__CARRY_##stream(name) break;
            APO_CATALOG(APO__CAT_CARRY)
#undef APO__CAT_CARRY
        default:
            break;
        }
        return;
    }
    if (stream_of(id) == APO__STREAM_PAIR) {
        pair_resume(id, io, state, fresh, begin, stop);
        return;
    }
    if (stream_of(id) == APO__STREAM_OWN) {
        own_resume(id, io, state, fresh, begin, stop);
        return;
    }
    cat_resume *rs = state;
    if (fresh) {
        const int ahead = rs->next_ready && rs->begin + rs->tile == begin && rs->next.t == begin;
        if (ahead)
            rs->cur = rs->next;
        else
            run_start(id, io, begin, &rs->cur);
        rs->begin = begin;
        rs->tile = apo__catalog_tile_len(id, io->p);
        rs->next_ready = 0;
    }
    apo__catalog_run_to(id, io, begin, stop, &rs->cur);
    /* The next tile's run, up to the bars there are, for the recurrences: their start reads
     * nothing and their origin is before their tile's start (the halo is at least 1 and the
     * tile longer than it), so the start and the run write no output, every position they
     * pass being before next_begin. A window's start reads the window before its tile,
     * which is not all there yet, and costs one window: it starts when its tile does. */
    if (piece_runs_ahead(id, io, rs, stop)) {
        const size_t next_begin = rs->begin + rs->tile;
        if (!rs->next_ready)
            run_start(id, io, next_begin, &rs->next);
        rs->next_ready = 1;
        apo__catalog_run_to(id, io, next_begin, stop, &rs->next);
    }
}
