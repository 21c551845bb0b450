/* SPDX-License-Identifier: MIT */
/* Per-pixel operations as OpenCV defines them: thresholds (fixed, Otsu, triangle, adaptive),
 * inRange, arithmetic with a scalar or a second image (saturating), look-up tables, min-max
 * normalisation, convertScaleAbs and gamma. */
#ifndef GIP_POINT_H
#define GIP_POINT_H

#include "gip/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Threshold types, cv2.THRESH_* values: one of the first five, plus OTSU or TRIANGLE. */
typedef enum gip_thresh_type {
    GIP_THRESH_BINARY = 0,     /**< x > t ? maxval : 0 */
    GIP_THRESH_BINARY_INV = 1, /**< x > t ? 0 : maxval */
    GIP_THRESH_TRUNC = 2,      /**< x > t ? t : x */
    GIP_THRESH_TOZERO = 3,     /**< x > t ? x : 0 */
    GIP_THRESH_TOZERO_INV = 4, /**< x > t ? 0 : x */
    GIP_THRESH_OTSU = 8,       /**< t from the histogram by Otsu's method (u8, one channel) */
    GIP_THRESH_TRIANGLE = 16   /**< t from the histogram by the triangle method (u8, one channel) */
} gip_thresh_type;

/**
 * cv2.threshold: dst = the type's rule applied to every element with threshold `thresh` and
 * `maxval`. For integer dtypes the threshold is floor(thresh) and maxval is rounded and saturated,
 * as OpenCV does; f32 compares in single precision. With GIP_THRESH_OTSU or GIP_THRESH_TRIANGLE
 * in `type` (u8 with one channel only) the threshold is computed from src's histogram and
 * `thresh` is ignored. src, dst: same shape and dtype (u8, u16, s16, f32; 1, 3, 4 channels); dst
 * may be src. computed (may be NULL) receives the threshold used, as cv2.threshold returns it.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, bad type, non-finite values);
 *         GIP_ERR_SHAPE_MISMATCH; GIP_ERR_UNSUPPORTED (dtype; OTSU/TRIANGLE on other than u8c1);
 *         GIP_ERR_ALIASING; GIP_ERR_LOCATION_MISMATCH; GIP_ERR_NO_DEVICE; GIP_ERR_DEVICE;
 *         GIP_ERR_BAD_STATE. On a device the histogram methods wait for the histogram.
 */
GIP_API gip_status gip_threshold(gip_context *ctx, const gip_image *src, gip_image *dst,
                                 double thresh, double maxval, int32_t type, double *computed);

/**
 * The threshold OpenCV's THRESH_OTSU (method GIP_THRESH_OTSU) or THRESH_TRIANGLE (method
 * GIP_THRESH_TRIANGLE) computes for a u8 one-channel image, into *thresh.
 * @return as gip_threshold().
 */
GIP_API gip_status gip_threshold_value(gip_context *ctx, const gip_image *src, int32_t method,
                                       double *thresh);

/**
 * cv2.inRange with scalar bounds: dst (u8, one channel, src's size) is 255 where
 * lower[c] <= src[c] <= upper[c] for every channel c, else 0. For integer dtypes the bounds are
 * first rounded and saturated to the dtype, as OpenCV converts its scalars; f32 compares in
 * single precision. src: u8, u16, s16 or f32 with 1, 3 or 4 channels (lower/upper hold that
 * many values); host or device.
 * @return as gip_threshold().
 */
GIP_API gip_status gip_in_range(gip_context *ctx, const gip_image *src, gip_image *dst,
                                const double *lower, const double *upper);

/** Adaptive threshold methods (cv2.ADAPTIVE_THRESH_*). */
typedef enum gip_adaptive_method {
    GIP_ADAPTIVE_MEAN = 0,    /**< the block's mean (box filter, u8 rounded) */
    GIP_ADAPTIVE_GAUSSIAN = 1 /**< the block's Gaussian-weighted mean (f32, then rounded to u8) */
} gip_adaptive_method;

/**
 * cv2.adaptiveThreshold on a u8 one-channel image: dst = maxval where src - mean > -ceil(c)
 * (BINARY) or src - mean <= -floor(c) (BINARY_INV), else 0, where mean is the local mean over a
 * block_size x block_size window (odd, >= 3) with replicated borders. dst must not overlap src.
 * @return as gip_threshold(), GIP_ERR_INVALID_ARGUMENT for a bad block size, method or type;
 *         GIP_ERR_OUT_OF_MEMORY / GIP_ERR_DEVICE_OUT_OF_MEMORY for the mean image.
 */
GIP_API gip_status gip_adaptive_threshold(gip_context *ctx, const gip_image *src, gip_image *dst,
                                          double maxval, gip_adaptive_method method,
                                          gip_thresh_type type, int32_t block_size, double c);

#ifdef __cplusplus
}
#endif
#endif
