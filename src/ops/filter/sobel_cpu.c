/* SPDX-License-Identifier: MIT */
/* The separable CPU route of gip_sobel for u8 sources: per output row, the vertical factor over
 * the source rows and then the horizontal factor, both in 16-bit integers with AVX2 on interleaved
 * channels (a channel only widens the stride). Taken only where the whole sum fits in int16, so
 * the results equal the 2-D engine's exact int32 sums bit for bit. ksize 3 with dx, dy <= 1 (and
 * gip_sobel_magnitude's ksize 3) takes the fused 3x3 route (fused3_cpu.c) instead: two output
 * rows at a time from registers, no row buffer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "border.h"
#include "engine/fused3/fused3.h"
#include "sobel.h"
#include "tuning.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define SOBEL_X86 1
#define SOBEL_AVX2 __attribute__((target("avx2")))
#define SOBEL_AVX512 GIP__AVX512
#endif

#ifdef SOBEL_X86

typedef struct sobel_job {
    const gip__sobel_sep *sp;
    const gip_image *src;
    gip_image *dst;
    const int32_t *xmap; /* padded pixel -> source pixel, -1 for the constant border */
    int stream;          /* dst is much larger than the caches: rows bypass them */
    int avx512;          /* the 512-bit loops run first (gip__fused3_width's switch) */
    int failed;          /* set (atomically) when a band could not get its buffers */
} sobel_job;

/* The horizontal factor's kind where the 512-bit loops have it: [-1 0 1] or [1 2 1], else 0. */
static inline int h_kind(const gip__sobel_sep *sp)
{
    const int k = gip__fused3_kind(sp->kx, sp->nx);
    return k == GIP__F3_DERIV || k == GIP__F3_SMOOTH ? k : 0;
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
    if (kind) { /* [-1 0 1] or [1 2 1] */
        __m256i a = _mm256_loadu_si256((const __m256i *)(v + e));
        __m256i c = _mm256_loadu_si256((const __m256i *)(v + e + 2 * C));
        __m256i b = kind == GIP__F3_DERIV ? a : _mm256_loadu_si256((const __m256i *)(v + e + C));
        return gip__comb16(a, b, c, kind);
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

/* hsum16's [-1 0 1] (kind 1) and [1 2 1] (kind 2) on 32 elements. */
SOBEL_AVX512 static inline __m512i hsum32(const int16_t *v, int64_t e, int32_t C, int kind)
{
    __m512i a = _mm512_loadu_si512(v + e), c = _mm512_loadu_si512(v + e + 2 * C);
    __m512i b = kind == GIP__F3_DERIV ? a : _mm512_loadu_si512(v + e + C);
    return gip__comb32(a, b, c, kind);
}

/* hpass_store's kinds 1 and 2, 32 (s16, f32) or 64 (u8) elements at a time, with the same
 * arithmetic; returns the elements done (hpass_store takes the rest, and every other kernel).
 * u8 packs two vectors into one store: put32's 32 at a time made ksize 1 to u8 11% slower on
 * one thread. */
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
            gip__put32(d, e, hsum32(v, e, C, kind), dt, stream);
        return e;
    }
    uint8_t *o = d;
    for (; e + 64 <= n; e += 64) {
        __m512i p = gip__pack_u8x64(_mm512_abs_epi16(hsum32(v, e, C, kind)),
                                    _mm512_abs_epi16(hsum32(v, e + 32, C, kind)));
        if (stream)
            _mm512_stream_si512((__m512i *)(o + e), p);
        else
            _mm512_storeu_si512(o + e, p);
    }
    return e;
}

static void run_band(void *arg, int64_t y0, int64_t y1)
{
    sobel_job *j = arg;
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
        return src == GIP_U8 && (dst == GIP_F32 || dst == GIP_U8) &&
               gip__fused3_kind(sp->kx, sp->nx) == GIP__F3_DERIV &&
               gip__fused3_kind(sp->ky, sp->ny) == GIP__F3_SMOOTH && gip__fused3_width() != 0;
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
    return (gip__simd() & GIP__SIMD_AVX2) != 0;
#else
    (void)sp, (void)src, (void)dst;
    return false;
#endif
}

gip_status gip__sobel_sep_run_cpu(gip_context *ctx, const gip__sobel_sep *sp, const gip_image *src,
                                  gip_image *dst)
{
    const char *op = sp->magnitude ? "gip_sobel_magnitude" : "gip_sobel";
    /* ksize 3 (and the magnitude, which fits only there) through the fused 3x3 route */
    const int hk = gip__fused3_kind(sp->kx, sp->nx), vk = gip__fused3_kind(sp->ky, sp->ny);
    if (hk && hk != GIP__F3_ONES && vk && vk != GIP__F3_ONES && gip__fused3_width() != 0) {
        gip__fused3 f = {.hk = hk, .vk = vk, .border = sp->border};
        f.post = sp->magnitude ? GIP__F3_MAG : GIP__F3_SUM;
        f.scale = sp->scale, f.delta = sp->delta;
        memcpy(f.border_value, sp->border_value, sizeof f.border_value);
        return gip__fused3_run_cpu(ctx, &f, src, dst, op);
    }
#ifdef SOBEL_X86
    const int64_t pw = src->width + sp->nx - 1;
    int32_t *xmap = gip__border_map(pw, sp->nx / 2, src->width, sp->border);
    if (!xmap)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: cannot allocate %lld bytes", op,
                          (long long)pw * 4);
    sobel_job job = {.sp = sp, .src = src, .dst = dst, .xmap = xmap};
    job.stream = gip__image_span(dst) >= GIP__STREAM_BYTES;
    job.avx512 = gip__fused3_width() == 512;
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
