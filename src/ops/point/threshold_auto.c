/* SPDX-License-Identifier: MIT */
/* The registry's threshold_auto: cv2.threshold with THRESH_OTSU or THRESH_TRIANGLE, the level
 * computed from the image's histogram (gip_threshold()). */
#include "gip/point.h"
#include "registry/registry.h"

extern const gip_choice gip__thresh_choices[];

static const gip_choice methods[] = {
    {"otsu", GIP_THRESH_OTSU}, {"triangle", GIP_THRESH_TRIANGLE}, {NULL, 0}};

static const gip_param decl[] = {
    GIP__PARAM("method", GIP_PARAM_CHOICE, GIP_PARAM_POSITIONAL, 0, 0, 0, methods, "otsu",
               "how the level is found: Otsu's between-class variance, or the triangle method"),
    GIP__PARAM("maxval", GIP_PARAM_DOUBLE, GIP_PARAM_POSITIONAL, -1e30, 1e30, 0, NULL, "255",
               "the value of BINARY and BINARY_INV (rounded and saturated)"),
    GIP__PARAM("type", GIP_PARAM_CHOICE, GIP_PARAM_POSITIONAL, 0, 0, 0, gip__thresh_choices,
               "binary", "the rule applied with the level found, cv2.THRESH_*"),
};

typedef struct auto_step {
    int32_t method, type;
    double maxval;
} auto_step;

static gip_status build(const gip_args *a, void *out)
{
    auto_step *t = out;
    t->method = (int32_t)gip_args_int(a, "method");
    t->maxval = gip_args_double(a, "maxval");
    t->type = (int32_t)gip_args_int(a, "type");
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    const auto_step *t = p;
    return gip_threshold(ctx, src, dst, 0, t->maxval, t->type | t->method, NULL);
}

const gip_op gip__op_threshold_auto = {
    .name = "threshold_auto",
    .family = "point",
    .summary = "Threshold at the level Otsu's or the triangle method finds, as cv2.threshold "
               "with THRESH_OTSU or THRESH_TRIANGLE.",
    .doc = "The level comes from the histogram of the whole image, computed as OpenCV computes "
           "it (getThreshVal_Otsu_8u, getThreshVal_Triangle_8u), then the rule of `type` is "
           "applied as threshold does. u8 images with one channel.",
    .cv_name = "cv2.threshold",
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8),
    .channels = GIP_CHANNELS_BIT(1),
    .flags = GIP_OP_WHOLE | GIP_OP_IN_PLACE,
    .params_size = sizeof(auto_step),
    .build = build,
    .run = run,
};
