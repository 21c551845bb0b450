/* SPDX-License-Identifier: MIT */
/* Public entries of fftshift and ifftshift (numpy semantics over both axes). */
#include "shift.h"

#include "gip/fft.h"
#include "ops/op_check.h"

static gip_status shift(gip_context *ctx, const gip_image *src, gip_image *dst, bool inverse,
                        const char *op)
{
    bool on_device = false;
    gip_status st = gip__check_same(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    if (src->dtype != GIP_F32 && src->dtype != GIP_C32)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED, "%s: dtype %s is not supported: f32 or c32", op,
                          gip_dtype_name(src->dtype));
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING,
                          "%s: src and dst overlap; shifting needs a separate dst", op);
    if (on_device)
        return GIP__CUDA_CALL(ctx, op, gip__fftshift_cuda(ctx, src, dst, inverse));
    return gip__fftshift_cpu(ctx, src, dst, inverse);
}

gip_status gip_fftshift(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return shift(ctx, src, dst, false, "gip_fftshift");
}

gip_status gip_ifftshift(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return shift(ctx, src, dst, true, "gip_ifftshift");
}
