/* SPDX-License-Identifier: MIT */
/* Double-precision references for invert, filter2D, Sobel and Conv2d, written from OpenCV's and
 * PyTorch's documented semantics without using gip's own border or rounding code. */
#ifndef GIP_REF_FILTER2D_H
#define GIP_REF_FILTER2D_H

#include <stdint.h>

#include "gip/gip.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where coordinate p of a line of n falls for a border mode (loops, like the diagrams in
 * gip/core.h); -1 for a constant border outside. */
int64_t ref2d_border(int64_t p, int64_t n, gip_border mode);

/* Element (x, y, c) of a host image as double; the border decides outside pixels. `value` is the
 * constant border value in the source's scale (converted to the source type as OpenCV does). */
double ref2d_fetch(const gip_image *src, int64_t x, int64_t y, int32_t c, gip_border mode,
                   const float *value);

/* out[(y * W + x) * C + c] = sum over the kernel of k[j][i] * src(x + i - ax, y + j - ay, c)
 * (correlation, no delta). */
void ref2d_correlate(const gip_image *src, const double *k, int32_t kw, int32_t kh, int32_t ax,
                     int32_t ay, gip_border mode, const float *value, double *out);

/* The 2-D Sobel/Scharr kernel of cv2.Sobel (ksize 1, 3, 5, 7 or -1 for Scharr): k holds kh rows of
 * kw values (at most 7x7), built as polynomial products (1 + z)^a (z - 1)^b. */
void ref2d_sobel_kernel(int32_t dx, int32_t dy, int32_t ksize, double *k, int32_t *kw, int32_t *kh);

/* torch.nn.Conv2d on an interleaved image: out[(y * OW + x) * Co + co]. */
void ref2d_conv2d(const gip_image *src, const float *weight, const float *bias, int32_t kh,
                  int32_t kw, int32_t ph, int32_t pw, int32_t co_n, double *out);

/* Stores out (W * H * C doubles) into a host image with round half to even and saturation for
 * integer dtypes. */
void ref2d_store(gip_image *dst, const double *v);

#ifdef __cplusplus
}
#endif
#endif
