/*
 * lanes_dispatch.c: the group functions of kernels.h (apo__cpu_bollinger_tiles,
 * apo__cpu_macd_tiles, apo__cpu_returns_stats_tiles), which hand their tiles to a vector path,
 * apo__cpu_bollinger_pass_tiles, the same for bollinger's pass of a scored sweep, and
 * apo__cpu_score_fold_sets and apo__cpu_score_moves, which hand a path the sets of a shared
 * scored pass and the close's changes they fold.
 *
 * What: the tiles are ordered by length, longest first, so that the tiles of one round are
 * about as long as each other and few lanes idle; they then go in rounds of the path's
 * lanes. A last round of fewer tiles goes to the narrowest path that still holds it (a lone
 * tile to the scalar tile function): a round costs its path's step for every sample of its
 * longest tile, however many of its lanes are busy, and a narrow step costs less. Two
 * exceptions: a lone macd tile is cut into pieces in the lanes of the call's path
 * (apo__cpu_macd_split_tile), and on AVX-512 bollinger's 4-lane rounds take the build with
 * AVX-512VL's registers (lanes_avx512_ymm.c).
 *
 * Determinism: every path, and the scalar function, computes each tile with the operations
 * of its scalar tile body (kernels/<room>/<name>_tile.h) in the same order, so which path and which
 * lane computes a tile never changes its bits (docs/kernels-vector-paths.md, "Vector paths").
 */
#include "isa_cases.h"
#include "kernels.h"
#include "lanes_paths.h"
#include "lone_tile_cut.h"
#include "macd_cut.h"
#include "macd_tile.h"
#include "macdfix_tile.h"

#include <assert.h>

size_t apo__bollinger_stream_min_bytes = APO_BOLLINGER_STREAM_MIN_BYTES;
size_t apo__macd_stream_min_bytes = APO_MACD_STREAM_MIN_BYTES;

/* Whether a call's `outputs` arrays of rows x cols doubles take streaming stores. */
static int stream_outputs(size_t rows, size_t cols, size_t outputs, size_t min_bytes) {
    const double bytes = (double)rows * (double)cols * (double)outputs * sizeof(double);
    return bytes >= (double)min_bytes;
}

/* Tiles are ordered in chunks of this many. */
#define APO_LANES_CHUNK 64

/* sorted[] gets tiles[0 .. count) (count <= APO_LANES_CHUNK) by decreasing length, ties in
 * index order, and index[] their positions in tiles[]. */
static void by_length(const apo__tile_span *tiles, size_t count, apo__tile_span *sorted,
                      size_t *index) {
    for (size_t i = 0; i < count; i++) {
        const size_t len = tiles[i].end - tiles[i].begin;
        size_t k = i;
        while (k > 0 && sorted[k - 1].end - sorted[k - 1].begin < len) {
            sorted[k] = sorted[k - 1];
            index[k] = index[k - 1];
            k--;
        }
        sorted[k] = tiles[i];
        index[k] = i;
    }
}

/* The path for a round of n tiles, at most `isa` (a supported path): the narrowest
 * supported one with n lanes or more; AUTO for a lone tile, which the scalar function
 * takes. */
static apo__cpu_isa round_path(apo__cpu_isa isa, size_t n) {
    if (n <= 1)
        return APO_CPU_ISA_AUTO;
    for (int p = APO_CPU_ISA_SSE2; p < (int)isa; p++)
        if (apo__cpu_isa_lanes((apo__cpu_isa)p) >= n && apo__cpu_isa_supported((apo__cpu_isa)p))
            return (apo__cpu_isa)p;
    return isa;
}

/* Calls `run(path, first, n)` for the rounds of the `count` tiles in `sorted`: full rounds of
 * `isa`, then the rest on round_path(). */
#define FOR_ROUNDS(isa, count, path, first, n, run)                                                \
    do {                                                                                           \
        const size_t lanes_ = apo__cpu_isa_lanes(isa);                                             \
        const size_t full_ = (count) / lanes_ * lanes_;                                            \
        if (full_ > 0) {                                                                           \
            const apo__cpu_isa path = (isa);                                                       \
            const size_t first = 0, n = full_;                                                     \
            run;                                                                                   \
        }                                                                                          \
        if ((count) > full_) {                                                                     \
            const apo__cpu_isa path = round_path((isa), (count)-full_);                            \
            const size_t first = full_, n = (count)-full_;                                         \
            run;                                                                                   \
        }                                                                                          \
    } while (0)

/* Calls `run` for the rounds of `count` tiles, in chunks of APO_LANES_CHUNK ordered by
 * length (by_length): `path`, `sorted` and `n` name the round's path, tiles and count. For the
 * families whose outputs go by position alone (no partials to keep in the tiles' order). */
#define FOR_SORTED_ROUNDS(isa, tiles, count, path, sorted, n, run)                                 \
    do {                                                                                           \
        for (size_t c_ = 0; c_ < (count); c_ += APO_LANES_CHUNK) {                                 \
            const size_t m_ = (count)-c_ < APO_LANES_CHUNK ? (count)-c_ : APO_LANES_CHUNK;         \
            apo__tile_span sorted_[APO_LANES_CHUNK];                                               \
            size_t index_[APO_LANES_CHUNK];                                                        \
            by_length((tiles) + c_, m_, sorted_, index_);                                          \
            FOR_ROUNDS(isa, m_, path, first_, n, {                                                 \
                const apo__tile_span *sorted = sorted_ + first_;                                   \
                run;                                                                               \
            });                                                                                    \
        }                                                                                          \
    } while (0)

static void check_spans(const apo__tile_span *tiles, size_t count, size_t rows, size_t cols) {
    assert(tiles != NULL || count == 0);
    for (size_t i = 0; i < count; i++)
        assert(tiles[i].row < rows && tiles[i].begin < tiles[i].end && tiles[i].end <= cols);
    (void)tiles, (void)count, (void)rows, (void)cols;
}

static void bollinger_on(apo__cpu_isa path, apo__cpu_isa isa, const double *x, size_t cols,
                         const apo__tile_span *tiles, size_t n, size_t period, double up, double dn,
                         double *upper, double *middle, double *lower, int stream) {
#ifdef APO_HAVE_LANES_AVX512_YMM
    /* A round of 3 or 4 tiles on an AVX-512 CPU: the 4-lane step without its spills. */
    if (path == APO_CPU_ISA_AVX2 && isa == APO_CPU_ISA_AVX512 && apo__cpu_has_avx512_ymm()) {
        apo__bollinger_tiles_avx512_ymm(x, cols, tiles, n, period, up, dn, upper, middle, lower,
                                        stream);
        return;
    }
#else
    (void)isa;
#endif
    switch (path) {
        APO_WIDE_PATH_CASES(apo__bollinger_tiles, x, cols, tiles, n, period, up, dn, upper, middle,
                            lower, stream)
    case APO_CPU_ISA_SSE2:
        apo__bollinger_tiles_sse2(x, cols, tiles, n, period, up, dn, upper, middle, lower, stream);
        return;
    default:
        for (size_t i = 0; i < n; i++) {
            const size_t o = tiles[i].row * cols;
            apo__cpu_bollinger_tile(x + o, cols, tiles[i].begin, tiles[i].end, period, up, dn,
                                    upper + o, middle + o, lower + o);
        }
        return;
    }
}

void apo__cpu_bollinger_tiles(const double *x, size_t rows, size_t cols,
                              const apo__tile_span *tiles, size_t count, size_t period,
                              double nbdev_up, double nbdev_dn, double *upper, double *middle,
                              double *lower, apo__cpu_isa isa) {
    assert(x != NULL && upper != NULL && middle != NULL && lower != NULL && period >= 1);
    check_spans(tiles, count, rows, cols);
    isa = apo__cpu_isa_resolve(isa);
    const int stream = stream_outputs(rows, cols, 3, apo__bollinger_stream_min_bytes);
    FOR_SORTED_ROUNDS(isa, tiles, count, path, sorted, n,
                      bollinger_on(path, isa, x, cols, sorted, n, period, nbdev_up, nbdev_dn, upper,
                                   middle, lower, stream));
}

void apo__cpu_bollinger_resume_lanes(const double *const *x, double *const *upper,
                                     double *const *middle, double *const *lower,
                                     void *const *states, const size_t *stops, size_t n,
                                     size_t period, double nbdev_up, double nbdev_dn,
                                     apo__cpu_isa isa) {
    assert(n <= APO_BOLLINGER_RESUME_LANES && period >= 1);
    struct apo__bollinger_cursor *const *cursors = (struct apo__bollinger_cursor *const *)states;
    switch (isa) {
        APO_WIDE_PATH_CASES(apo__bollinger_stream_lanes, x, upper, middle, lower, cursors, stops, n,
                            period, nbdev_up, nbdev_dn)
    default:
        apo__bollinger_stream_lanes_sse2(x, upper, middle, lower, cursors, stops, n, period,
                                         nbdev_up, nbdev_dn);
        return;
    }
}

/* A macd of the row: its seeds' periods (fast <= slow), its rates (from the periods, or
 * macdfix's fixed ones) and its tiles' warm-up. */
typedef struct macd_kind {
    size_t fast, slow, signal, h;
    apo__macd_rates r;
} macd_kind;

/* The rounds of `n` tiles on a vector path, `edges` NULL or one per tile (macd_lanes.h). */
static void macd_lanes_on(apo__cpu_isa path, const double *x, size_t cols,
                          const apo__tile_span *tiles, size_t n, const macd_kind *m, double *macd,
                          double *signal_line, double *hist, int stream, apo__macd_edges *edges) {
    switch (path) {
        APO_WIDE_PATH_CASES(apo__macd_tiles, x, cols, tiles, n, m->fast, m->slow, m->signal, m->h,
                            &m->r, macd, signal_line, hist, stream, edges)
    default: /* sse2, which every build has */
        apo__macd_tiles_sse2(x, cols, tiles, n, m->fast, m->slow, m->signal, m->h, &m->r, macd,
                             signal_line, hist, stream, edges);
        return;
    }
}

/* The tile [begin, end) of the row x alone, serially: apo__cpu_macd_tile's body at m's rates. */
static void macd_serial_tile(const double *x, size_t begin, size_t end, const macd_kind *m,
                             double *macd, double *signal_line, double *hist) {
    apo__macd_tile_at(apo__in_at(x), begin, end, m->fast, m->slow, m->signal, m->h, &m->r,
                      apo__out_at(macd), apo__out_at(signal_line), apo__out_at(hist));
}

/* macd of periods fast, slow and signal, its rates and warm-up from them. */
static macd_kind macd_kind_of(size_t fast, size_t slow, size_t signal) {
    macd_kind m;
    m.h = apo__macd_warmup(fast, slow, signal);
    m.signal = signal;
    apo__macd_setup(&fast, &slow, signal, &m.r);
    m.fast = fast;
    m.slow = slow;
    return m;
}

size_t apo__macd_split_pieces(size_t len, size_t h, size_t lanes) {
    return apo__cut_pieces(len, h, lanes, APO_MACD_CUT_QUARTERS);
}

/* apo__cpu_macd_split_tile for macd kind m. */
static size_t split_tile(const double *x, size_t begin, size_t end, const macd_kind *m,
                         double *macd, double *signal_line, double *hist, apo__cpu_isa isa) {
    const size_t h = m->h;
    const size_t lanes = apo__cpu_isa_lanes(isa);
    const size_t pieces = apo__macd_split_pieces(end - begin, h, lanes);
    if (pieces < 2) {
        macd_serial_tile(x, begin, end, m, macd, signal_line, hist);
        return 0;
    }
    /* Piece 0 is the tile's own start (the same warm-up origin, the same seeds); piece j > 0
     * is the tile [cut_j, cut_j+1) of a grid that starts at cut_j, whose seeds have decayed
     * below 2^-64 of the data by cut_j (docs/kernels.md, macd): its states there are
     * almost always the whole tile's to the bit, and the check below makes sure. */
    apo__tile_span spans[APO_CUT_MAX_PIECES];
    apo__macd_edges edges[APO_CUT_MAX_PIECES];
    apo__cut_spans(begin, end, h, pieces, spans);
    macd_lanes_on(isa, x, end, spans, pieces, m, macd, signal_line, hist, 0, edges);

    /* The pieces checked in order, and run again where their states at the cut are not the
     * whole tile's (macd_cut.h); without piece 0's steady end, the tile from its start. */
    int whole;
    const size_t redone =
        apo__macd_mend(x, begin, end, h, pieces, edges, &m->r, macd, signal_line, hist, &whole);
    if (whole) {
        macd_serial_tile(x, begin, end, m, macd, signal_line, hist);
    }
    return redone;
}

size_t apo__cpu_macd_split_tile(const double *x, size_t begin, size_t end, size_t fast, size_t slow,
                                size_t signal, double *macd, double *signal_line, double *hist,
                                apo__cpu_isa isa) {
    assert(x != NULL && macd != NULL && signal_line != NULL && hist != NULL && begin < end);
    const macd_kind m = macd_kind_of(fast, slow, signal);
    return split_tile(x, begin, end, &m, macd, signal_line, hist, apo__cpu_isa_resolve(isa));
}

static void macd_on(apo__cpu_isa path, apo__cpu_isa isa, const double *x, size_t cols,
                    const apo__tile_span *tiles, size_t n, const macd_kind *m, double *macd,
                    double *signal_line, double *hist, int stream) {
    if (path != APO_CPU_ISA_AUTO) {
        macd_lanes_on(path, x, cols, tiles, n, m, macd, signal_line, hist, stream, NULL);
        return;
    }
    /* A lone tile: its chain cut into pieces in the lanes of the call's path. */
    for (size_t i = 0; i < n; i++) {
        const size_t o = tiles[i].row * cols;
        split_tile(x + o, tiles[i].begin, tiles[i].end, m, macd + o, signal_line + o, hist + o,
                   isa);
    }
}

/* The tiles of macd kind m, rounds of lanes and lone tiles cut (apo__cpu_macd_tiles). */
static void macd_kind_tiles(const double *x, size_t rows, size_t cols, const apo__tile_span *tiles,
                            size_t count, const macd_kind *m, double *macd, double *signal_line,
                            double *hist, apo__cpu_isa isa) {
    check_spans(tiles, count, rows, cols);
    isa = apo__cpu_isa_resolve(isa);
    const int stream = stream_outputs(rows, cols, 3, apo__macd_stream_min_bytes);
    FOR_SORTED_ROUNDS(isa, tiles, count, path, sorted, n,
                      macd_on(path, isa, x, cols, sorted, n, m, macd, signal_line, hist, stream));
}

void apo__cpu_macd_tiles(const double *x, size_t rows, size_t cols, const apo__tile_span *tiles,
                         size_t count, size_t fast, size_t slow, size_t signal, double *macd,
                         double *signal_line, double *hist, apo__cpu_isa isa) {
    assert(x != NULL && macd != NULL && signal_line != NULL && hist != NULL);
    assert(fast >= 1 && slow >= 1 && signal >= 1);
    const macd_kind m = macd_kind_of(fast, slow, signal);
    macd_kind_tiles(x, rows, cols, tiles, count, &m, macd, signal_line, hist, isa);
}

void apo__cpu_macdfix_tiles(const double *x, size_t rows, size_t cols, const apo__tile_span *tiles,
                            size_t count, size_t signal, size_t h, double *macd,
                            double *signal_line, double *hist, apo__cpu_isa isa) {
    assert(x != NULL && macd != NULL && signal_line != NULL && hist != NULL && signal >= 1);
    macd_kind m;
    m.fast = APO_MACDFIX_FAST;
    m.slow = APO_MACDFIX_SLOW;
    m.signal = signal;
    m.h = h;
    m.r = apo__macdfix_rates(signal);
    macd_kind_tiles(x, rows, cols, tiles, count, &m, macd, signal_line, hist, isa);
}

static void returns_stats_on(apo__cpu_isa path, const double *x, size_t cols,
                             const apo__tile_span *tiles, size_t n, apo__moments *const *parts,
                             double *scratch, size_t scratch_len) {
    switch (path) {
        APO_WIDE_PATH_CASES(apo__returns_stats_tiles, x, cols, tiles, n, parts, scratch,
                            scratch_len)
    case APO_CPU_ISA_SSE2:
        apo__returns_stats_tiles_sse2(x, cols, tiles, n, parts, scratch, scratch_len);
        return;
    default:
        for (size_t i = 0; i < n; i++)
            apo__cpu_returns_stats_tile(x + tiles[i].row * cols, cols, tiles[i].begin, tiles[i].end,
                                        parts[i]);
        return;
    }
}

void apo__cpu_returns_stats_tiles(const double *x, size_t rows, size_t cols,
                                  const apo__tile_span *tiles, size_t count, apo__moments *partials,
                                  double *scratch, size_t scratch_len, apo__cpu_isa isa) {
    assert(x != NULL && partials != NULL);
    check_spans(tiles, count, rows, cols);
    if (scratch == NULL)
        scratch_len = 0;
    isa = apo__cpu_isa_resolve(isa);
    for (size_t c = 0; c < count; c += APO_LANES_CHUNK) {
        const size_t m = count - c < APO_LANES_CHUNK ? count - c : APO_LANES_CHUNK;
        apo__tile_span sorted[APO_LANES_CHUNK];
        size_t index[APO_LANES_CHUNK];
        apo__moments *parts[APO_LANES_CHUNK];
        by_length(tiles + c, m, sorted, index);
        for (size_t i = 0; i < m; i++)
            parts[i] = &partials[c + index[i]];
        FOR_ROUNDS(isa, m, path, first, n,
                   returns_stats_on(path, x, cols, sorted + first, n, parts + first, scratch,
                                    scratch_len));
    }
}

/* Rounds of the sets of a shared pass on `path`, a vector path. */
static void score_fold_on(apo__cpu_isa path, const apo__score_sets_tile *tile,
                          const apo__score_set *sets, size_t n, apo__score_fold *folds) {
    switch (path) {
        APO_WIDE_PATH_CASES(apo__score_fold_sets, tile, sets, n, folds)
    default: /* sse2, which every build has */
        apo__score_fold_sets_sse2(tile, sets, n, folds);
        return;
    }
}

void apo__cpu_score_fold_sets(const apo__score_sets_tile *tile, const apo__score_set *sets,
                              size_t n_sets, apo__score_fold *folds, apo__cpu_isa isa) {
    assert(tile != NULL && (n_sets == 0 || (sets != NULL && folds != NULL)));
    isa = apo__cpu_isa_resolve(isa);
    if (tile->widths == APO_SCORE_WIDTHS_OWN &&
        (n_sets == 1 || (n_sets == 2 && apo__cpu_isa_lanes(isa) > 2))) {
        /* Sets that fold alone below (a lone set's bars in lanes, which read one pass): each
         * on a tile of its own pass. */
        for (size_t j = 0; j < n_sets; j++) {
            apo__score_sets_tile own = *tile;
            own.out = sets[j].pass;
            own.widths = 1;
            apo__cpu_score_fold_sets(&own, &sets[j], 1, &folds[j], isa);
        }
        return;
    }
    if (n_sets == 1 || n_sets > apo__cpu_isa_lanes(isa)) {
        /* A lone set: its bars in the lanes of the widest path (score_lone_lanes.h). More
         * than a round: rounds of the path two by two (a last round however full), whose
         * chains overlap, so a last lone set costs little beside a full round. */
        score_fold_on(isa, tile, sets, n_sets, folds);
        return;
    }
    if (n_sets == 2 && apo__cpu_isa_lanes(isa) > 2) {
        /* Two sets: each alone, its bars in the lanes of the widest path, cost less than a
         * round of sse2 (docs/perf-log/2026-11-23-scored-sweeps.md, "A lone set's bars in vector
         * lanes"); three already cost more. */
        for (size_t j = 0; j < n_sets; j++)
            score_fold_on(isa, tile, &sets[j], 1, &folds[j]);
        return;
    }
    /* One round: the narrowest path that holds it, a round costing its path's step for every
     * bar however many of its lanes are busy, and a narrow step less. */
    apo__cpu_isa path = isa;
    for (int p = APO_CPU_ISA_SSE2; p < (int)isa; p++)
        if (apo__cpu_isa_lanes((apo__cpu_isa)p) >= n_sets &&
            apo__cpu_isa_supported((apo__cpu_isa)p)) {
            path = (apo__cpu_isa)p;
            break;
        }
    score_fold_on(path, tile, sets, n_sets, folds);
}

void apo__cpu_score_ride_sets(const apo__score_sets_tile *tile, const apo__score_set *sets,
                              size_t n_sets, int *ref_pos, apo__score_fold *const *chains,
                              size_t n_chains, apo__cpu_isa isa) {
    assert(tile != NULL && (n_sets == 0 || (sets != NULL && ref_pos != NULL)));
    assert(n_chains == 0 || chains != NULL);
    if (n_sets == 0 || n_chains == 0)
        return;
    /* The narrowest path whose lanes hold the sets, else the widest: a ride's step costs its
     * path's width whatever lanes are busy, as a round of apo__cpu_score_fold_sets. */
    apo__cpu_isa path = apo__cpu_isa_resolve(isa);
    for (int p = APO_CPU_ISA_SSE2; p < (int)path; p++)
        if (apo__cpu_isa_lanes((apo__cpu_isa)p) >= n_sets &&
            apo__cpu_isa_supported((apo__cpu_isa)p)) {
            path = (apo__cpu_isa)p;
            break;
        }
    switch (path) {
#ifdef APO_HAVE_LANES_AVX512
    case APO_CPU_ISA_AVX512:
        apo__score_ride_sets_avx512(tile, sets, n_sets, ref_pos, chains, n_chains);
        return;
#endif
#ifdef APO_HAVE_LANES_AVX2
    case APO_CPU_ISA_AVX2:
        apo__score_ride_sets_avx2(tile, sets, n_sets, ref_pos, chains, n_chains);
        return;
#endif
    default:
        apo__score_ride_sets_sse2(tile, sets, n_sets, ref_pos, chains, n_chains);
        return;
    }
}

void apo__cpu_score_moves(const double *close, size_t t0, size_t t1, double *move,
                          unsigned char *finite, apo__cpu_isa isa) {
    assert(close != NULL && move != NULL && finite != NULL && t0 <= t1);
    switch (apo__cpu_isa_resolve(isa)) {
        APO_WIDE_PATH_CASES(apo__score_moves, close, t0, t1, move, finite)
    default:
        apo__score_moves_sse2(close, t0, t1, move, finite);
        return;
    }
}

static void bollinger_pass_on(apo__cpu_isa path, const double *x, size_t cols,
                              const apo__tile_span *tiles, size_t n, size_t period, double *mean,
                              double *sd) {
    switch (path) {
        APO_WIDE_PATH_CASES(apo__bollinger_pass_tiles_pass, x, cols, tiles, n, period, mean, sd)
    case APO_CPU_ISA_SSE2:
        apo__bollinger_pass_tiles_pass_sse2(x, cols, tiles, n, period, mean, sd);
        return;
    default:
        for (size_t i = 0; i < n; i++) {
            const size_t o = tiles[i].row * cols;
            apo__cpu_bollinger_pass_tile(x + o, cols, tiles[i].begin, tiles[i].end, period,
                                         mean + o, sd + o);
        }
        return;
    }
}

void apo__cpu_bollinger_pass_tiles(const double *x, size_t rows, size_t cols,
                                   const apo__tile_span *tiles, size_t count, size_t period,
                                   double *mean, double *sd, apo__cpu_isa isa) {
    assert(x != NULL && mean != NULL && sd != NULL && period >= 1);
    check_spans(tiles, count, rows, cols);
    isa = apo__cpu_isa_resolve(isa);
    FOR_SORTED_ROUNDS(isa, tiles, count, path, sorted, n,
                      bollinger_pass_on(path, x, cols, sorted, n, period, mean, sd));
}
