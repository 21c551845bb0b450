/* SPDX-License-Identifier: MIT */
/* morphology, as cv2.morphologyEx: erosions and dilations composed into open, close, gradient,
 * top hat, black hat and hit-or-miss (gip_morphology in morph.c); its registry entry. */
#include "ops/morphology/morph.h"

static const gip_choice ops[] = {
    {"erode", GIP_MORPH_ERODE},
    {"dilate", GIP_MORPH_DILATE},
    {"open", GIP_MORPH_OPEN},
    {"close", GIP_MORPH_CLOSE},
    {"gradient", GIP_MORPH_GRADIENT},
    {"tophat", GIP_MORPH_TOPHAT},
    {"blackhat", GIP_MORPH_BLACKHAT},
    {"hitmiss", GIP_MORPH_HITMISS},
    {NULL, 0},
};

static const gip_param decl[] = {
    GIP__PARAM_EX("op", GIP_PARAM_CHOICE, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, 0, 0, 0, ops,
                  NULL,
                  "cv2's MORPH_*: erode, dilate, open (dilate after erode), close (erode after "
                  "dilate), gradient (dilate - erode), tophat (src - open), blackhat (close - "
                  "src), hitmiss (u8 1-channel: kernel 1 set, -1 clear)",
                  "open"),
    GIP__MORPH_PARAMS,
};

static gip_status build(const gip_args *a, void *out)
{
    return gip__morph_build(a, out, (gip_morph_op)gip_args_int(a, "op"));
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_morphology(ctx, src, dst, &((const gip__morph_step *)p)->p);
}

const gip_op gip__op_morphology = {
    .name = "morphology",
    .family = "morphology",
    .summary = "Open, close, gradient, top hat, black hat and hit-or-miss, as cv2.morphologyEx.",
    .doc = "Erosions and dilations by one structuring element (shape and ksize, or kernel=), "
           "iterations times each, composed as cv2.morphologyEx composes them; differences "
           "saturate. Exact on every dtype, equal to OpenCV's and identical on CPU and CUDA. "
           "hitmiss takes 1-channel u8 only.",
    .cv_name = "cv2.morphologyEx",
    .params = decl,
    .nparams = GIP__COUNT(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_S16) |
              GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP_CHANNELS_BIT(1) | GIP_CHANNELS_BIT(3) | GIP_CHANNELS_BIT(4),
    .params_size = sizeof(gip__morph_step),
    .build = build,
    .release = gip__morph_release,
    .copy = gip__morph_copy,
    .halo = gip__morph_halo,
    .border = gip__morph_border,
    .run = run,
};
