/* SPDX-License-Identifier: MIT */
/* Filters with OpenCV's semantics: invert, box, filter2D, Conv2d, Sobel, Gaussian blur (their
 * border modes, gip_border and gip_border_spec, are core types: gip/core.h). */
#ifndef GIP_FILTER_H
#define GIP_FILTER_H

#include "gip/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Invert parameters. Zero-initialise. */
typedef struct gip_invert_params {
    float max; /* f32 only: dst = max - src; 0 means 1.0 */
} gip_invert_params;

/**
 * dst = max - src: 255 - x for u8, 65535 - x for u16, params->max - x for f32.
 * src and dst: same shape and dtype (u8, u16, f32), 1/3/4 channels, any stride; host or device.
 * In place (dst == src) is allowed; other overlaps are refused. params may be NULL.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT; GIP_ERR_SHAPE_MISMATCH; GIP_ERR_UNSUPPORTED;
 *         GIP_ERR_ALIASING; GIP_ERR_LOCATION_MISMATCH; GIP_ERR_NO_DEVICE; GIP_ERR_DEVICE;
 *         GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_invert(gip_context *ctx, const gip_image *src, gip_image *dst,
                              const gip_invert_params *params);

/* ------------------------------------------------------------------------------------------ */

/** Box filter parameters (cv2.boxFilter / cv2.blur). Zero-initialise. */
typedef struct gip_box_params {
    int32_t ksize_w, ksize_h; /* >= 1; 0 means 3 */
    int32_t has_anchor;       /* non-zero: use anchor_x/anchor_y; otherwise the kernel's centre */
    int32_t anchor_x, anchor_y;
    int32_t unnormalized; /* non-zero: plain sum (cv2.boxFilter normalize=False) */
    gip_border_spec border;
} gip_box_params;

/**
 * Box filter as cv2.boxFilter(src, ddepth, ksize, anchor, normalize, borderType): the mean (or
 * sum) over the kernel window. src u8, u16 or f32; dst u8, u16, s16 or f32, each from each source
 * as cv2.boxFilter accepts them, rounded half to even and saturated for integer dtypes.
 * Integer sources are summed exactly in integers; a normalised integer result is the sum times
 * (float)(1 / area) rounded half to even, and from u16 over areas above 32768 the sum times
 * 1.0 / area in double, as OpenCV (equal on both backends). f32 sources are summed in float
 * (OpenCV sums them in double): integer results from them may differ from OpenCV's by one level
 * where the mean lies within float rounding of a half. dst dtypes other than the source's and f32
 * go through an f32 (or, for a normalised integer source, the source's dtype) temporary of the
 * image's size and gip_convert().
 * 1, 3, 4 channels; host or device; dst must not overlap src.
 * @return as gip_invert(), plus GIP_ERR_INVALID_ARGUMENT for bad ksize/anchor/border.
 */
GIP_API gip_status gip_box_filter(gip_context *ctx, const gip_image *src, gip_image *dst,
                                  const gip_box_params *params);

/* ------------------------------------------------------------------------------------------ */

/** How filter2D and the Gaussian blur correlate. */
typedef enum gip_conv_method {
    GIP_CONV_AUTO = 0,   /* direct, or FFT where that is measured faster (f32 outputs only) */
    GIP_CONV_DIRECT = 1, /* always direct: integer outputs exact and identical on both backends */
    GIP_CONV_FFT = 2     /* always through gip_fft_convolve(): f32 accuracy, any dtype */
} gip_conv_method;

/** filter2D parameters (cv2.filter2D). Zero-initialise, then set kernel and its size. */
typedef struct gip_filter2d_params {
    const float *kernel;      /* ksize_h rows of ksize_w coefficients, row-major; required */
    int32_t ksize_w, ksize_h; /* >= 1 */
    int32_t has_anchor;
    int32_t anchor_x, anchor_y;
    float delta; /* added to every result */
    gip_border_spec border;
    gip_conv_method method; /* AUTO by default */
} gip_filter2d_params;

/**
 * Correlation with an arbitrary kernel as cv2.filter2D (no kernel flip). src u8, u16 or f32; dst
 * u8, u16, s16 or f32 from each (cv2.filter2D accepts every pair for kernels of 13x13 and larger
 * and, for smaller ones, u8 to any, other sources to their own dtype or f32). Integer results are
 * rounded half to even and saturated. 1, 3, 4 channels; host or device. GIP_CONV_FFT gives the
 * source's dtype or f32 only.
 * With method AUTO an f32 destination goes through the FFT (gip_fft_convolve()) when the kernel is
 * large enough that this is faster on the backend (the crossover was measured; see fft.h); integer
 * destinations stay on the direct path, whose results are exact.
 * @return as gip_box_filter().
 */
GIP_API gip_status gip_filter2d(gip_context *ctx, const gip_image *src, gip_image *dst,
                                const gip_filter2d_params *params);

/** Conv2d parameters (torch.nn.Conv2d, stride 1, dilation 1, groups 1). Zero-initialise. */
typedef struct gip_conv2d_params {
    const float *weight;  /* [out_channels][in_channels][kh][kw], required */
    const float *bias;    /* [out_channels] or NULL */
    int32_t kh, kw;       /* >= 1 */
    int32_t pad_h, pad_w; /* zero padding on each side, >= 0 */
} gip_conv2d_params;

/**
 * Multi-channel convolution as PyTorch's Conv2d on interleaved (HWC) images: in_channels are the
 * source's channels, out_channels the destination's. dst size: (H + 2 pad_h - kh + 1) x
 * (W + 2 pad_w - kw + 1). Source u8, u16 or f32; dst f32, or u8/u16 rounded and saturated.
 * @return as gip_box_filter().
 */
GIP_API gip_status gip_conv2d(gip_context *ctx, const gip_image *src, gip_image *dst,
                              const gip_conv2d_params *params);

/* ------------------------------------------------------------------------------------------ */

#define GIP_SCHARR (-1) /* ksize value selecting the 3x3 Scharr kernel */

/** What an unsigned (u8 or u16) destination of gip_sobel() receives. */
typedef enum gip_sobel_unsigned {
    /* |v| rounded and saturated: cv2.convertScaleAbs(cv2.Sobel(...)) for u8, an edge strength
     * that keeps both signs of the derivative (the default, and the CLI's u8 output) */
    GIP_SOBEL_ABS = 0,
    /* v rounded and saturated, negative values 0: cv2.Sobel(src, CV_8U or CV_16U, ...) */
    GIP_SOBEL_SATURATE = 1
} gip_sobel_unsigned;

/** Sobel parameters (cv2.Sobel). Zero-initialise, then set dx/dy. */
typedef struct gip_sobel_params {
    int32_t dx, dy; /* derivative orders, 0..ksize-1 (Scharr: dx + dy == 1) */
    int32_t ksize;  /* 1, 3, 5, 7 or GIP_SCHARR; 0 means 3 */
    float scale;    /* 0 means 1 */
    float delta;
    gip_border_spec border;
    gip_sobel_unsigned unsigned_out; /* gip_sobel() to u8 or u16; the magnitude ignores it */
} gip_sobel_params;

/**
 * Image derivative as cv2.Sobel / cv2.Scharr. src u8, u16 or f32; dst u8, u16, s16 or f32 from
 * each, as cv2.Sobel's ddepth accepts them: v = the derivative times scale plus delta, rounded half
 * to even and saturated for integer destinations (s16 keeps the sign; u8 and u16 receive |v| or,
 * with GIP_SOBEL_SATURATE, v with negatives 0, as params->unsigned_out says). u8 and u16 sources
 * are summed exactly in integers, so their integer results equal OpenCV's where OpenCV's float
 * sums are exact (unit scale, no delta); f32 sources are summed in float.
 * 1, 3, 4 channels; host or device.
 * @return as gip_box_filter(); GIP_ERR_INVALID_ARGUMENT also for an unknown unsigned_out.
 */
GIP_API gip_status gip_sobel(gip_context *ctx, const gip_image *src, gip_image *dst,
                             const gip_sobel_params *params);

/**
 * Gradient magnitude sqrt(gx^2 + gy^2) of the first-order Sobel derivatives (ksize from params,
 * dx/dy ignored), scaled by params->scale (0 means 1) plus delta; dst f32 or u8 (rounded and
 * saturated). An edge map.
 */
GIP_API gip_status gip_sobel_magnitude(gip_context *ctx, const gip_image *src, gip_image *dst,
                                       const gip_sobel_params *params);

/* ------------------------------------------------------------------------------------------ */

/** Gaussian blur parameters (cv2.GaussianBlur). Zero-initialise. */
typedef struct gip_gaussian_params {
    int32_t ksize_w, ksize_h; /* odd >= 1, or 0 to derive from sigma as OpenCV does */
    double sigma_x, sigma_y;  /* <= 0: from ksize, 0.3*((k-1)*0.5-1)+0.8; sigma_y 0 = sigma_x */
    gip_border_spec border;
    gip_conv_method method; /* AUTO by default: FFT only for f32 and large kernels */
} gip_gaussian_params;

/**
 * Gaussian blur as cv2.GaussianBlur. u8 results equal OpenCV's 8-bit fixed-point path; u16 and f32
 * as OpenCV within the stated tolerance. dtypes u8, u16, f32; 1, 3, 4 channels; host or device.
 * With method AUTO, f32 images with very large kernels go through the FFT (see gip_filter2d());
 * GIP_CONV_FFT forces it for any dtype (then u8 results are f32-accurate, not OpenCV-exact).
 * dst: same shape and dtype as src, must not overlap it.
 * @return as gip_box_filter(); GIP_ERR_INVALID_ARGUMENT for even ksize or ksize and sigma both 0.
 */
GIP_API gip_status gip_gaussian_blur(gip_context *ctx, const gip_image *src, gip_image *dst,
                                     const gip_gaussian_params *params);

/**
 * The 1-D Gaussian kernel cv2.getGaussianKernel(ksize, sigma, CV_64F) gives, in double: OpenCV's
 * fixed small-kernel tables for ksize 1, 3, 5, 7 and 9 with sigma <= 0, otherwise
 * exp(-x^2 / (2 sigma^2)) normalised to sum 1. ksize 1..1023; out must hold ksize values.
 */
GIP_API gip_status gip_gaussian_kernel(int32_t ksize, double sigma, double *out);

#ifdef __cplusplus
}
#endif
#endif
