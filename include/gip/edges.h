/* SPDX-License-Identifier: MIT */
/* Second derivatives and separable correlation with OpenCV's semantics: cv2.Laplacian and
 * cv2.sepFilter2D (first derivatives are gip_sobel() in gip/filter.h). */
#ifndef GIP_EDGES_H
#define GIP_EDGES_H

#include "gip/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Laplacian parameters (cv2.Laplacian). Zero-initialise. */
typedef struct gip_laplacian_params {
    int32_t ksize; /* 1, 3, 5 or 7; 0 means 1 (cv2's default) */
    float scale;   /* 0 means 1 */
    float delta;
    gip_border_spec border; /* reflect101, reflect, replicate, constant; not wrap */
} gip_laplacian_params;

/**
 * cv2.Laplacian(src, ddepth, ksize, scale, delta, borderType): d2/dx2 + d2/dy2 with OpenCV's
 * kernels (ksize 1: [0 1 0; 1 -4 1; 0 1 0]; 3: [2 0 2; 0 -8 0; 2 0 2]; 5 and 7: the second-order
 * Sobel kernels, dxx + dyy), times scale plus delta. For ksize 1 and 3, as OpenCV, the kernel is
 * multiplied by scale and correlated as gip_filter2d() does; for 5 and 7 the integer sum (exact for
 * u8 and u16 sources) times scale plus delta. src u8, u16 or f32; dst u8, u16, s16 or f32 (cv2's
 * ddepth), rounded half to even and saturated. Integer results are identical on both backends;
 * f32 sources are summed in float (OpenCV sums 5 and 7 separably: results within float rounding).
 * 1, 3, 4 channels; host or device; no overlap.
 * @return as gip_sobel().
 */
GIP_API gip_status gip_laplacian(gip_context *ctx, const gip_image *src, gip_image *dst,
                                 const gip_laplacian_params *params);

/** Separable correlation parameters (cv2.sepFilter2D). Zero-initialise, then set the kernels. */
typedef struct gip_sep_filter_params {
    const float *kernel_x;    /* ksize_w coefficients along rows; required */
    const float *kernel_y;    /* ksize_h coefficients along columns; required */
    int32_t ksize_w, ksize_h; /* 1 .. 1023 */
    int32_t has_anchor;
    int32_t anchor_x, anchor_y;
    float delta; /* added to every result */
    gip_border_spec border;
} gip_sep_filter_params;

/**
 * cv2.sepFilter2D(src, ddepth, kernelX, kernelY, anchor, delta, borderType): the row pass with
 * kernel_x then the column pass with kernel_y (correlation, no flip) through gip's separable
 * engine (float sums tap by tap in kernel order, identical on both backends), plus delta, rounded
 * half to even and saturated for integer dtypes. Integer kernels on integer sources give exact
 * sums, equal to OpenCV's. src u8, u16 or f32; dst u8, u16, s16 or f32; 1, 3, 4 channels; host
 * or device; no overlap.
 * @return as gip_box_filter().
 */
GIP_API gip_status gip_sep_filter2d(gip_context *ctx, const gip_image *src, gip_image *dst,
                                    const gip_sep_filter_params *params);

#ifdef __cplusplus
}
#endif

#endif
