/* SPDX-License-Identifier: MIT */
/* Double-precision references for linear filters: generic 2D correlation with every border mode
 * (written apart from src/core/border.h), the separable outer-product kernel, and an independent
 * re-implementation of OpenCV's 8-bit fixed-point Gaussian arithmetic. */
#ifndef GIP_REF_FILTER_H
#define GIP_REF_FILTER_H

#include <stdint.h>

#include "gip/gip.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Maps coordinate p into [0, n) as OpenCV's borderInterpolate; -1 for CONSTANT outside. */
int64_t ref_border_map(int64_t p, int64_t n, gip_border mode);

/* out[(y * w + x) * cn + c] = scale * sum_{j,i} k[j * kw + i] * src(x - ax + i, y - ay + j, c),
 * pixels outside taken by `mode` (CONSTANT: value[c]). src: host image of any dtype; out holds
 * w * h * channels doubles. No flip (correlation, as cv2.filter2D). */
void ref_correlate2d(const gip_image *src, const double *k, int kw, int kh, int ax, int ay,
                     gip_border mode, const double value[4], double scale, double *out);

/* The Lanczos-4 weights of the taps at -3..4 around fraction t in [0, 1): sinc(d) sinc(d / 4),
 * normalised to sum 1. */
void ref_lanczos4(double t, double w[8]);

/* k2d[j * kw + i] = ky[j] * kx[i]. */
void ref_outer_kernel(const double *kx, int kw, const double *ky, int kh, double *k2d);

/* Stores doubles into a host image with round half to even and saturation (f32: as is). */
void ref_store(const double *v, gip_image *dst);

/* OpenCV's 8-bit fixed-point Gaussian kernel from a double kernel (odd n): side taps k * 256 with
 * error diffusion and half-to-even rounding, centre = 256 - sides. */
void ref_gaussian_fixed_kernel_u8(const double *k, int n, int32_t *out);

/* u8 Gaussian as OpenCV's fixed point: H = sum kx * src exactly, dst = (sum ky * H + 2^15) >> 16,
 * saturated. Kernels centred; value[c] is the constant border pixel value. */
void ref_separable_fixed_u8(const gip_image *src, const int32_t *kx, int kw, const int32_t *ky,
                            int kh, gip_border mode, const double value[4], gip_image *dst);

/* Reads a binary PGM (P5) or PPM (P6) with maxval 255 into a newly gt_alloc'ed u8 image (tight).
 * Returns 0 on success, -1 when the file is missing or malformed. */
int ref_load_pnm(const char *path, gip_image *img);

#ifdef __cplusplus
}
#endif
#endif
