/*
 * A parameter sweep of `apportion run` (docs/cli/run.md, "Sweeps"): the value of each swept
 * parameter in each set, the sets' labels and DIR/sets.csv, and the default memory bound
 * that decides how many sets a call runs.
 */
#include "sweep_sets.h"

#include "cli.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Half of MemAvailable (/proc/meminfo), or 1 GiB where it cannot be read. */
size_t cli_default_memory(void) {
    size_t bytes = (size_t)1 << 30;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f == NULL)
        return bytes;
    char line[256];
    unsigned long long kb;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1 && kb > 0) {
            bytes = kb / 2 > SIZE_MAX / 1024 ? SIZE_MAX : (size_t)(kb / 2 * 1024);
            break;
        }
    fclose(f);
    return bytes;
}

/* Sets a call of a scored sweep takes at least: two rounds of the widest path's lanes
 * (avx512's 8). The Python binding cuts its pieces by the same rule (python/src/workload.c,
 * piece_sets); each links only the public API, so each has its copy. */
#define CLI_SCORE_CALL_MIN_SETS 16

/* The most sets the library runs as one call (runtime/catalog/grid.h's APO_GRID_SHARE_MAX). */
#define CLI_SCORE_SHARED_MAX 64

size_t cli_score_call_sets(const cli_param_list *given, size_t set_bars) {
    if (set_bars > CLI_SCORE_CALL_SET_BARS)
        return 1; /* a call's worth already */
    size_t sets = CLI_SCORE_CALL_SET_BARS / (set_bars > 0 ? set_bars : 1);
    size_t block = 1;
    for (size_t q = given->n_sweep; q-- > 1;) {
        if (block * given->sweep[q].n_values > CLI_SCORE_SHARED_MAX)
            break;
        block *= given->sweep[q].n_values;
    }
    const size_t least = (CLI_SCORE_CALL_MIN_SETS + block - 1) / block * block;
    /* A call stays within 16 calls' worth of work (CLI_SCORE_CALL_MIN_SETS sets of the
     * largest): blocks of larger sets go by work alone. */
    if (least * set_bars <= CLI_SCORE_CALL_MIN_SETS * CLI_SCORE_CALL_SET_BARS)
        sets = sets < least ? least : sets / block * block;
    return sets < given->sweep_sets ? sets : given->sweep_sets;
}

/* The value of swept parameter `param` in set `set`, the first parameter varying slowest. */
double cli_sweep_value(const cli_run_options *o, size_t set, size_t param) {
    size_t stride = 1;
    for (size_t q = param + 1; q < o->given.n_sweep; q++)
        stride *= o->given.sweep[q].n_values;
    return o->given.sweep[param].values[set / stride % o->given.sweep[param].n_values];
}

/* "name=value name=value" of set `set`. */
void cli_sweep_set_label(const cli_run_options *o, size_t set, char *buf, size_t size) {
    size_t w = 0;
    buf[0] = '\0';
    for (size_t q = 0; q < o->given.n_sweep && w < size; q++) {
        char num[32];
        cli_format_shortest(cli_sweep_value(o, set, q), num, sizeof num);
        const int m =
            snprintf(buf + w, size - w, "%s%s=%s", q ? " " : "", o->given.sweep[q].name, num);
        if (m < 0)
            return;
        w += (size_t)m;
    }
}

/* Writes DIR/sets.csv's content to a temporary file beside it: `set,<names>` and one line
 * per set. It is renamed once the outputs are committed. */
int cli_sweep_write_sets_file(const cli_run_options *o, char *temp, size_t temp_size) {
    snprintf(temp, temp_size, "%s/.sets.csv.tmp", o->output);
    FILE *f = fopen(temp, "w");
    if (f == NULL) {
        cli_error("cannot write %s", temp);
        return CLI_EXIT_FAILURE;
    }
    fputs("set", f);
    for (size_t q = 0; q < o->given.n_sweep; q++)
        fprintf(f, ",%s", o->given.sweep[q].name);
    fputc('\n', f);
    for (size_t set = 0; set < o->given.sweep_sets; set++) {
        fprintf(f, "%zu", set);
        for (size_t q = 0; q < o->given.n_sweep; q++) {
            char num[32];
            cli_format_shortest(cli_sweep_value(o, set, q), num, sizeof num);
            fprintf(f, ",%s", num);
        }
        fputc('\n', f);
    }
    const int failed = ferror(f);
    if ((fclose(f) != 0) | failed) {
        remove(temp);
        cli_error("cannot write %s", temp);
        return CLI_EXIT_FAILURE;
    }
    return CLI_EXIT_OK;
}
