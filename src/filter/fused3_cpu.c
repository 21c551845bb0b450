/* SPDX-License-Identifier: MIT */
/* The fused 3x3 route (fused3.h): u8 sources, a kernel that is the product of two 3-tap factors
 * ([-1 0 1], [1 2 1], [1 1 1]), with AVX-512BW. Two output rows at a time straight from the four
 * source rows they need: each source row's horizontal factor in registers (elements e - C, e and
 * e + C), then the vertical factor across them, in wrapping 16-bit arithmetic (every sum fits).
 * A separable pass through a row buffer costs a store and two loads a vector and serves one
 * output row; here each source row's horizontal factor serves two. One thread, 3840x2160 u8c1,
 * Sobel to s16, in a stand-alone loop: 0.82-0.90 ms through a row buffer, 0.60-0.64 ms fused two
 * rows at a time, 0.61-0.67 one row at a time, 0.67-0.71 four rows at a time (2-core EPYC VM,
 * 2026-12-05). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "border.h"
#include "fused3.h"

static const int32_t f3_taps[4][3] = {{0, 0, 0}, {-1, 0, 1}, {1, 2, 1}, {1, 1, 1}};

int gip__fused3_kind(const int32_t *k, int32_t n)
{
    if (n != 3)
        return 0;
    for (int kind = GIP__F3_DERIV; kind <= GIP__F3_ONES; kind++)
        if (k[0] == f3_taps[kind][0] && k[1] == f3_taps[kind][1] && k[2] == f3_taps[kind][2])
            return kind;
    return 0;
}

/* OpenCV dispatches AVX-512 on such CPUs; with AVX2 alone its one-channel Sobel was 2.6x gip's
 * per core (2-core Zen 4 VM, 2026-12-04). */
bool gip__fused3_enabled(void)
{
#ifdef GIP__F3_X86
    const char *e = getenv("GIP_NOAVX512");
    if (e && e[0] && strcmp(e, "0") != 0)
        return false;
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
#else
    return false;
#endif
}

#ifdef GIP__F3_X86

typedef struct f3_job {
    const gip__fused3 *f;
    const gip_image *src;
    gip_image *dst;
    const int32_t *xmap; /* padded pixel -> source pixel, -1 for the constant border */
    int stream;          /* dst is much larger than the caches: rows bypass them */
    int affine;          /* MAG: scale or delta applied */
    int failed;          /* set (atomically) when a band could not get its constant row */
} f3_job;

/* 32 u8 elements at p, widened to 16 bits. */
GIP__AVX512 static inline __m512i ldw32(const uint8_t *p)
{
    return _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)p));
}

/* The horizontal factor (kind hk) of source row r at elements [e, e + 32). */
GIP__AVX512 static inline __m512i hrow32(const uint8_t *r, int64_t e, int32_t C, int hk)
{
    __m512i a = ldw32(r + e - C), c = ldw32(r + e + C);
    return gip__comb32(a, hk == GIP__F3_DERIV ? a : ldw32(r + e), c, hk);
}

/* QUANT's scaling of sums s >= 0 (min(hi + qr, 65535) >> qt, hi = (s qm) >> 16). */
GIP__AVX512 static inline __m512i quant32(const f3_job *j, __m512i s)
{
    const __m512i hi = _mm512_mulhi_epu16(s, _mm512_set1_epi16((short)j->f->qm));
    return _mm512_srl_epi16(_mm512_adds_epu16(hi, _mm512_set1_epi16((short)j->f->qr)),
                            _mm_cvtsi32_si128(j->f->qt));
}

/* gip_sobel_magnitude's value of 16 elements from their gx and gy with the 2-D engine's operations
 * (f2d_finish_float): gx * gx, then an fma with gy * gy, the IEEE square root, then an fma with
 * scale and delta when they apply. The sums are integers below 2^11, so the squares and their sum
 * are exact in float. */
GIP__AVX512 static inline __m512 mag16(const f3_job *j, __m256i gx, __m256i gy)
{
    const __m512 fx = _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(gx));
    const __m512 fy = _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(gy));
    __m512 v = _mm512_sqrt_ps(_mm512_fmadd_ps(fy, fy, _mm512_mul_ps(fx, fx)));
    if (j->affine)
        v = _mm512_fmadd_ps(v, _mm512_set1_ps(j->f->scale), _mm512_set1_ps(j->f->delta));
    return v;
}

/* Stores the magnitude of 32 elements at element e of row d: f32, or u8 as the 2-D engine rounds
 * (f2d_store: clamped to [-1, 256], half to even, saturated to [0, 255]). */
GIP__AVX512 static inline void putmag32(const f3_job *j, void *d, int64_t e, __m512i gx, __m512i gy,
                                        gip_dtype dt, int stream)
{
    const __m512 v0 = mag16(j, _mm512_castsi512_si256(gx), _mm512_castsi512_si256(gy));
    const __m512 v1 = mag16(j, _mm512_extracti64x4_epi64(gx, 1), _mm512_extracti64x4_epi64(gy, 1));
    if (dt == GIP_F32) {
        gip__store_f32x32((float *)d + e, v0, v1, stream);
        return;
    }
    const __m512 lo = _mm512_set1_ps(-1.0f), hi = _mm512_set1_ps(256.0f);
    const __m512i zero = _mm512_setzero_si512();
    /* cvtps rounds half to even (the default MXCSR mode), as f2d_rne does in this range. */
    const __m512i q0 =
        _mm512_max_epi32(_mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(v0, lo), hi)), zero);
    const __m512i q1 =
        _mm512_max_epi32(_mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(v1, lo), hi)), zero);
    gip__store_u8x32((uint8_t *)d + e,
                     _mm256_inserti128_si256(_mm256_castsi128_si256(_mm512_cvtusepi32_epi8(q0)),
                                             _mm512_cvtusepi32_epi8(q1), 1),
                     stream);
}

/* Source row r at elements [e, e + 32): [-1 0 1] into *hd and [1 2 1] into *hs. */
GIP__AVX512 static inline void hboth32(const uint8_t *r, int64_t e, int32_t C, __m512i *hd,
                                       __m512i *hs)
{
    const __m512i a = ldw32(r + e - C), b = ldw32(r + e), c = ldw32(r + e + C);
    *hd = gip__comb32(a, b, c, GIP__F3_DERIV);
    *hs = gip__comb32(a, b, c, GIP__F3_SMOOTH);
}

/* Elements [e, e + 32) of output row d0 from source rows r0..r2 and of d1 from r1..r3. */
GIP__AVX512 static inline __attribute__((always_inline)) void
fused32(const f3_job *j, const uint8_t *r0, const uint8_t *r1, const uint8_t *r2, const uint8_t *r3,
        void *d0, void *d1, int64_t e, int32_t C, int hk, int vk, gip__f3_post post, gip_dtype dt,
        int stream)
{
    if (post == GIP__F3_MAG) {
        __m512i d[4], s[4];
        hboth32(r0, e, C, &d[0], &s[0]);
        hboth32(r1, e, C, &d[1], &s[1]);
        hboth32(r2, e, C, &d[2], &s[2]);
        putmag32(j, d0, e, gip__comb32(d[0], d[1], d[2], GIP__F3_SMOOTH),
                 gip__comb32(s[0], s[1], s[2], GIP__F3_DERIV), dt, stream);
        hboth32(r3, e, C, &d[3], &s[3]);
        putmag32(j, d1, e, gip__comb32(d[1], d[2], d[3], GIP__F3_SMOOTH),
                 gip__comb32(s[1], s[2], s[3], GIP__F3_DERIV), dt, stream);
        return;
    }
    __m512i h0 = hrow32(r0, e, C, hk), h1 = hrow32(r1, e, C, hk), h2 = hrow32(r2, e, C, hk);
    __m512i s0 = gip__comb32(h0, h1, h2, vk), s1 = gip__comb32(h1, h2, hrow32(r3, e, C, hk), vk);
    if (post == GIP__F3_QUANT) /* then in [0, 255]: put32's |s| and saturation keep it */
        s0 = quant32(j, s0), s1 = quant32(j, s1);
    gip__put32(d0, e, s0, dt, stream);
    gip__put32(d1, e, s1, dt, stream);
}

/* fused32 for u8 (SUM or QUANT) on 64 elements, each row's two vectors packed into one 64-byte
 * store (32 at a time made Sobel to u8 4-9% slower, one thread). */
GIP__AVX512 static inline __attribute__((always_inline)) void
fused64u8(const f3_job *j, const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
          const uint8_t *r3, void *d0, void *d1, int64_t e, int32_t C, int hk, int vk,
          gip__f3_post post, int stream)
{
    __m512i s[2][2];
    for (int h = 0; h < 2; h++) {
        const int64_t x = e + 32 * h;
        const __m512i a0 = hrow32(r0, x, C, hk), a1 = hrow32(r1, x, C, hk),
                      a2 = hrow32(r2, x, C, hk), a3 = hrow32(r3, x, C, hk);
        s[0][h] = gip__comb32(a0, a1, a2, vk);
        s[1][h] = gip__comb32(a1, a2, a3, vk);
        for (int row = 0; row < 2; row++)
            s[row][h] = post == GIP__F3_QUANT ? quant32(j, s[row][h]) : _mm512_abs_epi16(s[row][h]);
    }
    const __m512i p0 = gip__pack_u8x64(s[0][0], s[0][1]), p1 = gip__pack_u8x64(s[1][0], s[1][1]);
    if (stream) {
        _mm512_stream_si512((__m512i *)((uint8_t *)d0 + e), p0);
        _mm512_stream_si512((__m512i *)((uint8_t *)d1 + e), p1);
    } else {
        _mm512_storeu_si512((uint8_t *)d0 + e, p0);
        _mm512_storeu_si512((uint8_t *)d1 + e, p1);
    }
}

/* One element of both rows through the factors and the column map (the row ends), with the
 * vector paths' arithmetic. */
static void fused1(const f3_job *j, const uint8_t *const *r, void *const *d, int64_t e, int32_t C,
                   gip_dtype dt)
{
    const gip__fused3 *f = j->f;
    const bool mag = f->post == GIP__F3_MAG;
    const int32_t *kx = f3_taps[mag ? GIP__F3_DERIV : f->hk];
    const int32_t *ky = f3_taps[mag ? GIP__F3_SMOOTH : f->vk];
    const int64_t px = e / C;
    const int32_t c = (int32_t)(e - px * C);
    int32_t hx[4], hy[4]; /* each source row through kx, and through ky (gy's, for MAG) */
    for (int k = 0; k < 4; k++) {
        hx[k] = hy[k] = 0;
        for (int i = 0; i < 3; i++) {
            const int64_t sx = j->xmap[px + i];
            const int32_t v = sx < 0 ? (int32_t)f->border_value[c] : r[k][sx * C + c];
            hx[k] += kx[i] * v;
            hy[k] += ky[i] * v;
        }
    }
    for (int row = 0; row < 2; row++) {
        const int32_t *h = hx + row, *g = hy + row;
        const int32_t s = ky[0] * h[0] + ky[1] * h[1] + ky[2] * h[2];
        if (mag) { /* mag16's operations, and f2d_store's rounding for u8 */
            const float fx = (float)s, fy = (float)(kx[0] * g[0] + kx[1] * g[1] + kx[2] * g[2]);
            float v = sqrtf(fmaf(fy, fy, fx * fx));
            if (j->affine)
                v = fmaf(v, f->scale, f->delta);
            if (dt == GIP_F32) {
                ((float *)d[row])[e] = v;
            } else {
                v = v > -1.0f ? v : -1.0f;
                v = v < 256.0f ? v : 256.0f;
                const int32_t q = (int32_t)((v + 12582912.0f) - 12582912.0f);
                ((uint8_t *)d[row])[e] = (uint8_t)(q < 0 ? 0 : q > 255 ? 255 : q);
            }
        } else if (f->post == GIP__F3_QUANT) {
            const uint32_t v = (((uint32_t)s * f->qm) >> 16) + f->qr;
            ((uint8_t *)d[row])[e] = (uint8_t)((v > 65535 ? 65535 : v) >> f->qt);
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
 * first and the last ones overlapping their neighbours so that the others store whole aligned
 * units of d[0] (64 bytes, 32 for the magnitude's u8: a store across two cache lines made Sobel
 * to f32 of u8c1 5% slower than the separable route at 1920x1080), streamed where d[1] is aligned
 * too. The row pointers are locals: stores through d may alias r[] and d[] as far as the compiler
 * knows. */
GIP__AVX512 static inline __attribute__((always_inline)) void
fused_rows(const f3_job *j, const uint8_t *const *r, void *const *d, int64_t n, int32_t C, int hk,
           int vk, gip__f3_post post, gip_dtype dt)
{
    const int64_t lo = C, hi = n - C;
    if (hi - lo < 32) {
        for (int64_t e = 0; e < n; e++)
            fused1(j, r, d, e, C, dt);
        return;
    }
    const uint8_t *const r0 = r[0], *const r1 = r[1], *const r2 = r[2], *const r3 = r[3];
    void *const d0 = d[0], *const d1 = d[1];
    /* u8 64 at a time (fused64u8), the magnitude's u8 32 at a time */
    const int wide = dt == GIP_U8 && post != GIP__F3_MAG;
    const uintptr_t es = dt == GIP_U8 ? 1 : dt == GIP_S16 ? 2 : 4;
    const uintptr_t al = dt == GIP_U8 && post == GIP__F3_MAG ? 32 : 64;
    const uintptr_t a0 = (uintptr_t)d0 + (uintptr_t)lo * es;
    int64_t e = lo;
    if (a0 % al && a0 % es == 0) { /* up to the first aligned element (63 away for u8) */
        const int64_t t = lo + (int64_t)((al - a0 % al) / es), stop = t < hi ? t : hi;
        fused32(j, r0, r1, r2, r3, d0, d1, lo, C, hk, vk, post, dt, 0);
        if (stop - lo > 32)
            fused32(j, r0, r1, r2, r3, d0, d1, stop - 32, C, hk, vk, post, dt, 0);
        e = stop;
    }
    if (j->stream && d1 != d0 && (a0 + (uintptr_t)(e - lo) * es) % al == 0 &&
        ((uintptr_t)d1 - (uintptr_t)d0) % al == 0) {
        if (wide)
            for (; e + 64 <= hi; e += 64)
                fused64u8(j, r0, r1, r2, r3, d0, d1, e, C, hk, vk, post, 1);
        for (; e + 32 <= hi; e += 32)
            fused32(j, r0, r1, r2, r3, d0, d1, e, C, hk, vk, post, dt, 1);
    } else {
        if (wide)
            for (; e + 64 <= hi; e += 64)
                fused64u8(j, r0, r1, r2, r3, d0, d1, e, C, hk, vk, post, 0);
        for (; e + 32 <= hi; e += 32)
            fused32(j, r0, r1, r2, r3, d0, d1, e, C, hk, vk, post, dt, 0);
    }
    if (e < hi)
        fused32(j, r0, r1, r2, r3, d0, d1, hi - 32, C, hk, vk, post, dt, 0);
    for (e = 0; e < lo; e++)
        fused1(j, r, d, e, C, dt);
    for (e = hi; e < n; e++)
        fused1(j, r, d, e, C, dt);
}

/* fused_rows for SUM with the kinds and the dtype as constants. */
GIP__AVX512 static inline __attribute__((always_inline)) void sum_rows(const f3_job *j,
                                                                       const uint8_t *const *r,
                                                                       void *const *d, int64_t n,
                                                                       int32_t C, int hk, int vk)
{
    switch (j->dst->dtype) {
    case GIP_S16:
        fused_rows(j, r, d, n, C, hk, vk, GIP__F3_SUM, GIP_S16);
        break;
    case GIP_F32:
        fused_rows(j, r, d, n, C, hk, vk, GIP__F3_SUM, GIP_F32);
        break;
    default:
        fused_rows(j, r, d, n, C, hk, vk, GIP__F3_SUM, GIP_U8);
        break;
    }
}

/* One pair of output rows, every case specialised. */
GIP__AVX512 static void fused_pair(const f3_job *j, const uint8_t *const *r, void *const *d,
                                   int64_t n, int32_t C)
{
    const gip__fused3 *f = j->f;
    if (f->post == GIP__F3_MAG) {
        if (j->dst->dtype == GIP_F32)
            fused_rows(j, r, d, n, C, 0, 0, GIP__F3_MAG, GIP_F32);
        else
            fused_rows(j, r, d, n, C, 0, 0, GIP__F3_MAG, GIP_U8);
        return;
    }
    if (f->post == GIP__F3_QUANT) { /* the box ([1 1 1] both ways) or the Gaussian ([1 2 1]) */
        if (f->hk == GIP__F3_ONES)
            fused_rows(j, r, d, n, C, GIP__F3_ONES, GIP__F3_ONES, GIP__F3_QUANT, GIP_U8);
        else
            fused_rows(j, r, d, n, C, GIP__F3_SMOOTH, GIP__F3_SMOOTH, GIP__F3_QUANT, GIP_U8);
        return;
    }
    switch (f->hk * 4 + f->vk) {
    case GIP__F3_DERIV * 4 + GIP__F3_DERIV:
        sum_rows(j, r, d, n, C, GIP__F3_DERIV, GIP__F3_DERIV);
        break;
    case GIP__F3_DERIV * 4 + GIP__F3_SMOOTH:
        sum_rows(j, r, d, n, C, GIP__F3_DERIV, GIP__F3_SMOOTH);
        break;
    case GIP__F3_SMOOTH * 4 + GIP__F3_DERIV:
        sum_rows(j, r, d, n, C, GIP__F3_SMOOTH, GIP__F3_DERIV);
        break;
    case GIP__F3_ONES * 4 + GIP__F3_ONES: /* the unnormalised box */
        sum_rows(j, r, d, n, C, GIP__F3_ONES, GIP__F3_ONES);
        break;
    default:
        sum_rows(j, r, d, n, C, f->hk, f->vk); /* the rest, kinds not constant */
        break;
    }
}

static void run_band(void *arg, int64_t y0, int64_t y1)
{
    f3_job *j = arg;
    const gip__fused3 *f = j->f;
    const gip_image *src = j->src, *dst = j->dst;
    const int32_t C = src->channels;
    const int64_t H = src->height, n = src->width * C;
    uint8_t *crow = NULL; /* the constant border's row */
    if (f->border == GIP_BORDER_CONSTANT) {
        if (!(crow = malloc((size_t)n))) {
            __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
            return;
        }
        for (int64_t e = 0; e < n; e++)
            crow[e] = (uint8_t)f->border_value[e % C];
    }
    for (int64_t y = y0; y < y1; y += 2) {
        /* A band's odd last row: d[1] is d[0] and r[1..3] are its source rows, so that row 1's
         * stores, which come second and are plain (fused_rows), leave the right values. */
        const int two = y + 1 < y1;
        const uint8_t *r[4];
        for (int k = 0; k < 3; k++) {
            const int64_t sr = gip__border_index(y - 1 + k, H, f->border);
            r[k + !two] = sr < 0 ? crow : (const uint8_t *)src->data + sr * src->stride;
        }
        if (two) {
            const int64_t sr = gip__border_index(y + 2, H, f->border);
            r[3] = sr < 0 ? crow : (const uint8_t *)src->data + sr * src->stride;
        } else {
            r[0] = r[1];
        }
        void *const row = (char *)dst->data + y * dst->stride;
        void *d[2] = {row, two ? (char *)row + dst->stride : row};
        fused_pair(j, r, d, n, C);
    }
    if (j->stream)
        _mm_sfence(); /* the streamed rows are visible before the band counts as done */
    free(crow);
}

#endif /* GIP__F3_X86 */

gip_status gip__fused3_run_cpu(gip_context *ctx, const gip__fused3 *f, const gip_image *src,
                               gip_image *dst, const char *op)
{
#ifdef GIP__F3_X86
    int32_t *xmap = gip__border_map(src->width + 2, 1, src->width, f->border);
    if (!xmap)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: cannot allocate %lld bytes", op,
                          (long long)(src->width + 2) * 4);
    f3_job job = {.f = f, .src = src, .dst = dst, .xmap = xmap};
    job.stream = gip__image_span(dst) >= GIP__STREAM_BYTES;
    job.affine = f->post == GIP__F3_MAG && (f->scale != 1.0f || f->delta != 0.0f);
    gip__parallel_for(ctx, src->height, 8, run_band, &job);
    free(xmap);
    if (job.failed)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY,
                          "%s: cannot allocate the border row of a %lld-pixel-wide image", op,
                          (long long)src->width);
    return GIP_OK;
#else
    (void)f, (void)src, (void)dst;
    return gip__error(ctx, GIP_ERR_INTERNAL, "%s: the fused 3x3 route needs x86", op);
#endif
}
