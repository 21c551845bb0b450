/* SPDX-License-Identifier: MIT */
/* The gip command-line tool: the table of subcommands and the dispatch to them. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The Fourier and user-kernel subcommands (cmd_fft.c, cmd_kernel.c), style transfer
 * (cmd_style.c). */
extern const cli_command cli_cmd_spectrum, cli_cmd_fft, cli_cmd_ifft;
extern const cli_command cli_cmd_kernel, cli_cmd_map, cli_cmd_stencil;
extern const cli_command cli_cmd_style;
extern const cli_command cli_cmd_run; /* cmd_run.c */
extern const cli_command cli_cmd_ops; /* cmd_ops.c */

/* Every subcommand, in the order `gip --help` lists them. */
static const cli_command *const commands[] = {
    &cli_cmd_devices,  &cli_cmd_info,   &cli_cmd_convert, &cli_cmd_gray,  &cli_cmd_invert,
    &cli_cmd_box,      &cli_cmd_filter, &cli_cmd_sobel,   &cli_cmd_edges, &cli_cmd_gaussian,
    &cli_cmd_spectrum, &cli_cmd_fft,    &cli_cmd_ifft,    &cli_cmd_map,   &cli_cmd_stencil,
    &cli_cmd_kernel,   &cli_cmd_style,  &cli_cmd_run,     &cli_cmd_ops,
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i]->name, name) == 0)
            return commands[i];
    return NULL;
}

static void print_main_help(void)
{
    printf("Usage: gip COMMAND [options] [arguments]\n"
           "       gip COMMAND --help\n"
           "\n"
           "GPU image processing with a CPU fallback.\n"
           "%s\n"
           "\n"
           "Commands:\n",
           gip_build_info());
    for (size_t i = 0; i < NCOMMANDS; i++)
        printf("  %-10s %s\n", commands[i]->name, commands[i]->summary);
    printf("\n"
           "Options:\n"
           "  -h, --help   show this help and exit\n"
           "  --version    show the version and how the library was built, and exit\n"
           "\n"
           "Filters run on --device auto (default: the first usable CUDA device, else the CPU),\n"
           "cpu, cuda or cuda:N. Images load as stored (gray, RGB or RGBA, 8 or 16 bits; --color:\n"
           "8-bit RGB); where OUT's format cannot hold the result a note on stderr says what was\n"
           "converted. Outputs appear only complete, even if gip is killed, keep the mode of a\n"
           "file they replace, and replace a read-only file only with --overwrite. Exit status:\n"
           "0 success, 1 runtime error (missing or corrupt file, no GPU ...), 2 usage error.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "gip: missing command\nTry 'gip --help'.\n");
        return CLI_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
        print_main_help();
        return CLI_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0) {
        printf("gip %s\n%s\n", gip_version(), gip_build_info());
        return CLI_EXIT_OK;
    }
    if (strcmp(name, "help") == 0) {
        /* `gip help COMMAND` is `gip COMMAND --help`. */
        if (argc == 2) {
            print_main_help();
            return CLI_EXIT_OK;
        }
        const cli_command *cmd = find_command(argv[2]);
        if (!cmd || argc > 3) {
            fprintf(stderr, "gip help: unknown command '%s'\nTry 'gip --help'.\n", argv[2]);
            return CLI_EXIT_USAGE;
        }
        cli_print_help(cmd);
        return CLI_EXIT_OK;
    }
    const cli_command *cmd = find_command(name);
    if (!cmd) {
        if (name[0] == '-')
            fprintf(stderr, "gip: unknown option '%s'\nTry 'gip --help'.\n", name);
        else
            fprintf(stderr, "gip: unknown command '%s'\nTry 'gip --help'.\n", name);
        return CLI_EXIT_USAGE;
    }
    int rc = cmd->run(cmd, argc - 1, argv + 1);
    return rc == CLI_HELP ? CLI_EXIT_OK : rc;
}
