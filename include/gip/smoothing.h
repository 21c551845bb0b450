/* SPDX-License-Identifier: MIT */
/* Non-linear smoothing with OpenCV's semantics: the median (cv2.medianBlur). */
#ifndef GIP_SMOOTHING_H
#define GIP_SMOOTHING_H

#include "gip/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest median window side (cv2.medianBlur accepts up to 255 for u8). */
#define GIP_MEDIAN_MAX_KSIZE 255

/**
 * cv2.medianBlur(src, ksize): each element is the median of the ksize x ksize window around it,
 * channels apart, with a replicated border (OpenCV's, whatever the border elsewhere). ksize odd:
 * 1 (a copy), 3 and 5 for u8, u16, s16 and f32; 7 .. 255 for u8 (a sliding histogram, whose cost
 * grows with ksize, not with its square). Exact: equal to OpenCV's and identical on both
 * backends. src and dst: same size, dtype and channels (1, 3, 4); host or device; no overlap.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (ksize even, out of range, or above 5 for a dtype
 *         other than u8); GIP_ERR_SHAPE_MISMATCH; GIP_ERR_UNSUPPORTED; GIP_ERR_ALIASING;
 *         GIP_ERR_LOCATION_MISMATCH; GIP_ERR_OUT_OF_MEMORY; GIP_ERR_NO_DEVICE; GIP_ERR_DEVICE;
 *         GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_median_blur(gip_context *ctx, const gip_image *src, gip_image *dst,
                                   int32_t ksize);

#ifdef __cplusplus
}
#endif

#endif
