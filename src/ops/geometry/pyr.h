/* SPDX-License-Identifier: MIT */
/* pyr_down and pyr_up (cv2.pyrDown, cv2.pyrUp): the 5-tap [1 4 6 4 1] Gaussian with OpenCV's
 * arithmetic for one output element, written once for the CPU and the CUDA backend: integer sums
 * rounded by (v + 128) >> 8 (down) or (v + 32) >> 6 (up) for u8 and u16, OpenCV's sum order
 * times 1/256 or 1/64 in single precision for f32. */
#ifndef GIP_OPS_PYR_H
#define GIP_OPS_PYR_H

#include "border.h"
#include "internal.h"
#include "ops/geometry/geo_elem.h"

#if defined(__CUDACC__)
#define GIP__PY_HD __host__ __device__ __forceinline__
#else
#define GIP__PY_HD static inline
#endif

#if defined(__CUDA_ARCH__)
#define GIP__PY_MUL(a, b) __fmul_rn((a), (b))
#define GIP__PY_ADD(a, b) __fadd_rn((a), (b))
#else
#define GIP__PY_MUL(a, b) ((a) * (b))
#define GIP__PY_ADD(a, b) ((a) + (b))
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gip__pyr {
    int32_t up;     /* pyr_up (else pyr_down) */
    int32_t border; /* pyr_down's gip_border (pyr_up: reflect101) */
    int32_t cn;
    gip_dtype dtype;
    int64_t sw, sh;
} gip__pyr;

gip_status gip__pyr_cuda(gip_context *ctx, const gip_image *src, gip_image *dst, const gip__pyr *p);
/* Checks src and dst (dst the size the operation makes) and runs p. */
gip_status gip__pyr_run(gip_context *ctx, const gip_image *src, gip_image *dst, gip__pyr *p,
                        const char *op);

/* pyrDown's horizontal sum of one source row at output column x. */
GIP__PY_HD int32_t gip__pyd_hi(const gip__pyr *p, const uint8_t *row, int64_t x, int32_t c)
{
    int64_t t[5];
    for (int k = 0; k < 5; k++)
        t[k] = gip__border_index(2 * x - 2 + k, p->sw, (gip_border)p->border) * p->cn + c;
    return gip__geo_loadi(row, t[2], p->dtype) * 6 +
           (gip__geo_loadi(row, t[1], p->dtype) + gip__geo_loadi(row, t[3], p->dtype)) * 4 +
           gip__geo_loadi(row, t[0], p->dtype) + gip__geo_loadi(row, t[4], p->dtype);
}

GIP__PY_HD float gip__pyd_hf(const gip__pyr *p, const uint8_t *row, int64_t x, int32_t c)
{
    float v[5];
    for (int k = 0; k < 5; k++)
        v[k] = gip__geo_loadf(
            row, gip__border_index(2 * x - 2 + k, p->sw, (gip_border)p->border) * p->cn + c,
            p->dtype);
    float s = GIP__PY_MUL(v[2], 6.f);
    s = GIP__PY_ADD(s, GIP__PY_MUL(GIP__PY_ADD(v[1], v[3]), 4.f));
    s = GIP__PY_ADD(s, v[0]);
    return GIP__PY_ADD(s, v[4]);
}

/* Element (x, c) of pyrDown's output row y. */
GIP__PY_HD void gip__pyr_down(const gip__pyr *p, const uint8_t *src, int64_t sstride, uint8_t *drow,
                              int64_t y, int64_t x, int32_t c)
{
    const uint8_t *r[5];
    for (int k = 0; k < 5; k++)
        r[k] = src + gip__border_index(2 * y - 2 + k, p->sh, (gip_border)p->border) * sstride;
    const int64_t e = x * p->cn + c;
    if (p->dtype == GIP_F32) {
        float s = GIP__PY_MUL(gip__pyd_hf(p, r[2], x, c), 6.f);
        s = GIP__PY_ADD(
            s,
            GIP__PY_MUL(GIP__PY_ADD(gip__pyd_hf(p, r[1], x, c), gip__pyd_hf(p, r[3], x, c)), 4.f));
        s = GIP__PY_ADD(s, gip__pyd_hf(p, r[0], x, c));
        s = GIP__PY_ADD(s, gip__pyd_hf(p, r[4], x, c));
        ((float *)drow)[e] = GIP__PY_MUL(s, 1.f / 256);
        return;
    }
    const int32_t v = gip__pyd_hi(p, r[2], x, c) * 6 +
                      (gip__pyd_hi(p, r[1], x, c) + gip__pyd_hi(p, r[3], x, c)) * 4 +
                      gip__pyd_hi(p, r[0], x, c) + gip__pyd_hi(p, r[4], x, c);
    const int32_t o = (v + 128) >> 8;
    if (p->dtype == GIP_U8)
        drow[e] = gip__sat_u8_i32(o);
    else
        ((uint16_t *)drow)[e] = gip__sat_u16_i32(o);
}

/* pyrUp's horizontal value of source row row at output column X: the zero-inserted row of 2w
 * samples filtered by [1 4 6 4 1] with reflect101 (OpenCV's edge formulas). */
GIP__PY_HD float gip__pyu_h(const gip__pyr *p, const uint8_t *row, int64_t X, int32_t c, int flt)
{
    const int64_t w = p->sw, i = X >> 1;
    const gip_dtype dt = p->dtype;
    const int32_t cn = p->cn;
#define PY_L(k)                                                                                    \
    (flt ? gip__geo_loadf(row, (k)*cn + c, dt) : (float)gip__geo_loadi(row, (k)*cn + c, dt))
    if (w == 1)
        return GIP__PY_MUL(PY_L(0), 8.f);
    if (X & 1) { /* between i and i + 1 (the last: twice itself) */
        const float a = PY_L(i), b = i + 1 < w ? PY_L(i + 1) : a;
        return GIP__PY_MUL(GIP__PY_ADD(a, b), 4.f);
    }
    if (i == 0)
        return GIP__PY_ADD(GIP__PY_MUL(PY_L(0), 6.f), GIP__PY_MUL(PY_L(1), 2.f));
    if (i == w - 1)
        return GIP__PY_ADD(PY_L(w - 2), GIP__PY_MUL(PY_L(w - 1), 7.f));
    return GIP__PY_ADD(GIP__PY_ADD(PY_L(i - 1), GIP__PY_MUL(PY_L(i), 6.f)), PY_L(i + 1));
#undef PY_L
}

/* Element (X, c) of pyrUp's output row Y. */
GIP__PY_HD void gip__pyr_up(const gip__pyr *p, const uint8_t *src, int64_t sstride, uint8_t *drow,
                            int64_t Y, int64_t X, int32_t c)
{
    /* the source rows around Y / 2, reflect101 in the 2h-row zero-inserted space */
    const int64_t y = Y >> 1, h2 = 2 * p->sh;
    const int64_t r0 = gip__border_index(2 * y - 2, h2, GIP_BORDER_REFLECT_101) / 2;
    const int64_t r1 = y;
    const int64_t r2 = gip__border_index(2 * y + 2, h2, GIP_BORDER_REFLECT_101) / 2;
    const int flt = p->dtype == GIP_F32;
    const int64_t e = X * p->cn + c;
    if (flt) {
        float s;
        if (Y & 1)
            s = GIP__PY_MUL(GIP__PY_ADD(gip__pyu_h(p, src + r1 * sstride, X, c, 1),
                                        gip__pyu_h(p, src + r2 * sstride, X, c, 1)),
                            4.f);
        else
            s = GIP__PY_ADD(
                GIP__PY_ADD(gip__pyu_h(p, src + r0 * sstride, X, c, 1),
                            GIP__PY_MUL(gip__pyu_h(p, src + r1 * sstride, X, c, 1), 6.f)),
                gip__pyu_h(p, src + r2 * sstride, X, c, 1));
        ((float *)drow)[e] = GIP__PY_MUL(s, 1.f / 64);
        return;
    }
    /* integers: every value above is an exact integer in float (below 2^24) */
    const int32_t h1 = (int32_t)gip__pyu_h(p, src + r1 * sstride, X, c, 0);
    const int32_t h2v = (int32_t)gip__pyu_h(p, src + r2 * sstride, X, c, 0);
    const int32_t v = (Y & 1) ? (h1 + h2v) * 4
                              : (int32_t)gip__pyu_h(p, src + r0 * sstride, X, c, 0) + h1 * 6 + h2v;
    const int32_t o = (v + 32) >> 6;
    if (p->dtype == GIP_U8)
        drow[e] = gip__sat_u8_i32(o);
    else
        ((uint16_t *)drow)[e] = gip__sat_u16_i32(o);
}

#ifdef __cplusplus
}
#endif
#endif
