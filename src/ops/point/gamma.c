/* SPDX-License-Identifier: MIT */
/* The registry's gamma: gip_gamma(). */
#include "gip/point.h"
#include "registry/registry.h"

static const gip_param decl[] = {
    GIP__PARAM_EX("gamma", GIP_PARAM_DOUBLE, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, 1e-6, 1e6,
                  0, NULL, NULL, "the exponent: below 1 brightens, above 1 darkens", "2.2"),
};

static gip_status build(const gip_args *a, void *out)
{
    *(double *)out = gip_args_double(a, "gamma");
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_gamma(ctx, src, dst, *(const double *)p);
}

const gip_op gip__op_gamma = {
    .name = "gamma",
    .family = "point",
    .summary = "Gamma correction: max * (src / max) ^ gamma.",
    .doc = "u8: 255 * (x / 255) ^ gamma in double precision, rounded half to even (one table "
           "for both backends); f32: x ^ gamma.",
    .cv_name = NULL,
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_POINTWISE | GIP_OP_IN_PLACE,
    .params_size = sizeof(double),
    .build = build,
    .run = run,
};
