/* SPDX-License-Identifier: MIT */
/* The user-kernel subcommands: kernel (CUDA source compiled at run time with NVRTC, cached on
 * disk), map and stencil (expressions that run on the GPU or the CPU). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Prints "gip NAME: message" on stderr and returns CLI_EXIT_RUNTIME. */
static int runtime_error(const cli_command *cmd, const char *what, const char *detail)
{
    fprintf(stderr, "gip %s: %s%s%s\n", cmd->name, what, detail ? ": " : "", detail ? detail : "");
    return CLI_EXIT_RUNTIME;
}

/* ---- gip kernel ----------------------------------------------------------------------------- */

typedef struct kernel_job {
    const char *source; /* the file's text */
    const char *file;   /* its path, for NVRTC's messages */
    const char *name;
    char *folder; /* the file's folder, searched by #include "..." */
    gip_launch_config cfg;
    gip_module *module;
    gip_kernel *kernel;
} kernel_job;

static gip_status kernel_prepare(gip_context *ctx, const gip_image *src, int32_t *channels,
                                 gip_dtype *dtype, void *data)
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
        return runtime_error(cmd, "needs a CUDA device",
                             "--device cpu was given (gip map and gip stencil run on the CPU)");
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
    return runtime_error(cmd, "needs a CUDA device",
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
    cli_opt opts[] = {{"--source", "FILE.cu", NULL},
                      {"--name", "NAME", NULL},
                      {"--grid", "X,Y", NULL},
                      {"--block", "X,Y", NULL}};
    cli_common common;
    const char *pos[2];
    int npos;
    int rc = cli_parse(cmd, argc, argv, opts, 4, &common, pos, 2, 2, &npos);
    if (rc)
        return rc;
    if (!opts[0].value || !opts[1].value)
        return cli_usage(cmd, "--source FILE.cu and --name NAME are required");
    kernel_job j = {0};
    j.file = opts[0].value;
    j.name = opts[1].value;
    int32_t a, b;
    if (opts[2].value) {
        if ((rc = cli_parse_pair(cmd, "--grid", opts[2].value, 1, 2147483647,
                                 "X,Y blocks, X 1..2147483647, Y 1..65535", &a, &b)))
            return rc;
        if (b > 65535)
            return cli_usage(cmd,
                             "--grid: '%s' is out of range; accepted: X,Y blocks, X "
                             "1..2147483647, Y 1..65535",
                             opts[2].value);
        j.cfg.grid[0] = (uint32_t)a;
        j.cfg.grid[1] = (uint32_t)b;
    }
    if (opts[3].value) {
        if ((rc = cli_parse_pair(cmd, "--block", opts[3].value, 1, 1024,
                                 "X,Y threads, each 1..1024, X * Y <= 1024", &a, &b)))
            return rc;
        if ((int64_t)a * b > 1024)
            return cli_usage(cmd, "--block: '%s' has %lld threads; accepted: X * Y <= 1024",
                             opts[3].value, (long long)a * b);
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
        return runtime_error(cmd, "out of memory", NULL);
    }
    j.source = text;
    cli_op op = {GIP_LOAD_COLOR, kernel_prepare, kernel_run, kernel_release, &j, 0};
    rc = cli_pipeline(cmd, &common, &op, pos[0], pos[1]);
    free(j.folder);
    free(text);
    return rc;
}

const cli_command cli_cmd_kernel = {
    "kernel", "run a CUDA kernel from a source file (compiled at run time, cached)", run_kernel,
    "Usage: gip kernel --source FILE.cu --name NAME [--grid X,Y] [--block X,Y] [options] IN OUT\n"
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
    "(exit 2). Needs a CUDA device (exit 1 without one); gip map and gip stencil run anywhere.\n"
    "\n"
    "Options:\n"
    "  --source FILE.cu     required: the CUDA C++ source\n"
    "  --name NAME          required: the kernel's name\n"
    "  --grid X,Y           blocks (default: enough to give one thread per pixel of IN)\n"
    "  --block X,Y          threads per block, X * Y <= 1024 (default 16,16)\n",
    CLI_COMMON_DEVICE | CLI_COMMON_SAVE | CLI_COMMON_UNCHANGED | CLI_COMMON_OUTPUT};

/* ---- gip map / gip stencil ------------------------------------------------------------------ */

typedef struct expr_job {
    const char *expr;
    gip_scalar scalars[GIP_EXPR_MAX_SCALARS];
    int32_t n_scalars;
    char *scalar_text; /* a copy of --scalar; the scalars' names point into it */
    gip_stencil_params sp;
    /* map: the inputs after the first, loaded by prepare into the first one's memory */
    gip_load_mode load_mode;
    const char *const *more_paths;
    int32_t n_more;
    gip_image host_more[GIP_EXPR_MAX_INPUTS];
    gip_image dev_more[GIP_EXPR_MAX_INPUTS];
    gip_image inputs[GIP_EXPR_MAX_INPUTS];
} expr_job;

/* Parses "NAME=V[,NAME=V...]" into the job's scalars; names are checked by the library. */
static int parse_scalars(const cli_command *cmd, const char *s, expr_job *j)
{
    static const char accepted[] = "NAME=V[,NAME=V...], at most 16, V a finite number";
    j->n_scalars = 0;
    if (!s)
        return 0;
    j->scalar_text = strdup(s);
    if (!j->scalar_text)
        return runtime_error(cmd, "out of memory", NULL);
    char *p = j->scalar_text;
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        char *eq = strchr(p, '=');
        if (!eq || eq == p)
            return cli_usage(cmd, "--scalar: '%s' is malformed; accepted: %s", s, accepted);
        if (j->n_scalars == GIP_EXPR_MAX_SCALARS)
            return cli_usage(cmd, "--scalar: '%s' has more than %d values; accepted: %s", s,
                             GIP_EXPR_MAX_SCALARS, accepted);
        *eq = '\0';
        double v;
        int rc = cli_parse_double(cmd, "--scalar", eq + 1, -3.4e38, 3.4e38, accepted, &v);
        if (rc)
            return rc;
        j->scalars[j->n_scalars].name = p;
        j->scalars[j->n_scalars].value = (float)v;
        j->n_scalars++;
        if (!comma)
            break;
        p = comma + 1;
    }
    return 0;
}

static gip_status map_prepare(gip_context *ctx, const gip_image *src, int32_t *channels,
                              gip_dtype *dtype, void *data)
{
    expr_job *j = data;
    gip_load_params lp = {0};
    lp.mode = j->load_mode;
    for (int32_t i = 0; i < j->n_more; i++) {
        gip_status st = gip_image_load(j->more_paths[i], &lp, &j->host_more[i]);
        if (st)
            return st;
        j->inputs[i + 1] = j->host_more[i];
        if (gip_image_on_host(src))
            continue;
        const gip_image *h = &j->host_more[i];
        if ((st = gip_image_alloc(ctx, &j->dev_more[i], h->width, h->height, h->channels, h->dtype,
                                  src->memory, 0)) ||
            (st = gip_upload(ctx, h, &j->dev_more[i])))
            return st;
        j->inputs[i + 1] = j->dev_more[i];
    }
    return GIP_OK;
}

static gip_status map_run(gip_context *ctx, const gip_image *src, gip_image *dst, void *data)
{
    expr_job *j = data;
    j->inputs[0] = *src;
    return gip_map(ctx, j->expr, j->inputs, 1 + j->n_more, j->scalars, j->n_scalars, dst);
}

static void map_release(gip_context *ctx, void *data)
{
    expr_job *j = data;
    for (int32_t i = 0; i < j->n_more; i++) {
        gip_image_free(ctx, &j->dev_more[i]);
        gip_image_free(NULL, &j->host_more[i]);
    }
}

static gip_status stencil_run(gip_context *ctx, const gip_image *src, gip_image *dst, void *data)
{
    const expr_job *j = data;
    return gip_stencil(ctx, j->expr, src, dst, &j->sp);
}

/* Channels an image of `info` loads with as stored (gray+alpha loads as 4). */
static int32_t stored_channels(const gip_image_info *info)
{
    return info->channels == 2 ? 4 : info->channels;
}

/* Checks from the files' headers, before anything is loaded, that every input has the first
 * one's size: a clear message naming both files rather than the library's about its views.
 * *mixed is set when, loaded as stored, the inputs would differ in channels or depth. */
static int check_sizes(const cli_command *cmd, const char *const *paths, int n, int *mixed)
{
    *mixed = 0;
    gip_image_info first, info;
    gip_status st = gip_image_probe(paths[0], &first);
    if (st)
        return cli_lib_error(cmd->name, st);
    for (int i = 1; i < n; i++) {
        if ((st = gip_image_probe(paths[i], &info)))
            return cli_lib_error(cmd->name, st);
        if (info.width != first.width || info.height != first.height) {
            fprintf(stderr,
                    "gip %s: input %d '%s' is %lldx%lld but input 1 '%s' is %lldx%lld; all "
                    "inputs must have one size\n",
                    cmd->name, i + 1, paths[i], (long long)info.width, (long long)info.height,
                    paths[0], (long long)first.width, (long long)first.height);
            return CLI_EXIT_RUNTIME;
        }
        if (stored_channels(&info) != stored_channels(&first) || info.bit_depth != first.bit_depth)
            *mixed = 1;
    }
    return 0;
}

static int run_map(const cli_command *cmd, int argc, char **argv)
{
    cli_opt opts[] = {{"--scalar", "NAME=V[,...]", NULL}};
    cli_common common;
    const char *pos[2 + GIP_EXPR_MAX_INPUTS];
    int npos, mixed = 0;
    int rc = cli_parse(cmd, argc, argv, opts, 1, &common, pos, 3, 2 + GIP_EXPR_MAX_INPUTS, &npos);
    if (rc)
        return rc;
    expr_job *j = calloc(1, sizeof *j);
    if (!j)
        return runtime_error(cmd, "out of memory", NULL);
    j->expr = pos[0];
    if (!(rc = parse_scalars(cmd, opts[0].value, j)) &&
        !(rc = check_sizes(cmd, pos + 1, npos - 2, &mixed))) {
        /* Inputs of different kinds (gray and RGB, 8 and 16 bits) meet as 8-bit RGB. */
        if (mixed && !common.color) {
            fprintf(stderr,
                    "gip %s: note: the inputs differ in channels or depth: each is loaded as "
                    "8-bit RGB\n",
                    cmd->name);
            common.color = 1;
        }
        j->load_mode = common.color ? GIP_LOAD_COLOR : GIP_LOAD_UNCHANGED;
        j->more_paths = pos + 2;
        j->n_more = npos - 3;
        cli_op op = {GIP_LOAD_COLOR, map_prepare, map_run, map_release, j, 0};
        rc = cli_pipeline(cmd, &common, &op, pos[1], pos[npos - 1]);
    }
    free(j->scalar_text);
    free(j);
    return rc;
}

static int run_stencil(const cli_command *cmd, int argc, char **argv)
{
    cli_opt opts[] = {{"--radius", "R", NULL}, {"--scalar", "NAME=V[,...]", NULL}};
    cli_common common;
    const char *pos[3];
    int npos;
    int rc = cli_parse(cmd, argc, argv, opts, 2, &common, pos, 3, 3, &npos);
    if (rc)
        return rc;
    expr_job *j = calloc(1, sizeof *j);
    if (!j)
        return runtime_error(cmd, "out of memory", NULL);
    j->expr = pos[0];
    int64_t r = 0;
    if (!(rc = parse_scalars(cmd, opts[1].value, j)) &&
        !(rc = opts[0].value
                   ? cli_parse_int(cmd, "--radius", opts[0].value, 0, GIP_STENCIL_MAX_RADIUS,
                                   "0..32 (0: the largest offset used)", &r)
                   : 0)) {
        j->sp.radius = (int32_t)r;
        j->sp.border = common.border;
        j->sp.scalars = j->scalars;
        j->sp.n_scalars = j->n_scalars;
        cli_op op = {GIP_LOAD_COLOR, NULL, stencil_run, NULL, j, 0};
        rc = cli_pipeline(cmd, &common, &op, pos[1], pos[2]);
    }
    free(j->scalar_text);
    free(j);
    return rc;
}

const cli_command cli_cmd_map = {
    "map", "per-pixel expression, e.g. 'out = 255 - in'", run_map,
    "Usage: gip map [--scalar NAME=V[,...]] [options] EXPR IN [IN2 ...] OUT\n"
    "\n"
    "Evaluates EXPR for every pixel and channel (language: docs/expressions.md): float\n"
    "arithmetic + - * / %, comparisons, && || !, ?:, abs min max clamp sqrt exp log pow floor\n"
    "ceil round sin cos, the names x y width height c channels, the inputs (in or a for IN,\n"
    "b for IN2, in2 for the third, then d e f g h; up to 8, all of one size) and the scalars\n"
    "of --scalar. The result is rounded half to even and saturated to IN's depth; OUT has\n"
    "IN's channels. Inputs load as stored (gray, RGB or RGBA, 8 or 16 bits); inputs of\n"
    "different kinds, or any with --color, load as 8-bit RGB. A syntax or type\n"
    "error names its column (exit 2). An expression starting with '-' goes after '--'.\n"
    "Runs on the GPU (generated CUDA, compiled once and cached) or the CPU, with the same\n"
    "8-bit results. Examples:\n"
    "  gip map 'out = 255 - in' in.png out.png\n"
    "  gip map 'out = clamp(a * k + b * (1 - k), 0, 255)' --scalar k=0.3 a.png b.png out.png\n"
    "\n"
    "Options:\n"
    "  --scalar NAME=V[,...]  named constants of the expression, at most 16\n",
    CLI_COMMON_DEVICE | CLI_COMMON_SAVE | CLI_COMMON_UNCHANGED | CLI_COMMON_OUTPUT};

const cli_command cli_cmd_stencil = {
    "stencil", "neighbourhood expression with in(dx, dy) and a border mode", run_stencil,
    "Usage: gip stencil [--radius R] [--scalar NAME=V[,...]] [options] EXPR IN OUT\n"
    "\n"
    "Like gip map on one input, where in(dx, dy) reads the neighbour at integer offsets\n"
    "within the radius, per channel, and --border says what pixels outside the image are\n"
    "(reflect101 by default, as the filters): correct at the borders by construction.\n"
    "Example, the 3x3 mean (equal to gip box --ksize 3):\n"
    "  gip stencil --radius 1 'out = (in(-1,-1) + in(0,-1) + in(1,-1) + in(-1,0) + in +\n"
    "      in(1,0) + in(-1,1) + in(0,1) + in(1,1)) / 9' in.png out.png\n"
    "\n"
    "Options:\n"
    "  --radius R           largest |dx| and |dy| allowed, 0..32 (default 0: the largest\n"
    "                       offset the expression uses)\n"
    "  --scalar NAME=V[,...]  named constants of the expression, at most 16\n",
    CLI_COMMON_DEVICE | CLI_COMMON_BORDER | CLI_COMMON_SAVE | CLI_COMMON_UNCHANGED |
        CLI_COMMON_OUTPUT};
