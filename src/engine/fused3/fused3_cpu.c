/* SPDX-License-Identifier: MIT */
/* The fused 3x3 route (fused3.h): u8 sources, a kernel that is the product of two 3-tap factors
 * ([-1 0 1], [1 2 1], [1 1 1]), with AVX-512BW or AVX2. Two output rows at a time straight from
 * the four source rows they need: each source row's horizontal factor in registers (elements
 * e - C, e and e + C), then the vertical factor across them, in wrapping 16-bit arithmetic
 * (every sum fits). A separable pass through a row buffer costs a store and two loads a vector
 * and serves one output row; here each source row's horizontal factor serves two. Timed alone on
 * one thread (Sobel to s16, AVX-512), two rows at a time takes over a quarter less time than
 * through a row buffer, and slightly less than one or four rows at a time. The vector body
 * (fused3_body.h) is written once and built for both widths here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "border.h"
#include "fused3.h"
#include "tuning.h"

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

/* The 512-bit body where the CPU has it: on one thread it takes 14-23% less time than the AVX2
 * body (Sobel to s16, the magnitude). */
int gip__fused3_width(void)
{
#ifdef GIP__F3_X86
    const unsigned v = gip__simd();
    return v & GIP__SIMD_AVX512 ? 512 : v & GIP__SIMD_AVX2 ? 256 : 0;
#else
    return 0;
#endif
}

#ifdef GIP__F3_X86

typedef struct f3_job f3_job;

/* One pair of output rows (fused_pair_512 or fused_pair_256): d[0] from source rows r[0..2],
 * d[1] from r[1..3], n elements each. */
typedef void (*f3_pair_fn)(const f3_job *j, const uint8_t *const *r, void *const *d, int64_t n,
                           int32_t C);

struct f3_job {
    const gip__fused3 *f;
    const gip_image *src;
    gip_image *dst;
    const int32_t *xmap; /* padded pixel -> source pixel, -1 for the constant border */
    int stream;          /* dst is much larger than the caches: rows bypass them */
    int affine;          /* MAG: scale or delta applied */
    int failed;          /* set (atomically) when a band could not get its constant row */
    f3_pair_fn pair;
};

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
        if (mag) { /* the vector mag's operations, and f2d_store's rounding for u8 */
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

/* AVX-512BW: 32 lanes. */
GIP__AVX512 static inline void store512(void *o, __m512i v, int stream)
{
    if (stream)
        _mm512_stream_si512((__m512i *)o, v);
    else
        _mm512_storeu_si512(o, v);
}

#define F3_T GIP__AVX512
#define F3_FN(name) name##_512
#define F3_N 32
#define F3V __m512i
#define F3F __m512
#define F3H __m256i
#define F3_LDW(p) _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(p)))
#define F3_COMB gip__comb32
#define F3_ABS _mm512_abs_epi16
#define F3_MULHI_U _mm512_mulhi_epu16
#define F3_ADDS_U _mm512_adds_epu16
#define F3_SRL _mm512_srl_epi16
#define F3_SET16 _mm512_set1_epi16
#define F3_LO _mm512_castsi512_si256
#define F3_HI(x) _mm512_extracti64x4_epi64(x, 1)
#define F3_CVTF(h) _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(h))
#define F3_SQRT _mm512_sqrt_ps
#define F3_FMA _mm512_fmadd_ps
#define F3_MULF _mm512_mul_ps
#define F3_MINF _mm512_min_ps
#define F3_MAXF _mm512_max_ps
#define F3_SET1F _mm512_set1_ps
#define F3_CVTI _mm512_cvtps_epi32
#define F3_MAXI32 _mm512_max_epi32
#define F3_ZERO _mm512_setzero_si512()
#define F3_MAG_U8(q0, q1)                                                                          \
    _mm256_inserti128_si256(_mm256_castsi128_si256(_mm512_cvtusepi32_epi8(q0)),                    \
                            _mm512_cvtusepi32_epi8(q1), 1)
#define F3_PUT gip__put32
#define F3_STORE_F2 gip__store_f32x32
#define F3_STORE_U8H gip__store_u8x32
#define F3_PACK2 gip__pack_u8x64
#define F3_STOREV store512
#include "fused3_body.h"

/* AVX2 (and FMA, for the magnitude's operations): 16 lanes. */
#define F3_AVX2 __attribute__((target("avx2,fma")))

F3_AVX2 static inline void store256(void *o, __m256i v, int stream)
{
    if (stream)
        _mm256_stream_si256((__m256i *)o, v);
    else
        _mm256_storeu_si256((__m256i *)o, v);
}

F3_AVX2 static inline void store_f32x16(float *o, __m256 a, __m256 b, int stream)
{
    store256(o, _mm256_castps_si256(a), stream);
    store256(o + 8, _mm256_castps_si256(b), stream);
}

F3_AVX2 static inline void store_u8x16(uint8_t *o, __m128i v, int stream)
{
    if (stream)
        _mm_stream_si128((__m128i *)o, v);
    else
        _mm_storeu_si128((__m128i *)o, v);
}

/* Two vectors of u8 values in 16-bit lanes (0..32767) as 32 bytes in element order, saturated to
 * 255 (packus works within 128-bit lanes). */
F3_AVX2 static inline __m256i pack_u8x32(__m256i a, __m256i b)
{
    return _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xD8);
}

/* gip__put32 on 16 sums. */
F3_AVX2 static inline void put16(void *d, int64_t e, __m256i s, gip_dtype dt, int stream)
{
    if (dt == GIP_S16) {
        store256((int16_t *)d + e, s, stream);
    } else if (dt == GIP_F32) {
        store_f32x16(
            (float *)d + e, _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm256_castsi256_si128(s))),
            _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm256_extracti128_si256(s, 1))), stream);
    } else {
        const __m256i a = _mm256_abs_epi16(s);
        store_u8x16((uint8_t *)d + e,
                    _mm_packus_epi16(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1)),
                    stream);
    }
}

/* Two vectors of 8 int32 in [0, 256] as 16 bytes in order, 256 saturated to 255. */
F3_AVX2 static inline __m128i mag_u8x16(__m256i q0, __m256i q1)
{
    const __m256i w = _mm256_permute4x64_epi64(_mm256_packus_epi32(q0, q1), 0xD8);
    return _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
}

#define F3_T F3_AVX2
#define F3_FN(name) name##_256
#define F3_N 16
#define F3V __m256i
#define F3F __m256
#define F3H __m128i
#define F3_LDW(p) _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(p)))
#define F3_COMB gip__comb16
#define F3_ABS _mm256_abs_epi16
#define F3_MULHI_U _mm256_mulhi_epu16
#define F3_ADDS_U _mm256_adds_epu16
#define F3_SRL _mm256_srl_epi16
#define F3_SET16 _mm256_set1_epi16
#define F3_LO _mm256_castsi256_si128
#define F3_HI(x) _mm256_extracti128_si256(x, 1)
#define F3_CVTF(h) _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(h))
#define F3_SQRT _mm256_sqrt_ps
#define F3_FMA _mm256_fmadd_ps
#define F3_MULF _mm256_mul_ps
#define F3_MINF _mm256_min_ps
#define F3_MAXF _mm256_max_ps
#define F3_SET1F _mm256_set1_ps
#define F3_CVTI _mm256_cvtps_epi32
#define F3_MAXI32 _mm256_max_epi32
#define F3_ZERO _mm256_setzero_si256()
#define F3_MAG_U8 mag_u8x16
#define F3_PUT put16
#define F3_STORE_F2 store_f32x16
#define F3_STORE_U8H store_u8x16
#define F3_PACK2 pack_u8x32
#define F3_STOREV store256
#include "fused3_body.h"

/* Destinations go out through streaming stores where the call reads and writes this many bytes or
 * more: below it source and destination stay in a large L3 and plain stores win, above it
 * streaming saves reading each line before writing it (docs/design/cpu.md has the figures). */
#define F3_STREAM_BYTES ((int64_t)20 << 20)

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
        for (int k = 0; k < 3 + two; k++) {
            const int64_t sr = gip__border_index(y - 1 + k, H, f->border);
            r[k + !two] = sr < 0 ? crow : (const uint8_t *)src->data + sr * src->stride;
        }
        if (!two)
            r[0] = r[1];
        void *const row = (char *)dst->data + y * dst->stride;
        void *d[2] = {row, two ? (char *)row + dst->stride : row};
        j->pair(j, r, d, n, C);
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
    job.pair = gip__fused3_width() == 512 ? fused_pair_512 : fused_pair_256;
    job.stream = gip__image_span(src) + gip__image_span(dst) >= F3_STREAM_BYTES;
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
