/* SPDX-License-Identifier: MIT */
/* Double-precision references of gip_convert and gip_cvt_color (see ref_color.h). */
#include "ref_color.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "testing.h"

float ref_fma_f32(float a, float b, float c)
{
    double p = (double)a * (double)b; /* exact: 24 + 24 significant bits fit in 53 */
    double s = p + (double)c;
    /* TwoSum: p + c == s + e exactly. */
    double bv = s - p;
    double e = (p - (s - bv)) + ((double)c - bv);
    float f = (float)s;
    if (e == 0 || (double)f == s || isinf(f))
        return f;
    /* s rounded once to double; rounding it again to float is wrong only when s is exactly
     * half-way between two floats, where the sign of e decides. */
    float lo = (double)f < s ? f : nextafterf(f, -INFINITY);
    float hi = (double)f > s ? f : nextafterf(f, INFINITY);
    if (((double)lo + (double)hi) * 0.5 == s)
        return e > 0 ? hi : lo;
    return f;
}

void ref_convert(const gip_image *src, gip_image *dst, double scale, double offset)
{
    float alpha = (float)scale, beta = (float)offset;
    int plain = fabs(scale - 1.0) < DBL_EPSILON && fabs(offset) < DBL_EPSILON;
    for (int64_t y = 0; y < src->height; y++)
        for (int64_t x = 0; x < src->width; x++)
            for (int32_t c = 0; c < src->channels; c++) {
                double v = gt_get(src, x, y, c); /* every source value is a float exactly */
                if (!plain)
                    v = ref_fma_f32((float)v, alpha, beta);
                gt_set(dst, x, y, c, v); /* half to even, then saturate (NaN -> 0) */
            }
}

static double max_of(gip_dtype dt)
{
    return dt == GIP_U8 ? 255.0 : dt == GIP_U16 ? 65535.0 : 1.0;
}

void ref_cvt_color(const gip_image *src, gip_image *dst, gip_color_code code)
{
    int swap = code == GIP_COLOR_RGB2BGR || code == GIP_COLOR_RGBA2BGRA ||
               code == GIP_COLOR_RGB2BGRA || code == GIP_COLOR_RGBA2BGR;
    int to_gray = code >= GIP_COLOR_RGB2GRAY && code <= GIP_COLOR_BGRA2GRAY;
    int red_first = code == GIP_COLOR_RGB2GRAY || code == GIP_COLOR_RGBA2GRAY;
    int from_gray = code == GIP_COLOR_GRAY2RGB || code == GIP_COLOR_GRAY2RGBA;
    for (int64_t y = 0; y < src->height; y++)
        for (int64_t x = 0; x < src->width; x++) {
            if (to_gray) {
                double r = gt_get(src, x, y, red_first ? 0 : 2), g = gt_get(src, x, y, 1);
                double b = gt_get(src, x, y, red_first ? 2 : 0), v;
                if (src->dtype == GIP_F32)
                    v = r * (double)0.299f + g * (double)0.587f + b * (double)0.114f;
                else /* OpenCV's fixed point: weights / 2^15, rounded half up */
                    v = floor((9798.0 * r + 19235.0 * g + 3735.0 * b) / 32768.0 + 0.5);
                gt_set(dst, x, y, 0, v);
                continue;
            }
            double px[4];
            for (int c = 0; c < 3; c++)
                px[c] = gt_get(src, x, y, from_gray ? 0 : c);
            px[3] = src->channels == 4 ? gt_get(src, x, y, 3) : max_of(src->dtype);
            for (int c = 0; c < dst->channels; c++)
                gt_set(dst, x, y, c, px[swap && c != 1 && c != 3 ? 2 - c : c]);
        }
}

int ref_read_pnm(const char *path, gip_image *img)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return -1;
    }
    char magic[3] = {0};
    int w = 0, h = 0, maxval = 0;
    if (fscanf(f, "%2s %d %d %d", magic, &w, &h, &maxval) != 4 || fgetc(f) != '\n' ||
        (strcmp(magic, "P5") != 0 && strcmp(magic, "P6") != 0) || w < 1 || h < 1 ||
        (maxval != 255 && maxval != 65535)) {
        fprintf(stderr, "%s: not a binary PGM/PPM this reader handles\n", path);
        fclose(f);
        return -1;
    }
    int32_t c = magic[1] == '6' ? 3 : 1;
    gip_dtype dt = maxval == 255 ? GIP_U8 : GIP_U16;
    gt_alloc(img, w, h, c, dt, 0);
    size_t n = (size_t)w * h * c, es = gip_dtype_size(dt);
    if (fread(img->data, es, n, f) != n) {
        fprintf(stderr, "%s: truncated\n", path);
        fclose(f);
        gt_free(img);
        return -1;
    }
    fclose(f);
    if (dt == GIP_U16) { /* PNM stores 16-bit samples big-endian */
        uint8_t *b = (uint8_t *)img->data;
        for (size_t i = 0; i < n; i++) {
            uint16_t v = (uint16_t)(b[2 * i] << 8 | b[2 * i + 1]);
            ((uint16_t *)img->data)[i] = v;
        }
    }
    return 0;
}

int ref_read_f32(const char *path, int64_t w, int64_t h, int32_t c, gip_image *img)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return -1;
    }
    gt_alloc(img, w, h, c, GIP_F32, 0);
    size_t n = (size_t)(w * h * c);
    uint8_t *b = (uint8_t *)img->data;
    size_t got = fread(b, 4, n, f);
    fclose(f);
    if (got != n) {
        fprintf(stderr, "%s: truncated\n", path);
        gt_free(img);
        return -1;
    }
    for (size_t i = 0; i < n; i++) { /* little-endian on disk, whatever the host is */
        uint32_t u = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 |
                     (uint32_t)b[4 * i + 2] << 16 | (uint32_t)b[4 * i + 3] << 24;
        memcpy(&((float *)img->data)[i], &u, 4);
    }
    return 0;
}
