/* SPDX-License-Identifier: MIT */
/* The registry's convert_scale_abs (cv2.convertScaleAbs): gip_convert_scale_abs(). */
#include "gip/point.h"
#include "registry/registry.h"

static const gip_param decl[] = {
    GIP__PARAM("alpha", GIP_PARAM_DOUBLE, GIP_PARAM_POSITIONAL, -1e30, 1e30, 0, NULL, "1",
               "multiplies every value"),
    GIP__PARAM("beta", GIP_PARAM_DOUBLE, GIP_PARAM_POSITIONAL, -1e30, 1e30, 0, NULL, "0",
               "added after alpha"),
};

typedef struct csa_step {
    double alpha, beta;
} csa_step;

static gip_status build(const gip_args *a, void *out)
{
    csa_step *s = out;
    s->alpha = gip_args_double(a, "alpha");
    s->beta = gip_args_double(a, "beta");
    return GIP_OK;
}

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    (void)params;
    (void)in;
    (void)identity;
    out->dtype = GIP_U8;
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    const csa_step *s = p;
    return gip_convert_scale_abs(ctx, src, dst, s->alpha, s->beta);
}

const gip_op gip__op_convert_scale_abs = {
    .name = "convert_scale_abs",
    .family = "point",
    .summary = "|src * alpha + beta| as u8, as cv2.convertScaleAbs.",
    .doc = "dst = saturate(|fma(src, alpha, beta)|) in single precision, rounded half to even, "
           "into u8 whatever the source's dtype.",
    .cv_name = "cv2.convertScaleAbs",
    GIP__PARAMS(decl),
    .dtypes = GIP__DTYPES_ALL,
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_POINTWISE,
    .params_size = sizeof(csa_step),
    .build = build,
    .shape = shape,
    .run = run,
};
