/* SPDX-License-Identifier: MIT */
/* Double-precision references for style transfer's convolution, its input gradient and the Gram
 * matrix, written as the plain sums of their definitions. */
#include "ref_style.h"

void ref_conv3x3(const float *in, const float *w, const float *b, int cin, int cout, int64_t h,
                 int64_t width, int relu, double *out)
{
    for (int co = 0; co < cout; co++)
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < width; x++) {
                double s = b ? b[co] : 0.0;
                for (int ci = 0; ci < cin; ci++)
                    for (int ky = 0; ky < 3; ky++)
                        for (int kx = 0; kx < 3; kx++) {
                            int64_t sy = y + ky - 1, sx = x + kx - 1;
                            if (sy < 0 || sy >= h || sx < 0 || sx >= width)
                                continue;
                            s += (double)w[((co * cin + ci) * 3 + ky) * 3 + kx] *
                                 in[(ci * h + sy) * width + sx];
                        }
                out[(co * h + y) * width + x] = relu && s < 0 ? 0.0 : s;
            }
}

void ref_conv3x3_bwd_data(const float *gout, const float *w, int cin, int cout, int64_t h,
                          int64_t width, double *gin)
{
    for (int64_t i = 0; i < (int64_t)cin * h * width; i++)
        gin[i] = 0.0;
    /* The transpose of the forward map: scatter each output gradient back to its inputs. */
    for (int co = 0; co < cout; co++)
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < width; x++) {
                double go = gout[(co * h + y) * width + x];
                for (int ci = 0; ci < cin; ci++)
                    for (int ky = 0; ky < 3; ky++)
                        for (int kx = 0; kx < 3; kx++) {
                            int64_t sy = y + ky - 1, sx = x + kx - 1;
                            if (sy < 0 || sy >= h || sx < 0 || sx >= width)
                                continue;
                            gin[(ci * h + sy) * width + sx] +=
                                go * w[((co * cin + ci) * 3 + ky) * 3 + kx];
                        }
            }
}

void ref_gram(const float *f, int64_t c, int64_t m, double *g)
{
    for (int64_t i = 0; i < c; i++)
        for (int64_t j = 0; j < c; j++) {
            double s = 0;
            for (int64_t k = 0; k < m; k++)
                s += (double)f[i * m + k] * f[j * m + k];
            g[i * c + j] = s / ((double)c * (double)m);
        }
}
