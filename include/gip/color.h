/* SPDX-License-Identifier: MIT */
/* Colour and depth conversions: dtype conversion with scale and offset, channel order, gray. */
#ifndef GIP_COLOR_H
#define GIP_COLOR_H

#include "gip/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * dst = saturate(src * scale + offset), as OpenCV's Mat::convertTo: computed in single precision,
 * rounded half to even and saturated for integer destinations; no rounding for f32.
 * src and dst: same width, height and channels; any of u8, u16, s16, f32; host or device (both in
 * the same place). dst may be src itself when the dtypes are equal.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT; GIP_ERR_SHAPE_MISMATCH; GIP_ERR_UNSUPPORTED (c32);
 *         GIP_ERR_LOCATION_MISMATCH; GIP_ERR_NO_DEVICE; GIP_ERR_ALIASING (partial overlap);
 *         GIP_ERR_DEVICE; GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_convert(gip_context *ctx, const gip_image *src, gip_image *dst, double scale,
                               double offset);

typedef enum gip_color_code {
    GIP_COLOR_RGB2BGR = 1,   /* also BGR2RGB: swap channels 0 and 2 (3 channels) */
    GIP_COLOR_RGBA2BGRA = 2, /* also BGRA2RGBA (4 channels) */
    GIP_COLOR_RGB2RGBA = 3,  /* add alpha = max of the dtype (1.0 for f32); also BGR2BGRA */
    GIP_COLOR_RGBA2RGB = 4,  /* drop alpha; also BGRA2BGR */
    GIP_COLOR_RGB2BGRA = 5,  /* swap and add alpha; also BGR2RGBA */
    GIP_COLOR_RGBA2BGR = 6,  /* swap and drop alpha; also BGRA2RGB */
    GIP_COLOR_RGB2GRAY = 7,  /* 0.299 R + 0.587 G + 0.114 B with OpenCV's fixed-point rounding */
    GIP_COLOR_BGR2GRAY = 8,
    GIP_COLOR_RGBA2GRAY = 9,
    GIP_COLOR_BGRA2GRAY = 10,
    GIP_COLOR_GRAY2RGB = 11, /* replicate; also GRAY2BGR */
    GIP_COLOR_GRAY2RGBA = 12 /* replicate, alpha = max; also GRAY2BGRA */
} gip_color_code;

/**
 * Converts between channel layouts as cv2.cvtColor with the matching code: u8 and u16 results
 * equal OpenCV's (its fixed-point gray weights), f32 within rounding. src and dst: same width,
 * height and dtype (u8, u16 or f32), channels as the code says; host or device. In place is allowed
 * for the swaps (RGB2BGR, RGBA2BGRA) when dst is src.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (bad code, NULL); GIP_ERR_SHAPE_MISMATCH (channels not
 *         those of the code, sizes differ); GIP_ERR_UNSUPPORTED (dtype); GIP_ERR_ALIASING;
 *         GIP_ERR_LOCATION_MISMATCH; GIP_ERR_NO_DEVICE; GIP_ERR_DEVICE; GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_cvt_color(gip_context *ctx, const gip_image *src, gip_image *dst,
                                 gip_color_code code);

#ifdef __cplusplus
}
#endif
#endif
