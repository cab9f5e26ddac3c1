/*
 * Reports of `apportion run` as text and as JSON (jansson), and the JSON helpers the
 * commands share.
 */
#ifndef APO_CLI_JSON_REPORT_H
#define APO_CLI_JSON_REPORT_H

#include <apportion.h>
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One output array of a run, as listed in the report. */
typedef struct cli_output_desc {
    const char *name;
    size_t rows, cols;
    const char *file; /* the file written, or NULL */
} cli_output_desc;

/* Where the time of one `apportion run` went, in milliseconds on the tool's clock. */
typedef struct cli_run_times {
    double read_input_ms;   /* reading the input file, or generating the input */
    double prepare_ms;      /* faulting in the output arrays before the call (host_arrays.h) */
    double compute_ms;      /* the apo_distribute_workload() call */
    double write_output_ms; /* writing the output files (0 without --output) */
    size_t sweep_sets;      /* parameter sets of a sweep (0: no sweep) */
    size_t sweep_pieces;    /* the calls the sweep ran in, to bound memory (docs/cli.md) */
} cli_run_times;

/* A JSON string; bytes that are not valid UTF-8 become '?'. */
json_t *cli_json_string(const char *s);

/* A JSON real, or null for NaN and infinities (JSON has no such numbers). */
json_t *cli_json_number(double v);

/* A JSON integer, or a decimal string for values above INT64_MAX (jansson's integers are
 * signed 64-bit). */
json_t *cli_json_u64(uint64_t v);

/* Prints the value to stdout with two-space indentation and a final newline. Returns an exit
 * status (1 when stdout cannot be written). */
int cli_json_print(const json_t *value);

/* The runtime's warnings as a JSON array of strings. */
json_t *cli_runtime_warnings_json(const apo_runtime *rt);

/* Prints each runtime warning to stderr as "apportion: warning: ...", save the one that only
 * says the machine has no GPU to offer (APO_WARNING_NO_GPU_HERE, docs/cli.md). */
void cli_print_runtime_warnings(const apo_runtime *rt);

/* The warning for outputs that are not finite although their inputs are
 * (apo_report.nonfinite_outputs), written into `buf`; returns 0 (buf empty) when there are
 * none. */
int cli_nonfinite_warning(const apo_report *report, char *buf, size_t size);

/* The report of one run, with the tool's times, as the JSON object described in
 * docs/cli.md. */
json_t *cli_report_json(const apo_report *report, const cli_run_times *times, const apo_runtime *rt,
                        const cli_output_desc *outputs, size_t n_outputs);

/* Prints the report of one run, with the tool's times, as text. */
void cli_report_print(FILE *f, const apo_report *report, const cli_run_times *times);

/* One device's cost model (profile and show): {id, label, ratio, latency_ms, ms_per_melem,
 * samples} and, with `dropped`, the profiling runs dropped as outliers. Unknown figures are
 * null. */
json_t *cli_device_model_json(const apo_device_model *m, int dropped);

/* The device models as a table, one line each, indented by `indent` spaces; with `dropped`,
 * a column of the runs dropped. Unknown figures are shown as "-". */
void cli_device_models_print(FILE *f, const apo_device_model *models, size_t n, int indent,
                             int dropped);

#endif /* APO_CLI_JSON_REPORT_H */
