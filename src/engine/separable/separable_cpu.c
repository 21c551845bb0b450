/* SPDX-License-Identifier: MIT */
/* CPU backend of the separable-filter engine: row bands on the core's threads; in each band every
 * source row is extended by its border, filtered horizontally into a ring of kh rows, and each
 * output row is the vertical pass over the ring. AVX2 kernels with a scalar path always built. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "separable.h"
#include "border.h"
#include "engine/fused3/fused3.h"
#include "saturate.h"
#include "tuning.h"

#if defined(__x86_64__) || defined(__i386__)
#define GIP__SEP_X86 1
#include <immintrin.h>
#define GIP__AVX2 __attribute__((target("avx2")))
#endif

static gip__simd_switch simd_switch = GIP__SIMD_SWITCH_INIT;

bool gip__sep_simd_active(void)
{
    return gip__simd_switch_active(&simd_switch);
}

bool gip__sep_set_simd(bool enable)
{
    return gip__simd_switch_set(&simd_switch, enable);
}

/* ---- scalar kernels ------------------------------------------------------------------------ */

/* FIXED_U8 ring rows hold H - 32768 as int16 (H = the 16-bit horizontal sum, stored with its top
 * bit flipped): signed 16-bit values let the AVX2 vertical pass multiply pairs of rows in one
 * madd; the vertical pass adds sum_j k_j * 32768 back. */
static void hpass_fixed_scalar(const uint8_t *ext, int64_t n, int cn, const int32_t *k, int kw,
                               uint16_t *h)
{
    for (int64_t e = 0; e < n; e++) {
        int32_t acc = 0;
        for (int i = 0; i < kw; i++)
            acc += k[i] * ext[e + (int64_t)i * cn];
        h[e] = (uint16_t)acc ^ 0x8000u;
    }
}

static void vpass_fixed_scalar(const uint16_t *const *rows, int kh, const int32_t *k, int64_t n,
                               uint8_t *dst)
{
    int64_t ksum = 0;
    for (int j = 0; j < kh; j++)
        ksum += k[j];
    for (int64_t e = 0; e < n; e++) {
        int64_t acc = ksum * 32768;
        for (int j = 0; j < kh; j++)
            acc += (int64_t)k[j] * (int16_t)rows[j][e];
        dst[e] = gip__sat_u8_i32((int32_t)((acc + 32768) >> 16));
    }
}

/* ones: every tap is 1, and 1 * x == x, so the products are left out (box filters). */
static void hpass_float_scalar(const float *ext, int64_t n, int cn, const float *k, int kw,
                               bool ones, float *h)
{
    for (int64_t e = 0; e < n; e++) {
        float acc = ones ? ext[e] : k[0] * ext[e];
        for (int i = 1; i < kw; i++) {
            float x = ext[e + (int64_t)i * cn];
            float p = ones ? x : k[i] * x;
            acc = acc + p;
        }
        h[e] = acc;
    }
}

static void vpass_float_scalar(const float *const *rows, int kh, const float *k, bool ones,
                               float scale, int64_t n, void *dst, gip_dtype dt)
{
    for (int64_t e = 0; e < n; e++) {
        float acc = ones ? rows[0][e] : k[0] * rows[0][e];
        for (int j = 1; j < kh; j++) {
            float p = ones ? rows[j][e] : k[j] * rows[j][e];
            acc = acc + p;
        }
        float v = acc * scale;
        gip__elem_store_f32(dst, dt, e, v);
    }
}

static void hpass_box_scalar(const uint8_t *ext, int64_t n, int cn, int kw, uint16_t *h)
{
    for (int64_t e = 0; e < n; e++) {
        uint32_t acc = 0;
        for (int i = 0; i < kw; i++)
            acc += ext[e + (int64_t)i * cn];
        h[e] = (uint16_t)acc;
    }
}

static void vpass_box_scalar(const uint16_t *const *rows, int kh, float scale, int64_t n, void *dst,
                             gip_dtype dt)
{
    for (int64_t e = 0; e < n; e++) {
        uint32_t acc = 0;
        for (int j = 0; j < kh; j++)
            acc += rows[j][e];
        float v = (float)acc * scale;
        if (dt == GIP_U8)
            ((uint8_t *)dst)[e] = gip__sat_u8_f32(v);
        else
            ((float *)dst)[e] = v;
    }
}

/* box_int: exact 32-bit horizontal sums of u8 (ext8) or u16 (ext16) elements. */
static void hpass_boxi_scalar(const uint8_t *ext8, const uint16_t *ext16, int64_t n, int cn, int kw,
                              uint32_t *h)
{
    for (int64_t e = 0; e < n; e++) {
        uint32_t acc = 0;
        for (int i = 0; i < kw; i++)
            acc += ext8 ? ext8[e + (int64_t)i * cn] : ext16[e + (int64_t)i * cn];
        h[e] = acc;
    }
}

/* box_int vertical pass: the exact sum in 64 bits (u16 sums pass 2^32 beyond an area of 65537),
 * then the plan's rule (see separable.h): f64 for u16 outputs of areas above 32768. */
static void vpass_boxi_scalar(const uint32_t *const *rows, int kh, float scale, double scale64,
                              bool f64, int64_t n, void *dst, gip_dtype dt)
{
    for (int64_t e = 0; e < n; e++) {
        uint64_t acc = 0;
        for (int j = 0; j < kh; j++)
            acc += rows[j][e];
        if (f64) {
            double v = (double)acc * scale64;
            ((uint16_t *)dst)[e] = gip__sat_u16_i32(gip__round_f64(v < 65536.0 ? v : 65536.0));
            continue;
        }
        float v = (float)acc * scale;
        gip__elem_store_f32(dst, dt, e, v);
    }
}

/* ---- AVX2 kernels: the same arithmetic in the same order, 16 (u8) or 8 (float) at a time. ---- */
#ifdef GIP__SEP_X86
GIP__AVX2 static inline __m256i load16_u8(const uint8_t *p)
{
    return _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)p));
}

/* The horizontal taps as terms of maddubs: x[a] * ka + x[b] * kb with signed 8-bit ka, kb and
 * 255 (|ka| + |kb|) <= 32767, so that no pair saturates; the 16-bit sums then wrap exactly as the
 * scalar twin's (uint16_t) cast does. Symmetric kernels pair mirrored taps; a tap alone is split
 * over two copies of its pixel. */
typedef struct fixed_hk {
    int64_t a[GIP__SEP_MAX_K], b[GIP__SEP_MAX_K]; /* byte offsets of the two pixels' values */
    int16_t kk[GIP__SEP_MAX_K];                   /* ka in the low byte, kb in the high byte */
    int n;
    bool ok;
} fixed_hk;

static bool fixed_hk_add(fixed_hk *hk, int64_t a, int64_t b, int32_t ka, int32_t kb)
{
    if (ka < -128 || ka > 127 || kb < -128 || kb > 127 || 255 * (abs(ka) + abs(kb)) > 32767)
        return false;
    hk->a[hk->n] = a;
    hk->b[hk->n] = b;
    hk->kk[hk->n] = (int16_t)(uint16_t)((uint8_t)ka | (uint16_t)((uint8_t)kb << 8));
    hk->n++;
    return true;
}

static void fixed_hk_init(fixed_hk *hk, const int32_t *k, int kw, bool sym, int cn)
{
    hk->n = 0;
    hk->ok = true;
    int i = 0, half = kw / 2;
    if (sym) {
        for (; i < half && hk->ok; i++)
            hk->ok = fixed_hk_add(hk, (int64_t)i * cn, (int64_t)(kw - 1 - i) * cn, k[i], k[i]);
        if (kw & 1)
            hk->ok = hk->ok && fixed_hk_add(hk, (int64_t)half * cn, (int64_t)half * cn,
                                            k[half] - k[half] / 2, k[half] / 2);
        return;
    }
    for (; i + 1 < kw && hk->ok; i += 2)
        hk->ok = fixed_hk_add(hk, (int64_t)i * cn, (int64_t)(i + 1) * cn, k[i], k[i + 1]);
    if (i < kw)
        hk->ok =
            hk->ok && fixed_hk_add(hk, (int64_t)i * cn, (int64_t)i * cn, k[i] - k[i] / 2, k[i] / 2);
}

GIP__AVX2 static int64_t hpass_fixed_avx2(const uint8_t *ext, int64_t n, int cn, const int32_t *k,
                                          int kw, bool sym, const fixed_hk *hk, uint16_t *h)
{
    int64_t e = 0;
    if (hk->ok) {
        const __m256i flip = _mm256_set1_epi16((int16_t)0x8000);
        for (; e + 32 <= n; e += 32) {
            /* lo: elements 0-7 | 16-23 of the 32, hi: 8-15 | 24-31 */
            __m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();
            for (int t = 0; t < hk->n; t++) {
                __m256i x = _mm256_loadu_si256((const __m256i *)(ext + e + hk->a[t]));
                __m256i y = _mm256_loadu_si256((const __m256i *)(ext + e + hk->b[t]));
                __m256i kk = _mm256_set1_epi16(hk->kk[t]);
                lo = _mm256_add_epi16(lo, _mm256_maddubs_epi16(_mm256_unpacklo_epi8(x, y), kk));
                hi = _mm256_add_epi16(hi, _mm256_maddubs_epi16(_mm256_unpackhi_epi8(x, y), kk));
            }
            lo = _mm256_xor_si256(lo, flip);
            hi = _mm256_xor_si256(hi, flip);
            _mm256_storeu_si256((__m256i *)(h + e), _mm256_permute2x128_si256(lo, hi, 0x20));
            _mm256_storeu_si256((__m256i *)(h + e + 16), _mm256_permute2x128_si256(lo, hi, 0x31));
        }
    }
    int half = kw / 2;
    const __m256i flip = _mm256_set1_epi16((int16_t)0x8000);
    for (; e + 16 <= n; e += 16) {
        __m256i acc;
        if (sym) {
            acc = _mm256_mullo_epi16(load16_u8(ext + e + (int64_t)half * cn),
                                     _mm256_set1_epi16((int16_t)k[half]));
            for (int i = 0; i < half; i++) {
                __m256i s = _mm256_add_epi16(load16_u8(ext + e + (int64_t)i * cn),
                                             load16_u8(ext + e + (int64_t)(kw - 1 - i) * cn));
                acc =
                    _mm256_add_epi16(acc, _mm256_mullo_epi16(s, _mm256_set1_epi16((int16_t)k[i])));
            }
        } else {
            acc = _mm256_setzero_si256();
            for (int i = 0; i < kw; i++)
                acc = _mm256_add_epi16(acc, _mm256_mullo_epi16(load16_u8(ext + e + (int64_t)i * cn),
                                                               _mm256_set1_epi16((int16_t)k[i])));
        }
        _mm256_storeu_si256((__m256i *)(h + e), _mm256_xor_si256(acc, flip));
    }
    return e;
}

/* Coefficients of the AVX2 vertical pass: taps j and j + 1 as one int32 of two int16 halves. */
typedef struct fixed_vk {
    int32_t pair[(GIP__SEP_MAX_K + 1) / 2];
    int32_t off; /* sum_j k_j * 32768 + 32768: the bias back and the rounding constant */
    bool ok;     /* the taps fit the int16 / int32 arithmetic */
} fixed_vk;

static void fixed_vk_init(fixed_vk *vk, const int32_t *k, int kh)
{
    int64_t ksum = 0, kabs = 0;
    vk->ok = true;
    for (int j = 0; j < kh; j++) {
        ksum += k[j];
        kabs += k[j] < 0 ? -(int64_t)k[j] : k[j];
        vk->ok = vk->ok && k[j] >= -32768 && k[j] <= 32767;
    }
    /* |sum_j k_j (H_j - 32768)| <= 32768 sum_j |k_j| must stay in int32 with the offset. */
    vk->ok = vk->ok && kabs <= 32768 && ksum >= -32768 && ksum <= 32768;
    vk->off = vk->ok ? (int32_t)(ksum * 32768 + 32768) : 0;
    for (int j = 0; j < kh; j += 2) {
        uint32_t lo = (uint16_t)k[j], hi = j + 1 < kh ? (uint16_t)k[j + 1] : 0;
        vk->pair[j / 2] = (int32_t)(lo | hi << 16);
    }
}

/* nv (1 or 2) groups of 16 outputs: acc[2v], acc[2v + 1] take the low and high halves of each
 * 128-bit lane (unpacklo / unpackhi of two rows, multiplied by their pair of taps in one madd). */
GIP__AVX2 static inline void vsum_fixed(const uint16_t *const *rows, int kh, const fixed_vk *vk,
                                        int64_t e, __m256i *acc, int nv)
{
    for (int v = 0; v < 2 * nv; v++)
        acc[v] = _mm256_set1_epi32(vk->off);
    int j = 0;
    for (; j + 1 < kh; j += 2) {
        __m256i kk = _mm256_set1_epi32(vk->pair[j / 2]);
        for (int v = 0; v < nv; v++) {
            __m256i a = _mm256_loadu_si256((const __m256i *)(rows[j] + e + 16 * v));
            __m256i b = _mm256_loadu_si256((const __m256i *)(rows[j + 1] + e + 16 * v));
            acc[2 * v] =
                _mm256_add_epi32(acc[2 * v], _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), kk));
            acc[2 * v + 1] = _mm256_add_epi32(acc[2 * v + 1],
                                              _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), kk));
        }
    }
    if (j < kh) { /* an odd last row: its pair's second tap is 0 */
        __m256i kk = _mm256_set1_epi32(vk->pair[j / 2]), z = _mm256_setzero_si256();
        for (int v = 0; v < nv; v++) {
            __m256i a = _mm256_loadu_si256((const __m256i *)(rows[j] + e + 16 * v));
            acc[2 * v] =
                _mm256_add_epi32(acc[2 * v], _mm256_madd_epi16(_mm256_unpacklo_epi16(a, z), kk));
            acc[2 * v + 1] = _mm256_add_epi32(acc[2 * v + 1],
                                              _mm256_madd_epi16(_mm256_unpackhi_epi16(a, z), kk));
        }
    }
    for (int v = 0; v < 2 * nv; v++)
        acc[v] = _mm256_srai_epi32(acc[v], 16);
}

GIP__AVX2 static int64_t vpass_fixed_avx2(const uint16_t *const *rows, int kh, const fixed_vk *vk,
                                          int64_t n, uint8_t *dst)
{
    if (!vk->ok)
        return 0;
    int64_t e = 0;
    __m256i acc[4];
    for (; e + 32 <= n; e += 32) {
        vsum_fixed(rows, kh, vk, e, acc, 2);
        /* packs restore element order within each lane; packus interleaves the two groups'
         * lanes, which the permute undoes. */
        __m256i w0 = _mm256_packs_epi32(acc[0], acc[1]), w1 = _mm256_packs_epi32(acc[2], acc[3]);
        __m256i b8 = _mm256_permute4x64_epi64(_mm256_packus_epi16(w0, w1), 0xD8);
        _mm256_storeu_si256((__m256i *)(dst + e), b8);
    }
    for (; e + 16 <= n; e += 16) {
        vsum_fixed(rows, kh, vk, e, acc, 1);
        __m256i w = _mm256_packs_epi32(acc[0], acc[1]);
        __m256i b8 = _mm256_permute4x64_epi64(_mm256_packus_epi16(w, w), 0x08);
        _mm_storeu_si128((__m128i *)(dst + e), _mm256_castsi256_si128(b8));
    }
    return e;
}

GIP__AVX2 static int64_t hpass_box_avx2(const uint8_t *ext, int64_t n, int cn, int kw, uint16_t *h)
{
    int64_t e = 0;
    for (; e + 32 <= n; e += 32) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(ext + e));
        __m256i lo = _mm256_cvtepu8_epi16(_mm256_castsi256_si128(x));
        __m256i hi = _mm256_cvtepu8_epi16(_mm256_extracti128_si256(x, 1));
        for (int i = 1; i < kw; i++) {
            x = _mm256_loadu_si256((const __m256i *)(ext + e + (int64_t)i * cn));
            lo = _mm256_add_epi16(lo, _mm256_cvtepu8_epi16(_mm256_castsi256_si128(x)));
            hi = _mm256_add_epi16(hi, _mm256_cvtepu8_epi16(_mm256_extracti128_si256(x, 1)));
        }
        _mm256_storeu_si256((__m256i *)(h + e), lo);
        _mm256_storeu_si256((__m256i *)(h + e + 16), hi);
    }
    for (; e + 16 <= n; e += 16) {
        __m256i acc = load16_u8(ext + e);
        for (int i = 1; i < kw; i++)
            acc = _mm256_add_epi16(acc, load16_u8(ext + e + (int64_t)i * cn));
        _mm256_storeu_si256((__m256i *)(h + e), acc);
    }
    return e;
}

/* box_u8 to u8 without floats: sat_u8((float)acc * scale) equals
 * ((acc * m) >> 16 + r) >> t in saturating 16-bit arithmetic for every reachable sum acc, when
 * box_q_init() found such m, r, t by trying every sum against the float formula. */
typedef struct box_q {
    uint16_t m, r;
    int t;
    bool ok;
} box_q;

static uint16_t box_q_apply(const box_q *q, uint32_t acc)
{
    uint32_t hi = (acc * q->m) >> 16, v = hi + q->r;
    return (uint16_t)((v > 65535 ? 65535 : v) >> q->t);
}

static void box_q_init(box_q *q, float scale, int64_t maxacc)
{
    q->ok = false;
    if (!(scale > 0.0f) || !(scale < 0.5f) || maxacc > 65535)
        return;
    for (int t = 15; t >= 1 && !q->ok; t--) {
        double m0 = (double)scale * (double)(1 << 16) * (double)(1 << t);
        if (m0 > 65535.0)
            continue;
        for (int d = 0; d < 3 && !q->ok; d++) {
            double m = nearbyint(m0) + (d == 0 ? 0 : d == 1 ? 1 : -1);
            if (m < 1 || m > 65535)
                continue;
            q->m = (uint16_t)m;
            q->r = (uint16_t)(1 << (t - 1));
            q->t = t;
            q->ok = true;
            for (uint32_t acc = 0; acc <= (uint32_t)maxacc && q->ok; acc++)
                q->ok = box_q_apply(q, acc) == gip__sat_u8_f32((float)acc * scale);
        }
    }
}

GIP__AVX2 static int64_t vpass_box_avx2(const uint16_t *const *rows, int kh, float scale,
                                        const box_q *q, int64_t n, void *dst, gip_dtype dt,
                                        bool stream)
{
    int64_t e = 0;
    stream = stream && ((uintptr_t)dst & 31) == 0;
    if (dt == GIP_U8 && q->ok) {
        const __m256i m = _mm256_set1_epi16((int16_t)q->m), r = _mm256_set1_epi16((int16_t)q->r);
        const __m128i t = _mm_cvtsi32_si128(q->t);
        for (; e + 32 <= n; e += 32) {
            __m256i a0 = _mm256_loadu_si256((const __m256i *)(rows[0] + e));
            __m256i a1 = _mm256_loadu_si256((const __m256i *)(rows[0] + e + 16));
            for (int j = 1; j < kh; j++) {
                a0 = _mm256_add_epi16(a0, _mm256_loadu_si256((const __m256i *)(rows[j] + e)));
                a1 = _mm256_add_epi16(a1, _mm256_loadu_si256((const __m256i *)(rows[j] + e + 16)));
            }
            a0 = _mm256_srl_epi16(_mm256_adds_epu16(_mm256_mulhi_epu16(a0, m), r), t);
            a1 = _mm256_srl_epi16(_mm256_adds_epu16(_mm256_mulhi_epu16(a1, m), r), t);
            __m256i b8 = _mm256_permute4x64_epi64(_mm256_packus_epi16(a0, a1), 0xD8);
            /* Past the caches for large outputs: no read for ownership of the output lines
             * (the 3x3 box of large u8c3 images is 15-20% faster). */
            if (stream)
                _mm256_stream_si256((__m256i *)((uint8_t *)dst + e), b8);
            else
                _mm256_storeu_si256((__m256i *)((uint8_t *)dst + e), b8);
        }
    }
    const __m256 sc = _mm256_set1_ps(scale);
    const __m256 lo = _mm256_set1_ps(-1.0f), hi = _mm256_set1_ps(256.0f);
    for (; e + 16 <= n; e += 16) {
        __m256i acc = _mm256_loadu_si256((const __m256i *)(rows[0] + e));
        for (int j = 1; j < kh; j++)
            acc = _mm256_add_epi16(acc, _mm256_loadu_si256((const __m256i *)(rows[j] + e)));
        __m256 a = _mm256_mul_ps(
            _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(acc))), sc);
        __m256 b = _mm256_mul_ps(
            _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm256_extracti128_si256(acc, 1))), sc);
        if (dt == GIP_F32) {
            _mm256_storeu_ps((float *)dst + e, a);
            _mm256_storeu_ps((float *)dst + e + 8, b);
            continue;
        }
        a = _mm256_min_ps(_mm256_max_ps(a, lo), hi);
        b = _mm256_min_ps(_mm256_max_ps(b, lo), hi);
        __m256i w = _mm256_packs_epi32(_mm256_cvtps_epi32(a), _mm256_cvtps_epi32(b));
        w = _mm256_permute4x64_epi64(w, 0xD8);
        __m256i b8 = _mm256_packus_epi16(w, w);
        b8 = _mm256_permute4x64_epi64(b8, 0x08);
        _mm_storeu_si128((__m128i *)((uint8_t *)dst + e), _mm256_castsi256_si128(b8));
    }
    return e;
}

GIP__AVX2 static int64_t hpass_boxi_avx2(const uint8_t *ext8, const uint16_t *ext16, int64_t n,
                                         int cn, int kw, uint32_t *h)
{
    int64_t e = 0;
    for (; e + 16 <= n; e += 16) {
        __m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();
        for (int i = 0; i < kw; i++) {
            int64_t o = e + (int64_t)i * cn;
            if (ext8) {
                __m128i x = _mm_loadu_si128((const __m128i *)(ext8 + o));
                lo = _mm256_add_epi32(lo, _mm256_cvtepu8_epi32(x));
                hi = _mm256_add_epi32(hi, _mm256_cvtepu8_epi32(_mm_srli_si128(x, 8)));
            } else {
                __m128i x0 = _mm_loadu_si128((const __m128i *)(ext16 + o));
                __m128i x1 = _mm_loadu_si128((const __m128i *)(ext16 + o + 8));
                lo = _mm256_add_epi32(lo, _mm256_cvtepu16_epi32(x0));
                hi = _mm256_add_epi32(hi, _mm256_cvtepu16_epi32(x1));
            }
        }
        _mm256_storeu_si256((__m256i *)(h + e), lo);
        _mm256_storeu_si256((__m256i *)(h + e + 8), hi);
    }
    return e;
}

/* Float kernels work on nv (1, 2 or 4) vectors of 8 elements at once: independent sums hide the
 * add latency and share each broadcast tap; every element is still summed tap by tap in kernel
 * order, as in the scalar twins. */
GIP__AVX2 static inline void hsum_f(const float *x, int cn, const float *k, int kw, bool ones,
                                    __m256 *acc, int nv)
{
    for (int v = 0; v < nv; v++)
        acc[v] = ones ? _mm256_loadu_ps(x + 8 * v)
                      : _mm256_mul_ps(_mm256_set1_ps(k[0]), _mm256_loadu_ps(x + 8 * v));
    for (int i = 1; i < kw; i++) {
        const float *p = x + (int64_t)i * cn;
        __m256 kk = _mm256_set1_ps(k[i]);
        for (int v = 0; v < nv; v++)
            acc[v] = _mm256_add_ps(acc[v], ones ? _mm256_loadu_ps(p + 8 * v)
                                                : _mm256_mul_ps(kk, _mm256_loadu_ps(p + 8 * v)));
    }
}

GIP__AVX2 static int64_t hpass_float_avx2(const float *ext, int64_t n, int cn, const float *k,
                                          int kw, bool ones, float *h)
{
    int64_t e = 0;
    __m256 acc[4];
    for (; e + 32 <= n; e += 32) {
        hsum_f(ext + e, cn, k, kw, ones, acc, 4);
        for (int v = 0; v < 4; v++)
            _mm256_storeu_ps(h + e + 8 * v, acc[v]);
    }
    for (; e + 8 <= n; e += 8) {
        hsum_f(ext + e, cn, k, kw, ones, acc, 1);
        _mm256_storeu_ps(h + e, acc[0]);
    }
    return e;
}

/* sum_j k_j * rows[j][e ..] for nv vectors, times scale. */
GIP__AVX2 static inline void vsum_f(const float *const *rows, int kh, const float *k, bool ones,
                                    float scale, int64_t e, __m256 *acc, int nv)
{
    for (int v = 0; v < nv; v++)
        acc[v] = ones ? _mm256_loadu_ps(rows[0] + e + 8 * v)
                      : _mm256_mul_ps(_mm256_set1_ps(k[0]), _mm256_loadu_ps(rows[0] + e + 8 * v));
    for (int j = 1; j < kh; j++) {
        const float *p = rows[j] + e;
        __m256 kk = _mm256_set1_ps(k[j]);
        for (int v = 0; v < nv; v++)
            acc[v] = _mm256_add_ps(acc[v], ones ? _mm256_loadu_ps(p + 8 * v)
                                                : _mm256_mul_ps(kk, _mm256_loadu_ps(p + 8 * v)));
    }
    for (int v = 0; v < nv; v++)
        acc[v] = _mm256_mul_ps(acc[v], _mm256_set1_ps(scale));
}

/* Stores nv vectors (nv even for u8 and u16) converted as the scalar twin does: round half to
 * even and saturate. The clamp first keeps cvtps in range, so huge values saturate. */
GIP__AVX2 static inline void store_f(void *dst, int64_t e, gip_dtype dt, const __m256 *acc, int nv)
{
    if (dt == GIP_F32) {
        for (int v = 0; v < nv; v++)
            _mm256_storeu_ps((float *)dst + e + 8 * v, acc[v]);
        return;
    }
    const __m256 lo = _mm256_set1_ps(-1.0f);
    const __m256 hi = _mm256_set1_ps(dt == GIP_U8 ? 256.0f : 65536.0f);
    for (int v = 0; v < nv; v += 2) {
        __m256 a = _mm256_min_ps(_mm256_max_ps(acc[v], lo), hi);
        __m256 b = _mm256_min_ps(_mm256_max_ps(acc[v + 1], lo), hi);
        if (dt == GIP_U8) {
            __m256i w = _mm256_packs_epi32(_mm256_cvtps_epi32(a), _mm256_cvtps_epi32(b));
            w = _mm256_permute4x64_epi64(w, 0xD8);
            __m256i b8 = _mm256_packus_epi16(w, w);
            b8 = _mm256_permute4x64_epi64(b8, 0x08);
            _mm_storeu_si128((__m128i *)((uint8_t *)dst + e + 8 * v), _mm256_castsi256_si128(b8));
        } else {
            __m256i w = _mm256_packus_epi32(_mm256_cvtps_epi32(a), _mm256_cvtps_epi32(b));
            w = _mm256_permute4x64_epi64(w, 0xD8);
            _mm256_storeu_si256((__m256i *)((uint16_t *)dst + e + 8 * v), w);
        }
    }
}

GIP__AVX2 static int64_t vpass_float_avx2(const float *const *rows, int kh, const float *k,
                                          bool ones, float scale, int64_t n, void *dst,
                                          gip_dtype dt)
{
    int64_t e = 0;
    __m256 acc[4];
    for (; e + 32 <= n; e += 32) {
        vsum_f(rows, kh, k, ones, scale, e, acc, 4);
        store_f(dst, e, dt, acc, 4);
    }
    for (; e + 16 <= n; e += 16) {
        vsum_f(rows, kh, k, ones, scale, e, acc, 2);
        store_f(dst, e, dt, acc, 2);
    }
    if (dt == GIP_F32)
        for (; e + 8 <= n; e += 8) {
            vsum_f(rows, kh, k, ones, scale, e, acc, 1);
            store_f(dst, e, dt, acc, 1);
        }
    return e;
}

/* box_int vertical pass in 32-bit lanes: only for plans whose largest sum is below 2^31, so that
 * the signed conversion to float is the scalar twin's (correctly rounded) one. */
GIP__AVX2 static int64_t vpass_boxi_avx2(const uint32_t *const *rows, int kh, float scale,
                                         int64_t n, void *dst, gip_dtype dt)
{
    int64_t e = 0;
    const __m256 sc = _mm256_set1_ps(scale);
    __m256 acc[2];
    for (; e + 16 <= n; e += 16) {
        __m256i a0 = _mm256_loadu_si256((const __m256i *)(rows[0] + e));
        __m256i a1 = _mm256_loadu_si256((const __m256i *)(rows[0] + e + 8));
        for (int j = 1; j < kh; j++) {
            a0 = _mm256_add_epi32(a0, _mm256_loadu_si256((const __m256i *)(rows[j] + e)));
            a1 = _mm256_add_epi32(a1, _mm256_loadu_si256((const __m256i *)(rows[j] + e + 8)));
        }
        acc[0] = _mm256_mul_ps(_mm256_cvtepi32_ps(a0), sc);
        acc[1] = _mm256_mul_ps(_mm256_cvtepi32_ps(a1), sc);
        store_f(dst, e, dt, acc, 2);
    }
    if (dt == GIP_F32)
        for (; e + 8 <= n; e += 8) {
            __m256i a0 = _mm256_loadu_si256((const __m256i *)(rows[0] + e));
            for (int j = 1; j < kh; j++)
                a0 = _mm256_add_epi32(a0, _mm256_loadu_si256((const __m256i *)(rows[j] + e)));
            acc[0] = _mm256_mul_ps(_mm256_cvtepi32_ps(a0), sc);
            store_f(dst, e, dt, acc, 1);
        }
    return e;
}
#endif

/* ---- bands ---------------------------------------------------------------------------------- */

typedef struct sep_job {
    const gip__sep_plan *plan;
    const gip_image *src;
    gip_image *dst;
    bool simd;
    bool ones;      /* FLOAT with all taps 1 (box): the products are left out */
    bool boxi_simd; /* box_int: the AVX2 vertical pass applies (sums below 2^31, no f64) */
    bool boxi_f64;  /* box_int: u16 output of an area above 32768, converted in double */
    bool stream;    /* box_u8 with SIMD: dst spans GIP__STREAM_BYTES or more, not the source */
    int failed;
#ifdef GIP__SEP_X86
    fixed_vk vk; /* FIXED_U8 with SIMD: the vertical taps in pairs */
    fixed_hk hk; /* and the horizontal ones as maddubs terms */
    box_q bq;    /* box_u8 to u8 with SIMD: the integer form of the scaling */
#endif           /* set when a band could not allocate its buffers */
} sep_job;

/* ext holds the source's own elements (FIXED_U8, box_u8, box_int) rather than floats. */
static bool raw_ext(const gip__sep_plan *pl)
{
    return pl->mode == GIP__SEP_FIXED_U8 || pl->box_u8 || pl->box_int;
}

/* Bytes of one ext element and of one ring (horizontal pass) element. */
static size_t ext_elem_size(const sep_job *job)
{
    return raw_ext(job->plan) ? gip_dtype_size(job->src->dtype) : sizeof(float);
}

static size_t ring_elem_size(const gip__sep_plan *pl)
{
    return pl->mode == GIP__SEP_FIXED_U8 || pl->box_u8 ? sizeof(uint16_t) : sizeof(uint32_t);
}

/* Fills ext pixels [p0, p1) from source row sy (-1: a row of the border value) extended by the
 * horizontal border: ext pixel p is source column p - ax. raw_ext() plans keep the source's
 * elements, the others convert to float. The image's own columns are copied (or converted) as one
 * run; only border pixels go through gip__border_index. */
static void fill_ext(const sep_job *job, int64_t sy, void *ext, int64_t p0, int64_t p1)
{
    const gip__sep_plan *pl = job->plan;
    const gip_image *s = job->src;
    int cn = s->channels;
    int64_t w = s->width;
    bool raw = raw_ext(pl);
    int64_t esz = (int64_t)ext_elem_size(job);
    const char *row = sy >= 0 ? (const char *)s->data + sy * s->stride : NULL;
    /* interior pixels [in0, in1) of the range */
    int64_t in0 = row && pl->ax > p0 ? pl->ax : p0, in1 = row && pl->ax + w < p1 ? pl->ax + w : p1;
    if (!row || in1 < in0)
        in0 = in1 = p1;
    if (in1 > in0) {
        int64_t n = (in1 - in0) * cn;
        const char *from = row + (in0 - pl->ax) * cn * (int64_t)gip_dtype_size(s->dtype);
        void *to = (char *)ext + in0 * cn * esz;
        if (raw || s->dtype == GIP_F32) {
            memcpy(to, from, (size_t)n * gip_dtype_size(s->dtype));
        } else if (s->dtype == GIP_U8) {
            for (int64_t i = 0; i < n; i++)
                ((float *)to)[i] = ((const uint8_t *)from)[i];
        } else {
            for (int64_t i = 0; i < n; i++)
                ((float *)to)[i] = ((const uint16_t *)from)[i];
        }
    }
    for (int64_t p = p0; p < p1; p++) {
        if (p == in0)
            p = in1;
        if (p >= p1)
            break;
        int64_t sx = row ? gip__border_index(p - pl->ax, w, pl->border) : -1;
        for (int c = 0; c < cn; c++) {
            float v = sx >= 0 ? gip__elem_f32(row, s->dtype, sx * cn + c) : pl->border_value[c];
            if (raw && esz == 1)
                ((uint8_t *)ext)[p * cn + c] = (uint8_t)v;
            else if (raw)
                ((uint16_t *)ext)[p * cn + c] = (uint16_t)v;
            else
                ((float *)ext)[p * cn + c] = v;
        }
    }
}

/* Horizontal pass of n output elements from in (ext, or the source row in place). */
static void hpass(const sep_job *job, const void *ext, int64_t n, void *h)
{
    const gip__sep_plan *pl = job->plan;
    int cn = job->src->channels;
    int64_t e = 0;
    if (pl->box_u8) {
#ifdef GIP__SEP_X86
        if (job->simd)
            e = hpass_box_avx2(ext, n, cn, pl->kw, h);
#endif
        hpass_box_scalar((const uint8_t *)ext + e, n - e, cn, pl->kw, (uint16_t *)h + e);
    } else if (pl->box_int) {
        bool u8 = job->src->dtype == GIP_U8;
        const uint8_t *e8 = u8 ? ext : NULL;
        const uint16_t *e16 = u8 ? NULL : ext;
#ifdef GIP__SEP_X86
        if (job->simd)
            e = hpass_boxi_avx2(e8, e16, n, cn, pl->kw, h);
#endif
        hpass_boxi_scalar(u8 ? e8 + e : NULL, u8 ? NULL : e16 + e, n - e, cn, pl->kw,
                          (uint32_t *)h + e);
    } else if (pl->mode == GIP__SEP_FIXED_U8) {
#ifdef GIP__SEP_X86
        if (job->simd)
            e = hpass_fixed_avx2(ext, n, cn, pl->kxi, pl->kw, pl->symmetric, &job->hk, h);
#endif
        hpass_fixed_scalar((const uint8_t *)ext + e, n - e, cn, pl->kxi, pl->kw, (uint16_t *)h + e);
    } else {
#ifdef GIP__SEP_X86
        if (job->simd)
            e = hpass_float_avx2(ext, n, cn, pl->kxf, pl->kw, job->ones, h);
#endif
        hpass_float_scalar((const float *)ext + e, n - e, cn, pl->kxf, pl->kw, job->ones,
                           (float *)h + e);
    }
}

/* Horizontal pass of source row sy (-1: border value) into h. Where ext holds the source's own
 * element type, the inner outputs read the row in place and only the outputs near the edges go
 * through ext; the split changes no result. */
static void hrow(const sep_job *job, int64_t sy, void *ext, void *h)
{
    const gip__sep_plan *pl = job->plan;
    const gip_image *s = job->src;
    int cn = s->channels;
    int64_t w = s->width, np = w + pl->kw - 1;
    int64_t esz = (int64_t)ext_elem_size(job), hsz = (int64_t)ring_elem_size(pl);
    /* outputs [xl, xr) read source columns only */
    int64_t xl = pl->ax < w ? pl->ax : w, xr = w - (pl->kw - 1 - pl->ax);
    if (sy < 0 || !(raw_ext(pl) || s->dtype == GIP_F32) || xr - xl < 64) {
        fill_ext(job, sy, ext, 0, np);
        hpass(job, ext, w * cn, h);
        return;
    }
    const char *row = (const char *)s->data + sy * s->stride;
    hpass(job, row + (xl - pl->ax) * cn * esz, (xr - xl) * cn, (char *)h + xl * cn * hsz);
    fill_ext(job, sy, ext, 0, xl + pl->kw - 1);
    hpass(job, ext, xl * cn, h);
    fill_ext(job, sy, ext, xr, np);
    hpass(job, (char *)ext + xr * cn * esz, (w - xr) * cn, (char *)h + xr * cn * hsz);
}

static void vpass(const sep_job *job, const void *const *rows, void *out)
{
    const gip__sep_plan *pl = job->plan;
    int64_t n = job->src->width * job->src->channels, e = 0;
    if (pl->box_u8) {
        const uint16_t *const *r = (const uint16_t *const *)rows;
        gip_dtype dt = job->dst->dtype;
#ifdef GIP__SEP_X86
        if (job->simd)
            e = vpass_box_avx2(r, pl->kh, pl->scale, &job->bq, n, out, dt, job->stream);
#endif
        const uint16_t *rr[GIP__SEP_MAX_K];
        for (int j = 0; j < pl->kh; j++)
            rr[j] = r[j] + e;
        vpass_box_scalar(rr, pl->kh, pl->scale, n - e,
                         (char *)out + e * (int64_t)gip_dtype_size(dt), dt);
    } else if (pl->box_int) {
        const uint32_t *const *r = (const uint32_t *const *)rows;
        gip_dtype dt = job->dst->dtype;
#ifdef GIP__SEP_X86
        if (job->simd && job->boxi_simd)
            e = vpass_boxi_avx2(r, pl->kh, pl->scale, n, out, dt);
#endif
        const uint32_t *rr[GIP__SEP_MAX_K];
        for (int j = 0; j < pl->kh; j++)
            rr[j] = r[j] + e;
        vpass_boxi_scalar(rr, pl->kh, pl->scale, pl->scale64, job->boxi_f64, n - e,
                          (char *)out + e * (int64_t)gip_dtype_size(dt), dt);
    } else if (pl->mode == GIP__SEP_FIXED_U8) {
        const uint16_t *const *r = (const uint16_t *const *)rows;
#ifdef GIP__SEP_X86
        if (job->simd)
            e = vpass_fixed_avx2(r, pl->kh, &job->vk, n, out);
#endif
        const uint16_t *rr[GIP__SEP_MAX_K];
        for (int j = 0; j < pl->kh; j++)
            rr[j] = r[j] + e;
        vpass_fixed_scalar(rr, pl->kh, pl->kyi, n - e, (uint8_t *)out + e);
    } else {
        const float *const *r = (const float *const *)rows;
        gip_dtype dt = job->dst->dtype;
#ifdef GIP__SEP_X86
        if (job->simd)
            e = vpass_float_avx2(r, pl->kh, pl->kyf, job->ones, pl->scale, n, out, dt);
#endif
        const float *rr[GIP__SEP_MAX_K];
        for (int j = 0; j < pl->kh; j++)
            rr[j] = r[j] + e;
        vpass_float_scalar(rr, pl->kh, pl->kyf, job->ones, pl->scale, n - e,
                           (char *)out + e * (int64_t)gip_dtype_size(dt), dt);
    }
}

static void run_band(void *arg, int64_t y0, int64_t y1)
{
    sep_job *job = arg;
    const gip__sep_plan *pl = job->plan;
    const gip_image *s = job->src;
    int cn = s->channels, kh = pl->kh;
    int64_t n = s->width * cn;
    size_t esz = ext_elem_size(job), hsz = ring_elem_size(pl);
    /* Rounded to 64 bytes so that the ring rows after it stay aligned for their element type. */
    size_t ext_bytes = ((size_t)((s->width + pl->kw - 1) * cn) * esz + 64 + 63) & ~(size_t)63;
    size_t row_bytes = ((size_t)n * hsz + 63) & ~(size_t)63;
    char *buf = malloc(ext_bytes + row_bytes * (size_t)kh);
    const void **rows = malloc(sizeof(void *) * (size_t)kh);
    if (!buf || !rows) {
        __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
        free(buf);
        free(rows);
        return;
    }
    char *ext = buf, *ring = buf + ext_bytes;
    /* Virtual source row r lives in ring slot (r - r0) % kh. */
    int64_t r0 = y0 - pl->ay;
    for (int64_t r = r0; r < r0 + kh - 1; r++) {
        hrow(job, gip__border_index(r, s->height, pl->border), ext,
             ring + (size_t)((r - r0) % kh) * row_bytes);
    }
    for (int64_t y = y0; y < y1; y++) {
        int64_t r = y - pl->ay + kh - 1;
        hrow(job, gip__border_index(r, s->height, pl->border), ext,
             ring + (size_t)((r - r0) % kh) * row_bytes);
        for (int j = 0; j < kh; j++)
            rows[j] = ring + (size_t)((y - pl->ay + j - r0) % kh) * row_bytes;
        vpass(job, rows, (char *)job->dst->data + y * job->dst->stride);
    }
#ifdef GIP__SEP_X86
    if (job->stream)
        _mm_sfence(); /* the streamed rows are visible before the band counts as done */
#endif
    free(rows);
    free(buf);
}

#ifdef GIP__SEP_X86
/* The integer forms of two 3x3 u8 -> u8 plans for the fused 3x3 route, found once: box_q of the
 * normalised box (scale 1/9, sums up to 2295), and for OpenCV's fixed-point [64 128 64] Gaussian,
 * (4096 S + 2^15) >> 16 = (S + 8) >> 4 of the [1 2 1] x [1 2 1] sum S, as
 * (((S 32768) >> 16) + 4) >> 3, checked for every S up to 4080. */
static box_q box9_q;
static bool gauss3_ok;
static pthread_once_t fused3_once = PTHREAD_ONCE_INIT;

static void fused3_init(void)
{
    box_q_init(&box9_q, (float)(1.0 / 9.0), 255 * 9);
    gauss3_ok = true;
    for (uint32_t s = 0; s <= 16 * 255 && gauss3_ok; s++)
        gauss3_ok = ((((s * 32768) >> 16) + 4) >> 3) == (s + 8) >> 4;
}

/* The centred 3x3 box of u8 (normalised to u8; unnormalised to u8, saturated, or to f32) and the
 * [64 128 64] 3x3 Gaussian of u8 to u8 through the fused 3x3 route (AVX2, SIMD on), with the
 * band loop's integer arithmetic, so the same results, in about a third less time on one thread.
 * Returns whether it ran (then *st is its status). */
static bool fused3_plan(gip_context *ctx, const gip__sep_plan *plan, const gip_image *src,
                        gip_image *dst, gip_status *st)
{
    if (plan->kw != 3 || plan->kh != 3 || plan->ax != 1 || plan->ay != 1 ||
        !gip__sep_simd_active() || !gip__fused3_width())
        return false;
    static const int32_t g3[3] = {64, 128, 64};
    const bool u8 = dst->dtype == GIP_U8;
    const bool box = u8 && plan->box_u8 && plan->scale == (float)(1.0 / 9.0);
    const bool sum = plan->box_u8 && plan->scale == 1.0f && (u8 || dst->dtype == GIP_F32);
    const bool gauss = u8 && plan->mode == GIP__SEP_FIXED_U8 && !memcmp(plan->kxi, g3, sizeof g3) &&
                       !memcmp(plan->kyi, g3, sizeof g3);
    if (!box && !sum && !gauss)
        return false;
    pthread_once(&fused3_once, fused3_init);
    gip__fused3 f = {.post = GIP__F3_QUANT, .border = plan->border};
    memcpy(f.border_value, plan->border_value, sizeof f.border_value);
    if (sum) { /* SUM's u8 is min(|s|, 255), the saturated sum; its f32 the sum */
        f.hk = f.vk = GIP__F3_ONES;
        f.post = GIP__F3_SUM;
    } else if (box) {
        if (!box9_q.ok)
            return false;
        f.hk = f.vk = GIP__F3_ONES;
        f.qm = box9_q.m, f.qr = box9_q.r, f.qt = box9_q.t;
    } else {
        if (!gauss3_ok)
            return false;
        f.hk = f.vk = GIP__F3_SMOOTH;
        f.qm = 32768, f.qr = 4, f.qt = 3;
    }
    *st = gip__fused3_run_cpu(ctx, &f, src, dst, gauss ? "gip_gaussian_blur" : "gip_box_filter");
    return true;
}
#endif

gip_status gip__sep_run_cpu(gip_context *ctx, const gip__sep_plan *plan, const gip_image *src,
                            gip_image *dst)
{
#ifdef GIP__SEP_X86
    gip_status fst;
    if (fused3_plan(ctx, plan, src, dst, &fst))
        return fst;
#endif
    sep_job job = {.plan = plan, .src = src, .dst = dst, .simd = gip__sep_simd_active()};
    job.ones = plan->mode == GIP__SEP_FLOAT;
    for (int i = 0; i < plan->kw && job.ones; i++)
        job.ones = plan->kxf[i] == 1.0f;
    for (int j = 0; j < plan->kh && job.ones; j++)
        job.ones = plan->kyf[j] == 1.0f;
    if (plan->box_int) {
        int64_t area = (int64_t)plan->kw * plan->kh;
        int64_t top = src->dtype == GIP_U8 ? 255 : 65535;
        job.boxi_f64 = dst->dtype == GIP_U16 && area > 32768;
        job.boxi_simd = !job.boxi_f64 && area * top < ((int64_t)1 << 31);
    }
#ifdef GIP__SEP_X86
    /* Trying every sum costs 255 kw kh steps: worth it when the image has several times more. */
    int64_t maxacc = 255 * (int64_t)plan->kw * plan->kh;
    if (plan->box_u8 && job.simd && dst->dtype == GIP_U8 &&
        src->width * src->height * src->channels >= 16 * maxacc)
        box_q_init(&job.bq, plan->scale, maxacc);
    if (plan->mode == GIP__SEP_FIXED_U8 && job.simd) {
        fixed_vk_init(&job.vk, plan->kyi, plan->kh);
        fixed_hk_init(&job.hk, plan->kxi, plan->kw, plan->symmetric, src->channels);
    }
    job.stream = plan->box_u8 && job.simd && !gip__images_same(src, dst) &&
                 gip__image_span(dst) >= GIP__STREAM_BYTES;
#endif
    int64_t grain = plan->kh > 8 ? plan->kh : 8;
    gip__parallel_for(ctx, src->height, grain, run_band, &job);
    if (job.failed)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "filter: out of memory for row buffers");
    return GIP_OK;
}
