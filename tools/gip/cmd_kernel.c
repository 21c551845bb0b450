/* SPDX-License-Identifier: MIT */
/* The kernel subcommand: a user's CUDA source compiled at run time with NVRTC (cached on disk) and
 * run on one image. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct kernel_job {
    const char *source; /* the file's text */
    const char *file;   /* its path, for NVRTC's messages */
    const char *name;
    char *folder; /* the file's folder, searched by #include "..." */
    gip_launch_config cfg;
    gip_module *module;
    gip_kernel *kernel;
} kernel_job;

static gip_status kernel_prepare(gip_context *ctx, const gip_image *src, void *data)
{
    kernel_job *j = data;
    const char *includes[1] = {j->folder};
    gip_compile_options co = {0};
    co.include_paths = includes;
    co.n_include_paths = 1;
    gip_status st = gip_module_compile(ctx, j->source, j->file, &co, &j->module);
    if (!st)
        st = gip_module_get_kernel(j->module, j->name, &j->kernel);
    return st;
}

static gip_status kernel_run(gip_context *ctx, const gip_image *src, gip_image *dst, void *data)
{
    kernel_job *j = data;
    gip_kernel_arg args[2] = {gip_arg_image(src), gip_arg_image(dst)};
    return gip_kernel_launch(ctx, j->kernel, &j->cfg, args, 2);
}

static void kernel_release(gip_context *ctx, void *data)
{
    kernel_job *j = data;
    /* Launches that use the module must be finished before it is unloaded. */
    gip_context_sync(ctx);
    gip_module_free(j->module);
    j->module = NULL;
    j->kernel = NULL;
}

/* Refuses, before any file is read, a device choice that cannot run a raw CUDA kernel: the CPU,
 * or auto without a usable CUDA device. An explicit cuda[:N] that fails is reported when the
 * context is created. */
static int need_cuda(const cli_command *cmd, const cli_common *common)
{
    if (common->backend == GIP_BACKEND_CPU)
        return cli_runtime_error(
            cmd, "needs a CUDA device: --device cpu was given (gip map and gip stencil run on the "
                 "CPU)");
    if (common->backend != GIP_BACKEND_AUTO)
        return 0;
    int32_t count = 0;
    if (gip_device_count(&count) == GIP_OK)
        for (int32_t i = 0; i < count; i++) {
            gip_device_info info;
            if (gip_device_get_info(i, &info) == GIP_OK && info.usable)
                return 0;
        }
    const char *why = gip_device_unavailable_reason();
    return cli_runtime_error(cmd, "needs a CUDA device: %s",
                             why && *why ? why : "no usable CUDA device was found");
}

/* Reads a whole text file into a new NUL-terminated buffer. */
static int read_text(const cli_command *cmd, const char *path, char **out)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "gip %s: cannot open '%s': %s\n", cmd->name, path, strerror(errno));
        return CLI_EXIT_RUNTIME;
    }
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    while (text) {
        len += fread(text + len, 1, cap - 1 - len, f);
        if (len < cap - 1)
            break;
        char *bigger = cap < ((size_t)64 << 20) ? realloc(text, cap * 2) : NULL;
        if (!bigger) {
            free(text);
            text = NULL;
            break;
        }
        text = bigger;
        cap *= 2;
    }
    int failed = ferror(f);
    fclose(f);
    if (!text || failed) {
        free(text);
        fprintf(stderr, "gip %s: cannot read '%s': %s\n", cmd->name, path,
                failed ? "read error" : "larger than 64 MiB or out of memory");
        return CLI_EXIT_RUNTIME;
    }
    text[len] = '\0';
    if (strlen(text) != len) {
        free(text);
        fprintf(stderr, "gip %s: '%s' holds a NUL byte: it is not CUDA source\n", cmd->name, path);
        return CLI_EXIT_RUNTIME;
    }
    *out = text;
    return 0;
}

static int run_kernel(const cli_command *cmd, int argc, char **argv)
{
    cli_opt table[] = {{"--source", "FILE.cu", NULL, 0},
                       {"--name", "NAME", NULL, 0},
                       {"--grid", "X,Y", NULL, 0},
                       {"--block", "X,Y", NULL, 0}};
    cli_opts opts = CLI_OPTS(table);
    cli_common common;
    const char *pos[2];
    int npos;
    int rc = cli_parse(cmd, argc, argv, opts, &common, pos, 2, 2, &npos);
    if (rc)
        return rc;
    kernel_job j = {0};
    j.file = cli_opt_value(opts, "--source");
    j.name = cli_opt_value(opts, "--name");
    if (!j.file || !j.name)
        return cli_usage(cmd, "--source FILE.cu and --name NAME are required");
    const char *grid = cli_opt_value(opts, "--grid"), *block = cli_opt_value(opts, "--block");
    int32_t a, b;
    if (grid) {
        if ((rc = cli_parse_pair(cmd, "--grid", grid, 1, 2147483647,
                                 "X,Y blocks, X 1..2147483647, Y 1..65535", &a, &b)))
            return rc;
        if (b > 65535)
            return cli_usage(cmd,
                             "--grid: '%s' is out of range; accepted: X,Y blocks, X "
                             "1..2147483647, Y 1..65535",
                             grid);
        j.cfg.grid[0] = (uint32_t)a;
        j.cfg.grid[1] = (uint32_t)b;
    }
    if (block) {
        if ((rc = cli_parse_pair(cmd, "--block", block, 1, 1024,
                                 "X,Y threads, each 1..1024, X * Y <= 1024", &a, &b)))
            return rc;
        if ((int64_t)a * b > 1024)
            return cli_usage(cmd, "--block: '%s' has %lld threads; accepted: X * Y <= 1024", block,
                             (long long)a * b);
        j.cfg.block[0] = (uint32_t)a;
        j.cfg.block[1] = (uint32_t)b;
    }
    if ((rc = need_cuda(cmd, &common)))
        return rc;
    char *text = NULL;
    if ((rc = read_text(cmd, j.file, &text)))
        return rc;
    const char *slash = strrchr(j.file, '/');
    j.folder =
        slash ? strndup(j.file, slash == j.file ? 1 : (size_t)(slash - j.file)) : strdup(".");
    if (!j.folder) {
        free(text);
        return cli_runtime_error(cmd, "out of memory");
    }
    j.source = text;
    cli_op op = {GIP_LOAD_COLOR, NULL, kernel_prepare, kernel_run, kernel_release, &j, 0, NULL};
    rc = cli_run_image(cmd, &common, &op, pos[0], pos[1]);
    free(j.folder);
    free(text);
    return rc;
}

const cli_command cli_cmd_kernel = {
    .name = "kernel",
    .summary = "run a CUDA kernel from a source file (compiled at run time, cached)",
    .run = run_kernel,
    .example = "gip kernel --source mean3.cu --name mean3 in.png out.png",
    .help =
        "Usage: gip kernel --source FILE.cu --name NAME [--grid X,Y] [--block X,Y] [options] IN "
        "OUT\n"
        "\n"
        "Compiles FILE.cu with NVRTC for the GPU in use (cached in $GIP_CACHE_DIR, else\n"
        "$XDG_CACHE_HOME/gip, else ~/.cache/gip: a second run skips the compilation) and runs its\n"
        "extern \"C\" __global__ function NAME once on IN, writing OUT (same size, channels and\n"
        "depth: gray, RGB or RGBA, 8 or 16 bits as IN is stored; --color gives 8-bit RGB).\n"
        "#include \"...\" finds files next to FILE.cu. The kernel receives both images,\n"
        "each as five parameters (data, width, height, row stride in bytes, channels):\n"
        "  extern \"C\" __global__ void NAME(const unsigned char *src, int w, int h,\n"
        "      long long sstride, int c, unsigned char *dst, int dw, int dh, long long dstride,\n"
        "      int dc)\n"
        "and must check x < w and y < h itself. Compile errors are printed with NVRTC's log\n"
        "(exit 2). Needs a CUDA device (exit 1 without one); gip map and gip stencil run "
        "anywhere.\n"
        "\n"
        "Options:\n"
        "  --source FILE.cu     required: the CUDA C++ source\n"
        "  --name NAME          required: the kernel's name\n"
        "  --grid X,Y           blocks (default: enough to give one thread per pixel of IN)\n"
        "  --block X,Y          threads per block, X * Y <= 1024 (default 16,16)\n",
    .common = CLI_COMMON_DEVICE | CLI_COMMON_SAVE | CLI_COMMON_UNCHANGED | CLI_COMMON_OUTPUT};
