/* SPDX-License-Identifier: MIT */
/* transpose, as cv2.transpose: dst(x, y) = src(y, x); gip_transpose() and the registry's
 * description. */
#include "gip/geometry.h"
#include "ops/geometry/pixel_map.h"
#include "ops/op_step.h"
#include "registry/registry.h"

gip_status gip_transpose(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    static const char op[] = "gip_transpose";
    if (src && dst && (dst->width != src->height || dst->height != src->width))
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: dst is %lldx%lld; the transpose of %lldx%lld is %lldx%lld", op,
                          (long long)dst->width, (long long)dst->height, (long long)src->width,
                          (long long)src->height, (long long)src->height, (long long)src->width);
    const gip__pixmap m = gip__pixmap_of(src, GIP__PM_TRANSPOSE);
    return gip__pixmap_run(ctx, src, dst, &m, op);
}

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    (void)params;
    (void)identity;
    out->width = in->height;
    out->height = in->width;
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *params)
{
    (void)params;
    return gip_transpose(ctx, src, dst);
}

const gip_op gip__op_transpose = {
    .name = "transpose",
    .family = "geometry",
    .summary = "Swaps rows and columns, as cv2.transpose.",
    .doc = "dst(x, y) = src(y, x): a w x h image becomes h x w. Whole pixels move: every dtype "
           "and channel count, identical on every backend. Reads the whole image (not tiled).",
    .cv_name = "cv2.transpose",
    .params = NULL,
    .nparams = 0,
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_S16) |
              GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_WHOLE,
    .params_size = 1,
    .build = gip__step_build_none,
    .shape = shape,
    .run = run,
};
