/* SPDX-License-Identifier: MIT */
/* integral (gip_integral): the sum, squared-sum and tilted integral images of cv2.integral3 on
 * the CPU, in the depths cv2 accepts, with OpenCV's order of additions (a row's running sum in
 * the result's type added to the row above), so f32 results round as OpenCV's. */
#include <stdlib.h>
#include <string.h>

#include "ops/op_check.h"
#include "ops/stats/stats.h"
#include "tuning.h"

size_t gip__depth_size(int32_t depth)
{
    switch (depth) {
    case GIP_DEPTH_U16:
        return 2;
    case GIP_DEPTH_S32:
    case GIP_DEPTH_F32:
        return 4;
    case GIP_DEPTH_F64:
        return 8;
    default:
        return 0;
    }
}

const char *gip__depth_name(int32_t depth)
{
    switch (depth) {
    case GIP_DEPTH_U16:
        return "u16";
    case GIP_DEPTH_S32:
        return "s32";
    case GIP_DEPTH_F32:
        return "f32";
    case GIP_DEPTH_F64:
        return "f64";
    default:
        return "?";
    }
}

gip_status gip__array_check(gip_context *ctx, const gip_array *a, int64_t w, int64_t h,
                            int32_t channels, const char *op, const char *what)
{
    size_t es = gip__depth_size(a->depth);
    if (!a->data)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: %s's data is NULL", op, what);
    if (!es)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: %s has depth %d; u16 (2), s32 (4), "
                          "f32 (5) or f64 (6) is accepted",
                          op, what, (int)a->depth);
    if (a->width != w || a->height != h || a->channels != channels)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: %s is %lldx%lld with %d channels; %lldx%lld with %d is needed", op,
                          what, (long long)a->width, (long long)a->height, (int)a->channels,
                          (long long)w, (long long)h, (int)channels);
    if (a->memory != GIP_MEM_HOST && a->memory != GIP_MEM_CUDA)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: %s's memory is %d; GIP_MEM_HOST or GIP_MEM_CUDA is accepted", op,
                          what, (int)a->memory);
    int64_t row = w * channels * (int64_t)es;
    if (a->stride != 0 && a->stride < row)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: %s's stride %lld is less than a row's %lld bytes", op, what,
                          (long long)a->stride, (long long)row);
    return GIP_OK;
}

int64_t gip__array_stride(const gip_array *a)
{
    return a->stride ? a->stride : a->width * a->channels * (int64_t)gip__depth_size(a->depth);
}

/* One row of a running sum: o[x + 1] = p[x + 1] + the row's sum up to x. The row's sums go into o
 * first, every channel in the same pass (each channel's additions in the same order as one channel
 * at a time), then the row above is added in a second pass that vectorises. CN is a constant. */
#define INTEGRAL_ROW(CN, ACC, EXPR)                                                                \
    do {                                                                                           \
        ACC r[CN] = {0};                                                                           \
        for (int c = 0; c < CN; c++)                                                               \
            o[c] = 0;                                                                              \
        for (int64_t x = 0; x < w; x++)                                                            \
            for (int c = 0; c < CN; c++) {                                                         \
                ACC v = (ACC)s[x * CN + c];                                                        \
                r[c] += EXPR;                                                                      \
                o[(x + 1) * CN + c] = r[c];                                                        \
            }                                                                                      \
        for (int64_t i = CN; i < (w + 1) * CN; i++)                                                \
            o[i] += p[i];                                                                          \
    } while (0)
#define INTEGRAL_ROW_CN(ACC, EXPR)                                                                 \
    do {                                                                                           \
        switch (cn) {                                                                              \
        case 1:                                                                                    \
            INTEGRAL_ROW(1, ACC, EXPR);                                                            \
            break;                                                                                 \
        case 2:                                                                                    \
            INTEGRAL_ROW(2, ACC, EXPR);                                                            \
            break;                                                                                 \
        case 3:                                                                                    \
            INTEGRAL_ROW(3, ACC, EXPR);                                                            \
            break;                                                                                 \
        default:                                                                                   \
            INTEGRAL_ROW(4, ACC, EXPR);                                                            \
        }                                                                                          \
    } while (0)

/* Sum (ST) and squared sum (QT) of source T, either output may be NULL. s32 results use uint32_t
 * arithmetic: they wrap modulo 2^32 as OpenCV's int arithmetic does in practice. */
#define INTEGRAL_FN(NAME, T, ST, QT)                                                               \
    static void NAME(const gip_image *src, char *sum, int64_t ss, char *sq, int64_t qs)            \
    {                                                                                              \
        const int64_t w = src->width, h = src->height;                                             \
        const int32_t cn = src->channels;                                                          \
        if (sum)                                                                                   \
            memset(sum, 0, (size_t)((w + 1) * cn) * sizeof(ST));                                   \
        if (sq)                                                                                    \
            memset(sq, 0, (size_t)((w + 1) * cn) * sizeof(QT));                                    \
        for (int64_t y = 0; y < h; y++) {                                                          \
            const T *s = (const T *)((const char *)src->data + y * src->stride);                   \
            if (sum) {                                                                             \
                const ST *p = (const ST *)(sum + y * ss);                                          \
                ST *o = (ST *)(sum + (y + 1) * ss);                                                \
                INTEGRAL_ROW_CN(ST, v);                                                            \
            }                                                                                      \
            if (sq) {                                                                              \
                const QT *p = (const QT *)(sq + y * qs);                                           \
                QT *o = (QT *)(sq + (y + 1) * qs);                                                 \
                INTEGRAL_ROW_CN(QT, v *v);                                                         \
            }                                                                                      \
        }                                                                                          \
    }

/* One-channel u8 sums, the common case, in one pass over both outputs. */
#define INTEGRAL_U8C1(NAME, ST, QT)                                                                \
    static void NAME(const gip_image *src, char *sum, int64_t ss, char *sq, int64_t qs)            \
    {                                                                                              \
        const int64_t w = src->width, h = src->height;                                             \
        memset(sum, 0, (size_t)(w + 1) * sizeof(ST));                                              \
        memset(sq, 0, (size_t)(w + 1) * sizeof(QT));                                               \
        for (int64_t y = 0; y < h; y++) {                                                          \
            const uint8_t *s = (const uint8_t *)src->data + y * src->stride;                       \
            const ST *p = (const ST *)(sum + y * ss);                                              \
            ST *o = (ST *)(sum + (y + 1) * ss);                                                    \
            const QT *pq = (const QT *)(sq + y * qs);                                              \
            QT *oq = (QT *)(sq + (y + 1) * qs);                                                    \
            ST r = 0;                                                                              \
            QT rq = 0;                                                                             \
            o[0] = 0;                                                                              \
            oq[0] = 0;                                                                             \
            for (int64_t x = 0; x < w; x++) {                                                      \
                uint32_t v = s[x];                                                                 \
                r += (ST)v;                                                                        \
                rq += (QT)(v * v);                                                                 \
                o[x + 1] = p[x + 1] + r;                                                           \
                oq[x + 1] = pq[x + 1] + rq;                                                        \
            }                                                                                      \
        }                                                                                          \
    }

INTEGRAL_FN(integral_u8_s32_s32, uint8_t, uint32_t, uint32_t)
INTEGRAL_FN(integral_u8_s32_f32, uint8_t, uint32_t, float)
INTEGRAL_FN(integral_u8_s32_f64, uint8_t, uint32_t, double)
INTEGRAL_FN(integral_u8_f32_f32, uint8_t, float, float)
INTEGRAL_FN(integral_u8_f32_f64, uint8_t, float, double)
INTEGRAL_FN(integral_u8_f64_f64, uint8_t, double, double)
INTEGRAL_FN(integral_f32_f32_f32, float, float, float)
INTEGRAL_FN(integral_f32_f32_f64, float, float, double)
INTEGRAL_FN(integral_f32_f64_f64, float, double, double)
INTEGRAL_FN(integral_u16_f64_f64, uint16_t, double, double)
INTEGRAL_FN(integral_s16_f64_f64, int16_t, double, double)
INTEGRAL_U8C1(integral_u8c1_s32_f64, uint32_t, double)
INTEGRAL_U8C1(integral_u8c1_s32_s32, uint32_t, uint32_t)
INTEGRAL_U8C1(integral_u8c1_f64_f64, double, double)

/* The tilted integral by the recurrence T(X, Y) = T(X-1, Y-1) + T(X+1, Y-1) - T(X, Y-2) +
 * I(X-1, Y-1) + I(X-1, Y-2), with T(-1, Y) = T(0, Y-1) and T(W+1, Y) = T(W, Y-1) beyond the
 * edges (the triangle is clipped by the image there), and zero rows above row 0. */
#define TILTED_FN(NAME, T, ST)                                                                     \
    static void NAME(const gip_image *src, char *out, int64_t os)                                  \
    {                                                                                              \
        const int64_t w = src->width, h = src->height;                                             \
        const int32_t cn = src->channels;                                                          \
        const int64_t n = (w + 1) * cn;                                                            \
        memset(out, 0, (size_t)n * sizeof(ST));                                                    \
        for (int64_t y = 1; y <= h; y++) {                                                         \
            ST *o = (ST *)(out + y * os);                                                          \
            const ST *r1 = (const ST *)(out + (y - 1) * os);                                       \
            const ST *r2 = y >= 2 ? (const ST *)(out + (y - 2) * os) : NULL;                       \
            const T *i1 = (const T *)((const char *)src->data + (y - 1) * src->stride);            \
            const T *i2 =                                                                          \
                y >= 2 ? (const T *)((const char *)src->data + (y - 2) * src->stride) : NULL;      \
            for (int32_t c = 0; c < cn; c++) {                                                     \
                /* X = 0: T(-1, Y-1) + T(1, Y-1) - T(0, Y-2), T(-1, Y-1) = T(0, Y-2) */            \
                o[c] = w >= 1 ? r1[cn + c] : (r2 ? r2[c] : 0);                                     \
                if (w < 1)                                                                         \
                    continue;                                                                      \
                for (int64_t x = 1; x <= w; x++) {                                                 \
                    ST l = r1[(x - 1) * cn + c];                                                   \
                    ST r = x < w ? r1[(x + 1) * cn + c] : (r2 ? r2[w * cn + c] : 0);               \
                    ST u = r2 ? r2[x * cn + c] : 0;                                                \
                    ST v = (ST)i1[(x - 1) * cn + c];                                               \
                    if (i2)                                                                        \
                        v += (ST)i2[(x - 1) * cn + c];                                             \
                    o[x * cn + c] = l + r - u + v;                                                 \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

TILTED_FN(tilted_u8_s32, uint8_t, uint32_t)
TILTED_FN(tilted_u8_f32, uint8_t, float)
TILTED_FN(tilted_u8_f64, uint8_t, double)
TILTED_FN(tilted_f32_f32, float, float)
TILTED_FN(tilted_f32_f64, float, double)
TILTED_FN(tilted_u16_f64, uint16_t, double)
TILTED_FN(tilted_s16_f64, int16_t, double)

/* ---- one-channel u8 into s32 sums (cv2.integral's default) ---------------------------------
 * A row's running sum goes four lanes at a time (SSE2), modulo 2^32 as the plain form. */

#if defined(__SSE2__)
#include <emmintrin.h>

/* The running sum of a's four lanes plus *run (the sum before them), which becomes their last. */
static inline __m128i scan4_u32(__m128i a, __m128i *run)
{
    a = _mm_add_epi32(a, _mm_slli_si128(a, 4));
    a = _mm_add_epi32(a, _mm_slli_si128(a, 8));
    a = _mm_add_epi32(a, *run);
    *run = _mm_shuffle_epi32(a, 0xFF);
    return a;
}
#endif

/* o[x + 1] = p[x + 1] + r + the running sum of s from x0 to x, for x in [x0, x1) (p NULL: a zero
 * row); the same of the squares into oq from pq, from rq, where oq is not NULL. */
static void row_u8_s32(const uint8_t *s, int64_t x0, int64_t x1, const uint32_t *p, uint32_t *o,
                       const uint32_t *pq, uint32_t *oq, uint32_t r, uint32_t rq)
{
    int64_t x = x0;
#if defined(__SSE2__)
    const __m128i z = _mm_setzero_si128();
    __m128i vr = _mm_set1_epi32((int)r), vq = _mm_set1_epi32((int)rq);
    for (; x + 16 <= x1; x += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + x));
        __m128i lo = _mm_unpacklo_epi8(v, z), hi = _mm_unpackhi_epi8(v, z);
        __m128i q16[2] = {_mm_mullo_epi16(lo, lo), _mm_mullo_epi16(hi, hi)};
        __m128i v16[2] = {lo, hi};
        for (int k = 0; k < 4; k++) {
            const __m128i a = scan4_u32(k & 1 ? _mm_unpackhi_epi16(v16[k >> 1], z)
                                              : _mm_unpacklo_epi16(v16[k >> 1], z),
                                        &vr);
            __m128i up = p ? _mm_loadu_si128((const __m128i *)(p + x + 1 + 4 * k)) : z;
            _mm_storeu_si128((__m128i *)(o + x + 1 + 4 * k), _mm_add_epi32(a, up));
            if (oq) {
                const __m128i b = scan4_u32(k & 1 ? _mm_unpackhi_epi16(q16[k >> 1], z)
                                                  : _mm_unpacklo_epi16(q16[k >> 1], z),
                                            &vq);
                __m128i uq = pq ? _mm_loadu_si128((const __m128i *)(pq + x + 1 + 4 * k)) : z;
                _mm_storeu_si128((__m128i *)(oq + x + 1 + 4 * k), _mm_add_epi32(b, uq));
            }
        }
    }
    r = (uint32_t)_mm_cvtsi128_si32(vr);
    rq = (uint32_t)_mm_cvtsi128_si32(vq);
#endif
    for (; x < x1; x++) {
        uint32_t v = s[x];
        r += v;
        o[x + 1] = (p ? p[x + 1] : 0) + r;
        if (oq) {
            rq += v * v;
            oq[x + 1] = (pq ? pq[x + 1] : 0) + rq;
        }
    }
}

/* The s32 sum (and s32 squared sum where sq is not NULL) of a one-channel u8 image, row after
 * row. One thread: the pass is bound by writing the output, and splitting it measured slower on
 * the 2-core machine (another pass over the data, or threads waiting for a busy core). */
static void integral_u8c1_s32(const gip_image *src, char *sum, int64_t ss, char *sq, int64_t qs)
{
    const int64_t w = src->width;
    memset(sum, 0, (size_t)(w + 1) * 4);
    if (sq)
        memset(sq, 0, (size_t)(w + 1) * 4);
    for (int64_t y = 0; y < src->height; y++) {
        uint32_t *o = (uint32_t *)(sum + (y + 1) * ss);
        uint32_t *oq = sq ? (uint32_t *)(sq + (y + 1) * qs) : NULL;
        o[0] = 0;
        if (oq)
            oq[0] = 0;
        row_u8_s32((const uint8_t *)src->data + y * src->stride, 0, w,
                   (const uint32_t *)(sum + y * ss), o, oq ? (const uint32_t *)(sq + y * qs) : NULL,
                   oq, 0, 0);
    }
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>

/* The s32 sum alone of a one-channel u8 image with AVX-512BW: output elements X = 0 .. w of a
 * row are the running sums of the source before X added to the row above. 32 at a time: the
 * bytes at X - 1 .. X + 30 widened to 16 bits, prefixes of each 8 within their 128-bit lanes
 * (three shifted adds, at most 2040), widened to 32 bits and joined across lanes, plus the row's
 * sum so far. Modulo 2^32 as the plain form. */
__attribute__((target("avx512f,avx512bw,avx512vl"))) static void
integral_u8c1_s32_avx512(const gip_image *src, char *sum, int64_t ss)
{
    const int64_t w = src->width, n = w + 1;
    const __m512i last = _mm512_set1_epi32(15), seven = _mm512_set1_epi32(7);
    memset(sum, 0, (size_t)n * 4);
    for (int64_t y = 0; y < src->height; y++) {
        const uint8_t *s = (const uint8_t *)src->data + y * src->stride;
        const uint32_t *p = (const uint32_t *)(sum + y * ss);
        uint32_t *o = (uint32_t *)(sum + (y + 1) * ss);
        __m512i run = _mm512_setzero_si512(); /* the row's sum before the step, in every lane */
        int64_t x = 0;
        for (; x + 32 <= n; x += 32) {
            /* source bytes x - 1 .. x + 30, none before 0 (lane 0 of the first step) */
            __m512i v = _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(x ? ~0u : ~1u, s + x - 1));
            v = _mm512_add_epi16(v, _mm512_bslli_epi128(v, 2));
            v = _mm512_add_epi16(v, _mm512_bslli_epi128(v, 4));
            v = _mm512_add_epi16(v, _mm512_bslli_epi128(v, 8));
            for (int k = 0; k < 2; k++) {
                __m512i d = _mm512_cvtepu16_epi32(k ? _mm512_extracti64x4_epi64(v, 1)
                                                    : _mm512_castsi512_si256(v));
                d = _mm512_add_epi32(d, _mm512_maskz_permutexvar_epi32(0xFF00, seven, d));
                const __m512i t = _mm512_add_epi32(d, run);
                run = _mm512_add_epi32(run, _mm512_permutexvar_epi32(last, d));
                _mm512_storeu_si512(o + x + 16 * k,
                                    _mm512_add_epi32(t, _mm512_loadu_si512(p + x + 16 * k)));
            }
        }
        uint32_t r = (uint32_t)_mm_cvtsi128_si32(_mm512_castsi512_si128(run));
        for (; x < n; x++) {
            r += x ? s[x - 1] : 0;
            o[x] = p[x] + r;
        }
    }
}
#define INTEGRAL_X86 1
#endif

typedef void (*sum_fn)(const gip_image *, char *, int64_t, char *, int64_t);
typedef void (*tilted_fn)(const gip_image *, char *, int64_t);

gip_status gip_integral(gip_context *ctx, const gip_image *src, gip_array *sum, gip_array *sqsum,
                        gip_array *tilted)
{
    static const char op[] = "gip_integral";
    gip_status st = gip__ctx_check(ctx, op);
    if (st)
        return st;
    if ((st = gip__image_check_ctx(ctx, src, op, "src")))
        return st;
    if (!sum && !sqsum && !tilted)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: sum, sqsum and tilted are all NULL; ask for at least one", op);
    if ((st = gip__check_dtype(ctx, src, GIP__DT_DEPTHS, op, "src")))
        return st;
    if (src->channels < 1 || src->channels > 4)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED, "%s: src has %d channels; 1 to 4 are accepted",
                          op, (int)src->channels);
    const int64_t w1 = src->width + 1, h1 = src->height + 1;
    const int32_t cn = src->channels;
    if ((sum && (st = gip__array_check(ctx, sum, w1, h1, cn, op, "sum"))) ||
        (sqsum && (st = gip__array_check(ctx, sqsum, w1, h1, cn, op, "sqsum"))) ||
        (tilted && (st = gip__array_check(ctx, tilted, w1, h1, cn, op, "tilted"))))
        return st;
    /* The sum's depth decides (tilted has it too); without a sum, tilted's, else the default. */
    const bool u8 = src->dtype == GIP_U8, f32 = src->dtype == GIP_F32;
    int32_t sd = sum ? sum->depth : tilted ? tilted->depth : u8 ? GIP_DEPTH_S32 : GIP_DEPTH_F64;
    int32_t qd = sqsum ? sqsum->depth : GIP_DEPTH_F64;
    if (tilted && tilted->depth != sd)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: tilted is %s but sum is %s; they must have the same depth", op,
                          gip__depth_name(tilted->depth), gip__depth_name(sd));
    bool ok_s = u8    ? (sd == GIP_DEPTH_S32 || sd == GIP_DEPTH_F32 || sd == GIP_DEPTH_F64)
                : f32 ? (sd == GIP_DEPTH_F32 || sd == GIP_DEPTH_F64)
                      : sd == GIP_DEPTH_F64;
    bool ok_q = qd == GIP_DEPTH_F64 ||
                (qd == GIP_DEPTH_F32 && sd != GIP_DEPTH_F64 && (u8 || sd == GIP_DEPTH_F32)) ||
                (qd == GIP_DEPTH_S32 && u8 && sd == GIP_DEPTH_S32);
    if (!ok_s || !ok_q)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: a %s src with a %s sum and a %s squared sum is not one of cv2's "
                          "combinations (u8: sum s32, f32 or f64, sqsum s32 with an s32 sum, f32 "
                          "with an s32 or f32 sum, or f64; f32: sum f32 or f64, sqsum f32 with an "
                          "f32 sum, or f64; u16, s16: f64)",
                          op, gip_dtype_name(src->dtype), gip__depth_name(sd), gip__depth_name(qd));
    const bool dev = src->memory == GIP_MEM_CUDA;
    gip_array *outs[3] = {sum, sqsum, tilted};
    for (int k = 0; k < 3; k++)
        if (outs[k] && (outs[k]->memory == GIP_MEM_CUDA) != dev)
            return gip__error(ctx, GIP_ERR_LOCATION_MISMATCH,
                              "%s: src and the outputs must all be in host memory or all in the "
                              "context's device memory",
                              op);
    if (dev) {
#ifdef GIP_HAVE_CUDA
        size_t es = gip_dtype_size(src->dtype);
        bool aligned = (uintptr_t)src->data % es == 0 && src->stride % (int64_t)es == 0;
        for (int k = 0; k < 3; k++)
            if (outs[k]) {
                size_t os = gip__depth_size(outs[k]->depth);
                aligned &= (uintptr_t)outs[k]->data % os == 0 && outs[k]->stride % (int64_t)os == 0;
            }
        if (!aligned)
            return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                              "%s: device images and arrays need data and stride aligned to "
                              "their element size",
                              op);
        if ((st = gip__cuda_enter(ctx)))
            return st;
        return gip__integral_cuda(ctx, src, sum, sqsum, tilted);
#else
        return gip__cuda_not_built(ctx, op);
#endif
    }
    sum_fn fn = NULL;
    tilted_fn tf = NULL;
    if (u8) {
        fn = sd == GIP_DEPTH_S32 ? (qd == GIP_DEPTH_S32   ? integral_u8_s32_s32
                                    : qd == GIP_DEPTH_F32 ? integral_u8_s32_f32
                                                          : integral_u8_s32_f64)
             : sd == GIP_DEPTH_F32
                 ? (qd == GIP_DEPTH_F32 ? integral_u8_f32_f32 : integral_u8_f32_f64)
                 : integral_u8_f64_f64;
        if (cn == 1 && sum && sqsum && sd == GIP_DEPTH_S32)
            fn = qd == GIP_DEPTH_S32   ? integral_u8c1_s32_s32
                 : qd == GIP_DEPTH_F64 ? integral_u8c1_s32_f64
                                       : fn;
        if (cn == 1 && sum && sqsum && sd == GIP_DEPTH_F64)
            fn = integral_u8c1_f64_f64;
        tf = sd == GIP_DEPTH_S32   ? tilted_u8_s32
             : sd == GIP_DEPTH_F32 ? tilted_u8_f32
                                   : tilted_u8_f64;
    } else if (f32) {
        fn = sd == GIP_DEPTH_F32
                 ? (qd == GIP_DEPTH_F32 ? integral_f32_f32_f32 : integral_f32_f32_f64)
                 : integral_f32_f64_f64;
        tf = sd == GIP_DEPTH_F32 ? tilted_f32_f32 : tilted_f32_f64;
    } else if (src->dtype == GIP_U16) {
        fn = integral_u16_f64_f64;
        tf = tilted_u16_f64;
    } else {
        fn = integral_s16_f64_f64;
        tf = tilted_s16_f64;
    }
#ifdef INTEGRAL_X86
    if (u8 && cn == 1 && sum && sd == GIP_DEPTH_S32 && !sqsum && (gip__simd() & GIP__SIMD_AVX512)) {
        integral_u8c1_s32_avx512(src, (char *)sum->data, gip__array_stride(sum));
        sum = NULL; /* done */
    }
#endif
    if (u8 && cn == 1 && sum && sd == GIP_DEPTH_S32 && (!sqsum || qd == GIP_DEPTH_S32) &&
        gip__array_stride(sum) % 4 == 0 && (uintptr_t)sum->data % 4 == 0 &&
        (!sqsum || (gip__array_stride(sqsum) % 4 == 0 && (uintptr_t)sqsum->data % 4 == 0))) {
        integral_u8c1_s32(src, (char *)sum->data, gip__array_stride(sum),
                          sqsum ? (char *)sqsum->data : NULL, sqsum ? gip__array_stride(sqsum) : 0);
        sum = sqsum = NULL; /* done */
    }
    if (sum || sqsum)
        fn(src, sum ? (char *)sum->data : NULL, sum ? gip__array_stride(sum) : 0,
           sqsum ? (char *)sqsum->data : NULL, sqsum ? gip__array_stride(sqsum) : 0);
    if (tilted)
        tf(src, (char *)tilted->data, gip__array_stride(tilted));
    return GIP_OK;
}
