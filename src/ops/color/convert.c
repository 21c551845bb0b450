/* SPDX-License-Identifier: MIT */
/* The registry's description of convert (gip_convert()). */
#include "gip/color.h"
#include "registry/registry.h"

static const gip_param decl[] = {
    GIP__PARAM_EX("dtype", GIP_PARAM_CHOICE, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, 0, 0, 0,
                  gip__dtype_choices, NULL, "the result's dtype", "f32"),
    GIP__PARAM("scale", GIP_PARAM_DOUBLE, 0, -1e30, 1e30, 0, NULL, "1", "multiplies every value"),
    GIP__PARAM("offset", GIP_PARAM_DOUBLE, 0, -1e30, 1e30, 0, NULL, "0", "added after the scale"),
};

typedef struct convert_step {
    gip_dtype dtype;
    double scale, offset;
} convert_step;

static gip_status build(const gip_args *a, void *out)
{
    convert_step *c = out;
    c->dtype = (gip_dtype)gip_args_int(a, "dtype");
    c->scale = gip_args_double(a, "scale");
    c->offset = gip_args_double(a, "offset");
    return GIP_OK;
}

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    (void)in;
    (void)identity;
    out->dtype = ((const convert_step *)params)->dtype;
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    const convert_step *c = p;
    return gip_convert(ctx, src, dst, c->scale, c->offset);
}

const gip_op gip__op_convert = {
    .name = "convert",
    .family = "point",
    .summary = "Converts the dtype with a scale and an offset, as Mat::convertTo.",
    .doc = "dst = saturate(src * scale + offset), computed in single precision, rounded half to "
           "even and saturated for integer results.",
    .cv_name = "Mat.convertTo",
    GIP__PARAMS(decl),
    .dtypes = GIP__DTYPES_ALL,
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_POINTWISE | GIP_OP_IN_PLACE,
    .params_size = sizeof(convert_step),
    .build = build,
    .shape = shape,
    .run = run,
};
