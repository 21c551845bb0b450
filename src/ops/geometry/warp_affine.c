/* SPDX-License-Identifier: MIT */
/* warp_affine, as cv2.warpAffine: gip_warp_affine() and the registry's description (the shared
 * arithmetic is warp.h). */
#include <string.h>

#include "ops/geometry/warp.h"
#include "ops/geometry/warp_params.h"
#include "registry/registry.h"

gip_status gip_warp_affine(gip_context *ctx, const gip_image *src, gip_image *dst,
                           const double m[6], const gip_warp_params *params)
{
    return gip__warp_matrix(ctx, src, dst, m, 0, params, "gip_warp_affine");
}

static const gip_param decl[] = {
    GIP__WARP_PARAMS(6, "1,0.2,3,-0.1,0.9,2", "the 2x3 matrix, row by row: m0,m1,m2,m3,m4,m5")};

static gip_status build(const gip_args *a, void *out)
{
    return gip__warp_args(a, out, 6);
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *params)
{
    const gip__warp_step *p = params;
    return gip_warp_affine(ctx, src, dst, p->m, &p->w);
}

const gip_op gip__op_warp_affine = {
    .name = "warp_affine",
    .summary = "Affine warp with a 2x3 matrix, as cv2.warpAffine.",
    .doc = "dst(x, y) = src(M^-1 (x, y)) (M itself with inverse_map=1) into a dsize image (0: "
           "the source's size). OpenCV 5's arithmetic: the inverse in double, single-precision "
           "coordinates, fused bilinear weights, nearest rounded half to even, so u8 results "
           "equal cv2.warpAffine's; border modes constant (border_value), replicate, reflect, "
           "wrap, reflect101 and transparent (outside pixels keep dst's value). cubic (borders "
           "constant and replicate): single-precision bicubic, u8 within a level of cv2's. CPU "
           "and CUDA give identical results. Reads the whole image (not tiled).",
    .cv_name = "cv2.warpAffine",
    GIP__WARP_ENTRY,
};
