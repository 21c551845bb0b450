/* SPDX-License-Identifier: MIT */
/* Private prototypes of remap, shared by its entry and its CUDA backend. */
#ifndef GIP_OPS_REMAP_H
#define GIP_OPS_REMAP_H

#include "ops/geometry/warp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst(x, y) = sample(src, mapx(x, y), mapy(x, y)) on device views, queued on the stream. */
gip_status gip__remap_cuda(gip_context *ctx, const gip_image *src, const gip_image *mapx,
                           const gip_image *mapy, gip_image *dst, const gip__warp *w);

/* The same from fixed-point maps: mxy s16 x, y pairs, mf u16 32 fy + fx or NULL. */
gip_status gip__remap_fixed_cuda(gip_context *ctx, const gip_image *src, const gip_image *mxy,
                                 const gip_image *mf, gip_image *dst, const gip__warp *w);

#ifdef __cplusplus
}
#endif
#endif
