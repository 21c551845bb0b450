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
    GIP_COLOR_GRAY2RGB = 11,  /* replicate; also GRAY2BGR */
    GIP_COLOR_GRAY2RGBA = 12, /* replicate, alpha = max; also GRAY2BGRA */
    /* Colour spaces (u8 and f32, and u16 for YCrCb, YUV and XYZ as OpenCV; the RGB side 3
     * channels, or 4 going in with alpha ignored):
     * u8 as OpenCV's fixed-point code, f32 with its formulas. HSV/HLS: hue 0..180 for u8 (0..255
     * with _FULL) and 0..360 for f32, the other two 0..255 / 0..1. YCrCb and YUV: BT.601 full
     * range, chroma offset 128 (0.5 for f32). XYZ: sRGB primaries, D65. */
    GIP_COLOR_BGR2HSV = 13,
    GIP_COLOR_RGB2HSV = 14,
    GIP_COLOR_HSV2BGR = 15,
    GIP_COLOR_HSV2RGB = 16,
    GIP_COLOR_BGR2HSV_FULL = 17,
    GIP_COLOR_RGB2HSV_FULL = 18,
    GIP_COLOR_HSV_FULL2BGR = 19,
    GIP_COLOR_HSV_FULL2RGB = 20,
    GIP_COLOR_BGR2HLS = 21,
    GIP_COLOR_RGB2HLS = 22,
    GIP_COLOR_HLS2BGR = 23,
    GIP_COLOR_HLS2RGB = 24,
    GIP_COLOR_BGR2HLS_FULL = 25,
    GIP_COLOR_RGB2HLS_FULL = 26,
    GIP_COLOR_HLS_FULL2BGR = 27,
    GIP_COLOR_HLS_FULL2RGB = 28,
    GIP_COLOR_BGR2YCRCB = 29,
    GIP_COLOR_RGB2YCRCB = 30,
    GIP_COLOR_YCRCB2BGR = 31,
    GIP_COLOR_YCRCB2RGB = 32,
    GIP_COLOR_BGR2YUV = 33,
    GIP_COLOR_RGB2YUV = 34,
    GIP_COLOR_YUV2BGR = 35,
    GIP_COLOR_YUV2RGB = 36,
    GIP_COLOR_BGR2XYZ = 37,
    GIP_COLOR_RGB2XYZ = 38,
    GIP_COLOR_XYZ2BGR = 39,
    GIP_COLOR_XYZ2RGB = 40,
    /* CIE Lab (D65), sRGB gamma, both ways. u8: L scaled to 0..255, a and b offset by 128, as
     * OpenCV's integer code gives them (equal to it). f32: RGB 0..1, L 0..100, a and b
     * unscaled, by the CIE formulas (OpenCV's f32 RGB to Lab interpolates a table and is off
     * them by up to 0.3 in L and 0.6 in a and b; its inverse follows them to 1e-4). */
    GIP_COLOR_BGR2LAB = 41,
    GIP_COLOR_RGB2LAB = 42,
    GIP_COLOR_LAB2BGR = 43,
    GIP_COLOR_LAB2RGB = 44,
    /* CIE Luv (D65), sRGB gamma, both ways. u8: L scaled to 0..255, u from -134..220 and v
     * from -140..122 onto 0..255, as OpenCV's interpolated table (forward) and integer code
     * (back) give them (equal to it). f32: RGB 0..1, L 0..100, u and v unscaled, by the CIE
     * formulas. */
    GIP_COLOR_BGR2LUV = 45,
    GIP_COLOR_RGB2LUV = 46,
    GIP_COLOR_LUV2BGR = 47,
    GIP_COLOR_LUV2RGB = 48
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

/**
 * cv2.extractChannel: dst (one channel, src's size and dtype) = channel `channel` of src.
 * Any dtype but c32; host or device. dst must not overlap src.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, channel out of range);
 *         GIP_ERR_SHAPE_MISMATCH; GIP_ERR_ALIASING; GIP_ERR_LOCATION_MISMATCH;
 *         GIP_ERR_NO_DEVICE; GIP_ERR_DEVICE; GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_extract_channel(gip_context *ctx, const gip_image *src, gip_image *dst,
                                       int32_t channel);

/**
 * cv2.insertChannel: dst = src with channel `channel` replaced by src2 (one channel, src's size
 * and dtype). dst: src's shape; may be src itself; must not overlap src2.
 * @return as gip_extract_channel().
 */
GIP_API gip_status gip_insert_channel(gip_context *ctx, const gip_image *src, const gip_image *src2,
                                      gip_image *dst, int32_t channel);

/**
 * cv2.mixChannels: copies channels of the sources into channels of the destinations. Channels
 * are numbered across the images in order (the first source's 0..c0-1, then the second's ...;
 * the same for the destinations); pair k of from_to is (from_to[2k], from_to[2k+1]): a source
 * channel, or -1 for zeros, and the destination channel it is copied to. Pairs run in order; a
 * destination channel no pair names keeps its pixels. Every image: the first source's size and
 * dtype (not c32), any channel count, all on the host or all on the context's device;
 * destinations must not overlap any other image. Nothing is written unless every argument is
 * valid.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, no images or pairs, a channel out of range);
 *         GIP_ERR_SHAPE_MISMATCH (sizes differ); GIP_ERR_UNSUPPORTED (dtypes differ, c32);
 *         GIP_ERR_ALIASING; GIP_ERR_LOCATION_MISMATCH; GIP_ERR_NO_DEVICE; GIP_ERR_DEVICE;
 *         GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_mix_channels(gip_context *ctx, const gip_image *srcs, int32_t nsrcs,
                                    gip_image *dsts, int32_t ndsts, const int32_t *from_to,
                                    int32_t npairs);

/** Layouts of YUV camera frames (cv2.COLOR_YUV2*_<layout>). */
typedef enum gip_yuv_layout {
    GIP_YUV_NV12 = 0, /* 4:2:0: the Y plane, then interleaved U, V at half resolution */
    GIP_YUV_NV21 = 1, /* 4:2:0: the Y plane, then interleaved V, U */
    GIP_YUV_I420 = 2, /* 4:2:0: the Y plane, the U plane, the V plane (also IYUV) */
    GIP_YUV_YV12 = 3, /* 4:2:0: the Y plane, the V plane, the U plane */
    GIP_YUV_YUY2 = 4, /* 4:2:2 packed: Y0 U Y1 V (also YUYV, YUNV) */
    GIP_YUV_UYVY = 5, /* 4:2:2 packed: U Y0 V Y1 (also UYNV) */
    GIP_YUV_YVYU = 6  /* 4:2:2 packed: Y0 V Y1 U */
} gip_yuv_layout;

/**
 * Converts a YUV frame to RGB as cv2.cvtColor(COLOR_YUV2BGR_NV12, ...): BT.601 limited range
 * (Y 16..235) with OpenCV's fixed-point coefficients and rounding, u8 results equal to OpenCV's.
 * src: u8 with one channel holding the frame's bytes as cv2 takes them: for 4:2:0 layouts
 * width W and height H * 3 / 2 (W and H even); for 4:2:2 width 2 * W (the Y/U/V bytes of W
 * pixels) and height H. dst: u8, W x H, 3 or 4 channels (alpha 255), in BGR order when bgr is
 * non-zero, else RGB; or 1 channel: the Y plane (COLOR_YUV2GRAY_*). Host or device; dst must not
 * overlap src.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, bad layout); GIP_ERR_SHAPE_MISMATCH (sizes
 *         that do not make a frame of dst's size, odd sizes); GIP_ERR_UNSUPPORTED (dtype,
 *         channels); GIP_ERR_ALIASING; GIP_ERR_LOCATION_MISMATCH; GIP_ERR_NO_DEVICE;
 *         GIP_ERR_DEVICE; GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_yuv_to_rgb(gip_context *ctx, const gip_image *src, gip_image *dst,
                                  gip_yuv_layout layout, int32_t bgr);

/** The matrix and range of a YUV frame (gip_yuv_to_rgb_ex()); zero is cv2's BT.601 limited. */
typedef enum gip_yuv_standard {
    GIP_YUV_BT601 = 0, /* Kr 0.299, Kb 0.114 (SD video, JPEG) */
    GIP_YUV_BT709 = 1  /* Kr 0.2126, Kb 0.0722 (HD video) */
} gip_yuv_standard;

typedef struct gip_yuv_params {
    gip_yuv_standard standard;
    int32_t full_range; /* 0: limited (Y 16..235, chroma 16..240), 1: full (0..255) */
} gip_yuv_params;

/**
 * gip_yuv_to_rgb() with the frame's matrix and range: params NULL or zero is BT.601 limited
 * range, equal to OpenCV; BT.709 and full range (which cv2 5.1 has no codes for) use the
 * standards' matrices in the same 20-bit fixed point and rounding (limited range: Y scaled by
 * 255/219 after taking 16 off, Y below 16 as 16; chroma scaled by 255/224).
 * @return as gip_yuv_to_rgb(); GIP_ERR_INVALID_ARGUMENT for an unknown standard or range.
 */
GIP_API gip_status gip_yuv_to_rgb_ex(gip_context *ctx, const gip_image *src, gip_image *dst,
                                     gip_yuv_layout layout, int32_t bgr,
                                     const gip_yuv_params *params);

/**
 * gip_rgb_to_yuv() with the frame's matrix and range: params NULL or zero is BT.601 limited
 * range, equal to OpenCV; BT.709 and full range (which cv2 5.1 has no codes for) use the
 * standards' matrices (Y = Kr R + Kg G + Kb B, U = (B - Y) / 2 (1 - Kb), V = (R - Y) /
 * 2 (1 - Kr); limited range scales Y by 219/255 and adds 16, and U and V by 224/255) in the same
 * fixed point and rounding.
 * @return as gip_rgb_to_yuv(); GIP_ERR_INVALID_ARGUMENT for an unknown standard or range.
 */
GIP_API gip_status gip_rgb_to_yuv_ex(gip_context *ctx, const gip_image *src, gip_image *dst,
                                     gip_yuv_layout layout, int32_t bgr,
                                     const gip_yuv_params *params);

/** Bayer mosaics by the colours of the second row's second and third pixels, as OpenCV names
 * them (cv2.COLOR_Bayer<pattern>2BGR). */
typedef enum gip_bayer_pattern {
    GIP_BAYER_BG = 0,
    GIP_BAYER_GB = 1,
    GIP_BAYER_RG = 2,
    GIP_BAYER_GR = 3
} gip_bayer_pattern;

/**
 * Demosaics a Bayer image as cv2.cvtColor(COLOR_Bayer<pattern>2BGR) (bilinear, OpenCV's integer
 * rounding, its outer rows and columns copied from their inner neighbours; images of 2 or fewer
 * rows or columns give zeros): u8 and u16 results equal OpenCV's. src: one channel, u8 or u16.
 * dst: src's size and dtype; 3 channels (BGR order when bgr is non-zero, else RGB), 4 (alpha the
 * dtype's maximum), or 1 (COLOR_Bayer<pattern>2GRAY: OpenCV's 14-bit weights). Host or device;
 * dst must not overlap src.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, bad pattern); GIP_ERR_SHAPE_MISMATCH;
 *         GIP_ERR_UNSUPPORTED (dtype, channels); GIP_ERR_ALIASING; GIP_ERR_LOCATION_MISMATCH;
 *         GIP_ERR_NO_DEVICE; GIP_ERR_DEVICE; GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_bayer_to_rgb(gip_context *ctx, const gip_image *src, gip_image *dst,
                                    gip_bayer_pattern pattern, int32_t bgr);

/**
 * Demosaics a Bayer image as cv2.cvtColor(COLOR_Bayer<pattern>2BGR_EA): OpenCV's edge-aware
 * variant of gip_bayer_to_rgb(), which takes green at red and blue sites from the vertical or
 * the horizontal pair of neighbours, whichever differs less; its integer rounding and borders;
 * u8 and u16 results equal OpenCV's. src: one channel, u8 or u16. dst: src's size and dtype, 3
 * channels (BGR order when bgr is non-zero, else RGB). Host or device; dst must not overlap src.
 * @return as gip_bayer_to_rgb(); GIP_ERR_UNSUPPORTED for a dst of other than 3 channels.
 */
GIP_API gip_status gip_bayer_to_rgb_ea(gip_context *ctx, const gip_image *src, gip_image *dst,
                                       gip_bayer_pattern pattern, int32_t bgr);

/**
 * Demosaics a u8 Bayer image as cv2.cvtColor(COLOR_Bayer<pattern>2BGR_VNG): OpenCV's Variable
 * Number of Gradients (gradients in eight directions over a 5x5 neighbourhood, the colour
 * differences of the directions below min + max / 2 averaged, its float scales and rounding)
 * over the mosaic padded by reflection (BORDER_REFLECT_101), as cv2 5.1 computes it; images under
 * 8 pixels wide or high are demosaiced bilinearly, as OpenCV does. u8 results equal cv2 5.1's. src:
 * one channel, u8. dst: src's size, u8, 3 channels (BGR order when bgr is non-zero, else RGB). Host
 * or device; dst must not overlap src.
 * @return as gip_bayer_to_rgb(); GIP_ERR_UNSUPPORTED for u16 or a dst of other than 3 channels.
 */
GIP_API gip_status gip_bayer_to_rgb_vng(gip_context *ctx, const gip_image *src, gip_image *dst,
                                        gip_bayer_pattern pattern, int32_t bgr);

/**
 * Encodes an RGB image as a YUV frame as cv2.cvtColor(COLOR_BGR2YUV_I420, COLOR_BGR2YUV_YV12,
 * COLOR_BGR2YUV_YUY2, COLOR_BGR2YUV_UYVY or COLOR_BGR2YUV_YVYU): BT.601 limited range with
 * OpenCV's fixed-point coefficients and rounding; u8 results equal OpenCV's. 4:2:0 layouts
 * (I420, YV12, NV12, NV21): each 2x2 block's U and V from its top-left pixel (20-bit fixed
 * point); dst is u8 with one channel, src's width and 3/2 of its height (both even). cv2 5.1 has
 * no code for NV12 and NV21: they hold the I420 frame's bytes, U and V interleaved (OpenCV's own
 * two-plane encoder). 4:2:2 layouts (YUY2, UYVY, YVYU): each pair's U and V from the sum of its
 * two pixels (14-bit fixed point); dst is u8 with one channel, twice src's width (even) and its
 * height. src: u8, 3 or 4 channels (alpha ignored); BGR order when bgr is non-zero, else RGB.
 * Host or device; dst must not overlap src.
 * @return as gip_yuv_to_rgb().
 */
GIP_API gip_status gip_rgb_to_yuv(gip_context *ctx, const gip_image *src, gip_image *dst,
                                  gip_yuv_layout layout, int32_t bgr);

#ifdef __cplusplus
}
#endif
#endif
