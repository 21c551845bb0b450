/* SPDX-License-Identifier: MIT */
/* Double-precision references for style transfer: 3x3 convolution (padding 1) forward and its
 * input gradient, and the normalised Gram matrix. Planar CHW float inputs, double outputs. */
#ifndef GIP_REF_STYLE_H
#define GIP_REF_STYLE_H

#include <stdint.h>

/* out[co][y][x] = relu?(b[co] + sum w[co][ci][ky][kx] in[ci][y+ky-1][x+kx-1]) (zero padding). */
void ref_conv3x3(const float *in, const float *w, const float *b, int cin, int cout, int64_t h,
                 int64_t width, int relu, double *out);

/* gin[ci][y][x] = sum over co, ky, kx of gout[co][y-ky+1][x-kx+1] w[co][ci][ky][kx]. */
void ref_conv3x3_bwd_data(const float *gout, const float *w, int cin, int cout, int64_t h,
                          int64_t width, double *gin);

/* g[i][j] = sum_k f[i][k] f[j][k] / (c m). */
void ref_gram(const float *f, int64_t c, int64_t m, double *g);

#endif
