/* SPDX-License-Identifier: MIT */
/* The separable CPU route of gip_sobel for u8 sources: per output row, the vertical factor over
 * the source rows and then the horizontal factor, both in 16-bit integers with AVX2 on interleaved
 * channels (a channel only widens the stride). Taken only where the whole sum fits in int16, so
 * the results equal the 2-D engine's exact int32 sums bit for bit. With AVX-512BW, ksize 3 (and
 * gip_sobel_magnitude's ksize 3) takes the fused route below instead: two output rows at a time
 * from registers, no row buffer. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "border.h"
#include "sobel.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define SOBEL_X86 1
#define SOBEL_AVX2 __attribute__((target("avx2")))
#define SOBEL_AVX512 __attribute__((target("avx512f,avx512bw")))
#endif

#ifdef SOBEL_X86

typedef struct sobel_job {
    const gip__sobel_sep *sp;
    const gip_image *src;
    gip_image *dst;
    const int32_t *xmap; /* padded pixel -> source pixel, -1 for the constant border */
    int stream;          /* dst is much larger than the caches: rows bypass them */
    int avx512;          /* the 512-bit loops run first (see sobel_avx512_enabled) */
    int hk, vk;          /* with avx512: the 3x3 factors' kinds (h_kind), both non-zero for the
                          * fused route (run_band_fused), else 0 */
    int mag;             /* gip_sobel_magnitude (the fused route only) */
    int affine;          /* mag: scale or delta applied */
    int failed;          /* set (atomically) when a band could not get its buffers */
} sobel_job;

/* The 512-bit loops: where the CPU has AVX-512BW, unless GIP_NOAVX512 is set to a non-zero value
 * (read at each call, so that the tests run the AVX2 loops too). OpenCV dispatches AVX-512 on such
 * CPUs; with AVX2 alone its one-channel Sobel was 2.6x gip's per core (2-core Zen 4 VM,
 * 2026-12-04). */
static int sobel_avx512_enabled(void)
{
    const char *e = getenv("GIP_NOAVX512");
    if (e && e[0] && strcmp(e, "0") != 0)
        return 0;
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
}

/* The factors with their own loops: 1 for [-1 0 1], 2 for [1 2 1], else 0. */
static inline int k_kind(const int32_t *k, int32_t n)
{
    if (n != 3)
        return 0;
    return k[0] == -1 && k[1] == 0 && k[2] == 1 ? 1 : k[0] == 1 && k[1] == 2 && k[2] == 1 ? 2 : 0;
}

static inline int h_kind(const gip__sobel_sep *sp)
{
    return k_kind(sp->kx, sp->nx);
}

/* Sum of k[i] * x, with x the taps' vectors; 0 and +-1 taps cost no multiply. */
SOBEL_AVX2 static inline __m256i tap_add(__m256i acc, __m256i x, int32_t k)
{
    if (k == 1)
        return _mm256_add_epi16(acc, x);
    if (k == -1)
        return _mm256_sub_epi16(acc, x);
    if (k == 2)
        return _mm256_add_epi16(acc, _mm256_add_epi16(x, x));
    if (k == -2)
        return _mm256_sub_epi16(acc, _mm256_add_epi16(x, x));
    return _mm256_add_epi16(acc, _mm256_mullo_epi16(x, _mm256_set1_epi16((int16_t)k)));
}

/* v[e] = sum_j ky[j] * rows[j][e] for e in [0, n), wrapping in int16. */
SOBEL_AVX2 static void vpass(const uint8_t *const *rows, const int32_t *ky, int32_t ny, int64_t n,
                             int16_t *v)
{
    int64_t e = 0;
    if (ny == 3 && ky[0] == 1 && ky[1] == 2 && ky[2] == 1) {
        const uint8_t *const r0 = rows[0], *const r1 = rows[1], *const r2 = rows[2]; /* vpass512 */
        for (; e + 16 <= n; e += 16) {
            __m256i a = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r0 + e)));
            __m256i b = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r1 + e)));
            __m256i c = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r2 + e)));
            __m256i s = _mm256_add_epi16(_mm256_add_epi16(a, c), _mm256_add_epi16(b, b));
            _mm256_storeu_si256((__m256i *)(v + e), s);
        }
    } else {
        for (; e + 16 <= n; e += 16) {
            __m256i s = _mm256_setzero_si256();
            for (int32_t j = 0; j < ny; j++) {
                if (ky[j] == 0)
                    continue;
                __m256i x = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(rows[j] + e)));
                s = tap_add(s, x, ky[j]);
            }
            _mm256_storeu_si256((__m256i *)(v + e), s);
        }
    }
    for (; e < n; e++) {
        int32_t s = 0;
        for (int32_t j = 0; j < ny; j++)
            s += ky[j] * rows[j][e];
        v[e] = (int16_t)(uint16_t)s;
    }
}

/* out = sum_i kx[i] * v[e + i * C] for 16 elements at e. */
SOBEL_AVX2 static inline __m256i hsum16(const int16_t *v, int64_t e, int32_t C, const int32_t *kx,
                                        int32_t nx, int kind)
{
    if (kind == 1) /* [-1 0 1] */
        return _mm256_sub_epi16(_mm256_loadu_si256((const __m256i *)(v + e + 2 * C)),
                                _mm256_loadu_si256((const __m256i *)(v + e)));
    if (kind == 2) { /* [1 2 1] */
        __m256i a = _mm256_loadu_si256((const __m256i *)(v + e));
        __m256i b = _mm256_loadu_si256((const __m256i *)(v + e + C));
        __m256i c = _mm256_loadu_si256((const __m256i *)(v + e + 2 * C));
        return _mm256_add_epi16(_mm256_add_epi16(a, c), _mm256_add_epi16(b, b));
    }
    __m256i s = _mm256_setzero_si256();
    for (int32_t i = 0; i < nx; i++)
        if (kx[i] != 0)
            s = tap_add(s, _mm256_loadu_si256((const __m256i *)(v + e + (int64_t)i * C)), kx[i]);
    return s;
}

static inline int32_t hsum1(const int16_t *v, int64_t e, int32_t C, const int32_t *kx, int32_t nx)
{
    int32_t s = 0;
    for (int32_t i = 0; i < nx; i++)
        s += kx[i] * v[e + (int64_t)i * C];
    return (int16_t)(uint16_t)s;
}

/* Stores 32 bytes at p, past the caches when stream (p is then 32-byte aligned). */
SOBEL_AVX2 static inline void put(void *p, __m256i x, int stream)
{
    if (stream)
        _mm256_stream_si256((__m256i *)p, x);
    else
        _mm256_storeu_si256((__m256i *)p, x);
}

/* Horizontal pass of the padded v row into dst row d: s16 as is, f32 converted, u8 as the
 * saturated absolute value. stream: write with streaming stores where d is aligned. */
SOBEL_AVX2 static void hpass_store(const gip__sobel_sep *sp, const int16_t *v, int64_t n, int32_t C,
                                   gip_dtype dt, void *d, int stream)
{
    stream = stream && ((uintptr_t)d & 31) == 0;
    const int32_t *kx = sp->kx, nx = sp->nx;
    const int kind = h_kind(sp);
    int64_t e = 0;
    if (dt == GIP_S16) {
        int16_t *o = d;
        for (; e + 16 <= n; e += 16)
            put(o + e, hsum16(v, e, C, kx, nx, kind), stream);
        for (; e < n; e++)
            o[e] = (int16_t)hsum1(v, e, C, kx, nx);
    } else if (dt == GIP_F32) {
        float *o = d;
        for (; e + 16 <= n; e += 16) {
            __m256i s = hsum16(v, e, C, kx, nx, kind);
            __m256 lo = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm256_castsi256_si128(s)));
            __m256 hi = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm256_extracti128_si256(s, 1)));
            put(o + e, _mm256_castps_si256(lo), stream);
            put(o + e + 8, _mm256_castps_si256(hi), stream);
        }
        for (; e < n; e++)
            o[e] = (float)hsum1(v, e, C, kx, nx);
    } else {
        uint8_t *o = d;
        for (; e + 32 <= n; e += 32) {
            __m256i a = _mm256_abs_epi16(hsum16(v, e, C, kx, nx, kind));
            __m256i b = _mm256_abs_epi16(hsum16(v, e + 16, C, kx, nx, kind));
            __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xD8);
            put(o + e, p, stream);
        }
        for (; e < n; e++) {
            int32_t s = hsum1(v, e, C, kx, nx);
            s = s < 0 ? -s : s;
            o[e] = (uint8_t)(s > 255 ? 255 : s);
        }
    }
}

/* The [1 2 1] vertical factor 32 elements at a time; returns the elements done (the rest are
 * vpass's). */
SOBEL_AVX512 static int64_t vpass512(const uint8_t *const *rows, const int32_t *ky, int32_t ny,
                                     int64_t n, int16_t *v)
{
    int64_t e = 0;
    if (!(ny == 3 && ky[0] == 1 && ky[1] == 2 && ky[2] == 1))
        return 0;
    /* The row pointers in locals: the stores to v may alias rows[] as far as the compiler
     * knows, which made it load them again every iteration. */
    const uint8_t *const r0 = rows[0], *const r1 = rows[1], *const r2 = rows[2];
    for (; e + 32 <= n; e += 32) {
        __m512i a = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(r0 + e)));
        __m512i b = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(r1 + e)));
        __m512i c = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(r2 + e)));
        _mm512_storeu_si512(v + e,
                            _mm512_add_epi16(_mm512_add_epi16(a, c), _mm512_add_epi16(b, b)));
    }
    return e;
}

/* [-1 0 1] (kind 1) or [1 2 1] (kind 2) of three vectors, in wrapping 16-bit arithmetic. */
SOBEL_AVX512 static inline __m512i comb32(__m512i a, __m512i b, __m512i c, int kind)
{
    if (kind == 1)
        return _mm512_sub_epi16(c, a);
    return _mm512_add_epi16(_mm512_add_epi16(a, c), _mm512_add_epi16(b, b));
}

/* hsum16's [-1 0 1] (kind 1) and [1 2 1] (kind 2) on 32 elements. */
SOBEL_AVX512 static inline __m512i hsum32(const int16_t *v, int64_t e, int32_t C, int kind)
{
    __m512i a = _mm512_loadu_si512(v + e), c = _mm512_loadu_si512(v + e + 2 * C);
    __m512i b = kind == 1 ? a : _mm512_loadu_si512(v + e + C);
    return comb32(a, b, c, kind);
}

/* 32 floats at o (a then b), or 32 bytes, past the caches when stream (o then 64- or 32-byte
 * aligned). */
SOBEL_AVX512 static inline void store_f32x32(float *o, __m512 a, __m512 b, int stream)
{
    if (stream) {
        _mm512_stream_ps(o, a);
        _mm512_stream_ps(o + 16, b);
    } else {
        _mm512_storeu_ps(o, a);
        _mm512_storeu_ps(o + 16, b);
    }
}

SOBEL_AVX512 static inline void store_u8x32(uint8_t *o, __m256i b, int stream)
{
    if (stream)
        _mm256_stream_si256((__m256i *)o, b);
    else
        _mm256_storeu_si256((__m256i *)o, b);
}

/* Stores 32 sums at element e of row d as dt: s16 as is, f32 converted, u8 as the saturated
 * absolute value (the sums fit in int16, so unsigned saturation of |s| is min(|s|, 255)). stream:
 * d + e is aligned for the streaming stores (64 bytes; 32 for u8). */
SOBEL_AVX512 static inline void put32(void *d, int64_t e, __m512i s, gip_dtype dt, int stream)
{
    if (dt == GIP_S16) {
        int16_t *o = (int16_t *)d + e;
        if (stream)
            _mm512_stream_si512((__m512i *)o, s);
        else
            _mm512_storeu_si512(o, s);
    } else if (dt == GIP_F32) {
        store_f32x32(
            (float *)d + e, _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(_mm512_castsi512_si256(s))),
            _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(s, 1))), stream);
    } else {
        store_u8x32((uint8_t *)d + e, _mm512_cvtusepi16_epi8(_mm512_abs_epi16(s)), stream);
    }
}

/* hpass_store's kinds 1 and 2, 32 (s16, f32) or 64 (u8) elements at a time, with the same
 * arithmetic; returns the elements done (hpass_store takes the rest, and every other kernel).
 * u8 packs two vectors into one store: put32's 32 at a time made ksize 1 to u8 11% slower (one
 * thread, 1920x1080 u8c1, 0.253 -> 0.282 ms). */
SOBEL_AVX512 static int64_t hpass512(const gip__sobel_sep *sp, const int16_t *v, int64_t n,
                                     int32_t C, gip_dtype dt, void *d, int stream)
{
    const int kind = h_kind(sp);
    if (!kind)
        return 0;
    stream = stream && ((uintptr_t)d & 63) == 0;
    int64_t e = 0;
    if (dt != GIP_U8) {
        for (; e + 32 <= n; e += 32)
            put32(d, e, hsum32(v, e, C, kind), dt, stream);
        return e;
    }
    uint8_t *o = d;
    /* packus works within 128-bit lanes: lanes 0, 2, 4, 6 hold a's and 1, 3, 5, 7 b's. */
    const __m512i order = _mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0);
    for (; e + 64 <= n; e += 64) {
        __m512i a = _mm512_abs_epi16(hsum32(v, e, C, kind));
        __m512i b = _mm512_abs_epi16(hsum32(v, e + 32, C, kind));
        __m512i p = _mm512_permutexvar_epi64(order, _mm512_packus_epi16(a, b));
        if (stream)
            _mm512_stream_si512((__m512i *)(o + e), p);
        else
            _mm512_storeu_si512(o + e, p);
    }
    return e;
}

/* The fused route: Sobel ksize 3 (factors [-1 0 1] and [1 2 1] only) with AVX-512BW. Two output
 * rows at a time straight from the four source rows they need: each source row's horizontal
 * factor in registers (elements e - C, e and e + C), then the vertical factor across them. The
 * separable route's v row cost a store and two loads a vector and served one output row; here
 * each source row's horizontal factor serves two. One thread, 3840x2160 u8c1 to s16, in a
 * stand-alone loop: 0.82-0.90 ms with the v row, 0.60-0.64 ms fused two rows at a time, 0.61-0.67
 * fused one row at a time, 0.67-0.71 four rows at a time (2-core EPYC VM, 2026-12-05). */

/* 32 u8 elements at p, widened to 16 bits. */
SOBEL_AVX512 static inline __m512i ldw32(const uint8_t *p)
{
    return _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)p));
}

/* The horizontal factor (kind hk) of source row r at elements [e, e + 32). */
SOBEL_AVX512 static inline __m512i hrow32(const uint8_t *r, int64_t e, int32_t C, int hk)
{
    __m512i a = ldw32(r + e - C), c = ldw32(r + e + C);
    return comb32(a, hk == 1 ? a : ldw32(r + e), c, hk);
}

/* gip_sobel_magnitude's value of 16 elements from their gx and gy with the 2-D engine's operations
 * (f2d_finish_float): gx * gx, then an fma with gy * gy, the IEEE square root, then an fma with
 * scale and delta when they apply. The sums are integers below 2^11, so the squares and their sum
 * are exact in float. */
SOBEL_AVX512 static inline __m512 mag16(const sobel_job *j, __m256i gx, __m256i gy)
{
    const __m512 fx = _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(gx));
    const __m512 fy = _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(gy));
    __m512 v = _mm512_sqrt_ps(_mm512_fmadd_ps(fy, fy, _mm512_mul_ps(fx, fx)));
    if (j->affine)
        v = _mm512_fmadd_ps(v, _mm512_set1_ps(j->sp->scale), _mm512_set1_ps(j->sp->delta));
    return v;
}

/* Stores the magnitude of 32 elements at element e of row d: f32, or u8 as the 2-D engine rounds
 * (f2d_store: clamped to [-1, 256], half to even, saturated to [0, 255]). */
SOBEL_AVX512 static inline void putmag32(const sobel_job *j, void *d, int64_t e, __m512i gx,
                                         __m512i gy, gip_dtype dt, int stream)
{
    const __m512 v0 = mag16(j, _mm512_castsi512_si256(gx), _mm512_castsi512_si256(gy));
    const __m512 v1 = mag16(j, _mm512_extracti64x4_epi64(gx, 1), _mm512_extracti64x4_epi64(gy, 1));
    if (dt == GIP_F32) {
        store_f32x32((float *)d + e, v0, v1, stream);
        return;
    }
    const __m512 lo = _mm512_set1_ps(-1.0f), hi = _mm512_set1_ps(256.0f);
    const __m512i zero = _mm512_setzero_si512();
    /* cvtps rounds half to even (the default MXCSR mode), as f2d_rne does in this range. */
    const __m512i q0 =
        _mm512_max_epi32(_mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(v0, lo), hi)), zero);
    const __m512i q1 =
        _mm512_max_epi32(_mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(v1, lo), hi)), zero);
    store_u8x32((uint8_t *)d + e,
                _mm256_inserti128_si256(_mm256_castsi128_si256(_mm512_cvtusepi32_epi8(q0)),
                                        _mm512_cvtusepi32_epi8(q1), 1),
                stream);
}

/* Source row r at elements [e, e + 32): [-1 0 1] into *hd and [1 2 1] into *hs. */
SOBEL_AVX512 static inline void hboth32(const uint8_t *r, int64_t e, int32_t C, __m512i *hd,
                                        __m512i *hs)
{
    const __m512i a = ldw32(r + e - C), b = ldw32(r + e), c = ldw32(r + e + C);
    *hd = comb32(a, b, c, 1);
    *hs = comb32(a, b, c, 2);
}

/* Elements [e, e + 32) of output row d0 from source rows r0..r2 and of d1 from r1..r3: the
 * factors of kinds hk (rows) and vk (columns), or with mag the magnitude of gx ([-1 0 1] along
 * rows, [1 2 1] down columns) and gy (the transpose). */
SOBEL_AVX512 static inline __attribute__((always_inline)) void
fused32(const sobel_job *j, const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
        const uint8_t *r3, void *d0, void *d1, int64_t e, int32_t C, int hk, int vk, int mag,
        gip_dtype dt, int stream)
{
    if (mag) {
        __m512i d[4], s[4];
        hboth32(r0, e, C, &d[0], &s[0]);
        hboth32(r1, e, C, &d[1], &s[1]);
        hboth32(r2, e, C, &d[2], &s[2]);
        putmag32(j, d0, e, comb32(d[0], d[1], d[2], 2), comb32(s[0], s[1], s[2], 1), dt, stream);
        hboth32(r3, e, C, &d[3], &s[3]);
        putmag32(j, d1, e, comb32(d[1], d[2], d[3], 2), comb32(s[1], s[2], s[3], 1), dt, stream);
        return;
    }
    __m512i h0 = hrow32(r0, e, C, hk), h1 = hrow32(r1, e, C, hk), h2 = hrow32(r2, e, C, hk);
    put32(d0, e, comb32(h0, h1, h2, vk), dt, stream);
    put32(d1, e, comb32(h1, h2, hrow32(r3, e, C, hk), vk), dt, stream);
}

/* fused32 for u8 (not mag) on 64 elements, each row's two vectors packed into one 64-byte store
 * as hpass512 packs them. */
SOBEL_AVX512 static inline __attribute__((always_inline)) void
fused64u8(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2, const uint8_t *r3, void *d0,
          void *d1, int64_t e, int32_t C, int hk, int vk, int stream)
{
    const __m512i order = _mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0);
    const __m512i a0 = hrow32(r0, e, C, hk), a1 = hrow32(r1, e, C, hk), a2 = hrow32(r2, e, C, hk),
                  a3 = hrow32(r3, e, C, hk);
    const __m512i b0 = hrow32(r0, e + 32, C, hk), b1 = hrow32(r1, e + 32, C, hk),
                  b2 = hrow32(r2, e + 32, C, hk), b3 = hrow32(r3, e + 32, C, hk);
    const __m512i p0 = _mm512_permutexvar_epi64(
        order, _mm512_packus_epi16(_mm512_abs_epi16(comb32(a0, a1, a2, vk)),
                                   _mm512_abs_epi16(comb32(b0, b1, b2, vk))));
    const __m512i p1 = _mm512_permutexvar_epi64(
        order, _mm512_packus_epi16(_mm512_abs_epi16(comb32(a1, a2, a3, vk)),
                                   _mm512_abs_epi16(comb32(b1, b2, b3, vk))));
    if (stream) {
        _mm512_stream_si512((__m512i *)((uint8_t *)d0 + e), p0);
        _mm512_stream_si512((__m512i *)((uint8_t *)d1 + e), p1);
    } else {
        _mm512_storeu_si512((uint8_t *)d0 + e, p0);
        _mm512_storeu_si512((uint8_t *)d1 + e, p1);
    }
}

/* One element of the fused route through the factors and the column map (the row ends). */
static void fused1(const sobel_job *j, const uint8_t *const *r, void *const *d, int64_t e,
                   int32_t C, gip_dtype dt)
{
    const gip__sobel_sep *sp = j->sp;
    const int64_t px = e / C;
    const int32_t c = (int32_t)(e - px * C);
    int32_t hx[4], hy[4]; /* each source row through kx, and through ky (gy's, for mag) */
    for (int k = 0; k < 4; k++) {
        hx[k] = hy[k] = 0;
        for (int i = 0; i < 3; i++) {
            const int64_t sx = j->xmap[px + i];
            const int32_t v = sx < 0 ? (int32_t)sp->border_value[c] : r[k][sx * C + c];
            hx[k] += sp->kx[i] * v;
            hy[k] += sp->ky[i] * v;
        }
    }
    for (int row = 0; row < 2; row++) {
        const int32_t *h = hx + row, *g = hy + row;
        const int32_t s = sp->ky[0] * h[0] + sp->ky[1] * h[1] + sp->ky[2] * h[2];
        if (j->mag) { /* mag16's operations, and f2d_store's rounding for u8 */
            const float fx = (float)s,
                        fy = (float)(sp->kx[0] * g[0] + sp->kx[1] * g[1] + sp->kx[2] * g[2]);
            float v = sqrtf(fmaf(fy, fy, fx * fx));
            if (j->affine)
                v = fmaf(v, sp->scale, sp->delta);
            if (dt == GIP_F32) {
                ((float *)d[row])[e] = v;
            } else {
                v = v > -1.0f ? v : -1.0f;
                v = v < 256.0f ? v : 256.0f;
                const int32_t q = (int32_t)((v + 12582912.0f) - 12582912.0f);
                ((uint8_t *)d[row])[e] = (uint8_t)(q < 0 ? 0 : q > 255 ? 255 : q);
            }
        } else if (dt == GIP_S16) {
            ((int16_t *)d[row])[e] = (int16_t)s;
        } else if (dt == GIP_F32) {
            ((float *)d[row])[e] = (float)s;
        } else {
            const int32_t a = s < 0 ? -s : s;
            ((uint8_t *)d[row])[e] = (uint8_t)(a > 255 ? 255 : a);
        }
    }
}

/* Elements [0, n) of the output rows d[0] (from source rows r[0..2]) and d[1] (from r[1..3]).
 * Vectors cover the elements whose left and right neighbours are in the row ([C, n - C)), the
 * first and the last one overlapping their neighbours so that the others store whole aligned
 * units of d[0] (64 bytes, 32 for u8: a store across two cache lines made f32 of u8c1 5% slower
 * than the separable route at 1920x1080), streamed where d[1] is aligned too. The row pointers
 * are locals: stores through d may alias r[] and d[] as far as the compiler knows. */
SOBEL_AVX512 static inline __attribute__((always_inline)) void
fused_rows(const sobel_job *j, const uint8_t *const *r, void *const *d, int64_t n, int32_t C,
           int hk, int vk, int mag, gip_dtype dt)
{
    const int64_t lo = C, hi = n - C;
    if (hi - lo < 32) {
        for (int64_t e = 0; e < n; e++)
            fused1(j, r, d, e, C, dt);
        return;
    }
    const uint8_t *const r0 = r[0], *const r1 = r[1], *const r2 = r[2], *const r3 = r[3];
    void *const d0 = d[0], *const d1 = d[1];
    /* u8 sums 64 at a time (fused64u8); the magnitude's u8 32 at a time */
    const int wide = dt == GIP_U8 && !mag;
    const uintptr_t es = dt == GIP_U8    ? 1
                         : dt == GIP_S16 ? 2
                                         : 4,
                    al = mag && dt == GIP_U8 ? 32 : 64;
    const uintptr_t a0 = (uintptr_t)d0 + (uintptr_t)lo * es;
    int64_t e = lo;
    if (a0 % al && a0 % es == 0) { /* up to the first aligned element (63 away for u8) */
        const int64_t t = lo + (int64_t)((al - a0 % al) / es), stop = t < hi ? t : hi;
        fused32(j, r0, r1, r2, r3, d0, d1, lo, C, hk, vk, mag, dt, 0);
        if (stop - lo > 32)
            fused32(j, r0, r1, r2, r3, d0, d1, stop - 32, C, hk, vk, mag, dt, 0);
        e = stop;
    }
    if (j->stream && d1 != d0 && (a0 + (uintptr_t)(e - lo) * es) % al == 0 &&
        ((uintptr_t)d1 - (uintptr_t)d0) % al == 0) {
        if (wide)
            for (; e + 64 <= hi; e += 64)
                fused64u8(r0, r1, r2, r3, d0, d1, e, C, hk, vk, 1);
        for (; e + 32 <= hi; e += 32)
            fused32(j, r0, r1, r2, r3, d0, d1, e, C, hk, vk, mag, dt, 1);
    } else {
        if (wide)
            for (; e + 64 <= hi; e += 64)
                fused64u8(r0, r1, r2, r3, d0, d1, e, C, hk, vk, 0);
        for (; e + 32 <= hi; e += 32)
            fused32(j, r0, r1, r2, r3, d0, d1, e, C, hk, vk, mag, dt, 0);
    }
    if (e < hi)
        fused32(j, r0, r1, r2, r3, d0, d1, hi - 32, C, hk, vk, mag, dt, 0);
    for (e = 0; e < lo; e++)
        fused1(j, r, d, e, C, dt);
    for (e = hi; e < n; e++)
        fused1(j, r, d, e, C, dt);
}

/* fused_rows with the kinds and the dtype as constants. */
SOBEL_AVX512 static inline __attribute__((always_inline)) void
fused_rows_dt(const sobel_job *j, const uint8_t *const *r, void *const *d, int64_t n, int32_t C,
              int hk, int vk)
{
    switch (j->dst->dtype) {
    case GIP_S16:
        fused_rows(j, r, d, n, C, hk, vk, 0, GIP_S16);
        break;
    case GIP_F32:
        fused_rows(j, r, d, n, C, hk, vk, 0, GIP_F32);
        break;
    default:
        fused_rows(j, r, d, n, C, hk, vk, 0, GIP_U8);
        break;
    }
}

SOBEL_AVX512 static void fused_pair(const sobel_job *j, const uint8_t *const *r, void *const *d,
                                    int64_t n, int32_t C)
{
    if (j->mag) {
        if (j->dst->dtype == GIP_F32)
            fused_rows(j, r, d, n, C, 1, 2, 1, GIP_F32);
        else
            fused_rows(j, r, d, n, C, 1, 2, 1, GIP_U8);
        return;
    }
    switch (j->hk * 4 + j->vk) {
    case 1 * 4 + 1:
        fused_rows_dt(j, r, d, n, C, 1, 1);
        break;
    case 1 * 4 + 2:
        fused_rows_dt(j, r, d, n, C, 1, 2);
        break;
    case 2 * 4 + 1:
        fused_rows_dt(j, r, d, n, C, 2, 1);
        break;
    default:
        fused_rows_dt(j, r, d, n, C, 2, 2);
        break;
    }
}

static void run_band_fused(sobel_job *j, int64_t y0, int64_t y1)
{
    const gip__sobel_sep *sp = j->sp;
    const gip_image *src = j->src, *dst = j->dst;
    const int32_t C = src->channels;
    const int64_t H = src->height, n = src->width * C;
    uint8_t *crow = NULL; /* the constant border's row */
    if (sp->border == GIP_BORDER_CONSTANT) {
        if (!(crow = malloc((size_t)n))) {
            __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
            return;
        }
        for (int64_t e = 0; e < n; e++)
            crow[e] = (uint8_t)sp->border_value[e % C];
    }
    for (int64_t y = y0; y < y1; y += 2) {
        /* A band's odd last row: d[1] is d[0] and r[1..3] are its source rows, so that row 1's
         * stores, which come second and are plain (fused_rows), leave the right values. */
        const int two = y + 1 < y1;
        const uint8_t *r[4];
        for (int k = 0; k < 3; k++) {
            const int64_t sr = gip__border_index(y - 1 + k, H, sp->border);
            r[k + !two] = sr < 0 ? crow : (const uint8_t *)src->data + sr * src->stride;
        }
        if (two) {
            const int64_t sr = gip__border_index(y + 2, H, sp->border);
            r[3] = sr < 0 ? crow : (const uint8_t *)src->data + sr * src->stride;
        } else {
            r[0] = r[1];
        }
        void *const row = (char *)dst->data + y * dst->stride;
        void *d[2] = {row, two ? (char *)row + dst->stride : row};
        fused_pair(j, r, d, n, C);
    }
    if (j->stream)
        _mm_sfence();
    free(crow);
}

static void run_band(void *arg, int64_t y0, int64_t y1)
{
    sobel_job *j = arg;
    if (j->hk) {
        run_band_fused(j, y0, y1);
        return;
    }
    const gip__sobel_sep *sp = j->sp;
    const gip_image *src = j->src;
    const int32_t C = src->channels, nx = sp->nx, ny = sp->ny, ax = nx / 2, ay = ny / 2;
    const int64_t W = src->width, H = src->height, n = W * C, pw = W + nx - 1;
    int32_t ksum = 0;
    for (int32_t i = 0; i < ny; i++)
        ksum += sp->ky[i];
    /* v row padded by the horizontal border (and 32 bytes of slack), then the constant row. */
    size_t vbytes = ((size_t)(pw * C) * sizeof(int16_t) + 32 + 63) & ~(size_t)63;
    char *mem = malloc(vbytes + (size_t)n);
    if (!mem) {
        __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    int16_t *v = (int16_t *)mem;
    uint8_t *crow = (uint8_t *)mem + vbytes;
    if (sp->border == GIP_BORDER_CONSTANT)
        for (int64_t x = 0; x < W; x++)
            for (int32_t c = 0; c < C; c++)
                crow[x * C + c] = (uint8_t)sp->border_value[c];
    const uint8_t *rows[GIP__SOBEL_SEP_MAXK];
    for (int64_t y = y0; y < y1; y++) {
        for (int32_t r = 0; r < ny; r++) {
            int64_t sr = gip__border_index(y - ay + r, H, sp->border);
            rows[r] = sr < 0 ? crow : (const uint8_t *)src->data + sr * src->stride;
        }
        int64_t e = j->avx512 ? vpass512(rows, sp->ky, ny, n, v + (int64_t)ax * C) : 0;
        if (e < n) {
            const uint8_t *rest[GIP__SOBEL_SEP_MAXK];
            for (int32_t r = 0; r < ny; r++)
                rest[r] = rows[r] + e;
            vpass(rest, sp->ky, ny, n - e, v + (int64_t)ax * C + e);
        }
        /* The padding columns: a source column's v, or the constant border's. */
        for (int64_t px = 0; px < pw; px++) {
            if (px == ax)
                px += W;
            if (px >= pw)
                break;
            int64_t sx = j->xmap[px];
            for (int32_t c = 0; c < C; c++)
                v[px * C + c] = sx < 0 ? (int16_t)(ksum * (int32_t)sp->border_value[c])
                                       : v[((int64_t)ax + sx) * C + c];
        }
        char *drow = (char *)j->dst->data + y * j->dst->stride;
        const gip_dtype dt = j->dst->dtype;
        e = j->avx512 ? hpass512(sp, v, n, C, dt, drow, j->stream) : 0;
        if (e < n)
            hpass_store(sp, v + e, n - e, C, dt, drow + e * gip_dtype_size(dt), j->stream);
    }
    if (j->stream)
        _mm_sfence(); /* the streamed rows are visible before the band counts as done */
    free(mem);
}

#endif /* SOBEL_X86 */

bool gip__sobel_sep_fits(const gip__sobel_sep *sp, gip_dtype src, gip_dtype dst)
{
#ifdef SOBEL_X86
    if (sp->magnitude)
        return src == GIP_U8 && (dst == GIP_F32 || dst == GIP_U8) && k_kind(sp->kx, sp->nx) == 1 &&
               k_kind(sp->ky, sp->ny) == 2 && sobel_avx512_enabled();
    if (src != GIP_U8 || !(dst == GIP_S16 || dst == GIP_F32 || dst == GIP_U8))
        return false;
    if (sp->nx > GIP__SOBEL_SEP_MAXK || sp->ny > GIP__SOBEL_SEP_MAXK)
        return false;
    int64_t ax = 0, ay = 0;
    for (int32_t i = 0; i < sp->nx; i++)
        ax += sp->kx[i] < 0 ? -sp->kx[i] : sp->kx[i];
    for (int32_t i = 0; i < sp->ny; i++)
        ay += sp->ky[i] < 0 ? -sp->ky[i] : sp->ky[i];
    /* Every true sum fits in int16, so wrapping 16-bit arithmetic gives it exactly. */
    if (255 * ax * ay > 32767)
        return false;
    return __builtin_cpu_supports("avx2");
#else
    (void)sp, (void)src, (void)dst;
    return false;
#endif
}

gip_status gip__sobel_sep_run_cpu(gip_context *ctx, const gip__sobel_sep *sp, const gip_image *src,
                                  gip_image *dst)
{
    const char *op = sp->magnitude ? "gip_sobel_magnitude" : "gip_sobel";
#ifdef SOBEL_X86
    const int64_t pw = src->width + sp->nx - 1;
    int32_t *xmap = malloc((size_t)pw * sizeof *xmap);
    if (!xmap)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: cannot allocate %lld bytes", op,
                          (long long)pw * 4);
    for (int64_t px = 0; px < pw; px++)
        xmap[px] = (int32_t)gip__border_index(px - sp->nx / 2, src->width, sp->border);
    sobel_job job = {.sp = sp, .src = src, .dst = dst, .xmap = xmap};
    job.stream = gip__image_span(dst) >= GIP__STREAM_BYTES;
    job.avx512 = sobel_avx512_enabled();
    const int hk = k_kind(sp->kx, sp->nx), vk = k_kind(sp->ky, sp->ny);
    if (job.avx512 && hk && vk)
        job.hk = hk, job.vk = vk;
    job.mag = sp->magnitude;
    job.affine = sp->magnitude && (sp->scale != 1.0f || sp->delta != 0.0f);
    gip__parallel_for(ctx, src->height, 8, run_band, &job);
    free(xmap);
    if (job.failed)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY,
                          "%s: cannot allocate the row buffers of a %lld-pixel-wide image", op,
                          (long long)src->width);
    return GIP_OK;
#else
    (void)sp, (void)src, (void)dst;
    return gip__error(ctx, GIP_ERR_INTERNAL, "%s: the separable route needs x86", op);
#endif
}
