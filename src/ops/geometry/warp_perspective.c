/* SPDX-License-Identifier: MIT */
/* warp_perspective, as cv2.warpPerspective: gip_warp_perspective() and the registry's description
 * (the shared arithmetic is warp.h). */
#include <string.h>

#include "ops/geometry/warp.h"
#include "ops/geometry/warp_params.h"
#include "registry/registry.h"

gip_status gip_warp_perspective(gip_context *ctx, const gip_image *src, gip_image *dst,
                                const double m[9], const gip_warp_params *params)
{
    return gip__warp_matrix(ctx, src, dst, m, 1, params, "gip_warp_perspective");
}

static const gip_param decl[] = {GIP__WARP_PARAMS(9, "1,0.2,3,-0.1,0.9,2,0.001,-0.002,1",
                                                  "the 3x3 matrix, row by row: m0,...,m8")};

static gip_status build(const gip_args *a, void *out)
{
    return gip__warp_args(a, out, 9);
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *params)
{
    const gip__warp_step *p = params;
    return gip_warp_perspective(ctx, src, dst, p->m, &p->w);
}

const gip_op gip__op_warp_perspective = {
    .name = "warp_perspective",
    .summary = "Perspective warp with a 3x3 matrix, as cv2.warpPerspective.",
    .doc = "dst(x, y) = src(M^-1 (x, y)) (M itself with inverse_map=1) into a dsize image (0: "
           "the source's size). OpenCV 5's arithmetic: the inverse in double, single-precision "
           "coordinates (divided by the third one), fused bilinear weights, nearest rounded half "
           "to even, so u8 results "
           "equal cv2.warpPerspective's; border modes constant (border_value), replicate, reflect, "
           "wrap, reflect101 and transparent (outside pixels keep dst's value). cubic (borders "
           "constant and replicate): single-precision bicubic, u8 within a level of cv2's. CPU "
           "and CUDA give identical results. Reads the whole image (not tiled).",
    .cv_name = "cv2.warpPerspective",
    GIP__WARP_ENTRY,
};
