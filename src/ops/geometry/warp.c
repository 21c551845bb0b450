/* SPDX-License-Identifier: MIT */
/* The warps' shared half: OpenCV's matrix inversion (double), the checks, and the CPU backend
 * (rows on the worker pool, each pixel with warp.h's arithmetic). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ops/geometry/warp.h"
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
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: flags 0x%x: an interpolation (nearest, linear, cubic) with "
                          "GIP_WARP_INVERSE_MAP or not",
                          op, (unsigned)flags);
    if (interp == GIP_INTER_AREA) /* as OpenCV */
        interp = GIP_INTER_LINEAR;
    if (interp != GIP_INTER_NEAREST && interp != GIP_INTER_LINEAR && interp != GIP_INTER_CUBIC)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: interpolation %d is not supported: nearest (0), linear (1; area "
                          "is linear) or cubic (2)",
                          op, (int)interp);
    if (!border)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: border must not be NULL", op);
    if ((unsigned)border->mode > GIP_BORDER_WRAP)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: border mode %d is unknown", op,
                          (int)border->mode);
    if (interp == GIP_INTER_CUBIC && (transparent || (border->mode != GIP_BORDER_CONSTANT &&
                                                      border->mode != GIP_BORDER_REPLICATE)))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: cubic interpolation takes border constant or replicate only (%s "
                          "is not supported with cubic)",
                          op, transparent ? "transparent" : gip_border_name(border->mode));
    double inv[9] = {0, 0, 0, 0, 0, 0, 0, 0, 1};
    if (flags & GIP_WARP_INVERSE_MAP)
        memcpy(inv, mat, (persp ? 9 : 6) * sizeof *inv);
    else if (persp)
        invert3(mat, inv);
    else
        invert_affine(mat, inv);
    for (int i = 0; i < 9; i++)
        w->m[i] = (float)inv[i];
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
 * instructions) and the baseline (the library's fmaf: the same, correctly rounded results). */

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define WARP_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define WARP_CLONES
#endif
#define WARP_INLINE static inline __attribute__((always_inline))
#define WARP_CHUNK 64 /* a multiple of 16: OpenCV's vector blocks do not straddle chunks */
#define WARP_BAND 16

typedef struct warp_job {
    const gip__warp *w;
    const gip_image *src;
    gip_image *dst;
    const gip_image *mx, *my; /* remap's maps (the coordinates); NULL for the warps */
    int avx2;                 /* the AVX2 + FMA kernels may run */
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

/* ---- u8 bilinear with AVX2 and FMA ----------------------------------------------------------
 * Eight pixels a step: the floor, the weights and the in-image test in vectors, the taps
 * gathered as 32-bit words (a tap pair of one channel, or a whole pixel of 3 or 4 channels), the
 * arithmetic of gip__warp_sample() in the same order with the same fused operations, rounded half
 * to even by the conversion (the default rounding mode, as lrintf) and saturated. A step whose
 * pixels are all outside a constant border is filled; any other step with a pixel that is not
 * wholly inside (or whose 4-byte reads would pass the image's last byte) goes through
 * warp_lin_*(). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define WARP_HAVE_AVX2 1
#define WARP_AVX2 __attribute__((target("avx2,fma")))

/* 8 floats of the byte at bit `sh` of each 32-bit lane. */
#define WARP_BYTE_F(g, sh)                                                                         \
    _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32((g), (sh)), _mm256_set1_epi32(0xff)))

/* One channel of 8 pixels: the taps as floats, the result as saturated 32-bit integers. */
WARP_AVX2 static inline __attribute__((always_inline)) __m256i
warp_avx2_lerp(__m256 ax, __m256 ay, __m256 p0, __m256 p1, __m256 p2, __m256 p3)
{
    const __m256 v0 = _mm256_fmadd_ps(ax, _mm256_sub_ps(p1, p0), p0);
    const __m256 v1 = _mm256_fmadd_ps(ax, _mm256_sub_ps(p3, p2), p2);
    const __m256 r = _mm256_fmadd_ps(ay, _mm256_sub_ps(v1, v0), v0);
    const __m256i i = _mm256_cvtps_epi32(r);
    return _mm256_min_epi32(_mm256_max_epi32(i, _mm256_setzero_si256()), _mm256_set1_epi32(255));
}

WARP_AVX2 static inline __attribute__((always_inline)) void
warp_avx2_u8(const gip__warp *w, const uint8_t *src, int64_t sst, uint8_t *drow, int64_t x0,
             int64_t n, const float *sx, const float *sy, const int cn)
{
    const int32_t st = (int32_t)sst, ps = cn;
    const __m256 vlx = _mm256_set1_ps((float)(w->sw - 1)), vly = _mm256_set1_ps((float)(w->sh - 1));
    const __m256 vsw = _mm256_set1_ps((float)w->sw), vsh = _mm256_set1_ps((float)w->sh);
    const __m256 zero = _mm256_setzero_ps(), m1 = _mm256_set1_ps(-1.f);
    const __m256i vst = _mm256_set1_epi32(st), vps = _mm256_set1_epi32(ps);
    /* the last offset whose 4-byte reads of both rows (at +0 and +ps) stay in the image */
    const int64_t limit = (w->sh - 1) * sst + w->sw * cn - sst - ps - 4;
    const __m256i vlim = _mm256_set1_epi32((int32_t)(limit < -1 ? -1 : limit) + 1);
    const int fill = w->border == GIP_BORDER_CONSTANT;
    uint8_t bv[4] = {0, 0, 0, 0};
    for (int c = 0; c < cn; c++)
        bv[c] = warp_u8(w->bval[c]);
    uint8_t *d = drow + x0 * cn;
    const int *s0 = (const int *)src, *s1 = (const int *)(src + sst);
    const int *s0b = (const int *)(src + ps), *s1b = (const int *)(src + sst + ps);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 X = _mm256_loadu_ps(sx + i), Y = _mm256_loadu_ps(sy + i);
        const __m256 FX = _mm256_floor_ps(X), FY = _mm256_floor_ps(Y);
        const __m256 in = _mm256_and_ps(
            _mm256_and_ps(_mm256_cmp_ps(FX, zero, _CMP_GE_OQ), _mm256_cmp_ps(FY, zero, _CMP_GE_OQ)),
            _mm256_and_ps(_mm256_cmp_ps(FX, vlx, _CMP_LT_OQ), _mm256_cmp_ps(FY, vly, _CMP_LT_OQ)));
        const __m256i off = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_cvttps_epi32(FY), vst),
                                             _mm256_mullo_epi32(_mm256_cvttps_epi32(FX), vps));
        const __m256 safe = _mm256_and_ps(in, _mm256_castsi256_ps(_mm256_cmpgt_epi32(vlim, off)));
        if (_mm256_movemask_ps(safe) != 0xff) {
            const __m256 touch = _mm256_and_ps(
                _mm256_and_ps(_mm256_cmp_ps(FX, m1, _CMP_GE_OQ), _mm256_cmp_ps(FY, m1, _CMP_GE_OQ)),
                _mm256_and_ps(_mm256_cmp_ps(FX, vsw, _CMP_LT_OQ),
                              _mm256_cmp_ps(FY, vsh, _CMP_LT_OQ)));
            if (fill && _mm256_movemask_ps(touch) == 0) { /* no tap in the image */
                for (int k = 0; k < 8; k++)
                    for (int c = 0; c < cn; c++)
                        d[(i + k) * cn + c] = bv[c];
                continue;
            }
            if (cn == 1)
                warp_lin_u8_1(w, src, sst, drow, x0 + i, 8, sx + i, sy + i);
            else if (cn == 3)
                warp_lin_u8_3(w, src, sst, drow, x0 + i, 8, sx + i, sy + i);
            else
                warp_lin_u8_4(w, src, sst, drow, x0 + i, 8, sx + i, sy + i);
            continue;
        }
        const __m256 ax = _mm256_sub_ps(X, FX), ay = _mm256_sub_ps(Y, FY);
        if (cn == 1) {
            const __m256i g0 = _mm256_i32gather_epi32(s0, off, 1);
            const __m256i g1 = _mm256_i32gather_epi32(s1, off, 1);
            const __m256i r = warp_avx2_lerp(ax, ay, WARP_BYTE_F(g0, 0), WARP_BYTE_F(g0, 8),
                                             WARP_BYTE_F(g1, 0), WARP_BYTE_F(g1, 8));
            const __m256i p16 = _mm256_packus_epi32(r, r);
            const __m256i p8 = _mm256_packus_epi16(p16, p16);
            const __m128i o =
                _mm_unpacklo_epi32(_mm256_castsi256_si128(p8), _mm256_extracti128_si256(p8, 1));
            _mm_storel_epi64((__m128i *)(d + i), o);
            continue;
        }
        const __m256i g0 = _mm256_i32gather_epi32(s0, off, 1);
        const __m256i g1 = _mm256_i32gather_epi32(s0b, off, 1);
        const __m256i g2 = _mm256_i32gather_epi32(s1, off, 1);
        const __m256i g3 = _mm256_i32gather_epi32(s1b, off, 1);
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
#endif

#ifdef WARP_HAVE_AVX2
#define WARP_AVX2_CASE(NAME, CN) warp_avx2_case_##NAME(CN)
#define warp_avx2_case_u8(CN)                                                                      \
    (w->interp == GIP_INTER_LINEAR && vec && j->avx2 &&                                            \
     (warp_avx2_u8_##CN(w, src, sst, d, x0, n, sx, sy), 1))
#else
#define WARP_AVX2_CASE(NAME, CN) 0
#endif
#define warp_avx2_case_u16(CN) 0
#define warp_avx2_case_f32(CN) 0

WARP_CLONES static void warp_rows(void *arg, int64_t y0, int64_t y1)
{
    const warp_job *j = arg;
    const gip__warp *w = j->w;
    const uint8_t *src = j->src->data;
    const int64_t sst = j->src->stride, dw = j->dst->width;
    const int typed = (w->interp == GIP_INTER_LINEAR || w->interp == GIP_INTER_NEAREST) &&
                      (w->cn == 1 || w->cn == 3 || w->cn == 4) &&
                      (w->dtype == GIP_U8 || w->dtype == GIP_U16 || w->dtype == GIP_F32);
    const int vec = w->sw >= 2 && w->sh >= 2 && w->sw <= (1 << 24) && w->sh <= (1 << 24) &&
                    sst > 0 && sst <= INT32_MAX / w->sh;
    float bx[WARP_CHUNK], by[WARP_CHUNK];
    const float *sx = bx, *sy = by;
    /* bands of WARP_BAND rows, a band in columns of WARP_CHUNK: the source a tile reads stays in
     * cache when the map rotates */
    for (int64_t yb = y0; yb < y1; yb += WARP_BAND)
        for (int64_t x0 = 0; x0 < dw; x0 += WARP_CHUNK)
            for (int64_t y = yb; y < y1 && y < yb + WARP_BAND; y++) {
                uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
                const int64_t n = dw - x0 < WARP_CHUNK ? dw - x0 : WARP_CHUNK;
                if (j->mx) {
                    sx = (const float *)((const uint8_t *)j->mx->data + y * j->mx->stride) + x0;
                    sy = (const float *)((const uint8_t *)j->my->data + y * j->my->stride) + x0;
                } else {
                    warp_coords(w, y, x0, n, bx, by);
                }
                if (!typed) {
                    for (int64_t i = 0; i < n; i++)
                        gip__warp_sample(w, src, sst, d, x0 + i, sx[i], sy[i]);
                    continue;
                }
#define WARP_CASE(NAME, CN)                                                                        \
    case CN:                                                                                       \
        if (WARP_AVX2_CASE(NAME, CN))                                                              \
            break;                                                                                 \
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
            }
}

gip_status gip__warp_run(gip_context *ctx, const gip_image *src, gip_image *dst, const gip__warp *w,
                         const char *op)
{
    bool on_device = false;
    gip_status st = gip__check_pair(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    if ((st = gip__check_dtype(ctx, src, GIP__DT_IMAGE, op, "src")))
        return st;
    if (dst->dtype != src->dtype || dst->channels != src->channels)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: dst is %d-channel %s but src is %d-channel %s; they must be equal",
                          op, (int)dst->channels, gip_dtype_name(dst->dtype), (int)src->channels,
                          gip_dtype_name(src->dtype));
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap", op);
    if (src->width >= (1 << 30) || src->height >= (1 << 30))
        return gip__error(ctx, GIP_ERR_TOO_LARGE, "%s: sides of 2^30 pixels and more are refused",
                          op);
    gip__warp wr = *w;
    wr.vec_end = dst->width / 16 * 16;
    w = &wr;
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        return gip__warp_cuda(ctx, src, dst, w);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
#endif
    }
    warp_job j = {w, src, dst, NULL, NULL, gip__simd_avx2_fma()};
    gip__parallel_for(ctx, dst->height, 8, warp_rows, &j);
    return GIP_OK;
}

void gip__warp_remap_cpu(gip_context *ctx, const gip_image *src, gip_image *dst,
                         const gip_image *mapx, const gip_image *mapy, const gip__warp *w)
{
    warp_job j = {w, src, dst, mapx, mapy, gip__simd_avx2_fma()};
    gip__parallel_for(ctx, dst->height, 8, warp_rows, &j);
}
