/* SPDX-License-Identifier: MIT */
/* YUV 4:2:0 (NV12, NV21, I420, YV12) and 4:2:2 (YUY2, UYVY, YVYU) frames to RGB for one output
 * pixel, shared by the CPU and CUDA backends of gip_yuv_to_rgb: OpenCV's BT.601 limited-range
 * 20-bit fixed point (color_yuv: ITUR_BT_601_*), Y below 16 taken as 16; BT.709 and full range
 * with the standard matrices in the same fixed point. */
#ifndef GIP_COLOR_CVT_YUV_H
#define GIP_COLOR_CVT_YUV_H

#include <stdbool.h>
#include <stdint.h>

#include "gip/color.h"

#if defined(__CUDACC__)
#define GIP__YUVF __host__ __device__ __forceinline__
#else
#define GIP__YUVF static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The frame: src's data and stride, the output size, the layout, the output's order. */
typedef struct gip__yuv_frame {
    const uint8_t *data;
    int64_t stride;
    int64_t width, height; /* of the output */
    int32_t layout;        /* gip_yuv_layout */
    int32_t dcn;           /* 1 (gray: Y), 3 or 4 */
    int32_t bidx;          /* 0: BGR order, 2: RGB */
    /* 20-bit coefficients of Y, V to R, U to G, V to G, U to B; Y's offset (16 limited, 0 full) */
    int32_t cy, cvr, cug, cvg, cub, yoff;
} gip__yuv_frame;

GIP__YUVF uint8_t gip__yuv_sat(int v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* Y, U and V of output pixel (x, y). */
GIP__YUVF void gip__yuv_sample(const gip__yuv_frame *f, int64_t x, int64_t y, int *py, int *pu,
                               int *pv)
{
    const uint8_t *d = f->data;
    const int64_t s = f->stride, w = f->width, h = f->height;
    switch (f->layout) {
    case GIP_YUV_NV12:
    case GIP_YUV_NV21: {
        const uint8_t *uv = d + (h + y / 2) * s + (x & ~(int64_t)1);
        *py = d[y * s + x];
        *pu = uv[f->layout == GIP_YUV_NV12 ? 0 : 1];
        *pv = uv[f->layout == GIP_YUV_NV12 ? 1 : 0];
        return;
    }
    case GIP_YUV_I420:
    case GIP_YUV_YV12: {
        /* The chroma planes follow Y as half rows of w / 2 bytes, two in each row of the frame:
         * half row k at (k / 2) * stride + (k % 2) * (w / 2); U takes h / 2 of them, V the next
         * h / 2 (swapped for YV12), as OpenCV reads them. */
        const uint8_t *base = d + h * s;
        int64_t k = y / 2, half = h / 2;
        int64_t ku = f->layout == GIP_YUV_I420 ? k : k + half;
        int64_t kv = f->layout == GIP_YUV_I420 ? k + half : k;
        *py = d[y * s + x];
        *pu = base[(ku >> 1) * s + (ku & 1) * (w / 2) + x / 2];
        *pv = base[(kv >> 1) * s + (kv & 1) * (w / 2) + x / 2];
        return;
    }
    default: { /* 4:2:2: two pixels in four bytes */
        const uint8_t *q = d + y * s + (x & ~(int64_t)1) * 2;
        const int odd = (int)(x & 1);
        if (f->layout == GIP_YUV_UYVY) {
            *py = q[1 + 2 * odd], *pu = q[0], *pv = q[2];
        } else if (f->layout == GIP_YUV_YUY2) {
            *py = q[2 * odd], *pu = q[1], *pv = q[3];
        } else { /* YVYU */
            *py = q[2 * odd], *pu = q[3], *pv = q[1];
        }
        return;
    }
    }
}

/* The red, green and blue of samples yy, u, v. */
GIP__YUVF void gip__yuv_rgb3(const gip__yuv_frame *f, int yy, int u, int v, uint8_t *r, uint8_t *g,
                             uint8_t *b)
{
    const int shift = 20;
    const int uu = u - 128, vv = v - 128;
    const int ruv = (1 << (shift - 1)) + f->cvr * vv;
    const int guv = (1 << (shift - 1)) + f->cvg * vv + f->cug * uu;
    const int buv = (1 << (shift - 1)) + f->cub * uu;
    const int yv = (yy - f->yoff > 0 ? yy - f->yoff : 0) * f->cy;
    *r = gip__yuv_sat((yv + ruv) >> shift);
    *g = gip__yuv_sat((yv + guv) >> shift);
    *b = gip__yuv_sat((yv + buv) >> shift);
}

/* The output pixel of samples yy, u, v into o (f->dcn elements). */
GIP__YUVF void gip__yuv_rgb(const gip__yuv_frame *f, int yy, int u, int v, uint8_t *o)
{
    if (f->dcn == 1) {
        o[0] = (uint8_t)yy;
        return;
    }
    gip__yuv_rgb3(f, yy, u, v, &o[f->bidx ^ 2], &o[1], &o[f->bidx]);
    if (f->dcn == 4)
        o[3] = 255;
}

/* Output pixel (x, y) into o (dcn elements). */
GIP__YUVF void gip__yuv_pixel(const gip__yuv_frame *f, int64_t x, int64_t y, uint8_t *o)
{
    int yy, u, v;
    gip__yuv_sample(f, x, y, &yy, &u, &v);
    gip__yuv_rgb(f, yy, u, v, o);
}

/* The RGB to YUV encoders: 4:2:0 as OpenCV's RGB888toYUV420pInvoker (BT.601 limited range, 20-bit
 * fixed point; each 2x2 block's U and V from its top-left pixel), 4:2:2 as its
 * RGB8toYUV422Invoker (14-bit fixed point; each pair's U and V from the sum of its two pixels). */
typedef struct gip__yuv_enc {
    const uint8_t *data; /* the RGB image */
    int64_t stride;
    int64_t width, height; /* of the RGB image */
    int32_t scn;           /* 3 or 4 */
    int32_t bidx;          /* 0: BGR order, 2: RGB */
    int32_t layout;        /* gip_yuv_layout */
    /* rows Y, U, V by columns R, G, B: 20-bit (4:2:0), and 14-bit Y and 13-bit U, V (4:2:2,
     * whose U and V weigh the sum of two pixels); Y's offset (16 limited, 0 full) */
    int32_t k20[9], k14[9], yoff;
} gip__yuv_enc;

GIP__YUVF int gip__yuv_enc_comp(const gip__yuv_enc *e, int64_t x, int64_t y, int comp)
{
    const uint8_t *p = e->data + y * e->stride + x * e->scn;
    const int r = p[e->bidx ^ 2], g = p[1], b = p[e->bidx];
    const int shift = 20, half = 1 << (shift - 1);
    const int32_t *k = e->k20 + 3 * comp;
    const int v = k[0] * r + k[1] * g + k[2] * b + half + ((comp ? 128 : e->yoff) << shift);
    return gip__yuv_sat(v >> shift);
}

/* Component comp (0 Y of the pixel, 1 U, 2 V of the pair) of 4:2:2 pixel x (pair x / 2). */
GIP__YUVF uint8_t gip__yuv422_enc_comp(const gip__yuv_enc *e, int64_t x, int64_t y, int comp)
{
    const int shift = 14, half = 1 << (shift - 1);
    const uint8_t *p = e->data + y * e->stride + x * e->scn;
    const int32_t *k = e->k14 + 3 * comp;
    if (comp == 0) {
        const int r = p[e->bidx ^ 2], g = p[1], b = p[e->bidx];
        return gip__yuv_sat((half + r * k[0] + g * k[1] + b * k[2] + (e->yoff << shift)) >> shift);
    }
    const uint8_t *p0 = e->data + y * e->stride + (x & ~(int64_t)1) * e->scn, *p1 = p0 + e->scn;
    const int sr = p0[e->bidx ^ 2] + p1[e->bidx ^ 2], sg = p0[1] + p1[1],
              sb = p0[e->bidx] + p1[e->bidx];
    return gip__yuv_sat((half + sr * k[0] + sg * k[1] + sb * k[2] + (128 << shift)) >> shift);
}

/* Byte (fx, fy) of the frame: W x (H * 3 / 2) for 4:2:0, (2 * W) x H for 4:2:2. */
GIP__YUVF uint8_t gip__yuv_enc_byte(const gip__yuv_enc *e, int64_t fx, int64_t fy)
{
    const int64_t w = e->width, h = e->height;
    switch (e->layout) {
    case GIP_YUV_YUY2:
    case GIP_YUV_UYVY:
    case GIP_YUV_YVYU: {
        /* four bytes per pair of pixels: YUY2 Y0 U Y1 V, UYVY U Y0 V Y1, YVYU Y0 V Y1 U */
        const int64_t x0 = (fx >> 2) * 2;
        const int pos = (int)(fx & 3);
        int comp;
        if (e->layout == GIP_YUV_UYVY)
            comp = pos & 1 ? 0 : pos == 0 ? 1 : 2;
        else
            comp = pos & 1 ? (e->layout == GIP_YUV_YUY2) == (pos == 1) ? 1 : 2 : 0;
        return gip__yuv422_enc_comp(e, comp ? x0 : x0 + (pos >> 1), fy, comp);
    }
    case GIP_YUV_NV12:
    case GIP_YUV_NV21: {
        if (fy < h)
            return (uint8_t)gip__yuv_enc_comp(e, fx, fy, 0);
        /* h / 2 rows of interleaved U, V (NV21: V, U) pairs */
        const int comp = ((int)(fx & 1) != (e->layout == GIP_YUV_NV21)) ? 2 : 1;
        return (uint8_t)gip__yuv_enc_comp(e, fx & ~(int64_t)1, 2 * (fy - h), comp);
    }
    default: {
        if (fy < h)
            return (uint8_t)gip__yuv_enc_comp(e, fx, fy, 0);
        /* half rows of w / 2 bytes, two per frame row: U's h / 2, then V's (YV12: V first) */
        const int64_t k = 2 * (fy - h) + (fx >= w / 2), px = fx % (w / 2);
        const bool first = k < h / 2;
        const int64_t row = first ? k : k - h / 2;
        const int comp = first != (e->layout == GIP_YUV_YV12) ? 1 : 2;
        return (uint8_t)gip__yuv_enc_comp(e, 2 * px, 2 * row, comp);
    }
    }
}

#ifdef __cplusplus
}
#endif
#endif
