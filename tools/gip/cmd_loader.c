/* SPDX-License-Identifier: MIT */
/* gip loader-bench: runs the batch loader (gip/loader.h) over a folder and prints images/s and
 * where the time goes (read, decode, transform, hand-over). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void progress(int tty, int64_t done, int64_t total, int64_t images, double t)
{
    const double rate = t > 0 ? (double)images / t : 0;
    if (tty) {
        char bar[31];
        const int fill = total ? (int)(30 * done / total) : 30;
        for (int i = 0; i < 30; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[30] = 0;
        fprintf(stderr, "\r[%s] %lld/%lld batches  %.1f img/s ", bar, (long long)done,
                (long long)total, rate);
    } else {
        fprintf(stderr, "%lld/%lld batches  %.1f img/s\n", (long long)done, (long long)total, rate);
    }
    fflush(stderr);
}

static int run_loader_bench(const cli_command *cmd, int argc, char **argv)
{
    cli_opt table[] = {
        {"--size", "N", NULL, 0},   {"--batch", "N", NULL, 0},   {"--train", NULL, NULL, 0},
        {"--epochs", "N", NULL, 0}, {"--workers", "N", NULL, 0}, {"--prefetch", "N", NULL, 0},
        {"--dtype", "T", NULL, 0},  {"--layout", "L", NULL, 0},  {"--skip-errors", NULL, NULL, 0},
        {"--warmup", "N", NULL, 0}, {"--decoder", "D", NULL, 0},
    };
    cli_opts opts = CLI_OPTS(table);
    cli_common common;
    const char *pos[1];
    int npos;
    int rc = cli_parse(cmd, argc, argv, opts, &common, pos, 1, 1, &npos);
    if (rc)
        return rc;
    int64_t size = 224, batch = 256, epochs = 1, workers = 0, prefetch = 0, warmup = 1;
    const char *v;
    if (((v = cli_opt_value(opts, "--size")) &&
         (rc = cli_parse_int(cmd, "--size", v, 1, 16384, "1..16384", &size))) ||
        ((v = cli_opt_value(opts, "--batch")) &&
         (rc = cli_parse_int(cmd, "--batch", v, 1, 65535, "1..65535", &batch))) ||
        ((v = cli_opt_value(opts, "--epochs")) &&
         (rc = cli_parse_int(cmd, "--epochs", v, 1, 1000000, "1..1000000", &epochs))) ||
        ((v = cli_opt_value(opts, "--workers")) &&
         (rc = cli_parse_int(cmd, "--workers", v, 1, 1024, "1..1024", &workers))) ||
        ((v = cli_opt_value(opts, "--prefetch")) &&
         (rc = cli_parse_int(cmd, "--prefetch", v, 1, 64, "1..64", &prefetch))) ||
        ((v = cli_opt_value(opts, "--warmup")) &&
         (rc = cli_parse_int(cmd, "--warmup", v, 0, 1000000, "0..1000000", &warmup))))
        return rc;
    gip_loader_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = GIP_LOADER_F16;
    if ((v = cli_opt_value(opts, "--dtype"))) {
        static const char *const names[] = {"float16", "bfloat16", "float32", "uint8"};
        int k = -1;
        for (int i = 0; i < 4; i++)
            if (!strcmp(v, names[i]))
                k = i;
        if (k < 0)
            return cli_usage(cmd, "--dtype %s: expected float16, bfloat16, float32 or uint8", v);
        d.dtype = (gip_loader_dtype)k;
    }
    if ((v = cli_opt_value(opts, "--layout"))) {
        if (strcmp(v, "NCHW") && strcmp(v, "NHWC"))
            return cli_usage(cmd, "--layout %s: expected NCHW or NHWC", v);
        d.layout = strcmp(v, "NCHW") ? GIP_LOADER_NHWC : GIP_LOADER_NCHW;
    }
    if ((v = cli_opt_value(opts, "--decoder"))) {
        if (strcmp(v, "cpu") && strcmp(v, "nvjpeg"))
            return cli_usage(cmd, "--decoder %s: expected cpu or nvjpeg", v);
        d.decoder = strcmp(v, "cpu") ? GIP_LOADER_DECODE_NVJPEG : GIP_LOADER_DECODE_CPU;
    }
    const int train = cli_opt_value(opts, "--train") != NULL;
    char **files = NULL;
    int64_t n = 0;
    gip_status st = gip_batch_list_inputs(pos[0], &files, &n);
    if (st)
        return cli_lib_error(cmd->name, st);
    if (n == 0) {
        gip_batch_free_list(files, n);
        fprintf(stderr, "gip %s: no images in '%s'\n", cmd->name, pos[0]);
        return CLI_EXIT_RUNTIME;
    }
    gip_context *ctx = NULL;
    if ((rc = cli_context(cmd, &common, &ctx))) {
        gip_batch_free_list(files, n);
        return rc;
    }
    d.files = (const char *const *)files;
    d.n = n;
    d.batch_size = (int32_t)batch;
    d.size = (int32_t)size;
    d.mode = train ? GIP_LOADER_TRAIN : GIP_LOADER_EVAL;
    d.hflip = train ? 0.5 : 0;
    d.shuffle = train;
    d.drop_last = train;
    d.threads = (int32_t)(workers ? workers : common.threads);
    d.prefetch = (int32_t)prefetch;
    d.on_error = cli_opt_value(opts, "--skip-errors") ? GIP_LOADER_SKIP : GIP_LOADER_FAIL;
    if (d.dtype != GIP_LOADER_U8) {
        const double mean[3] = {0.485, 0.456, 0.406}, sd[3] = {0.229, 0.224, 0.225};
        memcpy(d.mean, mean, sizeof mean);
        memcpy(d.std, sd, sizeof sd);
    }
    gip_loader *l = NULL;
    if ((st = gip_loader_create(ctx, &d, &l))) {
        rc = cli_lib_error(cmd->name, st);
        goto out_ctx;
    }
    const int64_t nb = gip_loader_len(l);
    const int tty = isatty(2);
    fprintf(stderr, "%s: %lld files, %lld batches of %lld per epoch, %s, %s\n", cmd->name,
            (long long)n, (long long)nb, (long long)batch, train ? "train" : "eval",
            gip_context_describe(ctx));
    /* warm-up batches (threads starting, caches, the device's first launches) are not timed */
    gip_loader_batch b;
    int64_t warm = warmup < nb ? warmup : 0;
    for (int64_t i = 0; i < warm; i++) {
        if ((st = gip_loader_next(l, &b)))
            goto out_err;
        gip_loader_batch_free(l, &b);
    }
    gip_loader_stats s0;
    gip_loader_get_stats(l, &s0);
    const double t0 = cli_now();
    double last = t0;
    int64_t images = 0, done = 0, total = epochs * nb - warm;
    for (int64_t e = 0; e < epochs; e++)
        for (;;) {
            if ((st = gip_loader_next(l, &b)))
                goto out_err;
            if (b.n == 0)
                break;
            if (b.skipped)
                fprintf(stderr, "%s%s: skipped %lld: %s\n", tty ? "\n" : "", cmd->name,
                        (long long)b.skipped, b.message);
            images += b.n;
            done++;
            gip_loader_batch_free(l, &b);
            const double t = cli_now();
            if (tty || t - last >= 5 || done == total) {
                progress(tty, done, total, images, t - t0);
                last = t;
            }
        }
    const double wall = cli_now() - t0;
    if (tty)
        fprintf(stderr, "\n");
    gip_loader_stats s;
    gip_loader_get_stats(l, &s);
    const double per = images ? 1e3 / (double)images : 0;
    printf("images      %lld in %.3f s: %.1f images/s (%lld batches, %lld skipped)\n",
           (long long)images, wall, wall > 0 ? (double)images / wall : 0, (long long)done,
           (long long)(s.skipped - s0.skipped));
    printf("read        %8.3f ms/image (summed over worker threads)\n", (s.read - s0.read) * per);
    printf("decode      %8.3f ms/image\n", (s.decode - s0.decode) * per);
    printf("transform   %8.3f ms/image (crop, resize, augment, normalise)\n",
           (s.transform - s0.transform) * per);
    printf("hand-over   %8.3f ms/batch (waiting for workers, upload, device pass)\n",
           done ? (s.handover - s0.handover) * 1e3 / (double)done : 0);
    rc = CLI_EXIT_OK;
    goto out_loader;
out_err:
    if (tty)
        fprintf(stderr, "\n");
    rc = cli_lib_error(cmd->name, st);
out_loader:
    gip_loader_destroy(l);
out_ctx:
    gip_context_destroy(ctx);
    gip_batch_free_list(files, n);
    return rc;
}

const cli_command cli_cmd_loader_bench = {
    .name = "loader-bench",
    .summary = "measure the training/inference batch loader on a folder of images",
    .run = run_loader_bench,
    .example = "gip loader-bench --size 224 --batch 256 --train --device cuda photos/",
    .help =
        "Usage: gip loader-bench [--size N] [--batch N] [--train] [--epochs N] [--workers N]\n"
        "                        [--prefetch N] [--dtype T] [--layout L] [--warmup N]\n"
        "                        [--decoder D]\n"
        "                        [--skip-errors] FOLDER\n"
        "\n"
        "Runs the batch loader (gip.Loader, gip_loader_create) over FOLDER's images (or a glob\n"
        "pattern) and prints images/s and where the time goes: reading files, decoding, the\n"
        "transform (crop, antialiased resize, flip, normalise) summed over the worker threads,\n"
        "and the hand-over per batch (waiting for the workers; on CUDA the upload and the\n"
        "device pass). Progress goes to stderr. The first --warmup batches (1) are not timed.\n"
        "\n"
        "  --size N       output width and height, 1..16384 (default 224)\n"
        "  --batch N      images per batch, 1..65535 (default 256)\n"
        "  --train        random-resized-crop, flip 0.5, shuffle, drop_last (default: eval,\n"
        "                 resize the shorter side to N*256/224 then centre-crop)\n"
        "  --epochs N     passes over the folder (default 1)\n"
        "  --workers N    loader threads, 1..1024 (default: --threads, else one per core)\n"
        "  --prefetch N   batches prepared ahead, 1..64 (default 2)\n"
        "  --dtype T      one of float16, bfloat16, float32, uint8 (default float16)\n"
        "  --layout L     one of NCHW, NHWC (default NCHW)\n"
        "  --warmup N     batches run before the timing starts (default 1)\n"
        "  --decoder D    one of cpu (libjpeg-turbo on the workers), nvjpeg (CUDA only: nvJPEG\n"
        "                 and the crops on the GPU) (default cpu)\n"
        "  --skip-errors  leave unreadable files out instead of stopping\n",
    .common = CLI_COMMON_DEVICE,
};
