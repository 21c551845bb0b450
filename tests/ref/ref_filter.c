/* SPDX-License-Identifier: MIT */
/* Double-precision filter references (see ref_filter.h); deliberately simple and slow. */
#include "ref_filter.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "testing.h"

int64_t ref_border_map(int64_t p, int64_t n, gip_border mode)
{
    if (p >= 0 && p < n)
        return p;
    switch (mode) {
    case GIP_BORDER_CONSTANT:
        return -1;
    case GIP_BORDER_REPLICATE:
        return p < 0 ? 0 : n - 1;
    case GIP_BORDER_WRAP:
        return ((p % n) + n) % n;
    case GIP_BORDER_REFLECT:
        while (p < 0 || p >= n)
            p = p < 0 ? -p - 1 : 2 * n - 1 - p;
        return p;
    case GIP_BORDER_REFLECT_101:
    default:
        if (n == 1)
            return 0;
        while (p < 0 || p >= n)
            p = p < 0 ? -p : 2 * n - 2 - p;
        return p;
    }
}

void ref_correlate2d(const gip_image *src, const double *k, int kw, int kh, int ax, int ay,
                     gip_border mode, const double value[4], double scale, double *out)
{
    int cn = src->channels;
    for (int64_t y = 0; y < src->height; y++)
        for (int64_t x = 0; x < src->width; x++)
            for (int c = 0; c < cn; c++) {
                double acc = 0;
                for (int j = 0; j < kh; j++) {
                    int64_t sy = ref_border_map(y - ay + j, src->height, mode);
                    for (int i = 0; i < kw; i++) {
                        int64_t sx = ref_border_map(x - ax + i, src->width, mode);
                        double v = (sy < 0 || sx < 0) ? value[c] : gt_get(src, sx, sy, c);
                        acc += k[j * kw + i] * v;
                    }
                }
                out[(y * src->width + x) * cn + c] = acc * scale;
            }
}

void ref_outer_kernel(const double *kx, int kw, const double *ky, int kh, double *k2d)
{
    for (int j = 0; j < kh; j++)
        for (int i = 0; i < kw; i++)
            k2d[j * kw + i] = ky[j] * kx[i];
}

void ref_store(const double *v, gip_image *dst)
{
    int cn = dst->channels;
    for (int64_t y = 0; y < dst->height; y++)
        for (int64_t x = 0; x < dst->width; x++)
            for (int c = 0; c < cn; c++)
                gt_set(dst, x, y, c, v[(y * dst->width + x) * cn + c]);
}

void ref_gaussian_fixed_kernel_u8(const double *k, int n, int32_t *out)
{
    double carry = 0;
    int32_t sides = 0;
    for (int i = 0; i < n / 2; i++) {
        double want = k[i] * 256.0 + carry;
        double r = nearbyint(want);
        carry = want - r;
        out[i] = out[n - 1 - i] = (int32_t)r;
        sides += 2 * (int32_t)r;
    }
    out[n / 2] = 256 - sides;
}

void ref_separable_fixed_u8(const gip_image *src, const int32_t *kx, int kw, const int32_t *ky,
                            int kh, gip_border mode, const double value[4], gip_image *dst)
{
    int cn = src->channels;
    int64_t w = src->width, h = src->height;
    int64_t *hrow = malloc(sizeof(int64_t) * (size_t)(w * cn * h));
    if (!hrow)
        abort();
    /* Horizontal sums of every source row (8 fraction bits). */
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            for (int c = 0; c < cn; c++) {
                int64_t acc = 0;
                for (int i = 0; i < kw; i++) {
                    int64_t sx = ref_border_map(x - kw / 2 + i, w, mode);
                    acc += kx[i] * (int64_t)(sx < 0 ? value[c] : gt_get(src, sx, y, c));
                }
                hrow[(y * w + x) * cn + c] = acc;
            }
    /* The horizontal sum of a constant row: value * sum(kx). */
    int64_t kxsum = 0;
    for (int i = 0; i < kw; i++)
        kxsum += kx[i];
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            for (int c = 0; c < cn; c++) {
                int64_t acc = 0;
                for (int j = 0; j < kh; j++) {
                    int64_t sy = ref_border_map(y - kh / 2 + j, h, mode);
                    int64_t hv = sy < 0 ? (int64_t)value[c] * kxsum : hrow[(sy * w + x) * cn + c];
                    acc += ky[j] * hv;
                }
                int64_t r = (acc + 32768) >> 16;
                gt_set(dst, x, y, c, (double)(r < 0 ? 0 : r > 255 ? 255 : r));
            }
    free(hrow);
}

int ref_load_pnm(const char *path, gip_image *img)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char magic[3] = {0};
    int w = 0, h = 0, maxval = 0;
    if (fscanf(f, "%2s %d %d %d", magic, &w, &h, &maxval) != 4 || maxval != 255 || w < 1 || h < 1 ||
        (magic[1] != '5' && magic[1] != '6') || fgetc(f) == EOF) {
        fclose(f);
        return -1;
    }
    int cn = magic[1] == '6' ? 3 : 1;
    gt_alloc(img, w, h, cn, GIP_U8, 0);
    size_t n = (size_t)w * (size_t)h * (size_t)cn;
    size_t got = fread(img->data, 1, n, f);
    fclose(f);
    if (got != n) {
        gt_free(img);
        return -1;
    }
    return 0;
}

void ref_lanczos4(double t, double w[8])
{
    const double pi = 3.14159265358979323846;
    double sum = 0;
    for (int k = 0; k < 8; k++) {
        const double d = t + 3 - k;
        w[k] = fabs(d) < 1e-9 ? 1 : 4 * sin(pi * d) * sin(pi * d / 4) / (pi * pi * d * d);
        sum += w[k];
    }
    for (int k = 0; k < 8; k++)
        w[k] /= sum;
}
