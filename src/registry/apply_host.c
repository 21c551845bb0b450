/* SPDX-License-Identifier: MIT */
/* gip_op_apply() with host images on a CUDA context: the operation runs on the device and its
 * images move through the transfer engine (transfer/host_transfer.h), in row bands where the
 * operation allows it (its halo is finite, it keeps the image size, reads neither positions nor
 * the opposite edge), else in one band. The results are those of the same call on device
 * images. */
#include "internal.h"
#include "registry/registry.h"

#ifdef GIP_HAVE_CUDA
#include "transfer/host_transfer.h"

typedef struct host_call {
    const gip_op *op;
    const void *params;
    const gip_image *const *inputs; /* on the device */
} host_call;

static gip_status run_region(void *arg, gip_context *ctx, const gip_image *src, int64_t r0,
                             gip_image *dst)
{
    const host_call *c = arg;
    (void)r0;
    if (c->op->run_inputs)
        return c->op->run_inputs(ctx, src, c->inputs, dst, c->params);
    return c->op->run(ctx, src, dst, c->params);
}

/* Source rows each output row reads above and below, or -1 where the operation cannot run on row
 * bands of the image. */
static int64_t band_halo(const gip_op *op, const void *params, int32_t identity, bool same_size)
{
    if ((op->flags & GIP_OP_WHOLE) || op->ninputs || identity || !same_size)
        return -1;
    if (op->position && op->position(params))
        return -1;
    if (gip__op_border(op, params) == GIP_BORDER_WRAP)
        return -1;
    int64_t hx = 0, hy = 0;
    if (op->halo)
        op->halo(params, &hx, &hy);
    return hy >= 0 && hx >= 0 ? hy : -1;
}

gip_status gip__op_apply_host(gip_context *ctx, const gip_op *op, const void *params,
                              const gip_image *src, const gip_image *const *inputs, gip_image *dst)
{
    gip_status st;
    if ((st = gip__image_check_ctx(ctx, src, op->name, "src")) ||
        (st = gip__image_check_ctx(ctx, dst, op->name, "dst")))
        return st;
    if (!gip_image_on_host(dst))
        return gip__error(ctx, GIP_ERR_LOCATION_MISMATCH,
                          "%s: src is in host memory and dst in device memory; both must be on "
                          "the host or both on the device",
                          op->name);
    if (gip__images_same(src, dst) ? !(op->flags & GIP_OP_IN_PLACE) : gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap%s", op->name,
                          gip__images_same(src, dst) ? " (it does not run in place)" : "");
    gip_shape in = {src->width, src->height, src->channels, src->dtype}, out = in;
    int32_t identity = 0;
    if ((st = gip__op_shape(op, params, &in, &out, &identity)))
        return st;
    if (dst->width != out.width || dst->height != out.height || dst->channels != out.channels ||
        dst->dtype != out.dtype)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: dst is %lldx%lld c%d %s but the operation makes %lldx%lld c%d %s "
                          "from this src",
                          op->name, (long long)dst->width, (long long)dst->height,
                          (int)dst->channels, gip_dtype_name(dst->dtype), (long long)out.width,
                          (long long)out.height, (int)out.channels, gip_dtype_name(out.dtype));
    /* The extra inputs go up whole first. */
    gip_image up[8] = {{0}};
    const gip_image *dev[8] = {NULL};
    for (int32_t i = 0; i < op->ninputs && !st; i++)
        if (inputs[i] && !(st = gip__xfer_upload(ctx, inputs[i], &up[i])))
            dev[i] = &up[i];
    if (!st) {
        host_call c = {op, params, dev};
        bool same = out.width == in.width && out.height == in.height;
        gip__xfer x = {.src = src,
                       .dst = dst,
                       .halo = band_halo(op, params, identity, same),
                       .reads_dst = op->reads_dst && op->reads_dst(params),
                       .run = run_region,
                       .arg = &c};
        st = gip__xfer_run(ctx, &x);
    }
    for (int32_t i = 0; i < op->ninputs; i++)
        gip_image_free(ctx, &up[i]);
    return st;
}
#else
typedef int gip__apply_host_unused; /* without CUDA there is no device to run on */
#endif
