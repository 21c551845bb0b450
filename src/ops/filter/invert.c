/* SPDX-License-Identifier: MIT */
/* invert (gip_invert): argument checks, the dispatch to the CPU or CUDA backend, and its registry
 * entry. */
#include <math.h>
#include <stdint.h>

#include "gip/filter.h"
#include "invert.h"
#include "ops/op_check.h"
#include "registry/registry.h"

gip_status gip_invert(gip_context *ctx, const gip_image *src, gip_image *dst,
                      const gip_invert_params *params)
{
    static const char op[] = "gip_invert";
    bool on_device = false;
    gip_status st = gip__check_same(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    if ((st = gip__check_dtype(ctx, src, GIP__DT_IMAGE, op, "src")))
        return st;
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
    if (on_device)
        return GIP__CUDA_CALL(ctx, op, gip__invert_cuda(ctx, src, dst, max));
    return gip__invert_cpu(ctx, src, dst, max);
}

static const gip_param decl[] = {
    GIP__PARAM("max", GIP_PARAM_DOUBLE, 0, -3.4e38, 3.4e38, 0, NULL, "0",
               "f32 only: dst = max - src (0 means 1.0); integer dtypes use their largest value"),
};

static gip_status build(const gip_args *a, void *out)
{
    gip_invert_params *p = out;
    p->max = (float)gip_args_double(a, "max");
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_invert(ctx, src, dst, p);
}

const gip_op gip__op_invert = {
    .name = "invert",
    .family = "point",
    .summary = "Inverts every value: the dtype's largest value minus the value.",
    .doc = "dst = 255 - src for u8, 65535 - src for u16 and max - src for f32 (max 1.0 unless "
           "given), as cv2.bitwise_not does for u8 and as the seed's Numba kernel did.",
    .cv_name = "cv2.bitwise_not",
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_POINTWISE | GIP_OP_IN_PLACE | GIP_OP_INVOLUTION,
    .params_size = sizeof(gip_invert_params),
    .build = build,
    .run = run,
};
