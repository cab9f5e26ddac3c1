/*
 * Shared pieces of the `apportion` command-line tool: exit statuses, messages, number parsing
 * and runtime creation (the options are read through option_table.h). The tool uses only the
 * public header include/apportion.h.
 */
#ifndef APO_CLI_CLI_H
#define APO_CLI_CLI_H

#include <apportion.h>
#include <stddef.h>
#include <stdint.h>

/* Exit statuses (docs/cli.md): the contract has these three and no others. */
enum { CLI_EXIT_OK = 0, CLI_EXIT_FAILURE = 1, CLI_EXIT_USAGE = 2 };

/* Commands: each takes argv with argv[0] the command name and returns an exit status. */
int cli_cmd_devices(int argc, char **argv);
int cli_cmd_run(int argc, char **argv);
int cli_cmd_profile(int argc, char **argv);
int cli_cmd_show(int argc, char **argv);
int cli_cmd_set_ratios(int argc, char **argv);
int cli_cmd_selftest(int argc, char **argv);
int cli_cmd_kernels(int argc, char **argv);
int cli_cmd_stream(int argc, char **argv);

#if defined(__GNUC__)
#define CLI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CLI_PRINTF(a, b)
#endif

/* Prints "apportion: MESSAGE" to stderr. */
void cli_error(const char *fmt, ...) CLI_PRINTF(1, 2);

/* Prints "apportion: MESSAGE" and "Try 'apportion COMMAND --help'." and returns
 * CLI_EXIT_USAGE. command may be NULL for the top level. */
int cli_usage_error(const char *command, const char *fmt, ...) CLI_PRINTF(2, 3);

/* Reports a failed library call: "apportion: WHAT: <apo_strerror>: <apo_last_error>". Returns
 * CLI_EXIT_USAGE for the statuses that come from values the user gave (unknown kernel, bad
 * parameter, bad device specification, invalid argument), CLI_EXIT_FAILURE otherwise. */
int cli_status_error(apo_status status, const char *what);

/* Whether arg is exactly `name` (an option without a value; the commands read their
 * options through option_table.h). */
int cli_flag(const char *arg, const char *name);

/* Strict number parsing of a whole string: a decimal unsigned integer (no sign, no spaces)
 * and a finite double. Return 0 or -1. */
int cli_parse_u64(const char *text, uint64_t *out);
int cli_parse_size(const char *text, size_t *out);
int cli_parse_double(const char *text, double *out);

/* The shortest decimal that strtod() reads back as v (whole numbers without an exponent).
 * The library has its own (for its files); the tool uses only the public API, and never
 * sets a locale, so strtod and printf use the C locale here. */
void cli_format_shortest(double v, char *buf, size_t size);

/* Reads "ID=R,ID=R,..." (`run --ratios`, `set-ratios`' arguments), calling `each` with every
 * item's id and ratio in order. An empty item, an item without "=" or id, or a ratio that is
 * not a finite number >= 0 is a usage error of `command`, its message starting with
 * `option` when it is not NULL. Returns CLI_EXIT_OK, the usage error's status, or the first
 * non-zero status `each` returns. */
int cli_parse_ratio_items(const char *command, const char *option, const char *text,
                          int (*each)(void *ctx, const char *id, double ratio), void *ctx);

/* Creates a runtime for `devices` (NULL: APPORTION_DEVICES or auto) and returns its exit
 * status: CLI_EXIT_OK with *rt set, or the status of cli_status_error(). */
int cli_runtime_create(const char *devices, apo_runtime **rt);

/* cli_runtime_create() with online refinement as `learn` says (apo_config.learn; OFF: the
 * runtime refines no model and writes none back). */
int cli_runtime_create_learning(const char *devices, apo_switch learn, apo_runtime **rt);

/* Seconds on the monotonic clock, for the times the tool reports. */
double cli_now_s(void);

/* Text from outside the tool (a workload tag or a device id from a profile, a runtime
 * warning that quotes one) made safe to print: control characters become \xNN, so that none
 * can move the cursor, clear the screen or start a fake line. Writes to buf (cut with "..."
 * when it does not fit) and returns it. CLI_ESCAPED_MAX is enough for any tag or id. */
#define CLI_ESCAPED_MAX 1024
const char *cli_escape(const char *text, char *buf, size_t size);

/* Whether stderr is a terminal (progress is shown only then). */
int cli_stderr_is_tty(void);

/* Parses a duration "N" followed by one unit, s, m, h or d ("30s", "15m", "12h", "7d"): N a
 * positive decimal integer, nothing before or after. Returns 0 with *seconds set, or -1. */
int cli_parse_duration(const char *text, double *seconds);

/* Formats an age in seconds for people: "45s", "3m", "2.1h", "5d" (one decimal below 10 of
 * the unit, none above; "unknown" for NaN, "0s" for a small negative clock difference). */
void cli_format_age(double seconds, char *out, size_t size);

/* The kernel of rt whose name is nearest to `name` by edit distance (insertions, deletions,
 * substitutions and swaps of neighbours, case ignored), when it is near enough to be a typo
 * (at most a third of the longer name's length, and at least 1 edit allowed); NULL
 * otherwise. */
const char *cli_nearest_kernel(const apo_runtime *rt, const char *name);

/* Reports an unknown kernel as cli_status_error() does, adding "did you mean "NAME"?" when a
 * kernel of rt has a near name. Returns CLI_EXIT_USAGE. */
int cli_unknown_kernel_error(const apo_runtime *rt, const char *name, apo_status status,
                             const char *what);

#endif /* APO_CLI_CLI_H */
