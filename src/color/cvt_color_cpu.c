/* SPDX-License-Identifier: MIT */
/* gip_cvt_color on the CPU: per-dtype row functions specialised for each code at compile time,
 * rows spread over the context's threads; AVX2 kernels for the gray codes next to their scalar
 * twins, chosen once per call. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "color/cvt_color.h"
#include "color/cvt_color_cpu.h"
#include "tuning.h"

#if defined(__x86_64__) || defined(__i386__)
#define GIP__CC_X86 1
#include <immintrin.h>
#define GIP__AVX2 __attribute__((target("avx2,fma")))
#endif

#if defined(__GNUC__)
#define GIP__INLINE static inline __attribute__((always_inline))
#else
#define GIP__INLINE static inline
#endif

/* Gray from the first three channels in memory order s0, s1, s2 with weights c0, c1, c2 (c1 is
 * green; c0 and c2 are red and blue in the order of the code). */
GIP__INLINE uint8_t gray_u8(uint8_t s0, uint8_t s1, uint8_t s2, int32_t c0, int32_t c2)
{
    return (uint8_t)((s0 * c0 + s1 * GIP__GRAY_G15 + s2 * c2 + (1 << (GIP__GRAY_SHIFT - 1))) >>
                     GIP__GRAY_SHIFT);
}

GIP__INLINE uint16_t gray_u16(uint16_t s0, uint16_t s1, uint16_t s2, int32_t c0, int32_t c2)
{
    return (uint16_t)((s0 * c0 + s1 * GIP__GRAY_G15 + s2 * c2 + (1 << (GIP__GRAY_SHIFT - 1))) >>
                      GIP__GRAY_SHIFT);
}

/* The fused steps are spelled out so that -ffp-contract cannot change them (see cvt_color.h). */
GIP__INLINE float gray_f32(float s0, float s1, float s2, float c0, float c2)
{
    float y = s0 * c0;
    y = fmaf(s1, GIP__GRAY_GF, y);
    return fmaf(s2, c2, y);
}

/* Row functions of one dtype. Each pixel is read whole before it is written, which makes the
 * in-place swaps safe. scn, dcn and swap are constants at every call, so each use is a loop
 * specialised for its code. */
#define DEFINE_TYPE(TN, T, CT, CR, CB, ALPHA)                                                      \
    GIP__INLINE void reorder_##TN(const T *s, T *d, int64_t w, int scn, int dcn, bool swap)        \
    {                                                                                              \
        for (int64_t x = 0; x < w; x++) {                                                          \
            T v0 = s[x * scn], v1 = s[x * scn + 1], v2 = s[x * scn + 2];                           \
            T v3 = scn == 4 ? s[x * scn + 3] : (T)(ALPHA);                                         \
            d[x * dcn] = swap ? v2 : v0;                                                           \
            d[x * dcn + 1] = v1;                                                                   \
            d[x * dcn + 2] = swap ? v0 : v2;                                                       \
            if (dcn == 4)                                                                          \
                d[x * dcn + 3] = v3;                                                               \
        }                                                                                          \
    }                                                                                              \
    GIP__INLINE void to_gray_##TN(const T *s, T *d, int64_t w, int scn, bool red_first)            \
    {                                                                                              \
        CT c0 = red_first ? (CR) : (CB), c2 = red_first ? (CB) : (CR);                             \
        for (int64_t x = 0; x < w; x++)                                                            \
            d[x] = gray_##TN(s[x * scn], s[x * scn + 1], s[x * scn + 2], c0, c2);                  \
    }                                                                                              \
    GIP__INLINE void from_gray_##TN(const T *s, T *d, int64_t w, int dcn)                          \
    {                                                                                              \
        for (int64_t x = 0; x < w; x++) {                                                          \
            T v = s[x];                                                                            \
            d[x * dcn] = v;                                                                        \
            d[x * dcn + 1] = v;                                                                    \
            d[x * dcn + 2] = v;                                                                    \
            if (dcn == 4)                                                                          \
                d[x * dcn + 3] = (T)(ALPHA);                                                       \
        }                                                                                          \
    }                                                                                              \
    static void row_##TN(const void *s_, void *d_, int64_t w, gip_color_code code)                 \
    {                                                                                              \
        const T *s = (const T *)s_;                                                                \
        T *d = (T *)d_;                                                                            \
        switch (code) {                                                                            \
        case GIP_COLOR_RGB2BGR:                                                                    \
            reorder_##TN(s, d, w, 3, 3, true);                                                     \
            break;                                                                                 \
        case GIP_COLOR_RGBA2BGRA:                                                                  \
            reorder_##TN(s, d, w, 4, 4, true);                                                     \
            break;                                                                                 \
        case GIP_COLOR_RGB2RGBA:                                                                   \
            reorder_##TN(s, d, w, 3, 4, false);                                                    \
            break;                                                                                 \
        case GIP_COLOR_RGBA2RGB:                                                                   \
            reorder_##TN(s, d, w, 4, 3, false);                                                    \
            break;                                                                                 \
        case GIP_COLOR_RGB2BGRA:                                                                   \
            reorder_##TN(s, d, w, 3, 4, true);                                                     \
            break;                                                                                 \
        case GIP_COLOR_RGBA2BGR:                                                                   \
            reorder_##TN(s, d, w, 4, 3, true);                                                     \
            break;                                                                                 \
        case GIP_COLOR_RGB2GRAY:                                                                   \
            to_gray_##TN(s, d, w, 3, true);                                                        \
            break;                                                                                 \
        case GIP_COLOR_BGR2GRAY:                                                                   \
            to_gray_##TN(s, d, w, 3, false);                                                       \
            break;                                                                                 \
        case GIP_COLOR_RGBA2GRAY:                                                                  \
            to_gray_##TN(s, d, w, 4, true);                                                        \
            break;                                                                                 \
        case GIP_COLOR_BGRA2GRAY:                                                                  \
            to_gray_##TN(s, d, w, 4, false);                                                       \
            break;                                                                                 \
        case GIP_COLOR_GRAY2RGB:                                                                   \
            from_gray_##TN(s, d, w, 3);                                                            \
            break;                                                                                 \
        case GIP_COLOR_GRAY2RGBA:                                                                  \
            from_gray_##TN(s, d, w, 4);                                                            \
            break;                                                                                 \
        default: /* the colour spaces: cvt_space_cpu.c */                                          \
            break;                                                                                 \
        }                                                                                          \
    }

DEFINE_TYPE(u8, uint8_t, int32_t, GIP__GRAY_R15, GIP__GRAY_B15, 255)
DEFINE_TYPE(u16, uint16_t, int32_t, GIP__GRAY_R15, GIP__GRAY_B15, 65535)
DEFINE_TYPE(f32, float, float, GIP__GRAY_RF, GIP__GRAY_BF, 1.0f)

/* ---- SIMD switch ---------------------------------------------------------------------------- */

static gip__simd_switch simd_switch = GIP__SIMD_SWITCH_INIT;

bool gip__cc_simd_active(void)
{
    return gip__simd_switch_active(&simd_switch);
}

bool gip__cc_vbmi_active(void)
{
    return gip__cc_simd_active() && (gip__simd() & GIP__SIMD_VBMI);
}

bool gip__cc_set_simd(bool enable)
{
    return gip__simd_switch_set(&simd_switch, enable);
}

/* ---- AVX2 gray kernels: the scalar twins' arithmetic, 16 (u8) or 8 (f32) pixels at a time.
 * Each returns how many leading pixels it wrote; the scalar twin does the rest. ------------- */
#ifdef GIP__CC_X86
/* Pixels 0..3 of p in the low lane, 4..7 in the high lane, each lane starting at its pixel 0. */
GIP__AVX2 static inline __m256i load8_px_u8(const uint8_t *p, int scn)
{
    if (scn == 4)
        return _mm256_loadu_si256((const __m256i *)p);
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)p)),
                                   _mm_loadu_si128((const __m128i *)(p + 12)), 1);
}

/* 8 gray values as int32: s0 * c0 + s1 * G + s2 * c2 + 2^14, >> 15, through two madds of
 * (s0, s1) . (c0, G) and (s2, 1) . (c2, 2^14). */
GIP__AVX2 static inline __m256i gray8_u8(__m256i px, __m256i sh01, __m256i sh2, __m256i k01,
                                         __m256i k2)
{
    __m256i v01 = _mm256_shuffle_epi8(px, sh01);
    __m256i v2 = _mm256_or_si256(_mm256_shuffle_epi8(px, sh2), _mm256_set1_epi32(1 << 16));
    __m256i acc = _mm256_add_epi32(_mm256_madd_epi16(v01, k01), _mm256_madd_epi16(v2, k2));
    return _mm256_srli_epi32(acc, GIP__GRAY_SHIFT);
}

GIP__AVX2 static int64_t to_gray_u8_avx2(const uint8_t *s, uint8_t *d, int64_t w, int scn,
                                         int32_t c0, int32_t c2)
{
    const char z = (char)0x80;
    const char a = (char)scn, b = (char)(2 * scn), c = (char)(3 * scn);
    /* Per lane: pixel i's channels 0 and 1 as two u16 words, and channel 2 alone. */
    const __m256i sh01 =
        _mm256_setr_epi8(0, z, 1, z, a, z, a + 1, z, b, z, b + 1, z, c, z, c + 1, z, 0, z, 1, z, a,
                         z, a + 1, z, b, z, b + 1, z, c, z, c + 1, z);
    const __m256i sh2 =
        _mm256_setr_epi8(2, z, z, z, a + 2, z, z, z, b + 2, z, z, z, c + 2, z, z, z, 2, z, z, z,
                         a + 2, z, z, z, b + 2, z, z, z, c + 2, z, z, z);
    const __m256i k01 =
        _mm256_set1_epi32((int32_t)((uint32_t)c0 | ((uint32_t)GIP__GRAY_G15 << 16)));
    const __m256i k2 =
        _mm256_set1_epi32((int32_t)((uint32_t)c2 | ((uint32_t)(1 << (GIP__GRAY_SHIFT - 1)) << 16)));
    /* scn 3 reads 4 bytes past each group of 8 pixels: keep 2 pixels of slack. */
    int64_t x = 0, slack = scn == 3 ? 2 : 0;
    for (; x + 16 + slack <= w; x += 16) {
        const uint8_t *p = s + x * scn;
        __m256i lo = gray8_u8(load8_px_u8(p, scn), sh01, sh2, k01, k2);
        __m256i hi = gray8_u8(load8_px_u8(p + 8 * scn, scn), sh01, sh2, k01, k2);
        /* lo = pixels 0-3 | 4-7, hi = 8-11 | 12-15; the packs interleave lanes, the permute
         * restores pixel order. */
        __m256i w16 = _mm256_packs_epi32(lo, hi);
        __m256i b8 = _mm256_packus_epi16(w16, w16);
        b8 = _mm256_permutevar8x32_epi32(b8, _mm256_setr_epi32(0, 4, 1, 5, 0, 0, 0, 0));
        _mm_storeu_si128((__m128i *)(d + x), _mm256_castsi256_si128(b8));
    }
    return x;
}

/* y = s0 * c0, y = fma(s1, G, y), y = fma(s2, c2, y), as gray_f32. */
GIP__AVX2 static int64_t to_gray_f32_avx2(const float *s, float *d, int64_t w, int scn, float c0,
                                          float c2)
{
    const __m256 k0 = _mm256_set1_ps(c0), k1 = _mm256_set1_ps(GIP__GRAY_GF),
                 k2 = _mm256_set1_ps(c2);
    int64_t x = 0;
    if (scn == 3) {
        /* Deinterleave 8 pixels (24 floats in a, b, c) by two blends and a permute each. */
        const __m256i p0 = _mm256_setr_epi32(0, 3, 6, 1, 4, 7, 2, 5);
        const __m256i p1 = _mm256_setr_epi32(1, 4, 7, 2, 5, 0, 3, 6);
        const __m256i p2 = _mm256_setr_epi32(2, 5, 0, 3, 6, 1, 4, 7);
        for (; x + 8 <= w; x += 8) {
            const float *p = s + x * 3;
            __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8), c = _mm256_loadu_ps(p + 16);
            __m256 v0 = _mm256_blend_ps(_mm256_blend_ps(a, b, 0x92), c, 0x24);
            __m256 v1 = _mm256_blend_ps(_mm256_blend_ps(a, b, 0x24), c, 0x49);
            __m256 v2 = _mm256_blend_ps(_mm256_blend_ps(a, b, 0x49), c, 0x92);
            v0 = _mm256_permutevar8x32_ps(v0, p0);
            v1 = _mm256_permutevar8x32_ps(v1, p1);
            v2 = _mm256_permutevar8x32_ps(v2, p2);
            __m256 y = _mm256_mul_ps(v0, k0);
            y = _mm256_fmadd_ps(v1, k1, y);
            y = _mm256_fmadd_ps(v2, k2, y);
            _mm256_storeu_ps(d + x, y);
        }
    } else {
        /* 4-channel: an unpack transpose of 8 pixels; lanes hold pixels 0,1,4,5 | 2,3,6,7 in a
         * fixed order that the final permute undoes. */
        for (; x + 8 <= w; x += 8) {
            const float *p = s + x * 4;
            __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8);
            __m256 c = _mm256_loadu_ps(p + 16), e = _mm256_loadu_ps(p + 24);
            /* a = px0 px1, b = px2 px3, c = px4 px5, e = px6 px7 (lane = pixel). */
            __m256 t0 = _mm256_unpacklo_ps(a, b); /* 00 20 01 21 | 10 30 11 31 */
            __m256 t1 = _mm256_unpackhi_ps(a, b); /* 02 22 03 23 | 12 32 13 33 */
            __m256 t2 = _mm256_unpacklo_ps(c, e); /* 40 60 41 61 | 50 70 51 71 */
            __m256 t3 = _mm256_unpackhi_ps(c, e); /* 42 62 43 63 | 52 72 53 73 */
            __m256 v0 = _mm256_castpd_ps(_mm256_unpacklo_pd(
                _mm256_castps_pd(t0), _mm256_castps_pd(t2))); /* 0 2 4 6|1 3 5 7 */
            __m256 v1 =
                _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t2)));
            __m256 v2 =
                _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t1), _mm256_castps_pd(t3)));
            __m256 y = _mm256_mul_ps(v0, k0);
            y = _mm256_fmadd_ps(v1, k1, y);
            y = _mm256_fmadd_ps(v2, k2, y);
            /* y holds pixels 0 2 4 6 | 1 3 5 7 */
            y = _mm256_permutevar8x32_ps(y, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
            _mm256_storeu_ps(d + x, y);
        }
    }
    return x;
}
#endif

typedef void (*row_fn)(const void *s, void *d, int64_t w, gip_color_code code);

typedef struct job {
    const gip_image *src;
    gip_image *dst;
    row_fn fn;
    gip_color_code code;
    int scn;
    bool red_first;
    bool simd; /* AVX2 gray kernel for the leading pixels of each row */
} job;

static void run_rows(void *arg, int64_t y0, int64_t y1)
{
    const job *j = (const job *)arg;
    gip_dtype dt = j->src->dtype;
    int64_t w = j->src->width;
    size_t esz = gip_dtype_size(dt);
    for (int64_t y = y0; y < y1; y++) {
        const char *s = (const char *)j->src->data + y * j->src->stride;
        char *d = (char *)j->dst->data + y * j->dst->stride;
        int64_t x = 0;
#ifdef GIP__CC_X86
        if (j->simd) {
            if (dt == GIP_U8)
                x = to_gray_u8_avx2((const uint8_t *)s, (uint8_t *)d, w, j->scn,
                                    j->red_first ? GIP__GRAY_R15 : GIP__GRAY_B15,
                                    j->red_first ? GIP__GRAY_B15 : GIP__GRAY_R15);
            else
                x = to_gray_f32_avx2((const float *)s, (float *)d, w, j->scn,
                                     j->red_first ? GIP__GRAY_RF : GIP__GRAY_BF,
                                     j->red_first ? GIP__GRAY_BF : GIP__GRAY_RF);
        }
#endif
        /* Gray codes are per pixel, so the scalar twin finishes the row from pixel x. */
        j->fn(s + (size_t)x * (size_t)j->scn * esz, d + (size_t)x * esz, w - x, j->code);
    }
}

gip_status gip__cvt_color_cpu(gip_context *ctx, const gip_image *src, gip_image *dst,
                              const gip__cc_params *p)
{
    job j = {
        src,     dst,    src->dtype == GIP_U8 ? row_u8 : src->dtype == GIP_U16 ? row_u16 : row_f32,
        p->code, p->scn, p->swap,
        false};
    j.simd = p->kind == GIP__CC_TO_GRAY && src->dtype != GIP_U16 && gip__cc_simd_active();
    /* About 16 K pixels or more per chunk keep scheduling cost negligible. */
    int64_t grain = src->width >= 16384 ? 1 : 16384 / src->width;
    gip__parallel_for(ctx, src->height, grain, run_rows, &j);
    return GIP_OK;
}
