/* SPDX-License-Identifier: MIT */
/* Private prototypes of gip_conv2d shared by its entry and its two backends. */
#ifndef GIP_FILTER_CONV2D_H
#define GIP_FILTER_CONV2D_H

#include "internal.h"
#include "gip/filter.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The arithmetic, the same on both backends, for each output pixel and output channel co:
 *   acc = bias[co] (0 without bias);
 *   for ky, for kx, for ci: acc = fmaf(weight[co][ci][ky][kx], x, acc)
 * with x the source element (y + ky - pad_h, x + kx - pad_w, ci), 0 outside the image; then
 * dst = acc (f32) or saturate(acc) rounded half to even (u8, u16). Arguments are checked by the
 * entry; weight and bias point at host memory.
 */
gip_status gip__conv2d_cpu(gip_context *ctx, const gip_image *src, gip_image *dst,
                           const gip_conv2d_params *p);
gip_status gip__conv2d_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                            const gip_conv2d_params *p);

#ifdef __cplusplus
}
#endif
#endif
