/* SPDX-License-Identifier: MIT */
/* The CLI's single-operation runner: one image loaded, uploaded, computed (timed, repeated),
 * downloaded and saved; and the context, upload and --time report the other commands share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

gip_status cli_upload(gip_context *ctx, const gip_image *host, gip_image *dev, double *seconds)
{
    gip_status st = gip_image_alloc(ctx, dev, host->width, host->height, host->channels,
                                    host->dtype, GIP_MEM_CUDA, 0);
    if (st)
        return st;
    double t0 = cli_now();
    if (!(st = gip_upload(ctx, host, dev)))
        st = gip_context_sync(ctx);
    *seconds = cli_now() - t0;
    return st;
}

gip_status cli_download(gip_context *ctx, const gip_image *dev, gip_image *host, double *seconds)
{
    gip_status st = gip_image_alloc(NULL, host, dev->width, dev->height, dev->channels, dev->dtype,
                                    GIP_MEM_HOST, 0);
    if (st)
        return st;
    double t0 = cli_now();
    if (!(st = gip_download(ctx, dev, host)))
        st = gip_context_sync(ctx);
    *seconds = cli_now() - t0;
    if (st)
        gip_image_free(NULL, host);
    return st;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

gip_status cli_load_beside(gip_context *ctx, const gip_image *src, const char *path,
                           const gip_load_params *lp, gip_image *host, gip_image *dev,
                           const gip_image **use)
{
    gip_status st = gip_image_load(path, lp, host);
    if (st)
        return st;
    *use = host;
    if (gip_image_on_host(src))
        return GIP_OK;
    double secs;
    if ((st = cli_upload(ctx, host, dev, &secs)))
        return st;
    *use = dev;
    return GIP_OK;
}

int cli_timings_alloc(const cli_command *cmd, cli_timings *t, int64_t repeat)
{
    t->repeat = repeat;
    t->runs = malloc((size_t)repeat * sizeof *t->runs);
    if (!t->runs)
        return cli_runtime_error(cmd, "out of memory for %lld timings", (long long)repeat);
    return 0;
}

void cli_print_times(const cli_command *cmd, gip_context *ctx, const char *in, const char *what,
                     const char *out, cli_timings *t)
{
    int on_device = gip_context_backend(ctx) == GIP_BACKEND_CUDA;
    int64_t r = t->repeat;
    qsort(t->runs, (size_t)r, sizeof *t->runs, cmp_double);
    double median = r % 2 ? t->runs[r / 2] : 0.5 * (t->runs[r / 2 - 1] + t->runs[r / 2]);
    printf("device    %s\n", gip_context_describe(ctx));
    printf("load      %10.3f ms  %s (%s)\n", t->load * 1e3, in, what);
    if (on_device)
        printf("upload    %10.3f ms\n", t->upload * 1e3);
    else
        printf("upload         none   (CPU: the data stays in host memory)\n");
    printf("compute   %10.3f ms  median, %.3f ms min over %lld run%s of %s\n", median * 1e3,
           t->runs[0] * 1e3, (long long)r, r == 1 ? "" : "s", cmd->name);
    if (on_device)
        printf("download  %10.3f ms\n", t->download * 1e3);
    else
        printf("download       none\n");
    printf("save      %10.3f ms  %s\n", t->save * 1e3, out);
}

/* The result's shape for `img`: op->shape's, or the input's. */
static gip_status result_shape(const cli_op *op, const gip_image *img, gip_shape *out)
{
    gip_shape in = {img->width, img->height, img->channels, img->dtype};
    *out = in;
    return op->shape ? op->shape(&in, out, op->data) : GIP_OK;
}

int cli_run_image(const cli_command *cmd, const cli_common *common, const cli_op *op,
                  const char *in, const char *out)
{
    gip_context *ctx = NULL;
    int rc = cli_check_output(cmd, common, out);
    if (rc || (rc = cli_context(cmd, common, &ctx)))
        return rc;
    int on_device = gip_context_backend(ctx) == GIP_BACKEND_CUDA;
    gip_memory mem = on_device ? GIP_MEM_CUDA : GIP_MEM_HOST;
    gip_image host_in = {0}, dev_in = {0}, dst = {0}, host_out = {0};
    cli_timings t = {0};
    int prepared = 0;
    gip_status st;
    double t0;
    rc = CLI_EXIT_RUNTIME;

    /* As stored by default: gray, RGB or RGBA, 8 or 16 bits; --color gives the op's 8-bit mode. */
    gip_load_params lp = {0};
    lp.mode = common->color ? op->load_mode : GIP_LOAD_UNCHANGED;
    gip_image_info info;
    if (op->shrink && gip_image_probe(in, &info) == GIP_OK)
        lp.reduce = gip_op_load_reduce(op->shrink, &info, 0);
    gip_clear_error(); /* an unreadable file is reported by the load */
    t0 = cli_now();
    if ((st = gip_image_load(in, &lp, &host_in))) {
        cli_lib_error(cmd->name, st);
        goto out_destroy;
    }
    gip_shape shape;
    if ((st = result_shape(op, &host_in, &shape))) {
        rc = cli_op_error(cmd, st);
        goto out_free_in;
    }
    if ((op->flags & CLI_OP_8BIT) && host_in.dtype == GIP_U16 && shape.dtype == GIP_U8) {
        if ((st = cli_to_8bit(&host_in)) || (st = result_shape(op, &host_in, &shape))) {
            rc = cli_op_error(cmd, st);
            goto out_free_in;
        }
        fprintf(stderr,
                "gip %s: note: '%s' is 16-bit; %s computes its 8-bit result from 8 bits: "
                "reduced to 8 (x >> 8)\n",
                cmd->name, in, cmd->name);
    }
    t.load = cli_now() - t0;
    /* Image files hold 8 or 16 unsigned bits: a result of another dtype is refused before it is
     * computed. */
    if (shape.dtype != GIP_U8 && shape.dtype != GIP_U16) {
        rc = cli_usage(cmd,
                       "the result would be %s, which image files do not hold (u8 or u16 only); "
                       "a pipeline converts it, e.g. gip run '%s ... | convert u16 offset=32768'",
                       gip_dtype_name(shape.dtype), cmd->name);
        goto out_free_in;
    }
    /* The load kept within the memory limit; the whole run also holds the result on the host and
     * its encoded file (at most the raw size): refused before either exists when that is above
     * the limit. */
    double in_bytes = (double)host_in.stride * (double)host_in.height;
    double out_bytes = (double)shape.width * (double)shape.height * (double)shape.channels *
                       (double)gip_dtype_size(shape.dtype);
    int64_t limit = gip_default_max_memory();
    if (limit > 0 && in_bytes + 2 * out_bytes > (double)limit) {
        fprintf(stderr,
                "gip %s: the whole-image run of '%s' (%lldx%lld) needs about %.0f bytes of host "
                "memory (the image, the %d-channel %s result and its encoded file), above the "
                "memory limit of %lld bytes (--max-memory; default GIP_MAX_MEMORY, else a quarter "
                "of the memory); gip run streams images by rows within the limit\n",
                cmd->name, in, (long long)host_in.width, (long long)host_in.height,
                in_bytes + 2 * out_bytes, (int)shape.channels, gip_dtype_name(shape.dtype),
                (long long)limit);
        goto out_free_in;
    }

    const gip_image *src = &host_in;
    if (on_device) {
        if ((st = cli_upload(ctx, &host_in, &dev_in, &t.upload))) {
            cli_lib_error(cmd->name, st);
            goto out_release;
        }
        src = &dev_in;
    }
    if (op->prepare) {
        prepared = 1;
        if ((st = op->prepare(ctx, src, op->data))) {
            rc = cli_op_error(cmd, st);
            goto out_release;
        }
    }
    if ((st = gip_image_alloc(ctx, &dst, shape.width, shape.height, shape.channels, shape.dtype,
                              mem, 0))) {
        cli_lib_error(cmd->name, st);
        goto out_release;
    }
    if (cli_timings_alloc(cmd, &t, common->repeat))
        goto out_free_dst;
    for (int64_t r = 0; r < t.repeat; r++) {
        t0 = cli_now();
        if ((st = op->run(ctx, src, &dst, op->data))) {
            rc = cli_op_error(cmd, st);
            goto out_free_runs;
        }
        /* Device work is queued: wait for it before reading the clock. */
        if ((st = gip_context_sync(ctx))) {
            cli_lib_error(cmd->name, st);
            goto out_free_runs;
        }
        t.runs[r] = cli_now() - t0;
    }

    const gip_image *result = &dst;
    if (on_device) {
        if ((st = cli_download(ctx, &dst, &host_out, &t.download))) {
            cli_lib_error(cmd->name, st);
            goto out_free_runs;
        }
        result = &host_out;
    }

    t0 = cli_now();
    if (cli_save(cmd, common, out, result, NULL))
        goto out_free_host_out;
    t.save = cli_now() - t0;
    if (common->time) {
        char what[128];
        snprintf(what, sizeof what, "%lldx%lld, %d channels, %s", (long long)host_in.width,
                 (long long)host_in.height, (int)host_in.channels, gip_dtype_name(host_in.dtype));
        cli_print_times(cmd, ctx, in, what, out, &t);
    }
    rc = CLI_EXIT_OK;

out_free_host_out:
    gip_image_free(NULL, &host_out);
out_free_runs:
    free(t.runs);
out_free_dst:
    gip_image_free(ctx, &dst);
out_release:
    if (prepared && op->release)
        op->release(ctx, op->data);
    gip_image_free(ctx, &dev_in);
out_free_in:
    gip_image_free(NULL, &host_in);
out_destroy:
    gip_context_destroy(ctx);
    return rc;
}
