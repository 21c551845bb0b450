/* SPDX-License-Identifier: MIT */
/* The colour spaces of gip_cvt_color (HSV, HLS, YCrCb, YUV, XYZ, both ways) for one pixel, written
 * once for the CPU and CUDA backends: u8 with OpenCV's fixed-point coefficients and rounding
 * (imgproc color_hsv, color_yuv, color_lab), f32 with its formulas. Floating-point steps use
 * explicitly rounded operations (fround.h) so that the device computes what the host computes. */
#ifndef GIP_COLOR_CVT_SPACE_H
#define GIP_COLOR_CVT_SPACE_H

#include <stdbool.h>
#include <stdint.h>

#include "color/cvt_hsv_tables.h"
#include "color/cvt_lab_tables.h"
#include "fround.h"
#include "saturate.h"

#if defined(__CUDACC__)
#define GIP__CSF __host__ __device__ __forceinline__
#else
#include <math.h>
#define GIP__CSF static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gip__cs_space {
    GIP__CS_HSV = 0,      /* hue 0..180 for u8, 0..360 for f32 */
    GIP__CS_HSV_FULL = 1, /* hue 0..255 for u8 */
    GIP__CS_HLS = 2,
    GIP__CS_HLS_FULL = 3,
    GIP__CS_YCRCB = 4,
    GIP__CS_YUV = 5,
    GIP__CS_XYZ = 6,
    GIP__CS_LAB = 7, /* u8 (OpenCV's integer code) and f32 (the CIE formulas) */
    GIP__CS_LUV = 8, /* u8 (OpenCV's table and integer code) and f32 (the CIE formulas) */
} gip__cs_space;

/* What a space code does: the space, the direction, where blue is in the RGB side (0: BGR,
 * 2: RGB) and the RGB side's channel count (3 or 4; alpha ignored going in, max going out);
 * luv_lut: u8 RGB to Luv's table where the backend runs (gip__luv_lut() on the CPU, its copy in
 * device memory on CUDA), NULL for the other codes. */
typedef struct gip__cs_params {
    int32_t space, inverse, bidx, rgb_cn;
    const int16_t *luv_lut;
} gip__cs_params;

GIP__CSF int32_t gip__cs_floor(float x)
{
#if defined(__CUDA_ARCH__)
    return __float2int_rd(x);
#else
    return (int32_t)floorf(x);
#endif
}
GIP__CSF int32_t gip__cs_descale(int32_t x, int n)
{
    return (x + (1 << (n - 1))) >> n;
}

#define GIP__CS_EPS 1.1920928955078125e-07f /* FLT_EPSILON */

/* ---- hue, shared by HSV and HLS -------------------------------------------------------------- */

GIP__CSF float gip__cs_max3(float r, float g, float b)
{
    float m = r > g ? r : g;
    return m > b ? m : b;
}
GIP__CSF float gip__cs_min3(float r, float g, float b)
{
    float m = r < g ? r : g;
    return m < b ? m : b;
}

/* The hue in degrees of RGB2HSV_f and RGB2HLS_f (scalar): mx the largest channel, k 60 over
 * their difference. */
GIP__CSF float gip__cs_hue_deg(float r, float g, float b, float mx, float k)
{
    float h;
    if (mx == r)
        h = gip__rn_mul(gip__rn_sub(g, b), k);
    else if (mx == g)
        h = gip__rn_fma(gip__rn_sub(b, r), k, 120.0f); /* contracted, as OpenCV's */
    else
        h = gip__rn_fma(gip__rn_sub(r, g), k, 240.0f);
    if (h < 0)
        h = gip__rn_add(h, 360.0f);
    return h;
}

/* The hue of HSV2RGB and HLS2RGB (scalar) times hscale brought into [0, 6) by whole turns: its
 * floor, the sector, returned, and the fraction left in *h. Where that is not a sector (a tiny
 * negative hue plus 6 rounds to 6; NaN) the hue is taken as 0, as OpenCV takes it. */
GIP__CSF int gip__cs_hue_sector(float *h, float hscale)
{
    float x = gip__rn_mul(*h, hscale);
    if (x < 0)
        do
            x = gip__rn_add(x, 6.0f);
        while (x < 0);
    else if (x >= 6)
        do
            x = gip__rn_sub(x, 6.0f);
        while (x >= 6);
    int sector = gip__cs_floor(x);
    *h = gip__rn_sub(x, (float)sector);
    if ((unsigned)sector >= 6u) {
        sector = 0;
        *h = 0.0f;
    }
    return sector;
}

/* r, g, b (rgb[0] .. rgb[2]) from HSV2RGB's and HLS2RGB's table of a sector's four values. */
GIP__CSF void gip__cs_sector_rgb(int sector, const float *tab, float *rgb)
{
    const int sector_data[6][3] = {{1, 3, 0}, {1, 0, 2}, {3, 0, 1},
                                   {0, 2, 1}, {0, 1, 3}, {2, 1, 0}};
    const float b = tab[sector_data[sector][0]];
    const float g = tab[sector_data[sector][1]];
    const float r = tab[sector_data[sector][2]];
    rgb[0] = r;
    rgb[1] = g;
    rgb[2] = b;
}

/* The largest and smallest of r, g, b, and OpenCV's vector RGB2HSV and RGB2HLS hue parts: its
 * numerator h and the sector's offset part (hue = part + h 60 / diff). */
GIP__CSF void gip__cs_hue_parts(float r, float g, float b, float *mx, float *mn, float *h,
                                float *part)
{
    *mx = gip__cs_max3(r, g, b);
    *mn = gip__cs_min3(r, g, b);
    if (r == *mx) {
        *h = gip__rn_sub(g, b);
        *part = g < b ? 360.0f : 0.0f;
    } else if (g == *mx) {
        *h = gip__rn_sub(b, r);
        *part = 120.0f;
    } else {
        *h = gip__rn_sub(r, g);
        *part = 240.0f;
    }
}

/* ---- HSV ------------------------------------------------------------------------------------- */

/* OpenCV's RGB2HSV_b: 12-bit fixed point, divisions by tables of rounded reciprocals. */
GIP__CSF void gip__hsv_from_rgb_u8(int r, int g, int b, int full, uint8_t *out)
{
    const int shift = 12;
    int v = r > g ? r : g;
    v = v > b ? v : b;
    int vmin = r < g ? r : g;
    vmin = vmin < b ? vmin : b;
    int diff = v - vmin;
    int vr = v == r ? -1 : 0, vg = v == g ? -1 : 0;
#if defined(__CUDACC__) && !defined(__CUDA_ARCH__)
    /* nvcc's host pass (the tables are device arrays there; CUDA files run this on the device) */
    int sdiv = v ? gip__round_f64((double)(255 << shift) / (double)v) : 0;
    int hdiv = diff ? gip__round_f64((double)((full ? 256 : 180) << shift) / (6.0 * diff)) : 0;
#else
    int sdiv = gip__hsv_sdiv[v];
    int hdiv = full ? gip__hsv_hdiv256[diff] : gip__hsv_hdiv180[diff];
#endif
    int s = (diff * sdiv + (1 << (shift - 1))) >> shift;
    int h = (vr & (g - b)) + (~vr & ((vg & (b - r + 2 * diff)) + ((~vg) & (r - g + 4 * diff))));
    h = (h * hdiv + (1 << (shift - 1))) >> shift;
    h += h < 0 ? (full ? 256 : 180) : 0;
    out[0] = gip__sat_u8_i32(h);
    out[1] = (uint8_t)s;
    out[2] = (uint8_t)v;
}

/* OpenCV's RGB2HSV_f: hue in degrees times hrange / 360. */
GIP__CSF void gip__hsv_from_rgb_f32(float r, float g, float b, float hscale, float *out)
{
    float v = gip__cs_max3(r, g, b);
    float diff = gip__rn_sub(v, gip__cs_min3(r, g, b));
    float s = gip__rn_div(diff, gip__rn_add(v < 0 ? -v : v, GIP__CS_EPS));
    float k = (float)(60.0 / (double)gip__rn_add(diff, GIP__CS_EPS));
    out[0] = gip__rn_mul(gip__cs_hue_deg(r, g, b, v, k), hscale);
    out[1] = s;
    out[2] = v;
}

/* OpenCV's HSV2RGB_native: hue in sixths, s and v in 0..1; writes r, g, b. */
GIP__CSF void gip__rgb_from_hsv_f32(float h, float s, float v, float hscale, float *rgb)
{
    if (s == 0) {
        rgb[0] = rgb[1] = rgb[2] = v;
        return;
    }
    const int sector = gip__cs_hue_sector(&h, hscale);
    float tab[4];
    tab[0] = v;
    tab[1] = gip__rn_mul(v, gip__rn_sub(1.0f, s));
    /* 1 - s * h fused, as OpenCV's compiler contracts it */
    tab[2] = gip__rn_mul(v, gip__rn_fma(-s, h, 1.0f));
    tab[3] = gip__rn_mul(v, gip__rn_fma(-s, gip__rn_sub(1.0f, h), 1.0f));
    gip__cs_sector_rgb(sector, tab, rgb);
}

/* ---- HLS ------------------------------------------------------------------------------------- */

/* OpenCV's RGB2HLS_f (u8 goes through it with inputs divided by 255). */
GIP__CSF void gip__hls_from_rgb_f32(float r, float g, float b, float hscale, float *out)
{
    float h = 0.0f, s = 0.0f, l;
    float vmax = gip__cs_max3(r, g, b), vmin = gip__cs_min3(r, g, b);
    float diff = gip__rn_sub(vmax, vmin);
    float sum = gip__rn_add(vmax, vmin);
    l = gip__rn_mul(sum, 0.5f);
    if (diff > GIP__CS_EPS) {
        s = l < 0.5f ? gip__rn_div(diff, sum)
                     : gip__rn_div(diff, gip__rn_sub(gip__rn_sub(2.0f, vmax), vmin));
        h = gip__cs_hue_deg(r, g, b, vmax, gip__rn_div(60.0f, diff));
    }
    out[0] = gip__rn_mul(h, hscale);
    out[1] = l;
    out[2] = s;
}

/* OpenCV's HLS2RGB_f: writes r, g, b. */
GIP__CSF void gip__rgb_from_hls_f32(float h, float l, float s, float hscale, float *rgb)
{
    if (s == 0) {
        rgb[0] = rgb[1] = rgb[2] = l;
        return;
    }
    float tab[4];
    float p2 = l <= 0.5f ? gip__rn_mul(l, gip__rn_add(1.0f, s))
                         : gip__rn_sub(gip__rn_add(l, s), gip__rn_mul(l, s));
    float p1 = gip__rn_sub(gip__rn_mul(2.0f, l), p2);
    const int sector = gip__cs_hue_sector(&h, hscale);
    tab[0] = p2;
    tab[1] = p1;
    tab[2] = gip__rn_add(p1, gip__rn_mul(gip__rn_sub(p2, p1), gip__rn_sub(1.0f, h)));
    tab[3] = gip__rn_add(p1, gip__rn_mul(gip__rn_sub(p2, p1), h));
    gip__cs_sector_rgb(sector, tab, rgb);
}

/* ---- YCrCb and YUV (BT.601), 14-bit fixed point for u8 --------------------------------------- */

#define GIP__YUV_SHIFT 14

/* Y, then the two colour differences (YCrCb: Y, Cr, Cb; YUV: Y, U, V) before saturation, for
 * u8 (half 128) and u16 (half 32768): OpenCV's RGB2YCrCb_i, whose products stay below 2^31 for
 * u16. */
GIP__CSF void gip__ycc_from_rgb_i(int r, int g, int b, int yuv, int half, int32_t *o)
{
    const int sh = GIP__YUV_SHIFT, delta = half * (1 << sh);
    int y = gip__cs_descale(r * 4899 + g * 9617 + b * 1868, sh);
    if (yuv) {
        o[1] = gip__cs_descale((b - y) * 8061 + delta, sh);
        o[2] = gip__cs_descale((r - y) * 14369 + delta, sh);
    } else {
        o[1] = gip__cs_descale((r - y) * 11682 + delta, sh);
        o[2] = gip__cs_descale((b - y) * 9241 + delta, sh);
    }
    o[0] = y;
}

GIP__CSF void gip__ycc_from_rgb_u8(int r, int g, int b, int yuv, uint8_t *out)
{
    int32_t o[3];
    gip__ycc_from_rgb_i(r, g, b, yuv, 128, o);
    for (int i = 0; i < 3; i++)
        out[i] = gip__sat_u8_i32(o[i]);
}

/* r, g, b from Y, Cr, Cb (YCrCb) or Y, U, V (YUV) before saturation (OpenCV's YCrCb2RGB_i). */
GIP__CSF void gip__rgb_from_ycc_i(int y, int c1, int c2, int yuv, int half, int32_t *rgb)
{
    const int sh = GIP__YUV_SHIFT;
    if (yuv) {
        int u = c1 - half, v = c2 - half;
        rgb[2] = y + gip__cs_descale(u * 33292, sh);
        rgb[1] = y + gip__cs_descale(v * -9519 + u * -6472, sh);
        rgb[0] = y + gip__cs_descale(v * 18678, sh);
    } else {
        int cr = c1 - half, cb = c2 - half;
        rgb[2] = y + gip__cs_descale(cb * 29049, sh);
        rgb[1] = y + gip__cs_descale(cb * -5636 + cr * -11698, sh);
        rgb[0] = y + gip__cs_descale(cr * 22987, sh);
    }
}

/* Writes r, g, b from Y, Cr, Cb (YCrCb) or Y, U, V (YUV). */
GIP__CSF void gip__rgb_from_ycc_u8(int y, int c1, int c2, int yuv, uint8_t *rgb)
{
    int32_t o[3];
    gip__rgb_from_ycc_i(y, c1, c2, yuv, 128, o);
    for (int i = 0; i < 3; i++)
        rgb[i] = gip__sat_u8_i32(o[i]);
}

GIP__CSF void gip__ycc_from_rgb_f32(float r, float g, float b, int yuv, float *out)
{
    float y = gip__rn_add(gip__rn_add(gip__rn_mul(b, 0.114f), gip__rn_mul(g, 0.587f)),
                          gip__rn_mul(r, 0.299f));
    if (yuv) {
        out[1] = gip__rn_add(gip__rn_mul(gip__rn_sub(b, y), 0.492f), 0.5f);
        out[2] = gip__rn_add(gip__rn_mul(gip__rn_sub(r, y), 0.877f), 0.5f);
    } else {
        out[1] = gip__rn_add(gip__rn_mul(gip__rn_sub(r, y), 0.713f), 0.5f);
        out[2] = gip__rn_add(gip__rn_mul(gip__rn_sub(b, y), 0.564f), 0.5f);
    }
    out[0] = y;
}

GIP__CSF void gip__rgb_from_ycc_f32(float y, float c1, float c2, int yuv, float *rgb)
{
    float d1 = gip__rn_sub(c1, 0.5f), d2 = gip__rn_sub(c2, 0.5f);
    if (yuv) { /* c1 = U, c2 = V */
        rgb[2] = gip__rn_add(y, gip__rn_mul(d1, 2.032f));
        rgb[1] = gip__rn_add(gip__rn_add(y, gip__rn_mul(d2, -0.581f)), gip__rn_mul(d1, -0.395f));
        rgb[0] = gip__rn_add(y, gip__rn_mul(d2, 1.140f));
    } else { /* c1 = Cr, c2 = Cb */
        rgb[2] = gip__rn_add(y, gip__rn_mul(d2, 1.773f));
        rgb[1] = gip__rn_add(gip__rn_add(y, gip__rn_mul(d2, -0.344f)), gip__rn_mul(d1, -0.714f));
        rgb[0] = gip__rn_add(y, gip__rn_mul(d1, 1.403f));
    }
}

/* ---- XYZ (sRGB primaries, D65), 12-bit fixed point for u8 ------------------------------------ */

/* cvRound(4096 * sRGB2XYZ_D65) and cvRound(4096 * XYZ2sRGB_D65), rows X, Y, Z / R, G, B and
 * columns R, G, B / X, Y, Z. */
#define GIP__XYZ_SHIFT 12

/* X, Y, Z (or r, g, b with inverse) before saturation: OpenCV's RGB2XYZ_i and XYZ2RGB_i, whose
 * products stay below 2^31 for u16. */
GIP__CSF void gip__xyz_mat_i(int c0, int c1, int c2, int inverse, int32_t *o)
{
    const int fw[9] = {1689, 1465, 739, 871, 2929, 296, 79, 488, 3892};
    const int bw[9] = {13273, -6296, -2042, -3970, 7684, 170, 228, -836, 4331};
    const int *c = inverse ? bw : fw;
    for (int i = 0; i < 3; i++)
        o[i] =
            gip__cs_descale(c0 * c[3 * i] + c1 * c[3 * i + 1] + c2 * c[3 * i + 2], GIP__XYZ_SHIFT);
}

GIP__CSF void gip__xyz_from_rgb_u8(int r, int g, int b, uint8_t *out)
{
    int32_t o[3];
    gip__xyz_mat_i(r, g, b, 0, o);
    for (int i = 0; i < 3; i++)
        out[i] = gip__sat_u8_i32(o[i]);
}

GIP__CSF void gip__rgb_from_xyz_u8(int x, int y, int z, uint8_t *rgb)
{
    int32_t o[3];
    gip__xyz_mat_i(x, y, z, 1, o);
    for (int i = 0; i < 3; i++)
        rgb[i] = gip__sat_u8_i32(o[i]);
}

GIP__CSF void gip__xyz_from_rgb_f32(float r, float g, float b, float *out)
{
    const float c[9] = {0.412453f, 0.357580f, 0.180423f, 0.212671f, 0.715160f,
                        0.072169f, 0.019334f, 0.119193f, 0.950227f};
    for (int i = 0; i < 3; i++)
        out[i] = gip__rn_add(gip__rn_add(gip__rn_mul(r, c[3 * i]), gip__rn_mul(g, c[3 * i + 1])),
                             gip__rn_mul(b, c[3 * i + 2]));
}

GIP__CSF void gip__rgb_from_xyz_f32(float x, float y, float z, float *rgb)
{
    const float c[9] = {3.240479f, -1.53715f, -0.498535f, -0.969256f, 1.875991f,
                        0.041556f, 0.055648f, -0.204043f, 1.057311f};
    for (int i = 0; i < 3; i++)
        rgb[i] = gip__rn_add(gip__rn_add(gip__rn_mul(x, c[3 * i]), gip__rn_mul(y, c[3 * i + 1])),
                             gip__rn_mul(z, c[3 * i + 2]));
}

/* ---- Lab (D65), OpenCV's integer RGB2Lab_b ----------------------------------------------------
 */

GIP__CSF void gip__lab_from_rgb_u8(int r, int g, int b, uint8_t *out)
{
#if defined(__CUDACC__) && !defined(__CUDA_ARCH__)
    /* nvcc's host pass: the tables are device arrays there, and CUDA files run this on the
     * device only (the CPU backend is C, with host tables) */
    (void)r, (void)g, (void)b;
    out[0] = out[1] = out[2] = 0;
#else
    const int R = gip__lab_gamma[r], G = gip__lab_gamma[g], B = gip__lab_gamma[b];
    const int32_t *c = gip__lab_coeffs;
    const int fx = gip__lab_cbrt[gip__cs_descale(R * c[0] + G * c[1] + B * c[2], 12)];
    const int fy = gip__lab_cbrt[gip__cs_descale(R * c[3] + G * c[4] + B * c[5], 12)];
    const int fz = gip__lab_cbrt[gip__cs_descale(R * c[6] + G * c[7] + B * c[8], 12)];
    /* L = 116 f(Y) - 16, a = 500 (f(X) - f(Y)), b = 200 (f(Y) - f(Z)) in 15-bit fixed point,
     * scaled to 0..255 (L) and offset by 128 (a, b) */
    const int lscale = (116 * 255 + 50) / 100, lshift = -((16 * 255 * (1 << 15) + 50) / 100);
    out[0] = gip__sat_u8_i32(gip__cs_descale(lscale * fy + lshift, 15));
    out[1] = gip__sat_u8_i32(gip__cs_descale(500 * (fx - fy) + 128 * (1 << 15), 15));
    out[2] = gip__sat_u8_i32(gip__cs_descale(200 * (fy - fz) + 128 * (1 << 15), 15));
#endif
}

/* OpenCV's integer Lab2RGBinteger: L to Y and f(Y) by table, a / 500 and b / 200 in 14 bits with
 * its multiply-shift approximations, f^-1 of f(X) and f(Z) by its integer rule, the matrix in 12
 * bits and the inverse gamma by table; writes r, g, b. */
GIP__CSF int gip__lab_f_inv_i(int v)
{
    /* f^-1(t) = (t - 16/116) / 7.787 below 6/29, t^3 above; t and the result in 14 bits (C's
     * truncating division, as OpenCV's table is built) */
    const int base = 1 << 14;
    if (v <= 3390)
        return v * 108 / 841 - base * 16 / 116 * 108 / 841;
    return v * v / base * v / base;
}

GIP__CSF void gip__rgb_from_lab_u8(int l, int a, int b, uint8_t *rgb)
{
#if defined(__CUDACC__) && !defined(__CUDA_ARCH__)
    (void)l, (void)a, (void)b;
    rgb[0] = rgb[1] = rgb[2] = 0;
#else
    const int base = 1 << 14, shift = 14;
    const int y = gip__lab_yf[2 * l], ify = gip__lab_yf[2 * l + 1];
    const int adiv = ((5 * a * 53687 + (1 << 7)) >> 13) - 128 * base / 500;
    const int bdiv = ((b * 41943 + (1 << 4)) >> 9) - 128 * base / 200 + 1;
    const int x = gip__lab_f_inv_i(ify + adiv), z = gip__lab_f_inv_i(ify - bdiv);
    const int32_t *c = gip__lab_inv_coeffs;
    for (int i = 0; i < 3; i++) {
        int v = gip__cs_descale(c[3 * i] * x + c[3 * i + 1] * y + c[3 * i + 2] * z, shift);
        v = v < 0 ? 0 : v > 4095 ? 4095 : v;
        rgb[i] = (uint8_t)gip__lab_inv_gamma[v];
    }
#endif
}

/* ---- Luv (D65), OpenCV's u8 RGB2Luv_b (an interpolated table) and Luv2RGBinteger ------------
 * u8 Luv: L scaled to 0..255, u from -134..220 and v from -140..122 mapped onto 0..255. */

/* The forward table: L, u and v of the sRGB colours on a grid of 33 levels a channel (0, 1/32 ..
 * 1), in 14 bits (L 16384 / 100, (u + 134) 16384 / 354, (v + 140) 16384 / 262), all in
 * 0..16384; entry 3 (b + 33 (g + 33 r)) + channel. Built once per process (cvt_luv.c), as
 * OpenCV's initLabTabs builds it. */
#define GIP__LUV_DIM 33
#define GIP__LUV_LUT_SIZE (3 * GIP__LUV_DIM * GIP__LUV_DIM * GIP__LUV_DIM)
const int16_t *gip__luv_lut(void);

/* OpenCV's RGB2Luvinterpolate: each channel c in 14 bits (c << 6) picks a cell of the grid
 * (c >> 3) and a fraction of it in sixteenths (2 (c & 7)); the cell's eight corners are weighed
 * trilinearly (weights summing to 4096), the sum is rounded to 14 bits and then truncated to 8.
 * The table and the weights are not negative, so no sum is; L of white (16384) saturates. */
GIP__CSF void gip__luv_from_rgb_u8(const int16_t *lut, int r, int g, int b, uint8_t *out)
{
    const int16_t *t = lut + 3 * ((b >> 3) + GIP__LUV_DIM * ((g >> 3) + GIP__LUV_DIM * (r >> 3)));
    const int fr = 2 * (r & 7), fg = 2 * (g & 7), fb = 2 * (b & 7);
    const int wr[2] = {16 - fr, fr}, wg[2] = {16 - fg, fg}, wb[2] = {16 - fb, fb};
    int32_t acc[3] = {0, 0, 0};
    for (int k = 0; k < 8; k++) {
        const int dr = k >> 2, dg = (k >> 1) & 1, db = k & 1;
        const int32_t w = wr[dr] * wg[dg] * wb[db];
        const int16_t *e = t + 3 * (db + GIP__LUV_DIM * (dg + GIP__LUV_DIM * dr));
        for (int c = 0; c < 3; c++)
            acc[c] += e[c] * w;
    }
    for (int c = 0; c < 3; c++)
        out[c] = gip__sat_u8_i32(gip__cs_descale(acc[c], 12) >> 6);
}

/* OpenCV's Luv2RGBinteger: Y in 14 bits from L by Lab's table (gip__lab_yf); up = 9 (u + 13 L
 * u'n) in 1/16 and vp = 1 / (4 (v + 13 L v'n)), clamped to +-1/4, in 2^-24, from the scaled Luv
 * in single precision (the values of OpenCV's tables LuToUp_b and LvToVp_b, computed here per
 * pixel); X and Z in 14 bits by its integer steps (C's truncating divisions), clamped to 0..2;
 * the matrix cvRound(4096 XYZ2sRGB_D65) brought to the 12-bit index of the inverse gamma table
 * (gip__lab_inv_gamma); writes r, g, b. */
GIP__CSF void gip__rgb_from_luv_u8(int l, int u, int v, uint8_t *rgb)
{
#if defined(__CUDACC__) && !defined(__CUDA_ARCH__)
    (void)l, (void)u, (void)v;
    rgb[0] = rgb[1] = rgb[2] = 0;
#else
    /* 13 u'n and 13 v'n of the white, as OpenCV rounds them: 52 Xn and 117 times
     * 1 / (Xn + 15 + 3 Zn), in single precision */
    const float un = 0x1.49346cp+1f, vn = 0x1.85a924p+2f;
    const int64_t base = 1 << 14;
    const float lf = gip__rn_div((float)(l * 100), 255.0f);
    const float uf = gip__rn_add(gip__rn_div(gip__rn_mul((float)u, 354.0f), 255.0f), -134.0f);
    const float vf = gip__rn_add(gip__rn_div(gip__rn_mul((float)v, 262.0f), 255.0f), -140.0f);
    const int32_t up =
        gip__round_f32(gip__rn_mul(gip__rn_mul(9.0f, gip__rn_add(uf, gip__rn_mul(lf, un))), 16.0f));
    /* a zero divisor gives an infinity, clamped as OpenCV clamps it */
    float q = gip__rn_div(0.25f, gip__rn_add(vf, gip__rn_mul(lf, vn)));
    q = q > 0.25f ? 0.25f : q < -0.25f ? -0.25f : q;
    const int32_t vp = gip__round_f32(gip__rn_mul(q, 16777216.0f));
    const int64_t y = gip__lab_yf[2 * l];
    const int64_t xv = (int64_t)up * vp;
    /* y x in 64 bits: the product overflows OpenCV's int for 6882 dark triples near v's pole,
     * where cv2 5.1's results are those of the whole product */
    int64_t x = y * (xv / base) / base;
    const int64_t zp = ((int64_t)(12 * 13 * 100 * 16) * (vp * l) - xv * 85) / base;
    const int32_t zm = (int32_t)(y * (zp - 5 * 255 * base) / base);
    int64_t z = zm / 256 + zm / 65536;
    x = x < 0 ? 0 : x > 2 * base ? 2 * base : x;
    z = z < 0 ? 0 : z > 2 * base ? 2 * base : z;
    const int32_t c[9] = {13273, -6296, -2042, -3970, 7684, 170, 228, -836, 4331};
    for (int i = 0; i < 3; i++) {
        int32_t o = gip__cs_descale(
            c[3 * i] * (int32_t)x + c[3 * i + 1] * (int32_t)y + c[3 * i + 2] * (int32_t)z, 14);
        o = o < 0 ? 0 : o > 4095 ? 4095 : o;
        rgb[i] = (uint8_t)gip__lab_inv_gamma[o];
    }
#endif
}

/* ---- Lab and Luv (D65, sRGB gamma) in single precision ----------------------------------------
 * The CIE formulas themselves: L 0..100, a and b, u and v unscaled; RGB 0..1 (clamped going in,
 * clipped coming out). OpenCV's f32 RGB to Lab and Luv interpolate a 33^3 table (its results
 * are off these formulas by up to 0.3 in L and 0.6 in a and b), its inverses follow the
 * formulas to 1e-4. The arithmetic runs in double and rounds once to float: a and b are
 * differences of cube roots near 1 (500 (f(x) - f(y))), where one float ulp of a cube root is
 * 3e-5 of a, and CUDA's powf and cbrtf are not glibc's; in double both backends land on the
 * same float. */
#define GIP__LAB_T (216.0 / 24389.0) /* (6/29)^3 */
#define GIP__LAB_K (24389.0 / 27.0)  /* (29/3)^3 */

GIP__CSF double gip__srgb_to_linear(double c)
{
    c = c < 0.0 ? 0.0 : c > 1.0 ? 1.0 : c;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

GIP__CSF double gip__linear_to_srgb(double c)
{
    c = c < 0.0 ? 0.0 : c > 1.0 ? 1.0 : c;
    return c <= 0.0031308 ? c * 12.92 : 1.055 * pow(c, 1.0 / 2.4) - 0.055;
}

GIP__CSF double gip__lab_f(double t)
{
    return t > GIP__LAB_T ? cbrt(t) : t * (841.0 / 108.0) + 16.0 / 116.0;
}

GIP__CSF double gip__lab_f_inv(double t)
{
    return t > 6.0 / 29.0 ? t * t * t : (t - 16.0 / 116.0) * (108.0 / 841.0);
}

/* sRGB primaries, D65 (the matrices of OpenCV's XYZ conversions) */
GIP__CSF void gip__xyz_from_rgb_d(double r, double g, double b, double *out)
{
    out[0] = 0.412453 * r + 0.357580 * g + 0.180423 * b;
    out[1] = 0.212671 * r + 0.715160 * g + 0.072169 * b;
    out[2] = 0.019334 * r + 0.119193 * g + 0.950227 * b;
}

GIP__CSF void gip__rgb_from_xyz_d(double x, double y, double z, double *rgb)
{
    rgb[0] = 3.240479 * x - 1.53715 * y - 0.498535 * z;
    rgb[1] = -0.969256 * x + 1.875991 * y + 0.041556 * z;
    rgb[2] = 0.055648 * x - 0.204043 * y + 1.057311 * z;
}

/* D65 white: X, Z (Y is 1), and u', v' of the white. */
#define GIP__D65_X 0.950456
#define GIP__D65_Z 1.088754
#define GIP__D65_U (4.0 * 0.950456 / (0.950456 + 15.0 + 3.0 * 1.088754))
#define GIP__D65_V (9.0 / (0.950456 + 15.0 + 3.0 * 1.088754))

GIP__CSF void gip__lab_from_rgb_f32(float r, float g, float b, int luv, float *out)
{
    double xyz[3];
    gip__xyz_from_rgb_d(gip__srgb_to_linear(r), gip__srgb_to_linear(g), gip__srgb_to_linear(b),
                        xyz);
    const double y = xyz[1], fy = gip__lab_f(y);
    const double l = y > GIP__LAB_T ? 116.0 * fy - 16.0 : GIP__LAB_K * y;
    out[0] = (float)l;
    if (!luv) {
        out[1] = (float)(500.0 * (gip__lab_f(xyz[0] / GIP__D65_X) - fy));
        out[2] = (float)(200.0 * (fy - gip__lab_f(xyz[2] / GIP__D65_Z)));
        return;
    }
    double d = xyz[0] + 15.0 * xyz[1] + 3.0 * xyz[2];
    d = d > (double)GIP__CS_EPS ? d : (double)GIP__CS_EPS;
    out[1] = (float)(13.0 * l * (4.0 * xyz[0] / d - GIP__D65_U));
    out[2] = (float)(13.0 * l * (9.0 * xyz[1] / d - GIP__D65_V));
}

/* Writes r, g, b. */
GIP__CSF void gip__rgb_from_lab_f32(float lf, float c1f, float c2f, int luv, float *rgb)
{
    const double l = lf, c1 = c1f, c2 = c2f;
    const double y = l <= 8.0 ? l / GIP__LAB_K : gip__lab_f_inv((l + 16.0) / 116.0);
    double x, z, lin[3];
    if (!luv) {
        const double fy = l <= 8.0 ? y * (841.0 / 108.0) + 16.0 / 116.0 : (l + 16.0) / 116.0;
        x = GIP__D65_X * gip__lab_f_inv(fy + c1 / 500.0);
        z = GIP__D65_Z * gip__lab_f_inv(fy - c2 / 200.0);
    } else if (l <= 0.0) {
        x = z = 0.0;
    } else {
        const double up = c1 / (13.0 * l) + GIP__D65_U, vp = c2 / (13.0 * l) + GIP__D65_V;
        const double k = vp != 0.0 ? y / (4.0 * vp) : 0.0;
        x = 9.0 * up * k;
        z = (12.0 - 3.0 * up - 20.0 * vp) * k;
    }
    gip__rgb_from_xyz_d(x, y, z, lin);
    for (int i = 0; i < 3; i++)
        rgb[i] = (float)gip__linear_to_srgb(lin[i]);
}

/* ---- OpenCV's vectorised u8 paths ----------------------------------------------------------- */

/* OpenCV 5 converts u8 HSV to RGB in blocks of four float vectors with this formula (its
 * compiler fusing 1 - s * h into one multiply-add) and truncates the results, and the rest of a
 * row with HSV2RGB_native, rounding them; RGB to HLS runs one float vector at a time (a fused
 * multiply-add, 360 added inside it) in chunks of 256 pixels and the rest of each chunk with the
 * scalar formula. Its results thus depend on a pixel's place in the row and on the vector width
 * of the CPU it dispatches to: these widths are those of its AVX-512 code (16 floats), which
 * x86-64 CPUs with AVX-512 run (cv2 5.1 on such a CPU matches gip on every pixel); on CPUs with
 * AVX2 only, cv2 runs 8-float vectors and its results differ from these by a level in some
 * pixels. */
#define GIP__CS_HSV_BLOCK 64
#define GIP__CS_HLS_CHUNK 256
#define GIP__CS_HLS_VEC 16

GIP__CSF float gip__cs_trunc(float x)
{
    return truncf(x);
}

/* HSV2RGB_simd: writes r, g, b. */
GIP__CSF void gip__rgb_from_hsv_vec(float h, float s, float v, float hscale, float *rgb)
{
    h = gip__rn_mul(h, hscale);
    float pre = gip__cs_trunc(h);
    h = gip__rn_sub(h, pre);
    float tab0 = v;
    float tab1 = gip__rn_mul(v, gip__rn_sub(1.0f, s));
    /* 1 - s * h as one fused multiply-add: the compiler contracts OpenCV's vector expression */
    float tab2 = gip__rn_mul(v, gip__rn_fma(-s, h, 1.0f));
    float tab3 = gip__rn_mul(v, gip__rn_fma(-s, gip__rn_sub(1.0f, h), 1.0f));
    float sector = gip__cs_trunc(gip__rn_mul(pre, 1.0f / 6.0f));
    sector = gip__rn_sub(pre, gip__rn_mul(sector, 6.0f));
    float b = sector < 2 ? tab1 : sector == 2 ? tab3 : sector <= 4 ? tab0 : tab2;
    float g = sector < 1 ? tab3 : sector <= 2 ? tab0 : sector == 3 ? tab2 : tab1;
    float r = sector < 1    ? tab0
              : sector == 1 ? tab2
              : sector <= 3 ? tab1
              : sector == 4 ? tab3
                            : tab0;
    rgb[0] = r;
    rgb[1] = g;
    rgb[2] = b;
}

/* RGB2HLS_f's vector process: hue (times hscale), l, s. */
GIP__CSF void gip__hls_from_rgb_vec(float r, float g, float b, float hscale, float *out)
{
    float mx, mn, h, part;
    gip__cs_hue_parts(r, g, b, &mx, &mn, &h, &part);
    float diff = gip__rn_sub(mx, mn), sum = gip__rn_add(mx, mn);
    float l = gip__rn_mul(sum, 0.5f);
    float s = gip__rn_div(diff, l < 0.5f ? sum : gip__rn_sub(2.0f, sum));
    h = gip__rn_mul(gip__rn_fma(h, gip__rn_div(60.0f, diff), part), hscale);
    if (!(diff > GIP__CS_EPS))
        h = 0.0f, s = 0.0f;
    out[0] = h;
    out[1] = l;
    out[2] = s;
}

/* RGB2HSV_f's vector process: hue (times hscale), s, v. */
GIP__CSF void gip__hsv_from_rgb_vec(float r, float g, float b, float hscale, float *out)
{
    float mx, mn, h, part;
    gip__cs_hue_parts(r, g, b, &mx, &mn, &h, &part);
    float diff = gip__rn_sub(mx, mn);
    float s = gip__rn_div(diff, gip__rn_add(mx < 0 ? -mx : mx, GIP__CS_EPS));
    float k = gip__rn_div(60.0f, gip__rn_add(diff, GIP__CS_EPS));
    out[0] = gip__rn_mul(gip__rn_fma(h, k, part), hscale);
    out[1] = s;
    out[2] = mx;
}

/* HLS2RGB_f's vector process: writes r, g, b. */
GIP__CSF void gip__rgb_from_hls_vec(float h, float l, float s, float hscale, float *rgb)
{
    float ls = gip__rn_mul(l, s);
    float e0 = l <= 0.5f ? ls : gip__rn_sub(s, ls);
    float raw = gip__rn_mul(h, hscale);
    float pre = gip__cs_trunc(raw);
    float hs = gip__rn_sub(raw, pre);
    float sector =
        gip__rn_sub(pre, gip__rn_mul(6.0f, gip__cs_trunc(gip__rn_mul(raw, 1.0f / 6.0f))));
    float e1 = gip__rn_add(hs, hs);
    float t0 = gip__rn_add(l, e0), t1 = gip__rn_sub(l, e0);
    float t2 = gip__rn_fma(-e0, e1, t0); /* contracted, as OpenCV's compiler does */
    float t3 = gip__rn_fma(e0, e1, t1);
    rgb[2] = sector < 2 ? t1 : sector <= 2 ? t3 : sector <= 4 ? t0 : t2;
    rgb[1] = sector < 1 ? t3 : sector <= 2 ? t0 : sector < 4 ? t2 : t1;
    rgb[0] = sector < 1 ? t0 : sector < 2 ? t2 : sector < 4 ? t1 : sector <= 4 ? t3 : t0;
}

/* ---- one pixel of a space code ------------------------------------------------------------- */

/* s: the source pixel (rgb_cn or 3 elements), d: the destination's; x: its column in a row of
 * width w (OpenCV's u8 HSV2RGB and RGB2HLS depend on it). */
GIP__CSF void gip__cs_pixel_u8(const gip__cs_params *p, const uint8_t *s, uint8_t *d, int64_t x,
                               int64_t w)
{
    const int bi = p->bidx;
    if (!p->inverse) {
        int r = s[bi ^ 2], g = s[1], b = s[bi];
        switch (p->space) {
        case GIP__CS_HSV:
        case GIP__CS_HSV_FULL:
            gip__hsv_from_rgb_u8(r, g, b, p->space == GIP__CS_HSV_FULL, d);
            return;
        case GIP__CS_HLS:
        case GIP__CS_HLS_FULL: {
            const float k = 1.0f / 255.0f;
            const float hs = p->space == GIP__CS_HLS ? 180.0f / 360.0f : 256.0f / 360.0f;
            const int64_t start = x / GIP__CS_HLS_CHUNK * GIP__CS_HLS_CHUNK;
            const int64_t dn = w - start < GIP__CS_HLS_CHUNK ? w - start : GIP__CS_HLS_CHUNK;
            float o[3];
            if (x - start < dn / GIP__CS_HLS_VEC * GIP__CS_HLS_VEC)
                gip__hls_from_rgb_vec(gip__rn_mul((float)r, k), gip__rn_mul((float)g, k),
                                      gip__rn_mul((float)b, k), hs, o);
            else
                gip__hls_from_rgb_f32(gip__rn_mul((float)r, k), gip__rn_mul((float)g, k),
                                      gip__rn_mul((float)b, k), hs, o);
            d[0] = gip__sat_u8_f32(o[0]);
            d[1] = gip__sat_u8_f32(gip__rn_mul(o[1], 255.0f));
            d[2] = gip__sat_u8_f32(gip__rn_mul(o[2], 255.0f));
            return;
        }
        case GIP__CS_YCRCB:
        case GIP__CS_YUV:
            gip__ycc_from_rgb_u8(r, g, b, p->space == GIP__CS_YUV, d);
            return;
        case GIP__CS_LAB:
            gip__lab_from_rgb_u8(r, g, b, d);
            return;
        case GIP__CS_LUV:
            gip__luv_from_rgb_u8(p->luv_lut, r, g, b, d);
            return;
        default:
            gip__xyz_from_rgb_u8(r, g, b, d);
            return;
        }
    }
    uint8_t rgb[3];
    switch (p->space) {
    case GIP__CS_HSV:
    case GIP__CS_HSV_FULL:
    case GIP__CS_HLS:
    case GIP__CS_HLS_FULL: {
        const float k = 1.0f / 255.0f;
        float o[3];
        /* OpenCV's inverse takes the full hue range as 255, not 256 */
        float hs =
            p->space == GIP__CS_HSV || p->space == GIP__CS_HLS ? 6.0f / 180.0f : 6.0f / 255.0f;
        const bool hsv = p->space <= GIP__CS_HSV_FULL;
        if (hsv && x < w / GIP__CS_HSV_BLOCK * GIP__CS_HSV_BLOCK) {
            gip__rgb_from_hsv_vec((float)s[0], gip__rn_mul((float)s[1], k),
                                  gip__rn_mul((float)s[2], k), hs, o);
            for (int i = 0; i < 3; i++) /* truncated, saturated */
                rgb[i] = gip__sat_u8_i32((int32_t)gip__cs_trunc(gip__rn_mul(o[i], 255.0f)));
            break;
        }
        if (hsv)
            gip__rgb_from_hsv_f32((float)s[0], gip__rn_mul((float)s[1], k),
                                  gip__rn_mul((float)s[2], k), hs, o);
        else
            gip__rgb_from_hls_f32((float)s[0], gip__rn_mul((float)s[1], k),
                                  gip__rn_mul((float)s[2], k), hs, o);
        for (int i = 0; i < 3; i++)
            rgb[i] = gip__sat_u8_f32(gip__rn_mul(o[i], 255.0f));
        break;
    }
    case GIP__CS_YCRCB:
    case GIP__CS_YUV:
        gip__rgb_from_ycc_u8(s[0], s[1], s[2], p->space == GIP__CS_YUV, rgb);
        break;
    case GIP__CS_LAB:
        gip__rgb_from_lab_u8(s[0], s[1], s[2], rgb);
        break;
    case GIP__CS_LUV:
        gip__rgb_from_luv_u8(s[0], s[1], s[2], rgb);
        break;
    default:
        gip__rgb_from_xyz_u8(s[0], s[1], s[2], rgb);
        break;
    }
    d[bi ^ 2] = rgb[0];
    d[1] = rgb[1];
    d[bi] = rgb[2];
    if (p->rgb_cn == 4)
        d[3] = 255;
}

GIP__CSF void gip__cs_pixel_f32(const gip__cs_params *p, const float *s, float *d, int64_t x,
                                int64_t w)
{
    const int bi = p->bidx;
    /* OpenCV's f32 HSV and HLS code runs vectors of 16 floats over a row, then its scalar
     * formula over the rest (where it converts several rows of a contiguous image as one, its
     * rows' ends fall elsewhere: f32 results then differ from it by an ulp or so) */
    const bool vec = x < w / GIP__CS_HLS_VEC * GIP__CS_HLS_VEC;
    if (!p->inverse) {
        float r = s[bi ^ 2], g = s[1], b = s[bi];
        switch (p->space) {
        case GIP__CS_HSV:
        case GIP__CS_HSV_FULL:
            if (vec)
                gip__hsv_from_rgb_vec(r, g, b, 1.0f, d);
            else
                gip__hsv_from_rgb_f32(r, g, b, 1.0f, d);
            return;
        case GIP__CS_HLS:
        case GIP__CS_HLS_FULL:
            if (vec)
                gip__hls_from_rgb_vec(r, g, b, 1.0f, d);
            else
                gip__hls_from_rgb_f32(r, g, b, 1.0f, d);
            return;
        case GIP__CS_YCRCB:
        case GIP__CS_YUV:
            gip__ycc_from_rgb_f32(r, g, b, p->space == GIP__CS_YUV, d);
            return;
        case GIP__CS_LAB:
        case GIP__CS_LUV:
            gip__lab_from_rgb_f32(r, g, b, p->space == GIP__CS_LUV, d);
            return;
        default:
            gip__xyz_from_rgb_f32(r, g, b, d);
            return;
        }
    }
    float rgb[3];
    switch (p->space) {
    case GIP__CS_HSV:
    case GIP__CS_HSV_FULL:
        if (vec)
            gip__rgb_from_hsv_vec(s[0], s[1], s[2], 6.0f / 360.0f, rgb);
        else
            gip__rgb_from_hsv_f32(s[0], s[1], s[2], 6.0f / 360.0f, rgb);
        break;
    case GIP__CS_HLS:
    case GIP__CS_HLS_FULL:
        if (vec)
            gip__rgb_from_hls_vec(s[0], s[1], s[2], 6.0f / 360.0f, rgb);
        else
            gip__rgb_from_hls_f32(s[0], s[1], s[2], 6.0f / 360.0f, rgb);
        break;
    case GIP__CS_YCRCB:
    case GIP__CS_YUV:
        gip__rgb_from_ycc_f32(s[0], s[1], s[2], p->space == GIP__CS_YUV, rgb);
        break;
    case GIP__CS_LAB:
    case GIP__CS_LUV:
        gip__rgb_from_lab_f32(s[0], s[1], s[2], p->space == GIP__CS_LUV, rgb);
        break;
    default:
        gip__rgb_from_xyz_f32(s[0], s[1], s[2], rgb);
        break;
    }
    d[bi ^ 2] = rgb[0];
    d[1] = rgb[1];
    d[bi] = rgb[2];
    if (p->rgb_cn == 4)
        d[3] = 1.0f;
}

/* u16: YCrCb, YUV and XYZ (the spaces OpenCV offers for u16), its integer code as for u8. */
GIP__CSF void gip__cs_pixel_u16(const gip__cs_params *p, const uint16_t *s, uint16_t *d)
{
    const int bi = p->bidx;
    const int ycc = p->space == GIP__CS_YCRCB || p->space == GIP__CS_YUV;
    const int yuv = p->space == GIP__CS_YUV;
    int32_t o[3];
    if (!p->inverse) {
        const int r = s[bi ^ 2], g = s[1], b = s[bi];
        if (ycc)
            gip__ycc_from_rgb_i(r, g, b, yuv, 32768, o);
        else
            gip__xyz_mat_i(r, g, b, 0, o);
        for (int i = 0; i < 3; i++)
            d[i] = gip__sat_u16_i32(o[i]);
        return;
    }
    if (ycc)
        gip__rgb_from_ycc_i(s[0], s[1], s[2], yuv, 32768, o);
    else
        gip__xyz_mat_i(s[0], s[1], s[2], 1, o);
    d[bi ^ 2] = gip__sat_u16_i32(o[0]);
    d[1] = gip__sat_u16_i32(o[1]);
    d[bi] = gip__sat_u16_i32(o[2]);
    if (p->rgb_cn == 4)
        d[3] = 65535;
}

#ifdef __cplusplus
}
#endif
#endif
