/* SPDX-License-Identifier: MIT */
/* Double-precision references for invert, filter2D, Sobel and Conv2d (see ref_filter2d.h). */
#include "ref_filter2d.h"

#include <math.h>
#include <string.h>

int64_t ref2d_border(int64_t p, int64_t n, gip_border mode)
{
    if (p >= 0 && p < n)
        return p;
    switch (mode) {
    case GIP_BORDER_CONSTANT:
        return -1;
    case GIP_BORDER_REPLICATE:
        return p < 0 ? 0 : n - 1;
    case GIP_BORDER_WRAP:
        while (p < 0)
            p += n;
        while (p >= n)
            p -= n;
        return p;
    case GIP_BORDER_REFLECT:
        if (n == 1)
            return 0;
        while (p < 0 || p >= n)
            p = p < 0 ? -p - 1 : 2 * n - 1 - p;
        return p;
    default:
        if (n == 1)
            return 0;
        while (p < 0 || p >= n)
            p = p < 0 ? -p : 2 * n - 2 - p;
        return p;
    }
}

static double raw(const gip_image *img, int64_t x, int64_t y, int32_t c)
{
    const char *row = (const char *)img->data + y * img->stride;
    int64_t i = x * img->channels + c;
    switch (img->dtype) {
    case GIP_U8:
        return ((const uint8_t *)row)[i];
    case GIP_U16:
        return ((const uint16_t *)row)[i];
    case GIP_S16:
        return ((const int16_t *)row)[i];
    default:
        return ((const float *)row)[i];
    }
}

static double sat_round(double v, double lo, double hi)
{
    if (isnan(v))
        return 0;
    v = nearbyint(v); /* the default rounding mode: half to even */
    return v < lo ? lo : v > hi ? hi : v;
}

double ref2d_fetch(const gip_image *src, int64_t x, int64_t y, int32_t c, gip_border mode,
                   const float *value)
{
    int64_t sx = ref2d_border(x, src->width, mode), sy = ref2d_border(y, src->height, mode);
    if (sx >= 0 && sy >= 0)
        return raw(src, sx, sy, c);
    double v = value ? value[c] : 0.0;
    if (src->dtype == GIP_U8)
        return sat_round(v, 0, 255);
    if (src->dtype == GIP_U16)
        return sat_round(v, 0, 65535);
    return (float)v;
}

void ref2d_correlate(const gip_image *src, const double *k, int32_t kw, int32_t kh, int32_t ax,
                     int32_t ay, gip_border mode, const float *value, double *out)
{
    const int32_t C = src->channels;
    for (int64_t y = 0; y < src->height; y++)
        for (int64_t x = 0; x < src->width; x++)
            for (int32_t c = 0; c < C; c++) {
                double s = 0;
                for (int32_t j = 0; j < kh; j++)
                    for (int32_t i = 0; i < kw; i++)
                        if (k[j * kw + i] != 0)
                            s += k[j * kw + i] *
                                 ref2d_fetch(src, x + i - ax, y + j - ay, c, mode, value);
                out[(y * src->width + x) * C + c] = s;
            }
}

/* Coefficients of (1 + z)^a (z - 1)^b, lowest power first; n = a + b + 1 values. */
static void poly(int32_t a, int32_t b, double *out)
{
    double p[8] = {1};
    int32_t len = 1;
    for (int32_t i = 0; i < a + b; i++) {
        double q[8] = {0};
        double c0 = i < a ? 1.0 : -1.0; /* constant term of the factor (1 + z) or (z - 1) */
        for (int32_t j = 0; j < len; j++) {
            q[j] += c0 * p[j];
            q[j + 1] += p[j];
        }
        len++;
        memcpy(p, q, sizeof p);
    }
    memcpy(out, p, (size_t)len * sizeof *out);
}

void ref2d_sobel_kernel(int32_t dx, int32_t dy, int32_t ksize, double *k, int32_t *kw, int32_t *kh)
{
    double fx[8], fy[8];
    int32_t nx, ny;
    if (ksize == -1) {
        const double smooth[3] = {3, 10, 3}, deriv[3] = {-1, 0, 1};
        memcpy(fx, dx ? deriv : smooth, sizeof smooth);
        memcpy(fy, dy ? deriv : smooth, sizeof smooth);
        nx = ny = 3;
    } else {
        nx = ksize == 1 && dx > 0 ? 3 : ksize;
        ny = ksize == 1 && dy > 0 ? 3 : ksize;
        poly(nx - 1 - dx, dx, fx);
        poly(ny - 1 - dy, dy, fy);
    }
    for (int32_t j = 0; j < ny; j++)
        for (int32_t i = 0; i < nx; i++)
            k[j * nx + i] = fy[j] * fx[i];
    *kw = nx;
    *kh = ny;
}

void ref2d_conv2d(const gip_image *src, const float *weight, const float *bias, int32_t kh,
                  int32_t kw, int32_t ph, int32_t pw, int32_t co_n, double *out)
{
    const int32_t ci_n = src->channels;
    const int64_t ow = src->width + 2 * pw - kw + 1, oh = src->height + 2 * ph - kh + 1;
    for (int64_t y = 0; y < oh; y++)
        for (int64_t x = 0; x < ow; x++)
            for (int32_t co = 0; co < co_n; co++) {
                double s = bias ? bias[co] : 0.0;
                for (int32_t ci = 0; ci < ci_n; ci++)
                    for (int32_t j = 0; j < kh; j++)
                        for (int32_t i = 0; i < kw; i++) {
                            int64_t sx = x + i - pw, sy = y + j - ph;
                            if (sx < 0 || sy < 0 || sx >= src->width || sy >= src->height)
                                continue;
                            s += (double)weight[((co * ci_n + ci) * kh + j) * kw + i] *
                                 raw(src, sx, sy, ci);
                        }
                out[(y * ow + x) * co_n + co] = s;
            }
}

void ref2d_store(gip_image *dst, const double *v)
{
    const int32_t C = dst->channels;
    for (int64_t y = 0; y < dst->height; y++) {
        char *row = (char *)dst->data + y * dst->stride;
        for (int64_t i = 0; i < dst->width * C; i++) {
            double e = v[y * dst->width * C + i];
            switch (dst->dtype) {
            case GIP_U8:
                ((uint8_t *)row)[i] = (uint8_t)sat_round(e, 0, 255);
                break;
            case GIP_U16:
                ((uint16_t *)row)[i] = (uint16_t)sat_round(e, 0, 65535);
                break;
            case GIP_S16:
                ((int16_t *)row)[i] = (int16_t)sat_round(e, -32768, 32767);
                break;
            default:
                ((float *)row)[i] = (float)e;
                break;
            }
        }
    }
}
