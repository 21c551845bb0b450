/* SPDX-License-Identifier: MIT */
/* gip_invert: argument checks and dispatch to the CPU or CUDA backend. */
#include <math.h>
#include <stdint.h>

#include "ops/filter/invert.h"
#include "gip/filter.h"

gip_status gip_invert(gip_context *ctx, const gip_image *src, gip_image *dst,
                      const gip_invert_params *params)
{
    static const char op[] = "gip_invert";
    bool on_device = false;
    gip_status st = gip__check_unary(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    if ((st = gip__check_dtype(ctx, src, GIP__DT_IMAGE, op, "src")))
        return st;
    if (dst->dtype != src->dtype || dst->channels != src->channels)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: dst is %d-channel %s but src is %d-channel %s; they must be equal",
                          op, (int)dst->channels, gip_dtype_name(dst->dtype), (int)src->channels,
                          gip_dtype_name(src->dtype));
    float max = params ? params->max : 0.0f;
    if (!isfinite(max))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: max must be a finite number (0 means 1.0)", op);
    if (max == 0.0f)
        max = 1.0f;
    if (!gip__images_same(src, dst) && gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING,
                          "%s: src and dst overlap; pass the same view for in-place, or disjoint "
                          "images",
                          op);
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        size_t es = gip_dtype_size(src->dtype);
        if ((uintptr_t)src->data % es || src->stride % (int64_t)es || (uintptr_t)dst->data % es ||
            dst->stride % (int64_t)es)
            return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                              "%s: device images need data and stride aligned to the element "
                              "size (%zu bytes)",
                              op, es);
        return gip__invert_cuda(ctx, src, dst, max);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
#endif
    }
    return gip__invert_cpu(ctx, src, dst, max);
}
