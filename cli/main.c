/*
 * apportion: the command-line tool. `apportion <command> [options]`; see docs/cli.md.
 *
 * This file only dispatches to the commands (cmd_*.c); what they share is in common.c, so
 * that the commands link without main() (the option-parsing fuzz target does).
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const char top_help[] =
    "Usage: apportion <command> [options]\n"
    "\n"
    "Split array computations across the devices of this machine in proportion to their\n"
    "speed, with results that do not depend on the split.\n"
    "\n"
    "Commands:\n"
    "  devices    list the devices found, with their health\n"
    "  run        distribute one workload and print the report\n"
    "  profile    measure every device on the sample workloads and write the profiles\n"
    "  show       show the stored profiles: ratios, models, age, staleness\n"
    "  set-ratios force the shares of a workload\n"
    "  selftest   check every usable device against the CPU reference\n"
    "  kernels    list the kernels with their inputs, outputs and parameters\n"
    "  stream     feed new bars to a stream kept in a state file\n"
    "\n"
    "Options:\n"
    "  -h, --help     show this help (also 'apportion <command> --help')\n"
    "  --version      show the version of the tool and of libapportion\n"
    "\n"
    "Exit status: 0 success, 1 runtime failure, 2 usage error.\n"
    "Environment: APPORTION_DEVICES, APPORTION_USE_GPU, APPORTION_SIM_CLOCK, ... (docs/env.md)\n";

int main(int argc, char **argv) {
    if (argc < 2)
        return cli_usage_error(NULL, "missing command");
    const char *cmd = argv[1];
    if (cli_flag(cmd, "--help") || cli_flag(cmd, "-h")) {
        fputs(top_help, stdout);
        return CLI_EXIT_OK;
    }
    if (cli_flag(cmd, "--version")) {
        printf("apportion %s (libapportion %s)\n", APO_VERSION_STRING, apo_version());
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "devices") == 0)
        return cli_cmd_devices(argc - 1, argv + 1);
    if (strcmp(cmd, "run") == 0)
        return cli_cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "profile") == 0)
        return cli_cmd_profile(argc - 1, argv + 1);
    if (strcmp(cmd, "show") == 0)
        return cli_cmd_show(argc - 1, argv + 1);
    if (strcmp(cmd, "set-ratios") == 0)
        return cli_cmd_set_ratios(argc - 1, argv + 1);
    if (strcmp(cmd, "kernels") == 0)
        return cli_cmd_kernels(argc - 1, argv + 1);
    if (strcmp(cmd, "stream") == 0)
        return cli_cmd_stream(argc - 1, argv + 1);
    if (strcmp(cmd, "selftest") == 0)
        return cli_cmd_selftest(argc - 1, argv + 1);
    if (cmd[0] == '-')
        return cli_usage_error(NULL, "unknown option '%s'", cmd);
    return cli_usage_error(NULL, "unknown command '%s'", cmd);
}
