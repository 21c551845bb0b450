/* SPDX-License-Identifier: MIT */
/* gip_conv2d (torch.nn.Conv2d, stride 1, on interleaved images): argument checks and dispatch. */
#include <math.h>

#include "conv2d.h"
#include "engine/filter2d/filter2d.h"
#include "ops/op_check.h"

gip_status gip_conv2d(gip_context *ctx, const gip_image *src, gip_image *dst,
                      const gip_conv2d_params *params)
{
    static const char op[] = "gip_conv2d";
    bool on_device = false;
    gip_status st = gip__check_pair(ctx, src, dst, op, &on_device);
    if (st || (st = gip__check_dtype(ctx, src, GIP__DT_IMAGE, op, "src")) ||
        (st = gip__check_dtype(ctx, dst, GIP__DT_IMAGE, op, "dst")))
        return st;
    if (!params)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: params is NULL", op);
    if (!params->weight)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: params->weight is NULL", op);
    if (params->kh < 1 || params->kw < 1 || params->kh > GIP__F2D_MAX_KSIZE ||
        params->kw > GIP__F2D_MAX_KSIZE)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: kernel size %dx%d is invalid: each side must be 1 to %d", op,
                          (int)params->kw, (int)params->kh, GIP__F2D_MAX_KSIZE);
    if (params->pad_h < 0 || params->pad_w < 0 || params->pad_h > GIP__F2D_MAX_KSIZE ||
        params->pad_w > GIP__F2D_MAX_KSIZE)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: padding %dx%d is invalid: 0 to %d on each side are accepted", op,
                          (int)params->pad_w, (int)params->pad_h, GIP__F2D_MAX_KSIZE);
    int64_t ow = src->width + 2 * (int64_t)params->pad_w - params->kw + 1;
    int64_t oh = src->height + 2 * (int64_t)params->pad_h - params->kh + 1;
    if (ow < 1 || oh < 1)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: the %dx%d kernel is larger than the padded %lldx%lld source", op,
                          (int)params->kw, (int)params->kh,
                          (long long)(src->width + 2 * params->pad_w),
                          (long long)(src->height + 2 * params->pad_h));
    if (dst->width != ow || dst->height != oh)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: dst is %lldx%lld but must be %lldx%lld (H + 2 pad_h - kh + 1 by "
                          "W + 2 pad_w - kw + 1)",
                          op, (long long)dst->width, (long long)dst->height, (long long)ow,
                          (long long)oh);
    int64_t nw = (int64_t)dst->channels * src->channels * params->kh * params->kw;
    for (int64_t i = 0; i < nw; i++)
        if (!isfinite(params->weight[i]))
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: weight %lld is not a finite number", op, (long long)i);
    if (params->bias)
        for (int32_t i = 0; i < dst->channels; i++)
            if (!isfinite(params->bias[i]))
                return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                                  "%s: bias %d is not a finite number", op, (int)i);
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING,
                          "%s: src and dst overlap; the convolution needs a separate destination",
                          op);
    if (on_device)
        return GIP__CUDA_CALL(ctx, op, gip__conv2d_cuda(ctx, src, dst, params));
    return gip__conv2d_cpu(ctx, src, dst, params);
}
