/* SPDX-License-Identifier: MIT */
/* The image pipeline of the filter subcommands: load, upload, timed runs, download, save; and
 * the output checks and format fitting every writing subcommand shares. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

gip_format cli_path_format(const char *path, int *pnm_kind)
{
    *pnm_kind = 0;
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash))
        return GIP_FORMAT_AUTO;
    const char *e = dot + 1;
    if (!strcasecmp(e, "jpg") || !strcasecmp(e, "jpeg"))
        return GIP_FORMAT_JPEG;
    if (!strcasecmp(e, "png"))
        return GIP_FORMAT_PNG;
    if (!strcasecmp(e, "pgm"))
        *pnm_kind = 1;
    else if (!strcasecmp(e, "ppm"))
        *pnm_kind = 3;
    else if (strcasecmp(e, "pnm"))
        return GIP_FORMAT_AUTO;
    return GIP_FORMAT_PNM;
}

int cli_format_holds(gip_format f, int pnm_kind, int32_t channels, gip_dtype dtype)
{
    switch (f) {
    case GIP_FORMAT_JPEG:
        return dtype == GIP_U8 && (channels == 1 || channels == 3);
    case GIP_FORMAT_PNG:
        return (dtype == GIP_U8 || dtype == GIP_U16) && channels != 2;
    case GIP_FORMAT_PNM:
        return (dtype == GIP_U8 || dtype == GIP_U16) &&
               (pnm_kind ? channels == pnm_kind : channels == 1 || channels == 3);
    default:
        return 1; /* unknown: gip_image_save() says what it accepts */
    }
}

int cli_check_output(const cli_command *cmd, const cli_common *common, const char *out)
{
    struct stat sb;
    if (stat(out, &sb) != 0)
        return 0;
    if (S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "gip %s: '%s' is a directory; give a file path\n", cmd->name, out);
        return CLI_EXIT_RUNTIME;
    }
    if (!S_ISREG(sb.st_mode) || common->overwrite)
        return 0;
    /* The library's rule (gip_image_save): not writable by the caller; for root, no write bit. */
    int read_only = geteuid() == 0
                        ? (sb.st_mode & 0222) == 0
                        : faccessat(AT_FDCWD, out, W_OK, AT_EACCESS) != 0 && errno == EACCES;
    if (read_only) {
        fprintf(stderr,
                "gip %s: '%s' exists and is read-only (mode %04o); --overwrite replaces it\n",
                cmd->name, out, (unsigned)(sb.st_mode & 07777));
        return CLI_EXIT_RUNTIME;
    }
    return 0;
}

gip_status cli_to_8bit(gip_image *img)
{
    gip_image d = {0};
    gip_status st =
        gip_image_alloc(NULL, &d, img->width, img->height, img->channels, GIP_U8, GIP_MEM_HOST, 0);
    if (st)
        return st;
    int64_t n = img->width * img->channels;
    for (int64_t y = 0; y < img->height; y++) {
        const uint16_t *s =
            (const uint16_t *)(const void *)((const char *)img->data + y * img->stride);
        uint8_t *o = (uint8_t *)d.data + y * d.stride;
        for (int64_t i = 0; i < n; i++)
            o[i] = (uint8_t)(s[i] >> 8);
    }
    gip_image_free(NULL, img);
    *img = d;
    return GIP_OK;
}

/* Drops the alpha channel of a 4-channel host image (in place of *img). */
static gip_status drop_alpha(gip_image *img)
{
    gip_image d = {0};
    gip_status st =
        gip_image_alloc(NULL, &d, img->width, img->height, 3, img->dtype, GIP_MEM_HOST, 0);
    if (st)
        return st;
    size_t es = (size_t)gip_dtype_size(img->dtype);
    for (int64_t y = 0; y < img->height; y++) {
        const char *s = (const char *)img->data + y * img->stride;
        char *o = (char *)d.data + y * d.stride;
        for (int64_t x = 0; x < img->width; x++)
            memcpy(o + (size_t)x * 3 * es, s + (size_t)x * 4 * es, 3 * es);
    }
    gip_image_free(NULL, img);
    *img = d;
    return GIP_OK;
}

/* A host copy of a view (so that conversions never touch the caller's image). */
static gip_status host_copy(const gip_image *src, gip_image *dst)
{
    gip_status st = gip_image_alloc(NULL, dst, src->width, src->height, src->channels, src->dtype,
                                    GIP_MEM_HOST, 0);
    if (st)
        return st;
    size_t row = (size_t)gip_image_row_bytes(src);
    for (int64_t y = 0; y < src->height; y++)
        memcpy((char *)dst->data + y * dst->stride, (const char *)src->data + y * src->stride, row);
    return GIP_OK;
}

int cli_save(const cli_command *cmd, const cli_common *common, const char *out,
             const gip_image *img, const gip_save_params *extra)
{
    gip_save_params sp = {0};
    if (extra)
        sp = *extra;
    sp.quality = common->quality;
    sp.overwrite = common->overwrite;
    int pnm_kind;
    gip_format f = sp.format ? sp.format : cli_path_format(out, &pnm_kind);
    const char *fname = f == GIP_FORMAT_JPEG ? "JPEG" : pnm_kind == 1 ? "PGM" : "PPM";
    bool alpha = img->channels == 4 && (f == GIP_FORMAT_JPEG || f == GIP_FORMAT_PNM);
    bool deep = img->dtype == GIP_U16 && f == GIP_FORMAT_JPEG;
    gip_image fit = {0};
    const gip_image *save = img;
    gip_status st;
    if (alpha || deep) {
        if ((st = host_copy(img, &fit)) || (alpha && (st = drop_alpha(&fit))) ||
            (deep && (st = cli_to_8bit(&fit)))) {
            gip_image_free(NULL, &fit);
            return cli_lib_error(cmd->name, st);
        }
        fprintf(stderr, "gip %s: note: %s holds %s: '%s' is written %s%s%s\n", cmd->name, fname,
                alpha && deep ? "neither alpha nor 16 bits"
                : alpha       ? "no alpha"
                              : "8 bits a channel",
                out, alpha ? "without alpha" : "", alpha && deep ? " and " : "",
                deep ? "as 8-bit (x >> 8)" : "");
        save = &fit;
    }
    st = gip_image_save(out, save, &sp);
    gip_image_free(NULL, &fit);
    return st ? cli_lib_error(cmd->name, st) : 0;
}

int cli_context(const cli_command *cmd, const cli_common *common, gip_context **ctx)
{
    gip_context_desc desc = {0};
    desc.backend = common->backend;
    desc.device = common->device;
    desc.threads = common->threads;
    gip_status st = gip_context_create(&desc, ctx);
    if (st)
        return cli_lib_error(cmd->name, st);
    if (common->verbose)
        fprintf(stderr, "gip %s: device: %s\n", cmd->name, gip_context_describe(*ctx));
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* An operation's own failure: a parameter the library refuses (the command line asked for
 * something invalid) is a usage error, anything else a runtime one. */
static int op_error(const cli_command *cmd, gip_status st)
{
    cli_lib_error(cmd->name, st);
    return gip_status_group(st) == GIP_ERR_INVALID_ARGUMENT ? CLI_EXIT_USAGE : CLI_EXIT_RUNTIME;
}

static void print_times(const cli_command *cmd, gip_context *ctx, const char *in, const char *out,
                        const gip_image *img, int on_device, double t_load, double t_upload,
                        double *runs, int64_t repeat, double t_download, double t_save)
{
    qsort(runs, (size_t)repeat, sizeof *runs, cmp_double);
    double median = repeat % 2 ? runs[repeat / 2] : 0.5 * (runs[repeat / 2 - 1] + runs[repeat / 2]);
    printf("device    %s\n", gip_context_describe(ctx));
    printf("load      %10.3f ms  %s (%lldx%lld, %d channels, %s)\n", t_load * 1e3, in,
           (long long)img->width, (long long)img->height, (int)img->channels,
           gip_dtype_name(img->dtype));
    if (on_device)
        printf("upload    %10.3f ms\n", t_upload * 1e3);
    else
        printf("upload         none   (CPU: the image stays in host memory)\n");
    printf("compute   %10.3f ms  median, %.3f ms min over %lld run%s of %s\n", median * 1e3,
           runs[0] * 1e3, (long long)repeat, repeat == 1 ? "" : "s", cmd->name);
    if (on_device)
        printf("download  %10.3f ms\n", t_download * 1e3);
    else
        printf("download       none\n");
    printf("save      %10.3f ms  %s\n", t_save * 1e3, out);
}

int cli_pipeline(const cli_command *cmd, const cli_common *common, const cli_op *op, const char *in,
                 const char *out)
{
    gip_context *ctx = NULL;
    int rc = cli_check_output(cmd, common, out);
    if (rc || (rc = cli_context(cmd, common, &ctx)))
        return rc;
    int on_device = gip_context_backend(ctx) == GIP_BACKEND_CUDA;
    gip_memory mem = on_device ? GIP_MEM_CUDA : GIP_MEM_HOST;
    gip_image host_in = {0}, dev_in = {0}, dst = {0}, host_out = {0};
    double t_load = 0, t_upload = 0, t_download = 0, t_save = 0, t0;
    double *runs = NULL;
    int prepared = 0;
    gip_status st;
    rc = CLI_EXIT_RUNTIME;

    /* As stored by default: gray, RGB or RGBA, 8 or 16 bits; --color gives the op's 8-bit mode. */
    gip_load_params lp = {0};
    lp.mode = common->color ? op->load_mode : GIP_LOAD_UNCHANGED;
    t0 = cli_now();
    if ((st = gip_image_load(in, &lp, &host_in))) {
        cli_lib_error(cmd->name, st);
        goto out_destroy;
    }
    if ((op->flags & CLI_OP_8BIT) && host_in.dtype == GIP_U16) {
        if ((st = cli_to_8bit(&host_in))) {
            cli_lib_error(cmd->name, st);
            goto out_free_in;
        }
        fprintf(stderr,
                "gip %s: note: '%s' is 16-bit; %s computes from 8 bits: reduced to 8 (x >> 8)\n",
                cmd->name, in, cmd->name);
    }
    t_load = cli_now() - t0;

    const gip_image *src = &host_in;
    if (on_device) {
        if ((st = gip_image_alloc(ctx, &dev_in, host_in.width, host_in.height, host_in.channels,
                                  host_in.dtype, GIP_MEM_CUDA, 0))) {
            cli_lib_error(cmd->name, st);
            goto out_free_in;
        }
        t0 = cli_now();
        if ((st = gip_upload(ctx, &host_in, &dev_in)) || (st = gip_context_sync(ctx))) {
            cli_lib_error(cmd->name, st);
            goto out_free_in;
        }
        t_upload = cli_now() - t0;
        src = &dev_in;
    }

    int32_t channels = src->channels;
    gip_dtype dtype = src->dtype;
    if (op->prepare) {
        prepared = 1;
        if ((st = op->prepare(ctx, src, &channels, &dtype, op->data))) {
            rc = op_error(cmd, st);
            goto out_release;
        }
    }
    /* The load kept within the memory limit; the whole run also holds the result on the host and
     * its encoded file (at most the raw size): refused before either exists when that is above
     * the limit. */
    double in_bytes = (double)host_in.stride * (double)host_in.height;
    double out_bytes =
        (double)src->width * (double)src->height * (double)channels * (double)gip_dtype_size(dtype);
    int64_t limit = gip_default_max_memory();
    if (limit > 0 && in_bytes + 2 * out_bytes > (double)limit) {
        fprintf(stderr,
                "gip %s: the whole-image run of '%s' (%lldx%lld) needs about %.0f bytes of host "
                "memory (the image, the %d-channel %s result and its encoded file), above the "
                "memory limit of %lld bytes (--max-memory; default GIP_MAX_MEMORY, else a quarter "
                "of the memory); gip run streams images by rows within the limit\n",
                cmd->name, in, (long long)src->width, (long long)src->height,
                in_bytes + 2 * out_bytes, (int)channels, gip_dtype_name(dtype), (long long)limit);
        goto out_release;
    }
    if ((st = gip_image_alloc(ctx, &dst, src->width, src->height, channels, dtype, mem, 0))) {
        cli_lib_error(cmd->name, st);
        goto out_release;
    }
    runs = malloc((size_t)common->repeat * sizeof *runs);
    if (!runs) {
        fprintf(stderr, "gip %s: out of memory for %lld timings\n", cmd->name,
                (long long)common->repeat);
        goto out_free_dst;
    }
    for (int64_t r = 0; r < common->repeat; r++) {
        t0 = cli_now();
        if ((st = op->run(ctx, src, &dst, op->data))) {
            rc = op_error(cmd, st);
            goto out_free_runs;
        }
        /* Device work is queued: wait for it before reading the clock. */
        if ((st = gip_context_sync(ctx))) {
            cli_lib_error(cmd->name, st);
            goto out_free_runs;
        }
        runs[r] = cli_now() - t0;
    }

    const gip_image *result = &dst;
    if (on_device) {
        if ((st = gip_image_alloc(NULL, &host_out, dst.width, dst.height, dst.channels, dst.dtype,
                                  GIP_MEM_HOST, 0))) {
            cli_lib_error(cmd->name, st);
            goto out_free_runs;
        }
        t0 = cli_now();
        if ((st = gip_download(ctx, &dst, &host_out)) || (st = gip_context_sync(ctx))) {
            cli_lib_error(cmd->name, st);
            goto out_free_host_out;
        }
        t_download = cli_now() - t0;
        result = &host_out;
    }

    t0 = cli_now();
    if (cli_save(cmd, common, out, result, NULL))
        goto out_free_host_out;
    t_save = cli_now() - t0;
    if (common->time)
        print_times(cmd, ctx, in, out, &host_in, on_device, t_load, t_upload, runs, common->repeat,
                    t_download, t_save);
    rc = CLI_EXIT_OK;

out_free_host_out:
    gip_image_free(NULL, &host_out);
out_free_runs:
    free(runs);
out_free_dst:
    gip_image_free(ctx, &dst);
out_release:
    if (prepared && op->release)
        op->release(ctx, op->data);
out_free_in:
    gip_image_free(ctx, &dev_in);
    gip_image_free(NULL, &host_in);
out_destroy:
    gip_context_destroy(ctx);
    return rc;
}
