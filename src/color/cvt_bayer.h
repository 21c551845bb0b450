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
#include <math.h>
#define GIP__BAYF static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gip__bayer {
    const void *data;
    int64_t stride;
    int64_t width, height;
    int32_t u16;    /* elements are u16 (else u8) */
    int32_t blue;   /* -1: the first row's non-green sites are blue; 1: red */
    int32_t green;  /* the first row starts with a green site */
    int32_t dcn;    /* 1 (gray), 3 or 4 */
    int32_t swap;   /* RGB order out */
    int32_t method; /* 0 bilinear, 1 edge-aware (Bayer2RGB_EdgeAware_T), 2 VNG (u8) */
} gip__bayer;

GIP__BAYF uint32_t gip__bayer_at(const gip__bayer *b, int64_t x, int64_t y)
{
    const char *row = (const char *)b->data + y * b->stride;
    return b->u16 ? ((const uint16_t *)row)[x] : ((const uint8_t *)row)[x];
}

/* ---- VNG (OpenCV's Bayer2RGB_VNG_8u): gradients in eight directions, the colours of those
 * below a threshold averaged ---------------------------------------------------------------- */

/* cv2 5.1 demosaics the mosaic padded by reflection (BORDER_REFLECT_101: 2 columns each side,
 * 2 rows above and 4 below) with OpenCV's VNG code, whose own borders then fall outside the
 * image: the functions below take coordinates in that padded image (the source's (x, y) is
 * (x + 2, y + 2) there). */
GIP__BAYF int64_t gip__vng_reflect(int64_t t, int64_t n)
{
    return t < 0 ? -t : t >= n ? 2 * n - 2 - t : t;
}

GIP__BAYF int gip__vng_s(const gip__bayer *b, int64_t px, int64_t py)
{
    const int64_t x = gip__vng_reflect(px - 2, b->width), y = gip__vng_reflect(py - 2, b->height);
    return (int)((const uint8_t *)b->data + y * b->stride)[x];
}

GIP__BAYF int gip__vng_abs(int v)
{
    return v < 0 ? -v : v;
}

/* Plane k (0..6) of OpenCV's gradient rows at padded (x, r): 0 on the padded image's first and
 * last columns. */
GIP__BAYF int gip__vng_plane(const gip__bayer *b, int k, int64_t x, int64_t r)
{
    if (x <= 0 || x >= b->width + 3)
        return 0;
#define S(dx, dy) gip__vng_s(b, x + (dx), r + (dy))
    switch (k) {
    case 0:
        return gip__vng_abs(S(-1, -1) - S(-1, 1)) + gip__vng_abs(S(0, -1) - S(0, 1)) * 2 +
               gip__vng_abs(S(1, -1) - S(1, 1));
    case 1:
        return gip__vng_abs(S(-1, -1) - S(1, -1)) + gip__vng_abs(S(-1, 0) - S(1, 0)) * 2 +
               gip__vng_abs(S(-1, 1) - S(1, 1));
    case 2:
        return gip__vng_abs(S(1, -1) - S(-1, 1)) * 2;
    case 3:
        return gip__vng_abs(S(-1, -1) - S(1, 1)) * 2;
    case 4:
        return gip__vng_abs(S(1, -1) - S(-1, 1)) * 2 + gip__vng_abs(S(0, -1) - S(-1, 0)) +
               gip__vng_abs(S(0, 1) - S(1, 0));
    case 5:
        return gip__vng_abs(S(-1, -1) - S(1, 1)) * 2 + gip__vng_abs(S(0, -1) - S(1, 0)) +
               gip__vng_abs(S(0, 1) - S(-1, 0));
    default:
        return (S(0, -1) + S(-1, 0) + S(1, 0) + S(0, 1)) >> 1;
    }
#undef S
}

/* OpenCV's average of n directions' differences v: the single-precision product with 1 / 2n
 * rounded half to even, 1 / 2n from its table in the scalar code and as 0.5f / n in its vector
 * code (they differ for n = 7). */
GIP__BAYF int gip__vng_scaled(int v, int n, bool vec)
{
    const float scale[9] = {0.f,  0.5f,           0.25f,      0.1666666666667f, 0.125f,
                            0.1f, 0.08333333333f, 0.0714286f, 0.0625f};
#if defined(__CUDA_ARCH__)
    const float k = vec ? __fdiv_rn(0.5f, (float)n) : scale[n];
    return __float2int_rn(__fmul_rn((float)v, k));
#else
    const float k = vec ? 0.5f / (float)n : scale[n];
    return (int)lrintf((float)v * k);
#endif
}

/* OpenCV's vector code (8 pixels of 16 bits) runs each row from its first red or blue site in
 * column 2 or 3 while 8 pixels fit before column W - 2; the scalar code does the rest. */
#define GIP__VNG_VEC 8

GIP__BAYF bool gip__vng_in_vec(const gip__bayer *b, int64_t x, bool green_at_2)
{
    const int64_t start = green_at_2 ? 3 : 2, last = b->width + 4 - 10;
    if (x < start || last < start)
        return false;
    const int64_t blocks = (last - start) / GIP__VNG_VEC + 1;
    return x - start < blocks * GIP__VNG_VEC;
}

/* Pixel (x, y) of the source (padded (x + 2, y + 2)): b, g, r into v. */
GIP__BAYF void gip__vng_pixel(const gip__bayer *b, int64_t sx, int64_t sy, uint32_t *v)
{
    const int64_t x = sx + 2, y = sy + 2;
#define S(dx, dy) gip__vng_s(b, x + (dx), y + (dy))
#define P(k, dx, dy) gip__vng_plane(b, k, x + (dx), y + (dy))
    /* the colours of row 2 column 2 (VNG names its patterns as the bilinear code does) */
    const int64_t i = y - 2, j = x - 2;
    const bool green = ((int)(i & 1) ^ (int)(j & 1)) ^ (int)b->green;
    const bool vec = gip__vng_in_vec(b, x, (bool)((int)(i & 1) ^ (int)b->green));
    /* blue's index in the output flips every row; the row's first colour in (2, 2)'s terms */
    const int bidx0 = b->blue < 0 ? 0 : 2;
    const int bidx = (i & 1) ? bidx0 ^ 2 : bidx0;
    const int p1x = P(1, 0, 0);
    const int gn = P(0, 0, -1) + P(0, 0, 0), gs = P(0, 0, 0) + P(0, 0, 1);
    const int gw = P(1, -1, 0) + p1x, ge = p1x + P(1, 1, 0);
    int gne, gsw, gnw, gse;
    if (!green) {
        gne = P(4, 1, -1) + P(4, 0, 0);
        gsw = P(4, 0, 0) + P(4, -1, 1);
        gnw = P(5, -1, -1) + P(5, 0, 0);
        gse = P(5, 0, 0) + P(5, 1, 1);
    } else {
        gne = P(2, 0, -1) + P(2, 1, -1) + P(2, 0, 0) + P(2, 1, 0);
        gsw = P(2, 0, 0) + P(2, -1, 0) + P(2, 0, 1) + P(2, -1, 1);
        gnw = P(3, 0, -1) + P(3, -1, -1) + P(3, 0, 0) + P(3, -1, 0);
        gse = P(3, 0, 0) + P(3, 1, 0) + P(3, 0, 1) + P(3, 1, 1);
    }
    const int g8[8] = {gn, gs, gw, ge, gne, gsw, gnw, gse};
    int mn = g8[0], mx = g8[0];
    for (int k = 1; k < 8; k++) {
        mn = g8[k] < mn ? g8[k] : mn;
        mx = g8[k] > mx ? g8[k] : mx;
    }
    const int t = mn + (mx / 2 > 1 ? mx / 2 : 1);
    int rs = 0, gsum = 0, bs = 0, ng = 0, c, o1, o2;
    if (!green) {
        /* the centre's colour (rs), green (gsum) and the other colour (bs) of each direction */
        const int s0 = S(0, 0);
        if (gn < t)
            rs += S(0, -2) + s0, gsum += S(0, -1) * 2, bs += S(-1, -1) + S(1, -1), ng++;
        if (gs < t)
            rs += S(0, 2) + s0, gsum += S(0, 1) * 2, bs += S(-1, 1) + S(1, 1), ng++;
        if (gw < t)
            rs += S(-2, 0) + s0, gsum += S(-1, 0) * 2, bs += S(-1, -1) + S(-1, 1), ng++;
        if (ge < t)
            rs += S(2, 0) + s0, gsum += S(1, 0) * 2, bs += S(1, -1) + S(1, 1), ng++;
        if (gne < t)
            rs += S(2, -2) + s0, gsum += P(6, 1, -1), bs += S(1, -1) * 2, ng++;
        if (gsw < t)
            rs += S(-2, 2) + s0, gsum += P(6, -1, 1), bs += S(-1, 1) * 2, ng++;
        if (gnw < t)
            rs += S(-2, -2) + s0, gsum += P(6, -1, -1), bs += S(-1, -1) * 2, ng++;
        if (gse < t)
            rs += S(2, 2) + s0, gsum += P(6, 1, 1), bs += S(1, 1) * 2, ng++;
        c = s0;
        o1 = c + gip__vng_scaled(gsum - rs, ng, vec); /* green */
        o2 = c + gip__vng_scaled(bs - rs, ng, vec);   /* the other colour */
        /* c: the centre's colour, at index bidx ^ 2 of the output (its "R") */
        int out[3];
        out[bidx] = o2, out[1] = o1, out[bidx ^ 2] = c;
        for (int k = 0; k < 3; k++)
            v[k] = (uint32_t)(out[k] < 0 ? 0 : out[k] > 255 ? 255 : out[k]);
    } else {
        const int s0 = S(0, 0);
        if (gn < t)
            rs += S(-1, -2) + S(1, -2), gsum += S(0, -2) + s0, bs += S(0, -1) * 2, ng++;
        if (gs < t)
            rs += S(-1, 2) + S(1, 2), gsum += S(0, 2) + s0, bs += S(0, 1) * 2, ng++;
        if (gw < t)
            rs += S(-1, 0) * 2, gsum += S(-2, 0) + s0, bs += S(-2, -1) + S(-2, 1), ng++;
        if (ge < t)
            rs += S(1, 0) * 2, gsum += S(2, 0) + s0, bs += S(2, -1) + S(2, 1), ng++;
        if (gne < t)
            rs += S(1, -2) + S(1, 0), gsum += S(1, -1) * 2, bs += S(0, -1) + S(2, -1), ng++;
        if (gsw < t)
            rs += S(-1, 2) + S(-1, 0), gsum += S(-1, 1) * 2, bs += S(0, 1) + S(-2, 1), ng++;
        if (gnw < t)
            rs += S(-1, -2) + S(-1, 0), gsum += S(-1, -1) * 2, bs += S(-2, -1) + S(0, -1), ng++;
        if (gse < t)
            rs += S(1, 2) + S(1, 0), gsum += S(1, 1) * 2, bs += S(2, 1) + S(0, 1), ng++;
        c = s0;
        /* rs: the row's other colour (OpenCV's R), bs: the column's (its B) */
        o1 = c + gip__vng_scaled(rs - gsum, ng, vec);
        o2 = c + gip__vng_scaled(bs - gsum, ng, vec);
        int out[3];
        out[bidx] = o2, out[1] = c, out[bidx ^ 2] = o1;
        for (int k = 0; k < 3; k++)
            v[k] = (uint32_t)(out[k] < 0 ? 0 : out[k] > 255 ? 255 : out[k]);
    }
#undef S
#undef P
}

/* The colour (bilinear or edge-aware) of an inner site from its neighbours: c the site, n, s, we
 * and e its four neighbours, d the sum of its four diagonal ones (used off green sites only);
 * blue is +1 or -1 (the row's non-green colour), out v in b->swap's order. */
GIP__BAYF void gip__bayer_rgb(const gip__bayer *b, bool on_green, int blue, uint32_t c, uint32_t n,
                              uint32_t s, uint32_t we, uint32_t e, uint32_t d, uint32_t *v)
{
    /* lo goes to output index 1 - blue, hi to 1 + blue */
    uint32_t lo, g, hi;
    if (on_green) {
        lo = (n + s + 1) >> 1;
        g = c;
        hi = (we + e + 1) >> 1;
    } else {
        lo = (d + 2) >> 2;
        if (b->method == 1) {
            /* along the edge: the pair that differs less */
            const int64_t dh = (int64_t)we - e, dv = (int64_t)s - n;
            g = (dh < 0 ? -dh : dh) > (dv < 0 ? -dv : dv) ? (n + s + 1) >> 1 : (we + e + 1) >> 1;
        } else {
            g = (n + s + we + e + 2) >> 2;
        }
        hi = c;
    }
    const uint32_t o0 = blue > 0 ? lo : hi, o2 = blue > 0 ? hi : lo;
    v[0] = b->swap ? o2 : o0;
    v[1] = g;
    v[2] = b->swap ? o0 : o2;
}

/* Output pixel (x, y) as 4 values (b, g, r, alpha-less) or gray in v[0]. */
GIP__BAYF void gip__bayer_pixel(const gip__bayer *b, int64_t x, int64_t y, uint32_t *v)
{
    const int64_t w = b->width, h = b->height;
    if (b->method == 2 && w >= 8 && h >= 8) {
        uint32_t o[3];
        gip__vng_pixel(b, x, y, o);
        v[0] = o[b->swap ? 2 : 0];
        v[1] = o[1];
        v[2] = o[b->swap ? 0 : 2];
        return;
    }
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
    const uint32_t d = on_green
                           ? 0
                           : gip__bayer_at(b, x - 1, y - 1) + gip__bayer_at(b, x + 1, y - 1) +
                                 gip__bayer_at(b, x - 1, y + 1) + gip__bayer_at(b, x + 1, y + 1);
    gip__bayer_rgb(b, on_green, blue, c, n, s, we, e, d, v);
}

#ifdef __cplusplus
}
#endif
#endif
