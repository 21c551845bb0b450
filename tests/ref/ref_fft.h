/* SPDX-License-Identifier: MIT */
/* Double-precision references of the FFT family: a direct DFT, min-max normalisation, the spectrum
 * pipeline, and direct correlation with OpenCV's border rules. */
#ifndef GIP_REF_FFT_H
#define GIP_REF_FFT_H

#include <stdint.h>

#include "gip/gip.h"

/* Direct 2-D DFT of a w x h complex plane (re, im interleaved, row-major), unscaled, with
 * exp(-2 pi i ...) forward and exp(+2 pi i ...) inverse, as numpy's fft2 / ifft2 * N. Evaluated
 * as row DFTs then column DFTs, each a direct sum in double with exactly reduced angles. */
void ref_dft2(const double *in, int64_t w, int64_t h, int inverse, double *out);

/* Gray as cv2.cvtColor RGB2GRAY (BGR2GRAY when bgr) from pixel (x, y) of a host image (1 channel:
 * the value itself), with OpenCV's 15-bit weights for integers. */
double ref_gray(const gip_image *img, int64_t x, int64_t y, int bgr);

/* Correlation of channel c of a host image with a kernel as cv2.filter2D, in double:
 * sum k(i, j) * src(border(x + i - ax), border(y + j - ay)) + delta. */
double ref_correlate(const gip_image *src, int32_t c, int64_t x, int64_t y, const float *kernel,
                     int32_t kw, int32_t kh, int32_t ax, int32_t ay, gip_border_spec border,
                     double delta);

/* Maps p into [0, n) as OpenCV's borderInterpolate; -1 for CONSTANT outside. Written
 * independently of the library's gip__border_index. */
int64_t ref_border(int64_t p, int64_t n, gip_border mode);

#endif
