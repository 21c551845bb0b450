/* SPDX-License-Identifier: MIT */
/* The run subcommand: a pipeline of operations on one file, or on a folder of files through the
 * batch engine with overlapped stages, a progress bar and a summary. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "gip/pipeline.h"

/* Prints a parse error with the text and a caret under the position; returns CLI_EXIT_USAGE. */
static int parse_error(const cli_command *cmd, const char *text, const gip_parse_error *err)
{
    fprintf(stderr, "gip %s: pipeline: at %d: %s\n", cmd->name, (int)err->position, err->message);
    if (err->position > 0) {
        fprintf(stderr, "  %s\n  %*s^\n", text, (int)err->position - 1, "");
    }
    return CLI_EXIT_USAGE;
}

#define MAX_DEVICES 64

/* Parses --devices: CUDA ordinals separated by commas, each once ("0,2"). */
static int parse_devices(const cli_command *cmd, const char *text, int32_t *list, int32_t *n)
{
    *n = 0;
    const char *p = text;
    for (;;) {
        char *end = NULL;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < 0 || v >= MAX_DEVICES || (*end && *end != ','))
            return cli_usage(cmd,
                             "--devices: '%s' is not a list of CUDA devices; accepted: ordinals "
                             "0..%d separated by commas (e.g. 0,2)",
                             text, MAX_DEVICES - 1);
        for (int32_t k = 0; k < *n; k++)
            if (list[k] == v)
                return cli_usage(cmd, "--devices: device %ld is listed twice in '%s'", v, text);
        list[(*n)++] = (int32_t)v;
        if (!*end)
            return 0;
        p = end + 1;
    }
}

/* Every listed device exists and gip can run on it; a runtime error naming the first that
 * cannot. */
static int check_devices(const cli_command *cmd, const int32_t *list, int32_t n)
{
    int32_t count = 0;
    gip_device_count(&count);
    for (int32_t k = 0; k < n; k++) {
        gip_device_info info = {0};
        if (list[k] >= count) {
            fprintf(stderr, "gip %s: --devices: CUDA device %d does not exist (%d visible%s%s)\n",
                    cmd->name, (int)list[k], (int)count, count ? "" : ": ",
                    count ? "" : gip_device_unavailable_reason());
            return CLI_EXIT_RUNTIME;
        }
        if (gip_device_get_info(list[k], &info) != GIP_OK || !info.usable) {
            fprintf(stderr, "gip %s: --devices: CUDA device %d is not usable: %s\n", cmd->name,
                    (int)list[k], info.reason[0] ? info.reason : gip_last_error());
            return CLI_EXIT_RUNTIME;
        }
    }
    return 0;
}

/* Creates pipeline(s) for the common options and parses `text` into the first; the others are
 * clones, `streams` per device: on the listed devices (`list`, `nlist` > 0: --devices), else on
 * every usable device when --device is auto or cuda without an index (`all_devices`). */
static int make_pipes(const cli_command *cmd, const cli_common *common, const char *text,
                      int streams, int all_devices, const int32_t *list, int32_t nlist,
                      gip_pipeline ***out, int *count)
{
    gip_context_desc desc = {0};
    desc.backend = common->backend;
    desc.device = common->device;
    desc.threads = common->threads;
    if (nlist > 0) {
        int rc = check_devices(cmd, list, nlist);
        if (rc)
            return rc;
        desc.backend = GIP_BACKEND_CUDA;
        desc.device = list[0];
    }
    gip_pipeline *first = NULL;
    gip_status st = gip_pipeline_create(&desc, &first);
    if (st)
        return cli_lib_error(cmd->name, st);
    gip_parse_error err;
    if ((st = gip_pipeline_parse(first, text, &err))) {
        gip_pipeline_free(first);
        if (st == GIP_ERR_OUT_OF_MEMORY)
            return cli_lib_error(cmd->name, st);
        return parse_error(cmd, text, &err);
    }
    gip_context *ctx = gip_pipeline_context(first);
    if (common->verbose)
        fprintf(stderr, "gip %s: device: %s\n", cmd->name, gip_context_describe(ctx));
    int cuda = gip_context_backend(ctx) == GIP_BACKEND_CUDA;
    int32_t ndev = 0, devices[MAX_DEVICES];
    devices[ndev++] = cuda ? gip_context_device(ctx) : 0;
    for (int32_t k = 1; k < nlist; k++)
        devices[ndev++] = list[k];
    if (cuda && all_devices && nlist == 0) {
        int32_t n = 0;
        gip_device_count(&n);
        for (int32_t d = 0; d < n && ndev < MAX_DEVICES; d++) {
            gip_device_info info;
            if (d != devices[0] && gip_device_get_info(d, &info) == GIP_OK && info.usable)
                devices[ndev++] = d;
        }
    }
    int total = cuda ? ndev * streams : 1;
    gip_pipeline **pipes = calloc((size_t)total, sizeof *pipes);
    if (!pipes) {
        gip_pipeline_free(first);
        fprintf(stderr, "gip %s: out of memory\n", cmd->name);
        return CLI_EXIT_RUNTIME;
    }
    pipes[0] = first;
    for (int k = 1; k < total; k++) {
        gip_context_desc d = desc;
        d.backend = GIP_BACKEND_CUDA;
        d.device = devices[k / streams];
        if ((st = gip_pipeline_clone(first, &d, &pipes[k]))) {
            for (int j = 0; j < k; j++)
                gip_pipeline_free(pipes[j]);
            free(pipes);
            return cli_lib_error(cmd->name, st);
        }
    }
    *out = pipes;
    *count = total;
    return 0;
}

/* Creates `path` and every missing folder above it, as mkdir -p; 0, or -1 with errno (ENOTDIR
 * when a part exists and is not a folder). */
static int make_dirs(const char *path)
{
    size_t n = strlen(path);
    char *buf = malloc(n + 1);
    if (!buf) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(buf, path, n + 1);
    int rc = 0;
    for (size_t i = 1; i <= n && rc == 0; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        if (buf[i - 1] == '/')
            continue; /* "a//b" */
        char keep = buf[i];
        buf[i] = '\0';
        struct stat sb;
        if (mkdir(buf, 0777) != 0) {
            if (errno != EEXIST)
                rc = -1;
            else if (stat(buf, &sb) != 0)
                rc = -1;
            else if (!S_ISDIR(sb.st_mode)) {
                errno = ENOTDIR;
                rc = -1;
            }
        }
        buf[i] = keep;
    }
    free(buf);
    return rc;
}

typedef struct run_ui {
    const cli_command *cmd;
    cli_progress bar;
    int quiet;
} run_ui;

static void on_file(void *user, const char *in, const char *out, gip_status status,
                    const char *message, int32_t skipped)
{
    run_ui *ui = user;
    if (!status && !skipped && !*message)
        return;
    char clean[4096];
    cli_clean_message(message, clean, sizeof clean);
    message = clean;
    cli_progress_clear(&ui->bar);
    if (!status && !skipped)
        fprintf(stderr, "gip %s: note: %s\n", ui->cmd->name, message);
    else if (skipped)
        fprintf(stderr, "gip %s: skipped '%s': '%s' exists (--overwrite replaces it)\n",
                ui->cmd->name, in, out);
    else
        fprintf(stderr, "gip %s: failed '%s': %s (%s)\n", ui->cmd->name, in, message,
                gip_status_name(status));
}

static void on_progress(void *user, const gip_batch_progress *pr)
{
    run_ui *ui = user;
    if (!ui->quiet)
        cli_progress_print(&ui->bar, pr);
}

static int run_batch(const cli_command *cmd, const cli_common *common, const char *text,
                     const char *in, const char *out_dir, cli_opts opts)
{
    int64_t jobs = 0, streams = 2;
    int rc;
    gip_batch_options o = {0};
    const char *v;
    if ((v = cli_opt_value(opts, "--jobs")) &&
        (rc = cli_parse_int(cmd, "--jobs", v, 1, 1024,
                            "1..1024 (default: one per core, 8 a GPU at most with nvJPEG)", &jobs)))
        return rc;
    if ((v = cli_opt_value(opts, "--streams")) &&
        (rc = cli_parse_int(cmd, "--streams", v, 1, 16, "1..16 (default 2)", &streams)))
        return rc;
    if ((v = cli_opt_value(opts, "--format"))) {
        const char *f = v;
        if (strcmp(f, "jpg") == 0 || strcmp(f, "jpeg") == 0)
            o.format = GIP_FORMAT_JPEG;
        else if (strcmp(f, "png") == 0)
            o.format = GIP_FORMAT_PNG;
        else if (strcmp(f, "pnm") == 0)
            o.format = GIP_FORMAT_PNM;
        else
            return cli_usage(cmd, "--format: unknown format '%s'; accepted: jpg, png or pnm", f);
    }
    if ((v = cli_opt_value(opts, "--cpu-mode"))) {
        if (strcmp(v, "inline") == 0)
            o.cpu_mode = GIP_BATCH_CPU_INLINE;
        else if (strcmp(v, "staged") == 0)
            o.cpu_mode = GIP_BATCH_CPU_STAGED;
        else
            return cli_usage(cmd, "--cpu-mode: unknown mode '%s'; accepted: inline or staged", v);
    }
    o.jobs = (int32_t)jobs;
    o.quality = common->quality;
    o.overwrite = common->overwrite;
    o.load_unchanged = !common->color;

    char **inputs = NULL;
    int64_t n = 0;
    gip_status st = gip_batch_list_inputs(in, &inputs, &n);
    if (st)
        return cli_lib_error(cmd->name, st);
    if (n == 0) {
        fprintf(stderr, "gip %s: no image files in '%s' (.jpg .jpeg .png .ppm .pgm .pnm)\n",
                cmd->name, in);
        return CLI_EXIT_RUNTIME;
    }
    if (make_dirs(out_dir) != 0) {
        fprintf(stderr, "gip %s: cannot create output folder '%s': %s\n", cmd->name, out_dir,
                strerror(errno));
        gip_batch_free_list(inputs, n);
        return CLI_EXIT_RUNTIME;
    }
    int32_t list[MAX_DEVICES], nlist = 0;
    int one_device = cli_opt_value(opts, "--one-device") != NULL;
    if ((v = cli_opt_value(opts, "--devices"))) {
        if (one_device)
            rc = cli_usage(cmd, "--devices and --one-device exclude each other");
        else if (common->backend == GIP_BACKEND_CPU)
            rc = cli_usage(cmd, "--devices lists CUDA devices; it cannot go with --device cpu");
        else
            rc = parse_devices(cmd, v, list, &nlist);
        if (rc) {
            gip_batch_free_list(inputs, n);
            return rc;
        }
    }
    gip_pipeline **pipes = NULL;
    int npipes = 0;
    int all =
        common->backend == GIP_BACKEND_AUTO || (common->backend == GIP_BACKEND_CUDA && !one_device);
    if ((rc = make_pipes(cmd, common, text, (int)streams, all, list, nlist, &pipes, &npipes))) {
        gip_batch_free_list(inputs, n);
        return rc;
    }
    int64_t gpu_limit = 0;
    if ((v = cli_opt_value(opts, "--gpu-memory-limit")) &&
        (rc = cli_parse_bytes(cmd, "--gpu-memory-limit", v, &gpu_limit)))
        goto out_pipes;
    for (int k = 0; k < npipes; k++)
        gip_pipeline_set_memory_limit(pipes[k], gpu_limit);
    /* --decoder: auto takes nvJPEG on a CUDA pipeline when built with it. */
    const char *dec = cli_opt_value(opts, "--decoder") ? cli_opt_value(opts, "--decoder") : "auto";
    int on_cuda = gip_context_backend(gip_pipeline_context(pipes[0])) == GIP_BACKEND_CUDA;
    gip_batch_codec codec;
    if (strcmp(dec, "nvjpeg") == 0) {
        if (!on_cuda) {
            rc = cli_usage(cmd, "--decoder nvjpeg needs a CUDA device (--device cuda); this run "
                                "is on the CPU");
            goto out_pipes;
        }
        if ((st = gip_nvjpeg_codec(&codec))) {
            rc = cli_lib_error(cmd->name, st);
            goto out_pipes;
        }
        o.codec = &codec;
    } else if (strcmp(dec, "auto") == 0) {
        if (on_cuda && gip_nvjpeg_codec(&codec) == GIP_OK)
            o.codec = &codec;
    } else if (strcmp(dec, "cpu") != 0) {
        rc = cli_usage(cmd, "--decoder: unknown decoder '%s'; accepted: auto, cpu or nvjpeg", dec);
        goto out_pipes;
    }
    int64_t decode_batch = 0;
    if ((v = cli_opt_value(opts, "--decode-batch")) &&
        (rc = cli_parse_int(cmd, "--decode-batch", v, 1, 64, "1..64 (default 16)", &decode_batch)))
        goto out_pipes;
    if (o.codec && decode_batch)
        codec.batch_size = (int32_t)decode_batch;
    if (common->verbose)
        fprintf(stderr, "gip %s: decoder: %s\n", cmd->name,
                o.codec ? "nvJPEG" : "CPU (libjpeg-turbo, libpng)");
    run_ui ui = {
        cmd, {stderr, isatty(fileno(stderr)), 0, 0}, cli_opt_value(opts, "--quiet") != NULL};
    o.on_file = on_file;
    o.on_progress = on_progress;
    o.user = &ui;
    gip_batch_stats stats;
    st = gip_batch_run(pipes, npipes, (const char *const *)inputs, n, out_dir, &o, &stats);
    cli_progress_clear(&ui.bar);
    if (st) {
        rc = cli_lib_error(cmd->name, st);
    } else {
        if (!ui.quiet || common->time) {
            printf("device: %s%s\n", gip_context_describe(gip_pipeline_context(pipes[0])),
                   npipes > 1 ? " (and more pipelines)" : "");
            cli_batch_summary(stdout, &stats);
            int64_t hw = 0, hybrid = 0, cpu = 0;
            gip_nvjpeg_decode_counts(&hw, &hybrid, &cpu);
            if (o.codec)
                printf("nvJPEG decodes: %lld hardware, %lld GPU hybrid, %lld on the CPU\n",
                       (long long)hw, (long long)hybrid, (long long)cpu);
        }
        rc = stats.failed ? CLI_EXIT_RUNTIME : CLI_EXIT_OK;
        if (stats.failed)
            fprintf(stderr, "gip %s: %lld of %lld files failed\n", cmd->name,
                    (long long)stats.failed, (long long)stats.total);
    }
out_pipes:
    for (int k = 0; k < npipes; k++)
        gip_pipeline_free(pipes[k]);
    free(pipes);
    gip_batch_free_list(inputs, n);
    return rc;
}

/* --scheduler ADDRESS: the batch runs on a Dask cluster through the Python package; argv[0] is
 * "run", so this executes `python3 -m gip.dask run <the same arguments>` (docs/dask.md). */
static int run_on_dask(const cli_command *cmd, int argc, char **argv)
{
    const char *py = getenv("GIP_PYTHON");
    if (!py || !*py)
        py = "python3";
    char **args = calloc((size_t)argc + 4, sizeof *args);
    if (!args) {
        fprintf(stderr, "gip %s: out of memory\n", cmd->name);
        return CLI_EXIT_RUNTIME;
    }
    args[0] = (char *)py;
    args[1] = "-m";
    args[2] = "gip.dask";
    for (int k = 0; k < argc; k++)
        args[3 + k] = argv[k];
    fflush(NULL);
    execvp(py, args);
    fprintf(stderr,
            "gip %s: --scheduler runs '%s -m gip.dask', which could not be started (%s); "
            "install Python 3 and the gip package with its dask extra (pip install 'gip[dask]'), "
            "or set GIP_PYTHON\n",
            cmd->name, py, strerror(errno));
    free(args);
    return CLI_EXIT_RUNTIME;
}

/* Words for a stored layout in notes: "RGBA, 16-bit". */
static void describe_layout(int32_t channels, int32_t bits, char *buf, size_t size)
{
    static const char *const names[] = {"?", "gray", "gray+alpha", "RGB", "RGBA"};
    snprintf(buf, size, "%s, %d-bit", names[channels >= 1 && channels <= 4 ? channels : 0],
             (int)bits);
}

/* How `in` is loaded for a one-file run: as stored (gray, RGB or RGBA, 8 or 16 bits) unless
 * --color, or unless the pipeline refuses that or makes of it what OUT's format cannot hold (JPEG:
 * 8-bit gray or RGB; PPM/PGM: no alpha): then without alpha, then also in 8 bits, then as 8-bit
 * RGB, the first that works, with a note on stderr. When none works, as stored, and the run
 * reports why. */
static void choose_load(const cli_command *cmd, gip_pipeline *p, const char *in, const char *out,
                        int color, gip_load_params *lp)
{
    memset(lp, 0, sizeof *lp);
    lp->mode = color ? GIP_LOAD_COLOR : GIP_LOAD_UNCHANGED;
    gip_image_info info;
    if (color || gip_image_probe(in, &info) != GIP_OK) {
        gip_clear_error();
        return;
    }
    int32_t pnm_kind;
    gip_format f = gip_format_from_path(out, &pnm_kind);
    int gray = info.channels <= 2;
    gip_dtype deep = info.bit_depth == 16 ? GIP_U16 : GIP_U8;
    const struct {
        gip_load_mode mode;
        int32_t keep_depth, channels;
        gip_dtype dtype;
    } cands[] = {{GIP_LOAD_UNCHANGED, 0, info.channels == 2 ? 4 : info.channels, deep},
                 {gray ? GIP_LOAD_GRAY : GIP_LOAD_COLOR, 1, gray ? 1 : 3, deep},
                 {gray ? GIP_LOAD_GRAY : GIP_LOAD_COLOR, 0, gray ? 1 : 3, GIP_U8},
                 {GIP_LOAD_COLOR, 0, 3, GIP_U8}};
    char why[512] = "";
    for (size_t k = 0; k < sizeof cands / sizeof cands[0]; k++) {
        int32_t oc = 0;
        gip_dtype odt = GIP_U8;
        gip_status st = gip_pipeline_try(p, info.width, info.height, cands[k].channels,
                                         cands[k].dtype, &oc, &odt);
        int ok = !st && cli_format_holds(f, pnm_kind, oc, odt);
        if (k == 0 && !ok) {
            if (st)
                snprintf(why, sizeof why, "the pipeline refuses it as stored (%s)",
                         gip_last_error());
            else
                snprintf(why, sizeof why,
                         "the pipeline makes %d channel%s of %s of it as stored, which '%s' "
                         "cannot hold",
                         (int)oc, oc == 1 ? "" : "s", gip_dtype_name(odt), out);
        }
        gip_clear_error();
        if (!ok)
            continue;
        if (k > 0) {
            char from[64], to[64];
            describe_layout(info.channels, info.bit_depth, from, sizeof from);
            describe_layout(cands[k].channels, cands[k].dtype == GIP_U16 ? 16 : 8, to, sizeof to);
            fprintf(stderr, "gip %s: note: '%s' (%s) is loaded as %s: %s\n", cmd->name, in, from,
                    to, why);
            lp->mode = cands[k].mode;
            lp->keep_depth = cands[k].keep_depth;
        }
        return;
    }
}

static int run_run(const cli_command *cmd, int argc, char **argv)
{
    for (int k = 1; k < argc && strcmp(argv[k], "--") != 0; k++)
        if (strcmp(argv[k], "--scheduler") == 0 || strncmp(argv[k], "--scheduler=", 12) == 0)
            return run_on_dask(cmd, argc, argv);
    cli_opt table[] = {{"-i", "DIR|GLOB", NULL, 0},
                       {"-o", "DIR", NULL, 0},
                       {"--jobs", "N", NULL, 0},
                       {"--format", "jpg|png|pnm", NULL, 0},
                       {"--overwrite", NULL, NULL, 0},
                       {"--quiet", NULL, NULL, 0},
                       {"--streams", "N", NULL, 0},
                       {"--cpu-mode", "inline|staged", NULL, 0},
                       {"--one-device", NULL, NULL, 0},
                       {"--decoder", "auto|cpu|nvjpeg", NULL, 0},
                       {"--gpu-memory-limit", "BYTES", NULL, 0},
                       {"--max-memory", "BYTES", NULL, 0},
                       {"--decode-batch", "N", NULL, 0},
                       {"--devices", "LIST", NULL, 0}};
    cli_opts opts = CLI_OPTS(table);
    cli_common common;
    const char *pos[3];
    int npos;
    int rc = cli_parse(cmd, argc, argv, opts, &common, pos, 1, 3, &npos);
    if (rc)
        return rc;
    const char *in_dir = cli_opt_value(opts, "-i"), *out_dir = cli_opt_value(opts, "-o");
    const char *max_memory_text = cli_opt_value(opts, "--max-memory");
    const char *gpu_limit_text = cli_opt_value(opts, "--gpu-memory-limit");
    common.overwrite = cli_opt_value(opts, "--overwrite") != NULL;
    if (in_dir || out_dir) {
        if (!in_dir || !out_dir)
            return cli_usage(cmd, "a batch needs both -i DIR|GLOB and -o DIR");
        if (npos != 1)
            return cli_usage(cmd, "with -i and -o, give only the PIPELINE (got %d arguments)",
                             npos);
        if (max_memory_text)
            return cli_usage(cmd, "--max-memory applies to one file (PIPELINE IN OUT)");
        return run_batch(cmd, &common, pos[0], in_dir, out_dir, opts);
    }
    /* The options of batches only. */
    static const char *const batch_only[] = {"--jobs",    "--format",       "--quiet",
                                             "--streams", "--cpu-mode",     "--one-device",
                                             "--decoder", "--decode-batch", "--devices"};
    for (size_t k = 0; k < sizeof batch_only / sizeof batch_only[0]; k++)
        if (cli_opt_value(opts, batch_only[k]))
            return cli_usage(cmd, "%s applies to batches (-i DIR -o DIR)", batch_only[k]);
    if (npos != 3)
        return cli_usage(cmd, "expected PIPELINE IN OUT, or PIPELINE -i DIR|GLOB -o DIR");
    gip_pipeline **pipes = NULL;
    int npipes = 0;
    if ((rc = make_pipes(cmd, &common, pos[0], 1, 0, NULL, 0, &pipes, &npipes)))
        return rc;
    int64_t gpu_limit = 0, max_memory = 0;
    if ((gpu_limit_text &&
         (rc = cli_parse_bytes(cmd, "--gpu-memory-limit", gpu_limit_text, &gpu_limit))) ||
        (max_memory_text &&
         (rc = cli_parse_bytes(cmd, "--max-memory", max_memory_text, &max_memory)))) {
        gip_pipeline_free(pipes[0]);
        free(pipes);
        return rc;
    }
    gip_pipeline_set_memory_limit(pipes[0], gpu_limit);
    if ((rc = cli_check_output(cmd, &common, pos[2]))) {
        gip_pipeline_free(pipes[0]);
        free(pipes);
        return rc;
    }
    gip_load_params lp = {0};
    choose_load(cmd, pipes[0], pos[1], pos[2], common.color, &lp);
    gip_save_params sp = {0};
    sp.quality = common.quality;
    sp.overwrite = common.overwrite;
    double t0 = cli_now();
    /* Streams by rows when the whole image would not fit --max-memory (default: GIP_MAX_MEMORY,
     * else a quarter of the RAM). */
    int32_t streamed = 0;
    gip_status st =
        gip_pipeline_run_file_bounded(pipes[0], pos[1], pos[2], &lp, &sp, max_memory, &streamed);
    if (st) {
        cli_lib_error(cmd->name, st);
        rc = gip_status_group(st) == GIP_ERR_INVALID_ARGUMENT ? CLI_EXIT_USAGE : CLI_EXIT_RUNTIME;
    } else if (common.time) {
        printf("device    %s\n", gip_context_describe(gip_pipeline_context(pipes[0])));
        printf("total     %10.3f ms  load, run, save of %s%s\n", (cli_now() - t0) * 1e3, pos[1],
               streamed == 1   ? " (streamed by rows)"
               : streamed == 2 ? " (decoded ahead on a second thread)"
                               : "");
    }
    gip_pipeline_free(pipes[0]);
    free(pipes);
    return rc;
}

/* The steps a pipeline may hold: every registered operation's usage. */
static void print_steps(void)
{
    printf("\nSteps (gip ops NAME describes one):\n");
    for (int32_t i = 0; i < gip_op_count(); i++) {
        char line[1024];
        cli_op_step_usage(gip_op_at(i), line, sizeof line);
        printf("  %s\n", line);
    }
}

const cli_command cli_cmd_run = {
    .name = "run",
    .summary = "run a pipeline of operations on a file or a folder",
    .run = run_run,
    .example = "gip run 'gaussian 15 | sobel dx=1 | invert' -i photos/ -o out/ --format jpg",
    .help =
        "Usage: gip run [options] PIPELINE IN OUT\n"
        "       gip run [options] PIPELINE -i DIR|GLOB -o DIR\n"
        "\n"
        "Runs a chain of operations, e.g. 'gaussian 15 | sobel dx=1 | invert', on the device\n"
        "without round trips through host memory between them (docs/pipelines.md); the steps are\n"
        "listed below. A syntax error names its position (exit 2).\n"
        "\n"
        "Images load as stored (gray, RGB or RGBA, 8 or 16 bits; --color: 8-bit RGB). Where the\n"
        "pipeline refuses that, or OUT's format cannot hold its result (JPEG: 8-bit gray or RGB;\n"
        "PPM/PGM: no alpha), the input is loaded without alpha, then in 8 bits, and a note on\n"
        "stderr says so. OUT appears only complete, even if gip is killed; a read-only OUT is\n"
        "replaced only with --overwrite.\n"
        "\n"
        "With -i and -o every image of DIR (.jpg .jpeg .png .ppm .pgm .pnm), or every file GLOB\n"
        "matches, is written to DIR/<name>.<ext> (DIR and its parents created if missing):\n"
        "decoding, compute and encoding overlap; outputs appear only complete, even if gip is\n"
        "killed; existing outputs are skipped unless --overwrite. A file that fails is reported\n"
        "and skipped; the exit status is then 1.\n"
        "\n"
        "Options:\n"
        "  -i DIR|GLOB          batch input: a folder or a quoted pattern\n"
        "  -o DIR               batch output folder (created with its parents if missing)\n"
        "  --jobs N             decode/encode threads, 1..1024 (default: one per core, at\n"
        "                       most 8 a GPU with nvJPEG)\n"
        "  --format jpg|png|pnm output format (default: the input's)\n"
        "  --overwrite          replace existing outputs, read-only ones too (batch: otherwise\n"
        "                       skipped; one file: a read-only OUT is otherwise refused)\n"
        "  --quiet              no progress bar and no summary\n"
        "  --streams N          CUDA: pipelines (streams) per device, 1..16 (default 2)\n"
        "  --cpu-mode M         CPU: inline (each thread does every stage; default) or staged\n"
        "  --one-device         CUDA: only the device of --device, not every usable one\n"
        "  --devices LIST       CUDA: these devices (ordinals, e.g. 0,2), the first as --device\n"
        "                       (default: every usable one)\n"
        "  --scheduler ADDRESS  run the batch on a Dask cluster: executes 'python3 -m gip.dask "
        "run'\n"
        "                       with these arguments (pip install 'gip[dask]'; docs/dask.md);\n"
        "                       default: none, the batch runs here\n"
        "  --decoder D          auto, cpu or nvjpeg (default auto: nvJPEG on CUDA when built\n"
        "                       with it)\n"
        "  --decode-batch N     nvJPEG: files per batched decode, 1..64 (default 16)\n"
        "  --gpu-memory-limit B device memory a run may use (e.g. 2G): larger images run in tiles\n"
        "                       with halos, identical to the untiled result (default: 3/4 of it)\n"
        "  --max-memory B       one file: host memory bound (e.g. 256M); larger images are "
        "streamed\n"
        "                       by rows (PNG, baseline JPEG, PPM/PGM); default: GIP_MAX_MEMORY,\n"
        "                       else a quarter of the RAM\n",
    .common = CLI_COMMON_DEVICE | CLI_COMMON_SAVE | CLI_COMMON_UNCHANGED,
    .more_help = print_steps};
