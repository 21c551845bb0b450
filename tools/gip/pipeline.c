/* SPDX-License-Identifier: MIT */
/* The image pipeline of the filter subcommands: load, upload, timed runs, download, save. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

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
    int rc = cli_context(cmd, common, &ctx);
    if (rc)
        return rc;
    int on_device = gip_context_backend(ctx) == GIP_BACKEND_CUDA;
    gip_memory mem = on_device ? GIP_MEM_CUDA : GIP_MEM_HOST;
    gip_image host_in = {0}, dev_in = {0}, dst = {0}, host_out = {0};
    double t_load = 0, t_upload = 0, t_download = 0, t_save = 0, t0;
    double *runs = NULL;
    int prepared = 0;
    gip_status st;
    rc = CLI_EXIT_RUNTIME;

    gip_load_params lp = {0};
    lp.mode = common->unchanged ? GIP_LOAD_UNCHANGED : op->load_mode;
    t0 = cli_now();
    if ((st = gip_image_load(in, &lp, &host_in))) {
        cli_lib_error(cmd->name, st);
        goto out_destroy;
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

    gip_save_params sp = {0};
    sp.quality = common->quality;
    t0 = cli_now();
    if ((st = gip_image_save(out, result, &sp))) {
        cli_lib_error(cmd->name, st);
        goto out_free_host_out;
    }
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
