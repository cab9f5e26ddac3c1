/*
 * peers_catalog.h: the catalog section of apo-bench-peers (peers_catalog.c): every catalog
 * kernel that TA-Lib has (peer_kernels.c), timed beside TA-Lib's function and Tulip's where
 * Tulip has one, after checking that the outputs agree with TA-Lib's.
 */
#ifndef APO_BENCH_PEERS_CATALOG_H
#define APO_BENCH_PEERS_CATALOG_H

#include "apportion.h"
#include "peers.h"

typedef struct peers_catalog_options {
    const char *kernels; /* comma list of kernel names, "catalog" for every row; NULL: every row */
    double max_size;     /* one series of 1e4 and of 1e6 samples, each up to this */
    int batch;           /* also rows of 10000 samples (peers_catalog.c: BATCH_ROWS) */
    int reps;            /* timed calls per contender; 0: the rule printed */
    int fresh_series;    /* 0: one series replayed; else the largest pool of distinct series
                          * that the repetitions cycle through (peers_catalog.c: pool_size) */
    double period;       /* 0: TA-Lib's defaults; else every row with a timeperiod at this one
                          * and the others left out (peers_catalog.c: at_period) */
} peers_catalog_options;

/* Runs the section on rt[0] ("cpu:threads=1") and rt[1] ("cpu") and prints one table per
 * size. Returns 0, or -1 when a call fails or memory runs out (said on stderr). */
int peers_catalog_run(const bench_peers *p, apo_runtime *const rt[2],
                      const peers_catalog_options *o);

/* Whether `name` is a kernel of the section (for checking --kernels): a row of
 * peer_kernels.c, or a catalog kernel of rt, whose row is made from it (peer_generate; one
 * TA-Lib lacks is then skipped with a line saying so). */
int peers_catalog_has(apo_runtime *rt, const char *name);

#endif
