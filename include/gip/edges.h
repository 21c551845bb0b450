/* SPDX-License-Identifier: MIT */
/* Second derivatives, separable correlation and edges with OpenCV's semantics: cv2.Laplacian,
 * cv2.sepFilter2D and cv2.Canny (first derivatives are gip_sobel() in gip/filter.h). */
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

/** Canny parameters (cv2.Canny). Zero-initialise, then set the thresholds. */
typedef struct gip_canny_params {
    double threshold1, threshold2; /* hysteresis thresholds, either order */
    int32_t aperture;              /* Sobel aperture 3, 5 or 7; 0 means 3 (gip_canny only) */
    int32_t l2_gradient;           /* non-zero: sqrt(dx^2 + dy^2) (compared squared), else
                                      |dx| + |dy| */
} gip_canny_params;

/**
 * cv2.Canny(image, threshold1, threshold2, apertureSize, L2gradient): the edges of a u8 image
 * (1, 3 or 4 channels; of several channels, the one of largest gradient at each pixel) into a
 * 1-channel u8 dst of 0 and 255. As OpenCV: Sobel derivatives to s16 with a replicated border,
 * integer magnitudes, non-maximum suppression in four directions with OpenCV's fixed-point
 * tangents, thresholds floor(t) (L2: floor(min(t, 32767)^2)), and hysteresis: a pixel is an edge
 * when it survives suppression above the low threshold and is 8-connected through such pixels to
 * one above the high threshold. Bit-exact with OpenCV; on CUDA the hysteresis runs on the device
 * (tile-local propagation in shared memory, repeated until nothing changes). host or device.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (aperture, thresholds not finite, NULL);
 *         GIP_ERR_SHAPE_MISMATCH; GIP_ERR_UNSUPPORTED; GIP_ERR_ALIASING;
 *         GIP_ERR_LOCATION_MISMATCH; GIP_ERR_OUT_OF_MEMORY; GIP_ERR_NO_DEVICE; GIP_ERR_DEVICE;
 *         GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_canny(gip_context *ctx, const gip_image *src, gip_image *dst,
                             const gip_canny_params *params);

/**
 * cv2.Canny(dx, dy, threshold1, threshold2, L2gradient): Canny from given derivatives, s16 of the
 * same size and channels (1, 3 or 4); params->aperture is ignored. Otherwise as gip_canny().
 */
GIP_API gip_status gip_canny_dxdy(gip_context *ctx, const gip_image *dx, const gip_image *dy,
                                  gip_image *dst, const gip_canny_params *params);

#ifdef __cplusplus
}
#endif

#endif
