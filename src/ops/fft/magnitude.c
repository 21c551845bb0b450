/* SPDX-License-Identifier: MIT */
/* Public entries of magnitude, log-magnitude and min-max normalisation to u8. */
#include "magnitude.h"
#include "ops/op_check.h"

static gip_status check_pointwise(gip_context *ctx, const gip_image *src, const gip_image *dst,
                                  gip_dtype sdt, gip_dtype ddt, bool any_channels, const char *op,
                                  bool *on_device)
{
    gip_status st = gip__check_unary(ctx, src, dst, op, on_device);
    if (st)
        return st;
    if (src->dtype != sdt || dst->dtype != ddt)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: src %s and dst %s are not supported: src must be %s and dst %s", op,
                          gip_dtype_name(src->dtype), gip_dtype_name(dst->dtype),
                          gip_dtype_name(sdt), gip_dtype_name(ddt));
    if (!any_channels && (src->channels != 1 || dst->channels != 1))
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: src has %d channels and dst %d; both must have 1", op,
                          (int)src->channels, (int)dst->channels);
    if (src->channels != dst->channels)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: src has %d channels but dst %d; they must be equal", op,
                          (int)src->channels, (int)dst->channels);
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap", op);
    return GIP_OK;
}

static gip_status magnitude(gip_context *ctx, const gip_image *src, gip_image *dst, int mode,
                            const char *op)
{
    bool on_device = false;
    gip_status st = check_pointwise(ctx, src, dst, GIP_C32, GIP_F32, false, op, &on_device);
    if (st)
        return st;
    if (on_device)
        return GIP__CUDA_CALL(ctx, op, gip__magnitude_cuda(ctx, src, dst, mode));
    return gip__magnitude_cpu(ctx, src, dst, mode);
}

gip_status gip_magnitude(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return magnitude(ctx, src, dst, GIP__MAG, "gip_magnitude");
}

gip_status gip_log_magnitude(gip_context *ctx, const gip_image *src, gip_image *dst,
                             const gip_log_magnitude_params *params)
{
    int mode = params && params->log1p ? GIP__LOG1P : GIP__LOG;
    return magnitude(ctx, src, dst, mode, "gip_log_magnitude");
}

gip_status gip_normalize_minmax(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    static const char op[] = "gip_normalize_minmax";
    bool on_device = false;
    gip_status st = check_pointwise(ctx, src, dst, GIP_F32, GIP_U8, true, op, &on_device);
    if (st)
        return st;
    if (on_device)
        return GIP__CUDA_CALL(ctx, op, gip__normalize_cuda(ctx, src, dst));
    return gip__normalize_cpu(ctx, src, dst);
}
