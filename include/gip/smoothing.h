/* SPDX-License-Identifier: MIT */
/* Non-linear smoothing and sharpening with OpenCV's semantics: the median (cv2.medianBlur), the
 * bilateral filter (cv2.bilateralFilter) and the unsharp mask (GaussianBlur and addWeighted). */
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

/** Bilateral filter parameters (cv2.bilateralFilter). Zero-initialise, then set them. */
typedef struct gip_bilateral_params {
    int32_t d;          /* window diameter; <= 0: from sigma_space (radius round(1.5 sigma)) */
    double sigma_color; /* <= 0 means 1 */
    double sigma_space; /* <= 0 means 1 */
    gip_border border;  /* any; constant is 0 outside, as cv2's copyMakeBorder */
} gip_bilateral_params;

/**
 * cv2.bilateralFilter(src, d, sigmaColor, sigmaSpace, borderType): each pixel becomes the mean of
 * the disc of radius r = d / 2 (at least 1; d <= 0: round(1.5 sigma_space)) around it weighted
 * by exp(-dist^2 / (2 sigma_space^2)) exp(-diff^2 / (2 sigma_color^2)), diff the absolute
 * difference of the values (the sum over channels of them for 3 channels), with OpenCV's float
 * weight tables for u8. Sums in float tap by tap, the same operations on both backends: u8
 * results are identical on CPU and CUDA and within one level of OpenCV's (which sums in another
 * order); f32 results (exact exponentials where OpenCV interpolates a table) within 1e-3 of the
 * range of src, relative. src u8 or f32 with 1 or 3 channels (as cv2); dst alike; host or device;
 * no overlap.
 * @return as gip_median_blur().
 */
GIP_API gip_status gip_bilateral_filter(gip_context *ctx, const gip_image *src, gip_image *dst,
                                        const gip_bilateral_params *params);

/** Unsharp mask parameters. Zero-initialise, then set them. */
typedef struct gip_unsharp_params {
    int32_t ksize_w, ksize_h; /* the Gaussian's, as gip_gaussian_params (0: from sigma) */
    double sigma;             /* the Gaussian's sigma (<= 0: from ksize) */
    double amount;            /* how much of the detail is added: 0 means 1 */
    double threshold;         /* where |src - blur| < threshold, src is kept (0: nowhere) */
    gip_border_spec border;
} gip_unsharp_params;

/**
 * Unsharp mask, the sharpening of cv2.addWeighted(src, 1 + amount, GaussianBlur(src), -amount, 0):
 * blur = gip_gaussian_blur(src) (OpenCV's), then v = fmaf(src, (float)(1 + amount),
 * blur * (float)(-amount)) as cv2.addWeighted computes it in float, rounded half to even and
 * saturated for integer dtypes; where |src - blur| < threshold dst = src. u8 results equal the cv2
 * recipe's and are identical on CPU and CUDA (u16 and f32 inherit the Gaussian's tolerance).
 * src u8, u16 or f32 with 1, 3 or 4 channels; dst alike; host or device; no overlap.
 * @return as gip_gaussian_blur(); GIP_ERR_INVALID_ARGUMENT for amount or threshold not finite.
 */
GIP_API gip_status gip_unsharp_mask(gip_context *ctx, const gip_image *src, gip_image *dst,
                                    const gip_unsharp_params *params);

#ifdef __cplusplus
}
#endif

#endif
