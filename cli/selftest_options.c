/*
 * `apportion selftest`: its options (cli/options.h) as rows of the option table
 * (option_table.h), their help text and the parsing of --sizes; the checks and the report are
 * in cmd_selftest.c.
 */
#include "cli.h"
#include "input.h"
#include "option_table.h"
#include "options.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ST_MAX_SHAPES CLI_SELFTEST_MAX_SHAPES
#define ST_MIN_GPU_MB CLI_SELFTEST_MIN_GPU_MB
#define ST_MAX_GPU_MB CLI_SELFTEST_MAX_GPU_MB

typedef cli_shape st_shape;
typedef cli_selftest_options st_options;

static const char selftest_help[] =
    "Usage: apportion selftest [--sizes LIST] [--seed S] [--gpu-memory-mb N]\n"
    "                          [--devices LIST] [--json]\n"
    "\n"
    "Check every usable device against the CPU reference: each built-in kernel (bollinger,\n"
    "macd, returns_stats, bootstrap) on seeded random walks must give the bits of a run on\n"
    "the cpu alone. For each GPU also: discovery, an allocation, the overlap of transfers\n"
    "and compute, a small memory budget that must split the work into chunks, and arrays\n"
    "resident on the GPU. With two GPUs or more, outputs wanted on the first GPU and computed\n"
    "by all of them, gathered by NCCL and by peer copies. Without a GPU, says why and checks\n"
    "the cpu and simulated devices.\n"
    "\n"
    "Options:\n"
    "  --sizes LIST         shapes to check, comma separated: N (one series of N samples)\n"
    "                       or RxC (R series of C samples); default\n"
    "                       1,4095,4097,100003,1000003,3x50001\n"
    "  --seed S             seed of the random walks and of the workloads (default 1)\n"
    "  --gpu-memory-mb N    memory budget of the memory-guard check, MiB (default 8); its\n"
    "                       workload has 2*N MiB of input\n"
    "  --devices LIST       device list as in APPORTION_DEVICES (overrides it)\n"
    "  --json               print one JSON object with every check instead of the table\n"
    "  -h, --help           show this help\n"
    "\n"
    "APPORTION_DEVICES and APPORTION_USE_GPU apply: with APPORTION_USE_GPU=yes a missing GPU\n"
    "is an error. Profiles are neither read nor written.\n"
    "Exit status: 0 nothing failed and every GPU passed a check of its own (or there is\n"
    "no GPU; warnings allowed), 1 a check failed, no check passed, a GPU passed no check\n"
    "or the runtime could not be created, 2 usage error.\n";

static const char default_sizes[] = "1,4095,4097,100003,1000003,3x50001";

/* One item of --sizes: "N" or "RxC", positive integers whose product fits. */
static int parse_shape(const char *item, st_shape *out) {
    char buf[64];
    if (strlen(item) >= sizeof buf)
        return -1;
    snprintf(buf, sizeof buf, "%s", item);
    char *x = strchr(buf, 'x');
    size_t rows = 1, cols = 0;
    if (x != NULL) {
        *x = '\0';
        if (cli_parse_size(buf, &rows) != 0 || cli_parse_size(x + 1, &cols) != 0)
            return -1;
    } else if (cli_parse_size(buf, &cols) != 0) {
        return -1;
    }
    if (rows == 0 || cols == 0 || cols > SIZE_MAX / sizeof(double) / rows)
        return -1;
    out->rows = rows;
    out->cols = cols;
    return 0;
}

static int parse_sizes(const char *text, st_options *o) {
    o->n_shapes = 0;
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        const size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        char item[64];
        if (len == 0)
            return cli_usage_error("selftest", "--sizes '%s': empty item", text);
        if (len >= sizeof item)
            return cli_usage_error("selftest", "--sizes: item '%.20s...' is too long", p);
        memcpy(item, p, len);
        item[len] = '\0';
        if (o->n_shapes == ST_MAX_SHAPES)
            return cli_usage_error("selftest", "--sizes: at most %d shapes", ST_MAX_SHAPES);
        if (parse_shape(item, &o->shapes[o->n_shapes]) != 0)
            return cli_usage_error(
                "selftest", "--sizes: '%s' is not a shape (N or RxC, positive integers)", item);
        o->n_shapes++;
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    return CLI_EXIT_OK;
}

void cli_selftest_options_init(st_options *o) {
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->gpu_mb = CLI_SELFTEST_DEFAULT_GPU_MB;
}

#define SELFTEST(field) offsetof(st_options, field)

/* Every option of `selftest`: each may be given again, the last value winning. --sizes is
 * read after the others. */
static const cli_option selftest_rows[] = {
    CLI_ROW_FLAG("--json", SELFTEST(json)),
    CLI_ROW_TEXT("--devices", CLI_REPEATABLE, SELFTEST(devices)),
    CLI_ROW_TEXT("--sizes", CLI_REPEATABLE, SELFTEST(sizes_text)),
    CLI_ROW_U64("--seed", CLI_REPEATABLE, SELFTEST(seed), CLI_NO_FIELD, 0, UINT64_MAX,
                "an integer from 0 to 18446744073709551615"),
    CLI_ROW_SIZE("--gpu-memory-mb", CLI_REPEATABLE, SELFTEST(gpu_mb), CLI_NO_FIELD, ST_MIN_GPU_MB,
                 ST_MAX_GPU_MB, "an integer from %" PRIu64 " to %" PRIu64),
};

static const cli_option_table selftest_table = {.command = "selftest",
                                                CLI_TABLE_ROWS(selftest_rows)};

int cli_selftest_parse_options(int argc, char **argv, st_options *o) {
    int help = 0;
    int rc = cli_options_read(&selftest_table, argc, argv, o, &help);
    if (help) {
        fputs(selftest_help, stdout);
        return CLI_EXIT_OK;
    }
    if (rc == CLI_EXIT_OK)
        rc = parse_sizes(o->sizes_text != NULL ? o->sizes_text : default_sizes, o);
    return rc == CLI_EXIT_OK ? -1 : rc;
}
