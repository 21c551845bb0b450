/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the gip CLI's argument parsing, run through its main() (compiled as
 * gip_cli_main) in a scratch folder holding small input images, with stdout sent to /dev/null. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_entries.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int gip_cli_main(int argc, char **argv); /* tools/gip/main.c built with -Dmain=gip_cli_main */

static char scratch[64];
static ino_t input_inode[8];

/* Writes the inputs when a run replaced or removed one (an output named like an input). */
static int refresh_inputs(int force)
{
    int stale = force;
    struct stat sb;
    for (int i = 0; !stale && gip_fuzz_cli_input_names[i]; i++)
        stale = stat(gip_fuzz_cli_input_names[i], &sb) != 0 || sb.st_ino != input_inode[i];
    if (!stale)
        return 0;
    if (gip_fuzz_cli_inputs() != 0)
        return -1;
    for (int i = 0; gip_fuzz_cli_input_names[i]; i++)
        input_inode[i] = stat(gip_fuzz_cli_input_names[i], &sb) == 0 ? sb.st_ino : 0;
    return 0;
}

/* Removes every file of the scratch folder but the inputs (what a run wrote). */
static void clean_scratch(void)
{
    DIR *d = opendir(".");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        int keep = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
        for (int i = 0; !keep && gip_fuzz_cli_input_names[i]; i++)
            keep = strcmp(e->d_name, gip_fuzz_cli_input_names[i]) == 0;
        if (!keep && unlink(e->d_name) != 0)
            rmdir(e->d_name);
    }
    closedir(d);
}

static void remove_scratch(void)
{
    if (!scratch[0] || chdir(scratch) != 0)
        return;
    for (int i = 0; gip_fuzz_cli_input_names[i]; i++)
        unlink(gip_fuzz_cli_input_names[i]);
    clean_scratch();
    if (chdir("/") == 0)
        rmdir(scratch);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* tmpfs when there is one: the CLI's atomic writes fsync every output. */
    snprintf(scratch, sizeof scratch, "%s/gip-fuzz-cli.XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    if (!mkdtemp(scratch) || chdir(scratch) != 0 || refresh_inputs(1) != 0) {
        fprintf(stderr, "fuzz_cli: cannot prepare the scratch folder %s\n", scratch);
        abort();
    }
    atexit(remove_scratch);
    if (!getenv("GIP_FUZZ_VERBOSE")) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, STDOUT_FILENO);
            close(null);
        }
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char buf[GIP_FUZZ_CLI_MAX_BYTES + 8];
    static char *args[GIP_FUZZ_CLI_MAX_ARGS + 2];
    int argc = gip_fuzz_cli_argv(data, size, buf, args);
    if (argc < 0)
        return 0;
    int rc = gip_cli_main(argc, args);
    if (rc != 0 && rc != 1 && rc != 2) {
        fprintf(stderr, "fuzz_cli: exit status %d is none of 0, 1, 2\n", rc);
        abort();
    }
    fflush(stdout);
    clean_scratch();
    if (refresh_inputs(0) != 0)
        abort();
    return 0;
}
