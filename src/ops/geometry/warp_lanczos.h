/* SPDX-License-Identifier: MIT */
/* Lanczos-4 warps and remap, as OpenCV computes them (its remap tables): the position in 1/32 of a
 * pixel (the warps' fixed-point mapping: affine in integers from the inverse in double,
 * perspective in double by blocks of OpenCV's size; remap's float maps rounded), then an 8x8
 * window weighed by the tables of OpenCV's initInterTab2D (u8: 15-bit integer weights summing to
 * 2^15; u16 and f32: the float weights, rows added left to right). Written once for the CPU and
 * the CUDA backend. */
#ifndef GIP_OPS_WARP_LANCZOS_H
#define GIP_OPS_WARP_LANCZOS_H

#include "ops/geometry/warp.h"

#if defined(__CUDA_ARCH__)
#define GIP__LZ_DMUL(a, b) __dmul_rn((a), (b))
#define GIP__LZ_DADD(a, b) __dadd_rn((a), (b))
#else
#define GIP__LZ_DMUL(a, b) ((a) * (b))
#define GIP__LZ_DADD(a, b) ((a) + (b))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The tables: entry 32 fy + fx holds 64 weights, row-major over the window's rows. */
typedef struct gip__lz_tabs {
    const float *f;
    const int16_t *i;
} gip__lz_tabs;

/* The host's tables (computed once, then shared). */
void gip__lanczos_tabs(gip__lz_tabs *t);
/* CPU: the Lanczos warp of w (m1 NULL), or remap from float maps m1, m2 (fixed 0) or
 * fixed-point pairs m1 with fractions m2 or none (fixed 1); views checked by the caller. */
void gip__lanczos_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, const gip__warp *w,
                      const gip_image *m1, const gip_image *m2, int32_t fixed);
#ifdef GIP_HAVE_CUDA
/* The tables on ctx's device (uploaded once per device, kept for the process). */
gip_status gip__lanczos_tabs_cuda(gip_context *ctx, gip__lz_tabs *t);
/* gip__lanczos_cpu() on device views, queued on the context's stream. */
gip_status gip__lanczos_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                             const gip__warp *w, const gip_image *m1, const gip_image *m2,
                             int32_t fixed);
#endif

/* OpenCV's saturate_cast<int>(double): half to even, held within int32. */
GIP__WP_HD int64_t gip__lz_round(double v)
{
    if (!(v > -2147483648.5 && v < 2147483647.5))
        return v > 0 ? 2147483647 : -((int64_t)1 << 31);
#if defined(__CUDA_ARCH__)
    return (int64_t)__double2ll_rn(v);
#else
    return (int64_t)nearbyint(v);
#endif
}

/* cvRound of a float (x86: -2^31 for a value not finite or beyond int32). */
GIP__WP_HD int64_t gip__lz_roundf(float v)
{
    if (!(v >= -2147483648.0f && v < 2147483648.0f))
        return -((int64_t)1 << 31);
    return (int64_t)gip__round_f32(v);
}

/* A position in 1/32 pixel into the window's integer corner (saturated to s16, as OpenCV's
 * maps) and its fraction index 32 fy + fx. */
GIP__WP_HD void gip__lz_split(int64_t X, int64_t Y, int32_t *ix, int32_t *iy, int32_t *f)
{
    const int64_t a = X >> 5, b = Y >> 5;
    *ix = (int32_t)(a < -32768 ? -32768 : a > 32767 ? 32767 : a);
    *iy = (int32_t)(b < -32768 ? -32768 : b > 32767 ? 32767 : b);
    *f = (int32_t)((Y & 31) * 32 + (X & 31));
}

/* A perspective warp's terms at a block's origin (ox, dy): OpenCV's X0, Y0, W0 in double. */
GIP__WP_HD void gip__lz_persp_origin(const double *m, double ox, double dy, double *X0, double *Y0,
                                     double *W0)
{
    *X0 = GIP__LZ_DADD(GIP__LZ_DADD(GIP__LZ_DMUL(m[0], ox), GIP__LZ_DMUL(m[1], dy)), m[2]);
    *Y0 = GIP__LZ_DADD(GIP__LZ_DADD(GIP__LZ_DMUL(m[3], ox), GIP__LZ_DMUL(m[4], dy)), m[5]);
    *W0 = GIP__LZ_DADD(GIP__LZ_DADD(GIP__LZ_DMUL(m[6], ox), GIP__LZ_DMUL(m[7], dy)), m[8]);
}

/* The position of column x1 of a perspective block from its origin's terms. */
GIP__WP_HD void gip__lz_persp_pos(const double *m, double X0, double Y0, double W0, double x1,
                                  int32_t *ix, int32_t *iy, int32_t *f)
{
    double W = GIP__LZ_DADD(W0, GIP__LZ_DMUL(m[6], x1));
    W = W != 0 ? 32.0 / W : 0;
    double fX = GIP__LZ_DMUL(GIP__LZ_DADD(X0, GIP__LZ_DMUL(m[0], x1)), W);
    double fY = GIP__LZ_DMUL(GIP__LZ_DADD(Y0, GIP__LZ_DMUL(m[3], x1)), W);
    fX = fX < -2147483648.0 ? -2147483648.0 : fX > 2147483647.0 ? 2147483647.0 : fX;
    fY = fY < -2147483648.0 ? -2147483648.0 : fY > 2147483647.0 ? 2147483647.0 : fY;
    gip__lz_split(gip__lz_round(fX), gip__lz_round(fY), ix, iy, f);
}

/* The fixed-point position of output pixel (x, y) of a dw-wide warp (OpenCV's WarpAffineInvoker
 * and WarpPerspectiveInvoker). */
GIP__WP_HD void gip__lz_pos_warp(const gip__warp *w, int64_t dw, int64_t dh, int64_t x, int64_t y,
                                 int32_t *ix, int32_t *iy, int32_t *f)
{
    const double *m = w->md;
    const double dx = (double)x, dy = (double)y;
    if (!w->persp) {
        const int64_t X0 =
            gip__lz_round(GIP__LZ_DMUL(GIP__LZ_DADD(GIP__LZ_DMUL(m[1], dy), m[2]), 1024.0)) + 16;
        const int64_t Y0 =
            gip__lz_round(GIP__LZ_DMUL(GIP__LZ_DADD(GIP__LZ_DMUL(m[4], dy), m[5]), 1024.0)) + 16;
        const int64_t ad = gip__lz_round(GIP__LZ_DMUL(GIP__LZ_DMUL(m[0], dx), 1024.0));
        const int64_t bd = gip__lz_round(GIP__LZ_DMUL(GIP__LZ_DMUL(m[3], dx), 1024.0));
        gip__lz_split((X0 + ad) >> 5, (Y0 + bd) >> 5, ix, iy, f);
        return;
    }
    /* OpenCV's blocks: bw0 columns wide, their origin in double, the column in it added */
    const int64_t bh0 = dh < 16 ? dh : 16;
    const int64_t bw0 = 1024 / bh0 < dw ? 1024 / bh0 : dw;
    const int64_t bx = x / bw0 * bw0;
    double X0, Y0, W0;
    gip__lz_persp_origin(m, (double)bx, dy, &X0, &Y0, &W0);
    gip__lz_persp_pos(m, X0, Y0, W0, (double)(x - bx), ix, iy, f);
}

/* Output pixel x of row drow from the window at (ix, iy) with fraction index f (OpenCV's
 * remapLanczos4: the transparent border keeps dst where the position itself is outside and
 * reads the rest as reflect101). */
GIP__WP_HD void gip__lz_sample(const gip__warp *w, gip__lz_tabs t, const uint8_t *src,
                               int64_t sstride, uint8_t *drow, int64_t x, int32_t ix, int32_t iy,
                               int32_t f)
{
    const int32_t cn = w->cn;
    const gip_dtype dt = w->dtype;
    const int64_t sw = w->sw, sh = w->sh;
    const int64_t sx = (int64_t)ix - 3, sy = (int64_t)iy - 3;
    int64_t tx[8], ty[8];
    const int inside = sx >= 0 && sx < sw - 7 && sy >= 0 && sy < sh - 7;
    int32_t border = w->border;
    if (!inside) {
        if (border == GIP__BORDER_TRANSPARENT) {
            if (ix < 0 || ix >= sw || iy < 0 || iy >= sh)
                return;
            border = GIP_BORDER_REFLECT_101;
        }
        if (border == GIP_BORDER_CONSTANT && (sx >= sw || sx + 8 <= 0 || sy >= sh || sy + 8 <= 0)) {
            for (int32_t c = 0; c < cn; c++)
                gip__geo_storef(drow, x * cn + c, dt, w->bval[c]);
            return;
        }
    }
    if (inside) {
        for (int k = 0; k < 8; k++) {
            tx[k] = sx + k;
            ty[k] = sy + k;
        }
    } else {
        gip__wp_taps(sx, 8, sw, border, tx);
        gip__wp_taps(sy, 8, sh, border, ty);
    }
    const int16_t *wi = t.i + (int64_t)f * 64;
    const float *wf = t.f + (int64_t)f * 64;
    for (int32_t c = 0; c < cn; c++) {
        if (dt == GIP_U8) {
            int32_t acc = 0;
            for (int r = 0; r < 8; r++)
                for (int k = 0; k < 8; k++) {
                    const int32_t p = tx[k] >= 0 && ty[r] >= 0
                                          ? src[ty[r] * sstride + tx[k] * cn + c]
                                          : (int32_t)w->bval[c];
                    acc += p * wi[r * 8 + k];
                }
            drow[x * cn + c] = gip__sat_u8_i32((acc + (1 << 14)) >> 15);
        } else {
            float sum = 0.f;
            for (int r = 0; r < 8; r++) {
                float row = 0.f;
                for (int k = 0; k < 8; k++) {
                    const float p = tx[k] >= 0 && ty[r] >= 0
                                        ? gip__geo_loadf(src + ty[r] * sstride, tx[k] * cn + c, dt)
                                        : w->bval[c];
                    row = k ? GIP__WP_ADD(row, GIP__WP_MUL(p, wf[r * 8 + k]))
                            : GIP__WP_MUL(p, wf[r * 8 + k]);
                }
                sum = GIP__WP_ADD(sum, row);
            }
            gip__geo_storef(drow, x * cn + c, dt, sum);
        }
    }
}

#ifdef __cplusplus
}
#endif
#endif
