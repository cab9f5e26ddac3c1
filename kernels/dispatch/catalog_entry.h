/*
 * catalog_entry.h: the CPU's catalog tile call, apo__catalog_tile_<path>, for the vector path
 * whose file includes it (catalog_sse2.c, catalog_avx2.c, catalog_avx512.c, each compiled
 * with its path's flags, kernels/meson.build). The function is the same source on every
 * path: the family's switch over the APO_HD tile bodies. Only the compiler's vectors differ,
 * so a loop that vectorizes (mom's) uses 2, 4 or 8 lanes; a lane performs the
 * scalar IEEE operations in the scalar order (-ffp-contract=off covers vector code too), so
 * every path gives the same bits (docs/kernels-vector-paths.md, "Vector paths").
 *
 * The including file defines APO_CATALOG_PATH_NAME(name), which appends its path's suffix.
 */
#include "adosc_lanes.h"
#include "adosc_pairs.h"
#include "atr_lanes.h"
#include "atr_stream_lanes.h"
#include "averages_tiles.h"
#include "candles_tiles.h"
#include "catalog_dispatch.h"
#include "catalog_paths.h"
#include "catalog_rounds.h"
#include "cci_stream_lanes.h"
#include "cycles_tiles.h"
#include "dm_lanes.h"
#include "dmi_lanes.h"
#include "dmi_stream_lanes.h"
#include "ema_stream_lanes.h"
#include "mfi_stream_lanes.h"
#include "oscillators_tiles.h"
#include "rsi_lanes.h"
#include "rsi_stream_lanes.h"
#include "statistics_tiles.h"
#include "stoch_stream_lanes.h"
#include "transforms_tiles.h"
#include "trend_tiles.h"
#include "volume_tiles.h"

void APO_CATALOG_PATH_NAME(apo__catalog_tile)(apo__cat_id id, const apo__cat_io *io, size_t begin,
                                              size_t end) {
    switch (apo__catalog_family(id)) {
#define APO__CATALOG_FAMILY_CASE(room, ID)                                                         \
    case APO_CAT_##ID:                                                                             \
        apo__##room##_tile((int)id, io, begin, end);                                               \
        break;
        APO_CATALOG_ROOMS(APO__CATALOG_FAMILY_CASE)
#undef APO__CATALOG_FAMILY_CASE
    }
}

/* A lone adxr tile at its row's start, [0, end): adx's lone tile over it (cut into pieces in
 * the lanes where that pays, each checked bit for bit: catalog_split.h) writes ADX there, and
 * ADXR is taken from it in place, from the tile's end back. Both start at bar 0 with empty
 * state, so adx's outputs are adxr's leading recurrence's (canonical where NaN, which only
 * meets a NaN sum), and the lagging one's output is the leading one's p - 1 bars back
 * (dmi_tile.h), NaN at bar 0 and before: the tile's bits. adx's halo is adxr's less p - 1. */
static void APO_CATALOG_PATH_NAME(apo__adxr_from_adx)(const apo__cat_io *io, size_t end) {
    const size_t lag = (size_t)io->p[0] - 1;
    apo__cat_io adx = *io;
    adx.h = io->h - lag;
    APO_CATALOG_PATH_NAME(apo__catalog_cut)(APO_CAT_ADX, &adx, 0, end);
    double *out = io->out[0];
    for (size_t t = end; t-- > 0;)
        out[t] = apo__canonical_nan(((t >= lag ? out[t - lag] : (double)NAN) + out[t]) / 2.0);
}

/* Consecutive tiles of one row (the kernels with a round: apo__catalog_rounds, catalog_paths.h,
 * which names each branch's kernel below): the recurrences with a round of lanes (catalog_lanes.h)
 * take them APO_TILE_LANES at a time (a lone one cut into pieces in the lanes where that pays,
 * catalog_cut_entry.h), adosc a short row's in a round (adosc_lanes.h) and a longer
 * row's two at a time (adosc_pairs.h), the others one by one; every tile gets the bits of the
 * call above. Any other lone tile gains nothing from lanes of copies, so it takes the call above
 * too (adosc's pairs hand a lone tile to its body as well). */
void APO_CATALOG_PATH_NAME(apo__catalog_tiles)(apo__cat_id id, const apo__cat_io *io,
                                               const apo__tile_span *tiles, size_t count) {
    const int adosc_rounds = id == APO_CAT_ADOSC && apo__adosc_rounds_pay(tiles, count);
    if (id == APO_CAT_ADOSC && !adosc_rounds) {
        apo__adosc_pairs(io, tiles, count);
        return;
    }
    /* dx's, the DMs', rma's and the EMA chains' tiles are sixteen halos long, not the WILDER
     * trait's five warm-ups (catalog_paths.h, apo__catalog_laned): a row of 1e4 bars is one long
     * tile and a short one, whose round would leave most of the long one to its serial rest. A
     * round short of lanes is cut tile by tile instead (each where that pays, else its scalar
     * body); trix's tiles are not cut (apo__catalog_cuts), so its short rounds stay rounds. */
    const int cut_short_rounds = apo__catalog_cuts(id) && !apo__catalog_wilder(id);
    for (size_t k = 0; k < count;) {
        const size_t n = count - k < APO_TILE_LANES ? count - k : APO_TILE_LANES;
        if (cut_short_rounds && n < APO_TILE_LANES) {
            for (size_t j = k; j < k + n; j++)
                APO_CATALOG_PATH_NAME(apo__catalog_cut)(id, io, tiles[j].begin, tiles[j].end);
        } else if (n > 1 && apo__catalog_edge_round(id, io, tiles + k, n, NULL)) {
            /* the round of lanes ran (catalog_rounds.h) */
        } else if (n > 1 && id == APO_CAT_ADXR) {
            apo__adxr_round(io, tiles + k, n);
        } else if (n > 1 && id == APO_CAT_TRIX) {
            apo__trix_round(io, tiles + k, n);
        } else if (n > 1 && id == APO_CAT_CVI) {
            apo__cvi_round(io, tiles + k, n);
        } else if (n > 1 && id == APO_CAT_MASSI && apo__massi_round(io, tiles + k, n)) {
            /* the round of lanes ran (massi_tile.h) */
        } else if (n > 1 && adosc_rounds) {
            apo__adosc_round(io, tiles + k, n);
        } else if (n == 1 && id == APO_CAT_ADXR && tiles[k].begin == 0 &&
                   io->h >= (size_t)io->p[0] - 1) {
            APO_CATALOG_PATH_NAME(apo__adxr_from_adx)(io, tiles[k].end);
        } else if (n == 1 && apo__catalog_cuts(id)) {
            APO_CATALOG_PATH_NAME(apo__catalog_cut)(id, io, tiles[k].begin, tiles[k].end);
        } else {
            for (size_t j = k; j < k + n; j++)
                APO_CATALOG_PATH_NAME(apo__catalog_tile)(id, io, tiles[j].begin, tiles[j].end);
        }
        k += n;
    }
}

_Static_assert(APO_STOCH_LANES >= APO_CAT_RESUME_LANES, "stoch's lanes hold a call's series");
_Static_assert(APO_WILDER_OSC_LANES >= APO_CAT_RESUME_LANES, "rsi's lanes hold a call's series");
_Static_assert(APO_CCI_LANES >= APO_CAT_RESUME_LANES, "cci's lanes hold a call's series");
_Static_assert(APO_MFI_LANES >= APO_CAT_RESUME_LANES, "mfi's lanes hold a call's series");
_Static_assert(APO_ATR_LANES >= APO_CAT_RESUME_LANES, "atr's lanes hold a call's series");
_Static_assert(APO_EMA_STREAM_LANES >= APO_CAT_RESUME_LANES, "ema's lanes hold a call's series");
_Static_assert(APO_DMI_LANES >= APO_CAT_RESUME_LANES, "the DMI's lanes hold a call's series");

/* A stream's one-bar pieces of kernel id for several series of one stream, the series in this
 * path's vector lanes: stoch's (stoch_stream_lanes.h), rsi's and cmo's (rsi_stream_lanes.h),
 * cci's (cci_stream_lanes.h), mfi's (mfi_stream_lanes.h), atr's and natr's
 * (atr_stream_lanes.h), ema's (ema_stream_lanes.h), adx's, dx's, plus_di's and minus_di's
 * (dmi_stream_lanes.h); any other kernel's series run one after another. */
void APO_CATALOG_PATH_NAME(apo__catalog_resume_lanes)(apo__cat_id id, const apo__cat_io *io,
                                                      const size_t *begins, const size_t *ends,
                                                      apo__cat_run *const *runs, size_t n) {
    switch (id) {
    case APO_CAT_STOCH:
        apo__stoch_run_lanes(io, begins, ends, runs, n);
        return;
    case APO_CAT_RSI:
        apo__wilder_osc_run_lanes(io, begins, ends, runs, n, 0);
        return;
    case APO_CAT_CMO:
        apo__wilder_osc_run_lanes(io, begins, ends, runs, n, 1);
        return;
    case APO_CAT_CCI:
        apo__cci_run_lanes(io, begins, ends, runs, n);
        return;
    case APO_CAT_MFI:
        apo__mfi_run_lanes(io, begins, ends, runs, n);
        return;
    case APO_CAT_ATR:
        apo__atr_run_lanes(io, begins, ends, runs, n, 0);
        return;
    case APO_CAT_NATR:
        apo__atr_run_lanes(io, begins, ends, runs, n, 1);
        return;
    case APO_CAT_EMA:
        apo__ema_run_lanes(io, begins, ends, runs, n);
        return;
    case APO_CAT_ADX:
        apo__dmi_run_lanes(io, begins, ends, runs, n, APO_DMI_ADX);
        return;
    case APO_CAT_DX:
        apo__dmi_run_lanes(io, begins, ends, runs, n, APO_DMI_DX);
        return;
    case APO_CAT_PLUS_DI:
        apo__dmi_run_lanes(io, begins, ends, runs, n, APO_DMI_PLUS);
        return;
    case APO_CAT_MINUS_DI:
        apo__dmi_run_lanes(io, begins, ends, runs, n, APO_DMI_MINUS);
        return;
    default: /* each series' run alone */
        for (size_t k = 0; k < n; k++)
            apo__catalog_run_to(id, &io[k], begins[k], ends[k], runs[k]);
        return;
    }
}
