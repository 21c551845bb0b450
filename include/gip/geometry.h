/* SPDX-License-Identifier: MIT */
/* Geometric transforms with OpenCV's semantics: resize (cv2.resize), and the matrices of the
 * warps. Every function runs on the CPU for host views and on the context's GPU for device views,
 * with identical integer results on both. */
#ifndef GIP_GEOMETRY_H
#define GIP_GEOMETRY_H

#include "gip/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Interpolation methods, with OpenCV's values (cv2.INTER_*). */
typedef enum gip_interpolation {
    GIP_INTER_NEAREST = 0,       /**< cv2.INTER_NEAREST: src(floor(x * sw / dw)) */
    GIP_INTER_LINEAR = 1,        /**< cv2.INTER_LINEAR: bilinear, 11-bit fixed point for u8 */
    GIP_INTER_CUBIC = 2,         /**< cv2.INTER_CUBIC: Keys cubic (a = -0.75) */
    GIP_INTER_AREA = 3,          /**< cv2.INTER_AREA: pixel-area averaging when shrinking */
    GIP_INTER_LANCZOS4 = 4,      /**< cv2.INTER_LANCZOS4: 8x8 Lanczos window */
    GIP_INTER_LINEAR_EXACT = 5,  /**< cv2.INTER_LINEAR_EXACT: bit-exact bilinear (8/16-bit
                                      fixed point for u8/u16) */
    GIP_INTER_NEAREST_EXACT = 6, /**< cv2.INTER_NEAREST_EXACT: nearest with pixel centres (as
                                      Pillow and scikit-image) */
} gip_interpolation;

/** Parameters of gip_resize(); zero is the default (INTER_NEAREST, no antialias, scale from the
 *  sizes). Use GIP_RESIZE_PARAMS_DEFAULT for cv2.resize's default (INTER_LINEAR). */
typedef struct gip_resize_params {
    int32_t interpolation; /**< a gip_interpolation */
    /** Non-zero: for linear and cubic, when an axis shrinks, widen the filter by the shrink
     *  factor (as Pillow and torchvision's antialias=True do): a triangle filter for linear and a
     *  Keys cubic with a = -0.5 for cubic, sampled at pixel centres and normalised, computed in
     *  single precision and rounded once. When no axis shrinks it changes nothing. */
    int32_t antialias;
    /** cv2.resize's fx and fy: when both are > 0 they are the scale factors, and dst must be
     *  round(fx * src width) x round(fy * src height); when both are 0 the factors are
     *  dst size / src size. */
    double fx, fy;
} gip_resize_params;

#define GIP_RESIZE_PARAMS_DEFAULT                                                                  \
    {                                                                                              \
        GIP_INTER_LINEAR, 0, 0.0, 0.0                                                              \
    }

/**
 * The output size cv2.resize gives: (dw, dh) when both are > 0, else round(sw * fx) x
 * round(sh * fy) (half to even, as OpenCV's saturate_cast).
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT when the size would be empty, fx/fy are negative or
 *         not finite, or a size is above GIP_MAX_DIM.
 */
GIP_API gip_status gip_resize_size(int64_t sw, int64_t sh, int64_t dw, int64_t dh, double fx,
                                   double fy, int64_t *out_w, int64_t *out_h);

/**
 * Resizes src into dst as cv2.resize(src, (dst->width, dst->height), fx, fy, interpolation):
 * OpenCV's coordinate mapping, fixed-point arithmetic and edge rules. u8 results are identical to
 * OpenCV 5's for every interpolation but INTER_LANCZOS4 (identical in practice: its
 * coefficients come from sin/cos); u16 and f32 follow OpenCV's single-precision arithmetic.
 * dst has src's dtype and channels and any size >= 1x1; a dst of src's size is a copy.
 * @param params  NULL: GIP_RESIZE_PARAMS_DEFAULT.
 * dtypes u8, u16, f32; 1, 3 or 4 channels; any strides; both backends (device views run on the
 * context's stream and return before the work is done).
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, bad views, unknown interpolation, antialias
 *         with other than linear or cubic, fx/fy given and dst not the size they give);
 *         GIP_ERR_UNSUPPORTED (dtype, channels); GIP_ERR_SHAPE_MISMATCH (dst dtype or
 *         channels); GIP_ERR_ALIASING (src and dst overlap); GIP_ERR_OUT_OF_MEMORY;
 *         GIP_ERR_DEVICE; GIP_ERR_NOT_BUILT (device views without CUDA).
 */
GIP_API gip_status gip_resize(gip_context *ctx, const gip_image *src, gip_image *dst,
                              const gip_resize_params *params);

/** cv2.rotate's codes. */
typedef enum gip_rotate_code {
    GIP_ROTATE_90_CLOCKWISE = 0,        /**< dst(x, y) = src(y, h-1-x); w and h swap */
    GIP_ROTATE_180 = 1,                 /**< dst(x, y) = src(w-1-x, h-1-y) */
    GIP_ROTATE_90_COUNTERCLOCKWISE = 2, /**< dst(x, y) = src(w-1-y, x); w and h swap */
} gip_rotate_code;

/**
 * Rotates src by a quarter or half turn into dst, as cv2.rotate. dst is h x w for a quarter turn,
 * w x h for 180, with src's dtype and channels.
 * Whole pixels move: every dtype, 1 to 4 channels, any strides, both backends, identical results.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, bad views, unknown code);
 *         GIP_ERR_SHAPE_MISMATCH (dst size, dtype or channels); GIP_ERR_ALIASING (overlap);
 *         GIP_ERR_NOT_BUILT (device views without CUDA).
 */
GIP_API gip_status gip_rotate(gip_context *ctx, const gip_image *src, gip_image *dst, int32_t code);

/**
 * dst(x, y) = src(y, x), as cv2.transpose: dst is h x w with src's dtype and channels.
 * Every dtype, 1 to 4 channels, any strides, both backends.
 * @return as gip_rotate().
 */
GIP_API gip_status gip_transpose(gip_context *ctx, const gip_image *src, gip_image *dst);

/**
 * Copies src into dst at (left, top) and fills the rest of dst by `border`, as
 * cv2.copyMakeBorder with bottom = dst height - src height - top and right = dst width - src
 * width - left: OpenCV's borderInterpolate (margins wider than the image reflect or wrap again;
 * REFLECT_101 of a 1-pixel side repeats it), or border->value per channel for
 * GIP_BORDER_CONSTANT (rounded and saturated to the dtype). Every dtype, 1 to 4 channels, any
 * strides, both backends.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, bad views, unknown mode);
 *         GIP_ERR_SHAPE_MISMATCH (dst too small for the margins, or another dtype or channel
 *         count); GIP_ERR_ALIASING; GIP_ERR_NOT_BUILT.
 */
GIP_API gip_status gip_copy_make_border(gip_context *ctx, const gip_image *src, gip_image *dst,
                                        int64_t top, int64_t left, const gip_border_spec *border);

/* ---- warps ---------------------------------------------------------------------------------- */

/** cv2.WARP_INVERSE_MAP: the matrix maps dst to src (else it is inverted first). */
#define GIP_WARP_INVERSE_MAP 16

/** Parameters of gip_warp_affine() and gip_warp_perspective(). */
typedef struct gip_warp_params {
    int32_t flags;          /**< GIP_INTER_NEAREST, GIP_INTER_LINEAR (GIP_INTER_AREA is
                                 linear) or GIP_INTER_CUBIC (borders constant and replicate
                                 only), optionally | GIP_WARP_INVERSE_MAP */
    gip_border_spec border; /**< how source pixels outside the image are made (cv2's borderMode
                                 and borderValue) */
    int32_t transparent;    /**< non-zero: cv2.BORDER_TRANSPARENT, dst pixels that map outside
                                 keep their value (border.mode is then ignored) */
} gip_warp_params;

/** cv2.warpAffine's and cv2.warpPerspective's defaults: linear, constant border of 0. */
#define GIP_WARP_PARAMS_DEFAULT                                                                    \
    {                                                                                              \
        GIP_INTER_LINEAR, {GIP_BORDER_CONSTANT, {0, 0, 0, 0}}, 0                                   \
    }

/**
 * dst(x, y) = src(M^-1 (x, y)) for the 2x3 matrix m (row-major; with GIP_WARP_INVERSE_MAP m is
 * already the inverse), as cv2.warpAffine with dsize = dst's size: OpenCV 5's arithmetic (the
 * inverse in double, then single-precision coordinates and fused bilinear weights, nearest
 * rounded half to even), so u8 results equal cv2's; every border mode incl. transparent.
 * Cubic (every border incl. transparent): OpenCV 5's single-precision bicubic (a = -0.75), u8
 * within one level of cv2 (equal on all but about 1 pixel in 10^4). Lanczos-4: OpenCV's
 * fixed-point positions (1/32 pixel) and 8x8 tables, u8 equal to cv2's, every border.
 * dtypes u8, u16, f32; 1, 3 or 4 channels; any strides and sizes (src sides below 2^30); both
 * backends with identical results.
 * @param params NULL: GIP_WARP_PARAMS_DEFAULT.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, bad views, a matrix element not finite, an
 *         unsupported interpolation or flag, unknown border); GIP_ERR_UNSUPPORTED (dtype);
 *         GIP_ERR_SHAPE_MISMATCH (dst dtype or channels); GIP_ERR_ALIASING; GIP_ERR_TOO_LARGE;
 *         GIP_ERR_NOT_BUILT.
 */
GIP_API gip_status gip_warp_affine(gip_context *ctx, const gip_image *src, gip_image *dst,
                                   const double m[6], const gip_warp_params *params);

/** The same with a 3x3 perspective matrix (cv2.warpPerspective): the inverse by OpenCV's 3x3
 *  cofactor formula, a single-precision divide by the third coordinate. */
GIP_API gip_status gip_warp_perspective(gip_context *ctx, const gip_image *src, gip_image *dst,
                                        const double m[9], const gip_warp_params *params);

/**
 * dst(x, y) = src(mapx(x, y), mapy(x, y)), as cv2.remap with float maps (a 2-channel map is
 * given split): nearest (rounded half to even) or bilinear with OpenCV 5's fused
 * single-precision weights (u8 results equal cv2's), every border of params incl. transparent.
 * mapx and mapy are one-channel f32 images of dst's size, where dst lives. params->flags takes
 * no GIP_WARP_INVERSE_MAP.
 *
 * Fixed-point maps (cv2.convertMaps' CV_16SC2 + CV_16UC1, gip_convert_maps()) when mapx is s16:
 * mapx holds x, y pairs (one channel, twice dst's width), mapy is u16 of dst's size holding
 * 32 fy + fx in 1/32 pixel, or NULL (whole pixels). Nearest reads (x + (fx >= 16), y + (fy >=
 * 16)); bilinear weighs with OpenCV's tables (u8: integer weights, ((sum + 2^14) >> 15); u16 and
 * f32: float weights added left to right): results equal cv2.remap's with those maps, except
 * that under the transparent border a pixel with a tap outside the source keeps dst's value
 * (cv2 reads outside the source for some). Nearest or linear only.
 * @return as gip_warp_affine(); GIP_ERR_UNSUPPORTED for maps of other dtypes or channels, cubic
 *         with fixed-point maps; GIP_ERR_SHAPE_MISMATCH for maps not of dst's size.
 */
GIP_API gip_status gip_remap(gip_context *ctx, const gip_image *src, gip_image *dst,
                             const gip_image *mapx, const gip_image *mapy,
                             const gip_warp_params *params);

/**
 * cv2.convertMaps: gip_remap()'s maps from one form into another, where they live (host or the
 * context's device). The forms: two f32 maps (x and y: map1 and map2 f32), one f32 map of x, y
 * pairs (twice as wide: map2 NULL; cv2's CV_32FC2), fixed-point s16 x, y pairs (twice as wide)
 * with u16 fractions 32 fy + fx (CV_16SC2 + CV_16UC1) or without them (map2 NULL: whole
 * pixels). The source's form is read from map1 and map2, the result's from dst1 and dst2 the same
 * way; all are one-channel and of one map size. Float to fixed-point rounds x * 32 (half to even,
 * held within [-2^31, 2^31], NaN as 2^31) into x >> 5 (saturated to s16) and x & 31; to whole
 * pixels (dst2 NULL) it rounds x itself. Fixed-point to float gives x + fx / 32. Results equal
 * cv2.convertMaps' for values within int32, and its scalar loop's for the others (its vector
 * loop gives -2^31 to those: cv2's own result there depends on where they sit in the map).
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL map1 or dst1, bad views, forms that do not
 *         match their sizes); GIP_ERR_UNSUPPORTED (other dtypes or channels);
 *         GIP_ERR_SHAPE_MISMATCH; GIP_ERR_ALIASING; GIP_ERR_NOT_BUILT.
 */
GIP_API gip_status gip_convert_maps(gip_context *ctx, const gip_image *map1, const gip_image *map2,
                                    gip_image *dst1, gip_image *dst2);

/* ---- transform matrices (pure math, as OpenCV computes them) ------------------------------- */

/** cv2.getRotationMatrix2D: a rotation by angle degrees (counter-clockwise, y down) about
 *  (cx, cy) (rounded to float as OpenCV's Point2f), scaled by scale; m is 2x3 row-major. */
GIP_API void gip_get_rotation_matrix_2d(double cx, double cy, double angle, double scale,
                                        double m[6]);
/** cv2.getAffineTransform: the 2x3 m mapping the 3 points src (x0, y0, x1, y1, x2, y2) onto dst
 *  (points rounded to float as OpenCV's Point2f; LU with partial pivoting).
 *  @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, collinear points: m is zeros). */
GIP_API gip_status gip_get_affine_transform(const double src[6], const double dst[6], double m[6]);
/** cv2.getPerspectiveTransform: the 3x3 m mapping 4 points onto 4 (m[8] = 1).
 *  @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, degenerate points: m is zeros). */
GIP_API gip_status gip_get_perspective_transform(const double src[8], const double dst[8],
                                                 double m[9]);
/** cv2.invertAffineTransform: the inverse of the 2x3 m (zeros in its 2x2 part when singular). */
GIP_API void gip_invert_affine_transform(const double m[6], double out[6]);

/* ---- pyramids ------------------------------------------------------------------------------ */

/**
 * cv2.pyrDown: the 5x5 Gaussian ([1 4 6 4 1] / 16 each way) at every second pixel into a
 * ((w + 1) / 2) x ((h + 1) / 2) dst; border reflect101 (OpenCV's default), reflect, replicate or
 * wrap. u8 and u16 results equal OpenCV's ((v + 128) >> 8 of the exact sum); f32 in OpenCV's
 * order. dtypes u8, u16, f32; 1, 3 or 4 channels; both backends with identical results.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, bad views, border constant or unknown);
 *         GIP_ERR_UNSUPPORTED (dtype); GIP_ERR_SHAPE_MISMATCH (dst size, dtype or channels);
 *         GIP_ERR_ALIASING; GIP_ERR_NOT_BUILT.
 */
GIP_API gip_status gip_pyr_down(gip_context *ctx, const gip_image *src, gip_image *dst,
                                gip_border border);

/** cv2.pyrUp: a 2w x 2h dst, the zero-inserted source filtered by the 5x5 Gaussian times 4
 *  (reflect101); u8 and u16 equal OpenCV's ((v + 32) >> 6). As gip_pyr_down() otherwise. */
GIP_API gip_status gip_pyr_up(gip_context *ctx, const gip_image *src, gip_image *dst);

#ifdef __cplusplus
}
#endif

#endif
