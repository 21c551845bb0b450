/* SPDX-License-Identifier: MIT */
/* erode, as cv2.erode: the minimum over a structuring element (gip_erode in morph.c); its registry
 * entry. */
#include "ops/morphology/morph.h"

static const gip_param decl[] = {GIP__MORPH_PARAMS};

static gip_status build(const gip_args *a, void *out)
{
    return gip__morph_build(a, out, GIP_MORPH_ERODE);
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_erode(ctx, src, dst, &((const gip__morph_step *)p)->p);
}

const gip_op gip__op_erode = {
    .name = "erode",
    .family = "morphology",
    .summary = "Erosion: the minimum over a structuring element, as cv2.erode.",
    .doc = "dst(x, y) = the minimum of src(x + i - anchor_x, y + j - anchor_y) over the element's "
           "(i, j): a shape of ksize (rect, cross, ellipse, diamond as "
           "cv2.getStructuringElement) or kernel=, applied iterations times; by default a "
           "constant border that never wins, as OpenCV. Exact on every dtype, equal to OpenCV's "
           "and identical on CPU and CUDA; rectangles cost the same at every size (van Herk / "
           "Gil-Werman).",
    .cv_name = "cv2.erode",
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
