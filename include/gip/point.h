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

/** Element-wise arithmetic (cv2.add, subtract, multiply, divide, absdiff, min, max, bitwise_*). */
typedef enum gip_arith_op {
    GIP_ARITH_ADD = 0,      /**< src + b */
    GIP_ARITH_SUBTRACT = 1, /**< src - b (b - src with reverse) */
    GIP_ARITH_MULTIPLY = 2, /**< (src * scale) * b */
    GIP_ARITH_DIVIDE = 3,   /**< (src * scale) / b ((b * scale) / src with reverse) */
    GIP_ARITH_ABSDIFF = 4,  /**< |src - b| */
    GIP_ARITH_MIN = 5,
    GIP_ARITH_MAX = 6,
    GIP_ARITH_AND = 7, /**< bitwise, integer dtypes */
    GIP_ARITH_OR = 8,
    GIP_ARITH_XOR = 9
} gip_arith_op;

/** The second operand and options of gip_arith(). Zero-initialise. */
typedef struct gip_arith_params {
    gip_arith_op op;
    const gip_image *src2; /**< the second operand (src's shape, dtype and location), or NULL for
                                value */
    double value[4];       /**< the scalar operand per channel, when src2 is NULL */
    int32_t scaled;        /**< MULTIPLY, DIVIDE: non-zero to apply `scale` (else 1) */
    double scale;
    int32_t reverse;       /**< SUBTRACT, DIVIDE with a scalar: the scalar is the left operand */
    const gip_image *mask; /**< NULL, or u8 with one channel of src's size: dst is 0 where the
                                mask is 0 */
} gip_arith_params;

/**
 * Element-wise arithmetic as OpenCV 5 computes it: for a scalar operand, and for two images of
 * u8 and u16, in single precision (fused multiply-adds where OpenCV's vector code has them),
 * rounded half to even and saturated for integer dtypes; add and subtract of two integer images
 * are exact. DIVIDE: a zero divisor gives 0 for integer images (with a scalar dividend, only
 * when the scalar is an integer, as OpenCV) and IEEE results for f32. MIN, MAX and the bitwise
 * operations take the scalar rounded and saturated to the dtype. dtypes u8, u16, s16, f32 (the
 * bitwise operations integers only); 1, 3, 4 channels; dst: src's shape, may be src or src2.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, bad op, non-finite scalar);
 *         GIP_ERR_SHAPE_MISMATCH (src2, mask or dst); GIP_ERR_UNSUPPORTED (dtype);
 *         GIP_ERR_ALIASING; GIP_ERR_LOCATION_MISMATCH; GIP_ERR_NO_DEVICE; GIP_ERR_DEVICE;
 *         GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_arith(gip_context *ctx, const gip_image *src, gip_image *dst,
                             const gip_arith_params *params);

/**
 * cv2.addWeighted: dst = src1 * alpha + src2 * beta + gamma, as fma(src1, alpha, fma(src2, beta,
 * gamma)) in single precision (OpenCV's vector code), rounded and saturated. src1, src2, dst:
 * the same shape and dtype (u8, u16, s16, f32); dst may be either source.
 * @return as gip_arith().
 */
GIP_API gip_status gip_add_weighted(gip_context *ctx, const gip_image *src1, double alpha,
                                    const gip_image *src2, double beta, double gamma,
                                    gip_image *dst);

/**
 * cv2.convertScaleAbs: dst (u8) = saturate(|fma(src, alpha, beta)|) in single precision. src
 * u8, u16, s16 or f32; dst u8 with src's channels.
 * @return as gip_arith().
 */
GIP_API gip_status gip_convert_scale_abs(gip_context *ctx, const gip_image *src, gip_image *dst,
                                         double alpha, double beta);

/**
 * cv2.LUT on u8 images: dst = table[src]. table holds 256 entries per table channel;
 * table_channels is 1 (every channel) or src's channel count (one table each, entry v of
 * channel c at table[c * 256 + v]). dst: u8, src's shape; may be src.
 * @return as gip_arith().
 */
GIP_API gip_status gip_lut(gip_context *ctx, const gip_image *src, gip_image *dst,
                           const uint8_t *table, int32_t table_channels);

/** Norms of gip_normalize() (cv2.NORM_* values). */
typedef enum gip_norm_type {
    GIP_NORM_INF = 1,
    GIP_NORM_L1 = 2,
    GIP_NORM_L2 = 4,
    GIP_NORM_MINMAX = 32
} gip_norm_type;

/**
 * cv2.normalize: MINMAX maps [min, max] of src (where mask is not 0) linearly onto
 * [min(alpha, beta), max(alpha, beta)]; INF, L1 and L2 scale src so that its norm is alpha.
 * The scale and shift are computed in double precision as OpenCV does and applied as
 * gip_convert() applies them. dst: src's size and channels, any of u8, u16, s16, f32; 0 where
 * mask is 0. mask: NULL or u8 with one channel. Reads the whole image; on a device the
 * reduction waits for its result.
 * @return as gip_arith(); GIP_ERR_INVALID_ARGUMENT for a bad norm.
 */
GIP_API gip_status gip_normalize(gip_context *ctx, const gip_image *src, gip_image *dst,
                                 double alpha, double beta, gip_norm_type norm,
                                 const gip_image *mask);

/**
 * Gamma correction: dst = max * (src / max) ^ gamma, with max 255 for u8 (rounded half to even
 * from double precision) and 1 for f32. dst: src's shape and dtype; may be src.
 * @return as gip_arith(); GIP_ERR_INVALID_ARGUMENT for gamma not finite or <= 0.
 */
GIP_API gip_status gip_gamma(gip_context *ctx, const gip_image *src, gip_image *dst, double gamma);

#ifdef __cplusplus
}
#endif
#endif
