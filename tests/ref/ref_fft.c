/* SPDX-License-Identifier: MIT */
/* Double-precision references of the FFT family (see ref_fft.h). */
#include "ref_fft.h"
#include "testing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* out[k] = sum_j in[j] * exp(sign 2 pi i j k / n), strided complex vectors. */
static void dft1(const double *in, int64_t n, int64_t step, int sign, double *out)
{
    for (int64_t k = 0; k < n; k++) {
        double re = 0, im = 0;
        for (int64_t j = 0; j < n; j++) {
            int64_t r = (j * k) % n; /* exact reduction keeps the angle accurate */
            double a = sign * 2.0 * M_PI * (double)r / (double)n;
            double c = cos(a), s = sin(a);
            double xr = in[2 * j * step], xi = in[2 * j * step + 1];
            re += xr * c - xi * s;
            im += xr * s + xi * c;
        }
        out[2 * k * step] = re;
        out[2 * k * step + 1] = im;
    }
}

void ref_dft2(const double *in, int64_t w, int64_t h, int inverse, double *out)
{
    int sign = inverse ? 1 : -1;
    double *tmp = malloc(sizeof(double) * 2 * (size_t)(w * h));
    for (int64_t y = 0; y < h; y++)
        dft1(in + 2 * y * w, w, 1, sign, tmp + 2 * y * w);
    for (int64_t x = 0; x < w; x++)
        dft1(tmp + 2 * x, h, w, sign, out + 2 * x);
    free(tmp);
}

double ref_gray(const gip_image *img, int64_t x, int64_t y, int bgr)
{
    if (img->channels == 1)
        return gt_get(img, x, y, 0);
    double r = gt_get(img, x, y, bgr ? 2 : 0), g = gt_get(img, x, y, 1),
           b = gt_get(img, x, y, bgr ? 0 : 2);
    if (img->dtype == GIP_F32) {
        /* cv2's RGB2Gray<float>: first weight times channel 0, then fused multiply-adds in
         * memory order (as gip_cvt_color documents). */
        float s0 = (float)(bgr ? b : r), s2 = (float)(bgr ? r : b);
        float y0 = s0 * (bgr ? 0.114f : 0.299f);
        y0 = fmaf((float)g, 0.587f, y0);
        return (double)fmaf(s2, bgr ? 0.299f : 0.114f, y0);
    }
    /* OpenCV's 15-bit fixed point: R 9798, G 19235, B 3735 (sum 32768), rounded. */
    uint64_t v = (uint64_t)r * 9798u + (uint64_t)g * 19235u + (uint64_t)b * 3735u + 16384u;
    return (double)(v >> 15);
}

int64_t ref_border(int64_t p, int64_t n, gip_border mode)
{
    while (p < 0 || p >= n) {
        switch (mode) {
        case GIP_BORDER_CONSTANT:
            return -1;
        case GIP_BORDER_REPLICATE:
            return p < 0 ? 0 : n - 1;
        case GIP_BORDER_WRAP:
            p = p < 0 ? p + n : p - n;
            break;
        case GIP_BORDER_REFLECT:
            if (n == 1)
                return 0;
            p = p < 0 ? -p - 1 : 2 * n - p - 1;
            break;
        default: /* REFLECT_101 */
            if (n == 1)
                return 0;
            p = p < 0 ? -p : 2 * n - p - 2;
            break;
        }
    }
    return p;
}

double ref_correlate(const gip_image *src, int32_t c, int64_t x, int64_t y, const float *kernel,
                     int32_t kw, int32_t kh, int32_t ax, int32_t ay, gip_border_spec border,
                     double delta)
{
    double sum = 0;
    for (int32_t j = 0; j < kh; j++) {
        int64_t sy = ref_border(y + j - ay, src->height, border.mode);
        for (int32_t i = 0; i < kw; i++) {
            int64_t sx = ref_border(x + i - ax, src->width, border.mode);
            double v = (sx < 0 || sy < 0) ? border.value[c] : gt_get(src, sx, sy, c);
            sum += (double)kernel[j * kw + i] * v;
        }
    }
    return sum + delta;
}
