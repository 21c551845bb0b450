/* SPDX-License-Identifier: MIT */
/* gip_yuv_to_rgb: the frame's geometry checked against the output, and the CPU backend (rows on
 * gip's thread pool); cvt_yuv_cuda.cu is the CUDA one. */
#include <pthread.h>
#include <string.h>

#include "color/cvt_color_cpu.h"
#include "color/cvt_yuv.h"
#include "internal.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define YUV_X86 1
#include "color/cvt_avx2.h"
#define YUV_AVX2 __attribute__((target("avx2")))
#endif

gip_status gip__yuv_to_rgb_cuda(gip_context *ctx, const gip__yuv_frame *f, gip_image *dst);
gip_status gip__rgb_to_yuv_cuda(gip_context *ctx, const gip__yuv_enc *e, gip_image *dst);

typedef struct yuv_job {
    gip__yuv_frame f;
    gip_image *dst;
} yuv_job;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define YUV_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define YUV_CLONES
#endif
#define YUV_INLINE static inline __attribute__((always_inline))

YUV_INLINE uint8_t yuv_clamp(int v)
{
    v = v < 0 ? 0 : v;
    return (uint8_t)(v > 255 ? 255 : v);
}

/* n pairs of output pixels: pair k's lumas at py[k * ys] and py[k * ys + ys / 2], its chroma at
 * pu[k * cs] and pv[k * cs]. What gip__yuv_pixel() gives each pixel, written with every stride,
 * the channel count and the order constants of the loop so that the compiler vectorises it. */
YUV_INLINE void yuv_pairs(const gip__yuv_frame *f, const uint8_t *restrict py, int ys,
                          const uint8_t *restrict pu, const uint8_t *restrict pv, int cs,
                          uint8_t *restrict d, int64_t n, int dcn, int bidx)
{
    const int shift = 20, half = 1 << (shift - 1);
    const int cy = f->cy, cvr = f->cvr, cug = f->cug, cvg = f->cvg, cub = f->cub, yoff = f->yoff;
    for (int64_t k = 0; k < n; k++) {
        const int uu = pu[k * cs] - 128, vv = pv[k * cs] - 128;
        const int ruv = half + cvr * vv, guv = half + cvg * vv + cug * uu, buv = half + cub * uu;
        for (int i = 0; i < 2; i++) {
            const int yy = py[k * ys + i * (ys / 2)] - yoff;
            const int yv = (yy > 0 ? yy : 0) * cy;
            uint8_t *o = d + (2 * k + i) * dcn;
            o[bidx ^ 2] = yuv_clamp((yv + ruv) >> shift);
            o[1] = yuv_clamp((yv + guv) >> shift);
            o[bidx] = yuv_clamp((yv + buv) >> shift);
            if (dcn == 4)
                o[3] = 255;
        }
    }
}

/* The layout's strides made constants: Y a pair of bytes (4:2:0) or every other byte of four
 * (4:2:2), chroma interleaved (NV12, NV21, 4:2:2) or planar (I420, YV12). */
YUV_INLINE void yuv_row_dcn(const gip__yuv_frame *f, int packed, int planar, const uint8_t *py,
                            const uint8_t *pu, const uint8_t *pv, uint8_t *d, int64_t n, int dcn,
                            int bidx)
{
    if (packed)
        yuv_pairs(f, py, 4, pu, pv, 4, d, n, dcn, bidx);
    else if (planar)
        yuv_pairs(f, py, 2, pu, pv, 1, d, n, dcn, bidx);
    else
        yuv_pairs(f, py, 2, pu, pv, 2, d, n, dcn, bidx);
}

/* n pairs of a row (pointers as yuv_pairs() takes them). */
YUV_CLONES static void yuv_row(const gip__yuv_frame *f, int packed, int planar, const uint8_t *py,
                               const uint8_t *pu, const uint8_t *pv, uint8_t *d, int64_t n)
{
    switch (f->dcn * 4 + f->bidx) {
    case 12:
        yuv_row_dcn(f, packed, planar, py, pu, pv, d, n, 3, 0);
        break;
    case 14:
        yuv_row_dcn(f, packed, planar, py, pu, pv, d, n, 3, 2);
        break;
    case 16:
        yuv_row_dcn(f, packed, planar, py, pu, pv, d, n, 4, 0);
        break;
    default:
        yuv_row_dcn(f, packed, planar, py, pu, pv, d, n, 4, 2);
        break;
    }
}

#ifdef YUV_X86
/* AVX2: 16 pixels a step, the same 32-bit arithmetic as yuv_pairs() (Y's offset, the products,
 * the rounding constant, the arithmetic shift; packing with signed then unsigned saturation is
 * its clamp to 0..255). */

/* One colour of 16 pixels, the even ones' (lumas ye, already times cy) and the odd ones' (yo)
 * with the 8 pairs' chroma terms c, as 16-bit values: per 128-bit lane the lane's 4 even pixels,
 * then its 4 odd ones. */
YUV_AVX2 static inline __m256i yuv_avx2_comp(__m256i ye, __m256i yo, __m256i c)
{
    return _mm256_packs_epi32(_mm256_srai_epi32(_mm256_add_epi32(ye, c), 20),
                              _mm256_srai_epi32(_mm256_add_epi32(yo, c), 20));
}

/* The 8 pairs' chroma terms from their U and V (32-bit): red's, green's and blue's, each with
 * the rounding constant. */
typedef struct yuv_avx2_uv {
    __m256i r, g, b;
} yuv_avx2_uv;

YUV_AVX2 static inline yuv_avx2_uv yuv_avx2_chroma(const gip__yuv_frame *f, __m256i u, __m256i v)
{
    const __m256i half = _mm256_set1_epi32(1 << 19), k128 = _mm256_set1_epi32(128);
    u = _mm256_sub_epi32(u, k128);
    v = _mm256_sub_epi32(v, k128);
    yuv_avx2_uv c;
    c.r = _mm256_add_epi32(half, _mm256_mullo_epi32(v, _mm256_set1_epi32(f->cvr)));
    c.g = _mm256_add_epi32(_mm256_add_epi32(half, _mm256_mullo_epi32(v, _mm256_set1_epi32(f->cvg))),
                           _mm256_mullo_epi32(u, _mm256_set1_epi32(f->cug)));
    c.b = _mm256_add_epi32(half, _mm256_mullo_epi32(u, _mm256_set1_epi32(f->cub)));
    return c;
}

/* 16 pixels from 16 lumas and their 8 pairs' chroma terms, stored as dcn (3, 4) channels with
 * blue at bidx. The lumas are split into even and odd pixels so that each lane of chroma serves
 * one pixel of each; the final byte shuffles put the pixels back in order. */
YUV_AVX2 static inline void yuv_avx2_px(const gip__yuv_frame *f, __m128i y8, yuv_avx2_uv c,
                                        uint8_t *d, int dcn, int bidx)
{
    const __m256i cy = _mm256_set1_epi32(f->cy);
    const __m256i ruv = c.r, guv = c.g, buv = c.b;
    /* max(Y - yoff, 0) as a saturating byte subtraction, the even pixels then the odd ones */
    const __m128i eo =
        _mm_shuffle_epi8(_mm_subs_epu8(y8, _mm_set1_epi8((char)f->yoff)),
                         _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15));
    const __m256i ye = _mm256_mullo_epi32(_mm256_cvtepu8_epi32(eo), cy);
    const __m256i yo = _mm256_mullo_epi32(_mm256_cvtepu8_epi32(_mm_srli_si128(eo, 8)), cy);
    const __m256i r = yuv_avx2_comp(ye, yo, ruv), g = yuv_avx2_comp(ye, yo, guv),
                  b = yuv_avx2_comp(ye, yo, buv);
    /* per lane, bytes: P channels 0 and 1 in memory order, Q channel 2 and alpha; 8 pixels each
     * (the lane's even pixels, then its odd ones) */
    const __m256i p = _mm256_packus_epi16(bidx ? r : b, g);
    const __m256i q = _mm256_packus_epi16(bidx ? b : r, dcn == 4 ? _mm256_set1_epi16(255) : g);
#define YUV_M(...) _mm256_broadcastsi128_si256(_mm_setr_epi8(__VA_ARGS__))
    if (dcn == 4) {
        const __m256i lo = _mm256_or_si256(
            _mm256_shuffle_epi8(p, YUV_M(0, 8, -1, -1, 4, 12, -1, -1, 1, 9, -1, -1, 5, 13, -1, -1)),
            _mm256_shuffle_epi8(q,
                                YUV_M(-1, -1, 0, 8, -1, -1, 4, 12, -1, -1, 1, 9, -1, -1, 5, 13)));
        const __m256i hi = _mm256_or_si256(
            _mm256_shuffle_epi8(p,
                                YUV_M(2, 10, -1, -1, 6, 14, -1, -1, 3, 11, -1, -1, 7, 15, -1, -1)),
            _mm256_shuffle_epi8(q,
                                YUV_M(-1, -1, 2, 10, -1, -1, 6, 14, -1, -1, 3, 11, -1, -1, 7, 15)));
        _mm256_storeu_si256((__m256i *)d, _mm256_permute2x128_si256(lo, hi, 0x20));
        _mm256_storeu_si256((__m256i *)(d + 32), _mm256_permute2x128_si256(lo, hi, 0x31));
        return;
    }
    /* three channels: a lane's 8 pixels are 24 bytes, its first 16 in a, the rest in c */
    const __m256i a = _mm256_or_si256(
        _mm256_shuffle_epi8(p, YUV_M(0, 8, -1, 4, 12, -1, 1, 9, -1, 5, 13, -1, 2, 10, -1, 6)),
        _mm256_shuffle_epi8(q, YUV_M(-1, -1, 0, -1, -1, 4, -1, -1, 1, -1, -1, 5, -1, -1, 2, -1)));
    const __m256i e = _mm256_or_si256(
        _mm256_shuffle_epi8(p, YUV_M(14, -1, 3, 11, -1, 7, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1)),
        _mm256_shuffle_epi8(q, YUV_M(-1, 6, -1, -1, 3, -1, -1, 7, -1, -1, -1, -1, -1, -1, -1, -1)));
#undef YUV_M
    _mm_storeu_si128((__m128i *)d, _mm256_castsi256_si128(a));
    _mm_storel_epi64((__m128i *)(d + 16), _mm256_castsi256_si128(e));
    _mm_storeu_si128((__m128i *)(d + 24), _mm256_extracti128_si256(a, 1));
    _mm_storel_epi64((__m128i *)(d + 40), _mm256_extracti128_si256(e, 1));
}

/* The pixels of a row 16 at a time; returns how many pairs it did. The layout's loads: 4:2:0
 * with interleaved (NV12: U first; NV21) or planar chroma, or the 4:2:2 packings (y at byte yo
 * of each pair's four, u and v at uo and vo). */
/* The pairs of a row it did (a multiple of 8); with py2 and d2 (4:2:0 only), also the next row,
 * which shares the chroma. The layout's loads: 4:2:0 with interleaved (NV12: U first; NV21) or
 * planar chroma, or the 4:2:2 packings. */
YUV_AVX2 static inline int64_t yuv_avx2_dcn(const gip__yuv_frame *f, int packed, int planar,
                                            const uint8_t *py, const uint8_t *pu, const uint8_t *pv,
                                            uint8_t *d, const uint8_t *py2, uint8_t *d2, int64_t n,
                                            int dcn, int bidx)
{
    int64_t k = 0;
    const __m128i even = _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    if (packed) {
        /* 8 pairs in 32 bytes from the first pair's first byte q: Y at ys + 2 i, U at us + 4 i
         * and V at vs + 4 i */
        const uint8_t *q = py < pu ? py : pu;
        const int ys = (int)(py - q), us = (int)(pu - q), vs = (int)(pv - q);
        int8_t my[16], mu[16], mv[16];
        for (int i = 0; i < 16; i++) {
            my[i] = (int8_t)(i < 8 ? ys + 2 * i : -1);
            mu[i] = (int8_t)(i < 4 ? us + 4 * i : -1);
            mv[i] = (int8_t)(i < 4 ? vs + 4 * i : -1);
        }
        const __m128i sy = _mm_loadu_si128((const __m128i *)my),
                      su = _mm_loadu_si128((const __m128i *)mu),
                      sv = _mm_loadu_si128((const __m128i *)mv);
        for (; k + 8 <= n; k += 8) {
            const __m128i a = _mm_loadu_si128((const __m128i *)(q + 4 * k)),
                          b = _mm_loadu_si128((const __m128i *)(q + 4 * k + 16));
            const __m128i y8 = _mm_unpacklo_epi64(_mm_shuffle_epi8(a, sy), _mm_shuffle_epi8(b, sy));
            const __m128i u8 = _mm_unpacklo_epi32(_mm_shuffle_epi8(a, su), _mm_shuffle_epi8(b, su));
            const __m128i v8 = _mm_unpacklo_epi32(_mm_shuffle_epi8(a, sv), _mm_shuffle_epi8(b, sv));
            yuv_avx2_px(f, y8,
                        yuv_avx2_chroma(f, _mm256_cvtepu8_epi32(u8), _mm256_cvtepu8_epi32(v8)),
                        d + 2 * k * dcn, dcn, bidx);
        }
        return k;
    }
    for (; k + 8 <= n; k += 8) {
        __m128i u8, v8;
        if (planar) {
            u8 = _mm_loadl_epi64((const __m128i *)(pu + k));
            v8 = _mm_loadl_epi64((const __m128i *)(pv + k));
        } else {
            /* 16 interleaved bytes from the pair's first chroma byte */
            const uint8_t *c = pu < pv ? pu : pv;
            const __m128i t = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(c + 2 * k)), even);
            u8 = pu < pv ? t : _mm_srli_si128(t, 8);
            v8 = pu < pv ? _mm_srli_si128(t, 8) : t;
        }
        const yuv_avx2_uv c =
            yuv_avx2_chroma(f, _mm256_cvtepu8_epi32(u8), _mm256_cvtepu8_epi32(v8));
        yuv_avx2_px(f, _mm_loadu_si128((const __m128i *)(py + 2 * k)), c, d + 2 * k * dcn, dcn,
                    bidx);
        if (py2)
            yuv_avx2_px(f, _mm_loadu_si128((const __m128i *)(py2 + 2 * k)), c, d2 + 2 * k * dcn,
                        dcn, bidx);
    }
    return k;
}

YUV_AVX2 static int64_t yuv_avx2(const gip__yuv_frame *f, int packed, int planar, const uint8_t *py,
                                 const uint8_t *pu, const uint8_t *pv, uint8_t *d,
                                 const uint8_t *py2, uint8_t *d2, int64_t n)
{
    switch (f->dcn * 4 + f->bidx) {
    case 12:
        return yuv_avx2_dcn(f, packed, planar, py, pu, pv, d, py2, d2, n, 3, 0);
    case 14:
        return yuv_avx2_dcn(f, packed, planar, py, pu, pv, d, py2, d2, n, 3, 2);
    case 16:
        return yuv_avx2_dcn(f, packed, planar, py, pu, pv, d, py2, d2, n, 4, 0);
    default:
        return yuv_avx2_dcn(f, packed, planar, py, pu, pv, d, py2, d2, n, 4, 2);
    }
}
/* AVX-512 with VBMI, 4:2:0 only: 32 pixels a step in 16 lanes of 32 bits (the same arithmetic),
 * and one byte permute of the packed colours for each 64 bytes written. */
#define YUV_VBMI __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vbmi")))

/* Where output byte j of 32 pixels comes from in the permute's 128 bytes: per 128-bit lane L
 * (pixels 8 L .. 8 L + 7, the even ones first), channels 0 and 1 in the first register's bytes
 * 16 L + pos and 16 L + 8 + pos, channel 2 and alpha in the second's. */
static uint8_t yuv_vbmi_idx[2][128] __attribute__((aligned(64))); /* [dcn 3, 4] */
static pthread_once_t yuv_vbmi_once = PTHREAD_ONCE_INIT;

static void yuv_vbmi_init(void)
{
    for (int t = 0; t < 2; t++) {
        const int dcn = 3 + t;
        for (int j = 0; j < 32 * dcn; j++) {
            const int px = j / dcn, ch = j % dcn, lane = px / 8, p = px % 8;
            const int pos = p % 2 ? 4 + p / 2 : p / 2;
            yuv_vbmi_idx[t][j] = (uint8_t)((ch >= 2 ? 64 : 0) + 16 * lane + 8 * (ch & 1) + pos);
        }
    }
}

YUV_VBMI static inline __m512i yuv_vbmi_comp(__m512i ye, __m512i yo, __m512i c)
{
    return _mm512_packs_epi32(_mm512_srai_epi32(_mm512_add_epi32(ye, c), 20),
                              _mm512_srai_epi32(_mm512_add_epi32(yo, c), 20));
}

YUV_VBMI static inline int64_t yuv_vbmi_dcn(const gip__yuv_frame *f, int planar, const uint8_t *py,
                                            const uint8_t *pu, const uint8_t *pv, uint8_t *d,
                                            const uint8_t *py2, uint8_t *d2, int64_t n, int dcn,
                                            int bidx)
{
    const __m256i split = _mm256_broadcastsi128_si256(
        _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15));
    const __m512i half = _mm512_set1_epi32(1 << 19), k128 = _mm512_set1_epi32(128);
    const __m512i cy = _mm512_set1_epi32(f->cy), cvr = _mm512_set1_epi32(f->cvr),
                  cvg = _mm512_set1_epi32(f->cvg), cug = _mm512_set1_epi32(f->cug),
                  cub = _mm512_set1_epi32(f->cub);
    const __m256i yoff = _mm256_set1_epi8((char)f->yoff);
    const __m512i idx0 = _mm512_load_si512((const void *)yuv_vbmi_idx[dcn - 3]),
                  idx1 = _mm512_load_si512((const void *)(yuv_vbmi_idx[dcn - 3] + 64));
    const uint8_t *rows[2] = {py, py2};
    uint8_t *outs[2] = {d, d2};
    int64_t k = 0;
    for (; k + 16 <= n; k += 16) {
        __m512i u, v;
        if (planar) {
            u = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(pu + k)));
            v = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(pv + k)));
        } else {
            /* 32 interleaved bytes: per lane the first byte of each pair, then the second */
            const uint8_t *c = pu < pv ? pu : pv;
            const __m256i t = _mm256_permute4x64_epi64(
                _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(c + 2 * k)), split), 0xD8);
            const __m512i first = _mm512_cvtepu8_epi32(_mm256_castsi256_si128(t)),
                          second = _mm512_cvtepu8_epi32(_mm256_extracti128_si256(t, 1));
            u = pu < pv ? first : second;
            v = pu < pv ? second : first;
        }
        u = _mm512_sub_epi32(u, k128);
        v = _mm512_sub_epi32(v, k128);
        const __m512i ruv = _mm512_add_epi32(half, _mm512_mullo_epi32(v, cvr));
        const __m512i guv = _mm512_add_epi32(_mm512_add_epi32(half, _mm512_mullo_epi32(v, cvg)),
                                             _mm512_mullo_epi32(u, cug));
        const __m512i buv = _mm512_add_epi32(half, _mm512_mullo_epi32(u, cub));
        for (int row = 0; row < 2; row++) {
            if (!rows[row])
                break;
            /* max(Y - yoff, 0), the even pixels then the odd ones */
            const __m256i y = _mm256_permute4x64_epi64(
                _mm256_shuffle_epi8(
                    _mm256_subs_epu8(_mm256_loadu_si256((const __m256i *)(rows[row] + 2 * k)),
                                     yoff),
                    split),
                0xD8);
            const __m512i ye =
                _mm512_mullo_epi32(_mm512_cvtepu8_epi32(_mm256_castsi256_si128(y)), cy);
            const __m512i yo =
                _mm512_mullo_epi32(_mm512_cvtepu8_epi32(_mm256_extracti128_si256(y, 1)), cy);
            const __m512i r = yuv_vbmi_comp(ye, yo, ruv), g = yuv_vbmi_comp(ye, yo, guv),
                          b = yuv_vbmi_comp(ye, yo, buv);
            const __m512i p = _mm512_packus_epi16(bidx ? r : b, g);
            const __m512i q =
                _mm512_packus_epi16(bidx ? b : r, dcn == 4 ? _mm512_set1_epi16(255) : g);
            uint8_t *o = outs[row] + 2 * k * dcn;
            _mm512_storeu_si512((void *)o, _mm512_permutex2var_epi8(p, idx0, q));
            const __m512i rest = _mm512_permutex2var_epi8(p, idx1, q);
            if (dcn == 4)
                _mm512_storeu_si512((void *)(o + 64), rest);
            else
                _mm256_storeu_si256((__m256i *)(o + 64), _mm512_castsi512_si256(rest));
        }
    }
    return k;
}

YUV_VBMI static int64_t yuv_vbmi(const gip__yuv_frame *f, int planar, const uint8_t *py,
                                 const uint8_t *pu, const uint8_t *pv, uint8_t *d,
                                 const uint8_t *py2, uint8_t *d2, int64_t n)
{
    pthread_once(&yuv_vbmi_once, yuv_vbmi_init);
    switch (f->dcn * 4 + f->bidx) {
    case 12:
        return yuv_vbmi_dcn(f, planar, py, pu, pv, d, py2, d2, n, 3, 0);
    case 14:
        return yuv_vbmi_dcn(f, planar, py, pu, pv, d, py2, d2, n, 3, 2);
    case 16:
        return yuv_vbmi_dcn(f, planar, py, pu, pv, d, py2, d2, n, 4, 0);
    default:
        return yuv_vbmi_dcn(f, planar, py, pu, pv, d, py2, d2, n, 4, 2);
    }
}

#endif

static void yuv_rows(void *arg, int64_t y0, int64_t y1)
{
    const yuv_job *j = arg;
    const gip__yuv_frame *f = &j->f;
    const int64_t s = f->stride, w = f->width, h = f->height;
    for (int64_t y = y0; y < y1; y++) {
        uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
        const uint8_t *py = f->data + y * s, *pu, *pv;
        int packed = 0, planar = 0;
        switch (f->layout) {
        case GIP_YUV_NV12:
        case GIP_YUV_NV21:
            pu = f->data + (h + y / 2) * s + (f->layout == GIP_YUV_NV21);
            pv = f->data + (h + y / 2) * s + (f->layout == GIP_YUV_NV12);
            break;
        case GIP_YUV_I420:
        case GIP_YUV_YV12: {
            /* half rows of w / 2 bytes after Y, two a frame row: U's h / 2, then V's (YV12: V
             * first), as gip__yuv_sample() reads them */
            const uint8_t *base = f->data + h * s;
            const int64_t k = y / 2, ku = f->layout == GIP_YUV_I420 ? k : k + h / 2,
                          kv = f->layout == GIP_YUV_I420 ? k + h / 2 : k;
            pu = base + (ku >> 1) * s + (ku & 1) * (w / 2);
            pv = base + (kv >> 1) * s + (kv & 1) * (w / 2);
            planar = 1;
            break;
        }
        default: /* 4:2:2: YUY2 Y0 U Y1 V, UYVY U Y0 V Y1, YVYU Y0 V Y1 U */
            packed = 1;
            pu = py + (f->layout == GIP_YUV_UYVY ? 0 : f->layout == GIP_YUV_YUY2 ? 1 : 3);
            pv = py + (f->layout == GIP_YUV_UYVY ? 2 : f->layout == GIP_YUV_YUY2 ? 3 : 1);
            py += f->layout == GIP_YUV_UYVY;
            break;
        }
        if (f->dcn == 1) {
            if (packed)
                for (int64_t x = 0; x < w; x++)
                    d[x] = py[2 * x];
            else
                memcpy(d, py, (size_t)w);
            continue;
        }
        int64_t k = 0;
        const int64_t n = w / 2;
        /* 4:2:0: an even row and the next share their chroma, done together where both are
         * this band's */
        const bool two = !packed && y % 2 == 0 && y + 1 < y1;
        uint8_t *d2 = two ? d + j->dst->stride : NULL;
        const uint8_t *py2 = two ? py + s : NULL;
#ifdef YUV_X86
        if (gip__cc_simd_active()) {
            if (!packed && gip__cc_vbmi_active())
                k = yuv_vbmi(f, planar, py, pu, pv, d, py2, d2, n);
            /* the AVX2 steps after the AVX-512 ones (for the second row of a pair too, whose
             * progress equals the first's) */
            const int ys = packed ? 4 : 2, cs = packed ? 4 : planar ? 1 : 2;
            k += yuv_avx2(f, packed, planar, py + k * ys, pu + k * cs, pv + k * cs,
                          d + 2 * k * f->dcn, py2 ? py2 + k * ys : NULL,
                          d2 ? d2 + 2 * k * f->dcn : NULL, n - k);
        }
#endif
        const int ys = packed ? 4 : 2, cs = packed ? 4 : planar ? 1 : 2;
        yuv_row(f, packed, planar, py + k * ys, pu + k * cs, pv + k * cs, d + 2 * k * f->dcn,
                n - k);
        if (two) {
            yuv_row(f, packed, planar, py2 + k * ys, pu + k * cs, pv + k * cs, d2 + 2 * k * f->dcn,
                    n - k);
            y++;
        }
    }
}

/* 20-bit coefficients (Y, V to R, U to G, V to G, U to B) by [standard][full range]. BT.601
 * limited: OpenCV's (1.164, 1.596, -0.391, -0.813, 2.018); the others from the standards' Kr and
 * Kb (BT.601 0.299, 0.114; BT.709 0.2126, 0.0722), rounded to 20 bits: Y scaled by 255/219 and
 * chroma by 255/224 for limited range, R = Y + 2 (1 - Kr) V, B = Y + 2 (1 - Kb) U, and G from
 * Y = Kr R + Kg G + Kb B. */
static const int32_t yuv_coeffs[2][2][5] = {
    {{1220542, 1673527, -409993, -852492, 2116026}, {1048576, 1470104, -360853, -748826, 1858077}},
    {{1220945, 1879825, -223607, -558796, 2215014}, {1048576, 1651297, -196424, -490864, 1945738}},
};

/* The checks both directions share: src and dst (gip__check_pair()), a gip_yuv_layout, and the
 * matrix (params, NULL: BT.601 limited) into *yp. */
static gip_status check_yuv_call(gip_context *ctx, const gip_image *src, const gip_image *dst,
                                 gip_yuv_layout layout, const gip_yuv_params *params,
                                 gip_yuv_params *yp, bool *on_device, const char *op)
{
    gip_status st = gip__check_pair(ctx, src, dst, op, on_device);
    if (st)
        return st;
    *yp = params ? *params : (gip_yuv_params){GIP_YUV_BT601, 0};
    if ((int)layout < GIP_YUV_NV12 || (int)layout > GIP_YUV_YVYU)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: layout %d is not a gip_yuv_layout (GIP_YUV_NV12 0 .. GIP_YUV_YVYU "
                          "6)",
                          op, (int)layout);
    if ((int)yp->standard < GIP_YUV_BT601 || (int)yp->standard > GIP_YUV_BT709 ||
        (yp->full_range != 0 && yp->full_range != 1))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: standard %d, full_range %d: GIP_YUV_BT601 (0) or GIP_YUV_BT709 "
                          "(1), and 0 or 1",
                          op, (int)yp->standard, (int)yp->full_range);
    return GIP_OK;
}

static gip_status yuv_to_rgb(gip_context *ctx, const gip_image *src, gip_image *dst,
                             gip_yuv_layout layout, int32_t bgr, const gip_yuv_params *params,
                             const char *op)
{
    bool on_device = false;
    gip_yuv_params ypv;
    gip_status st = check_yuv_call(ctx, src, dst, layout, params, &ypv, &on_device, op);
    if (st)
        return st;
    const gip_yuv_params *yp = &ypv;
    if (src->dtype != GIP_U8 || src->channels != 1 || dst->dtype != GIP_U8)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: src must be a 1-channel u8 frame and dst u8, got %d-channel %s and "
                          "%s",
                          op, (int)src->channels, gip_dtype_name(src->dtype),
                          gip_dtype_name(dst->dtype));
    const bool packed = layout >= GIP_YUV_YUY2;
    const int64_t w = dst->width, h = dst->height;
    const bool fits = packed
                          ? src->width == 2 * w && src->height == h && w % 2 == 0
                          : src->width == w && src->height * 2 == h * 3 && w % 2 == 0 && h % 2 == 0;
    if (!fits)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: a %s frame of %lldx%lld pixels (even sizes) is a %s u8 image, got "
                          "src %lldx%lld for dst %lldx%lld",
                          op, packed ? "4:2:2" : "4:2:0", (long long)w, (long long)h,
                          packed ? "(2 * W) x H" : "W x (H * 3 / 2)", (long long)src->width,
                          (long long)src->height, (long long)w, (long long)h);
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap", op);
    const int32_t *k = yuv_coeffs[yp->standard][yp->full_range];
    yuv_job j = {{(const uint8_t *)src->data, src->stride, w, h, (int32_t)layout, dst->channels,
                  bgr ? 0 : 2, k[0], k[1], k[2], k[3], k[4], yp->full_range ? 0 : 16},
                 dst};
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        return gip__yuv_to_rgb_cuda(ctx, &j.f, dst);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
#endif
    }
    gip__parallel_for(ctx, h, w >= 8192 ? 1 : 8192 / w, yuv_rows, &j);
    return GIP_OK;
}

gip_status gip_yuv_to_rgb(gip_context *ctx, const gip_image *src, gip_image *dst,
                          gip_yuv_layout layout, int32_t bgr)
{
    return yuv_to_rgb(ctx, src, dst, layout, bgr, NULL, "gip_yuv_to_rgb");
}

gip_status gip_yuv_to_rgb_ex(gip_context *ctx, const gip_image *src, gip_image *dst,
                             gip_yuv_layout layout, int32_t bgr, const gip_yuv_params *params)
{
    return yuv_to_rgb(ctx, src, dst, layout, bgr, params, "gip_yuv_to_rgb_ex");
}

#ifdef YUV_X86
/* 16 pixels of scn (3 or 4) channels from p: the first three channels' bytes in memory order. */
YUV_AVX2 static inline void enc_avx2_load16(const uint8_t *p, int scn, __m128i *c0, __m128i *c1,
                                            __m128i *c2)
{
    if (scn == 4)
        gip__cc_avx2_load4(p, c0, c1, c2);
    else
        gip__cc_avx2_load3(p, c0, c1, c2);
}

/* k0 r + k1 g + k2 b + c of 8 pixels (32-bit lanes), exact in 32 bits as the scalar sums. */
YUV_AVX2 static inline __m256i enc_avx2_dot(__m256i r, __m256i g, __m256i b, const __m256i *k,
                                            __m256i c)
{
    return _mm256_add_epi32(
        _mm256_add_epi32(_mm256_mullo_epi32(r, k[0]), _mm256_mullo_epi32(g, k[1])),
        _mm256_add_epi32(_mm256_mullo_epi32(b, k[2]), c));
}

/* Two halves of 8 32-bit lanes to 16 bytes, saturated (gip__yuv_sat()). */
YUV_AVX2 static inline __m128i enc_avx2_pack(__m256i lo, __m256i hi)
{
    const __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), 0xD8);
    return _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
}

/* gip__yuv_enc_comp() of 16 pixels from their channel bytes: k the component's 20-bit weights
 * of r, g, b, c its offset and rounding. */
YUV_AVX2 static inline __m128i enc_avx2_comp20(__m128i r, __m128i g, __m128i b, const __m256i *k,
                                               __m256i c)
{
    const __m256i lo = enc_avx2_dot(_mm256_cvtepu8_epi32(r), _mm256_cvtepu8_epi32(g),
                                    _mm256_cvtepu8_epi32(b), k, c);
    const __m256i hi = enc_avx2_dot(_mm256_cvtepu8_epi32(_mm_srli_si128(r, 8)),
                                    _mm256_cvtepu8_epi32(_mm_srli_si128(g, 8)),
                                    _mm256_cvtepu8_epi32(_mm_srli_si128(b, 8)), k, c);
    return enc_avx2_pack(_mm256_srai_epi32(lo, 20), _mm256_srai_epi32(hi, 20));
}

/* The encoders' constants: the Y, U and V weights k (e->k20 or e->k14, their shift sh)
 * broadcast, and Y's and the chroma's offsets with the rounding. */
typedef struct enc_avx2_k {
    __m256i ky[3], ku[3], kv[3], cy, cc;
} enc_avx2_k;

YUV_AVX2 static inline __attribute__((always_inline)) void
enc_avx2_consts(const gip__yuv_enc *e, const int32_t *k, int sh, enc_avx2_k *c)
{
    for (int i = 0; i < 3; i++) {
        c->ky[i] = _mm256_set1_epi32(k[i]);
        c->ku[i] = _mm256_set1_epi32(k[3 + i]);
        c->kv[i] = _mm256_set1_epi32(k[6 + i]);
    }
    c->cy = _mm256_set1_epi32((1 << (sh - 1)) + (e->yoff << sh));
    c->cc = _mm256_set1_epi32((1 << (sh - 1)) + (128 << sh));
}

/* The Y bytes of a 4:2:0 row (a multiple of 16 pixels); returns how many. */
YUV_AVX2 static int64_t enc_avx2_y(const gip__yuv_enc *e, const uint8_t *p, uint8_t *d)
{
    enc_avx2_k k;
    enc_avx2_consts(e, e->k20, 20, &k);
    const int scn = e->scn;
    int64_t x = 0;
    for (; x + 16 <= e->width; x += 16) {
        __m128i c0, c1, c2;
        enc_avx2_load16(p + x * scn, scn, &c0, &c1, &c2);
        _mm_storeu_si128((__m128i *)(d + x), e->bidx ? enc_avx2_comp20(c0, c1, c2, k.ky, k.cy)
                                                     : enc_avx2_comp20(c2, c1, c0, k.ky, k.cy));
    }
    return x;
}

/* An even 4:2:0 source row p, 32 pixels a step: its Y bytes to dy, and the U and V bytes of its
 * even pixels to du and dv (planar) or interleaved at du (nv: 1 NV12, 2 NV21). Returns the
 * chroma pixels done (half the source pixels). */
YUV_AVX2 static int64_t enc_avx2_even(const gip__yuv_enc *e, const uint8_t *p, uint8_t *dy,
                                      uint8_t *du, uint8_t *dv, int nv)
{
    enc_avx2_k k;
    enc_avx2_consts(e, e->k20, 20, &k);
    const __m256i *ky = k.ky, *ku = k.ku, *kv = k.kv, cy = k.cy, c = k.cc;
    const __m128i even = _mm_set1_epi16(255);
    const int scn = e->scn;
    const int64_t n = e->width / 2;
    int64_t x = 0;
    for (; x + 16 <= n; x += 16) {
        __m128i a0, a1, a2, b0, b1, b2;
        enc_avx2_load16(p + 2 * x * scn, scn, &a0, &a1, &a2);
        enc_avx2_load16(p + (2 * x + 16) * scn, scn, &b0, &b1, &b2);
        _mm_storeu_si128((__m128i *)(dy + 2 * x), e->bidx ? enc_avx2_comp20(a0, a1, a2, ky, cy)
                                                          : enc_avx2_comp20(a2, a1, a0, ky, cy));
        _mm_storeu_si128((__m128i *)(dy + 2 * x + 16), e->bidx
                                                           ? enc_avx2_comp20(b0, b1, b2, ky, cy)
                                                           : enc_avx2_comp20(b2, b1, b0, ky, cy));
        const __m128i c0 = _mm_packus_epi16(_mm_and_si128(a0, even), _mm_and_si128(b0, even));
        const __m128i c1 = _mm_packus_epi16(_mm_and_si128(a1, even), _mm_and_si128(b1, even));
        const __m128i c2 = _mm_packus_epi16(_mm_and_si128(a2, even), _mm_and_si128(b2, even));
        const __m128i r = e->bidx ? c0 : c2, b = e->bidx ? c2 : c0;
        const __m128i u = enc_avx2_comp20(r, c1, b, ku, c), v = enc_avx2_comp20(r, c1, b, kv, c);
        if (nv) {
            const __m128i f = nv == 1 ? u : v, s = nv == 1 ? v : u;
            _mm_storeu_si128((__m128i *)(du + 2 * x), _mm_unpacklo_epi8(f, s));
            _mm_storeu_si128((__m128i *)(du + 2 * x + 16), _mm_unpackhi_epi8(f, s));
        } else {
            _mm_storeu_si128((__m128i *)(du + x), u);
            _mm_storeu_si128((__m128i *)(dv + x), v);
        }
    }
    return x;
}

/* ---- the 4:2:0 encoder with AVX-512 VBMI: 32 pixels' bytes in two registers, each channel of 16
 * of them taken as 32-bit lanes by one zero-masked byte permute, the 20-bit sums in 32 bits. */
#define YUV_Z4 0x1111111111111111ULL /* the low byte of each 32-bit lane */

/* The byte indices of channel c of 16 pixels 'step' bytes apart from byte 'first'. */
YUV_VBMI static inline __m512i enc_vbmi_idx(int first, int step)
{
    return _mm512_add_epi32(
        _mm512_set1_epi32(first),
        _mm512_mullo_epi32(_mm512_set1_epi32(step), _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
                                                                      10, 11, 12, 13, 14, 15)));
}

/* (k0 r + k1 g + k2 b + c) >> 20 (sh14: >> 14) of 16 32-bit lanes, saturated to bytes. */
YUV_VBMI static inline __m128i enc_vbmi_dot(__m512i r, __m512i g, __m512i b, const __m512i *k,
                                            __m512i c, int sh14)
{
    const __m512i s =
        _mm512_add_epi32(_mm512_add_epi32(_mm512_mullo_epi32(r, k[0]), _mm512_mullo_epi32(g, k[1])),
                         _mm512_add_epi32(_mm512_mullo_epi32(b, k[2]), c));
    return _mm512_cvtusepi32_epi8(_mm512_max_epi32(
        sh14 ? _mm512_srai_epi32(s, 14) : _mm512_srai_epi32(s, 20), _mm512_setzero_si512()));
}

/* The bytes of (v0, v1) that idx names, as 32-bit lanes. */
#define YUV_CH(idx) _mm512_maskz_permutex2var_epi8(YUV_Z4, v0, idx, v1)

/* gip__yuv_enc_comp() of the 16 pixels whose r, g, b bytes ix[] index in (v0, v1): k the
 * component's weights, c its offset and rounding. */
YUV_VBMI static inline __m128i enc_vbmi_comp(__m512i v0, __m512i v1, const __m512i *ix,
                                             const __m512i *k, __m512i c)
{
    return enc_vbmi_dot(YUV_CH(ix[0]), YUV_CH(ix[1]), YUV_CH(ix[2]), k, c, 0);
}

/* 32 pixels' bytes (3 or 4 channels) from p into v0, v1 (the second register's unused bytes 0). */
YUV_VBMI static inline void enc_vbmi_load(const uint8_t *p, int scn, __m512i *v0, __m512i *v1)
{
    *v0 = _mm512_loadu_si512((const void *)p);
    *v1 = scn == 4 ? _mm512_loadu_si512((const void *)(p + 64))
                   : _mm512_maskz_loadu_epi8(0xFFFFFFFFULL, p + 64);
}

/* The VBMI encoders' constants: the Y, U and V weights k (e->k20 or e->k14, their shift sh)
 * broadcast, Y's and the chroma's offsets with the rounding, and the r, g, b byte indices of
 * pixels 0-15 (i0), of 16-31 (i1), and of the even (ie) and the odd (io) ones. */
typedef struct enc_vbmi_k {
    __m512i ky[3], ku[3], kv[3], cy, cc, i0[3], i1[3], ie[3], io[3];
} enc_vbmi_k;

YUV_VBMI static inline __attribute__((always_inline)) void
enc_vbmi_consts(const gip__yuv_enc *e, const int32_t *k, int sh, enc_vbmi_k *c)
{
    const int scn = e->scn, ch[3] = {e->bidx ^ 2, 1, e->bidx};
    for (int i = 0; i < 3; i++) {
        c->ky[i] = _mm512_set1_epi32(k[i]);
        c->ku[i] = _mm512_set1_epi32(k[3 + i]);
        c->kv[i] = _mm512_set1_epi32(k[6 + i]);
        c->i0[i] = enc_vbmi_idx(ch[i], scn);
        c->i1[i] = enc_vbmi_idx(16 * scn + ch[i], scn);
        c->ie[i] = enc_vbmi_idx(ch[i], 2 * scn);
        c->io[i] = enc_vbmi_idx(scn + ch[i], 2 * scn);
    }
    c->cy = _mm512_set1_epi32((1 << (sh - 1)) + (e->yoff << sh));
    c->cc = _mm512_set1_epi32((1 << (sh - 1)) + (128 << sh));
}

/* enc_avx2_even() and enc_avx2_y() with AVX-512 VBMI: the even row's Y, U and V (odd: its Y
 * only, du NULL), 32 source pixels a step. Returns the source pixels done. */
YUV_VBMI static int64_t enc_vbmi_row(const gip__yuv_enc *e, const uint8_t *p, uint8_t *dy,
                                     uint8_t *du, uint8_t *dv, int nv)
{
    const int scn = e->scn;
    enc_vbmi_k k;
    enc_vbmi_consts(e, e->k20, 20, &k);
    int64_t x = 0;
    for (; x + 32 <= e->width; x += 32) {
        __m512i v0, v1;
        enc_vbmi_load(p + x * scn, scn, &v0, &v1);
        _mm_storeu_si128((__m128i *)(dy + x), enc_vbmi_comp(v0, v1, k.i0, k.ky, k.cy));
        _mm_storeu_si128((__m128i *)(dy + x + 16), enc_vbmi_comp(v0, v1, k.i1, k.ky, k.cy));
        if (!du)
            continue;
        const __m128i u = enc_vbmi_comp(v0, v1, k.ie, k.ku, k.cc),
                      v = enc_vbmi_comp(v0, v1, k.ie, k.kv, k.cc);
        const int64_t c = x / 2;
        if (nv) {
            const __m128i f = nv == 1 ? u : v, s = nv == 1 ? v : u;
            _mm_storeu_si128((__m128i *)(du + 2 * c), _mm_unpacklo_epi8(f, s));
            _mm_storeu_si128((__m128i *)(du + 2 * c + 16), _mm_unpackhi_epi8(f, s));
        } else {
            _mm_storeu_si128((__m128i *)(du + c), u);
            _mm_storeu_si128((__m128i *)(dv + c), v);
        }
    }
    return x;
}
/* enc_avx2_422() with AVX-512 VBMI, 32 pixels (64 bytes) a step; returns the pixels done. */
YUV_VBMI static int64_t enc_vbmi_422(const gip__yuv_enc *e, const uint8_t *p, uint8_t *d)
{
    const int scn = e->scn;
    enc_vbmi_k kk;
    enc_vbmi_consts(e, e->k14, 14, &kk);
    int64_t x = 0;
    for (; x + 32 <= e->width; x += 32) {
        __m512i v0, v1;
        enc_vbmi_load(p + x * scn, scn, &v0, &v1);
        const __m128i ya =
            enc_vbmi_dot(YUV_CH(kk.i0[0]), YUV_CH(kk.i0[1]), YUV_CH(kk.i0[2]), kk.ky, kk.cy, 1);
        const __m128i yb =
            enc_vbmi_dot(YUV_CH(kk.i1[0]), YUV_CH(kk.i1[1]), YUV_CH(kk.i1[2]), kk.ky, kk.cy, 1);
        /* the pairs' first and second pixels summed */
        const __m512i sr = _mm512_add_epi32(YUV_CH(kk.ie[0]), YUV_CH(kk.io[0])),
                      sg = _mm512_add_epi32(YUV_CH(kk.ie[1]), YUV_CH(kk.io[1])),
                      sb = _mm512_add_epi32(YUV_CH(kk.ie[2]), YUV_CH(kk.io[2]));
        const __m128i u = enc_vbmi_dot(sr, sg, sb, kk.ku, kk.cc, 1),
                      v = enc_vbmi_dot(sr, sg, sb, kk.kv, kk.cc, 1);
        const __m128i f = e->layout == GIP_YUV_YVYU ? v : u, t = e->layout == GIP_YUV_YVYU ? u : v;
        const __m128i uv[2] = {_mm_unpacklo_epi8(f, t), _mm_unpackhi_epi8(f, t)};
        const __m128i y[2] = {ya, yb};
        for (int k = 0; k < 2; k++) {
            const bool uyvy = e->layout == GIP_YUV_UYVY;
            _mm_storeu_si128((__m128i *)(d + 2 * x + 32 * k), uyvy
                                                                  ? _mm_unpacklo_epi8(uv[k], y[k])
                                                                  : _mm_unpacklo_epi8(y[k], uv[k]));
            _mm_storeu_si128((__m128i *)(d + 2 * x + 32 * k + 16),
                             uyvy ? _mm_unpackhi_epi8(uv[k], y[k])
                                  : _mm_unpackhi_epi8(y[k], uv[k]));
        }
    }
    return x;
}
#undef YUV_CH
#undef YUV_Z4

/* A 4:2:2 row, 16 pixels (32 bytes) a step: gip__yuv422_enc_comp()'s sums. Returns the pixels
 * done. */
YUV_AVX2 static int64_t enc_avx2_422(const gip__yuv_enc *e, const uint8_t *p, uint8_t *d)
{
    enc_avx2_k k;
    enc_avx2_consts(e, e->k14, 14, &k);
    const __m256i *ky = k.ky, *ku = k.ku, *kv = k.kv, cy = k.cy, cc = k.cc;
    const __m256i ones = _mm256_set1_epi16(1);
    const int scn = e->scn;
    int64_t x = 0;
    for (; x + 16 <= e->width; x += 16) {
        __m128i c0, c1, c2;
        enc_avx2_load16(p + x * scn, scn, &c0, &c1, &c2);
        const __m128i r = e->bidx ? c0 : c2, b = e->bidx ? c2 : c0;
        const __m256i ylo = enc_avx2_dot(_mm256_cvtepu8_epi32(r), _mm256_cvtepu8_epi32(c1),
                                         _mm256_cvtepu8_epi32(b), ky, cy);
        const __m256i yhi = enc_avx2_dot(_mm256_cvtepu8_epi32(_mm_srli_si128(r, 8)),
                                         _mm256_cvtepu8_epi32(_mm_srli_si128(c1, 8)),
                                         _mm256_cvtepu8_epi32(_mm_srli_si128(b, 8)), ky, cy);
        const __m128i y = enc_avx2_pack(_mm256_srai_epi32(ylo, 14), _mm256_srai_epi32(yhi, 14));
        /* the pairs' sums, 8 in 32-bit lanes */
        const __m256i sr = _mm256_madd_epi16(_mm256_cvtepu8_epi16(r), ones),
                      sg = _mm256_madd_epi16(_mm256_cvtepu8_epi16(c1), ones),
                      sb = _mm256_madd_epi16(_mm256_cvtepu8_epi16(b), ones);
        const __m128i u = enc_avx2_pack(_mm256_srai_epi32(enc_avx2_dot(sr, sg, sb, ku, cc), 14),
                                        _mm256_setzero_si256());
        const __m128i v = enc_avx2_pack(_mm256_srai_epi32(enc_avx2_dot(sr, sg, sb, kv, cc), 14),
                                        _mm256_setzero_si256());
        __m128i lo, hi;
        if (e->layout == GIP_YUV_UYVY) {
            const __m128i uv = _mm_unpacklo_epi8(u, v);
            lo = _mm_unpacklo_epi8(uv, y);
            hi = _mm_unpackhi_epi8(uv, y);
        } else {
            const __m128i uv =
                e->layout == GIP_YUV_YUY2 ? _mm_unpacklo_epi8(u, v) : _mm_unpacklo_epi8(v, u);
            lo = _mm_unpacklo_epi8(y, uv);
            hi = _mm_unpackhi_epi8(y, uv);
        }
        _mm_storeu_si128((__m128i *)(d + 2 * x), lo);
        _mm_storeu_si128((__m128i *)(d + 2 * x + 16), hi);
    }
    return x;
}
#endif

typedef struct enc_job {
    gip__yuv_enc e;
    gip_image *dst;
} enc_job;

#ifdef YUV_X86
/* 4:2:0 with AVX2, an item a pair of source rows: their Y rows and the chroma row of the even
 * one (the rest of each row by the per-byte functions). */
static void enc420_pairs(void *arg, int64_t i0, int64_t i1)
{
    const enc_job *j = arg;
    const gip__yuv_enc *e = &j->e;
    const int64_t w = e->width, h = e->height, ds = j->dst->stride;
    uint8_t *base = (uint8_t *)j->dst->data;
    for (int64_t i = i0; i < i1; i++) {
        uint8_t *du, *dv;
        int nv = 0, step = 1;
        if (e->layout == GIP_YUV_NV12 || e->layout == GIP_YUV_NV21) {
            uint8_t *row = base + (h + i) * ds;
            nv = e->layout == GIP_YUV_NV12 ? 1 : 2;
            du = row + (e->layout == GIP_YUV_NV21);
            dv = row + (e->layout == GIP_YUV_NV12);
            step = 2;
        } else {
            /* half rows of w / 2 bytes, two a frame row: U's h / 2, then V's (YV12: V first) */
            const int64_t ku = e->layout == GIP_YUV_I420 ? i : i + h / 2,
                          kv = e->layout == GIP_YUV_I420 ? i + h / 2 : i;
            du = base + (h + ku / 2) * ds + (ku & 1) * (w / 2);
            dv = base + (h + kv / 2) * ds + (kv & 1) * (w / 2);
        }
        /* the even row with the chroma, then the odd one */
        uint8_t *d = base + 2 * i * ds;
        const bool vbmi = gip__cc_vbmi_active();
        const int64_t x0 = vbmi ? enc_vbmi_row(e, e->data + 2 * i * e->stride, d,
                                               nv ? base + (h + i) * ds : du, dv, nv) /
                                      2
                                : enc_avx2_even(e, e->data + 2 * i * e->stride, d,
                                                nv ? base + (h + i) * ds : du, dv, nv);
        for (int64_t x = 2 * x0; x < w; x++)
            d[x] = (uint8_t)gip__yuv_enc_comp(e, x, 2 * i, 0);
        d += ds;
        int64_t x = vbmi ? enc_vbmi_row(e, e->data + (2 * i + 1) * e->stride, d, NULL, NULL, 0)
                         : enc_avx2_y(e, e->data + (2 * i + 1) * e->stride, d);
        for (; x < w; x++)
            d[x] = (uint8_t)gip__yuv_enc_comp(e, x, 2 * i + 1, 0);
        x = x0;
        for (; x < w / 2; x++) {
            du[x * step] = (uint8_t)gip__yuv_enc_comp(e, 2 * x, 2 * i, 1);
            dv[x * step] = (uint8_t)gip__yuv_enc_comp(e, 2 * x, 2 * i, 2);
        }
    }
}
#endif

static void enc_rows(void *arg, int64_t y0, int64_t y1)
{
    const enc_job *j = arg;
    const gip__yuv_enc *e = &j->e;
    if (e->layout >= GIP_YUV_YUY2) {
        /* 4:2:2: each pair of pixels once, its four bytes at their places */
        const int yo = e->layout == GIP_YUV_UYVY;
        const int uo = e->layout == GIP_YUV_UYVY ? 0 : e->layout == GIP_YUV_YUY2 ? 1 : 3;
        const int vo = e->layout == GIP_YUV_UYVY ? 2 : e->layout == GIP_YUV_YUY2 ? 3 : 1;
        for (int64_t y = y0; y < y1; y++) {
            uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
            int64_t x = 0;
#ifdef YUV_X86
            if (gip__cc_simd_active()) {
                x = gip__cc_vbmi_active() ? enc_vbmi_422(e, e->data + y * e->stride, d)
                                          : enc_avx2_422(e, e->data + y * e->stride, d);
                d += 2 * x;
            }
#endif
            for (; x < e->width; x += 2, d += 4) {
                d[yo] = gip__yuv422_enc_comp(e, x, y, 0);
                d[yo + 2] = gip__yuv422_enc_comp(e, x + 1, y, 0);
                d[uo] = gip__yuv422_enc_comp(e, x, y, 1);
                d[vo] = gip__yuv422_enc_comp(e, x, y, 2);
            }
        }
        return;
    }
    for (int64_t y = y0; y < y1; y++) {
        uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
        if (y < e->height) /* the Y plane */
            for (int64_t x = 0; x < e->width; x++)
                d[x] = (uint8_t)gip__yuv_enc_comp(e, x, y, 0);
        else
            for (int64_t x = 0; x < j->dst->width; x++)
                d[x] = gip__yuv_enc_byte(e, x, y);
    }
}

/* The encoders' coefficients by [standard][full range]: rows Y, U, V by columns R, G, B, 20-bit
 * for 4:2:0 and 14-bit Y, 13-bit U and V for 4:2:2. BT.601 limited: OpenCV's (0.257, 0.504,
 * 0.098; -0.148, -0.291, 0.439; 0.439, -0.368, -0.071, and its 4:2:2 constants); the others from
 * the standards' Kr and Kb: Y = Kr R + Kg G + Kb B, U = (B - Y) / 2 (1 - Kb), V = (R - Y) /
 * 2 (1 - Kr), scaled by 219/255 (Y) and 224/255 (U, V) for limited range. */
static const int32_t enc20[2][2][9] = {
    {{269484, 528482, 102760, -155188, -305135, 460324, 460324, -385875, -74448},
     {313524, 615514, 119538, -176932, -347356, 524288, 524288, -439026, -85262}},
    {{191455, 644067, 65019, -105533, -355018, 460551, 460551, -418321, -42230},
     {222927, 749942, 75707, -120138, -404150, 524288, 524288, -476214, -48074}},
};
static const int32_t enc14[2][2][9] = {
    {{4211, 8258, 1606, -1212, -2384, 3596, 3596, -3015, -582},
     {4899, 9617, 1868, -1382, -2714, 4096, 4096, -3430, -666}},
    {{2991, 10064, 1016, -824, -2774, 3598, 3598, -3268, -330},
     {3483, 11718, 1183, -939, -3157, 4096, 4096, -3720, -376}},
};

static gip_status rgb_to_yuv(gip_context *ctx, const gip_image *src, gip_image *dst,
                             gip_yuv_layout layout, int32_t bgr, const gip_yuv_params *params,
                             const char *op)
{
    bool on_device = false;
    gip_yuv_params ypv;
    gip_status st = check_yuv_call(ctx, src, dst, layout, params, &ypv, &on_device, op);
    if (st)
        return st;
    const gip_yuv_params *yp = &ypv;
    if (src->dtype != GIP_U8 || src->channels < 3 || dst->dtype != GIP_U8 || dst->channels != 1)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: src must be u8 with 3 or 4 channels and dst u8 with one, got "
                          "%d-channel %s and %d-channel %s",
                          op, (int)src->channels, gip_dtype_name(src->dtype), (int)dst->channels,
                          gip_dtype_name(dst->dtype));
    const int64_t w = src->width, h = src->height;
    const bool packed = layout >= GIP_YUV_YUY2;
    if (packed ? w % 2 || dst->width != 2 * w || dst->height != h
               : w % 2 || h % 2 || dst->width != w || dst->height * 2 != h * 3)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: a %lldx%lld image (%s) makes a %lldx%lld %s frame, got dst "
                          "%lldx%lld",
                          op, (long long)w, (long long)h, packed ? "even width" : "even sizes",
                          (long long)(packed ? 2 * w : w), (long long)(packed ? h : h * 3 / 2),
                          packed ? "4:2:2" : "4:2:0", (long long)dst->width,
                          (long long)dst->height);
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap", op);
    enc_job j = {.e = {.data = (const uint8_t *)src->data,
                       .stride = src->stride,
                       .width = w,
                       .height = h,
                       .scn = src->channels,
                       .bidx = bgr ? 0 : 2,
                       .layout = (int32_t)layout,
                       .yoff = yp->full_range ? 0 : 16},
                 .dst = dst};
    memcpy(j.e.k20, enc20[yp->standard][yp->full_range], sizeof j.e.k20);
    memcpy(j.e.k14, enc14[yp->standard][yp->full_range], sizeof j.e.k14);
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        return gip__rgb_to_yuv_cuda(ctx, &j.e, dst);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", op);
#endif
    }
#ifdef YUV_X86
    if (!packed && gip__cc_simd_active()) {
        gip__parallel_for(ctx, h / 2, w >= 4096 ? 1 : 4096 / w, enc420_pairs, &j);
        return GIP_OK;
    }
#endif
    gip__parallel_for(ctx, dst->height, dst->width >= 8192 ? 1 : 8192 / dst->width, enc_rows, &j);
    return GIP_OK;
}

gip_status gip_rgb_to_yuv(gip_context *ctx, const gip_image *src, gip_image *dst,
                          gip_yuv_layout layout, int32_t bgr)
{
    return rgb_to_yuv(ctx, src, dst, layout, bgr, NULL, "gip_rgb_to_yuv");
}

gip_status gip_rgb_to_yuv_ex(gip_context *ctx, const gip_image *src, gip_image *dst,
                             gip_yuv_layout layout, int32_t bgr, const gip_yuv_params *params)
{
    return rgb_to_yuv(ctx, src, dst, layout, bgr, params, "gip_rgb_to_yuv_ex");
}
