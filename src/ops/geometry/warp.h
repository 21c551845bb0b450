/* SPDX-License-Identifier: MIT */
/* The warps (warp_affine, warp_perspective): OpenCV 5's single-precision mapping of an output
 * pixel to the source (the inverse matrix in float, x * m0 fused into (float)(y * m1) + m2, the
 * perspective divide), nearest (rounded half to even) and bilinear sampling (fused
 * multiply-adds) with every border mode, written once for the CPU and the CUDA backend. */
#ifndef GIP_OPS_WARP_H
#define GIP_OPS_WARP_H

#include "border.h"
#include "gip/geometry.h"
#include "internal.h"
#include "ops/geometry/geo_elem.h"

#if defined(__CUDACC__)
#define GIP__WP_HD __host__ __device__ __forceinline__
#else
#define GIP__WP_HD static inline
#endif

#if defined(__CUDA_ARCH__)
#define GIP__WP_FMA(a, b, c) __fmaf_rn((a), (b), (c))
#define GIP__WP_MUL(a, b) __fmul_rn((a), (b))
#define GIP__WP_ADD(a, b) __fadd_rn((a), (b))
#define GIP__WP_SUB(a, b) __fsub_rn((a), (b))
#define GIP__WP_DIV(a, b) __fdiv_rn((a), (b))
#define GIP__WP_FLOOR(a) floorf(a)
#else
#include <math.h>
#define GIP__WP_FMA(a, b, c) fmaf((a), (b), (c))
#define GIP__WP_MUL(a, b) ((a) * (b))
#define GIP__WP_ADD(a, b) ((a) + (b))
#define GIP__WP_SUB(a, b) ((a) - (b))
#define GIP__WP_DIV(a, b) ((a) / (b))
#define GIP__WP_FLOOR(a) floorf(a)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* GIP_BORDER_* plus OpenCV's BORDER_TRANSPARENT: outside pixels keep dst's value. */
#define GIP__BORDER_TRANSPARENT 5

typedef struct gip__warp {
    float m[9];     /* the inverse map (dst -> src), rows of 3; m[6..8] for perspective */
    double md[9];   /* the same in double (Lanczos: OpenCV's fixed-point mapping) */
    int32_t persp;  /* perspective (divide by m6 x + m7 y + m8) */
    int32_t interp; /* GIP_INTER_NEAREST, LINEAR, CUBIC or LANCZOS4 */
    int32_t border; /* a gip_border or GIP__BORDER_TRANSPARENT */
    int32_t cn;
    gip_dtype dtype;
    int64_t sw, sh;
    float bval[4];   /* the constant border value, saturated to the dtype as OpenCV does */
    int64_t vec_end; /* output columns OpenCV's 16-pixel vector loop computes (the rest of a row
                        is its scalar tail, whose coordinates round differently) */
} gip__warp;

/* Builds w from the forward or inverse matrix (OpenCV's inversion in double), the sizes and the
 * border. mat has 6 (affine) or 9 (perspective) numbers. */
gip_status gip__warp_setup(gip_context *ctx, gip__warp *w, const double *mat, int32_t persp,
                           int32_t flags, const gip_border_spec *border, int32_t transparent,
                           const gip_image *src, const char *op);

/* The checks of src and dst that warps and remap share after the pair's: an image dtype, the
 * same type, no overlap, sides below 2^30. */
gip_status gip__warp_check_images(gip_context *ctx, const gip_image *src, const gip_image *dst,
                                  const char *op);

/* Checks the views and runs w from src into dst. */
gip_status gip__warp_run(gip_context *ctx, const gip_image *src, gip_image *dst, const gip__warp *w,
                         const char *op);

/* gip_warp_affine() (persp 0, mat of 6 numbers) and gip_warp_perspective() (persp 1, 9): w
 * built from mat and params (NULL: GIP_WARP_PARAMS_DEFAULT), then run from src into dst. */
gip_status gip__warp_matrix(gip_context *ctx, const gip_image *src, gip_image *dst,
                            const double *mat, int32_t persp, const gip_warp_params *params,
                            const char *op);

/* CPU: dst(x, y) = sample(src, mapx(x, y), mapy(x, y)) with w's interpolation and border, the
 * views checked by the caller (remap). */
void gip__warp_remap_cpu(gip_context *ctx, const gip_image *src, gip_image *dst,
                         const gip_image *mapx, const gip_image *mapy, const gip__warp *w);

gip_status gip__warp_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                          const gip__warp *w);

/* floor or round of a coordinate as an integer far outside when it is not finite or huge (as
 * OpenCV's conversions give INT_MIN there). */
GIP__WP_HD int64_t gip__wp_int(float v, int round)
{
    if (!(v > -1e9f && v < 1e9f))
        return -((int64_t)1 << 31);
    return round ? (int64_t)gip__round_f32(v) : (int64_t)GIP__WP_FLOOR(v);
}

/* Where a tap outside the image reads, for the non-constant borders (a 1-pixel side repeats). */
GIP__WP_HD int64_t gip__wp_wrap(int64_t p, int64_t n, int32_t border)
{
    return gip__border_index(p, n, n <= 1 ? GIP_BORDER_REPLICATE : (gip_border)border);
}

/* OpenCV's interpolateCubic (a = -0.75) in single precision. */
GIP__WP_HD void gip__wp_cubic_coeffs(float x, float *c)
{
    const float A = -0.75f, x1 = GIP__WP_ADD(x, 1.f), y = GIP__WP_SUB(1.f, x);
    c[0] = GIP__WP_SUB(
        GIP__WP_MUL(GIP__WP_ADD(GIP__WP_MUL(GIP__WP_SUB(GIP__WP_MUL(A, x1), 5 * A), x1), 8 * A),
                    x1),
        4 * A);
    c[1] =
        GIP__WP_ADD(GIP__WP_MUL(GIP__WP_MUL(GIP__WP_SUB(GIP__WP_MUL(A + 2, x), A + 3), x), x), 1.f);
    c[2] =
        GIP__WP_ADD(GIP__WP_MUL(GIP__WP_MUL(GIP__WP_SUB(GIP__WP_MUL(A + 2, y), A + 3), y), y), 1.f);
    c[3] = GIP__WP_SUB(GIP__WP_SUB(GIP__WP_SUB(1.f, c[0]), c[1]), c[2]);
}

/* Bicubic: rows of 4 taps weighted left to right, then the 4 row sums (OpenCV 5's warps;
 * single precision, unfused). */
GIP__WP_HD void gip__wp_cubic(const gip__warp *w, const uint8_t *src, int64_t sstride,
                              uint8_t *drow, int64_t x, int64_t ix, int64_t iy, float fx, float fy)
{
    const int32_t cn = w->cn, border = w->border;
    const gip_dtype dt = w->dtype;
    const int64_t sw = w->sw, sh = w->sh;
    if ((border == GIP_BORDER_CONSTANT || border == GIP__BORDER_TRANSPARENT) &&
        (ix + 2 < 0 || ix - 1 >= sw || iy + 2 < 0 || iy - 1 >= sh)) {
        if (border == GIP_BORDER_CONSTANT)
            for (int32_t c = 0; c < cn; c++)
                gip__geo_storef(drow, x * cn + c, dt, w->bval[c]);
        return;
    }
    float wx[4], wy[4];
    gip__wp_cubic_coeffs(fx, wx);
    gip__wp_cubic_coeffs(fy, wy);
    for (int32_t c = 0; c < cn; c++) {
        const float keep = gip__geo_loadf(drow, x * cn + c, dt);
        float v = 0.f;
        for (int i = 0; i < 4; i++) {
            const int64_t ty = iy - 1 + i;
            float r = 0.f;
            for (int j = 0; j < 4; j++) {
                const int64_t tx = ix - 1 + j;
                float p;
                if (tx >= 0 && tx < sw && ty >= 0 && ty < sh)
                    p = gip__geo_loadf(src + ty * sstride, tx * cn + c, dt);
                else if (border == GIP_BORDER_CONSTANT)
                    p = w->bval[c];
                else if (border == GIP__BORDER_TRANSPARENT)
                    p = keep;
                else
                    p = gip__geo_loadf(src + gip__wp_wrap(ty, sh, border) * sstride,
                                       gip__wp_wrap(tx, sw, border) * cn + c, dt);
                r = j ? GIP__WP_ADD(r, GIP__WP_MUL(wx[j], p)) : GIP__WP_MUL(wx[j], p);
            }
            v = i ? GIP__WP_ADD(v, GIP__WP_MUL(wy[i], r)) : GIP__WP_MUL(wy[i], r);
        }
        gip__geo_storef(drow, x * cn + c, dt, v);
    }
}

/* Output pixel x of row drow from source pixel (ix, iy) (nearest), with the border. */
GIP__WP_HD void gip__wp_nearest(const gip__warp *w, const uint8_t *src, int64_t sstride,
                                uint8_t *drow, int64_t x, int64_t ix, int64_t iy)
{
    const int32_t cn = w->cn;
    const gip_dtype dt = w->dtype;
    if (ix < 0 || ix >= w->sw || iy < 0 || iy >= w->sh) {
        if (w->border == GIP__BORDER_TRANSPARENT)
            return;
        if (w->border == GIP_BORDER_CONSTANT) {
            for (int32_t c = 0; c < cn; c++)
                gip__geo_storef(drow, x * cn + c, dt, w->bval[c]);
            return;
        }
        ix = gip__wp_wrap(ix, w->sw, w->border);
        iy = gip__wp_wrap(iy, w->sh, w->border);
    }
    for (int32_t c = 0; c < cn; c++)
        gip__geo_storef(drow, x * cn + c, dt, gip__geo_loadf(src + iy * sstride, ix * cn + c, dt));
}

/* The places of n taps from t0 on an axis of n_img pixels, when some may lie outside: the border
 * maps them inside, or (constant) marks them -1. */
GIP__WP_HD void gip__wp_taps(int64_t t0, int k, int64_t n_img, int32_t border, int64_t *t)
{
    for (int i = 0; i < k; i++) {
        const int64_t p = t0 + i;
        t[i] = border == GIP_BORDER_CONSTANT ? (p >= 0 && p < n_img ? p : -1)
                                             : gip__wp_wrap(p, n_img, border);
    }
}

/* Output pixel x of row drow from source position (sx, sy): nearest or bilinear with the
 * border (the arithmetic of OpenCV 5's warps and remap). */
GIP__WP_HD void gip__warp_sample(const gip__warp *w, const uint8_t *src, int64_t sstride,
                                 uint8_t *drow, int64_t x, float sx, float sy)
{
    const int32_t cn = w->cn;
    const gip_dtype dt = w->dtype;
    const int64_t sw = w->sw, sh = w->sh;
    const int32_t border = w->border;
    if (w->interp == GIP_INTER_NEAREST) {
        gip__wp_nearest(w, src, sstride, drow, x, gip__wp_int(sx, 1), gip__wp_int(sy, 1));
        return;
    }
    if (w->interp == GIP_INTER_CUBIC && border != GIP_BORDER_CONSTANT &&
        border != GIP__BORDER_TRANSPARENT) {
        /* OpenCV 5's bicubic holds the position within [-m, 2m] on each axis, m the side or 16
         * if larger, under the borders that repeat the image (far positions then read the
         * image there, not their own reflection). */
        const float mx = (float)(sw > 16 ? sw : 16), my = (float)(sh > 16 ? sh : 16);
        sx = sx < -mx ? -mx : sx > 2 * mx ? 2 * mx : sx;
        sy = sy < -my ? -my : sy > 2 * my ? 2 * my : sy;
    }
    const int64_t ix = gip__wp_int(sx, 0), iy = gip__wp_int(sy, 0);
    const float fx = GIP__WP_SUB(sx, (float)ix), fy = GIP__WP_SUB(sy, (float)iy);
    if (w->interp == GIP_INTER_CUBIC) {
        gip__wp_cubic(w, src, sstride, drow, x, ix, iy, fx, fy);
        return;
    }
    const int inside = ix >= 0 && ix < sw - 1 && iy >= 0 && iy < sh - 1;
    if (!inside && (border == GIP_BORDER_CONSTANT || border == GIP__BORDER_TRANSPARENT) &&
        (ix < -1 || ix >= sw || iy < -1 || iy >= sh)) {
        if (border == GIP_BORDER_CONSTANT)
            for (int32_t c = 0; c < cn; c++)
                gip__geo_storef(drow, x * cn + c, dt, w->bval[c]);
        return;
    }
    for (int32_t c = 0; c < cn; c++) {
        float p[4];
        for (int k = 0; k < 4; k++) {
            const int64_t tx = ix + (k & 1), ty = iy + (k >> 1);
            if (tx >= 0 && tx < sw && ty >= 0 && ty < sh)
                p[k] = gip__geo_loadf(src + ty * sstride, tx * cn + c, dt);
            else if (border == GIP_BORDER_CONSTANT)
                p[k] = w->bval[c];
            else if (border == GIP__BORDER_TRANSPARENT)
                p[k] = gip__geo_loadf(drow, x * cn + c, dt);
            else
                p[k] = gip__geo_loadf(src + gip__wp_wrap(ty, sh, border) * sstride,
                                      gip__wp_wrap(tx, sw, border) * cn + c, dt);
        }
        const float v0 = GIP__WP_FMA(fx, GIP__WP_SUB(p[1], p[0]), p[0]);
        const float v1 = GIP__WP_FMA(fx, GIP__WP_SUB(p[3], p[2]), p[2]);
        gip__geo_storef(drow, x * cn + c, dt, GIP__WP_FMA(fy, GIP__WP_SUB(v1, v0), v0));
    }
}

/* Output pixel x of row drow from a fixed-point map entry, as cv2.remap with CV_16SC2 maps
 * (cv2.convertMaps): the integer position (sx, sy) and fxy = 32 * fy + fx in 1/32 of a pixel
 * (-1: no fractions). Nearest reads (sx + (fx >= 16), sy + (fy >= 16)); bilinear weighs the
 * four taps by OpenCV's table (u8: the integer weights (32 - fx) (32 - fy) * 32 ... summed with
 * 1 << 14 and shifted by 15; u16 and f32: the float weights (1 - fx / 32) (1 - fy / 32) ...
 * added left to right). A pixel with a tap outside the image keeps dst's value under the
 * transparent border (cv2 reads outside the source for some of them). */
GIP__WP_HD void gip__warp_sample_fixed(const gip__warp *w, const uint8_t *src, int64_t sstride,
                                       uint8_t *drow, int64_t x, int64_t sx, int64_t sy,
                                       int32_t fxy)
{
    const int32_t cn = w->cn;
    const gip_dtype dt = w->dtype;
    const int64_t sw = w->sw, sh = w->sh;
    const int32_t border = w->border;
    const int32_t fx = fxy >= 0 ? fxy & 31 : 0, fy = fxy >= 0 ? (fxy >> 5) & 31 : 0;
    if (w->interp == GIP_INTER_NEAREST) {
        gip__wp_nearest(w, src, sstride, drow, x, sx + (fx >= 16), sy + (fy >= 16));
        return;
    }
    const int inside = sx >= 0 && sx < sw - 1 && sy >= 0 && sy < sh - 1;
    if (!inside) {
        if (border == GIP__BORDER_TRANSPARENT)
            return;
        if (border == GIP_BORDER_CONSTANT && (sx >= sw || sx + 1 < 0 || sy >= sh || sy + 1 < 0)) {
            for (int32_t c = 0; c < cn; c++)
                gip__geo_storef(drow, x * cn + c, dt, w->bval[c]);
            return;
        }
    }
    /* The taps' places: -1 for one outside under the constant border. */
    int64_t tx[2] = {sx, sx + 1}, ty[2] = {sy, sy + 1};
    if (!inside) {
        gip__wp_taps(sx, 2, sw, border, tx);
        gip__wp_taps(sy, 2, sh, border, ty);
    }
    for (int32_t c = 0; c < cn; c++) {
        float p[4];
        for (int k = 0; k < 4; k++) {
            const int64_t px = tx[k & 1], py = ty[k >> 1];
            p[k] = px >= 0 && py >= 0 ? gip__geo_loadf(src + py * sstride, px * cn + c, dt)
                                      : w->bval[c];
        }
        if (dt == GIP_U8) {
            const int32_t a = 32 - fx, b = 32 - fy;
            const int32_t acc = (int32_t)p[0] * (a * b * 32) + (int32_t)p[1] * (fx * b * 32) +
                                (int32_t)p[2] * (a * fy * 32) + (int32_t)p[3] * (fx * fy * 32);
            drow[x * cn + c] = (uint8_t)((acc + (1 << 14)) >> 15);
        } else {
            const float a = (float)fx * 0.03125f, b = (float)fy * 0.03125f;
            const float a1 = GIP__WP_SUB(1.f, a), b1 = GIP__WP_SUB(1.f, b);
            float v = GIP__WP_MUL(p[0], GIP__WP_MUL(b1, a1));
            v = GIP__WP_ADD(v, GIP__WP_MUL(p[1], GIP__WP_MUL(b1, a)));
            v = GIP__WP_ADD(v, GIP__WP_MUL(p[2], GIP__WP_MUL(b, a1)));
            v = GIP__WP_ADD(v, GIP__WP_MUL(p[3], GIP__WP_MUL(b, a)));
            gip__geo_storef(drow, x * cn + c, dt, v);
        }
    }
}

/* Output pixel (x, y) of row drow. */
GIP__WP_HD void gip__warp_px(const gip__warp *w, const uint8_t *src, int64_t sstride, uint8_t *drow,
                             int64_t x, int64_t y)
{
    const float fxd = (float)x, fyd = (float)y;
    float sx, sy, ww = 1.f;
    if (x < w->vec_end) { /* OpenCV's vector lanes: x * m0 fused into (y * m1 + m2) */
        sx = GIP__WP_FMA(w->m[0], fxd, GIP__WP_ADD(GIP__WP_MUL(fyd, w->m[1]), w->m[2]));
        sy = GIP__WP_FMA(w->m[3], fxd, GIP__WP_ADD(GIP__WP_MUL(fyd, w->m[4]), w->m[5]));
        if (w->persp)
            ww = GIP__WP_FMA(w->m[6], fxd, GIP__WP_ADD(GIP__WP_MUL(fyd, w->m[7]), w->m[8]));
    } else { /* its scalar tail: (x * m0 fused into y * m1) + m2 */
        sx = GIP__WP_ADD(GIP__WP_FMA(fxd, w->m[0], GIP__WP_MUL(fyd, w->m[1])), w->m[2]);
        sy = GIP__WP_ADD(GIP__WP_FMA(fxd, w->m[3], GIP__WP_MUL(fyd, w->m[4])), w->m[5]);
        if (w->persp)
            ww = GIP__WP_ADD(GIP__WP_FMA(fxd, w->m[6], GIP__WP_MUL(fyd, w->m[7])), w->m[8]);
    }
    if (w->persp) {
        sx = GIP__WP_DIV(sx, ww);
        sy = GIP__WP_DIV(sy, ww);
    }
    gip__warp_sample(w, src, sstride, drow, x, sx, sy);
}

#ifdef __cplusplus
}
#endif
#endif
