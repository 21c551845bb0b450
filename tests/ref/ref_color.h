/* SPDX-License-Identifier: MIT */
/* Double-precision references of gip_convert and gip_cvt_color for the tests. */
#ifndef GIP_REF_COLOR_H
#define GIP_REF_COLOR_H

#include "gip/gip.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The float nearest to a * b + c computed exactly (a, b, c floats): a correctly rounded fused
 * multiply-add, worked out in double with an exact error term, without fmaf. */
float ref_fma_f32(float a, float b, float c);

/* Host images of the same size and channels, any of u8, u16, s16, f32. dst = saturate(
 * fma(src, (float)scale, (float)offset)) rounded half to even, or saturate(src) when scale is 1
 * and offset 0 (OpenCV's noScale). Exact for every dtype, f32 included. */
void ref_convert(const gip_image *src, gip_image *dst, double scale, double offset);

/* Host images, channels as the code says, same dtype (u8, u16, f32). Integer gray is the exact
 * value of OpenCV's 15-bit fixed point formula, computed in double; f32 gray is the double sum
 * with the float weights (the library's float rounding is within 1e-6 relative of it for
 * non-negative inputs). Swaps, alpha and replication are exact. */
void ref_cvt_color(const gip_image *src, gip_image *dst, gip_color_code code);

/* Reads a binary PGM/PPM (P5/P6, maxval 255 -> u8 or 65535 -> u16, no comments) into a new
 * tight host image (gt_alloc; free with gt_free). Returns 0 on success, -1 with a message on
 * stderr. */
int ref_read_pnm(const char *path, gip_image *img);

/* Reads w * h * c little-endian float32 values into a new tight host image. 0 or -1. */
int ref_read_f32(const char *path, int64_t w, int64_t h, int32_t c, gip_image *img);

#ifdef __cplusplus
}
#endif
#endif
