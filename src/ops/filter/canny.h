/* SPDX-License-Identifier: MIT */
/* Private interface of canny and canny_dxdy: the stages after the derivatives, on the CPU and on
 * CUDA. */
#ifndef GIP_OPS_CANNY_H
#define GIP_OPS_CANNY_H

#include "internal.h"

/* The parameters canny and canny_dxdy both declare in their registry entries (GIP__PARAM_EX and
 * GIP__PARAM of registry/registry.h): the two positional thresholds, and l2. */
#define GIP__CANNY_THRESHOLD_PARAMS                                                                \
    GIP__PARAM_EX("threshold1", GIP_PARAM_DOUBLE, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, -1e9, \
                  1e9, 0, NULL, NULL, "one hysteresis threshold (the lower of the two is low)",    \
                  "50"),                                                                           \
        GIP__PARAM_EX("threshold2", GIP_PARAM_DOUBLE, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED,   \
                      -1e9, 1e9, 0, NULL, NULL, "the other hysteresis threshold", "150")
#define GIP__CANNY_L2_PARAM                                                                        \
    GIP__PARAM("l2", GIP_PARAM_BOOL, 0, 0, 1, 0, NULL, "0",                                        \
               "1: the L2 gradient magnitude (cv2's L2gradient), 0: |dx| + |dy|")

#ifdef __cplusplus
extern "C" {
#endif

/* Edges of s16 derivatives dx, dy (same size and channels) into a 1-channel u8 dst (0 or 255):
 * low and high are OpenCV's integer thresholds (on |dx| + |dy|, or on dx^2 + dy^2 with l2). */
gip_status gip__canny_cpu(gip_context *ctx, const gip_image *dx, const gip_image *dy,
                          gip_image *dst, int32_t low, int32_t high, bool l2);
#ifdef GIP_HAVE_CUDA
gip_status gip__canny_cuda(gip_context *ctx, const gip_image *dx, const gip_image *dy,
                           gip_image *dst, int32_t low, int32_t high, bool l2);
#endif

/* The magnitude OpenCV computes, in int32 with its wrap-around (dx^2 + dy^2 of -32768 wraps). */
#if defined(__CUDACC__)
__host__ __device__
#endif
    static inline int32_t
    gip__canny_mag(int32_t dx, int32_t dy, bool l2)
{
    if (l2)
        return (int32_t)((uint32_t)(dx * dx) + (uint32_t)(dy * dy));
    return (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
}

/* OpenCV's direction test of the suppression: 0 horizontal neighbours, 1 vertical, 2 the
 * diagonal through (-s, -1) and (s, 1), with *s = -1 where dx and dy differ in sign, else 1.
 * tan(22.5 deg) in 15 fraction bits; its int32 products wrap as OpenCV's do. */
#if defined(__CUDACC__)
__host__ __device__
#endif
    static inline int
    gip__canny_dir(int32_t xs, int32_t ys, int32_t *s)
{
    const int32_t tg22 = 13573; /* (int)(0.41421356 * 2^15 + 0.5) */
    const int32_t x = xs < 0 ? -xs : xs;
    const int32_t y = (int32_t)((uint32_t)(ys < 0 ? -ys : ys) << 15);
    const int32_t tg22x = (int32_t)((uint32_t)x * (uint32_t)tg22);
    if (y < tg22x)
        return 0;
    const int32_t tg67x = (int32_t)((uint32_t)tg22x + ((uint32_t)x << 16));
    if (y > tg67x)
        return 1;
    *s = (xs ^ ys) < 0 ? -1 : 1;
    return 2;
}

#ifdef __cplusplus
}
#endif
#endif
