/* SPDX-License-Identifier: MIT */
/* The registry's add_weighted (cv2.addWeighted): gip_add_weighted(). */
#include "gip/point.h"
#include "registry/registry.h"

static const gip_param decl[] = {
    GIP__PARAM_EX("alpha", GIP_PARAM_DOUBLE, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, -1e30, 1e30,
                  0, NULL, NULL, "the weight of src", "0.5"),
    GIP__PARAM_EX("beta", GIP_PARAM_DOUBLE, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, -1e30, 1e30,
                  0, NULL, NULL, "the weight of src2", "0.5"),
    GIP__PARAM("gamma", GIP_PARAM_DOUBLE, GIP_PARAM_POSITIONAL, -1e30, 1e30, 0, NULL, "0",
               "added to the weighted sum"),
};

static const gip_input inputs[] = {
    {"src2", GIP_INPUT_SAME_SIZE | GIP_INPUT_SAME_TYPE, 0, 0,
     "the second image (src's shape and dtype)"},
};

typedef struct weighted_step {
    double alpha, beta, gamma;
} weighted_step;

static gip_status build(const gip_args *a, void *out)
{
    weighted_step *w = out;
    w->alpha = gip_args_double(a, "alpha");
    w->beta = gip_args_double(a, "beta");
    w->gamma = gip_args_double(a, "gamma");
    return GIP_OK;
}

static gip_status run_inputs(gip_context *ctx, const gip_image *src, const gip_image *const *in,
                             gip_image *dst, const void *p)
{
    const weighted_step *w = p;
    return gip_add_weighted(ctx, src, w->alpha, in[0], w->beta, w->gamma, dst);
}

const gip_op gip__op_add_weighted = {
    .name = "add_weighted",
    .family = "point",
    .summary = "Weighted sum of two images, as cv2.addWeighted.",
    .doc = "dst = saturate(src * alpha + src2 * beta + gamma), computed as fma(src, alpha, "
           "fma(src2, beta, gamma)) in single precision as OpenCV's vector code does, rounded "
           "half to even for integer dtypes.",
    .cv_name = "cv2.addWeighted",
    GIP__PARAMS(decl),
    .dtypes = GIP__DTYPES_ALL,
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_IN_PLACE,
    .params_size = sizeof(weighted_step),
    .build = build,
    GIP__INPUTS(inputs),
    .run_inputs = run_inputs,
};
