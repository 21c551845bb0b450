/* SPDX-License-Identifier: MIT */
/* The system subcommands: devices (what AUTO picks and every CUDA device). */
#include <stdio.h>

#include "cli.h"

static int run_devices(const cli_command *cmd, int argc, char **argv)
{
    cli_common common;
    int npos;
    int rc = cli_parse(cmd, argc, argv, CLI_NO_OPTS, &common, NULL, 0, 0, &npos);
    if (rc)
        return rc;

    /* What a plain `gip <op>` would use. */
    gip_context *ctx = NULL;
    if ((rc = cli_context(cmd, &common, &ctx)))
        return rc;
    printf("auto: %s\n", gip_context_describe(ctx));
    gip_context_destroy(ctx);

    int32_t count = 0;
    gip_status st = gip_device_count(&count);
    if (st)
        return cli_lib_error(cmd->name, st);
    if (count == 0) {
        printf("CUDA devices: none (%s)\n", gip_device_unavailable_reason());
        return CLI_EXIT_OK;
    }
    printf("CUDA devices: %d\n", (int)count);
    for (int32_t i = 0; i < count; i++) {
        gip_device_info info;
        if ((st = gip_device_get_info(i, &info))) {
            rc = cli_lib_error(cmd->name, st);
            continue;
        }
        printf("  cuda:%d  %s, compute capability %d.%d, %d SMs, %.1f GiB, ", (int)info.index,
               info.name, (int)info.cc_major, (int)info.cc_minor, (int)info.sm_count,
               (double)info.total_memory / (1024.0 * 1024.0 * 1024.0));
        if (info.usable)
            printf("usable\n");
        else
            printf("not usable: %s\n", info.reason);
    }
    return rc;
}

const cli_command cli_cmd_devices = {
    .name = "devices",
    .summary = "show what --device auto uses and every CUDA device",
    .run = run_devices,
    .example = "gip devices",
    .help =
        "Usage: gip devices\n"
        "\n"
        "Prints the device --device auto picks (\"auto: ...\"), then every CUDA device with its\n"
        "index, name, compute capability, multiprocessors, memory, and whether gip can use it\n"
        "(or why not). Without any CUDA device it says why and exits 0.\n"};
