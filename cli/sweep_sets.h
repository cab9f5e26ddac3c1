/* A parameter sweep of `apportion run`: see sweep_sets.c. */
#ifndef APO_CLI_SWEEP_SETS_H
#define APO_CLI_SWEEP_SETS_H

#include <stddef.h>

#include "options.h"

/* Half of MemAvailable (/proc/meminfo), or 1 GiB where it cannot be read: --memory's
 * default. */
size_t cli_default_memory(void);

/* Without --memory, a sweep written as raw files runs in pieces of about this many bytes of
 * outputs (at least one set each), within cli_default_memory(): every piece reuses the same
 * arrays, so only the first faults its pages in, and a piece is written while much of it is
 * still in cache. One piece of a whole large sweep would fault in every page of it (with
 * huge pages asked for, compaction too), which took longer than the computing and the
 * writing together (docs/perf-log/2026-11-22-sweeps.md, "A sweep from the command line"). A CSV
 * sweep, which needs every set at once, keeps the whole default. */
#define CLI_SWEEP_PIECE_BYTES ((size_t)64 << 20)

/* The set-bars of one call of a scored sweep: about a second of one core's work, so that a
 * grid of any size runs as calls well inside the runtime's deadline for a device with no
 * model yet (docs/env.md, "Deadlines and quarantine"). */
#define CLI_SCORE_CALL_SET_BARS ((size_t)1 << 26)

/* The sets of one call of a scored sweep (the swept parameters of `given`) whose set has
 * `set_bars` bars (rows x bars): one
 * where a set is more than CLI_SCORE_CALL_SET_BARS; else about that much work, in whole
 * blocks of the sets that differ only in the grid's last parameters (the sets that share a
 * pass, up to 64: the most the library runs as one) and at least 16 sets, so that the sets
 * each pass leaves over from its full rounds of vector lanes fold together (docs/scores.md,
 * "Sets of several periods"), where that is at most 16 times CLI_SCORE_CALL_SET_BARS; never
 * more than the sweep's. */
size_t cli_score_call_sets(const cli_param_list *given, size_t set_bars);

/* The value of swept parameter `param` in set `set`, the first parameter varying slowest. */
double cli_sweep_value(const cli_run_options *o, size_t set, size_t param);

/* "name=value name=value" of set `set`, each value its shortest exact decimal. */
void cli_sweep_set_label(const cli_run_options *o, size_t set, char *buf, size_t size);

/* Writes DIR/sets.csv's content (`set,<names>` and one line per set) to a temporary file
 * beside it, whose path goes to `temp`; the caller renames it once the outputs are
 * committed. Returns CLI_EXIT_OK or CLI_EXIT_FAILURE (the message says which file). */
int cli_sweep_write_sets_file(const cli_run_options *o, char *temp, size_t temp_size);

#endif
