/*
 * lanes_paths.h: the entry points of the lane kernels, one set per vector path
 * (lanes_sse2.c, lanes_avx2.c, lanes_avx512.c, each built by lanes_entry.h, and bollinger's
 * pass from pass_lanes_<path>.c), for the dispatcher (lanes_dispatch.c). Each runs its tiles in
 * rounds of the path's lanes, in the order given. Internal to kernels/: a path's functions may only
 * be called once apo__cpu_isa_supported() has accepted the path.
 */
#ifndef APO_LANES_PATHS_H
#define APO_LANES_PATHS_H

#include "kernels.h"
#include "score_sets.h"

/* The EMAs' rates of a macd tile (macd_tile.h). */
struct apo__macd_rates;
/* Where a bollinger tile stands between a stream's pieces (bollinger_tile.h). */
struct apo__bollinger_cursor;

#define APO_LANES_DECLARE(path)                                                                    \
    void apo__bollinger_tiles_##path(const double *x, size_t cols, const apo__tile_span *tiles,    \
                                     size_t count, size_t period, double nbdev_up,                 \
                                     double nbdev_dn, double *upper, double *middle,               \
                                     double *lower, int stream);                                   \
    void apo__macd_tiles_##path(                                                                   \
        const double *x, size_t cols, const apo__tile_span *tiles, size_t count, size_t fast,      \
        size_t slow, size_t signal, size_t h, const struct apo__macd_rates *r, double *macd,       \
        double *signal_line, double *hist, int stream, apo__macd_edges *edges);                    \
    void apo__returns_stats_tiles_##path(                                                          \
        const double *x, size_t cols, const apo__tile_span *tiles, size_t count,                   \
        apo__moments *const *partials, double *scratch, size_t scratch_len);                       \
    void apo__score_fold_sets_##path(const apo__score_sets_tile *tile, const apo__score_set *sets, \
                                     size_t n_sets, apo__score_fold *folds);                       \
    void apo__score_ride_sets_##path(const apo__score_sets_tile *tile, const apo__score_set *sets, \
                                     size_t n_sets, int *ref_pos, apo__score_fold *const *chains,  \
                                     size_t n_chains);                                             \
    void apo__score_moves_##path(const double *close, size_t t0, size_t t1, double *move,          \
                                 unsigned char *finite);                                           \
    void apo__bollinger_pass_tiles_pass_##path(const double *x, size_t cols,                       \
                                               const apo__tile_span *tiles, size_t count,          \
                                               size_t period, double *mean, double *sd);           \
    void apo__bollinger_stream_lanes_##path(                                                       \
        const double *const *x, double *const *upper, double *const *middle, double *const *lower, \
        struct apo__bollinger_cursor *const *cursors, const size_t *stops, size_t n, size_t p,     \
        double nbdev_up, double nbdev_dn);

APO_LANES_DECLARE(sse2)
#ifdef APO_HAVE_LANES_AVX2
APO_LANES_DECLARE(avx2)
#endif
#ifdef APO_HAVE_LANES_AVX512
APO_LANES_DECLARE(avx512)
#endif
#ifdef APO_HAVE_LANES_AVX512_YMM
/* bollinger's 4-lane rounds with AVX-512VL's registers (lanes_avx512_ymm.c). */
void apo__bollinger_tiles_avx512_ymm(const double *x, size_t cols, const apo__tile_span *tiles,
                                     size_t count, size_t period, double nbdev_up, double nbdev_dn,
                                     double *upper, double *middle, double *lower, int stream);
#endif

#undef APO_LANES_DECLARE

#endif /* APO_LANES_PATHS_H */
