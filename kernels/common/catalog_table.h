/*
 * catalog_table.h: every catalog kernel once (docs/kernels.md, "The catalog"). Each row of
 * APO_CATALOG gives:
 *
 *   ID        the id's suffix: the row is apo__cat_id APO_CAT_<ID>
 *   name      TA-Lib's function name in lower case; its tile body is apo__<name>_tile in
 *             kernels/<room>/ (and, for a stream that carries, apo__<name>_carry)
 *   room      the family's room of kernels/, which holds the body and runs it on a GPU
 *   inputs    (count, names...): the inputs in the order of apo_workload.inputs
 *   outputs   (count, names...): the outputs, in TA-Lib's order
 *   params    (count, specs...): {name, default, min, max, integer}, TA-Lib's defaults and
 *             bounds, in TA-Lib's order (APO_CAT_NO_PARAMS for none)
 *   lookback  TA-Lib's lookback (the NaN lead) as an expression of APO_CAT_P(i), the i-th
 *             parameter as a size_t
 *   halo      what a tile reads before `begin` beyond the lookback: WINDOW (nothing more),
 *             EMA(m) and WILDER(m) (m times the steps an EMA of rate 2/(p+1), Wilder's average
 *             of rate 1/p, takes to forget its seed), or the kernel's own rule (VAR, CORREL,
 *             BETA, KAMA, ADOSC); dispatch/catalog_dispatch.c defines each
 *   stream    what a stream keeps to resume a tile: RUN (the body is a start and a run,
 *             apo__cat_run, which its tile header gives as apo__<name>_stream_start and
 *             apo__<name>_stream_run), POSITION (the position alone: each output is evaluated
 *             from its own windows, so the tile body over the new positions is what the whole
 *             tile does there), PAIR (apo__<name>_start and apo__<name>_run of pair_sums.h's
 *             run: correl, beta), CARRY (a running sum from the series' first bar, of
 *             apo__<name>_carry's APO_<ID>_CARRY doubles), OWN (a state of the kernel's own,
 *             apo__<name>_stream, that apo__<name>_resume takes from piece to piece: bbands,
 *             bbands_stream.h; stochrsi, macdext, adxr, their tile headers), or NONE (the
 *             tile re-runs from its start at each update)
 *   traits    the APO_CAT_T_* flags below, or 0
 *   rule      the halo in words, as `apportion kernels` shows it
 *
 * From these, catalog.h generates apo__cat_id; dispatch/catalog_dispatch.c the families,
 * lookbacks, halos, tile lengths, the streams' resume and the vector path each kernel runs
 * on; each room's <room>_tiles.h its switch over its bodies (which the CPU and the room's
 * CUDA launcher <room>.cu share); runtime/catalog/catalog_kernels.c the descriptors, names
 * and the CUDA launcher of each family. The row's place is its id and the order of
 * `apportion kernels`: a new kernel is a new last row.
 *
 * This header includes nothing: the rows are text, and the names they make (the bodies, the
 * carries' sizes) are looked up only where a room above every family expands them.
 */
#ifndef APO_KERNELS_CATALOG_TABLE_H
#define APO_KERNELS_CATALOG_TABLE_H

/* The upper bound of every period, TA-Lib's. */
#define APO_CAT_PERIOD_MAX 100000
#define APO_CAT_PERIOD(def, min)                                                                   \
    { "timeperiod", def, min, APO_CAT_PERIOD_MAX, 1 }
#define APO_CAT_NO_PARAMS (0, {"", 0, 0, 0, 0})
#define APO_CAT_CLOSE (1, "close")
#define APO_CAT_HLC (3, "high", "low", "close")
#define APO_CAT_XY (2, "x", "y")
#define APO_CAT_HLCV (4, "high", "low", "close", "volume")
#define APO_CAT_WILDER_RULE                                                                        \
    "timeperiod + the steps Wilder's average takes to forget its seed (to 2^-64)"
#define APO_CAT_BLOCK_RULE "(a tile reaches back to its block's first window)"
#define APO_CAT_WHOLE_ROW_RULE                                                                     \
    "the whole row: a running sum from the first bar, which every tile re-runs"
#define APO_CAT_HL (2, "high", "low")
/* plus_dm's and minus_dm's lookback (TA-Lib's): the seed's p - 1 moves, and the one move of the
 * raw DM at p = 1. */
#define APO_CAT_DM_LOOKBACK (APO_CAT_P(0) > 1 ? APO_CAT_P(0) - 1 : 1)
#define APO_CAT_DM_RULE                                                                            \
    "timeperiod - 1 (1 at timeperiod 1) + the steps Wilder's average takes to forget its seed "    \
    "(to 2^-64)"
/* The largest of three sizes (ultosc's lookback). */
#define APO_CAT_MAX3(a, b, c) ((a) > (b) ? ((a) > (c) ? (a) : (c)) : ((b) > (c) ? (b) : (c)))
#define APO_CAT_HT_RULE                                                                            \
    "the whole row: an adaptive recurrence from the first bar, which every tile re-runs"
#define APO_CAT_HT_TRAITS (APO_CAT_T_JOIN | APO_CAT_T_WHOLE_ROW)
/* TA-Lib's candlestick patterns (kernels/candles/): the bars' four prices, TA-Lib's penetration
 * (its bounds 0 .. TA_REAL_MAX), and each bar's window of candles and averages. */
#define APO_CAT_OHLC (4, "open", "high", "low", "close")
#define APO_CAT_PENETRATION(def)                                                                   \
    { "penetration", def, 0, 3e37, 0 }
#define APO_CAT_CANDLE_RULE "the lookback: the pattern's candles and its settings' averages"
#define APO_CAT_PATH_RULE                                                                          \
    "the whole row: a path (position, stop, extreme point) from the first bar, which every tile "  \
    "re-runs"
#define APO_CAT_INDEX_RULE                                                                         \
    "the whole row: a running product from the first bar, which every tile re-runs"
/* apo's and ppo's parameters (TA-Lib 0.8's: its APO and PPO default to matype 1, EMA), lookback
 * (the MA's at the longer period: TA-Lib swaps the periods where slowperiod < fastperiod) and halo
 * in words. */
#define APO_CAT_PO_PARAMS                                                                          \
    (3, {"fastperiod", 12, 2, APO_CAT_PERIOD_MAX, 1},                                              \
     {"slowperiod", 26, 2, APO_CAT_PERIOD_MAX, 1}, {"matype", 1, 0, 8, 1})
#define APO_CAT_PO_LOOKBACK                                                                        \
    apo__ma_lookback((int)APO_CAT_P(2), APO_CAT_P(0) > APO_CAT_P(1) ? APO_CAT_P(0) : APO_CAT_P(1))
#define APO_CAT_PO_RULE "the halo of the matype's kernel (sma, ema, ...) at the longer period"
/* maxindex, minindex and minmaxindex (transforms/index_tile.h): TA-Lib's tracking of the
 * extreme replayed from the row's first window; a stream carries it with the last samples its
 * scans read, so it takes periods up to this (a longer one is refused at its creation). */
#define APO_CAT_TRACKER_RULE                                                                       \
    "the whole row: TA-Lib's tracking of the extreme from the first window, which every tile "     \
    "re-runs"
#define APO_INDEX_STREAM_PERIOD_MAX 251
/* TA-Lib 0.8's newer momentum kernels (docs/kernels/momentum.md, "TA-Lib 0.8's newer momentum
 * indicators"): their parameters (TA-Lib's names, defaults and bounds) and lookbacks. ao and ac
 * take the periods as given (no swap): the longer one's window sets the lookback. */
#define APO_CAT_AO_PARAMS                                                                          \
    (2, {"fastperiod", 5, 2, APO_CAT_PERIOD_MAX, 1}, {"slowperiod", 34, 2, APO_CAT_PERIOD_MAX, 1})
#define APO_CAT_AC_PARAMS                                                                          \
    (3, {"fastperiod", 5, 2, APO_CAT_PERIOD_MAX, 1}, {"slowperiod", 34, 2, APO_CAT_PERIOD_MAX, 1}, \
     {"signalperiod", 5, 2, APO_CAT_PERIOD_MAX, 1})
#define APO_CAT_AO_LOOKBACK ((APO_CAT_P(0) > APO_CAT_P(1) ? APO_CAT_P(0) : APO_CAT_P(1)) - 1)
#define APO_CAT_DPO_LOOKBACK                                                                       \
    (APO_CAT_P(0) - 1 > APO_CAT_P(0) / 2 + 1 ? APO_CAT_P(0) - 1 : APO_CAT_P(0) / 2 + 1)
#define APO_CAT_COPPOCK_PARAMS                                                                     \
    (3, {"wmaperiod", 10, 1, APO_CAT_PERIOD_MAX, 1}, {"roc1period", 11, 1, APO_CAT_PERIOD_MAX, 1}, \
     {"roc2period", 14, 1, APO_CAT_PERIOD_MAX, 1})
#define APO_CAT_TSI_PARAMS                                                                         \
    (2, {"firstperiod", 25, 2, APO_CAT_PERIOD_MAX, 1},                                             \
     {"secondperiod", 13, 2, APO_CAT_PERIOD_MAX, 1})
/* macdext's parameters (TA-Lib's), lookback (macdext_tile.h: TA-Lib's, the larger of the two
 * averages' lookbacks plus the signal's) and halo in words. */
#define APO_CAT_MACDEXT_PARAMS                                                                     \
    (6, {"fastperiod", 12, 2, APO_CAT_PERIOD_MAX, 1}, {"fastmatype", 0, 0, 8, 1},                  \
     {"slowperiod", 26, 2, APO_CAT_PERIOD_MAX, 1}, {"slowmatype", 0, 0, 8, 1},                     \
     {"signalperiod", 9, 1, APO_CAT_PERIOD_MAX, 1}, {"signalmatype", 0, 0, 8, 1})
#define APO_CAT_MACDEXT_LOOKBACK                                                                   \
    apo__macdext_lookback(APO_CAT_P(0), APO_CAT_P(1), APO_CAT_P(2), APO_CAT_P(3), APO_CAT_P(4),    \
                          APO_CAT_P(5))
#define APO_CAT_MACDEXT_RULE                                                                       \
    "twice the largest halo of the three averages' kernels (sma, ema, ...): the signal's "         \
    "warm-up, and the macd line's before it"
/* stochrsi's halo in words (stochrsi_tile.h). */
#define APO_CAT_STOCHRSI_RULE                                                                      \
    "twice the larger of the rsi's halo and fastd's matype kernel's, plus fastk_period - 1"
/* kc's lookback (kc_tile.h, TA-Lib's): the later of its legs' first values, the EMA's at
 * timeperiod - 1 and the ATR's at atrperiod. */
#define APO_CAT_KC_LOOKBACK (APO_CAT_P(0) - 1 > APO_CAT_P(1) ? APO_CAT_P(0) - 1 : APO_CAT_P(1))
/* smi's parameters (TA-Lib's, in its order), lookback (smi_tile.h) and halo in words. */
#define APO_CAT_SMI_PARAMS                                                                         \
    (4, APO_CAT_PERIOD(13, 2), {"fastperiod", 2, 2, APO_CAT_PERIOD_MAX, 1},                        \
     {"slowperiod", 25, 2, APO_CAT_PERIOD_MAX, 1}, {"signalperiod", 9, 2, APO_CAT_PERIOD_MAX, 1})
#define APO_CAT_SMI_LOOKBACK                                                                       \
    ((APO_CAT_P(0) - 1) + (APO_CAT_P(2) - 1) + (APO_CAT_P(1) - 1) + (APO_CAT_P(3) - 1))
#define APO_CAT_SMI_RULE                                                                           \
    "the lookback + the steps each of the slow, fast and signal EMAs takes to forget its seed "    \
    "(to 2^-64), and the slowest's once more for the chain"
/* kdj's parameters (TA-Lib's: its matypes are TA-Lib 0.8's MA_Type, 0 to 13, 13 Wilder's
 * smoothing), lookback (kdj_tile.h: TA-Lib's, stoch's with the averages' own lookbacks) and halo in
 * words. */
#define APO_CAT_KDJ_PARAMS                                                                         \
    (5, {"fastk_period", 9, 1, APO_CAT_PERIOD_MAX, 1},                                             \
     {"slowk_period", 3, 1, APO_CAT_PERIOD_MAX, 1}, {"slowk_matype", 13, 0, 13, 1},                \
     {"slowd_period", 3, 1, APO_CAT_PERIOD_MAX, 1}, {"slowd_matype", 13, 0, 13, 1})
#define APO_CAT_KDJ_LOOKBACK                                                                       \
    ((APO_CAT_P(0) - 1) + apo__kdj_ma_lookback((int)APO_CAT_P(2), APO_CAT_P(1)) +                  \
     apo__kdj_ma_lookback((int)APO_CAT_P(4), APO_CAT_P(3)))
#define APO_CAT_KDJ_RULE                                                                           \
    "the lookback + the steps each average takes to forget its seed (to 2^-64), and the slower's " \
    "once more for the chain"
/* stoch's and stochf's halo in words: their lookback at matype 0 (windows), kdj's rule at another
 * kind (oscillators/stoch_ma.h). */
#define APO_CAT_STOCH_RULE                                                                         \
    "the lookback: fastk_period - 1 and the averages' lookbacks; at a matype other than 0, kdj's " \
    "warm-ups besides"
/* An acceleration factor (SAR's), TA-Lib's bounds: 0 and up. */
#define APO_CAT_ACCELERATION(name, def)                                                            \
    { name, def, 0, 1e300, 0 }

/*
 * Traits:
 *
 * JOIN: consecutive tiles of one row can be computed by one call over their union, each with
 * its bits: the whole-row sums, the kernels that evaluate each position from the samples of
 * its own windows (no state crosses positions), and ema and eri, whose bodies cut the union at
 * the grid (apo__cat_io.tile) and run each tile from its own start.
 * SIDE_BY_SIDE: the body runs a call's tiles side by side (ema_tile.h, massi_tile.h,
 * cvi_tile.h), so its halos overlap and cost a quarter as much: tiles of 4 halos, not 16, and
 * at least 2048 bars, not 4096 (catalog_dispatch.c).
 * WHOLE_ROW: every tile reads its row from the first sample (obv, ad); the runtime hands it
 * whole rows, and its tiles are APO_CAT_WHOLE_ROW_TILE long.
 * WILDER: a Wilder recurrence, whose tiles of a row run as rounds of vector lanes, tiles of
 * five warm-ups, and a lone tile may be cut (dispatch/catalog_split.h).
 * AHEAD: a recurrence whose start reads nothing, so a stream takes the next tile's run ahead
 * while the last bars of a tile arrive (apo__cpu_catalog_resume). kdj at its recurrence kinds,
 * apo, ppo and pvo at two EMAs; at their other kinds their run starts at its tile's first bar
 * and runs nothing ahead (kdj_stream.h, apo_stream.h).
 * AVX2_ZEN4: measured slower on 8 halved lanes than on avx2's 4 on a Zen 4 EPYC, at 1e4 or
 * 1e6 bars, by more than it gained at the other size, in both of the two measurements
 * (docs/perf-log/2026-11-24-catalog-round-4.md, "Eight halved lanes or four"); min and mfi
 * swapped sides between them and keep the widest; zscore and vwap keep it as measured with a
 * driver (docs/perf-log/2026-11-25-catalog-round-7.md, "zscore and vwap"); dx, adxr,
 * linearreg_intercept and tsf by the stricter rule of a later Zen 4 VM, avx2 faster by more than
 * 10% at both sizes in each of two runs a path (docs/perf-log/2026-11-27-zen4-catalog.md), and
 * dema and tema by that rule when their tiles went into lanes
 * (docs/perf-log/2026-11-28-ema-chains-in-lanes.md), and plus_dm, minus_dm, rma, tsi and efi by
 * it once in lanes, in two runs of six processes a path at 1e4 and 1e6 bars
 * (docs/perf-log/2026-12-01-zen4-table.md), and cvi, whose rounds took about twice avx2's
 * time on eight halved lanes at 1e5 and 1e6 bars (docs/perf-log/2026-12-03-zen4-cvi-scores.md).
 * The Wilder recurrences' lanes are tiles side by side, gathered a bar at a time: a step of 8
 * costs about twice a step of 4, and a 1e4-bar row has tiles for only four.
 * AVX2_ZEN5: measured slower on 8 lanes than on 4 on a Zen 5 EPYC (whole 512-bit
 * operations), by the same rule, in six runs a path
 * (docs/perf-log/2026-11-25-catalog-rounds-10-11.md, "Eight whole lanes or four on Zen 5"); and
 * the rounds of lanes written since (dx, adxr, plus_dm, minus_dm, rma, efi, massi and the EMA
 * chains dema, tema, trix, t3, tsi) and imi, on avx2 faster at 1e6 bars in each of six
 * alternated runs a path (1.2 to 4 times; imi 1 to 14%) and at 1e4 no more than a tenth slower
 * in the median (docs/perf-log/2026-12-02-zen5-table.md); cvi, whose rounds came later, by that
 * finding and Zen 4's measurement, not yet measured on Zen 5 itself.
 * AVX2_INTEL: measured slower on 8 lanes than on 4 on an Intel Xeon (Emerald Rapids): obv and
 * pvt by more than 10% at both sizes in each of three runs a path over the whole catalog; ad,
 * wad and rvi at both sizes in each of five runs a path over 47 kernels, by more than 10% at
 * one of them in each, all alternated (docs/perf-log/2026-12-01-intel-rounds.md); cumsum
 * and vwap, faster on avx2 at both sizes in each of three alternated runs a path (cumsum about
 * 0.5 and 0.6 of the time, vwap 0.8 and 0.9) on an Intel Xeon VM (model 167), where a chain of
 * scalar adds runs at about twice its cost while 512-bit operations are in flight beside it
 * (docs/perf-log/2026-12-05-xeon-512-bit-chains.md); cvi there too, its rounds on avx2 about
 * 0.5 of the time at 1e4 and 0.7 at 1e6 in each of five runs a path (the same log); the
 * recurrences' rows of few tiles narrow on Intel and Zen 4 by their tile count instead
 * (apo__catalog_round_path).
 * READS_WINDOW: a stream's one-bar update reads every bar of the window (each output evaluated
 * from its window's own bars), so a stream asks the memory for all of its lines ahead of the
 * update, not only the new bar's and the leaving bar's (runtime/streaming/stream.c,
 * prefetch_series). A hint: no bit depends on it.
 * CUT: a recurrence whose lone tile may be cut into pieces, each from its own warm-up, whose
 * runs at the cuts are checked against the run before them (common/lone_tile_cut.h): on the
 * CPU in vector lanes (dispatch/catalog_split.h), on a GPU a thread a piece (cuda/cut.cu, for
 * those whose stream is RUN). The Wilder recurrences, dx, the DMs, rma, zlema, efi and the EMA
 * chains but trix: trix's lane step (three stages and the rate's division) costs about twice a
 * scalar step and its warm-up is 2,749 bars at 30, so at 1e4 bars its pieces measured slower
 * than its serial chain on the CPU (docs/perf-log/2026-11-28-ema-chains-in-lanes.md).
 * GPU_CUT: a recurrence with a warm-up and a RUN stream whose tiles a GPU cuts as the CUT
 * kernels' (cuda/cut.cu) while the CPU runs them its own way: trix (its rounds; the note of CUT
 * says why not its cut). Its pieces' runs are compared whole, every count exactly
 * (common/lone_tile_cut.h), where the CUT kernels' counts are compared as their seeds read them.
 * Tried and left out (2026-12-02): ema and eri, whose whole runs almost never agree (a count
 * that grows with the bars: 46 of 48 and 62 of 64 pieces run again on a plain walk), kama (62 of
 * 64 too), and adosc, of a room cut.cu does not include.
 */
#define APO_CAT_T_JOIN 1
#define APO_CAT_T_SIDE_BY_SIDE 2
#define APO_CAT_T_WHOLE_ROW 4
#define APO_CAT_T_WILDER 8
#define APO_CAT_T_AHEAD 16
#define APO_CAT_T_AVX2_ZEN4 32
#define APO_CAT_T_AVX2_ZEN5 64
#define APO_CAT_T_READS_WINDOW 128
#define APO_CAT_T_AVX2_INTEL 256
#define APO_CAT_T_CUT 512
#define APO_CAT_T_GPU_CUT 1024

/* The families, in the order of apo__cat_family: (room, ID). A new family is a row here, a
 * line APO__CAT_SAME_<room>_<room> below, its <room>_tiles.h and its <room>.cu. */
#define APO_CATALOG_ROOMS(X)                                                                       \
    X(averages, AVERAGES)                                                                          \
    X(oscillators, OSCILLATORS)                                                                    \
    X(statistics, STATISTICS)                                                                      \
    X(trend, TREND)                                                                                \
    X(volume, VOLUME)                                                                              \
    X(transforms, TRANSFORMS)                                                                      \
    X(cycles, CYCLES)                                                                              \
    X(candles, CANDLES)

/* APO_CAT_WHEN(a, b)(code): code when the rooms a and b are the same, else nothing; for a
 * room's switch over the table's rows. */
#define APO__CAT_SAME_averages_averages ~,
#define APO__CAT_SAME_oscillators_oscillators ~,
#define APO__CAT_SAME_statistics_statistics ~,
#define APO__CAT_SAME_trend_trend ~,
#define APO__CAT_SAME_volume_volume ~,
#define APO__CAT_SAME_transforms_transforms ~,
#define APO__CAT_SAME_cycles_cycles ~,
#define APO__CAT_SAME_candles_candles ~,
#define APO__CAT_SECOND(a, b, ...) b
#define APO__CAT_SECOND_OF(args) APO__CAT_SECOND args
#define APO__CAT_KEEP(...) __VA_ARGS__
#define APO__CAT_DROP(...)
#define APO_CAT_WHEN(a, b)                                                                         \
    APO__CAT_SECOND_OF((APO__CAT_SAME_##a##_##b APO__CAT_KEEP, APO__CAT_DROP, ~))

/* The count and the list of an (count, items...) column. */
#define APO_CAT_COUNT_OF(n, ...) n
#define APO_CAT_LIST_OF(n, ...)                                                                    \
    { __VA_ARGS__ }

/* The catalog, in id order. */
#define APO_CATALOG(X)                                                                             \
    X(SMA, sma, averages, APO_CAT_CLOSE, (1, "sma"), (1, APO_CAT_PERIOD(30, 2)), APO_CAT_P(0) - 1, \
      WINDOW, RUN, 0, "timeperiod - 1")                                                            \
    X(EMA, ema, averages, APO_CAT_CLOSE, (1, "ema"), (1, APO_CAT_PERIOD(30, 2)), APO_CAT_P(0) - 1, \
      EMA(1), RUN, APO_CAT_T_JOIN | APO_CAT_T_SIDE_BY_SIDE | APO_CAT_T_AHEAD,                      \
      "(timeperiod - 1) + the steps the EMA takes to forget its seed (to 2^-64)")                  \
    X(WMA, wma, averages, APO_CAT_CLOSE, (1, "wma"), (1, APO_CAT_PERIOD(30, 2)), APO_CAT_P(0) - 1, \
      WINDOW, RUN, 0, "timeperiod - 1")                                                            \
    X(DEMA, dema, averages, APO_CAT_CLOSE, (1, "dema"), (1, APO_CAT_PERIOD(30, 2)),                \
      2 * (APO_CAT_P(0) - 1), EMA(3), RUN,                                                         \
      APO_CAT_T_CUT | APO_CAT_T_AHEAD | APO_CAT_T_AVX2_ZEN4 | APO_CAT_T_AVX2_ZEN5,                 \
      "2 (timeperiod - 1) + 3 times the steps an EMA takes to forget its seed (to 2^-64)")         \
    X(TEMA, tema, averages, APO_CAT_CLOSE, (1, "tema"), (1, APO_CAT_PERIOD(30, 2)),                \
      3 * (APO_CAT_P(0) - 1), EMA(4), RUN,                                                         \
      APO_CAT_T_CUT | APO_CAT_T_AHEAD | APO_CAT_T_AVX2_ZEN4 | APO_CAT_T_AVX2_ZEN5,                 \
      "3 (timeperiod - 1) + 4 times the steps an EMA takes to forget its seed (to 2^-64)")         \
    X(MOM, mom, oscillators, APO_CAT_CLOSE, (1, "mom"), (1, APO_CAT_PERIOD(10, 1)), APO_CAT_P(0),  \
      WINDOW, POSITION, APO_CAT_T_JOIN | APO_CAT_T_AVX2_ZEN4 | APO_CAT_T_AVX2_ZEN5, "timeperiod")  \
    X(ROC, roc, oscillators, APO_CAT_CLOSE, (1, "roc"), (1, APO_CAT_PERIOD(10, 1)), APO_CAT_P(0),  \
      WINDOW, POSITION, APO_CAT_T_JOIN, "timeperiod")                                              \
    X(RSI, rsi, oscillators, APO_CAT_CLOSE, (1, "rsi"), (1, APO_CAT_PERIOD(14, 2)), APO_CAT_P(0),  \
      WILDER(1), RUN,                                                                              \
      APO_CAT_T_CUT | APO_CAT_T_WILDER | APO_CAT_T_AHEAD | APO_CAT_T_AVX2_ZEN4 |                   \
          APO_CAT_T_AVX2_ZEN5,                                                                     \
      APO_CAT_WILDER_RULE)                                                                         \
    X(CMO, cmo, oscillators, APO_CAT_CLOSE, (1, "cmo"), (1, APO_CAT_PERIOD(14, 2)), APO_CAT_P(0),  \
      WILDER(1), RUN,                                                                              \
      APO_CAT_T_CUT | APO_CAT_T_WILDER | APO_CAT_T_AHEAD | APO_CAT_T_AVX2_ZEN4 |                   \
          APO_CAT_T_AVX2_ZEN5,                                                                     \
      APO_CAT_WILDER_RULE)                                                                         \
    X(WILLR, willr, oscillators, APO_CAT_HLC, (1, "willr"), (1, APO_CAT_PERIOD(14, 2)),            \
      APO_CAT_P(0) - 1, WINDOW, RUN, 0, "timeperiod - 1")                                          \
    X(CCI, cci, oscillators, APO_CAT_HLC, (1, "cci"), (1, APO_CAT_PERIOD(14, 2)),                  \
      APO_CAT_P(0) - 1, WINDOW, RUN, APO_CAT_T_READS_WINDOW, "timeperiod - 1")                     \
    X(STOCHF, stochf, oscillators, APO_CAT_HLC, (2, "fastk", "fastd"),                             \
      (3, {"fastk_period", 5, 1, APO_CAT_PERIOD_MAX, 1},                                           \
       {"fastd_period", 3, 1, APO_CAT_PERIOD_MAX, 1}, {"fastd_matype", 0, 0, 8, 1}),               \
      (APO_CAT_P(0) - 1) + apo__kdj_ma_lookback((int)APO_CAT_P(2), APO_CAT_P(1)), STOCHF, RUN,     \
      APO_CAT_T_JOIN | APO_CAT_T_READS_WINDOW, APO_CAT_STOCH_RULE)                                 \
    X(STOCH, stoch, oscillators, APO_CAT_HLC, (2, "slowk", "slowd"),                               \
      (5, {"fastk_period", 5, 1, APO_CAT_PERIOD_MAX, 1},                                           \
       {"slowk_period", 3, 1, APO_CAT_PERIOD_MAX, 1}, {"slowk_matype", 0, 0, 8, 1},                \
       {"slowd_period", 3, 1, APO_CAT_PERIOD_MAX, 1}, {"slowd_matype", 0, 0, 8, 1}),               \
      APO_CAT_KDJ_LOOKBACK, STOCH, RUN, APO_CAT_T_JOIN | APO_CAT_T_READS_WINDOW,                   \
      APO_CAT_STOCH_RULE)                                                                          \
    X(STDDEV, stddev, statistics, APO_CAT_CLOSE, (1, "stddev"),                                    \
      (2, APO_CAT_PERIOD(5, 2), {"nbdev", 1, -1e300, 1e300, 0}), APO_CAT_P(0) - 1, VAR, RUN, 0,    \
      "as var's")                                                                                  \
    X(VAR, var, statistics, APO_CAT_CLOSE, (1, "var"),                                             \
      (2, APO_CAT_PERIOD(5, 1), {"nbdev", 1, -1e300, 1e300, 0}), APO_CAT_P(0) - 1, VAR, RUN, 0,    \
      "timeperiod - 1, and 31 more from 33 to 159, 63 more from 160 to 1024 " APO_CAT_BLOCK_RULE)  \
    X(MAX, max, statistics, APO_CAT_CLOSE, (1, "max"), (1, APO_CAT_PERIOD(30, 2)),                 \
      APO_CAT_P(0) - 1, WINDOW, RUN, APO_CAT_T_AVX2_ZEN4, "timeperiod - 1")                        \
    X(MIN, min, statistics, APO_CAT_CLOSE, (1, "min"), (1, APO_CAT_PERIOD(30, 2)),                 \
      APO_CAT_P(0) - 1, WINDOW, RUN, 0, "timeperiod - 1")                                          \
    X(LINEARREG, linearreg, statistics, APO_CAT_CLOSE, (1, "linearreg"),                           \
      (1, APO_CAT_PERIOD(14, 2)), APO_CAT_P(0) - 1, WINDOW, RUN, APO_CAT_T_AVX2_ZEN4,              \
      "timeperiod - 1")                                                                            \
    X(LINEARREG_SLOPE, linearreg_slope, statistics, APO_CAT_CLOSE, (1, "linearreg_slope"),         \
      (1, APO_CAT_PERIOD(14, 2)), APO_CAT_P(0) - 1, WINDOW, RUN, APO_CAT_T_AVX2_ZEN4,              \
      "timeperiod - 1")                                                                            \
    X(CORREL, correl, statistics, APO_CAT_XY, (1, "correl"), (1, APO_CAT_PERIOD(30, 1)),           \
      APO_CAT_P(0) - 1, CORREL, PAIR, 0,                                                           \
      "timeperiod - 1, and 15 more from 1 to 47, 31 from 48 to 159, 63 from 160 to "               \
      "1024 " APO_CAT_BLOCK_RULE)                                                                  \
    X(BETA, beta, statistics, APO_CAT_XY, (1, "beta"), (1, APO_CAT_PERIOD(5, 1)), APO_CAT_P(0),    \
      BETA, PAIR, 0,                                                                               \
      "timeperiod (the returns need the sample before the window), and 63 more from 33 to "        \
      "512 " APO_CAT_BLOCK_RULE)                                                                   \
    X(TRANGE, trange, trend, APO_CAT_HLC, (1, "trange"), APO_CAT_NO_PARAMS, 1, WINDOW, POSITION,   \
      APO_CAT_T_JOIN | APO_CAT_T_AVX2_ZEN5, "1: the close before")                                 \
    X(ATR, atr, trend, APO_CAT_HLC, (1, "atr"), (1, APO_CAT_PERIOD(14, 1)), APO_CAT_P(0),          \
      WILDER(1), RUN,                                                                              \
      APO_CAT_T_CUT | APO_CAT_T_WILDER | APO_CAT_T_AHEAD | APO_CAT_T_AVX2_ZEN4 |                   \
          APO_CAT_T_AVX2_ZEN5,                                                                     \
      APO_CAT_WILDER_RULE)                                                                         \
    X(NATR, natr, trend, APO_CAT_HLC, (1, "natr"), (1, APO_CAT_PERIOD(14, 1)), APO_CAT_P(0),       \
      WILDER(1), RUN,                                                                              \
      APO_CAT_T_CUT | APO_CAT_T_WILDER | APO_CAT_T_AHEAD | APO_CAT_T_AVX2_ZEN4 |                   \
          APO_CAT_T_AVX2_ZEN5,                                                                     \
      APO_CAT_WILDER_RULE)                                                                         \
    X(AROON, aroon, trend, (2, "high", "low"), (2, "aroondown", "aroonup"),                        \
      (1, APO_CAT_PERIOD(14, 2)), APO_CAT_P(0), WINDOW, RUN, APO_CAT_T_AVX2_ZEN4, "timeperiod")    \
    X(ZSCORE, zscore, statistics, APO_CAT_CLOSE, (1, "zscore"), (1, APO_CAT_PERIOD(20, 2)),        \
      APO_CAT_P(0) - 1, WINDOW, RUN, 0, "timeperiod - 1")                                          \
    X(PLUS_DI, plus_di, trend, APO_CAT_HLC, (1, "plus_di"), (1, APO_CAT_PERIOD(14, 1)),            \
      APO_CAT_P(0), WILDER(1), RUN,                                                                \
      APO_CAT_T_CUT | APO_CAT_T_WILDER | APO_CAT_T_AHEAD | APO_CAT_T_AVX2_ZEN4 |                   \
          APO_CAT_T_AVX2_ZEN5,                                                                     \
      APO_CAT_WILDER_RULE)                                                                         \
    X(MINUS_DI, minus_di, trend, APO_CAT_HLC, (1, "minus_di"), (1, APO_CAT_PERIOD(14, 1)),         \
      APO_CAT_P(0), WILDER(1), RUN,                                                                \
      APO_CAT_T_CUT | APO_CAT_T_WILDER | APO_CAT_T_AHEAD | APO_CAT_T_AVX2_ZEN4 |                   \
          APO_CAT_T_AVX2_ZEN5,                                                                     \
      APO_CAT_WILDER_RULE)                                                                         \
    X(ADX, adx, trend, APO_CAT_HLC, (1, "adx"), (1, APO_CAT_PERIOD(14, 2)), 2 * APO_CAT_P(0) - 1,  \
      WILDER(2), RUN,                                                                              \
      APO_CAT_T_CUT | APO_CAT_T_WILDER | APO_CAT_T_AHEAD | APO_CAT_T_AVX2_ZEN4 |                   \
          APO_CAT_T_AVX2_ZEN5,                                                                     \
      "2 timeperiod - 1 + twice the steps Wilder's average takes to forget its seed (to "          \
      "2^-64): the DIs', then ADX's")                                                              \
    X(MFI, mfi, volume, APO_CAT_HLCV, (1, "mfi"), (1, APO_CAT_PERIOD(14, 2)), APO_CAT_P(0),        \
      WINDOW, RUN, APO_CAT_T_READS_WINDOW,                                                         \
      "timeperiod: the flows of timeperiod bars and the bar before")                               \
    X(MVWAP, mvwap, volume, APO_CAT_HLCV, (1, "mvwap"), (1, APO_CAT_PERIOD(14, 1)),                \
      APO_CAT_P(0) - 1, WINDOW, RUN, 0, "timeperiod - 1")                                          \
    X(KAMA, kama, averages, APO_CAT_CLOSE, (1, "kama"), (1, APO_CAT_PERIOD(30, 2)), APO_CAT_P(0),  \
      KAMA, RUN, APO_CAT_T_AHEAD | APO_CAT_T_AVX2_ZEN4,                                            \
      "timeperiod + the steps KAMA's slowest rate (2/31)^2 takes to forget its seed (to 2^-64)")   \
    X(ADOSC, adosc, volume, APO_CAT_HLCV, (1, "adosc"),                                            \
      (2, {"fastperiod", 3, 2, APO_CAT_PERIOD_MAX, 1},                                             \
       {"slowperiod", 10, 2, APO_CAT_PERIOD_MAX, 1}),                                              \
      (APO_CAT_P(0) > APO_CAT_P(1) ? APO_CAT_P(0) : APO_CAT_P(1)) - 1, ADOSC, RUN,                 \
      APO_CAT_T_AHEAD | APO_CAT_T_AVX2_ZEN4 | APO_CAT_T_AVX2_ZEN5,                                 \
      "max(fastperiod, slowperiod) - 1 + the steps the slower EMA takes to forget its seed (to "   \
      "2^-64); AD restarts at 0 there, which ADOSC does not see")                                  \
    X(OBV, obv, volume, (2, "close", "volume"), (1, "obv"), APO_CAT_NO_PARAMS, 0, WINDOW, CARRY,   \
      APO_CAT_T_JOIN | APO_CAT_T_WHOLE_ROW | APO_CAT_T_AVX2_ZEN4 | APO_CAT_T_AVX2_INTEL,           \
      APO_CAT_WHOLE_ROW_RULE)                                                                      \
    X(AD, ad, volume, APO_CAT_HLCV, (1, "ad"), APO_CAT_NO_PARAMS, 0, WINDOW, CARRY,                \
      APO_CAT_T_JOIN | APO_CAT_T_WHOLE_ROW | APO_CAT_T_AVX2_ZEN4 | APO_CAT_T_AVX2_INTEL,           \
      APO_CAT_WHOLE_ROW_RULE)                                                                      \
    X(PLUS_DM, plus_dm, trend, APO_CAT_HL, (1, "plus_dm"), (1, APO_CAT_PERIOD(14, 1)),             \
      APO_CAT_DM_LOOKBACK, WILDER(1), RUN,                                                         \
      APO_CAT_T_CUT | APO_CAT_T_AHEAD | APO_CAT_T_AVX2_ZEN4 | APO_CAT_T_AVX2_ZEN5,                 \
      APO_CAT_DM_RULE)                                                                             \
    X(MINUS_DM, minus_dm, trend, APO_CAT_HL, (1, "minus_dm"), (1, APO_CAT_PERIOD(14, 1)),          \
      APO_CAT_DM_LOOKBACK, WILDER(1), RUN,                                                         \
      APO_CAT_T_CUT | APO_CAT_T_AHEAD | APO_CAT_T_AVX2_ZEN4 | APO_CAT_T_AVX2_ZEN5,                 \
      APO_CAT_DM_RULE)                                                                             \
    X(DX, dx, trend, APO_CAT_HLC, (1, "dx"), (1, APO_CAT_PERIOD(14, 2)), APO_CAT_P(0), WILDER(1),  \
      RUN, APO_CAT_T_CUT | APO_CAT_T_AHEAD | APO_CAT_T_AVX2_ZEN4 | APO_CAT_T_AVX2_ZEN5,            \
      APO_CAT_WILDER_RULE)                                                                         \
    X(ADXR, adxr, trend, APO_CAT_HLC, (1, "adxr"), (1, APO_CAT_PERIOD(14, 2)),                     \
      3 * APO_CAT_P(0) - 2, WILDER(2), OWN, APO_CAT_T_AVX2_ZEN4 | APO_CAT_T_AVX2_ZEN5,             \
      "3 timeperiod - 2 + twice the steps Wilder's average takes to forget its seed (to 2^-64): "  \
      "ADX's, and the timeperiod - 1 bars between the two ADX it averages")                        \
    X(AROONOSC, aroonosc, trend, APO_CAT_HL, (1, "aroonosc"), (1, APO_CAT_PERIOD(14, 2)),          \
      APO_CAT_P(0), WINDOW, RUN, 0, "timeperiod")                                                  \
    X(BOP, bop, oscillators, (4, "open", "high", "low", "close"), (1, "bop"), APO_CAT_NO_PARAMS,   \
      0, WINDOW, POSITION, APO_CAT_T_JOIN, "0: the bar alone")                                     \
    X(IMI, imi, oscillators, (2, "open", "close"), (1, "imi"), (1, APO_CAT_PERIOD(14, 2)),         \
      APO_CAT_P(0) - 1, WINDOW, POSITION, APO_CAT_T_JOIN | APO_CAT_T_AVX2_ZEN5, "timeperiod - 1")  \
    X(ULTOSC, ultosc, trend, APO_CAT_HLC, (1, "ultosc"),                                           \
      (3, {"timeperiod1", 7, 1, APO_CAT_PERIOD_MAX, 1},                                            \
       {"timeperiod2", 14, 1, APO_CAT_PERIOD_MAX, 1},                                              \
       {"timeperiod3", 28, 1, APO_CAT_PERIOD_MAX, 1}),                                             \
      APO_CAT_MAX3(APO_CAT_P(0), APO_CAT_P(1), APO_CAT_P(2)), WINDOW, RUN, 0,                      \
      "max(timeperiod1, timeperiod2, timeperiod3): the longest window and the close before it")    \
    X(ROCP, rocp, oscillators, APO_CAT_CLOSE, (1, "rocp"), (1, APO_CAT_PERIOD(10, 1)),             \
      APO_CAT_P(0), WINDOW, POSITION, APO_CAT_T_JOIN, "timeperiod")                                \
    X(ROCR, rocr, oscillators, APO_CAT_CLOSE, (1, "rocr"), (1, APO_CAT_PERIOD(10, 1)),             \
      APO_CAT_P(0), WINDOW, POSITION, APO_CAT_T_JOIN, "timeperiod")                                \
    X(ROCR100, rocr100, oscillators, APO_CAT_CLOSE, (1, "rocr100"), (1, APO_CAT_PERIOD(10, 1)),    \
      APO_CAT_P(0), WINDOW, POSITION, APO_CAT_T_JOIN, "timeperiod")                                \
    X(AVGPRICE, avgprice, transforms, (4, "open", "high", "low", "close"), (1, "avgprice"),        \
      APO_CAT_NO_PARAMS, 0, WINDOW, POSITION, APO_CAT_T_JOIN, "none")                              \
    X(MEDPRICE, medprice, transforms, (2, "high", "low"), (1, "medprice"), APO_CAT_NO_PARAMS, 0,   \
      WINDOW, POSITION, APO_CAT_T_JOIN, "none")                                                    \
    X(TYPPRICE, typprice, transforms, APO_CAT_HLC, (1, "typprice"), APO_CAT_NO_PARAMS, 0, WINDOW,  \
      POSITION, APO_CAT_T_JOIN, "none")                                                            \
    X(WCLPRICE, wclprice, transforms, APO_CAT_HLC, (1, "wclprice"), APO_CAT_NO_PARAMS, 0, WINDOW,  \
      POSITION, APO_CAT_T_JOIN, "none")                                                            \
    X(ADD, add, transforms, APO_CAT_XY, (1, "add"), APO_CAT_NO_PARAMS, 0, WINDOW, POSITION,        \
      APO_CAT_T_JOIN, "none")                                                                      \
    X(SUB, sub, transforms, APO_CAT_XY, (1, "sub"), APO_CAT_NO_PARAMS, 0, WINDOW, POSITION,        \
      APO_CAT_T_JOIN, "none")                                                                      \
    X(MULT, mult, transforms, APO_CAT_XY, (1, "mult"), APO_CAT_NO_PARAMS, 0, WINDOW, POSITION,     \
      APO_CAT_T_JOIN, "none")                                                                      \
    X(DIV, div, transforms, APO_CAT_XY, (1, "div"), APO_CAT_NO_PARAMS, 0, WINDOW, POSITION,        \
      APO_CAT_T_JOIN, "none")                                                                      \
    X(SUM, sum, transforms, APO_CAT_CLOSE, (1, "sum"), (1, APO_CAT_PERIOD(30, 2)),                 \
      APO_CAT_P(0) - 1, WINDOW, RUN, 0, "timeperiod - 1")                                          \
    X(MINMAX, minmax, transforms, APO_CAT_CLOSE, (2, "min", "max"), (1, APO_CAT_PERIOD(30, 2)),    \
      APO_CAT_P(0) - 1, WINDOW, RUN, 0, "timeperiod - 1")                                          \
    X(CEIL, ceil, transforms, APO_CAT_CLOSE, (1, "ceil"), APO_CAT_NO_PARAMS, 0, WINDOW, POSITION,  \
      APO_CAT_T_JOIN, "none")                                                                      \
    X(FLOOR, floor, transforms, APO_CAT_CLOSE, (1, "floor"), APO_CAT_NO_PARAMS, 0, WINDOW,         \
      POSITION, APO_CAT_T_JOIN, "none")                                                            \
    X(SQRT, sqrt, transforms, APO_CAT_CLOSE, (1, "sqrt"), APO_CAT_NO_PARAMS, 0, WINDOW, POSITION,  \
      APO_CAT_T_JOIN, "none")                                                                      \
    X(EXP, exp, transforms, APO_CAT_CLOSE, (1, "exp"), APO_CAT_NO_PARAMS, 0, WINDOW, POSITION,     \
      APO_CAT_T_JOIN, "none")                                                                      \
    X(LN, ln, transforms, APO_CAT_CLOSE, (1, "ln"), APO_CAT_NO_PARAMS, 0, WINDOW, POSITION,        \
      APO_CAT_T_JOIN, "none")                                                                      \
    X(LOG10, log10, transforms, APO_CAT_CLOSE, (1, "log10"), APO_CAT_NO_PARAMS, 0, WINDOW,         \
      POSITION, APO_CAT_T_JOIN, "none")                                                            \
    X(SINH, sinh, transforms, APO_CAT_CLOSE, (1, "sinh"), APO_CAT_NO_PARAMS, 0, WINDOW, POSITION,  \
      APO_CAT_T_JOIN, "none")                                                                      \
    X(COSH, cosh, transforms, APO_CAT_CLOSE, (1, "cosh"), APO_CAT_NO_PARAMS, 0, WINDOW, POSITION,  \
      APO_CAT_T_JOIN, "none")                                                                      \
    X(TANH, tanh, transforms, APO_CAT_CLOSE, (1, "tanh"), APO_CAT_NO_PARAMS, 0, WINDOW, POSITION,  \
      APO_CAT_T_JOIN, "none")                                                                      \
    X(HT_DCPERIOD, ht_dcperiod, cycles, APO_CAT_CLOSE, (1, "ht_dcperiod"), APO_CAT_NO_PARAMS, 32,  \
      WINDOW, CARRY, APO_CAT_HT_TRAITS, APO_CAT_HT_RULE)                                           \
    X(HT_DCPHASE, ht_dcphase, cycles, APO_CAT_CLOSE, (1, "ht_dcphase"), APO_CAT_NO_PARAMS, 63,     \
      WINDOW, CARRY, APO_CAT_HT_TRAITS, APO_CAT_HT_RULE)                                           \
    X(HT_PHASOR, ht_phasor, cycles, APO_CAT_CLOSE, (2, "inphase", "quadrature"),                   \
      APO_CAT_NO_PARAMS, 32, WINDOW, CARRY, APO_CAT_HT_TRAITS, APO_CAT_HT_RULE)                    \
    X(HT_SINE, ht_sine, cycles, APO_CAT_CLOSE, (2, "sine", "leadsine"), APO_CAT_NO_PARAMS, 63,     \
      WINDOW, CARRY, APO_CAT_HT_TRAITS, APO_CAT_HT_RULE)                                           \
    X(HT_TRENDMODE, ht_trendmode, cycles, APO_CAT_CLOSE, (1, "ht_trendmode"), APO_CAT_NO_PARAMS,   \
      63, WINDOW, CARRY, APO_CAT_HT_TRAITS, APO_CAT_HT_RULE)                                       \
    X(HT_TRENDLINE, ht_trendline, cycles, APO_CAT_CLOSE, (1, "ht_trendline"), APO_CAT_NO_PARAMS,   \
      63, WINDOW, CARRY, APO_CAT_HT_TRAITS, APO_CAT_HT_RULE)                                       \
    X(TRIMA, trima, averages, APO_CAT_CLOSE, (1, "trima"), (1, APO_CAT_PERIOD(30, 1)),             \
      APO_CAT_P(0) - 1, WINDOW, POSITION, APO_CAT_T_JOIN, "timeperiod - 1")                        \
    X(T3, t3, averages, APO_CAT_CLOSE, (1, "t3"),                                                  \
      (2, APO_CAT_PERIOD(5, 1), {"vfactor", 0.7, 0, 1, 0}), 6 * (APO_CAT_P(0) - 1), EMA(7), RUN,   \
      APO_CAT_T_CUT | APO_CAT_T_AHEAD | APO_CAT_T_AVX2_ZEN5,                                       \
      "6 (timeperiod - 1) + 7 times the steps an EMA takes to forget its seed (to 2^-64)")         \
    X(MIDPOINT, midpoint, averages, APO_CAT_CLOSE, (1, "midpoint"), (1, APO_CAT_PERIOD(14, 2)),    \
      APO_CAT_P(0) - 1, WINDOW, POSITION, APO_CAT_T_JOIN, "timeperiod - 1")                        \
    X(MIDPRICE, midprice, averages, (2, "high", "low"), (1, "midprice"),                           \
      (1, APO_CAT_PERIOD(14, 2)), APO_CAT_P(0) - 1, WINDOW, POSITION, APO_CAT_T_JOIN,              \
      "timeperiod - 1")                                                                            \
    X(MA, ma, averages, APO_CAT_CLOSE, (1, "ma"),                                                  \
      (2, APO_CAT_PERIOD(30, 1), {"matype", 0, 0, 8, 1}),                                          \
      apo__ma_lookback((int)APO_CAT_P(1), APO_CAT_P(0)), MA(1), RUN, 0,                            \
      "the halo of the matype's kernel (sma, ema, ...) at timeperiod; the whole row at matype 7 "  \
      "(MAMA)")                                                                                    \
    X(MAVP, mavp, averages, (2, "close", "periods"), (1, "mavp"),                                  \
      (3, {"minperiod", 2, 1, APO_CAT_PERIOD_MAX, 1}, {"maxperiod", 30, 1, APO_CAT_PERIOD_MAX, 1}, \
       {"matype", 0, 0, 8, 1}),                                                                    \
      apo__ma_lookback((int)APO_CAT_P(2), APO_CAT_P(1)), MAVP, POSITION, APO_CAT_T_JOIN,           \
      "the halo of the matype's kernel at maxperiod (each bar runs its own warm-up)")              \
    X(ACCBANDS, accbands, averages, APO_CAT_HLC, (3, "upperband", "middleband", "lowerband"),      \
      (1, APO_CAT_PERIOD(20, 2)), APO_CAT_P(0) - 1, WINDOW, POSITION, APO_CAT_T_JOIN,              \
      "timeperiod - 1")                                                                            \
    X(BBANDS, bbands, averages, APO_CAT_CLOSE, (3, "upperband", "middleband", "lowerband"),        \
      (4, APO_CAT_PERIOD(20, 2), {"nbdevup", 2, -3e37, 3e37, 0}, {"nbdevdn", 2, -3e37, 3e37, 0},   \
       {"matype", 0, 0, 8, 1}),                                                                    \
      apo__bbands_lookback((int)APO_CAT_P(3), APO_CAT_P(0)), MA(3), OWN, 0,                        \
      "the halo of the matype's kernel (sma, ema, ...) at timeperiod; the whole row at matype 7 "  \
      "(MAMA)")                                                                                    \
    X(TRIX, trix, oscillators, APO_CAT_CLOSE, (1, "trix"), (1, APO_CAT_PERIOD(30, 1)),             \
      3 * (APO_CAT_P(0) - 1) + 1, EMA(4), RUN,                                                     \
      APO_CAT_T_GPU_CUT | APO_CAT_T_AHEAD | APO_CAT_T_AVX2_ZEN5,                                   \
      "3 (timeperiod - 1) + 1 + 4 times the steps an EMA takes to forget its seed (to 2^-64)")     \
    X(MACDFIX, macdfix, oscillators, APO_CAT_CLOSE, (3, "macd", "macdsignal", "macdhist"),         \
      (1, {"signalperiod", 9, 1, APO_CAT_PERIOD_MAX, 1}), 25 + (APO_CAT_P(0) - 1), MACDFIX, RUN,   \
      APO_CAT_T_AHEAD,                                                                             \
      "25 + (signalperiod - 1) + the steps the EMAs of rates 0.075 and 2/(signalperiod + 1) "      \
      "take to forget their seeds (to 2^-64)")                                                     \
    X(CDL2CROWS, cdl2crows, candles, APO_CAT_OHLC, (1, "cdl2crows"), APO_CAT_NO_PARAMS, 12,        \
      WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                       \
    X(CDL3BLACKCROWS, cdl3blackcrows, candles, APO_CAT_OHLC, (1, "cdl3blackcrows"),                \
      APO_CAT_NO_PARAMS, 13, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDL3INSIDE, cdl3inside, candles, APO_CAT_OHLC, (1, "cdl3inside"), APO_CAT_NO_PARAMS, 12,     \
      WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                       \
    X(CDL3LINESTRIKE, cdl3linestrike, candles, APO_CAT_OHLC, (1, "cdl3linestrike"),                \
      APO_CAT_NO_PARAMS, 8, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                 \
    X(CDL3OUTSIDE, cdl3outside, candles, APO_CAT_OHLC, (1, "cdl3outside"), APO_CAT_NO_PARAMS, 3,   \
      WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                       \
    X(CDL3STARSINSOUTH, cdl3starsinsouth, candles, APO_CAT_OHLC, (1, "cdl3starsinsouth"),          \
      APO_CAT_NO_PARAMS, 12, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDL3WHITESOLDIERS, cdl3whitesoldiers, candles, APO_CAT_OHLC, (1, "cdl3whitesoldiers"),       \
      APO_CAT_NO_PARAMS, 12, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLABANDONEDBABY, cdlabandonedbaby, candles, APO_CAT_OHLC, (1, "cdlabandonedbaby"),          \
      (1, APO_CAT_PENETRATION(0.3)), 12, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)    \
    X(CDLADVANCEBLOCK, cdladvanceblock, candles, APO_CAT_OHLC, (1, "cdladvanceblock"),             \
      APO_CAT_NO_PARAMS, 12, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLBELTHOLD, cdlbelthold, candles, APO_CAT_OHLC, (1, "cdlbelthold"), APO_CAT_NO_PARAMS, 10,  \
      WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                       \
    X(CDLBREAKAWAY, cdlbreakaway, candles, APO_CAT_OHLC, (1, "cdlbreakaway"), APO_CAT_NO_PARAMS,   \
      14, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                   \
    X(CDLCLOSINGMARUBOZU, cdlclosingmarubozu, candles, APO_CAT_OHLC, (1, "cdlclosingmarubozu"),    \
      APO_CAT_NO_PARAMS, 10, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLCONCEALBABYSWALL, cdlconcealbabyswall, candles, APO_CAT_OHLC, (1, "cdlconcealbabyswall"), \
      APO_CAT_NO_PARAMS, 13, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLCOUNTERATTACK, cdlcounterattack, candles, APO_CAT_OHLC, (1, "cdlcounterattack"),          \
      APO_CAT_NO_PARAMS, 11, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLDARKCLOUDCOVER, cdldarkcloudcover, candles, APO_CAT_OHLC, (1, "cdldarkcloudcover"),       \
      (1, APO_CAT_PENETRATION(0.5)), 11, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)    \
    X(CDLDOJI, cdldoji, candles, APO_CAT_OHLC, (1, "cdldoji"), APO_CAT_NO_PARAMS, 10, WINDOW,      \
      POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                               \
    X(CDLDOJISTAR, cdldojistar, candles, APO_CAT_OHLC, (1, "cdldojistar"), APO_CAT_NO_PARAMS, 11,  \
      WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                       \
    X(CDLDRAGONFLYDOJI, cdldragonflydoji, candles, APO_CAT_OHLC, (1, "cdldragonflydoji"),          \
      APO_CAT_NO_PARAMS, 10, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLENGULFING, cdlengulfing, candles, APO_CAT_OHLC, (1, "cdlengulfing"), APO_CAT_NO_PARAMS,   \
      2, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                    \
    X(CDLEVENINGDOJISTAR, cdleveningdojistar, candles, APO_CAT_OHLC, (1, "cdleveningdojistar"),    \
      (1, APO_CAT_PENETRATION(0.3)), 12, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)    \
    X(CDLEVENINGSTAR, cdleveningstar, candles, APO_CAT_OHLC, (1, "cdleveningstar"),                \
      (1, APO_CAT_PENETRATION(0.3)), 12, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)    \
    X(CDLGAPSIDESIDEWHITE, cdlgapsidesidewhite, candles, APO_CAT_OHLC, (1, "cdlgapsidesidewhite"), \
      APO_CAT_NO_PARAMS, 7, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                 \
    X(CDLGRAVESTONEDOJI, cdlgravestonedoji, candles, APO_CAT_OHLC, (1, "cdlgravestonedoji"),       \
      APO_CAT_NO_PARAMS, 10, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLHAMMER, cdlhammer, candles, APO_CAT_OHLC, (1, "cdlhammer"), APO_CAT_NO_PARAMS, 11,        \
      WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                       \
    X(CDLHANGINGMAN, cdlhangingman, candles, APO_CAT_OHLC, (1, "cdlhangingman"),                   \
      APO_CAT_NO_PARAMS, 11, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLHARAMI, cdlharami, candles, APO_CAT_OHLC, (1, "cdlharami"), APO_CAT_NO_PARAMS, 11,        \
      WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                       \
    X(CDLHARAMICROSS, cdlharamicross, candles, APO_CAT_OHLC, (1, "cdlharamicross"),                \
      APO_CAT_NO_PARAMS, 11, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLHIGHWAVE, cdlhighwave, candles, APO_CAT_OHLC, (1, "cdlhighwave"), APO_CAT_NO_PARAMS, 10,  \
      WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                       \
    X(CDLHIKKAKE, cdlhikkake, candles, APO_CAT_OHLC, (1, "cdlhikkake"), APO_CAT_NO_PARAMS, 5,      \
      WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                       \
    X(CDLHIKKAKEMOD, cdlhikkakemod, candles, APO_CAT_OHLC, (1, "cdlhikkakemod"),                   \
      APO_CAT_NO_PARAMS, 10, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLHOMINGPIGEON, cdlhomingpigeon, candles, APO_CAT_OHLC, (1, "cdlhomingpigeon"),             \
      APO_CAT_NO_PARAMS, 11, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLIDENTICAL3CROWS, cdlidentical3crows, candles, APO_CAT_OHLC, (1, "cdlidentical3crows"),    \
      APO_CAT_NO_PARAMS, 12, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLINNECK, cdlinneck, candles, APO_CAT_OHLC, (1, "cdlinneck"), APO_CAT_NO_PARAMS, 11,        \
      WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                       \
    X(CDLINVERTEDHAMMER, cdlinvertedhammer, candles, APO_CAT_OHLC, (1, "cdlinvertedhammer"),       \
      APO_CAT_NO_PARAMS, 11, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLKICKING, cdlkicking, candles, APO_CAT_OHLC, (1, "cdlkicking"), APO_CAT_NO_PARAMS, 11,     \
      WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                       \
    X(CDLKICKINGBYLENGTH, cdlkickingbylength, candles, APO_CAT_OHLC, (1, "cdlkickingbylength"),    \
      APO_CAT_NO_PARAMS, 11, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLLADDERBOTTOM, cdlladderbottom, candles, APO_CAT_OHLC, (1, "cdlladderbottom"),             \
      APO_CAT_NO_PARAMS, 14, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLLONGLEGGEDDOJI, cdllongleggeddoji, candles, APO_CAT_OHLC, (1, "cdllongleggeddoji"),       \
      APO_CAT_NO_PARAMS, 10, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLLONGLINE, cdllongline, candles, APO_CAT_OHLC, (1, "cdllongline"), APO_CAT_NO_PARAMS, 10,  \
      WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                       \
    X(CDLMARUBOZU, cdlmarubozu, candles, APO_CAT_OHLC, (1, "cdlmarubozu"), APO_CAT_NO_PARAMS, 10,  \
      WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                       \
    X(CDLMATCHINGLOW, cdlmatchinglow, candles, APO_CAT_OHLC, (1, "cdlmatchinglow"),                \
      APO_CAT_NO_PARAMS, 6, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                 \
    X(CDLMATHOLD, cdlmathold, candles, APO_CAT_OHLC, (1, "cdlmathold"),                            \
      (1, APO_CAT_PENETRATION(0.5)), 14, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)    \
    X(CDLMORNINGDOJISTAR, cdlmorningdojistar, candles, APO_CAT_OHLC, (1, "cdlmorningdojistar"),    \
      (1, APO_CAT_PENETRATION(0.3)), 12, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)    \
    X(CDLMORNINGSTAR, cdlmorningstar, candles, APO_CAT_OHLC, (1, "cdlmorningstar"),                \
      (1, APO_CAT_PENETRATION(0.3)), 12, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)    \
    X(CDLONNECK, cdlonneck, candles, APO_CAT_OHLC, (1, "cdlonneck"), APO_CAT_NO_PARAMS, 11,        \
      WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                       \
    X(CDLPIERCING, cdlpiercing, candles, APO_CAT_OHLC, (1, "cdlpiercing"), APO_CAT_NO_PARAMS, 11,  \
      WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                       \
    X(CDLRICKSHAWMAN, cdlrickshawman, candles, APO_CAT_OHLC, (1, "cdlrickshawman"),                \
      APO_CAT_NO_PARAMS, 10, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLRISEFALL3METHODS, cdlrisefall3methods, candles, APO_CAT_OHLC, (1, "cdlrisefall3methods"), \
      APO_CAT_NO_PARAMS, 14, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLSEPARATINGLINES, cdlseparatinglines, candles, APO_CAT_OHLC, (1, "cdlseparatinglines"),    \
      APO_CAT_NO_PARAMS, 11, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLSHOOTINGSTAR, cdlshootingstar, candles, APO_CAT_OHLC, (1, "cdlshootingstar"),             \
      APO_CAT_NO_PARAMS, 11, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLSHORTLINE, cdlshortline, candles, APO_CAT_OHLC, (1, "cdlshortline"), APO_CAT_NO_PARAMS,   \
      10, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                   \
    X(CDLSPINNINGTOP, cdlspinningtop, candles, APO_CAT_OHLC, (1, "cdlspinningtop"),                \
      APO_CAT_NO_PARAMS, 10, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLSTALLEDPATTERN, cdlstalledpattern, candles, APO_CAT_OHLC, (1, "cdlstalledpattern"),       \
      APO_CAT_NO_PARAMS, 12, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLSTICKSANDWICH, cdlsticksandwich, candles, APO_CAT_OHLC, (1, "cdlsticksandwich"),          \
      APO_CAT_NO_PARAMS, 7, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                 \
    X(CDLTAKURI, cdltakuri, candles, APO_CAT_OHLC, (1, "cdltakuri"), APO_CAT_NO_PARAMS, 10,        \
      WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                       \
    X(CDLTASUKIGAP, cdltasukigap, candles, APO_CAT_OHLC, (1, "cdltasukigap"), APO_CAT_NO_PARAMS,   \
      7, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                    \
    X(CDLTHRUSTING, cdlthrusting, candles, APO_CAT_OHLC, (1, "cdlthrusting"), APO_CAT_NO_PARAMS,   \
      11, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                   \
    X(CDLTRISTAR, cdltristar, candles, APO_CAT_OHLC, (1, "cdltristar"), APO_CAT_NO_PARAMS, 12,     \
      WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                                       \
    X(CDLUNIQUE3RIVER, cdlunique3river, candles, APO_CAT_OHLC, (1, "cdlunique3river"),             \
      APO_CAT_NO_PARAMS, 12, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLUPSIDEGAP2CROWS, cdlupsidegap2crows, candles, APO_CAT_OHLC, (1, "cdlupsidegap2crows"),    \
      APO_CAT_NO_PARAMS, 12, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                \
    X(CDLXSIDEGAP3METHODS, cdlxsidegap3methods, candles, APO_CAT_OHLC, (1, "cdlxsidegap3methods"), \
      APO_CAT_NO_PARAMS, 2, WINDOW, POSITION, APO_CAT_T_JOIN, APO_CAT_CANDLE_RULE)                 \
    X(LINEARREG_INTERCEPT, linearreg_intercept, statistics, APO_CAT_CLOSE,                         \
      (1, "linearreg_intercept"), (1, APO_CAT_PERIOD(14, 2)), APO_CAT_P(0) - 1, WINDOW, RUN,       \
      APO_CAT_T_AVX2_ZEN4, "timeperiod - 1")                                                       \
    X(TSF, tsf, statistics, APO_CAT_CLOSE, (1, "tsf"), (1, APO_CAT_PERIOD(14, 2)),                 \
      APO_CAT_P(0) - 1, WINDOW, RUN, APO_CAT_T_AVX2_ZEN4, "timeperiod - 1")                        \
    X(AVGDEV, avgdev, statistics, APO_CAT_CLOSE, (1, "avgdev"), (1, APO_CAT_PERIOD(14, 2)),        \
      APO_CAT_P(0) - 1, WINDOW, POSITION, APO_CAT_T_JOIN, "timeperiod - 1")                        \
    X(SAR, sar, trend, (2, "high", "low"), (1, "sar"),                                             \
      (2, APO_CAT_ACCELERATION("acceleration", 0.02), APO_CAT_ACCELERATION("maximum", 0.2)), 1,    \
      WINDOW, CARRY, APO_CAT_T_JOIN | APO_CAT_T_WHOLE_ROW, APO_CAT_PATH_RULE)                      \
    X(SAREXT, sarext, trend, (2, "high", "low"), (1, "sarext"),                                    \
      (8, {"startvalue", 0, -1e300, 1e300, 0}, APO_CAT_ACCELERATION("offsetonreverse", 0),         \
       APO_CAT_ACCELERATION("accelerationinitlong", 0.02),                                         \
       APO_CAT_ACCELERATION("accelerationlong", 0.02),                                             \
       APO_CAT_ACCELERATION("accelerationmaxlong", 0.2),                                           \
       APO_CAT_ACCELERATION("accelerationinitshort", 0.02),                                        \
       APO_CAT_ACCELERATION("accelerationshort", 0.02),                                            \
       APO_CAT_ACCELERATION("accelerationmaxshort", 0.2)),                                         \
      1, WINDOW, CARRY, APO_CAT_T_JOIN | APO_CAT_T_WHOLE_ROW, APO_CAT_PATH_RULE)                   \
    X(NVI, nvi, volume, (2, "close", "volume"), (1, "nvi"), APO_CAT_NO_PARAMS, 0, WINDOW, CARRY,   \
      APO_CAT_T_JOIN | APO_CAT_T_WHOLE_ROW, APO_CAT_INDEX_RULE)                                    \
    X(PVI, pvi, volume, (2, "close", "volume"), (1, "pvi"), APO_CAT_NO_PARAMS, 0, WINDOW, CARRY,   \
      APO_CAT_T_JOIN | APO_CAT_T_WHOLE_ROW, APO_CAT_INDEX_RULE)                                    \
    X(LINEARREG_ANGLE, linearreg_angle, statistics, APO_CAT_CLOSE, (1, "linearreg_angle"),         \
      (1, APO_CAT_PERIOD(14, 2)), APO_CAT_P(0) - 1, WINDOW, RUN, 0, "timeperiod - 1")              \
    X(APO, apo, oscillators, APO_CAT_CLOSE, (1, "apo"), APO_CAT_PO_PARAMS, APO_CAT_PO_LOOKBACK,    \
      PO, RUN, APO_CAT_T_AHEAD, APO_CAT_PO_RULE)                                                   \
    X(PPO, ppo, oscillators, APO_CAT_CLOSE, (1, "ppo"), APO_CAT_PO_PARAMS, APO_CAT_PO_LOOKBACK,    \
      PO, RUN, APO_CAT_T_AHEAD, APO_CAT_PO_RULE)                                                   \
    X(ACOS, acos, transforms, APO_CAT_CLOSE, (1, "acos"), APO_CAT_NO_PARAMS, 0, WINDOW, POSITION,  \
      APO_CAT_T_JOIN, "none")                                                                      \
    X(ASIN, asin, transforms, APO_CAT_CLOSE, (1, "asin"), APO_CAT_NO_PARAMS, 0, WINDOW, POSITION,  \
      APO_CAT_T_JOIN, "none")                                                                      \
    X(ATAN, atan, transforms, APO_CAT_CLOSE, (1, "atan"), APO_CAT_NO_PARAMS, 0, WINDOW, POSITION,  \
      APO_CAT_T_JOIN, "none")                                                                      \
    X(COS, cos, transforms, APO_CAT_CLOSE, (1, "cos"), APO_CAT_NO_PARAMS, 0, WINDOW, POSITION,     \
      APO_CAT_T_JOIN, "none")                                                                      \
    X(SIN, sin, transforms, APO_CAT_CLOSE, (1, "sin"), APO_CAT_NO_PARAMS, 0, WINDOW, POSITION,     \
      APO_CAT_T_JOIN, "none")                                                                      \
    X(TAN, tan, transforms, APO_CAT_CLOSE, (1, "tan"), APO_CAT_NO_PARAMS, 0, WINDOW, POSITION,     \
      APO_CAT_T_JOIN, "none")                                                                      \
    X(MAXINDEX, maxindex, transforms, APO_CAT_CLOSE, (1, "maxindex"), (1, APO_CAT_PERIOD(30, 2)),  \
      APO_CAT_P(0) - 1, WINDOW, CARRY, APO_CAT_T_JOIN | APO_CAT_T_WHOLE_ROW, APO_CAT_TRACKER_RULE) \
    X(MININDEX, minindex, transforms, APO_CAT_CLOSE, (1, "minindex"), (1, APO_CAT_PERIOD(30, 2)),  \
      APO_CAT_P(0) - 1, WINDOW, CARRY, APO_CAT_T_JOIN | APO_CAT_T_WHOLE_ROW, APO_CAT_TRACKER_RULE) \
    X(MINMAXINDEX, minmaxindex, transforms, APO_CAT_CLOSE, (2, "minidx", "maxidx"),                \
      (1, APO_CAT_PERIOD(30, 2)), APO_CAT_P(0) - 1, WINDOW, CARRY,                                 \
      APO_CAT_T_JOIN | APO_CAT_T_WHOLE_ROW, APO_CAT_TRACKER_RULE)                                  \
    X(MAMA, mama, averages, APO_CAT_CLOSE, (2, "mama", "fama"),                                    \
      (2, {"fastlimit", 0.5, 0.01, 0.99, 0}, {"slowlimit", 0.05, 0.01, 0.99, 0}), 32, WINDOW,      \
      CARRY, APO_CAT_HT_TRAITS, APO_CAT_HT_RULE)                                                   \
    X(MARKETFI, marketfi, volume, (3, "high", "low", "volume"), (1, "marketfi"),                   \
      APO_CAT_NO_PARAMS, 0, WINDOW, POSITION, APO_CAT_T_JOIN, "0: the bar alone")                  \
    X(PVT, pvt, volume, (2, "close", "volume"), (1, "pvt"), APO_CAT_NO_PARAMS, 0, WINDOW, CARRY,   \
      APO_CAT_T_JOIN | APO_CAT_T_WHOLE_ROW | APO_CAT_T_AVX2_INTEL, APO_CAT_WHOLE_ROW_RULE)         \
    X(ADR, adr, trend, APO_CAT_HL, (1, "adr"), (1, APO_CAT_PERIOD(14, 1)), APO_CAT_P(0) - 1,       \
      WINDOW, RUN, 0, "timeperiod - 1")                                                            \
    X(CMF, cmf, volume, APO_CAT_HLCV, (1, "cmf"), (1, APO_CAT_PERIOD(20, 2)), APO_CAT_P(0) - 1,    \
      WINDOW, RUN, 0, "timeperiod - 1")                                                            \
    X(RVOL, rvol, volume, (1, "volume"), (1, "rvol"), (1, APO_CAT_PERIOD(20, 1)), APO_CAT_P(0),    \
      WINDOW, RUN, 0, "timeperiod: the baseline's bars before the bar")                            \
    X(EFI, efi, volume, (2, "close", "volume"), (1, "efi"), (1, APO_CAT_PERIOD(13, 1)),            \
      APO_CAT_P(0), EMA(1), RUN,                                                                   \
      APO_CAT_T_CUT | APO_CAT_T_AHEAD | APO_CAT_T_AVX2_ZEN4 | APO_CAT_T_AVX2_ZEN5,                 \
      "timeperiod + the steps the EMA takes to forget its seed (to 2^-64)")                        \
    X(PVO, pvo, volume, (1, "volume"), (1, "pvo"),                                                 \
      (3, {"fastperiod", 12, 2, APO_CAT_PERIOD_MAX, 1},                                            \
       {"slowperiod", 26, 2, APO_CAT_PERIOD_MAX, 1}, {"matype", 1, 0, 8, 1}),                      \
      APO_CAT_PO_LOOKBACK, PO, RUN, APO_CAT_T_AHEAD, APO_CAT_PO_RULE)                              \
    X(QSTICK, qstick, oscillators, (2, "open", "close"), (1, "qstick"),                            \
      (1, APO_CAT_PERIOD(10, 1)), APO_CAT_P(0) - 1, WINDOW, POSITION, APO_CAT_T_JOIN,              \
      "timeperiod - 1")                                                                            \
    X(AO, ao, oscillators, APO_CAT_HL, (1, "ao"), APO_CAT_AO_PARAMS, APO_CAT_AO_LOOKBACK, WINDOW,  \
      POSITION, APO_CAT_T_JOIN, "max(fastperiod, slowperiod) - 1")                                 \
    X(AC, ac, oscillators, APO_CAT_HL, (1, "ac"), APO_CAT_AC_PARAMS,                               \
      APO_CAT_AO_LOOKBACK + (APO_CAT_P(2) - 1), WINDOW, POSITION, APO_CAT_T_JOIN,                  \
      "max(fastperiod, slowperiod) - 1 + (signalperiod - 1)")                                      \
    X(DPO, dpo, oscillators, APO_CAT_CLOSE, (1, "dpo"), (1, APO_CAT_PERIOD(20, 2)),                \
      APO_CAT_DPO_LOOKBACK, WINDOW, POSITION, APO_CAT_T_JOIN,                                      \
      "max(timeperiod - 1, timeperiod / 2 + 1): the window and the displaced close")               \
    X(CMOU, cmou, oscillators, APO_CAT_CLOSE, (1, "cmou"), (1, APO_CAT_PERIOD(14, 2)),             \
      APO_CAT_P(0), WINDOW, POSITION, APO_CAT_T_JOIN, "timeperiod")                                \
    X(ER, er, oscillators, APO_CAT_CLOSE, (1, "er"), (1, APO_CAT_PERIOD(10, 2)), APO_CAT_P(0),     \
      WINDOW, POSITION, APO_CAT_T_JOIN, "timeperiod")                                              \
    X(VHF, vhf, oscillators, APO_CAT_CLOSE, (1, "vhf"), (1, APO_CAT_PERIOD(28, 2)), APO_CAT_P(0),  \
      WINDOW, POSITION, APO_CAT_T_JOIN, "timeperiod")                                              \
    X(COPPOCK, coppock, oscillators, APO_CAT_CLOSE, (1, "coppock"), APO_CAT_COPPOCK_PARAMS,        \
      (APO_CAT_P(1) > APO_CAT_P(2) ? APO_CAT_P(1) : APO_CAT_P(2)) + APO_CAT_P(0) - 1, WINDOW,      \
      POSITION, APO_CAT_T_JOIN, "max(roc1period, roc2period) + wmaperiod - 1")                     \
    X(ERI, eri, oscillators, APO_CAT_HLC, (2, "bullpower", "bearpower"),                           \
      (1, APO_CAT_PERIOD(13, 1)), APO_CAT_P(0) - 1, EMA(1), RUN, APO_CAT_T_JOIN,                   \
      "(timeperiod - 1) + the steps the EMA takes to forget its seed (to 2^-64)")                  \
    X(TSI, tsi, oscillators, APO_CAT_CLOSE, (1, "tsi"), APO_CAT_TSI_PARAMS,                        \
      APO_CAT_P(0) + APO_CAT_P(1) - 1, TSI, RUN,                                                   \
      APO_CAT_T_CUT | APO_CAT_T_AVX2_ZEN4 | APO_CAT_T_AVX2_ZEN5,                                   \
      "firstperiod + secondperiod - 1 + the steps each EMA takes to forget its seed (to 2^-64), "  \
      "and the longer once more for the chain")                                                    \
    X(VORTEX, vortex, trend, APO_CAT_HLC, (2, "plusvi", "minusvi"), (1, APO_CAT_PERIOD(14, 1)),    \
      APO_CAT_P(0), WINDOW, POSITION, APO_CAT_T_JOIN, "timeperiod: the window and the bar before") \
    X(FOSC, fosc, statistics, APO_CAT_CLOSE, (1, "fosc"), (1, APO_CAT_PERIOD(5, 2)), APO_CAT_P(0), \
      WINDOW, RUN, 0, "timeperiod: tsf's window one bar back")                                     \
    X(MACDEXT, macdext, oscillators, APO_CAT_CLOSE, (3, "macd", "macdsignal", "macdhist"),         \
      APO_CAT_MACDEXT_PARAMS, APO_CAT_MACDEXT_LOOKBACK, MACDEXT, OWN, 0, APO_CAT_MACDEXT_RULE)     \
    X(STOCHRSI, stochrsi, oscillators, APO_CAT_CLOSE, (2, "fastk", "fastd"),                       \
      (4, APO_CAT_PERIOD(14, 2), {"fastk_period", 5, 1, APO_CAT_PERIOD_MAX, 1},                    \
       {"fastd_period", 3, 1, APO_CAT_PERIOD_MAX, 1}, {"fastd_matype", 0, 0, 8, 1}),               \
      APO_CAT_P(0) + (APO_CAT_P(1) - 1) + apo__ma_lookback((int)APO_CAT_P(3), APO_CAT_P(2)),       \
      STOCHRSI, OWN, 0, APO_CAT_STOCHRSI_RULE)                                                     \
    X(WAD, wad, oscillators, APO_CAT_HLC, (1, "wad"), APO_CAT_NO_PARAMS, 0, WINDOW, CARRY,         \
      APO_CAT_T_JOIN | APO_CAT_T_WHOLE_ROW | APO_CAT_T_AVX2_INTEL, APO_CAT_WHOLE_ROW_RULE)         \
    X(FRACTAL, fractal, oscillators, APO_CAT_HL, (2, "swinghigh", "swinglow"),                     \
      (2, {"leftbars", 2, 1, APO_CAT_PERIOD_MAX, 1}, {"rightbars", 2, 1, APO_CAT_PERIOD_MAX, 1}),  \
      APO_CAT_P(0) + APO_CAT_P(1), WINDOW, POSITION, APO_CAT_T_JOIN,                               \
      "leftbars + rightbars: the window")                                                          \
    X(PERCENTILE, percentile, statistics, APO_CAT_CLOSE, (1, "percentile"),                        \
      (2, {"timeperiod", 30, 2, 10000, 1}, {"percentile", 50, 0, 100, 0}), APO_CAT_P(0) - 1,       \
      WINDOW, POSITION, APO_CAT_T_JOIN, "timeperiod - 1")                                          \
    X(CUMSUM, cumsum, transforms, APO_CAT_CLOSE, (1, "cumsum"), APO_CAT_NO_PARAMS, 0, WINDOW,      \
      CARRY, APO_CAT_T_JOIN | APO_CAT_T_WHOLE_ROW | APO_CAT_T_AVX2_INTEL, APO_CAT_WHOLE_ROW_RULE)  \
    X(DONCHIAN, donchian, averages, APO_CAT_HL, (3, "upperband", "middleband", "lowerband"),       \
      (1, APO_CAT_PERIOD(20, 2)), APO_CAT_P(0) - 1, WINDOW, POSITION, APO_CAT_T_JOIN,              \
      "timeperiod - 1")                                                                            \
    X(VWMA, vwma, volume, (2, "close", "volume"), (1, "vwma"), (1, APO_CAT_PERIOD(30, 1)),         \
      APO_CAT_P(0) - 1, WINDOW, RUN, 0, "timeperiod - 1")                                          \
    X(RMA, rma, averages, APO_CAT_CLOSE, (1, "rma"), (1, APO_CAT_PERIOD(30, 1)), APO_CAT_P(0) - 1, \
      WILDER(1), RUN, APO_CAT_T_CUT | APO_CAT_T_AHEAD | APO_CAT_T_AVX2_ZEN4 | APO_CAT_T_AVX2_ZEN5, \
      "(timeperiod - 1) + the steps Wilder's average takes to forget its seed (to 2^-64)")         \
    X(ZLEMA, zlema, averages, APO_CAT_CLOSE, (1, "zlema"), (1, APO_CAT_PERIOD(30, 1)),             \
      (APO_CAT_P(0) - 1) / 2 + APO_CAT_P(0) - 1, EMA(1), RUN, APO_CAT_T_CUT | APO_CAT_T_AHEAD,     \
      "the lag (timeperiod - 1) / 2 + (timeperiod - 1) + the steps the EMA takes to forget its "   \
      "seed (to 2^-64)")                                                                           \
    X(PERCENTRANK, percentrank, statistics, APO_CAT_CLOSE, (1, "percentrank"),                     \
      (1, {"timeperiod", 100, 2, 10000, 1}), APO_CAT_P(0), WINDOW, POSITION, APO_CAT_T_JOIN,       \
      "timeperiod: the window")                                                                    \
    X(HMA, hma, averages, APO_CAT_CLOSE, (1, "hma"), (1, APO_CAT_PERIOD(20, 1)),                   \
      apo__hma_lookback(APO_CAT_P(0)), WINDOW, POSITION, APO_CAT_T_JOIN,                           \
      "(timeperiod - 1) + (floor(sqrt(timeperiod)) - 1): the window")                              \
    X(MASSI, massi, trend, APO_CAT_HL, (1, "massi"),                                               \
      (2, {"fastperiod", 9, 2, APO_CAT_PERIOD_MAX, 1},                                             \
       {"slowperiod", 25, 2, APO_CAT_PERIOD_MAX, 1}),                                              \
      2 * (APO_CAT_P(0) - 1) + (APO_CAT_P(1) - 1), EMA(3), NONE,                                   \
      APO_CAT_T_SIDE_BY_SIDE | APO_CAT_T_AVX2_ZEN5,                                                \
      "the lookback + three times the steps the fast EMA takes to forget its seed (to 2^-64)")     \
    X(CVI, cvi, trend, APO_CAT_HL, (1, "cvi"),                                                     \
      (2, APO_CAT_PERIOD(10, 2), {"rocperiod", 10, 1, APO_CAT_PERIOD_MAX, 1}),                     \
      APO_CAT_P(0) - 1 + APO_CAT_P(1), EMA(1), RUN,                                                \
      APO_CAT_T_SIDE_BY_SIDE | APO_CAT_T_AHEAD | APO_CAT_T_AVX2_ZEN4 | APO_CAT_T_AVX2_ZEN5 |       \
          APO_CAT_T_AVX2_INTEL,                                                                    \
      "(timeperiod - 1) + rocperiod + the steps the EMA takes to forget its seed (to 2^-64)")      \
    X(KC, kc, trend, APO_CAT_HLC, (3, "upperband", "middleband", "lowerband"),                     \
      (3, APO_CAT_PERIOD(20, 2), {"atrperiod", 10, 1, APO_CAT_PERIOD_MAX, 1},                      \
       {"nbdev", 2, -3e37, 3e37, 0}),                                                              \
      APO_CAT_KC_LOOKBACK, KC, RUN, APO_CAT_T_AHEAD,                                               \
      "max(timeperiod - 1, atrperiod) + the steps the slower of the EMA and the ATR takes to "     \
      "forget its seed (to 2^-64)")                                                                \
    X(SUPERTREND, supertrend, trend, APO_CAT_HLC, (2, "supertrend", "trend"),                      \
      (2, APO_CAT_PERIOD(10, 2), {"multiplier", 3, 0, 3e37, 0}), APO_CAT_P(0), WINDOW, CARRY,      \
      APO_CAT_T_JOIN | APO_CAT_T_WHOLE_ROW, APO_CAT_PATH_RULE)                                     \
    X(HA, ha, transforms, APO_CAT_OHLC, (4, "haopen", "hahigh", "halow", "haclose"),               \
      APO_CAT_NO_PARAMS, 0, HA, RUN, APO_CAT_T_AHEAD,                                              \
      "the 64 steps haopen's halving takes to forget its seed (to 2^-64)")                         \
    X(RVI, rvi, statistics, APO_CAT_CLOSE, (1, "rvi"),                                             \
      (2, APO_CAT_PERIOD(14, 1), {"stddevperiod", 10, 2, APO_CAT_PERIOD_MAX, 1}),                  \
      (APO_CAT_P(1) - 1) + (APO_CAT_P(0) - 1), WILDER(1), RUN,                                     \
      APO_CAT_T_AHEAD | APO_CAT_T_AVX2_INTEL,                                                      \
      "(stddevperiod - 1) + (timeperiod - 1) + the steps Wilder's average takes to forget its "    \
      "seed (to 2^-64)")                                                                           \
    X(SMI, smi, oscillators, APO_CAT_HLC, (2, "smi", "smisignal"), APO_CAT_SMI_PARAMS,             \
      APO_CAT_SMI_LOOKBACK, SMI, RUN, APO_CAT_T_AHEAD, APO_CAT_SMI_RULE)                           \
    X(KDJ, kdj, oscillators, APO_CAT_HLC, (3, "k", "d", "j"), APO_CAT_KDJ_PARAMS,                  \
      APO_CAT_KDJ_LOOKBACK, KDJ, RUN, APO_CAT_T_AHEAD, APO_CAT_KDJ_RULE)                           \
    X(VWAP, vwap, volume, APO_CAT_HLCV, (1, "vwap"), APO_CAT_NO_PARAMS, 0, WINDOW, CARRY,          \
      APO_CAT_T_JOIN | APO_CAT_T_WHOLE_ROW | APO_CAT_T_AVX2_INTEL, APO_CAT_WHOLE_ROW_RULE)

#endif /* APO_KERNELS_CATALOG_TABLE_H */
