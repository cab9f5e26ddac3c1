/*
 * balance_rows.h: what apo-bench-balance's series measure (bench_balance.c runs them) and
 * what reports them (balance_report.c: the table, the targets, the JSON, CSV and timeline
 * files). Shared by those two files only.
 */
#ifndef APO_BENCH_BALANCE_ROWS_H
#define APO_BENCH_BALANCE_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "apportion.h"

/* The targets of the balancing issue. */
#define TARGET_PROFILED_EFF 0.98
#define TARGET_ONLINE_EFF 0.97
#define TARGET_ONLINE_CALLS 5

/* Median makespans within this fraction count as "not worse" on the wall clock, where two
 * series of the same split differ by a few percent from noise alone. The virtual clock is
 * exact, so there only rounding is forgiven. */
#define WALL_NOISE_REL 0.05
#define VIRTUAL_NOISE_REL 1e-9

/* calls_to_hold()'s answers besides a count. */
#define REACH_NEVER (-1)
#define REACH_NA (-2)

/* ---- scenarios ------------------------------------------------------------------------ */

typedef enum strategy { S_EQUAL = 0, S_PROFILED = 1, S_ONLINE = 2, N_STRATEGIES = 3 } strategy;

/* "equal", "profiled" or "online". */
const char *balance_strategy_name(strategy s);

#define MAX_SIZES 4

typedef struct scenario {
    const char *name;
    const char *devices; /* NULL: the machine's devices (APPORTION_DEVICES, else auto) */
    int machine;         /* wall clock, machine kernel */
    const char *what;
    size_t n_sizes; /* 0: --size */
    double sizes[MAX_SIZES];
    int default_calls;
    int slowdown; /* a device slows down during the series */
    /* The profiled strategy's device list, with %d for slow_after (NULL: `devices`).
     * Profiling runs count as a sim device's calls, so with the same slow_after the device
     * would slow down during profiling instead of at the same call of the series as with
     * the other strategies: its slow_after is moved on by the profiling calls. */
    const char *profiled_devices_fmt;
} scenario;

/* ---- one series of calls -------------------------------------------------------------- */

typedef struct call_rec {
    double makespan_ms, efficiency;
    apo_ratio_source source;
    int slow;  /* a device with slow_after ran at its slow rate in this call */
    int probe; /* exploration: see mark_probe_calls() */
    long wrong;
    double share[APO_MAX_DEVICES], wall_ms[APO_MAX_DEVICES], wait_ms[APO_MAX_DEVICES];
    uint64_t elements[APO_MAX_DEVICES];
} call_rec;

typedef struct row_result {
    const scenario *sc;
    const char *kernel;
    size_t size;
    strategy strat;
    int virtual_clock;
    int failed;
    char failure[512];
    size_t n_devices;
    char ids[APO_MAX_DEVICES][APO_ID_MAX];
    size_t n_calls;
    call_rec *calls;
    double median_ms, final_eff, min_eff;
    long reach;     /* calls after the first until efficiency holds >= 0.97; -1: never */
    long slow_call; /* 1-based index of the first slowed call; 0: none */
    long rereach;   /* calls after the first slowed one until it holds again; -1: never */
    long wrong;
    int has_profile;
    double profile_s; /* wall time apo_profile_auto_balance() took */
    apo_profile_result profile;
} row_result;

/* ---- reporting (balance_report.c) ---------------------------------------------------- */

/* The targets met and missed, each also kept as a JSON object in `list`. */
typedef struct targets {
    json_t *list;
    int pass, fail;
} targets;

void balance_print_table_header(void);
void balance_print_row(const row_result *r);
/* The profile a profiled series started from, as comment lines. */
void balance_print_profile(const row_result *r);
json_t *balance_row_json(const row_result *r);
/* Prints each target with PASS or FAIL, and counts them in *t. */
void balance_check_targets(const row_result *rows, size_t n_rows, targets *t);
/* Return 0, or -1 with a message on stderr. */
int balance_write_csv(const char *path, const row_result *rows, size_t n_rows);
int balance_write_timeline(const char *path, const row_result *rows, size_t n_rows);

#endif
