/* SPDX-License-Identifier: MIT */
/* gip_convert: checks the arguments once, turns scale and offset into the single-precision
 * coefficients OpenCV uses, and runs the CPU or CUDA backend. */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "color/convert.h"
#include "gip/color.h"

static bool dtype_ok(gip_dtype dt)
{
    return dt == GIP_U8 || dt == GIP_U16 || dt == GIP_S16 || dt == GIP_F32;
}

gip_status gip_convert(gip_context *ctx, const gip_image *src, gip_image *dst, double scale,
                       double offset)
{
    static const char op[] = "gip_convert";
    bool on_device = false;
    gip_status st = gip__check_unary(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    if (src->channels != dst->channels)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: src has %d channels but dst has %d; they must be equal", op,
                          (int)src->channels, (int)dst->channels);
    if (!dtype_ok(src->dtype) || !dtype_ok(dst->dtype))
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: cannot convert %s to %s: u8, u16, s16 and f32 are accepted", op,
                          gip_dtype_name(src->dtype), gip_dtype_name(dst->dtype));
    /* OpenCV computes with (float)scale and (float)offset; both must stay finite there. */
    if (!isfinite(scale) || !isfinite(offset) || fabs(scale) > FLT_MAX || fabs(offset) > FLT_MAX)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: scale %g and offset %g must be finite and within the float range "
                          "(|value| <= %g)",
                          op, scale, offset, (double)FLT_MAX);
    bool same = gip__images_same(src, dst);
    if (!same && gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING,
                          "%s: src and dst overlap; dst must be src itself (same view, same dtype) "
                          "or disjoint from it",
                          op);

    gip__convert_params p;
    p.alpha = (float)scale;
    p.beta = (float)offset;
    /* OpenCV's noScale test: then convertTo copies or saturates without arithmetic. */
    p.plain = fabs(scale - 1.0) < DBL_EPSILON && fabs(offset) < DBL_EPSILON;
    if (same && p.plain)
        return GIP_OK; /* converting a view onto itself without scaling changes nothing */

    if (on_device) {
#ifdef GIP_HAVE_CUDA
        return gip__convert_cuda(ctx, src, dst, &p);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
#endif
    }
    return gip__convert_cpu(ctx, src, dst, &p);
}
