/* SPDX-License-Identifier: MIT */
/* The gip command-line tool: the hand-written subcommands, one command per registered operation,
 * and the dispatch to them. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The subcommands that are not one registered operation on one image, in the order `gip --help`
 * lists them. Their names win over an operation of the same name (convert: files, not dtypes). */
static const cli_command *const commands[] = {
    &cli_cmd_devices, &cli_cmd_info,       &cli_cmd_convert, &cli_cmd_fft,          &cli_cmd_ifft,
    &cli_cmd_kernel,  &cli_cmd_style,      &cli_cmd_run,     &cli_cmd_ops,          &cli_cmd_stats,
    &cli_cmd_hist,    &cli_cmd_components, &cli_cmd_match,   &cli_cmd_loader_bench,
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i]->name, name) == 0)
            return commands[i];
    return NULL;
}

/* The command `name`: a hand-written one, else that of the registered operation (made into
 * *made, which the caller frees with cli_op_command_free()). NULL when there is none. */
static const cli_command *lookup(const char *name, cli_command *made)
{
    const cli_command *cmd = find_command(name);
    if (cmd)
        return cmd;
    const gip_op *op = gip_op_find(name);
    gip_clear_error();
    if (!op || cli_op_command(op, made) != 0)
        return NULL;
    return made;
}

static void print_main_help(void)
{
    printf("Usage: gip COMMAND [options] [arguments]\n"
           "       gip COMMAND --help\n"
           "\n"
           "GPU image processing with a CPU fallback.\n"
           "%s\n"
           "\n"
           "Operations (gip NAME [--PARAM V ...] IN OUT; the same as gip run 'NAME ...'):\n",
           gip_build_info());
    int width = 10; /* the names' column: as wide as the longest name */
    for (int32_t i = 0; i < gip_op_count(); i++)
        if ((int)strlen(gip_op_at(i)->name) > width)
            width = (int)strlen(gip_op_at(i)->name);
    for (size_t i = 0; i < NCOMMANDS; i++)
        if ((int)strlen(commands[i]->name) > width)
            width = (int)strlen(commands[i]->name);
    for (int32_t i = 0; i < gip_op_count(); i++) {
        const gip_op *op = gip_op_at(i);
        if (!find_command(op->name))
            printf("  %-*s %s\n", width, op->name, op->summary);
    }
    printf("\nOther commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        printf("  %-*s %s\n", width, commands[i]->name, commands[i]->summary);
    printf("\n"
           "Options:\n"
           "  -h, --help   show this help and exit\n"
           "  --version    show the version and how the library was built, and exit\n"
           "\n"
           "Operations run on --device auto (default: the first usable CUDA device, else the\n"
           "CPU), cpu, cuda or cuda:N. Images load as stored (gray, RGB or RGBA, 8 or 16 bits;\n"
           "--color: 8-bit RGB); where OUT's format cannot hold the result a note on stderr says\n"
           "what was converted. Outputs appear only complete, even if gip is killed, keep the\n"
           "mode of a file they replace, and replace a read-only file only with --overwrite.\n"
           "Exit status: 0 success, 1 runtime error (missing or corrupt file, no GPU ...),\n"
           "2 usage error.\n"
           "\n"
           "Example:\n"
           "  gip gaussian --ksize 15 in.jpg out.png\n");
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
    cli_command made = {0};
    if (strcmp(name, "help") == 0) {
        /* `gip help COMMAND` is `gip COMMAND --help`. */
        if (argc == 2) {
            print_main_help();
            return CLI_EXIT_OK;
        }
        const cli_command *cmd = lookup(argv[2], &made);
        if (!cmd || argc > 3) {
            fprintf(stderr, "gip help: unknown command '%s'\nTry 'gip --help'.\n", argv[2]);
            cli_op_command_free(&made);
            return CLI_EXIT_USAGE;
        }
        cli_print_help(cmd);
        cli_op_command_free(&made);
        return CLI_EXIT_OK;
    }
    const cli_command *cmd = name[0] == '-' ? NULL : lookup(name, &made);
    if (!cmd) {
        if (name[0] == '-')
            fprintf(stderr, "gip: unknown option '%s'\nTry 'gip --help'.\n", name);
        else
            fprintf(stderr, "gip: unknown command '%s'\nTry 'gip --help'.\n", name);
        return CLI_EXIT_USAGE;
    }
    int rc = cmd->run(cmd, argc - 1, argv + 1);
    cli_op_command_free(&made);
    return rc == CLI_HELP ? CLI_EXIT_OK : rc;
}
