/*
 * peers.h: the libraries apo-bench-peers compares apportion with, Tulip Indicators and
 * TA-Lib, built from the C sources that their npm packages bundle (peers.c).
 */
#ifndef APO_BENCH_PEERS_H
#define APO_BENCH_PEERS_H

#include <stddef.h>

/* The npm packages, pinned so that every run of record builds the same sources: tulind
 * 0.8.20 bundles Tulip Indicators 0.8.4, talib 1.1.6 bundles TA-Lib 0.6.0-dev. */
#define BENCH_PEER_TULIND "tulind@0.8.20"
#define BENCH_PEER_TALIB "talib@1.1.6"

/* Tulip Indicators' entry points (indicators.h): outputs start at the first valid index. */
typedef int (*bench_ti_fn)(int size, const double *const *inputs, const double *options,
                           double *const *outputs);

/* TA-Lib's (ta_func.h), with its MA type and return codes as ints. */
typedef int (*bench_ta_bbands_fn)(int start, int end, const double *in, int period, double up,
                                  double dn, int ma_type, int *out_begin, int *out_count,
                                  double *upper, double *middle, double *lower);
typedef int (*bench_ta_macd_fn)(int start, int end, const double *in, int fast, int slow,
                                int signal, int *out_begin, int *out_count, double *macd,
                                double *signal_line, double *hist);

typedef struct bench_peers {
    char dir[512];   /* the cache folder */
    char cc[256];    /* the compiler that built them */
    char flags[128]; /* and its flags */
    char tulip_version[32];
    char talib_version[96];
    bench_ti_fn ti_bbands, ti_macd;
    bench_ta_bbands_fn ta_bbands;
    bench_ta_macd_fn ta_macd;
    /* The loaded libraries, for the catalog's functions (bench_peers_find). */
    void *tulip_lib, *talib_lib;
} bench_peers;

/*
 * Finds or makes the peers in `cache_dir` (NULL: $XDG_CACHE_HOME/apportion-peers, else
 * ~/.cache/apportion-peers): `npm pack` of both packages, unpacked there, each built with
 * $CC (else cc) into a shared library that is then loaded; every step whose result is
 * already there is skipped (rebuild 1: redo the builds). Writes what ran to <dir>/build.log.
 * Returns 0, or -1 with why in `why` (npm missing or the registry unreachable, a build
 * that failed, a symbol not found): the bench then skips the comparison.
 */
int bench_peers_load(const char *cache_dir, int rebuild, bench_peers *out, char *why,
                     size_t why_size);

/* Timed calls per contender for a configuration of `samples` samples: `forced` when it is
 * above 0 (--reps), else clamp(1e8 / samples, 5, 41), the rule both sections of
 * apo-bench-peers print. */
int bench_peers_reps(int forced, size_t samples);

/* Looks up the function `name` in TA-Lib (talib 1) or Tulip Indicators (talib 0) of loaded
 * peers and stores it in *fn_ptr (a pointer to a function pointer of the right type).
 * Returns 0, or -1 when the library has no such symbol (*fn_ptr untouched). */
int bench_peers_find(const bench_peers *p, int talib, const char *name, void *fn_ptr);

#endif
