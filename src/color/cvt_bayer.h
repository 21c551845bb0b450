/* SPDX-License-Identifier: MIT */
/* Bayer mosaics to BGR/RGB (bilinear or edge-aware) and gray for one output pixel, shared by the
 * CPU and CUDA backends of gip_bayer_to_rgb: OpenCV's Bayer2RGB_, Bayer2RGB_EdgeAware_T and
 * Bayer2Gray_ (demosaicing.cpp) rules,
 * with the outer rows and columns copied from their inner neighbours as OpenCV fills them. */
#ifndef GIP_COLOR_CVT_BAYER_H
#define GIP_COLOR_CVT_BAYER_H

#include <stdbool.h>
#include <stdint.h>

#include "gip/color.h"

#if defined(__CUDACC__)
#define GIP__BAYF __host__ __device__ __forceinline__
#else
#define GIP__BAYF static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gip__bayer {
    const void *data;
    int64_t stride;
    int64_t width, height;
    int32_t u16;   /* elements are u16 (else u8) */
    int32_t blue;  /* -1: the first row's non-green sites are blue; 1: red */
    int32_t green; /* the first row starts with a green site */
    int32_t dcn;   /* 1 (gray), 3 or 4 */
    int32_t swap;  /* RGB order out */
    int32_t ea;    /* edge-aware green at red and blue sites (OpenCV's Bayer2RGB_EdgeAware_T) */
} gip__bayer;

GIP__BAYF uint32_t gip__bayer_at(const gip__bayer *b, int64_t x, int64_t y)
{
    const char *row = (const char *)b->data + y * b->stride;
    return b->u16 ? ((const uint16_t *)row)[x] : ((const uint8_t *)row)[x];
}

/* Output pixel (x, y) as 4 values (b, g, r, alpha-less) or gray in v[0]. */
GIP__BAYF void gip__bayer_pixel(const gip__bayer *b, int64_t x, int64_t y, uint32_t *v)
{
    const int64_t w = b->width, h = b->height;
    if (w <= 2 || h <= 2) {
        v[0] = v[1] = v[2] = 0;
        return;
    }
    /* The border repeats its inner neighbour. */
    x = x < 1 ? 1 : x > w - 2 ? w - 2 : x;
    y = y < 1 ? 1 : y > h - 2 ? h - 2 : y;
    /* OpenCV walks rows from 1 with (blue, green) of the first, both flipping each row. */
    const int64_t i = y - 1, j = x - 1;
    const int blue = (i & 1) ? -b->blue : b->blue;
    const int swg = (int)((i & 1) ^ (int64_t)b->green);
    const bool on_green = (int)(j & 1) ^ swg;
    const uint32_t c = gip__bayer_at(b, x, y);
    const uint32_t n = gip__bayer_at(b, x, y - 1), s = gip__bayer_at(b, x, y + 1);
    const uint32_t we = gip__bayer_at(b, x - 1, y), e = gip__bayer_at(b, x + 1, y);
    if (b->dcn == 1) {
        /* Bayer2Gray_: 14-bit gray weights; bcoeff belongs to the row's non-green colour. */
        const uint32_t r2y = 4899, g2y = 9617, b2y = 1868;
        const bool blue_row = blue < 0;
        const uint32_t bco = blue_row ? b2y : r2y, rco = blue_row ? r2y : b2y;
        uint32_t t;
        if (on_green) {
            t = (n + s) * rco + (we + e) * bco + c * (2 * g2y);
            v[0] = (t + (1u << 14)) >> 15;
        } else {
            const uint32_t d = gip__bayer_at(b, x - 1, y - 1) + gip__bayer_at(b, x + 1, y - 1) +
                               gip__bayer_at(b, x - 1, y + 1) + gip__bayer_at(b, x + 1, y + 1);
            t = d * rco + (n + s + we + e) * g2y + c * (4 * bco);
            v[0] = (t + (1u << 15)) >> 16;
        }
        return;
    }
    uint32_t o[3];
    if (on_green) {
        o[1 - blue] = (n + s + 1) >> 1;
        o[1] = c;
        o[1 + blue] = (we + e + 1) >> 1;
    } else {
        const uint32_t d = gip__bayer_at(b, x - 1, y - 1) + gip__bayer_at(b, x + 1, y - 1) +
                           gip__bayer_at(b, x - 1, y + 1) + gip__bayer_at(b, x + 1, y + 1);
        o[1 - blue] = (d + 2) >> 2;
        if (b->ea) {
            /* along the edge: the pair that differs less */
            const int64_t dh = (int64_t)we - e, dv = (int64_t)s - n;
            o[1] = (dh < 0 ? -dh : dh) > (dv < 0 ? -dv : dv) ? (n + s + 1) >> 1 : (we + e + 1) >> 1;
        } else {
            o[1] = (n + s + we + e + 2) >> 2;
        }
        o[1 + blue] = c;
    }
    v[0] = o[b->swap ? 2 : 0];
    v[1] = o[1];
    v[2] = o[b->swap ? 0 : 2];
}

#ifdef __cplusplus
}
#endif
#endif
