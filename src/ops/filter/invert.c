/* SPDX-License-Identifier: MIT */
/* The registry's description of invert (gip_invert()). */
#include "gip/filter.h"
#include "registry/registry.h"

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
    .params = decl,
    .nparams = GIP__COUNT(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP_CHANNELS_BIT(1) | GIP_CHANNELS_BIT(3) | GIP_CHANNELS_BIT(4),
    .flags = GIP_OP_POINTWISE | GIP_OP_IN_PLACE | GIP_OP_INVOLUTION,
    .params_size = sizeof(gip_invert_params),
    .build = build,
    .run = run,
};
