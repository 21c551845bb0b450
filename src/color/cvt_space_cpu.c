/* SPDX-License-Identifier: MIT */
/* The colour spaces of gip_cvt_color on the CPU: the per-pixel functions of cvt_space.h over row
 * bands on gip's thread pool. */
#if defined(__GNUC__) && !defined(__clang__)
/* Float comparisons may become vector selects (only exception flags, which gip never reads,
 * differ); no contraction into FMAs beyond the ones written, so that every clone and the CUDA
 * kernels compute the same bits. */
#pragma GCC optimize("no-trapping-math", "fp-contract=off")
#endif

#include <pthread.h>

#include "color/cvt_color.h"
#include "color/cvt_color_cpu.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define SPACE_X86 1
#include "color/cvt_avx2.h"
#define SPACE_AVX2 __attribute__((target("avx2")))
/* (one attribute: clang keeps only the last of two target attributes) */
#define SPACE_AVX2_FMA __attribute__((target("avx2,fma")))
#endif

typedef struct space_job {
    const gip_image *src;
    gip_image *dst;
    gip__cs_params cs;
} space_job;

/* One u16 row, the space and direction fixed per loop so that the compiler specialises each. */
static inline void u16_span(const gip__cs_params *cs, const uint16_t *s, uint16_t *d, int64_t w,
                            int scn, int dcn, int space, int inverse)
{
    const gip__cs_params p = {space, inverse, cs->bidx, cs->rgb_cn, NULL};
    for (int64_t x = 0; x < w; x++)
        gip__cs_pixel_u16(&p, s + x * scn, d + x * dcn);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
__attribute__((flatten)) static void
u16_row(const gip__cs_params *cs, const uint16_t *s, uint16_t *d, int64_t w, int scn, int dcn)
{
    switch (cs->space * 2 + cs->inverse) {
    case GIP__CS_YCRCB * 2:
        u16_span(cs, s, d, w, scn, dcn, GIP__CS_YCRCB, 0);
        break;
    case GIP__CS_YCRCB * 2 + 1:
        u16_span(cs, s, d, w, scn, dcn, GIP__CS_YCRCB, 1);
        break;
    case GIP__CS_YUV * 2:
        u16_span(cs, s, d, w, scn, dcn, GIP__CS_YUV, 0);
        break;
    case GIP__CS_YUV * 2 + 1:
        u16_span(cs, s, d, w, scn, dcn, GIP__CS_YUV, 1);
        break;
    case GIP__CS_XYZ * 2:
        u16_span(cs, s, d, w, scn, dcn, GIP__CS_XYZ, 0);
        break;
    default:
        u16_span(cs, s, d, w, scn, dcn, GIP__CS_XYZ, 1);
        break;
    }
}

/* One u8 row of a forward conversion from 3-channel pixels (what gip__cs_pixel_u8() does for
 * them), the space a constant of each loop so that its pixel function is inlined and the loop
 * vectorises (gathers for HSV's division tables); false for the others (the generic loop runs). */
static inline __attribute__((always_inline)) void
u8_span(const gip__cs_params *cs, const uint8_t *s, uint8_t *d, int64_t w, int space)
{
    const int bi = cs->bidx;
    for (int64_t x = 0; x < w; x++) {
        const uint8_t *q = s + x * 3;
        const int r = q[bi ^ 2], g = q[1], b = q[bi];
        if (space == GIP__CS_HSV || space == GIP__CS_HSV_FULL)
            gip__hsv_from_rgb_u8(r, g, b, space == GIP__CS_HSV_FULL, d + x * 3);
        else if (space == GIP__CS_YCRCB || space == GIP__CS_YUV)
            gip__ycc_from_rgb_u8(r, g, b, space == GIP__CS_YUV, d + x * 3);
        else if (space == GIP__CS_LAB)
            gip__lab_from_rgb_u8(r, g, b, d + x * 3);
        else if (space == GIP__CS_LUV)
            gip__luv_from_rgb_u8(cs->luv_lut, r, g, b, d + x * 3);
        else
            gip__xyz_from_rgb_u8(r, g, b, d + x * 3);
    }
}

#ifdef SPACE_X86

/* Sixteen 32-bit lanes (two halves of 8) to 16 bytes with unsigned saturation. */
SPACE_AVX2 static inline __m128i space_avx2_pack(__m256i lo, __m256i hi)
{
    const __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), 0xD8);
    return _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
}

/* round(num / d) as a 32-bit integer for d > 0, 0 where d is 0: the single-precision quotient
 * rounded half to even. For num (255 << 12), (180 << 12) / 6 and (256 << 12) / 6 with the
 * divisor 1 .. 255 (6 d for the last) it equals OpenCV's rounded double quotients, the tables
 * gip__hsv_sdiv, gip__hsv_hdiv180 and gip__hsv_hdiv256 (space_hsv_avx2_ok() checks that). */
SPACE_AVX2 static inline __m256i space_avx2_recip(__m256i d, __m256 num)
{
    const __m256i q = _mm256_cvtps_epi32(_mm256_div_ps(num, _mm256_cvtepi32_ps(d)));
    return _mm256_andnot_si256(_mm256_cmpeq_epi32(d, _mm256_setzero_si256()), q);
}

/* Hue and saturation of 8 pixels (32-bit lanes): OpenCV's RGB2HSV_b arithmetic. */
SPACE_AVX2 static inline void space_avx2_hs(__m256i r, __m256i g, __m256i b, __m256i v,
                                            __m256i diff, int full, __m256i *h, __m256i *sat)
{
    const __m256i round = _mm256_set1_epi32(1 << 11);
    const __m256i sdiv = space_avx2_recip(v, _mm256_set1_ps(255 << 12));
    const __m256i hdiv = full ? space_avx2_recip(_mm256_mullo_epi32(diff, _mm256_set1_epi32(6)),
                                                 _mm256_set1_ps(256 << 12))
                              : space_avx2_recip(diff, _mm256_set1_ps((180 << 12) / 6));
    *sat = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(diff, sdiv), round), 12);
    const __m256i vr = _mm256_cmpeq_epi32(v, r), vg = _mm256_cmpeq_epi32(v, g);
    const __m256i two = _mm256_add_epi32(diff, diff);
    const __m256i hr = _mm256_sub_epi32(g, b);
    const __m256i hg = _mm256_add_epi32(_mm256_sub_epi32(b, r), two);
    const __m256i hb = _mm256_add_epi32(_mm256_sub_epi32(r, g), _mm256_add_epi32(two, two));
    __m256i hh = _mm256_blendv_epi8(_mm256_blendv_epi8(hb, hg, vg), hr, vr);
    hh = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(hh, hdiv), round), 12);
    const __m256i neg = _mm256_cmpgt_epi32(_mm256_setzero_si256(), hh);
    *h = _mm256_add_epi32(hh, _mm256_and_si256(neg, _mm256_set1_epi32(full ? 256 : 180)));
}

/* The pixels of a u8 RGB to HSV row (scn 3 or 4 channels) it did (a multiple of 16). */
SPACE_AVX2 static int64_t space_hsv_avx2(const uint8_t *s, uint8_t *d, int64_t w, int scn, int bidx,
                                         int full)
{
    int64_t x = 0;
    for (; x + 16 <= w; x += 16) {
        __m128i c0, c1, c2;
        if (scn == 4)
            gip__cc_avx2_load4(s + 4 * x, &c0, &c1, &c2);
        else
            gip__cc_avx2_load3(s + 3 * x, &c0, &c1, &c2);
        const __m128i b8 = bidx ? c2 : c0, g8 = c1, r8 = bidx ? c0 : c2;
        const __m128i v8 = _mm_max_epu8(_mm_max_epu8(b8, g8), r8);
        const __m128i d8 = _mm_sub_epi8(v8, _mm_min_epu8(_mm_min_epu8(b8, g8), r8));
        __m256i h[2], sat[2];
        for (int i = 0; i < 2; i++) {
            const int sh = 8 * i;
#define SPACE_W(c) _mm256_cvtepu8_epi32(sh ? _mm_srli_si128(c, 8) : c)
            space_avx2_hs(SPACE_W(r8), SPACE_W(g8), SPACE_W(b8), SPACE_W(v8), SPACE_W(d8), full,
                          &h[i], &sat[i]);
#undef SPACE_W
        }
        gip__cc_avx2_store3(d + 3 * x, space_avx2_pack(h[0], h[1]), space_avx2_pack(sat[0], sat[1]),
                            v8);
    }
    return x;
}

/* Whether the single-precision reciprocals of space_avx2_recip() equal the HSV tables (checked
 * once; they do, and the scalar rows run if they ever did not). */
SPACE_AVX2 static bool space_hsv_avx2_check(void)
{
    for (int i = 0; i < 256; i += 8) {
        const __m256i d =
            _mm256_add_epi32(_mm256_set1_epi32(i), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        int32_t q[3][8];
        _mm256_storeu_si256((__m256i *)q[0], space_avx2_recip(d, _mm256_set1_ps(255 << 12)));
        _mm256_storeu_si256((__m256i *)q[1], space_avx2_recip(d, _mm256_set1_ps((180 << 12) / 6)));
        _mm256_storeu_si256((__m256i *)q[2],
                            space_avx2_recip(_mm256_mullo_epi32(d, _mm256_set1_epi32(6)),
                                             _mm256_set1_ps(256 << 12)));
        for (int k = 0; k < 8; k++)
            if (q[0][k] != gip__hsv_sdiv[i + k] || q[1][k] != gip__hsv_hdiv180[i + k] ||
                q[2][k] != gip__hsv_hdiv256[i + k])
                return false;
    }
    return true;
}

static bool space_hsv_avx2_ok(void)
{
    static int ok = -1;
    int v = __atomic_load_n(&ok, __ATOMIC_RELAXED);
    if (v < 0) {
        v = space_hsv_avx2_check();
        __atomic_store_n(&ok, v, __ATOMIC_RELAXED);
    }
    return v == 1;
}

/* Bytes 0-47 of s as 16-byte blocks in the low lanes of x0, x1 and x2, bytes 48-95 in their high
 * lanes: 32 pixels of 3 u8 channels, or 16 of 3 u16 ones, for space_avx2_shuffle3(). */
SPACE_AVX2 static inline void space_avx2_load96(const void *s, __m256i *x0, __m256i *x1,
                                                __m256i *x2)
{
    const char *b = s;
#define SPACE_L(o)                                                                                 \
    _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(b + (o)))),   \
                            _mm_loadu_si128((const __m128i *)(b + 48 + (o))), 1)
    *x0 = SPACE_L(0);
    *x1 = SPACE_L(16);
    *x2 = SPACE_L(32);
#undef SPACE_L
}

/* space_avx2_load96()'s inverse: the low lanes of b0, b1 and b2 to bytes 0-47 of d, their high
 * lanes to bytes 48-95. */
SPACE_AVX2 static inline void space_avx2_store96(void *d, __m256i b0, __m256i b1, __m256i b2)
{
    char *b = d;
    _mm256_storeu_si256((__m256i *)b, _mm256_permute2x128_si256(b0, b1, 0x20));
    _mm256_storeu_si256((__m256i *)(b + 32), _mm256_permute2x128_si256(b2, b0, 0x30));
    _mm256_storeu_si256((__m256i *)(b + 64), _mm256_permute2x128_si256(b1, b2, 0x31));
}

/* a, b and c each shuffled by its mask (the same 16 bytes on both lanes; -1 gives a zero byte) and
 * ORed: one channel gathered from three blocks of interleaved pixels, or one block of interleaved
 * pixels made from three channels. */
SPACE_AVX2 static inline __m256i space_avx2_shuffle3(__m256i a, __m256i b, __m256i c, __m128i ma,
                                                     __m128i mb, __m128i mc)
{
    return _mm256_or_si256(_mm256_or_si256(_mm256_shuffle_epi8(a, _mm256_broadcastsi128_si256(ma)),
                                           _mm256_shuffle_epi8(b, _mm256_broadcastsi128_si256(mb))),
                           _mm256_shuffle_epi8(c, _mm256_broadcastsi128_si256(mc)));
}
#define SPACE_M(...) _mm_setr_epi8(__VA_ARGS__)

/* 32 pixels of 3 channels from s: the channels in memory order, pixels 0-15 in the low lane and
 * 16-31 in the high one (gip__cc_avx2_load3()'s shuffles on both lanes). */
SPACE_AVX2 static inline void space_avx2_load3x2(const uint8_t *s, __m256i *c0, __m256i *c1,
                                                 __m256i *c2)
{
    __m256i x0, x1, x2;
    space_avx2_load96(s, &x0, &x1, &x2);
    const int8_t z = -1;
    *c0 = space_avx2_shuffle3(x0, x1, x2, SPACE_M(0, 3, 6, 9, 12, 15, z, z, z, z, z, z, z, z, z, z),
                              SPACE_M(z, z, z, z, z, z, 2, 5, 8, 11, 14, z, z, z, z, z),
                              SPACE_M(z, z, z, z, z, z, z, z, z, z, z, 1, 4, 7, 10, 13));
    *c1 = space_avx2_shuffle3(x0, x1, x2, SPACE_M(1, 4, 7, 10, 13, z, z, z, z, z, z, z, z, z, z, z),
                              SPACE_M(z, z, z, z, z, 0, 3, 6, 9, 12, 15, z, z, z, z, z),
                              SPACE_M(z, z, z, z, z, z, z, z, z, z, z, 2, 5, 8, 11, 14));
    *c2 = space_avx2_shuffle3(x0, x1, x2, SPACE_M(2, 5, 8, 11, 14, z, z, z, z, z, z, z, z, z, z, z),
                              SPACE_M(z, z, z, z, z, 1, 4, 7, 10, 13, z, z, z, z, z, z),
                              SPACE_M(z, z, z, z, z, z, z, z, z, z, 0, 3, 6, 9, 12, 15));
}

/* 32 pixels of 3 channels (pixels 0-15 in the low lanes, 16-31 in the high ones) to d. */
SPACE_AVX2 static inline void space_avx2_store3x2(uint8_t *d, __m256i c0, __m256i c1, __m256i c2)
{
    const int8_t z = -1;
    const __m256i b0 =
        space_avx2_shuffle3(c0, c1, c2, SPACE_M(0, z, z, 1, z, z, 2, z, z, 3, z, z, 4, z, z, 5),
                            SPACE_M(z, 0, z, z, 1, z, z, 2, z, z, 3, z, z, 4, z, z),
                            SPACE_M(z, z, 0, z, z, 1, z, z, 2, z, z, 3, z, z, 4, z));
    const __m256i b1 =
        space_avx2_shuffle3(c0, c1, c2, SPACE_M(z, z, 6, z, z, 7, z, z, 8, z, z, 9, z, z, 10, z),
                            SPACE_M(5, z, z, 6, z, z, 7, z, z, 8, z, z, 9, z, z, 10),
                            SPACE_M(z, 5, z, z, 6, z, z, 7, z, z, 8, z, z, 9, z, z));
    const __m256i b2 = space_avx2_shuffle3(
        c0, c1, c2, SPACE_M(z, 11, z, z, 12, z, z, 13, z, z, 14, z, z, 15, z, z),
        SPACE_M(z, z, 11, z, z, 12, z, z, 13, z, z, 14, z, z, 15, z),
        SPACE_M(10, z, z, 11, z, z, 12, z, z, 13, z, z, 14, z, z, 15));
    space_avx2_store96(d, b0, b1, b2);
}

/* Y and the two colour differences of 8 pixels a lane (16-bit b, g, r): gip__ycc_from_rgb_i()'s
 * products and sums, two at a time with 16-bit multiply-adds; the results in the same lanes. */
SPACE_AVX2 static inline void space_avx2_ycc(__m256i b, __m256i g, __m256i r, __m256i k1,
                                             __m256i k2, __m256i *y, __m256i *o1, __m256i *o2)
{
    const int sh = GIP__YUV_SHIFT;
    const __m256i krg = _mm256_set1_epi32(4899 | (9617 << 16)),
                  kb1 = _mm256_set1_epi32(1868 | (1 << (sh - 1)) << 16);
    const __m256i delta = _mm256_set1_epi32(128 * (1 << sh) + (1 << (sh - 1)));
    const __m256i one = _mm256_set1_epi16(1);
    /* unpacklo takes a lane's pixels 0-3, unpackhi 4-7; packs puts them back in order */
    const __m256i ylo =
        _mm256_srai_epi32(_mm256_add_epi32(_mm256_madd_epi16(_mm256_unpacklo_epi16(r, g), krg),
                                           _mm256_madd_epi16(_mm256_unpacklo_epi16(b, one), kb1)),
                          sh);
    const __m256i yhi =
        _mm256_srai_epi32(_mm256_add_epi32(_mm256_madd_epi16(_mm256_unpackhi_epi16(r, g), krg),
                                           _mm256_madd_epi16(_mm256_unpackhi_epi16(b, one), kb1)),
                          sh);
    *y = _mm256_packs_epi32(ylo, yhi);
    const __m256i ry = _mm256_sub_epi16(r, *y), by = _mm256_sub_epi16(b, *y);
    const __m256i dlo = _mm256_unpacklo_epi16(ry, by), dhi = _mm256_unpackhi_epi16(ry, by);
    *o1 = _mm256_packs_epi32(
        _mm256_srai_epi32(_mm256_add_epi32(_mm256_madd_epi16(dlo, k1), delta), sh),
        _mm256_srai_epi32(_mm256_add_epi32(_mm256_madd_epi16(dhi, k1), delta), sh));
    *o2 = _mm256_packs_epi32(
        _mm256_srai_epi32(_mm256_add_epi32(_mm256_madd_epi16(dlo, k2), delta), sh),
        _mm256_srai_epi32(_mm256_add_epi32(_mm256_madd_epi16(dhi, k2), delta), sh));
}

/* The pixels of a u8 RGB to YCrCb (yuv: YUV) row it did (a multiple of 32). */
SPACE_AVX2 static int64_t space_ycc_avx2(const uint8_t *s, uint8_t *d, int64_t w, int bidx, int yuv)
{
    /* the colour differences' weights of (r - y, b - y) */
    const __m256i k1 = yuv ? _mm256_set1_epi32(8061 << 16) : _mm256_set1_epi32(11682);
    const __m256i k2 = yuv ? _mm256_set1_epi32(14369) : _mm256_set1_epi32(9241 << 16);
    const __m256i zero = _mm256_setzero_si256();
    int64_t x = 0;
    for (; x + 32 <= w; x += 32) {
        __m256i c0, c1, c2;
        space_avx2_load3x2(s + 3 * x, &c0, &c1, &c2);
        const __m256i b8 = bidx ? c2 : c0, r8 = bidx ? c0 : c2;
        /* a lane's pixels 0-7 (lo) and 8-15 (hi) as 16 bits */
        __m256i y[2], o1[2], o2[2];
        space_avx2_ycc(_mm256_unpacklo_epi8(b8, zero), _mm256_unpacklo_epi8(c1, zero),
                       _mm256_unpacklo_epi8(r8, zero), k1, k2, &y[0], &o1[0], &o2[0]);
        space_avx2_ycc(_mm256_unpackhi_epi8(b8, zero), _mm256_unpackhi_epi8(c1, zero),
                       _mm256_unpackhi_epi8(r8, zero), k1, k2, &y[1], &o1[1], &o2[1]);
        space_avx2_store3x2(d + 3 * x, _mm256_packus_epi16(y[0], y[1]),
                            _mm256_packus_epi16(o1[0], o1[1]), _mm256_packus_epi16(o2[0], o2[1]));
    }
    return x;
}

/* descale(a * k + b * l, 14) for 8 pixels a lane of 16-bit (a, b) pairs (lo, hi: a lane's
 * pixels 0-3 and 4-7) and kl = k | l << 16, packed back to 16 bits in pixel order. */
SPACE_AVX2 static inline __m256i space_avx2_descale2(__m256i lo, __m256i hi, __m256i kl)
{
    const __m256i half = _mm256_set1_epi32(1 << (GIP__YUV_SHIFT - 1));
    return _mm256_packs_epi32(
        _mm256_srai_epi32(_mm256_add_epi32(_mm256_madd_epi16(lo, kl), half), GIP__YUV_SHIFT),
        _mm256_srai_epi32(_mm256_add_epi32(_mm256_madd_epi16(hi, kl), half), GIP__YUV_SHIFT));
}

#define SPACE_KL(k, l) _mm256_set1_epi32((int32_t)(((uint32_t)(l) << 16) | ((uint32_t)(k)&0xffff)))

/* r, g, b of 8 pixels a lane (16-bit y and colour differences less 128):
 * gip__rgb_from_ycc_i()'s products (each below 2^22) and descales; y plus them saturated in 16
 * bits, which the u8 pack then saturates as the 32-bit sum would be. */
SPACE_AVX2 static inline void space_avx2_ycc_inv(__m256i y, __m256i c1, __m256i c2, int yuv,
                                                 __m256i *r, __m256i *g, __m256i *b)
{
    const __m256i lo = _mm256_unpacklo_epi16(c1, c2), hi = _mm256_unpackhi_epi16(c1, c2);
    if (yuv) { /* c1 = u, c2 = v; u * 33292 as u * 16646 twice */
        *b = _mm256_adds_epi16(y, space_avx2_descale2(_mm256_unpacklo_epi16(c1, c1),
                                                      _mm256_unpackhi_epi16(c1, c1),
                                                      SPACE_KL(16646, 16646)));
        *g = _mm256_adds_epi16(y, space_avx2_descale2(lo, hi, SPACE_KL(-6472, -9519)));
        *r = _mm256_adds_epi16(y, space_avx2_descale2(lo, hi, SPACE_KL(0, 18678)));
    } else { /* c1 = cr, c2 = cb */
        *b = _mm256_adds_epi16(y, space_avx2_descale2(lo, hi, SPACE_KL(0, 29049)));
        *g = _mm256_adds_epi16(y, space_avx2_descale2(lo, hi, SPACE_KL(-11698, -5636)));
        *r = _mm256_adds_epi16(y, space_avx2_descale2(lo, hi, SPACE_KL(22987, 0)));
    }
}
#undef SPACE_KL

/* The pixels of a u8 YCrCb (yuv: YUV) to RGB row it did (a multiple of 32, 3-channel RGB). */
SPACE_AVX2 static int64_t space_ycc_inv_avx2(const uint8_t *s, uint8_t *d, int64_t w, int bidx,
                                             int yuv)
{
    const __m256i zero = _mm256_setzero_si256(), k128 = _mm256_set1_epi16(128);
    int64_t x = 0;
    for (; x + 32 <= w; x += 32) {
        __m256i c0, c1, c2;
        space_avx2_load3x2(s + 3 * x, &c0, &c1, &c2);
        __m256i r[2], g[2], b[2];
        space_avx2_ycc_inv(
            _mm256_unpacklo_epi8(c0, zero), _mm256_sub_epi16(_mm256_unpacklo_epi8(c1, zero), k128),
            _mm256_sub_epi16(_mm256_unpacklo_epi8(c2, zero), k128), yuv, &r[0], &g[0], &b[0]);
        space_avx2_ycc_inv(
            _mm256_unpackhi_epi8(c0, zero), _mm256_sub_epi16(_mm256_unpackhi_epi8(c1, zero), k128),
            _mm256_sub_epi16(_mm256_unpackhi_epi8(c2, zero), k128), yuv, &r[1], &g[1], &b[1]);
        const __m256i r8 = _mm256_packus_epi16(r[0], r[1]), b8 = _mm256_packus_epi16(b[0], b[1]);
        space_avx2_store3x2(d + 3 * x, bidx ? r8 : b8, _mm256_packus_epi16(g[0], g[1]),
                            bidx ? b8 : r8);
    }
    return x;
}

/* cvt_space_simd.h's arithmetic on 8 lanes: space_avx2_sector_pick(), space_avx2_hsv_inv(),
 * space_avx2_hue_parts(), space_avx2_hls(), space_avx2_ycc_u16(). */
#define SPACE_FN(name) space_avx2_##name
#define SPACE_PFX _mm256_
#define SPACE_PS __m256
#define SPACE_SI __m256i
#define SPACE_MASK __m256
#define SPACE_CMP(a, b, op) _mm256_cmp_ps(a, b, op)
#define SPACE_SEL(m, a, b) _mm256_blendv_ps(a, b, m)
#define SPACE_ROUNDZ(a) _mm256_round_ps(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)
#define SPACE_BASE SPACE_AVX2
#define SPACE_FMA SPACE_AVX2_FMA
#include "color/cvt_space_simd.h"

/* The pixels of a u8 HSV to RGB row it did: those of the row's whole blocks of
 * GIP__CS_HSV_BLOCK, which gip__cs_pixel_u8() converts with gip__rgb_from_hsv_vec() and
 * truncates (3-channel RGB). */
SPACE_AVX2_FMA static int64_t space_hsv_inv_u8_avx2(const uint8_t *s, uint8_t *d, int64_t w,
                                                    int bidx, float hs)
{
    const __m256 k = _mm256_set1_ps(1.0f / 255.0f), k255 = _mm256_set1_ps(255.0f);
    const __m256 hscale = _mm256_set1_ps(hs);
    const int64_t n = w / GIP__CS_HSV_BLOCK * GIP__CS_HSV_BLOCK;
    int64_t x = 0;
    for (; x < n; x += 16) {
        __m128i c0, c1, c2;
        gip__cc_avx2_load3(s + 3 * x, &c0, &c1, &c2);
        __m256i o[3][2];
        for (int i = 0; i < 2; i++) {
#define SPACE_F(c) _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(i ? _mm_srli_si128(c, 8) : c))
            __m256 r, g, b;
            space_avx2_hsv_inv(SPACE_F(c0), _mm256_mul_ps(SPACE_F(c1), k),
                               _mm256_mul_ps(SPACE_F(c2), k), hscale, &r, &g, &b);
#undef SPACE_F
            o[0][i] = _mm256_cvttps_epi32(_mm256_mul_ps(r, k255));
            o[1][i] = _mm256_cvttps_epi32(_mm256_mul_ps(g, k255));
            o[2][i] = _mm256_cvttps_epi32(_mm256_mul_ps(b, k255));
        }
        const __m128i r8 = space_avx2_pack(o[0][0], o[0][1]),
                      b8 = space_avx2_pack(o[2][0], o[2][1]);
        gip__cc_avx2_store3(d + 3 * x, bidx ? r8 : b8, space_avx2_pack(o[1][0], o[1][1]),
                            bidx ? b8 : r8);
    }
    return x;
}

/* 8 pixels of 3 floats from s: the channels in memory order, by two blends and a permute each
 * (pixel k's channel c is float 3 k + c: the three vectors hold each channel's 8 floats at
 * distinct positions). */
SPACE_AVX2 static inline void space_avx2_load3f(const float *s, __m256 *c0, __m256 *c1, __m256 *c2)
{
    const __m256 a = _mm256_loadu_ps(s), b = _mm256_loadu_ps(s + 8), c = _mm256_loadu_ps(s + 16);
    *c0 = _mm256_permutevar8x32_ps(_mm256_blend_ps(_mm256_blend_ps(a, b, 0x92), c, 0x24),
                                   _mm256_setr_epi32(0, 3, 6, 1, 4, 7, 2, 5));
    *c1 = _mm256_permutevar8x32_ps(_mm256_blend_ps(_mm256_blend_ps(a, b, 0x24), c, 0x49),
                                   _mm256_setr_epi32(1, 4, 7, 2, 5, 0, 3, 6));
    *c2 = _mm256_permutevar8x32_ps(_mm256_blend_ps(_mm256_blend_ps(a, b, 0x49), c, 0x92),
                                   _mm256_setr_epi32(2, 5, 0, 3, 6, 1, 4, 7));
}

/* 8 pixels of 3 floats (the channels in memory order) to d. */
SPACE_AVX2 static inline void space_avx2_store3f(float *d, __m256 o0, __m256 o1, __m256 o2)
{
    o0 = _mm256_permutevar8x32_ps(o0, _mm256_setr_epi32(0, 3, 6, 1, 4, 7, 2, 5));
    o1 = _mm256_permutevar8x32_ps(o1, _mm256_setr_epi32(5, 0, 3, 6, 1, 4, 7, 2));
    o2 = _mm256_permutevar8x32_ps(o2, _mm256_setr_epi32(2, 5, 0, 3, 6, 1, 4, 7));
    _mm256_storeu_ps(d, _mm256_blend_ps(_mm256_blend_ps(o0, o1, 0x92), o2, 0x24));
    _mm256_storeu_ps(d + 8, _mm256_blend_ps(_mm256_blend_ps(o0, o1, 0x24), o2, 0x49));
    _mm256_storeu_ps(d + 16, _mm256_blend_ps(_mm256_blend_ps(o0, o1, 0x49), o2, 0x92));
}

/* f32 HSV to RGB over n pixels (a multiple of 8; those that gip__cs_pixel_f32() converts with
 * gip__rgb_from_hsv_vec()), 3-channel RGB. */
SPACE_AVX2_FMA static void space_hsv_inv_f32_avx2(const float *s, float *d, int64_t n, int bidx)
{
    const __m256 hscale = _mm256_set1_ps(6.0f / 360.0f);
    for (int64_t x = 0; x < n; x += 8) {
        __m256 h, sat, v, r, g, b;
        space_avx2_load3f(s + 3 * x, &h, &sat, &v);
        space_avx2_hsv_inv(h, sat, v, hscale, &r, &g, &b);
        space_avx2_store3f(d + 3 * x, bidx ? r : b, g, bidx ? b : r);
    }
}

/* r, g, b of 8 pixels from h (not yet scaled), l and s: gip__rgb_from_hls_vec()'s operations in
 * their order and its comparisons (fnmadd: -(e0 e1) + t0, fma(-e0, e1, t0)'s rounding). */
SPACE_AVX2_FMA static inline void
space_avx2_hls_inv_vec(__m256 h, __m256 l, __m256 s, __m256 hscale, __m256 *r, __m256 *g, __m256 *b)
{
    const __m256 ls = _mm256_mul_ps(l, s);
    const __m256 e0 = _mm256_blendv_ps(_mm256_sub_ps(s, ls), ls,
                                       _mm256_cmp_ps(l, _mm256_set1_ps(0.5f), _CMP_LE_OQ));
    const __m256 raw = _mm256_mul_ps(h, hscale);
    const __m256 pre = _mm256_round_ps(raw, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m256 hs = _mm256_sub_ps(raw, pre);
    const __m256 sec = _mm256_sub_ps(
        pre, _mm256_mul_ps(_mm256_set1_ps(6.0f),
                           _mm256_round_ps(_mm256_mul_ps(raw, _mm256_set1_ps(1.0f / 6.0f)),
                                           _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)));
    const __m256 e1 = _mm256_add_ps(hs, hs);
    const __m256 t0 = _mm256_add_ps(l, e0), t1 = _mm256_sub_ps(l, e0);
    const __m256 t2 = _mm256_fnmadd_ps(e0, e1, t0), t3 = _mm256_fmadd_ps(e0, e1, t1);
#define SPACE_C(k, op) _mm256_cmp_ps(sec, _mm256_set1_ps(k), op)
    const __m256 lt1 = SPACE_C(1.0f, _CMP_LT_OQ), lt2 = SPACE_C(2.0f, _CMP_LT_OQ);
    const __m256 lt4 = SPACE_C(4.0f, _CMP_LT_OQ), le2 = SPACE_C(2.0f, _CMP_LE_OQ);
    const __m256 le4 = SPACE_C(4.0f, _CMP_LE_OQ);
#undef SPACE_C
    /* blendv(a, b, m): m ? b : a */
    *b = _mm256_blendv_ps(_mm256_blendv_ps(_mm256_blendv_ps(t2, t0, le4), t3, le2), t1, lt2);
    *g = _mm256_blendv_ps(_mm256_blendv_ps(_mm256_blendv_ps(t1, t2, lt4), t0, le2), t3, lt1);
    *r = _mm256_blendv_ps(
        _mm256_blendv_ps(_mm256_blendv_ps(_mm256_blendv_ps(t0, t3, le4), t1, lt4), t2, lt2), t0,
        lt1);
}

/* f32 HLS to RGB over n pixels (a multiple of 8; those that gip__cs_pixel_f32() converts with
 * gip__rgb_from_hls_vec()), 3-channel RGB. */
SPACE_AVX2_FMA static void space_hls_inv_f32_avx2(const float *s, float *d, int64_t n, int bidx)
{
    const __m256 hscale = _mm256_set1_ps(6.0f / 360.0f);
    for (int64_t x = 0; x < n; x += 8) {
        __m256 h, l, sat, r, g, b;
        space_avx2_load3f(s + 3 * x, &h, &l, &sat);
        space_avx2_hls_inv_vec(h, l, sat, hscale, &r, &g, &b);
        space_avx2_store3f(d + 3 * x, bidx ? r : b, g, bidx ? b : r);
    }
}

/* u8 HLS to RGB, 16 pixels a step (3-channel RGB): gip__rgb_from_hls_f32()'s operations for u8
 * hues (h hscale below 12 and not negative: its loops subtract 6 at most once; the sector is
 * 0 .. 5, its table's rows picked by space_avx2_sector_pick()), rounded as
 * gip__sat_u8_f32() (no NaN or infinity arises). */
SPACE_AVX2 static int64_t space_hls_inv_u8_avx2(const uint8_t *s, uint8_t *d, int64_t w, int bidx,
                                                float hs)
{
    const __m256 k = _mm256_set1_ps(1.0f / 255.0f), k255 = _mm256_set1_ps(255.0f);
    const __m256 hscale = _mm256_set1_ps(hs), one = _mm256_set1_ps(1.0f),
                 six = _mm256_set1_ps(6.0f), zero = _mm256_setzero_ps();
    int64_t x = 0;
    for (; x + 16 <= w; x += 16) {
        __m128i c0, c1, c2;
        gip__cc_avx2_load3(s + 3 * x, &c0, &c1, &c2);
        __m256i o[3][2];
        for (int i = 0; i < 2; i++) {
#define SPACE_F(c) _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(i ? _mm_srli_si128(c, 8) : c))
            __m256 h = SPACE_F(c0);
            const __m256 l = _mm256_mul_ps(SPACE_F(c1), k), sat = _mm256_mul_ps(SPACE_F(c2), k);
#undef SPACE_F
            const __m256 ls = _mm256_mul_ps(l, sat);
            const __m256 p2 = _mm256_blendv_ps(_mm256_sub_ps(_mm256_add_ps(l, sat), ls),
                                               _mm256_mul_ps(l, _mm256_add_ps(one, sat)),
                                               _mm256_cmp_ps(l, _mm256_set1_ps(0.5f), _CMP_LE_OQ));
            const __m256 p1 = _mm256_sub_ps(_mm256_mul_ps(_mm256_set1_ps(2.0f), l), p2);
            h = _mm256_mul_ps(h, hscale);
            h = _mm256_blendv_ps(h, _mm256_sub_ps(h, six), _mm256_cmp_ps(h, six, _CMP_GE_OQ));
            const __m256 sec = _mm256_round_ps(h, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
            h = _mm256_sub_ps(h, sec);
            const __m256 dp = _mm256_sub_ps(p2, p1);
            const __m256 tab2 = _mm256_add_ps(p1, _mm256_mul_ps(dp, _mm256_sub_ps(one, h)));
            const __m256 tab3 = _mm256_add_ps(p1, _mm256_mul_ps(dp, h));
            /* tab0 p2, tab1 p1; s == 0: l in all three */
            const __m256 gray = _mm256_cmp_ps(sat, zero, _CMP_EQ_OQ);
            __m256 r, g, b;
            space_avx2_sector_pick(sec, p2, p1, tab2, tab3, &r, &g, &b);
            o[0][i] = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_blendv_ps(r, l, gray), k255));
            o[1][i] = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_blendv_ps(g, l, gray), k255));
            o[2][i] = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_blendv_ps(b, l, gray), k255));
        }
        const __m128i r8 = space_avx2_pack(o[0][0], o[0][1]),
                      b8 = space_avx2_pack(o[2][0], o[2][1]);
        gip__cc_avx2_store3(d + 3 * x, bidx ? r8 : b8, space_avx2_pack(o[1][0], o[1][1]),
                            bidx ? b8 : r8);
    }
    return x;
}

/* u8 RGB to HLS over n pixels (a multiple of 16; those that gip__cs_pixel_u8() converts with
 * gip__hls_from_rgb_vec()): space_hue_f32_avx2()'s HLS arithmetic on the pixels divided by 255,
 * the hue times hscale, rounded as gip__sat_u8_f32() (no NaN or infinity is kept). */
SPACE_AVX2_FMA static void space_hls_u8_avx2(const uint8_t *s, uint8_t *d, int64_t n, int bidx,
                                             float hs)
{
    const __m256 k = _mm256_set1_ps(1.0f / 255.0f), k255 = _mm256_set1_ps(255.0f);
    const __m256 hscale = _mm256_set1_ps(hs);
    for (int64_t x = 0; x < n; x += 16) {
        __m128i c0, c1, c2;
        gip__cc_avx2_load3(s + 3 * x, &c0, &c1, &c2);
        __m256i o[3][2];
        for (int i = 0; i < 2; i++) {
#define SPACE_F(c)                                                                                 \
    _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(i ? _mm_srli_si128(c, 8) : c)), k)
            const __m256 ch0 = SPACE_F(c0), g = SPACE_F(c1), ch2 = SPACE_F(c2);
#undef SPACE_F
            __m256 hue, l, sat, keep;
            space_avx2_hls(bidx ? ch0 : ch2, g, bidx ? ch2 : ch0, &hue, &l, &sat, &keep);
            o[0][i] = _mm256_cvtps_epi32(_mm256_and_ps(_mm256_mul_ps(hue, hscale), keep));
            o[1][i] = _mm256_cvtps_epi32(_mm256_mul_ps(l, k255));
            o[2][i] = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_and_ps(sat, keep), k255));
        }
        gip__cc_avx2_store3(d + 3 * x, space_avx2_pack(o[0][0], o[0][1]),
                            space_avx2_pack(o[1][0], o[1][1]), space_avx2_pack(o[2][0], o[2][1]));
    }
}

/* 16 pixels of 3 u16 channels from s: the channels in memory order, pixels 0-7 in the low lane
 * and 8-15 in the high one (space_avx2_load3w()'s shuffles on both lanes), 16 bits. */
SPACE_AVX2 static inline void space_avx2_load3wx2(const uint16_t *s, __m256i *c0, __m256i *c1,
                                                  __m256i *c2)
{
    __m256i x0, x1, x2;
    space_avx2_load96(s, &x0, &x1, &x2);
    const int8_t z = -1;
    *c0 = space_avx2_shuffle3(x0, x1, x2, SPACE_M(0, 1, 6, 7, 12, 13, z, z, z, z, z, z, z, z, z, z),
                              SPACE_M(z, z, z, z, z, z, 2, 3, 8, 9, 14, 15, z, z, z, z),
                              SPACE_M(z, z, z, z, z, z, z, z, z, z, z, z, 4, 5, 10, 11));
    *c1 = space_avx2_shuffle3(x0, x1, x2, SPACE_M(2, 3, 8, 9, 14, 15, z, z, z, z, z, z, z, z, z, z),
                              SPACE_M(z, z, z, z, z, z, 4, 5, 10, 11, z, z, z, z, z, z),
                              SPACE_M(z, z, z, z, z, z, z, z, z, z, 0, 1, 6, 7, 12, 13));
    *c2 = space_avx2_shuffle3(x0, x1, x2, SPACE_M(4, 5, 10, 11, z, z, z, z, z, z, z, z, z, z, z, z),
                              SPACE_M(z, z, z, z, 0, 1, 6, 7, 12, 13, z, z, z, z, z, z),
                              SPACE_M(z, z, z, z, z, z, z, z, z, z, 2, 3, 8, 9, 14, 15));
}

/* 16 pixels of 3 u16 channels (pixels 0-7 in the low lanes, 8-15 in the high ones) to d. */
SPACE_AVX2 static inline void space_avx2_store3wx2(uint16_t *d, __m256i c0, __m256i c1, __m256i c2)
{
    const int8_t z = -1;
    const __m256i b0 =
        space_avx2_shuffle3(c0, c1, c2, SPACE_M(0, 1, z, z, z, z, 2, 3, z, z, z, z, 4, 5, z, z),
                            SPACE_M(z, z, 0, 1, z, z, z, z, 2, 3, z, z, z, z, 4, 5),
                            SPACE_M(z, z, z, z, 0, 1, z, z, z, z, 2, 3, z, z, z, z));
    const __m256i b1 =
        space_avx2_shuffle3(c0, c1, c2, SPACE_M(z, z, 6, 7, z, z, z, z, 8, 9, z, z, z, z, 10, 11),
                            SPACE_M(z, z, z, z, 6, 7, z, z, z, z, 8, 9, z, z, z, z),
                            SPACE_M(4, 5, z, z, z, z, 6, 7, z, z, z, z, 8, 9, z, z));
    const __m256i b2 =
        space_avx2_shuffle3(c0, c1, c2, SPACE_M(z, z, z, z, 12, 13, z, z, z, z, 14, 15, z, z, z, z),
                            SPACE_M(10, 11, z, z, z, z, 12, 13, z, z, z, z, 14, 15, z, z),
                            SPACE_M(z, z, 10, 11, z, z, z, z, 12, 13, z, z, z, z, 14, 15));
    space_avx2_store96(d, b0, b1, b2);
}
#undef SPACE_M

/* The pixels of a u16 YCrCb or YUV row it did, either way (3-channel RGB), 16 a step,
 * saturated as gip__sat_u16_i32() by packus. */
SPACE_AVX2 static int64_t space_ycc_u16_avx2(const uint16_t *s, uint16_t *d, int64_t w, int bidx,
                                             int yuv, int inverse)
{
    const __m256i zero = _mm256_setzero_si256();
    int64_t x = 0;
    for (; x + 16 <= w; x += 16) {
        __m256i c0, c1, c2, lo[3], hi[3];
        space_avx2_load3wx2(s + 3 * x, &c0, &c1, &c2);
        /* unpack lo takes a lane's pixels 0-3, hi 4-7; packus puts them back in order */
        space_avx2_ycc_u16(_mm256_unpacklo_epi16(c0, zero), _mm256_unpacklo_epi16(c1, zero),
                           _mm256_unpacklo_epi16(c2, zero), bidx, yuv, inverse, &lo[0], &lo[1],
                           &lo[2]);
        space_avx2_ycc_u16(_mm256_unpackhi_epi16(c0, zero), _mm256_unpackhi_epi16(c1, zero),
                           _mm256_unpackhi_epi16(c2, zero), bidx, yuv, inverse, &hi[0], &hi[1],
                           &hi[2]);
        space_avx2_store3wx2(d + 3 * x, _mm256_packus_epi32(lo[0], hi[0]),
                             _mm256_packus_epi32(lo[1], hi[1]), _mm256_packus_epi32(lo[2], hi[2]));
    }
    return x;
}

/* ---- AVX-512 VBMI rows of the float u8 codes: 16 pixels a step, each channel taken into 32-bit
 * lanes by one zero-masked byte permute and put back by one permute of the three results. */
#define SPACE_V512 __attribute__((target("avx2,fma,avx512f,avx512bw,avx512vl,avx512vbmi")))
/* (AVX-512 BW without VBMI: the u16 rows) */
#define SPACE_W512 __attribute__((target("avx2,avx512f,avx512bw,avx512vl")))
#define SPACE_Z4 0x1111111111111111ULL /* the low byte of each 32-bit lane */
#define SPACE_48 0xFFFFFFFFFFFFULL     /* 48 bytes */

/* Channel c of 16 3-byte pixels in v as floats. */
SPACE_V512 static inline __m512 space_512_ch(__m512i v, int c)
{
    const __m512i idx =
        _mm512_add_epi32(_mm512_set1_epi32(c), _mm512_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21, 24, 27,
                                                                 30, 33, 36, 39, 42, 45));
    return _mm512_cvtepi32_ps(_mm512_maskz_permutexvar_epi8(SPACE_Z4, idx, v));
}

/* 16 pixels of three 32-bit results (memory order), saturated to bytes, to d. */
SPACE_V512 static inline void space_512_store3(uint8_t *d, __m512i o0, __m512i o1, __m512i o2)
{
    const __m512i zero = _mm512_setzero_si512();
#define SPACE_B(o) _mm512_cvtusepi32_epi8(_mm512_max_epi32(o, zero))
    const __m512i all = _mm512_inserti32x4(
        _mm512_inserti32x4(_mm512_castsi128_si512(SPACE_B(o0)), SPACE_B(o1), 1), SPACE_B(o2), 2);
#undef SPACE_B
    /* byte 3 k + c from channel c's byte k (16 c + k) */
    const __m512i idx = _mm512_set_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 47, 31, 15,
                                        46, 30, 14, 45, 29, 13, 44, 28, 12, 43, 27, 11, 42, 26, 10,
                                        41, 25, 9, 40, 24, 8, 39, 23, 7, 38, 22, 6, 37, 21, 5, 36,
                                        20, 4, 35, 19, 3, 34, 18, 2, 33, 17, 1, 32, 16, 0);
    _mm512_mask_storeu_epi8(d, SPACE_48, _mm512_permutexvar_epi8(idx, all));
}

/* cvt_space_simd.h's arithmetic on 16 lanes: space_512_sector_pick(), space_512_hsv_inv(),
 * space_512_hue_parts(), space_512_hls(), space_512_ycc_u16(). */
#define SPACE_FN(name) space_512_##name
#define SPACE_PFX _mm512_
#define SPACE_PS __m512
#define SPACE_SI __m512i
#define SPACE_MASK __mmask16
#define SPACE_CMP(a, b, op) _mm512_cmp_ps_mask(a, b, op)
#define SPACE_SEL(m, a, b) _mm512_mask_blend_ps(m, a, b)
#define SPACE_ROUNDZ(a) _mm512_roundscale_ps(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)
#define SPACE_BASE SPACE_W512
#define SPACE_FMA SPACE_V512
#include "color/cvt_space_simd.h"

/* space_hsv_inv_u8_avx2() with AVX-512 VBMI. */
SPACE_V512 static int64_t space_hsv_inv_u8_vbmi(const uint8_t *s, uint8_t *d, int64_t w, int bidx,
                                                float hs)
{
    const __m512 k = _mm512_set1_ps(1.0f / 255.0f), k255 = _mm512_set1_ps(255.0f);
    const __m512 hscale = _mm512_set1_ps(hs);
    const int64_t n = w / GIP__CS_HSV_BLOCK * GIP__CS_HSV_BLOCK;
    int64_t x = 0;
    for (; x < n; x += 16) {
        const __m512i v = _mm512_maskz_loadu_epi8(SPACE_48, s + 3 * x);
        __m512 r, g, b;
        space_512_hsv_inv(space_512_ch(v, 0), _mm512_mul_ps(space_512_ch(v, 1), k),
                          _mm512_mul_ps(space_512_ch(v, 2), k), hscale, &r, &g, &b);
        const __m512i ri = _mm512_cvttps_epi32(_mm512_mul_ps(r, k255)),
                      gi = _mm512_cvttps_epi32(_mm512_mul_ps(g, k255)),
                      bi = _mm512_cvttps_epi32(_mm512_mul_ps(b, k255));
        space_512_store3(d + 3 * x, bidx ? ri : bi, gi, bidx ? bi : ri);
    }
    return x;
}

/* space_hls_u8_avx2() with AVX-512 VBMI. */
SPACE_V512 static void space_hls_u8_vbmi(const uint8_t *s, uint8_t *d, int64_t n, int bidx,
                                         float hs)
{
    const __m512 k = _mm512_set1_ps(1.0f / 255.0f), k255 = _mm512_set1_ps(255.0f);
    const __m512 hscale = _mm512_set1_ps(hs);
    for (int64_t x = 0; x < n; x += 16) {
        const __m512i v = _mm512_maskz_loadu_epi8(SPACE_48, s + 3 * x);
        const __m512 ch0 = _mm512_mul_ps(space_512_ch(v, 0), k),
                     g = _mm512_mul_ps(space_512_ch(v, 1), k),
                     ch2 = _mm512_mul_ps(space_512_ch(v, 2), k);
        __m512 hue, l, sat;
        __mmask16 keep;
        space_512_hls(bidx ? ch0 : ch2, g, bidx ? ch2 : ch0, &hue, &l, &sat, &keep);
        space_512_store3(d + 3 * x,
                         _mm512_cvtps_epi32(_mm512_maskz_mov_ps(keep, _mm512_mul_ps(hue, hscale))),
                         _mm512_cvtps_epi32(_mm512_mul_ps(l, k255)),
                         _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_maskz_mov_ps(keep, sat), k255)));
    }
}
#undef SPACE_Z4
#undef SPACE_48

/* space_ycc_u16_avx2() with AVX-512 (BW): 16 pixels a step, each channel taken into 32-bit
 * lanes by one zero-masked two-register word permute, the results saturated by vpmovusdw and
 * interleaved by two word permutes. */
SPACE_W512 static int64_t space_ycc_u16_512(const uint16_t *s, uint16_t *d, int64_t w, int bidx,
                                            int yuv, int inverse)
{
    const __m512i zero = _mm512_setzero_si512();
    const __m512i k3 =
        _mm512_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45);
    const __mmask32 even = 0x55555555u;
    /* output word j of 48: channel j % 3's word j / 3; channels 0, 1 in the first register
     * (words 0-15, 16-31), channel 2 in the second's words 0-15 */
    static const uint16_t ia[32] = {0,  16, 32, 1,  17, 33, 2,  18, 34, 3,  19, 35, 4,  20, 36, 5,
                                    21, 37, 6,  22, 38, 7,  23, 39, 8,  24, 40, 9,  25, 41, 10, 26};
    static const uint16_t ib[32] = {42, 11, 27, 43, 12, 28, 44, 13, 29, 45, 14, 30, 46, 15, 31, 47,
                                    0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0};
    const __m512i idx_a = _mm512_loadu_si512((const void *)ia),
                  idx_b = _mm512_loadu_si512((const void *)ib);
    int64_t x = 0;
    for (; x + 16 <= w; x += 16) {
        const uint16_t *p = s + 3 * x;
        const __m512i v0 = _mm512_loadu_si512((const void *)p),
                      v1 = _mm512_maskz_loadu_epi16(0xFFFFu, p + 32);
#define SPACE_CH(c)                                                                                \
    _mm512_maskz_permutex2var_epi16(even, v0, _mm512_add_epi32(k3, _mm512_set1_epi32(c)), v1)
        const __m512i c0 = SPACE_CH(0), c1 = SPACE_CH(1), c2 = SPACE_CH(2);
#undef SPACE_CH
        __m512i o0, o1, o2;
        space_512_ycc_u16(c0, c1, c2, bidx, yuv, inverse, &o0, &o1, &o2);
#define SPACE_SAT(o) _mm512_cvtusepi32_epi16(_mm512_max_epi32(o, zero))
        const __m512i a =
            _mm512_inserti64x4(_mm512_castsi256_si512(SPACE_SAT(o0)), SPACE_SAT(o1), 1);
        const __m512i b2 = _mm512_castsi256_si512(SPACE_SAT(o2));
#undef SPACE_SAT
        _mm512_storeu_si512((void *)(d + 3 * x), _mm512_permutex2var_epi16(a, idx_a, b2));
        _mm256_storeu_si256((__m256i *)(d + 3 * x + 32),
                            _mm512_castsi512_si256(_mm512_permutex2var_epi16(a, idx_b, b2)));
    }
    return x;
}
#undef SPACE_W512
#undef SPACE_V512

/* gip__lab_gamma widened to 32 bits, so that a 32-bit gather of any entry stays inside it, and
 * as its low and high bytes for the AVX-512 VBMI byte permutes. */
static int32_t space_lab_gamma32[256];
static uint8_t space_lab_gamma_lo[256] __attribute__((aligned(64)));
static uint8_t space_lab_gamma_hi[256] __attribute__((aligned(64)));
static pthread_once_t space_lab_once = PTHREAD_ONCE_INIT;

static void space_lab_init(void)
{
    for (int i = 0; i < 256; i++) {
        space_lab_gamma32[i] = gip__lab_gamma[i];
        space_lab_gamma_lo[i] = (uint8_t)(gip__lab_gamma[i] & 255);
        space_lab_gamma_hi[i] = (uint8_t)(gip__lab_gamma[i] >> 8);
    }
}

/* L, a and b of 8 pixels (32-bit lanes) from their linear R, G, B (gip__lab_gamma's values):
 * gip__lab_from_rgb_u8()'s arithmetic. The cube-root table is gathered 32 bits at a time from
 * its 16-bit entries (the low half kept): indices reach 2040 of its 3072, so no read passes its
 * end. */
SPACE_AVX2 static inline void space_avx2_lab(__m256i R, __m256i G, __m256i B, __m256i *lo,
                                             __m256i *ao, __m256i *bo)
{
    const int32_t *c = gip__lab_coeffs;
    const __m256i r12 = _mm256_set1_epi32(1 << 11), m16 = _mm256_set1_epi32(0xffff);
    __m256i f[3];
    for (int i = 0; i < 3; i++) {
        __m256i t = _mm256_add_epi32(_mm256_mullo_epi32(R, _mm256_set1_epi32(c[3 * i])),
                                     _mm256_mullo_epi32(G, _mm256_set1_epi32(c[3 * i + 1])));
        t = _mm256_add_epi32(t, _mm256_mullo_epi32(B, _mm256_set1_epi32(c[3 * i + 2])));
        t = _mm256_srai_epi32(_mm256_add_epi32(t, r12), 12);
        f[i] = _mm256_and_si256(_mm256_i32gather_epi32((const int *)gip__lab_cbrt, t, 2), m16);
    }
    const int lscale = (116 * 255 + 50) / 100, lshift = -((16 * 255 * (1 << 15) + 50) / 100);
    const __m256i r15 = _mm256_set1_epi32(1 << 14), off = _mm256_set1_epi32(128 * (1 << 15));
    *lo = _mm256_srai_epi32(
        _mm256_add_epi32(_mm256_add_epi32(_mm256_mullo_epi32(f[1], _mm256_set1_epi32(lscale)),
                                          _mm256_set1_epi32(lshift)),
                         r15),
        15);
    *ao = _mm256_srai_epi32(
        _mm256_add_epi32(
            _mm256_add_epi32(
                _mm256_mullo_epi32(_mm256_sub_epi32(f[0], f[1]), _mm256_set1_epi32(500)), off),
            r15),
        15);
    *bo = _mm256_srai_epi32(
        _mm256_add_epi32(
            _mm256_add_epi32(
                _mm256_mullo_epi32(_mm256_sub_epi32(f[1], f[2]), _mm256_set1_epi32(200)), off),
            r15),
        15);
}

/* The pixels of a u8 RGB to Lab row it did (a multiple of 16). */
SPACE_AVX2 static int64_t space_lab_avx2(const uint8_t *s, uint8_t *d, int64_t w, int bidx)
{
    pthread_once(&space_lab_once, space_lab_init);
    int64_t x = 0;
    for (; x + 16 <= w; x += 16) {
        __m128i c0, c1, c2;
        gip__cc_avx2_load3(s + 3 * x, &c0, &c1, &c2);
        const __m128i b8 = bidx ? c2 : c0, g8 = c1, r8 = bidx ? c0 : c2;
        __m256i l[2], a[2], bb[2];
        for (int i = 0; i < 2; i++) {
            const int sh = 8 * i;
#define SPACE_G(c)                                                                                 \
    _mm256_i32gather_epi32(space_lab_gamma32, _mm256_cvtepu8_epi32(sh ? _mm_srli_si128(c, 8) : c), \
                           4)
            space_avx2_lab(SPACE_G(r8), SPACE_G(g8), SPACE_G(b8), &l[i], &a[i], &bb[i]);
#undef SPACE_G
        }
        gip__cc_avx2_store3(d + 3 * x, space_avx2_pack(l[0], l[1]), space_avx2_pack(a[0], a[1]),
                            space_avx2_pack(bb[0], bb[1]));
    }
    return x;
}

/* AVX-512 VBMI: the gamma table by byte permutes (its low and high bytes, 128 entries a
 * two-register permute, the index's top bit choosing the half) instead of gathers. */
#define SPACE_VBMI __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vbmi")))

SPACE_VBMI static inline void space_vbmi_gamma(__m128i idx, const __m512i *t, __m256i *g0,
                                               __m256i *g1)
{
    const __m512i ix = _mm512_castsi128_si512(idx);
    const __mmask64 top = _mm512_movepi8_mask(ix);
    const __m512i lo = _mm512_mask_blend_epi8(top, _mm512_permutex2var_epi8(t[0], ix, t[1]),
                                              _mm512_permutex2var_epi8(t[2], ix, t[3]));
    const __m512i hi = _mm512_mask_blend_epi8(top, _mm512_permutex2var_epi8(t[4], ix, t[5]),
                                              _mm512_permutex2var_epi8(t[6], ix, t[7]));
    const __m128i l = _mm512_castsi512_si128(lo), h = _mm512_castsi512_si128(hi);
    *g0 = _mm256_cvtepu16_epi32(_mm_unpacklo_epi8(l, h));
    *g1 = _mm256_cvtepu16_epi32(_mm_unpackhi_epi8(l, h));
}

SPACE_VBMI static int64_t space_lab_vbmi(const uint8_t *s, uint8_t *d, int64_t w, int bidx)
{
    pthread_once(&space_lab_once, space_lab_init);
    __m512i t[8];
    for (int i = 0; i < 4; i++) {
        t[i] = _mm512_load_si512((const void *)(space_lab_gamma_lo + 64 * i));
        t[4 + i] = _mm512_load_si512((const void *)(space_lab_gamma_hi + 64 * i));
    }
    int64_t x = 0;
    for (; x + 16 <= w; x += 16) {
        __m128i c0, c1, c2;
        gip__cc_avx2_load3(s + 3 * x, &c0, &c1, &c2);
        __m256i R[2], G[2], B[2];
        space_vbmi_gamma(bidx ? c0 : c2, t, &R[0], &R[1]);
        space_vbmi_gamma(c1, t, &G[0], &G[1]);
        space_vbmi_gamma(bidx ? c2 : c0, t, &B[0], &B[1]);
        __m256i l[2], a[2], bb[2];
        for (int i = 0; i < 2; i++)
            space_avx2_lab(R[i], G[i], B[i], &l[i], &a[i], &bb[i]);
        gip__cc_avx2_store3(d + 3 * x, space_avx2_pack(l[0], l[1]), space_avx2_pack(a[0], a[1]),
                            space_avx2_pack(bb[0], bb[1]));
    }
    return x;
}

/* f32 RGB to HSV (hls: HLS), 8 pixels a step: gip__hsv_from_rgb_vec()'s (gip__hls_from_rgb_vec()'s)
 * operations in their order (the one fused multiply-add they write), comparisons ordered as C's. */
SPACE_AVX2_FMA static inline __attribute__((always_inline)) int64_t
space_hue_f32_avx2(const float *s, float *d, int64_t n, int bidx, int hls)
{
    const __m256 eps = _mm256_set1_ps(GIP__CS_EPS), sign = _mm256_set1_ps(-0.0f);
    const __m256 k60 = _mm256_set1_ps(60.0f);
    int64_t x = 0;
    for (; x + 8 <= n; x += 8) {
        __m256 ch0, ch1, ch2, o0, o1, o2;
        space_avx2_load3f(s + 3 * x, &ch0, &ch1, &ch2);
        const __m256 r = bidx ? ch0 : ch2, g = ch1, bl = bidx ? ch2 : ch0;
        if (hls) {
            __m256 keep;
            space_avx2_hls(r, g, bl, &o0, &o1, &o2, &keep);
            o0 = _mm256_and_ps(o0, keep);
            o2 = _mm256_and_ps(o2, keep);
        } else {
            __m256 mx, mn, diff, h, part;
            space_avx2_hue_parts(r, g, bl, &mx, &mn, &diff, &h, &part);
            o0 = _mm256_fmadd_ps(h, _mm256_div_ps(k60, _mm256_add_ps(diff, eps)), part);
            o1 = _mm256_div_ps(diff, _mm256_add_ps(_mm256_andnot_ps(sign, mx), eps));
            o2 = mx;
        }
        space_avx2_store3f(d + 3 * x, o0, o1, o2);
    }
    return x;
}

SPACE_AVX2_FMA static int64_t space_hue_f32(const float *s, float *d, int64_t n, int bidx, int hls)
{
    return hls ? space_hue_f32_avx2(s, d, n, bidx, 1) : space_hue_f32_avx2(s, d, n, bidx, 0);
}

#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
static bool
u8_row(const gip__cs_params *cs, const uint8_t *s, uint8_t *d, int64_t w, int scn, int dcn)
{
    if (cs->inverse || scn != 3 || dcn != 3)
        return false;
    switch (cs->space) {
    case GIP__CS_HSV:
        u8_span(cs, s, d, w, GIP__CS_HSV);
        return true;
    case GIP__CS_HSV_FULL:
        u8_span(cs, s, d, w, GIP__CS_HSV_FULL);
        return true;
    case GIP__CS_YCRCB:
        u8_span(cs, s, d, w, GIP__CS_YCRCB);
        return true;
    case GIP__CS_YUV:
        u8_span(cs, s, d, w, GIP__CS_YUV);
        return true;
    case GIP__CS_XYZ:
        u8_span(cs, s, d, w, GIP__CS_XYZ);
        return true;
    case GIP__CS_LAB:
        u8_span(cs, s, d, w, GIP__CS_LAB);
        return true;
    case GIP__CS_LUV:
        u8_span(cs, s, d, w, GIP__CS_LUV);
        return true;
    default:
        return false;
    }
}

/* n pixels of an f32 RGB to HSV or HLS row by OpenCV's vector formulas (gip__hsv_from_rgb_vec,
 * gip__hls_from_rgb_vec: what gip__cs_pixel_f32() gives the pixels of a row's whole vectors),
 * with blue at index bi, written for the compiler to vectorise. */
static inline __attribute__((always_inline)) void
f32_hue_span(const float *restrict s, float *restrict d, int64_t n, int bi, int hls)
{
    for (int64_t x = 0; x < n; x++) {
        const float *q = s + 3 * x;
        if (hls)
            gip__hls_from_rgb_vec(q[bi ^ 2], q[1], q[bi], 1.0f, d + 3 * x);
        else
            gip__hsv_from_rgb_vec(q[bi ^ 2], q[1], q[bi], 1.0f, d + 3 * x);
    }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
static void
f32_hue_row(const float *s, float *d, int64_t n, int bidx, int hls)
{
    if (hls)
        bidx ? f32_hue_span(s, d, n, 2, 1) : f32_hue_span(s, d, n, 0, 1);
    else
        bidx ? f32_hue_span(s, d, n, 2, 0) : f32_hue_span(s, d, n, 0, 0);
}

/* The other codes' rows: the per-pixel functions with the space, the direction and the RGB
 * side's channel count constants of each loop, so that each is inlined without its switch (the
 * same function, so the same results). */
#define SPACE_GENERIC(TN, T, PIXEL)                                                                \
    static inline __attribute__((always_inline)) void TN##_gen_span(                               \
        const gip__cs_params *cs, const T *s, T *d, int64_t x0, int64_t w, int space, int inverse, \
        int rgb_cn)                                                                                \
    {                                                                                              \
        const gip__cs_params p = {space, inverse, cs->bidx, rgb_cn, cs->luv_lut};                  \
        const int scn = inverse ? 3 : rgb_cn, dcn = inverse ? rgb_cn : 3;                          \
        for (int64_t x = x0; x < w; x++)                                                           \
            PIXEL(&p, s + x * scn, d + x * dcn, x, w);                                             \
    }                                                                                              \
    SPACE_GEN_CLONES __attribute__((flatten)) static void TN##_gen_row(                            \
        const gip__cs_params *cs, const T *s, T *d, int64_t x0, int64_t w)                         \
    {                                                                                              \
        switch (cs->space * 4 + cs->inverse * 2 + (cs->rgb_cn == 4)) {                             \
            SPACE_GEN_CASES(TN, GIP__CS_HSV)                                                       \
            SPACE_GEN_CASES(TN, GIP__CS_HSV_FULL)                                                  \
            SPACE_GEN_CASES(TN, GIP__CS_HLS)                                                       \
            SPACE_GEN_CASES(TN, GIP__CS_HLS_FULL)                                                  \
            SPACE_GEN_CASES(TN, GIP__CS_YCRCB)                                                     \
            SPACE_GEN_CASES(TN, GIP__CS_YUV)                                                       \
            SPACE_GEN_CASES(TN, GIP__CS_XYZ)                                                       \
            SPACE_GEN_CASES(TN, GIP__CS_LAB)                                                       \
            SPACE_GEN_CASES(TN, GIP__CS_LUV)                                                       \
        default:                                                                                   \
            for (int64_t x = x0; x < w; x++) {                                                     \
                const int scn = cs->inverse ? 3 : cs->rgb_cn, dcn = cs->inverse ? cs->rgb_cn : 3;  \
                PIXEL(cs, s + x * scn, d + x * dcn, x, w);                                         \
            }                                                                                      \
        }                                                                                          \
    }
#define SPACE_GEN_CASES(TN, SP)                                                                    \
    case (SP)*4:                                                                                   \
        TN##_gen_span(cs, s, d, x0, w, SP, 0, 3);                                                  \
        break;                                                                                     \
    case (SP)*4 + 1:                                                                               \
        TN##_gen_span(cs, s, d, x0, w, SP, 0, 4);                                                  \
        break;                                                                                     \
    case (SP)*4 + 2:                                                                               \
        TN##_gen_span(cs, s, d, x0, w, SP, 1, 3);                                                  \
        break;                                                                                     \
    case (SP)*4 + 3:                                                                               \
        TN##_gen_span(cs, s, d, x0, w, SP, 1, 4);                                                  \
        break;
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SPACE_GEN_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define SPACE_GEN_CLONES
#endif

SPACE_GENERIC(u8, uint8_t, gip__cs_pixel_u8)
SPACE_GENERIC(f32, float, gip__cs_pixel_f32)

static void space_rows(void *arg, int64_t y0, int64_t y1)
{
    const space_job *j = arg;
    const int scn = j->src->channels, dcn = j->dst->channels;
    const int64_t w = j->src->width;
    for (int64_t y = y0; y < y1; y++) {
        const char *s = (const char *)j->src->data + y * j->src->stride;
        char *d = (char *)j->dst->data + y * j->dst->stride;
        if (j->src->dtype == GIP_U8) {
            int64_t x0 = 0;
#ifdef SPACE_X86
            if (!j->cs.inverse && scn >= 3 &&
                (j->cs.space == GIP__CS_HSV || j->cs.space == GIP__CS_HSV_FULL) &&
                gip__cc_simd_active() && space_hsv_avx2_ok())
                x0 = space_hsv_avx2((const uint8_t *)s, (uint8_t *)d, w, scn, j->cs.bidx,
                                    j->cs.space == GIP__CS_HSV_FULL);
            else if (!j->cs.inverse && scn == 3 && j->cs.space == GIP__CS_LAB &&
                     gip__cc_simd_active())
                x0 = gip__cc_vbmi_active()
                         ? space_lab_vbmi((const uint8_t *)s, (uint8_t *)d, w, j->cs.bidx)
                         : space_lab_avx2((const uint8_t *)s, (uint8_t *)d, w, j->cs.bidx);
            else if (!j->cs.inverse && scn == 3 &&
                     (j->cs.space == GIP__CS_YCRCB || j->cs.space == GIP__CS_YUV) &&
                     gip__cc_simd_active())
                x0 = space_ycc_avx2((const uint8_t *)s, (uint8_t *)d, w, j->cs.bidx,
                                    j->cs.space == GIP__CS_YUV);
            else if (j->cs.inverse && dcn == 3 &&
                     (j->cs.space == GIP__CS_HSV || j->cs.space == GIP__CS_HSV_FULL) &&
                     gip__cc_simd_active())
                x0 = (gip__cc_vbmi_active() ? space_hsv_inv_u8_vbmi : space_hsv_inv_u8_avx2)(
                    (const uint8_t *)s, (uint8_t *)d, w, j->cs.bidx,
                    j->cs.space == GIP__CS_HSV ? 6.0f / 180.0f : 6.0f / 255.0f);
            else if (j->cs.inverse && dcn == 3 &&
                     (j->cs.space == GIP__CS_HLS || j->cs.space == GIP__CS_HLS_FULL) &&
                     gip__cc_simd_active())
                x0 = space_hls_inv_u8_avx2((const uint8_t *)s, (uint8_t *)d, w, j->cs.bidx,
                                           j->cs.space == GIP__CS_HLS ? 6.0f / 180.0f
                                                                      : 6.0f / 255.0f);
            else if (!j->cs.inverse && scn == 3 &&
                     (j->cs.space == GIP__CS_HLS || j->cs.space == GIP__CS_HLS_FULL) &&
                     gip__cc_simd_active()) {
                /* the pixels of gip__hls_from_rgb_vec(): the row's whole vectors */
                x0 = w / GIP__CS_HLS_VEC * GIP__CS_HLS_VEC;
                (gip__cc_vbmi_active() ? space_hls_u8_vbmi : space_hls_u8_avx2)(
                    (const uint8_t *)s, (uint8_t *)d, x0, j->cs.bidx,
                    j->cs.space == GIP__CS_HLS ? 180.0f / 360.0f : 256.0f / 360.0f);
            } else if (j->cs.inverse && dcn == 3 &&
                       (j->cs.space == GIP__CS_YCRCB || j->cs.space == GIP__CS_YUV) &&
                       gip__cc_simd_active())
                x0 = space_ycc_inv_avx2((const uint8_t *)s, (uint8_t *)d, w, j->cs.bidx,
                                        j->cs.space == GIP__CS_YUV);
#endif
            if (u8_row(&j->cs, (const uint8_t *)s + x0 * scn, (uint8_t *)d + x0 * dcn, w - x0, scn,
                       dcn))
                continue;
            u8_gen_row(&j->cs, (const uint8_t *)s, (uint8_t *)d, x0, w);
        } else if (j->src->dtype == GIP_U16) {
            int64_t x0 = 0;
#ifdef SPACE_X86
            if ((j->cs.inverse ? dcn : scn) == 3 &&
                (j->cs.space == GIP__CS_YCRCB || j->cs.space == GIP__CS_YUV) &&
                gip__cc_simd_active()) {
                x0 = (gip__cc_vbmi_active() ? space_ycc_u16_512 : space_ycc_u16_avx2)(
                    (const uint16_t *)s, (uint16_t *)d, w, j->cs.bidx, j->cs.space == GIP__CS_YUV,
                    j->cs.inverse);
            }
#endif
            u16_row(&j->cs, (const uint16_t *)s + x0 * scn, (uint16_t *)d + x0 * dcn, w - x0, scn,
                    dcn);
        } else {
            int64_t x0 = 0;
            const int sp = j->cs.space;
            if (!j->cs.inverse && scn == 3 &&
                (sp == GIP__CS_HSV || sp == GIP__CS_HSV_FULL || sp == GIP__CS_HLS ||
                 sp == GIP__CS_HLS_FULL)) {
                /* the row's whole vectors of OpenCV's code; the rest below */
                x0 = w / GIP__CS_HLS_VEC * GIP__CS_HLS_VEC;
                const bool hls = sp == GIP__CS_HLS || sp == GIP__CS_HLS_FULL;
                int64_t xv = 0;
#ifdef SPACE_X86
                if (gip__cc_simd_active())
                    xv = space_hue_f32((const float *)s, (float *)d, x0, j->cs.bidx, hls);
#endif
                f32_hue_row((const float *)s + 3 * xv, (float *)d + 3 * xv, x0 - xv, j->cs.bidx,
                            hls);
            }
#ifdef SPACE_X86
            else if (j->cs.inverse && dcn == 3 && (sp == GIP__CS_HSV || sp == GIP__CS_HSV_FULL) &&
                     gip__cc_simd_active()) {
                /* the row's whole vectors of OpenCV's code (multiples of 8); the rest below */
                x0 = w / GIP__CS_HLS_VEC * GIP__CS_HLS_VEC;
                space_hsv_inv_f32_avx2((const float *)s, (float *)d, x0, j->cs.bidx);
            } else if (j->cs.inverse && dcn == 3 && (sp == GIP__CS_HLS || sp == GIP__CS_HLS_FULL) &&
                       gip__cc_simd_active()) {
                x0 = w / GIP__CS_HLS_VEC * GIP__CS_HLS_VEC;
                space_hls_inv_f32_avx2((const float *)s, (float *)d, x0, j->cs.bidx);
            }
#endif
            f32_gen_row(&j->cs, (const float *)s, (float *)d, x0, w);
        }
    }
}

gip_status gip__cvt_space_cpu(gip_context *ctx, const gip_image *src, gip_image *dst,
                              const gip__cc_params *p)
{
    space_job j = {src, dst, p->cs};
    if (src->dtype == GIP_U8 && j.cs.space == GIP__CS_LUV && !j.cs.inverse)
        j.cs.luv_lut = gip__luv_lut();
    int64_t grain = src->width >= 8192 ? 1 : 8192 / src->width;
    gip__parallel_for(ctx, src->height, grain, space_rows, &j);
    return GIP_OK;
}
