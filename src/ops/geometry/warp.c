/* SPDX-License-Identifier: MIT */
/* The warps' shared half: OpenCV's matrix inversion (double), the checks, and the CPU backend
 * (rows on the worker pool, each pixel with warp.h's arithmetic). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ops/geometry/warp.h"
#include "ops/geometry/warp_lanczos.h"
#include "ops/op_check.h"
#include "tuning.h"

/* Single-precision products and sums must not be fused beyond those warp.h asks for. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
/* Float comparisons may become vector selects: the same values, only exception flags (never read)
 * may differ. */
#pragma GCC optimize("no-trapping-math")
#endif

/* OpenCV's warpAffine inversion of a 2x3 matrix. */
static void invert_affine(const double *m, double *o)
{
    double d = m[0] * m[4] - m[1] * m[3];
    d = d != 0 ? 1. / d : 0;
    const double a11 = m[4] * d, a22 = m[0] * d;
    o[0] = a11;
    o[1] = m[1] * -d;
    o[3] = m[3] * -d;
    o[4] = a22;
    o[2] = -o[0] * m[2] - o[1] * m[5];
    o[5] = -o[3] * m[2] - o[4] * m[5];
}

/* OpenCV's invert() of a 3x3 matrix (cofactors over the determinant); 0 when singular. */
static int invert3(const double *m, double *o)
{
#define M(i, j) m[(i)*3 + (j)]
    double d = M(0, 0) * (M(1, 1) * M(2, 2) - M(1, 2) * M(2, 1)) -
               M(0, 1) * (M(1, 0) * M(2, 2) - M(1, 2) * M(2, 0)) +
               M(0, 2) * (M(1, 0) * M(2, 1) - M(1, 1) * M(2, 0));
    if (d == 0) {
        memset(o, 0, 9 * sizeof *o);
        return 0;
    }
    d = 1. / d;
    o[0] = (M(1, 1) * M(2, 2) - M(1, 2) * M(2, 1)) * d;
    o[1] = (M(0, 2) * M(2, 1) - M(0, 1) * M(2, 2)) * d;
    o[2] = (M(0, 1) * M(1, 2) - M(0, 2) * M(1, 1)) * d;
    o[3] = (M(1, 2) * M(2, 0) - M(1, 0) * M(2, 2)) * d;
    o[4] = (M(0, 0) * M(2, 2) - M(0, 2) * M(2, 0)) * d;
    o[5] = (M(0, 2) * M(1, 0) - M(0, 0) * M(1, 2)) * d;
    o[6] = (M(1, 0) * M(2, 1) - M(1, 1) * M(2, 0)) * d;
    o[7] = (M(0, 1) * M(2, 0) - M(0, 0) * M(2, 1)) * d;
    o[8] = (M(0, 0) * M(1, 1) - M(0, 1) * M(1, 0)) * d;
#undef M
    return 1;
}

gip_status gip__warp_setup(gip_context *ctx, gip__warp *w, const double *mat, int32_t persp,
                           int32_t flags, const gip_border_spec *border, int32_t transparent,
                           const gip_image *src, const char *op)
{
    memset(w, 0, sizeof *w);
    if (!mat)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: the matrix must not be NULL", op);
    for (int i = 0; i < (persp ? 9 : 6); i++)
        if (!isfinite(mat[i]))
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: matrix element %d is not finite",
                              op, i);
    int32_t interp = flags & 7;
    if (flags & ~(7 | GIP_WARP_INVERSE_MAP))
        return gip__error(
            ctx, GIP_ERR_INVALID_ARGUMENT,
            "%s: flags 0x%x: an interpolation (nearest, linear, cubic, lanczos4) with "
            "GIP_WARP_INVERSE_MAP or not",
            op, (unsigned)flags);
    if (interp == GIP_INTER_AREA) /* as OpenCV */
        interp = GIP_INTER_LINEAR;
    if (interp != GIP_INTER_NEAREST && interp != GIP_INTER_LINEAR && interp != GIP_INTER_CUBIC &&
        interp != GIP_INTER_LANCZOS4)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: interpolation %d is not supported: nearest (0), linear (1; area "
                          "is linear), cubic (2) or lanczos4 (4)",
                          op, (int)interp);
    if (!border)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: border must not be NULL", op);
    if ((unsigned)border->mode > GIP_BORDER_WRAP)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: border mode %d is unknown", op,
                          (int)border->mode);
    double inv[9] = {0, 0, 0, 0, 0, 0, 0, 0, 1};
    if (flags & GIP_WARP_INVERSE_MAP)
        memcpy(inv, mat, (persp ? 9 : 6) * sizeof *inv);
    else if (persp)
        invert3(mat, inv);
    else
        invert_affine(mat, inv);
    for (int i = 0; i < 9; i++) {
        w->m[i] = (float)inv[i];
        w->md[i] = inv[i];
    }
    w->persp = persp;
    w->interp = interp;
    w->border = transparent ? GIP__BORDER_TRANSPARENT : (int32_t)border->mode;
    if (src) {
        w->cn = src->channels;
        w->dtype = src->dtype;
        w->sw = src->width;
        w->sh = src->height;
        for (int c = 0; c < 4; c++)
            w->bval[c] = gip__border_value_as(src->dtype, border->value[c]);
    }
    return GIP_OK;
}

/* ---- the CPU rows ---------------------------------------------------------------------------
 * A row goes in chunks of WARP_CHUNK pixels: first the source coordinates of the chunk (the
 * formulas of gip__warp_px(), as element loops that vectorise), then each pixel sampled. A
 * bilinear or nearest pixel whose taps all lie inside the image is read by a loop typed for its
 * dtype and channel count, with the arithmetic of gip__warp_sample() (the same floor, the same
 * fused multiply-adds, the same rounding); every other pixel (borders, cubic, coordinates that
 * are not finite) goes through gip__warp_sample() itself. Compiled for x86-64-v3 (FMA
 * instructions) and the baseline (the library's fmaf: the same, correctly rounded results). u8
 * with 1, 3 or 4 channels has its own vector kernels (AVX2; AVX-512 VBMI for 1 and 3 channels),
 * chosen once a call (GIP_NOSIMD and GIP_NOAVX512 respected), with the same results. remap
 * runs through the same rows, its maps giving the coordinates. */

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define WARP_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define WARP_CLONES
#endif
#define WARP_INLINE static inline __attribute__((always_inline))
#define WARP_CHUNK 256 /* a multiple of 16: OpenCV's vector blocks do not straddle chunks */
#define WARP_BAND 64
#define WARP_512_REST 16 /* chunks without the AVX-512 window kernels after one that missed */
#define WARP_STEEP 0.25f /* |dsy/dx| from which a warp goes in tiles (about 14 degrees) */

typedef struct warp_job {
    const gip__warp *w;
    const gip_image *src;
    gip_image *dst;
    const gip_image *mx, *my; /* remap's maps (the coordinates); NULL for the warps */
    int avx2;                 /* the AVX2 + FMA kernels may run */
    int avx512;               /* the AVX-512 (VBMI) kernels may run */
} warp_job;

/* Source coordinates of output pixels [x0, x0 + n) of row y. */
WARP_INLINE void warp_coords(const gip__warp *w, int64_t y, int64_t x0, int64_t n,
                             float *restrict sx, float *restrict sy)
{
    const float fyd = (float)y;
    const float m0 = w->m[0], m3 = w->m[3], m6 = w->m[6];
    /* OpenCV's vector lanes: x * m0 fused into (y * m1 + m2) */
    const float bx = GIP__WP_ADD(GIP__WP_MUL(fyd, w->m[1]), w->m[2]),
                by = GIP__WP_ADD(GIP__WP_MUL(fyd, w->m[4]), w->m[5]),
                bw = GIP__WP_ADD(GIP__WP_MUL(fyd, w->m[7]), w->m[8]);
    /* its scalar tail: (x * m0 fused into y * m1) + m2 */
    const float tx = GIP__WP_MUL(fyd, w->m[1]), ty = GIP__WP_MUL(fyd, w->m[4]),
                tw = GIP__WP_MUL(fyd, w->m[7]);
    const float m2 = w->m[2], m5 = w->m[5], m8 = w->m[8];
    int64_t nv = w->vec_end - x0;
    nv = nv < 0 ? 0 : nv > n ? n : nv;
    if (w->persp) {
        for (int64_t i = 0; i < nv; i++) {
            const float fxd = (float)(int32_t)(x0 + i);
            const float ww = GIP__WP_FMA(m6, fxd, bw);
            sx[i] = GIP__WP_DIV(GIP__WP_FMA(m0, fxd, bx), ww);
            sy[i] = GIP__WP_DIV(GIP__WP_FMA(m3, fxd, by), ww);
        }
        for (int64_t i = nv; i < n; i++) {
            const float fxd = (float)(int32_t)(x0 + i);
            const float ww = GIP__WP_ADD(GIP__WP_FMA(fxd, m6, tw), m8);
            sx[i] = GIP__WP_DIV(GIP__WP_ADD(GIP__WP_FMA(fxd, m0, tx), m2), ww);
            sy[i] = GIP__WP_DIV(GIP__WP_ADD(GIP__WP_FMA(fxd, m3, ty), m5), ww);
        }
        return;
    }
    for (int64_t i = 0; i < nv; i++) {
        const float fxd = (float)(int32_t)(x0 + i);
        sx[i] = GIP__WP_FMA(m0, fxd, bx);
        sy[i] = GIP__WP_FMA(m3, fxd, by);
    }
    for (int64_t i = nv; i < n; i++) {
        const float fxd = (float)(int32_t)(x0 + i);
        sx[i] = GIP__WP_ADD(GIP__WP_FMA(fxd, m0, tx), m2);
        sy[i] = GIP__WP_ADD(GIP__WP_FMA(fxd, m3, ty), m5);
    }
}

/* Rounded half to even and saturated, for the finite values of the integer dtypes (as
 * gip__sat_u8_f32() and gip__sat_u16_f32(); adding and subtracting 1.5 * 2^23 rounds a clamped
 * value to an integer in the default rounding mode, as lrintf() does). */
WARP_INLINE uint8_t warp_u8(float v)
{
    v = v < 0.f ? 0.f : v > 255.f ? 255.f : v;
    return (uint8_t)(int32_t)((v + 12582912.f) - 12582912.f);
}
WARP_INLINE uint16_t warp_u16(float v)
{
    v = v < 0.f ? 0.f : v > 65535.f ? 65535.f : v;
    return (uint16_t)(int32_t)((v + 12582912.f) - 12582912.f);
}
WARP_INLINE float warp_f32(float v)
{
    return v;
}

/* Bilinear (LIN) and nearest (NN) pixels [x0, x0 + n) of a row, dtype T and CN channels. */
#define WARP_KERNELS(NAME, T, CN, STORE)                                                           \
    WARP_INLINE void warp_lin_##NAME##_##CN(const gip__warp *w, const uint8_t *src, int64_t sst,   \
                                            uint8_t *drow, int64_t x0, int64_t n, const float *sx, \
                                            const float *sy)                                       \
    {                                                                                              \
        const int64_t lx = w->sw - 1, ly = w->sh - 1;                                              \
        T *d = (T *)drow + x0 * CN;                                                                \
        T bv[CN];                                                                                  \
        for (int c = 0; c < CN; c++)                                                               \
            bv[c] = STORE(w->bval[c]);                                                             \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const float fx = GIP__WP_FLOOR(sx[i]), fy = GIP__WP_FLOOR(sy[i]);                      \
            int outside = 1; /* wholly outside: no tap in the image */                             \
            if (fx >= -1.f && fy >= -1.f && fx < 1e9f && fy < 1e9f) {                              \
                const int64_t ix = (int64_t)fx, iy = (int64_t)fy;                                  \
                if (ix >= 0 && iy >= 0 && ix < lx && iy < ly) {                                    \
                    const float ax = GIP__WP_SUB(sx[i], fx), ay = GIP__WP_SUB(sy[i], fy);          \
                    const T *r0 = (const T *)(src + iy * sst) + ix * CN;                           \
                    const T *r1 = (const T *)(src + (iy + 1) * sst) + ix * CN;                     \
                    for (int c = 0; c < CN; c++) {                                                 \
                        const float p0 = (float)r0[c], p1 = (float)r0[c + CN], p2 = (float)r1[c],  \
                                    p3 = (float)r1[c + CN];                                        \
                        const float v0 = GIP__WP_FMA(ax, GIP__WP_SUB(p1, p0), p0);                 \
                        const float v1 = GIP__WP_FMA(ax, GIP__WP_SUB(p3, p2), p2);                 \
                        d[i * CN + c] = STORE(GIP__WP_FMA(ay, GIP__WP_SUB(v1, v0), v0));           \
                    }                                                                              \
                    continue;                                                                      \
                }                                                                                  \
                outside = ix >= lx + 1 || iy >= ly + 1;                                            \
            }                                                                                      \
            if (outside && w->border == GIP_BORDER_CONSTANT) { /* as gip__warp_sample() */         \
                for (int c = 0; c < CN; c++)                                                       \
                    d[i * CN + c] = bv[c];                                                         \
                continue;                                                                          \
            }                                                                                      \
            gip__warp_sample(w, src, sst, drow, x0 + i, sx[i], sy[i]);                             \
        }                                                                                          \
    }                                                                                              \
    WARP_INLINE void warp_nn_##NAME##_##CN(const gip__warp *w, const uint8_t *src, int64_t sst,    \
                                           uint8_t *drow, int64_t x0, int64_t n, const float *sx,  \
                                           const float *sy)                                        \
    {                                                                                              \
        T *d = (T *)drow + x0 * CN;                                                                \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const int64_t ix = gip__wp_int(sx[i], 1), iy = gip__wp_int(sy[i], 1);                  \
            if (ix >= 0 && ix < w->sw && iy >= 0 && iy < w->sh) {                                  \
                const T *s = (const T *)(src + iy * sst) + ix * CN;                                \
                for (int c = 0; c < CN; c++)                                                       \
                    d[i * CN + c] = s[c];                                                          \
                continue;                                                                          \
            }                                                                                      \
            gip__warp_sample(w, src, sst, drow, x0 + i, sx[i], sy[i]);                             \
        }                                                                                          \
    }

WARP_KERNELS(u8, uint8_t, 1, warp_u8)
WARP_KERNELS(u8, uint8_t, 3, warp_u8)
WARP_KERNELS(u8, uint8_t, 4, warp_u8)
WARP_KERNELS(u16, uint16_t, 1, warp_u16)
WARP_KERNELS(u16, uint16_t, 3, warp_u16)
WARP_KERNELS(u16, uint16_t, 4, warp_u16)
WARP_KERNELS(f32, float, 1, warp_f32)
WARP_KERNELS(f32, float, 3, warp_f32)
WARP_KERNELS(f32, float, 4, warp_f32)

/* Bilinear pixels [x0, x0 + n) of a row in passes that vectorise: the taps' place and weights of
 * every pixel, the taps gathered, the arithmetic of gip__warp_sample(), the result blended into
 * the row where all taps were inside; the other pixels then as warp_lin_*(). For images whose
 * sides are at most 2^24 (exact in float), at least 2, and whose bytes are under 2^31. */
#define WARP_VLIN(NAME, T, CN, STORE)                                                              \
    WARP_INLINE void warp_vlin_##NAME##_##CN(const gip__warp *w, const uint8_t *src, int64_t sst,  \
                                             uint8_t *drow, int64_t x0, int64_t n,                 \
                                             const float *sx, const float *sy)                     \
    {                                                                                              \
        const float lx = (float)(w->sw - 1), ly = (float)(w->sh - 1);                              \
        const int32_t st = (int32_t)sst, ps = (int32_t)(CN * sizeof(T));                           \
        int32_t off[WARP_CHUNK], in[WARP_CHUNK], ine[WARP_CHUNK * CN];                             \
        float ax[WARP_CHUNK * CN], ay[WARP_CHUNK * CN]; /* a pixel's weights, once a channel */    \
        T qa[WARP_CHUNK * 2 * CN], qb[WARP_CHUNK * 2 * CN];                                        \
        T *q0 = qa, *q1 = qa + WARP_CHUNK * CN, *q2 = qb, *q3 = qb + WARP_CHUNK * CN;              \
        T r[WARP_CHUNK * CN];                                                                      \
        T *d = (T *)drow + x0 * CN;                                                                \
        int32_t nin = 0;                                                                           \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const float fx = GIP__WP_FLOOR(sx[i]), fy = GIP__WP_FLOOR(sy[i]);                      \
            const int32_t k = fx >= 0.f && fy >= 0.f && fx < lx && fy < ly;                        \
            in[i] = k;                                                                             \
            nin += k;                                                                              \
            off[i] = k ? (int32_t)fy * st + (int32_t)fx * ps : 0;                                  \
            const float wx = GIP__WP_SUB(sx[i], fx), wy = GIP__WP_SUB(sy[i], fy);                  \
            for (int c = 0; c < CN; c++) {                                                         \
                ax[i * CN + c] = wx;                                                               \
                ay[i * CN + c] = wy;                                                               \
                ine[i * CN + c] = k;                                                               \
            }                                                                                      \
        }                                                                                          \
        /* all inside: the results go straight to the row */                                       \
        T *restrict o = nin == n ? d : r;                                                          \
        if (CN == 1) { /* a row's two taps in one move */                                          \
            for (int64_t i = 0; i < n; i++) {                                                      \
                memcpy(qa + 2 * i, src + off[i], 2 * sizeof(T));                                   \
                memcpy(qb + 2 * i, src + off[i] + st, 2 * sizeof(T));                              \
            }                                                                                      \
            for (int64_t e = 0; e < n; e++) {                                                      \
                const float p0 = (float)qa[2 * e], p1 = (float)qa[2 * e + 1],                      \
                            p2 = (float)qb[2 * e], p3 = (float)qb[2 * e + 1];                      \
                const float v0 = GIP__WP_FMA(ax[e], GIP__WP_SUB(p1, p0), p0);                      \
                const float v1 = GIP__WP_FMA(ax[e], GIP__WP_SUB(p3, p2), p2);                      \
                o[e] = STORE(GIP__WP_FMA(ay[e], GIP__WP_SUB(v1, v0), v0));                         \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t i = 0; i < n;                                                             \
                 i++) { /* the taps: (x, y), (x+1, y), (x, y+1), (x+1, y+1) */                     \
                const uint8_t *a = src + off[i];                                                   \
                memcpy(q0 + i * CN, a, CN * sizeof(T));                                            \
                memcpy(q1 + i * CN, a + CN * sizeof(T), CN * sizeof(T));                           \
                memcpy(q2 + i * CN, a + st, CN * sizeof(T));                                       \
                memcpy(q3 + i * CN, a + st + CN * sizeof(T), CN * sizeof(T));                      \
            }                                                                                      \
            for (int64_t e = 0; e < n * CN; e++) {                                                 \
                const float p0 = (float)q0[e], p1 = (float)q1[e], p2 = (float)q2[e],               \
                            p3 = (float)q3[e];                                                     \
                const float v0 = GIP__WP_FMA(ax[e], GIP__WP_SUB(p1, p0), p0);                      \
                const float v1 = GIP__WP_FMA(ax[e], GIP__WP_SUB(p3, p2), p2);                      \
                o[e] = STORE(GIP__WP_FMA(ay[e], GIP__WP_SUB(v1, v0), v0));                         \
            }                                                                                      \
        }                                                                                          \
        if (nin == n)                                                                              \
            return;                                                                                \
        for (int64_t e = 0; e < n * CN; e++)                                                       \
            d[e] = ine[e] ? r[e] : d[e];                                                           \
        for (int64_t i = 0; i < n; i++)                                                            \
            if (!in[i])                                                                            \
                warp_lin_##NAME##_##CN(w, src, sst, drow, x0 + i, 1, sx + i, sy + i);              \
    }
WARP_VLIN(u8, uint8_t, 1, warp_u8)
WARP_VLIN(u8, uint8_t, 3, warp_u8)
WARP_VLIN(u8, uint8_t, 4, warp_u8)
WARP_VLIN(u16, uint16_t, 1, warp_u16)
WARP_VLIN(u16, uint16_t, 3, warp_u16)
WARP_VLIN(u16, uint16_t, 4, warp_u16)
WARP_VLIN(f32, float, 1, warp_f32)
WARP_VLIN(f32, float, 3, warp_f32)
WARP_VLIN(f32, float, 4, warp_f32)

/* Bicubic pixels [x0, x0 + n) of a row in passes that vectorise, WARP_CUB_STEP pixels a pass:
 * the taps' place and the coefficients of every pixel (gip__wp_cubic_coeffs()' operations), the
 * 16 taps gathered, gip__wp_cubic()'s sums in its order, the result blended into the row where
 * the 4x4 window lies inside the image; the other pixels then through gip__warp_sample(). The
 * sizes and strides of WARP_VLIN. */
#define WARP_CUB_STEP 64
/* tap j of row t of element e in warp_vcub_*()'s q (one channel: e is the pixel) */
#define WARP_CUB_Q(t, j, CN)                                                                       \
    (CN == 1 ? ((t)*WARP_CUB_STEP + e) * 4 + (j) : (4 * (t) + (j)) * WARP_CUB_STEP * CN + e)
#define WARP_VCUB(NAME, T, CN, STORE)                                                              \
    WARP_INLINE void warp_vcub_##NAME##_##CN(const gip__warp *w, const uint8_t *src, int64_t sst,  \
                                             uint8_t *drow, int64_t x0, int64_t n,                 \
                                             const float *sx, const float *sy)                     \
    {                                                                                              \
        const float lx = (float)(w->sw - 2), ly = (float)(w->sh - 2);                              \
        const int32_t st = (int32_t)sst, ps = (int32_t)(CN * sizeof(T));                           \
        const float A = -0.75f;                                                                    \
        const T zw[4 * CN] = {0};                                                                  \
        for (int64_t i0 = 0; i0 < n; i0 += WARP_CUB_STEP) {                                        \
            const int64_t m = n - i0 < WARP_CUB_STEP ? n - i0 : WARP_CUB_STEP;                     \
            const float *X = sx + i0, *Y = sy + i0;                                                \
            int32_t off[WARP_CUB_STEP], in[WARP_CUB_STEP], ine[WARP_CUB_STEP * CN];                \
            float cx[4][WARP_CUB_STEP * CN], cy[4][WARP_CUB_STEP * CN];                            \
            /* the taps: one channel, a pixel's four of a row together (one move); more, each      \
             * tap's channels in a plane of the tap (a vector of the sums reads each plane) */     \
            T q[16 * WARP_CUB_STEP * CN];                                                          \
            T r[WARP_CUB_STEP * CN];                                                               \
            T *d = (T *)drow + (x0 + i0) * CN;                                                     \
            int32_t nin = 0;                                                                       \
            for (int64_t i = 0; i < m; i++) {                                                      \
                const float fx = GIP__WP_FLOOR(X[i]), fy = GIP__WP_FLOOR(Y[i]);                    \
                const int32_t k = fx >= 1.f && fy >= 1.f && fx < lx && fy < ly;                    \
                in[i] = k;                                                                         \
                nin += k;                                                                          \
                off[i] = k ? ((int32_t)fy - 1) * st + ((int32_t)fx - 1) * ps : 0;                  \
                float c[2][4];                                                                     \
                for (int a = 0; a < 2; a++) {                                                      \
                    const float x = GIP__WP_SUB(a ? Y[i] : X[i], a ? fy : fx);                     \
                    const float x1 = GIP__WP_ADD(x, 1.f), y = GIP__WP_SUB(1.f, x);                 \
                    c[a][0] = GIP__WP_SUB(                                                         \
                        GIP__WP_MUL(                                                               \
                            GIP__WP_ADD(GIP__WP_MUL(GIP__WP_SUB(GIP__WP_MUL(A, x1), 5 * A), x1),   \
                                        8 * A),                                                    \
                            x1),                                                                   \
                        4 * A);                                                                    \
                    c[a][1] = GIP__WP_ADD(                                                         \
                        GIP__WP_MUL(GIP__WP_MUL(GIP__WP_SUB(GIP__WP_MUL(A + 2, x), A + 3), x), x), \
                        1.f);                                                                      \
                    c[a][2] = GIP__WP_ADD(                                                         \
                        GIP__WP_MUL(GIP__WP_MUL(GIP__WP_SUB(GIP__WP_MUL(A + 2, y), A + 3), y), y), \
                        1.f);                                                                      \
                    c[a][3] =                                                                      \
                        GIP__WP_SUB(GIP__WP_SUB(GIP__WP_SUB(1.f, c[a][0]), c[a][1]), c[a][2]);     \
                }                                                                                  \
                for (int c0 = 0; c0 < CN; c0++) {                                                  \
                    for (int t = 0; t < 4; t++) {                                                  \
                        cx[t][i * CN + c0] = c[0][t];                                              \
                        cy[t][i * CN + c0] = c[1][t];                                              \
                    }                                                                              \
                    ine[i * CN + c0] = k;                                                          \
                }                                                                                  \
            }                                                                                      \
            for (int64_t i = 0; i < m;                                                             \
                 i++) { /* a pixel outside reads zeros (its result unused) */                      \
                const uint8_t *a = in[i] ? src + off[i] : (const uint8_t *)zw;                     \
                const int64_t as = in[i] ? st : 0;                                                 \
                if (CN == 1)                                                                       \
                    _Pragma("GCC unroll 4") for (int u = 0; u < 4; u++, a += as)                   \
                        memcpy(q + (u * WARP_CUB_STEP + i) * 4, a, 4 * sizeof(T));                 \
                else                                                                               \
                    _Pragma("GCC unroll 4") for (int u = 0; u < 4; u++, a += as)                   \
                        _Pragma("GCC unroll 4") for (int t = 0; t < 4; t++)                        \
                            memcpy(q + (4 * u + t) * WARP_CUB_STEP * CN + i * CN, a + t * ps,      \
                                   CN * sizeof(T));                                                \
            }                                                                                      \
            T *restrict o = nin == m ? d : r;                                                      \
            for (int64_t e = 0; e < m * CN; e++) {                                                 \
                float v = 0.f;                                                                     \
                for (int t = 0; t < 4; t++) {                                                      \
                    float h = GIP__WP_MUL(cx[0][e], (float)q[WARP_CUB_Q(t, 0, CN)]);               \
                    h = GIP__WP_ADD(h, GIP__WP_MUL(cx[1][e], (float)q[WARP_CUB_Q(t, 1, CN)]));     \
                    h = GIP__WP_ADD(h, GIP__WP_MUL(cx[2][e], (float)q[WARP_CUB_Q(t, 2, CN)]));     \
                    h = GIP__WP_ADD(h, GIP__WP_MUL(cx[3][e], (float)q[WARP_CUB_Q(t, 3, CN)]));     \
                    v = t ? GIP__WP_ADD(v, GIP__WP_MUL(cy[t][e], h)) : GIP__WP_MUL(cy[t][e], h);   \
                }                                                                                  \
                o[e] = STORE(v);                                                                   \
            }                                                                                      \
            if (nin == m)                                                                          \
                continue;                                                                          \
            for (int64_t e = 0; e < m * CN; e++)                                                   \
                d[e] = ine[e] ? r[e] : d[e];                                                       \
            for (int64_t i = 0; i < m; i++)                                                        \
                if (!in[i])                                                                        \
                    gip__warp_sample(w, src, sst, drow, x0 + i0 + i, X[i], Y[i]);                  \
        }                                                                                          \
    }
WARP_VCUB(u8, uint8_t, 1, warp_u8)
WARP_VCUB(u8, uint8_t, 3, warp_u8)
WARP_VCUB(u8, uint8_t, 4, warp_u8)
WARP_VCUB(u16, uint16_t, 1, warp_u16)
WARP_VCUB(u16, uint16_t, 3, warp_u16)
WARP_VCUB(u16, uint16_t, 4, warp_u16)
WARP_VCUB(f32, float, 1, warp_f32)
WARP_VCUB(f32, float, 3, warp_f32)
WARP_VCUB(f32, float, 4, warp_f32)

/* ---- u8 bilinear with AVX2 and FMA ----------------------------------------------------------
 * Eight pixels a step, in three passes over the chunk: the floor, the weights, the in-image test
 * and the byte offsets in vectors (the first taps of each step prefetched); the taps read as
 * 32-bit words (a tap pair of one channel, or a whole pixel of 3 or 4 channels: plain loads beat
 * the gather instruction here); the arithmetic of gip__warp_sample() in the same order with the
 * same fused operations, rounded half to even by the conversion (the default rounding mode, as
 * lrintf) and saturated. A step whose pixels are all outside a constant border is filled; any
 * other step with a pixel that is not wholly inside (or whose 4-byte reads would pass the image's
 * last byte) goes through warp_lin_*(). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define WARP_HAVE_AVX2 1
#define WARP_AVX2 __attribute__((target("avx2,fma")))

/* The floats of the byte at bit `sh` of each 32-bit lane of g, with the intrinsics of prefix P
 * (_mm256, _mm512) and their integer suffix SI (si256, si512). */
#define WARP_BYTE_FW(P, SI, g, sh)                                                                 \
    P##_cvtepi32_ps(P##_and_##SI(P##_srli_epi32((g), (sh)), P##_set1_epi32(0xff)))
#define WARP_BYTE_F(g, sh) WARP_BYTE_FW(_mm256, si256, g, sh)

/* One channel of a step's pixels, NAME() for vectors PS (floats) and SI (32-bit integers) of
 * prefix P: the taps as floats, the result as saturated 32-bit integers. */
#define WARP_LERP_FN(NAME, TARGET, PS, SI, P)                                                      \
    TARGET static inline __attribute__((always_inline)) SI NAME(PS ax, PS ay, PS p0, PS p1, PS p2, \
                                                                PS p3)                             \
    {                                                                                              \
        const PS v0 = P##_fmadd_ps(ax, P##_sub_ps(p1, p0), p0);                                    \
        const PS v1 = P##_fmadd_ps(ax, P##_sub_ps(p3, p2), p2);                                    \
        const PS r = P##_fmadd_ps(ay, P##_sub_ps(v1, v0), v0);                                     \
        const SI i = P##_cvtps_epi32(r);                                                           \
        return P##_min_epi32(P##_max_epi32(i, P##_set1_epi32(0)), P##_set1_epi32(255));            \
    }
WARP_LERP_FN(warp_avx2_lerp, WARP_AVX2, __m256, __m256i, _mm256)

WARP_AVX2 static inline __attribute__((always_inline)) void
warp_avx2_u8(const gip__warp *w, const uint8_t *src, int64_t sst, uint8_t *drow, int64_t x0,
             int64_t n, const float *sx, const float *sy, const int cn)
{
    const int32_t st = (int32_t)sst, ps = cn;
    const __m256 vlx = _mm256_set1_ps((float)(w->sw - 1)), vly = _mm256_set1_ps((float)(w->sh - 1));
    const __m256 vsw = _mm256_set1_ps((float)w->sw), vsh = _mm256_set1_ps((float)w->sh);
    const __m256 zero = _mm256_setzero_ps(), m1 = _mm256_set1_ps(-1.f);
    const __m256i vst = _mm256_set1_epi32(st), vps = _mm256_set1_epi32(ps);
    /* the last offset whose 4-byte reads of both rows (at +0 and +ps) stay in the image; offset 0
     * (where the taps of the other pixels are read) is one of them when limit >= 0 */
    const int64_t limit = (w->sh - 1) * sst + w->sw * cn - sst - ps - 4;
    const __m256i vlim = _mm256_set1_epi32((int32_t)(limit < -1 ? -1 : limit) + 1);
    const int fill = w->border == GIP_BORDER_CONSTANT;
    uint8_t bv[4] = {0, 0, 0, 0};
    for (int c = 0; c < cn; c++)
        bv[c] = warp_u8(w->bval[c]);
    uint8_t *d = drow + x0 * cn;
    const int64_t nb = limit >= 0 ? n / 8 : 0; /* whole steps of 8 */
    int32_t off[WARP_CHUNK] __attribute__((aligned(32)));
    float wx[WARP_CHUNK] __attribute__((aligned(32))), wy[WARP_CHUNK] __attribute__((aligned(32)));
    uint32_t g[4][WARP_CHUNK] __attribute__((aligned(32)));
    int8_t kind[WARP_CHUNK / 8]; /* a step's pixels: 0 all inside, 1 all outside, 2 mixed */
    for (int64_t b = 0; b < nb; b++) {
        const __m256 X = _mm256_loadu_ps(sx + 8 * b), Y = _mm256_loadu_ps(sy + 8 * b);
        const __m256 FX = _mm256_floor_ps(X), FY = _mm256_floor_ps(Y);
        const __m256 in = _mm256_and_ps(
            _mm256_and_ps(_mm256_cmp_ps(FX, zero, _CMP_GE_OQ), _mm256_cmp_ps(FY, zero, _CMP_GE_OQ)),
            _mm256_and_ps(_mm256_cmp_ps(FX, vlx, _CMP_LT_OQ), _mm256_cmp_ps(FY, vly, _CMP_LT_OQ)));
        const __m256i o = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_cvttps_epi32(FY), vst),
                                           _mm256_mullo_epi32(_mm256_cvttps_epi32(FX), vps));
        const __m256 safe = _mm256_and_ps(in, _mm256_castsi256_ps(_mm256_cmpgt_epi32(vlim, o)));
        { /* the step's first taps, into L1 before the loads below */
            const int32_t o0 = _mm_cvtsi128_si32(_mm256_castsi256_si128(o));
            if (_mm256_movemask_ps(safe) & 1) {
                __builtin_prefetch(src + o0);
                __builtin_prefetch(src + o0 + sst);
            }
        }
        _mm256_store_si256((__m256i *)(off + 8 * b),
                           _mm256_and_si256(o, _mm256_castps_si256(safe)));
        _mm256_store_ps(wx + 8 * b, _mm256_sub_ps(X, FX));
        _mm256_store_ps(wy + 8 * b, _mm256_sub_ps(Y, FY));
        if (_mm256_movemask_ps(safe) == 0xff) {
            kind[b] = 0;
            continue;
        }
        const __m256 touch = _mm256_and_ps(
            _mm256_and_ps(_mm256_cmp_ps(FX, m1, _CMP_GE_OQ), _mm256_cmp_ps(FY, m1, _CMP_GE_OQ)),
            _mm256_and_ps(_mm256_cmp_ps(FX, vsw, _CMP_LT_OQ), _mm256_cmp_ps(FY, vsh, _CMP_LT_OQ)));
        kind[b] = fill && _mm256_movemask_ps(touch) == 0 ? 1 : 2;
    }
    /* the taps, as 32-bit words: cn 1: the pair of each row; cn 3, 4: each tap's pixel */
    const uint8_t *s1 = src + sst;
    if (cn == 1) {
        for (int64_t i = 0; i < nb * 8; i++) {
            memcpy(&g[0][i], src + off[i], 4);
            memcpy(&g[2][i], s1 + off[i], 4);
        }
    } else {
        for (int64_t i = 0; i < nb * 8; i++) {
            memcpy(&g[0][i], src + off[i], 4);
            memcpy(&g[1][i], src + off[i] + ps, 4);
            memcpy(&g[2][i], s1 + off[i], 4);
            memcpy(&g[3][i], s1 + off[i] + ps, 4);
        }
    }
    for (int64_t b = 0; b < nb; b++) {
        const int64_t i = 8 * b;
        if (kind[b] == 1) { /* no tap in the image */
            for (int k = 0; k < 8; k++)
                for (int c = 0; c < cn; c++)
                    d[(i + k) * cn + c] = bv[c];
            continue;
        }
        if (kind[b] == 2) {
            if (cn == 1)
                warp_lin_u8_1(w, src, sst, drow, x0 + i, 8, sx + i, sy + i);
            else if (cn == 3)
                warp_lin_u8_3(w, src, sst, drow, x0 + i, 8, sx + i, sy + i);
            else
                warp_lin_u8_4(w, src, sst, drow, x0 + i, 8, sx + i, sy + i);
            continue;
        }
        const __m256 ax = _mm256_load_ps(wx + i), ay = _mm256_load_ps(wy + i);
        const __m256i g0 = _mm256_load_si256((const __m256i *)(g[0] + i));
        const __m256i g2 = _mm256_load_si256((const __m256i *)(g[2] + i));
        if (cn == 1) {
            const __m256i r = warp_avx2_lerp(ax, ay, WARP_BYTE_F(g0, 0), WARP_BYTE_F(g0, 8),
                                             WARP_BYTE_F(g2, 0), WARP_BYTE_F(g2, 8));
            const __m256i p16 = _mm256_packus_epi32(r, r);
            const __m256i p8 = _mm256_packus_epi16(p16, p16);
            const __m128i o =
                _mm_unpacklo_epi32(_mm256_castsi256_si128(p8), _mm256_extracti128_si256(p8, 1));
            _mm_storel_epi64((__m128i *)(d + i), o);
            continue;
        }
        const __m256i g1 = _mm256_load_si256((const __m256i *)(g[1] + i));
        const __m256i g3 = _mm256_load_si256((const __m256i *)(g[3] + i));
        __m256i o = warp_avx2_lerp(ax, ay, WARP_BYTE_F(g0, 0), WARP_BYTE_F(g1, 0),
                                   WARP_BYTE_F(g2, 0), WARP_BYTE_F(g3, 0));
        o = _mm256_or_si256(
            o, _mm256_slli_epi32(warp_avx2_lerp(ax, ay, WARP_BYTE_F(g0, 8), WARP_BYTE_F(g1, 8),
                                                WARP_BYTE_F(g2, 8), WARP_BYTE_F(g3, 8)),
                                 8));
        o = _mm256_or_si256(
            o, _mm256_slli_epi32(warp_avx2_lerp(ax, ay, WARP_BYTE_F(g0, 16), WARP_BYTE_F(g1, 16),
                                                WARP_BYTE_F(g2, 16), WARP_BYTE_F(g3, 16)),
                                 16));
        if (cn == 4) {
            o = _mm256_or_si256(
                o,
                _mm256_slli_epi32(warp_avx2_lerp(ax, ay, WARP_BYTE_F(g0, 24), WARP_BYTE_F(g1, 24),
                                                 WARP_BYTE_F(g2, 24), WARP_BYTE_F(g3, 24)),
                                  24));
            _mm256_storeu_si256((__m256i *)(d + i * 4), o);
            continue;
        }
        /* 3 channels: 4-byte lanes packed to 3 bytes, 24 bytes stored */
        o = _mm256_shuffle_epi8(o, _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1,
                                                    -1, -1, 0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14,
                                                    -1, -1, -1, -1));
        o = _mm256_permutevar8x32_epi32(o, _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7));
        _mm_storeu_si128((__m128i *)(d + i * 3), _mm256_castsi256_si128(o));
        _mm_storel_epi64((__m128i *)(d + i * 3 + 16), _mm256_extracti128_si256(o, 1));
    }
    const int64_t i = nb * 8;
    if (i < n) {
        if (cn == 1)
            warp_lin_u8_1(w, src, sst, drow, x0 + i, n - i, sx + i, sy + i);
        else if (cn == 3)
            warp_lin_u8_3(w, src, sst, drow, x0 + i, n - i, sx + i, sy + i);
        else
            warp_lin_u8_4(w, src, sst, drow, x0 + i, n - i, sx + i, sy + i);
    }
}

WARP_AVX2 static void warp_avx2_u8_1(const gip__warp *w, const uint8_t *src, int64_t sst,
                                     uint8_t *drow, int64_t x0, int64_t n, const float *sx,
                                     const float *sy)
{
    warp_avx2_u8(w, src, sst, drow, x0, n, sx, sy, 1);
}
WARP_AVX2 static void warp_avx2_u8_3(const gip__warp *w, const uint8_t *src, int64_t sst,
                                     uint8_t *drow, int64_t x0, int64_t n, const float *sx,
                                     const float *sy)
{
    warp_avx2_u8(w, src, sst, drow, x0, n, sx, sy, 3);
}
WARP_AVX2 static void warp_avx2_u8_4(const gip__warp *w, const uint8_t *src, int64_t sst,
                                     uint8_t *drow, int64_t x0, int64_t n, const float *sx,
                                     const float *sy)
{
    warp_avx2_u8(w, src, sst, drow, x0, n, sx, sy, 4);
}

/* Nearest pixels of PS bytes with AVX2: eight pixels a step, the rounding (half to even, as
 * lrintf) and the in-image test in vectors, the byte offsets stored, then the pixels copied; a
 * step with a pixel outside takes the border pixel bv (constant border) or goes through NN (the
 * typed scalar kernel). Any dtype: a pixel is copied as bytes. */
typedef void (*warp_row_fn)(const gip__warp *w, const uint8_t *src, int64_t sst, uint8_t *drow,
                            int64_t x0, int64_t n, const float *sx, const float *sy);

WARP_AVX2 static inline __attribute__((always_inline)) void
warp_avx2_nn(const gip__warp *w, const uint8_t *src, int64_t sst, uint8_t *drow, int64_t x0,
             int64_t n, const float *sx, const float *sy, const int ps, warp_row_fn nn)
{
    const __m256 vsw = _mm256_set1_ps((float)w->sw), vsh = _mm256_set1_ps((float)w->sh);
    const __m256 zero = _mm256_setzero_ps();
    const __m256i vst = _mm256_set1_epi32((int32_t)sst), vps = _mm256_set1_epi32(ps);
    uint8_t *d = drow + x0 * ps;
    const int64_t nb = n / 8;
    int32_t off[WARP_CHUNK] __attribute__((aligned(32)));
    uint8_t inm[WARP_CHUNK / 8]; /* a step's pixels inside, a bit each */
    const int fill = w->border == GIP_BORDER_CONSTANT;
    uint8_t bv[16] = {0};
    for (int c = 0; c < w->cn; c++)
        gip__geo_storef(bv, c, w->dtype, w->bval[c]);
    for (int64_t b = 0; b < nb; b++) {
        const __m256 RX = _mm256_round_ps(_mm256_loadu_ps(sx + 8 * b),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const __m256 RY = _mm256_round_ps(_mm256_loadu_ps(sy + 8 * b),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const __m256 in = _mm256_and_ps(
            _mm256_and_ps(_mm256_cmp_ps(RX, zero, _CMP_GE_OQ), _mm256_cmp_ps(RY, zero, _CMP_GE_OQ)),
            _mm256_and_ps(_mm256_cmp_ps(RX, vsw, _CMP_LT_OQ), _mm256_cmp_ps(RY, vsh, _CMP_LT_OQ)));
        const __m256i o = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_cvttps_epi32(RY), vst),
                                           _mm256_mullo_epi32(_mm256_cvttps_epi32(RX), vps));
        _mm256_store_si256((__m256i *)(off + 8 * b), _mm256_and_si256(o, _mm256_castps_si256(in)));
        inm[b] = (uint8_t)_mm256_movemask_ps(in);
    }
    for (int64_t b = 0; b < nb; b++) {
        const int64_t i = 8 * b;
        if (inm[b] != 0xff && fill) { /* outside pixels take the border value */
            for (int k = 0; k < 8; k++)
                memcpy(d + (i + k) * ps, inm[b] >> k & 1 ? src + off[i + k] : bv, ps);
            continue;
        }
        if (inm[b] != 0xff) {
            nn(w, src, sst, drow, x0 + i, 8, sx + i, sy + i);
            continue;
        }
        for (int k = 0; k < 8; k++)
            memcpy(d + (i + k) * ps, src + off[i + k], ps);
    }
    const int64_t i = nb * 8;
    if (i < n)
        nn(w, src, sst, drow, x0 + i, n - i, sx + i, sy + i);
}

#define WARP_NN_FN(NAME, CN, PS)                                                                   \
    WARP_AVX2 static void warp_avx2_nn_##NAME##_##CN(const gip__warp *w, const uint8_t *src,       \
                                                     int64_t sst, uint8_t *drow, int64_t x0,       \
                                                     int64_t n, const float *sx, const float *sy)  \
    {                                                                                              \
        warp_avx2_nn(w, src, sst, drow, x0, n, sx, sy, PS, warp_nn_##NAME##_##CN);                 \
    }
WARP_NN_FN(u8, 1, 1)
WARP_NN_FN(u8, 3, 3)
WARP_NN_FN(u8, 4, 4)
WARP_NN_FN(u16, 1, 2)
WARP_NN_FN(u16, 3, 6)
WARP_NN_FN(u16, 4, 8)
WARP_NN_FN(f32, 1, 4)
WARP_NN_FN(f32, 3, 12)
WARP_NN_FN(f32, 4, 16)

/* ---- u8 bilinear with AVX-512 (VBMI): taps from row windows ---------------------------------
 * Sixteen pixels a step. Where the step's taps lie within 64 bytes of at most five consecutive
 * rows (the smallest column and row of the step are those of its first or last pixel: maps that
 * are monotone over 16 pixels, as the warps' and smooth remaps are), the five rows are loaded
 * once and each pixel's taps are picked with two-table byte permutes, no load a pixel. The
 * arithmetic is warp_avx2_u8()'s (the same operations on 16 lanes). Steps that do not fit, and
 * the tail, go through the AVX2 kernel. */
#define WARP_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi,fma")))
#define WARP_HAVE_AVX512 1
#define WARP_PF_STEP 32

#define WARP_BYTE_F512(g, sh) WARP_BYTE_FW(_mm512, si512, g, sh)
WARP_LERP_FN(warp_512_lerp, WARP_AVX512, __m512, __m512i, _mm512)

/* The 32-bit words at byte idx of row dy (top) and dy + 1 (bottom) of the windows R0..R4, dy in
 * 0..3 per lane (odd: dy & 1; high: dy >= 2). */
WARP_AVX512 static inline __attribute__((always_inline)) void
warp_512_pick(__m512i idx, __mmask16 odd, __mmask16 high, const __m512i *R, __m512i *top,
              __m512i *bot)
{
    const __m512i i1 = _mm512_mask_or_epi32(idx, odd, idx, _mm512_set1_epi32(0x40404040));
    /* top: rows (0, 1) or (2, 3) by dy & 1; bottom: rows (1, 2) or (3, 4) */
    const __m512i t01 = _mm512_permutex2var_epi8(R[0], i1, R[1]);
    const __m512i t23 = _mm512_permutex2var_epi8(R[2], i1, R[3]);
    const __m512i b12 = _mm512_permutex2var_epi8(R[1], i1, R[2]);
    const __m512i b34 = _mm512_permutex2var_epi8(R[3], i1, R[4]);
    *top = _mm512_mask_blend_epi32(high, t01, t23);
    *bot = _mm512_mask_blend_epi32(high, b12, b34);
}

/* The window WARP_PF_STEP pixels ahead of step i (rows rows from its first pixel's), into L1. */
WARP_AVX512 static inline __attribute__((always_inline)) void
warp_512_prefetch(const uint8_t *src, int64_t sst, const float *sx, const float *sy, int64_t i,
                  int64_t n, float lx, float ly, int rows, int cn)
{
    if (i + 16 + WARP_PF_STEP > n)
        return;
    const float px = sx[i + WARP_PF_STEP], py = sy[i + WARP_PF_STEP];
    if (px >= 0.f && py >= 0.f && px < lx && py < ly) {
        const uint8_t *p = src + (int64_t)py * sst + (int64_t)px * cn;
        for (int k = 0; k < rows; k++) {
            __builtin_prefetch(p + k * sst);
            __builtin_prefetch(p + k * sst + 63);
        }
    }
}

/* Whether the step's integer positions (IX, IY: FX, FY, each in [0, lx) and [0, ly)) fit a
 * window: columns within lxmax pixels of the smallest (LX, from ixm), rows within 3 of the
 * smallest (DY, from iym), and the 64-byte loads of rows iym .. iym + rows (held to the last
 * row) inside the image, whose bytes from src are end. */
WARP_AVX512 static inline __attribute__((always_inline)) int
warp_512_window(const gip__warp *w, int64_t sst, int64_t end, __m512 FX, __m512 FY, __m512 lx,
                __m512 ly, int32_t lxmax, int rows, int cn, int32_t *ixm, int32_t *iym, __m512i *LX,
                __m512i *DY)
{
    const __m512 zero = _mm512_setzero_ps();
    const __mmask16 in =
        _mm512_cmp_ps_mask(FX, zero, _CMP_GE_OQ) & _mm512_cmp_ps_mask(FY, zero, _CMP_GE_OQ) &
        _mm512_cmp_ps_mask(FX, lx, _CMP_LT_OQ) & _mm512_cmp_ps_mask(FY, ly, _CMP_LT_OQ);
    if (in != 0xffff)
        return 0;
    const __m512i IX = _mm512_cvttps_epi32(FX), IY = _mm512_cvttps_epi32(FY);
    const int32_t x0l = _mm_cvtsi128_si32(_mm512_castsi512_si128(IX)),
                  y0l = _mm_cvtsi128_si32(_mm512_castsi512_si128(IY)),
                  x1l = _mm_extract_epi32(_mm512_extracti32x4_epi32(IX, 3), 3),
                  y1l = _mm_extract_epi32(_mm512_extracti32x4_epi32(IY, 3), 3);
    *ixm = x0l < x1l ? x0l : x1l;
    *iym = y0l < y1l ? y0l : y1l;
    *LX = _mm512_sub_epi32(IX, _mm512_set1_epi32(*ixm));
    *DY = _mm512_sub_epi32(IY, _mm512_set1_epi32(*iym));
    const int64_t last = *iym + rows < w->sh ? *iym + rows : w->sh - 1;
    return _mm512_cmple_epu32_mask(*LX, _mm512_set1_epi32(lxmax)) == 0xffff &&
           _mm512_cmple_epu32_mask(*DY, _mm512_set1_epi32(3)) == 0xffff &&
           last * sst + (int64_t)*ixm * cn + 64 <= end;
}

/* The window's rows iym .. iym + n - 1 from column ixm (rows below the image repeat its last),
 * and the masks of the lanes whose row in it is odd and of those that reach its rows 2 and 3. */
WARP_AVX512 static inline __attribute__((always_inline)) void
warp_512_rows(const gip__warp *w, const uint8_t *src, int64_t sst, int32_t ixm, int32_t iym,
              __m512i DY, const int cn, const int n, __m512i *R, __mmask16 *odd, __mmask16 *high)
{
    const uint8_t *base = src + (int64_t)ixm * cn;
    for (int k = 0; k < n; k++) {
        const int64_t r = iym + k < w->sh ? iym + k : w->sh - 1;
        R[k] = _mm512_loadu_si512((const void *)(base + r * sst));
    }
    *odd = _mm512_test_epi32_mask(DY, _mm512_set1_epi32(1));
    *high = _mm512_cmpge_epu32_mask(DY, _mm512_set1_epi32(2));
}

/* The low three bytes of o's 16 lanes to 48 bytes at d. */
WARP_AVX512 static inline __attribute__((always_inline)) void warp_512_store3(uint8_t *d, __m512i o)
{
    const __m512i pk = _mm512_set_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 62, 61, 60,
                                       58, 57, 56, 54, 53, 52, 50, 49, 48, 46, 45, 44, 42, 41, 40,
                                       38, 37, 36, 34, 33, 32, 30, 29, 28, 26, 25, 24, 22, 21, 20,
                                       18, 17, 16, 14, 13, 12, 10, 9, 8, 6, 5, 4, 2, 1, 0);
    _mm512_mask_storeu_epi8(d, 0xffffffffffffULL, _mm512_permutexvar_epi8(pk, o));
}

WARP_AVX512 static inline __attribute__((always_inline)) int
warp_512_u8(const gip__warp *w, const uint8_t *src, int64_t sst, uint8_t *drow, int64_t x0,
            int64_t n, const float *sx, const float *sy, const int cn, warp_row_fn avx2)
{
    const __m512 vlx = _mm512_set1_ps((float)(w->sw - 1)), vly = _mm512_set1_ps((float)(w->sh - 1));
    const int64_t end = (w->sh - 1) * sst + w->sw * cn; /* the image's bytes from src */
    const int32_t lxmax = cn == 1 ? 62 : 19;            /* the window holds the pair */
    const float vlxs = (float)(w->sw - 1), vlys = (float)(w->sh - 1);
    uint8_t *d = drow + x0 * cn;
    int64_t i = 0;
    int miss = 0; /* steps that missed their window */
    for (; i + 16 <= n; i += 16) {
        warp_512_prefetch(src, sst, sx, sy, i, n, vlxs, vlys, 5, cn);
        const __m512 X = _mm512_loadu_ps(sx + i), Y = _mm512_loadu_ps(sy + i);
        const __m512 FX = _mm512_roundscale_ps(X, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
        const __m512 FY = _mm512_roundscale_ps(Y, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
        int32_t ixm, iym;
        __m512i LX, DY;
        const int ok =
            warp_512_window(w, sst, end, FX, FY, vlx, vly, lxmax, 4, cn, &ixm, &iym, &LX, &DY);
        if (!ok) {
            miss++;
            avx2(w, src, sst, drow, x0 + i, 16, sx + i, sy + i);
            continue;
        }
        __m512i R[5];
        __mmask16 odd, high;
        warp_512_rows(w, src, sst, ixm, iym, DY, cn, 5, R, &odd, &high);
        const __m512 ax = _mm512_sub_ps(X, FX), ay = _mm512_sub_ps(Y, FY);
        if (cn == 1) {
            const __m512i idx = _mm512_or_si512(
                LX, _mm512_slli_epi32(_mm512_add_epi32(LX, _mm512_set1_epi32(1)), 8));
            __m512i top, bot;
            warp_512_pick(idx, odd, high, R, &top, &bot);
            __m512i r = warp_512_lerp(ax, ay, WARP_BYTE_F512(top, 0), WARP_BYTE_F512(top, 8),
                                      WARP_BYTE_F512(bot, 0), WARP_BYTE_F512(bot, 8));
            _mm_storeu_si128((__m128i *)(d + i), _mm512_cvtepi32_epi8(r));
            continue;
        }
        /* 3 channels: the words of the tap pixel (x) and of its right neighbour (x + 1) */
        const __m512i l3 = _mm512_add_epi32(LX, _mm512_add_epi32(LX, LX));
        const __m512i idx0 = _mm512_add_epi32(_mm512_mullo_epi32(l3, _mm512_set1_epi32(0x010101)),
                                              _mm512_set1_epi32(0x020100));
        const __m512i idx1 = _mm512_add_epi32(idx0, _mm512_set1_epi32(0x030303));
        __m512i t0, b0, t1, b1;
        warp_512_pick(idx0, odd, high, R, &t0, &b0);
        warp_512_pick(idx1, odd, high, R, &t1, &b1);
        __m512i o = warp_512_lerp(ax, ay, WARP_BYTE_F512(t0, 0), WARP_BYTE_F512(t1, 0),
                                  WARP_BYTE_F512(b0, 0), WARP_BYTE_F512(b1, 0));
        o = _mm512_or_si512(
            o, _mm512_slli_epi32(warp_512_lerp(ax, ay, WARP_BYTE_F512(t0, 8), WARP_BYTE_F512(t1, 8),
                                               WARP_BYTE_F512(b0, 8), WARP_BYTE_F512(b1, 8)),
                                 8));
        o = _mm512_or_si512(
            o,
            _mm512_slli_epi32(warp_512_lerp(ax, ay, WARP_BYTE_F512(t0, 16), WARP_BYTE_F512(t1, 16),
                                            WARP_BYTE_F512(b0, 16), WARP_BYTE_F512(b1, 16)),
                              16));
        warp_512_store3(d + i * 3, o);
    }
    if (i < n)
        avx2(w, src, sst, drow, x0 + i, n - i, sx + i, sy + i);
    return miss;
}

/* Nearest u8 pixels with AVX-512 (VBMI): sixteen a step, each picked from 64-byte windows of at
 * most four consecutive rows as warp_512_u8() picks its taps; other steps and the tail go
 * through warp_avx2_nn(). */
WARP_AVX512 static inline __attribute__((always_inline)) int
warp_512_nn_u8(const gip__warp *w, const uint8_t *src, int64_t sst, uint8_t *drow, int64_t x0,
               int64_t n, const float *sx, const float *sy, const int cn, warp_row_fn avx2)
{
    const __m512 vsw = _mm512_set1_ps((float)w->sw), vsh = _mm512_set1_ps((float)w->sh);
    const int64_t end = (w->sh - 1) * sst + w->sw * cn; /* the image's bytes from src */
    const int32_t lxmax = cn == 1 ? 63 : 20;            /* the window holds the pixel */
    const float lxs = (float)w->sw, lys = (float)w->sh;
    uint8_t *d = drow + x0 * cn;
    int64_t i = 0;
    int miss = 0; /* steps that missed their window */
    for (; i + 16 <= n; i += 16) {
        warp_512_prefetch(src, sst, sx, sy, i, n, lxs, lys, 4, cn);
        const __m512 RX = _mm512_roundscale_ps(_mm512_loadu_ps(sx + i),
                                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const __m512 RY = _mm512_roundscale_ps(_mm512_loadu_ps(sy + i),
                                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        int32_t ixm, iym;
        __m512i LX, DY;
        const int ok =
            warp_512_window(w, sst, end, RX, RY, vsw, vsh, lxmax, 3, cn, &ixm, &iym, &LX, &DY);
        if (!ok) {
            miss++;
            avx2(w, src, sst, drow, x0 + i, 16, sx + i, sy + i);
            continue;
        }
        __m512i R[4];
        __mmask16 odd, high;
        warp_512_rows(w, src, sst, ixm, iym, DY, cn, 4, R, &odd, &high);
        __m512i idx = LX;
        if (cn == 3)
            idx =
                _mm512_add_epi32(_mm512_mullo_epi32(_mm512_add_epi32(LX, _mm512_add_epi32(LX, LX)),
                                                    _mm512_set1_epi32(0x010101)),
                                 _mm512_set1_epi32(0x020100));
        const __m512i i1 = _mm512_mask_or_epi32(idx, odd, idx, _mm512_set1_epi32(0x40404040));
        const __m512i t01 = _mm512_permutex2var_epi8(R[0], i1, R[1]);
        const __m512i t23 = _mm512_permutex2var_epi8(R[2], i1, R[3]);
        const __m512i px = _mm512_mask_blend_epi32(high, t01, t23);
        if (cn == 1) {
            _mm_storeu_si128((__m128i *)(d + i), _mm512_cvtepi32_epi8(px));
            continue;
        }
        warp_512_store3(d + i * 3, px);
    }
    if (i < n)
        avx2(w, src, sst, drow, x0 + i, n - i, sx + i, sy + i);
    return miss;
}

/* The kernels for 1 and 3 channels, steps that miss their window going through the AVX2 ones. */
#define WARP_512_FN(KIND, CN)                                                                      \
    WARP_AVX512 static int warp_512_##KIND##_##CN(const gip__warp *w, const uint8_t *src,          \
                                                  int64_t sst, uint8_t *drow, int64_t x0,          \
                                                  int64_t n, const float *sx, const float *sy)     \
    {                                                                                              \
        return warp_512_##KIND(w, src, sst, drow, x0, n, sx, sy, CN, warp_avx2_##KIND##_##CN);     \
    }
WARP_512_FN(u8, 1)
WARP_512_FN(u8, 3)
WARP_512_FN(nn_u8, 1)
WARP_512_FN(nn_u8, 3)
#endif

#ifdef WARP_HAVE_AVX2
#define WARP_AVX2_CASE(NAME, CN) warp_avx2_case_##NAME(CN)
#define warp_avx2_case_u8(CN)                                                                      \
    (w->interp == GIP_INTER_NEAREST && vec && j->avx2                                              \
         ? ((CN != 4 && use512 ? WARP_512_NN(CN)                                                   \
                               : warp_avx2_nn_u8_##CN(w, src, sst, d, x0, n, sx, sy)),             \
            1)                                                                                     \
         : w->interp == GIP_INTER_LINEAR && vec && j->avx2 &&                                      \
               ((CN != 4 && use512 ? WARP_512_U8(CN)                                               \
                                   : warp_avx2_u8_##CN(w, src, sst, d, x0, n, sx, sy)),            \
                1))
#define WARP_512_U8(CN) WARP_512_U8_##CN
#define WARP_512_NN(CN) WARP_512_NN_##CN
#define WARP_512_NN_1 (void)(miss512 = warp_512_nn_u8_1(w, src, sst, d, x0, n, sx, sy))
#define WARP_512_NN_3 (void)(miss512 = warp_512_nn_u8_3(w, src, sst, d, x0, n, sx, sy))
#define WARP_512_NN_4 (void)0
#define WARP_512_U8_1 (void)(miss512 = warp_512_u8_1(w, src, sst, d, x0, n, sx, sy))
#define WARP_512_U8_3 (void)(miss512 = warp_512_u8_3(w, src, sst, d, x0, n, sx, sy))
#define WARP_512_U8_4 (void)0
#else
#define WARP_AVX2_CASE(NAME, CN) 0
#endif
#ifdef WARP_HAVE_AVX2
#define warp_avx2_case_u16(CN)                                                                     \
    (w->interp == GIP_INTER_NEAREST && vec && j->avx2 &&                                           \
     (warp_avx2_nn_u16_##CN(w, src, sst, d, x0, n, sx, sy), 1))
#define warp_avx2_case_f32(CN)                                                                     \
    (w->interp == GIP_INTER_NEAREST && vec && j->avx2 &&                                           \
     (warp_avx2_nn_f32_##CN(w, src, sst, d, x0, n, sx, sy), 1))
#endif

/* Rows of a tile ahead of the one sampled: the source lines that their pixels' taps read,
 * fetched into the cache (one pixel in 8), as the hardware's prefetchers do not follow a rotated
 * walk through the source. Approximate coordinates serve. */
#define WARP_PF_ROWS 4
static inline void warp_prefetch(const warp_job *j, int64_t y, int64_t x0, int64_t n)
{
    const gip__warp *w = j->w;
    const uint8_t *src = j->src->data;
    const int64_t sst = j->src->stride;
    const int64_t px = w->cn * (int64_t)gip_dtype_size(w->dtype);
    const float *mx = NULL, *my = NULL;
    if (j->mx) {
        mx = (const float *)((const uint8_t *)j->mx->data + y * j->mx->stride);
        my = (const float *)((const uint8_t *)j->my->data + y * j->my->stride);
    }
    const float fy = (float)y, lx = (float)w->sw, ly = (float)(w->sh - 1);
    for (int64_t i = 0; i < n; i += 8) {
        const float fx = (float)(x0 + i);
        float X, Y;
        if (mx) {
            X = mx[x0 + i];
            Y = my[x0 + i];
        } else {
            X = w->m[0] * fx + w->m[1] * fy + w->m[2];
            Y = w->m[3] * fx + w->m[4] * fy + w->m[5];
            if (w->persp) {
                const float q = w->m[6] * fx + w->m[7] * fy + w->m[8];
                X /= q;
                Y /= q;
            }
        }
        if (X >= 0.f && Y >= 0.f && X < lx && Y < ly) {
            const uint8_t *p = src + (int64_t)Y * sst + (int64_t)X * px;
            __builtin_prefetch(p);
            __builtin_prefetch(p + sst);
        }
    }
}

WARP_CLONES static void warp_rows(void *arg, int64_t y0, int64_t y1)
{
    const warp_job *j = arg;
    const gip__warp *w = j->w;
    const uint8_t *src = j->src->data;
    const int64_t sst = j->src->stride, dw = j->dst->width;
    const int typed = (w->interp == GIP_INTER_LINEAR || w->interp == GIP_INTER_NEAREST ||
                       w->interp == GIP_INTER_CUBIC) &&
                      (w->cn == 1 || w->cn == 3 || w->cn == 4) &&
                      (w->dtype == GIP_U8 || w->dtype == GIP_U16 || w->dtype == GIP_F32);
    const int vec = w->sw >= 2 && w->sh >= 2 && w->sw <= (1 << 24) && w->sh <= (1 << 24) &&
                    sst > 0 && sst <= INT32_MAX / w->sh;
    float bx[WARP_CHUNK], by[WARP_CHUNK];
    const float *sx = bx, *sy = by;
    /* The AVX-512 window kernels pay only where most steps fit their window (a rotated warp's
     * steps cross more rows than it holds, and each step that misses runs the AVX2 kernel
     * alone): after a chunk with more than a quarter of its steps missed, the next
     * WARP_512_REST chunks go straight to the AVX2 kernels, then the window kernels try again. */
    int64_t rest512 = 0;
    /* Whole rows, one after the other, for remap (its maps stream in) and for warps whose rows
     * cross few source rows (a row's source lines stay in L2 for the next one, and the kernels
     * prefetch into L1 along the row); steeper warps in bands of WARP_BAND rows, a band in
     * columns of WARP_CHUNK (the source a tile reads stays in cache). Source lines are also
     * prefetched WARP_PF_ROWS rows ahead, within a tile or within the rows. */
    const int64_t band = j->mx || fabsf(w->m[3]) < WARP_STEEP ? 1 : WARP_BAND;
    for (int64_t yb = y0; yb < y1; yb += band)
        for (int64_t x0 = 0; x0 < dw; x0 += WARP_CHUNK)
            for (int64_t y = yb; y < y1 && y < yb + band; y++) {
                uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
                const int64_t n = dw - x0 < WARP_CHUNK ? dw - x0 : WARP_CHUNK;
                if (j->mx) {
                    sx = (const float *)((const uint8_t *)j->mx->data + y * j->mx->stride) + x0;
                    sy = (const float *)((const uint8_t *)j->my->data + y * j->my->stride) + x0;
                } else {
                    warp_coords(w, y, x0, n, bx, by);
                }
                const int64_t pfirst = j->mx ? y0 : yb,
                              pend = j->mx || yb + band > y1 ? y1 : yb + band;
                if (y == pfirst) /* the first rows */
                    for (int64_t k = 1; k < WARP_PF_ROWS && y + k < pend; k++)
                        warp_prefetch(j, y + k, x0, n);
                if (y + WARP_PF_ROWS < pend)
                    warp_prefetch(j, y + WARP_PF_ROWS, x0, n);
                const int use512 = j->avx512 && rest512 == 0;
                int miss512 = 0;
                if (rest512 > 0)
                    rest512--;
                if (!typed) {
                    for (int64_t i = 0; i < n; i++)
                        gip__warp_sample(w, src, sst, d, x0 + i, sx[i], sy[i]);
                    continue;
                }
#define WARP_CASE(NAME, CN)                                                                        \
    case CN:                                                                                       \
        if (WARP_AVX2_CASE(NAME, CN))                                                              \
            break;                                                                                 \
        if (w->interp == GIP_INTER_CUBIC) {                                                        \
            if (vec)                                                                               \
                warp_vcub_##NAME##_##CN(w, src, sst, d, x0, n, sx, sy);                            \
            else                                                                                   \
                for (int64_t i = 0; i < n; i++)                                                    \
                    gip__warp_sample(w, src, sst, d, x0 + i, sx[i], sy[i]);                        \
            break;                                                                                 \
        }                                                                                          \
        if (w->interp == GIP_INTER_LINEAR && vec)                                                  \
            warp_vlin_##NAME##_##CN(w, src, sst, d, x0, n, sx, sy);                                \
        else if (w->interp == GIP_INTER_LINEAR)                                                    \
            warp_lin_##NAME##_##CN(w, src, sst, d, x0, n, sx, sy);                                 \
        else                                                                                       \
            warp_nn_##NAME##_##CN(w, src, sst, d, x0, n, sx, sy);                                  \
        break;
                if (w->dtype == GIP_U8) {
                    switch (w->cn) {
                        WARP_CASE(u8, 1) WARP_CASE(u8, 3) WARP_CASE(u8, 4)
                    }
                } else if (w->dtype == GIP_U16) {
                    switch (w->cn) {
                        WARP_CASE(u16, 1) WARP_CASE(u16, 3) WARP_CASE(u16, 4)
                    }
                } else {
                    switch (w->cn) {
                        WARP_CASE(f32, 1) WARP_CASE(f32, 3) WARP_CASE(f32, 4)
                    }
                }
#undef WARP_CASE
                if (use512 && miss512 * 4 > n / 16)
                    rest512 = WARP_512_REST;
            }
}

/* The AVX-512 kernels' switch: the CPU has AVX-512 F, BW, VL, DQ and VBMI, and neither
 * GIP_NOSIMD nor GIP_NOAVX512 is set. */
static int warp_avx512(void)
{
#ifdef WARP_HAVE_AVX512
    return (gip__simd() & GIP__SIMD_VBMI) != 0;
#else
    return 0;
#endif
}

gip_status gip__warp_check_images(gip_context *ctx, const gip_image *src, const gip_image *dst,
                                  const char *op)
{
    gip_status st;
    if ((st = gip__check_dtype(ctx, src, GIP__DT_IMAGE, op, "src")))
        return st;
    if ((st = gip__check_same_type(ctx, src, dst, op)))
        return st;
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap", op);
    if (src->width >= (1 << 30) || src->height >= (1 << 30))
        return gip__error(ctx, GIP_ERR_TOO_LARGE, "%s: sides of 2^30 pixels and more are refused",
                          op);
    return GIP_OK;
}

gip_status gip__warp_run(gip_context *ctx, const gip_image *src, gip_image *dst, const gip__warp *w,
                         const char *op)
{
    bool on_device = false;
    gip_status st = gip__check_pair(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    if ((st = gip__warp_check_images(ctx, src, dst, op)))
        return st;
    gip__warp wr = *w;
    wr.vec_end = dst->width / 16 * 16;
    w = &wr;
    if (on_device)
        return GIP__CUDA_CALL(ctx, op,
                              w->interp == GIP_INTER_LANCZOS4
                                  ? gip__lanczos_cuda(ctx, src, dst, w, NULL, NULL, 0)
                                  : gip__warp_cuda(ctx, src, dst, w));
    if (w->interp == GIP_INTER_LANCZOS4) {
        gip__lanczos_cpu(ctx, src, dst, w, NULL, NULL, 0);
        return GIP_OK;
    }
    warp_job j = {w, src, dst, NULL, NULL, gip__simd_avx2_fma(), warp_avx512()};
    gip__parallel_for(ctx, dst->height, 8, warp_rows, &j);
    return GIP_OK;
}

gip_status gip__warp_matrix(gip_context *ctx, const gip_image *src, gip_image *dst,
                            const double *mat, int32_t persp, const gip_warp_params *params,
                            const char *op)
{
    const gip_warp_params def = GIP_WARP_PARAMS_DEFAULT;
    const gip_warp_params *p = params ? params : &def;
    gip__warp w;
    gip_status st =
        gip__warp_setup(ctx, &w, mat, persp, p->flags, &p->border, p->transparent, src, op);
    if (st)
        return st;
    return gip__warp_run(ctx, src, dst, &w, op);
}

void gip__warp_remap_cpu(gip_context *ctx, const gip_image *src, gip_image *dst,
                         const gip_image *mapx, const gip_image *mapy, const gip__warp *w)
{
    if (w->interp == GIP_INTER_LANCZOS4) {
        gip__lanczos_cpu(ctx, src, dst, w, mapx, mapy, 0);
        return;
    }
    warp_job j = {w, src, dst, mapx, mapy, gip__simd_avx2_fma(), warp_avx512()};
    gip__parallel_for(ctx, dst->height, 8, warp_rows, &j);
}
