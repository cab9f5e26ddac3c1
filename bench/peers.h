/*
 * peers.h: the libraries apo-bench-peers compares apportion with, Tulip Indicators and
 * TA-Lib, from their PyPI packages (peers.c): TA-Lib's wheel's own shared library, and Tulip
 * built from the C sources of tulipy's sdist.
 */
#ifndef APO_BENCH_PEERS_H
#define APO_BENCH_PEERS_H

#include <stddef.h>

/* The PyPI packages, pinned so that every run of record loads the same code: the ta-lib
 * 0.8.2 wheel bundles the TA-Lib C library 0.8.1 (TA_GetVersionString; a shared library that
 * exports TA-Lib's C functions, some of them chosen for the CPU when it is loaded: GNU
 * indirect functions), and the tulipy 0.4.0 sdist the C sources of Tulip Indicators 0.8.4. */
#define BENCH_PEER_TALIB_VERSION "0.8.2"
#define BENCH_PEER_TALIB "ta-lib==" BENCH_PEER_TALIB_VERSION
#define BENCH_PEER_TULIPY_VERSION "0.4.0"
#define BENCH_PEER_TULIPY "tulipy==" BENCH_PEER_TULIPY_VERSION

/* The libraries bench_peers_find looks in. */
enum { BENCH_PEER_LIB_TULIP, BENCH_PEER_LIB_TALIB, BENCH_PEER_LIB_TALIB06 };

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
    char talib06_version[96]; /* "" where no TA-Lib 0.6 is at hand */
    bench_ti_fn ti_bbands, ti_macd;
    bench_ta_bbands_fn ta_bbands;
    bench_ta_macd_fn ta_macd;
    /* The loaded libraries, for the catalog's functions (bench_peers_find); talib06_lib is
     * TA-Lib 0.6.0-dev where an older cache still holds its npm build, else NULL. */
    void *tulip_lib, *talib_lib, *talib06_lib;
} bench_peers;

/*
 * Finds or makes the peers in `cache_dir` (NULL: $XDG_CACHE_HOME/apportion-peers, else
 * ~/.cache/apportion-peers): `pip download` of both packages (with the pip of a virtual
 * environment made there), unpacked there, TA-Lib's wheel library taken as it is and Tulip
 * built with $CC (else cc) into a shared library; both are then loaded, and TA-Lib 0.6 too
 * where the folder still holds its npm build (libtalib.so). Every step whose result is
 * already there is skipped (rebuild 1: build Tulip again). Writes what ran to
 * <dir>/build.log. Returns 0, or -1 with why in `why` (python3-venv missing, PyPI
 * unreachable, a build that failed, a symbol not found): the bench then skips the comparison.
 */
int bench_peers_load(const char *cache_dir, int rebuild, bench_peers *out, char *why,
                     size_t why_size);

/* Timed calls per contender for a configuration of `samples` samples: `forced` when it is
 * above 0 (--reps), else clamp(1e8 / samples, 5, 41), the rule both sections of
 * apo-bench-peers print. */
int bench_peers_reps(int forced, size_t samples);

/* Looks up the function `name` in library `talib` (BENCH_PEER_LIB_*) of loaded peers and
 * stores it in *fn_ptr (a pointer to a function pointer of the right type). Returns 0, or -1
 * when the library is not loaded or has no such symbol (*fn_ptr untouched). */
int bench_peers_find(const bench_peers *p, int talib, const char *name, void *fn_ptr);

#endif
