/* SPDX-License-Identifier: MIT */
/* dilate, as cv2.dilate: the maximum over a structuring element (gip_dilate in morph.c); its
 * registry entry. */
#include "ops/morphology/morph.h"

static const gip_param decl[] = {GIP__MORPH_PARAMS};

static gip_status build(const gip_args *a, void *out)
{
    return gip__morph_build(a, out, GIP_MORPH_DILATE);
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_dilate(ctx, src, dst, &((const gip__morph_step *)p)->p);
}

const gip_op gip__op_dilate = {
    .name = "dilate",
    .family = "morphology",
    .summary = "Dilation: the maximum over a structuring element, as cv2.dilate.",
    .doc = "dst(x, y) = the maximum of src(x + i - anchor_x, y + j - anchor_y) over the element's "
           "(i, j): a shape of ksize (rect, cross, ellipse, diamond as "
           "cv2.getStructuringElement) or kernel=, applied iterations times; by default a "
           "constant border that never wins, as OpenCV. Exact on every dtype, equal to OpenCV's "
           "and identical on CPU and CUDA; rectangles cost the same at every size (van Herk / "
           "Gil-Werman).",
    .cv_name = "cv2.dilate",
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
