/* SPDX-License-Identifier: MIT */
/* Private interface of gip_cvt_color between its entry (cvt_color.c) and its CPU and CUDA
 * backends: what each code does, and OpenCV's gray weights. */
#ifndef GIP_COLOR_CVT_COLOR_H
#define GIP_COLOR_CVT_COLOR_H

#include <stdbool.h>

#include "color/cvt_space.h"
#include "gip/color.h"
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Gray weights for u8 and u16 as OpenCV computes them (imgproc RGB2Gray, 15-bit fixed point):
 * Y = (R * 9798 + G * 19235 + B * 3735 + (1 << 14)) >> 15. cv2 4.14 and 5.0 (pip, x86-64) match
 * these on every pixel of random u8 and u16 images, with and without IPP; the 14-bit weights
 * (4899, 9617, 1868) of OpenCV's YUV code differ on about 0.3 % of u8 pixels. The products stay
 * below 2^31 for u16. */
#define GIP__GRAY_R15 9798
#define GIP__GRAY_G15 19235
#define GIP__GRAY_B15 3735
#define GIP__GRAY_SHIFT 15
/* f32 weights, applied as OpenCV's RGB2Gray<float> vector code does, in memory order:
 * y = c0 * s0, then y = fma(s1, c1, y), then y = fma(s2, c2, y). That matches cv2 5.0 bit for bit
 * without IPP; with IPP (cv2's default) and in OpenCV's scalar row tails the order differs, by an
 * ulp or so: the tests allow 1e-6 relative for f32. */
#define GIP__GRAY_RF 0.299f
#define GIP__GRAY_GF 0.587f
#define GIP__GRAY_BF 0.114f

typedef enum gip__cc_kind {
    GIP__CC_REORDER = 0,   /* copy, swap channels 0 and 2, add or drop alpha */
    GIP__CC_TO_GRAY = 1,   /* weighted sum of channels 0..2 */
    GIP__CC_FROM_GRAY = 2, /* replicate, maybe add alpha */
    GIP__CC_SPACE = 3      /* a colour space (cvt_space.h), u8, u16 (some) and f32 */
} gip__cc_kind;

/* What a code does, filled by the entry once. */
typedef struct gip__cc_params {
    gip_color_code code;
    gip__cc_kind kind;
    int scn, dcn;      /* source and destination channels */
    bool swap;         /* REORDER: exchange channels 0 and 2; TO_GRAY: channel 0 is red */
    gip__cs_params cs; /* SPACE: the space, the direction, blue's index, the RGB side's channels */
} gip__cc_params;

/* Backends: arguments already checked (dtype u8/u16/f32 on both sides, channels as the code
 * says, aligned, src and dst the same view or disjoint). */
gip_status gip__cvt_color_cpu(gip_context *ctx, const gip_image *src, gip_image *dst,
                              const gip__cc_params *p);
gip_status gip__cvt_space_cpu(gip_context *ctx, const gip_image *src, gip_image *dst,
                              const gip__cc_params *p);
gip_status gip__cvt_space_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                               const gip__cc_params *p);
gip_status gip__cvt_color_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                               const gip__cc_params *p);

#ifdef __cplusplus
}
#endif
#endif
