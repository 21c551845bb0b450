/* SPDX-License-Identifier: MIT */
/* median, as cv2.medianBlur: the median of each ksize x ksize window with a replicated border.
 * The checks, the CPU backend (ksize 3 and 5: a median-selecting network of compare-exchanges,
 * median_net.h, on each element's window, which the compiler vectorises across a row; larger u8
 * windows: Huang's sliding histogram along the row, the median tracked as the window moves) and
 * the registry's description. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "gip/smoothing.h"
#include "ops/filter/median.h"
#include "ops/filter/median_net.h"
#include "ops/op_check.h"
#include "ops/op_step.h"
#include "registry/registry.h"
#include "tuning.h"

static const char OP[] = "gip_median_blur";

/* ---- CPU ---------------------------------------------------------------------------------- */

typedef struct median_job {
    const gip_image *src;
    gip_image *dst;
    int32_t k;
    atomic_int failed;
} median_job;

/* Vectors of 16, 32 and 64 bytes of each dtype (GCC's vector extensions): a window's values
 * stay in vector registers and every compare-exchange is a lane-wise min and max. The wider
 * ones are used only in functions compiled for AVX2 or AVX-512 and chosen at run time. */
#define VEC_TYPES(ISA, W)                                                                          \
    typedef uint8_t ISA##_u8 __attribute__((vector_size(W)));                                      \
    typedef uint16_t ISA##_u16 __attribute__((vector_size(W)));                                    \
    typedef int16_t ISA##_s16 __attribute__((vector_size(W)));                                     \
    typedef float ISA##_f32 __attribute__((vector_size(W)));
VEC_TYPES(v16, 16)

#define INLINE __attribute__((always_inline)) static inline
#if defined(__x86_64__) && defined(__GNUC__)
#define MEDIAN_X86 1
#include <immintrin.h>
VEC_TYPES(v32, 32)
VEC_TYPES(v64, 64)
#define AVX2 __attribute__((target("avx2")))
#define AVX512 __attribute__((target("avx512f,avx512bw")))
/* lane-wise min and max through the ISA's instructions */
#define MINMAX(ISA, SFX, ATTR, MIN, MAX, IT)                                                       \
    ATTR INLINE ISA##_##SFX min_##ISA##_##SFX(ISA##_##SFX a, ISA##_##SFX b)                        \
    {                                                                                              \
        return (ISA##_##SFX)MIN((IT)a, (IT)b);                                                     \
    }                                                                                              \
    ATTR INLINE ISA##_##SFX max_##ISA##_##SFX(ISA##_##SFX a, ISA##_##SFX b)                        \
    {                                                                                              \
        return (ISA##_##SFX)MAX((IT)a, (IT)b);                                                     \
    }
/* SSE2 has no unsigned 16-bit min and max: a - (a -sat b) is the smaller, b + (a -sat b) the
 * larger */
#define SSE2_MINU16(a, b) _mm_subs_epu16(a, _mm_subs_epu16(a, b))
#define SSE2_MAXU16(a, b) _mm_adds_epu16(b, _mm_subs_epu16(a, b))
MINMAX(v16, u8, , _mm_min_epu8, _mm_max_epu8, __m128i)
MINMAX(v16, u16, , SSE2_MINU16, SSE2_MAXU16, __m128i)
MINMAX(v16, s16, , _mm_min_epi16, _mm_max_epi16, __m128i)
MINMAX(v16, f32, , _mm_min_ps, _mm_max_ps, __m128)
MINMAX(v32, u8, AVX2, _mm256_min_epu8, _mm256_max_epu8, __m256i)
MINMAX(v32, u16, AVX2, _mm256_min_epu16, _mm256_max_epu16, __m256i)
MINMAX(v32, s16, AVX2, _mm256_min_epi16, _mm256_max_epi16, __m256i)
MINMAX(v32, f32, AVX2, _mm256_min_ps, _mm256_max_ps, __m256)
MINMAX(v64, u8, AVX512, _mm512_min_epu8, _mm512_max_epu8, __m512i)
MINMAX(v64, u16, AVX512, _mm512_min_epu16, _mm512_max_epu16, __m512i)
MINMAX(v64, s16, AVX512, _mm512_min_epi16, _mm512_max_epi16, __m512i)
MINMAX(v64, f32, AVX512, _mm512_min_ps, _mm512_max_ps, __m512)
#define VSEL(x, OP)                                                                                \
    _Generic((x), v16_u8                                                                           \
             : OP##_v16_u8, v16_u16                                                                \
             : OP##_v16_u16, v16_s16                                                               \
             : OP##_v16_s16, v16_f32                                                               \
             : OP##_v16_f32, v32_u8                                                                \
             : OP##_v32_u8, v32_u16                                                                \
             : OP##_v32_u16, v32_s16                                                               \
             : OP##_v32_s16, v32_f32                                                               \
             : OP##_v32_f32, v64_u8                                                                \
             : OP##_v64_u8, v64_u16                                                                \
             : OP##_v64_u16, v64_s16                                                               \
             : OP##_v64_s16, v64_f32                                                               \
             : OP##_v64_f32)
#else
/* Elsewhere a mask select (the comparison's lanes are all ones or zeros): min is (b < a ? b : a)
 * lane by lane, as minps is. */
#define MINMAX(ISA, SFX)                                                                           \
    INLINE ISA##_##SFX min_##ISA##_##SFX(ISA##_##SFX a, ISA##_##SFX b)                             \
    {                                                                                              \
        const __typeof__(a < b) m = b < a;                                                         \
        return (ISA##_##SFX)(((__typeof__(m))b & m) | ((__typeof__(m))a & ~m));                    \
    }                                                                                              \
    INLINE ISA##_##SFX max_##ISA##_##SFX(ISA##_##SFX a, ISA##_##SFX b)                             \
    {                                                                                              \
        const __typeof__(a < b) m = a < b;                                                         \
        return (ISA##_##SFX)(((__typeof__(m))b & m) | ((__typeof__(m))a & ~m));                    \
    }
MINMAX(v16, u8)
MINMAX(v16, u16)
MINMAX(v16, s16)
MINMAX(v16, f32)
#define VSEL(x, OP)                                                                                \
    _Generic((x), v16_u8                                                                           \
             : OP##_v16_u8, v16_u16                                                                \
             : OP##_v16_u16, v16_s16                                                               \
             : OP##_v16_s16, v16_f32                                                               \
             : OP##_v16_f32)
#endif
#define VMIN(x, y) VSEL(x, min)(x, y)
#define VMAX(x, y) VSEL(x, max)(x, y)
#define MED3(a, b, c) VMAX(VMIN(a, b), VMIN(VMAX(a, b), c))
/* min to a, max to b */
#define CXV(a, b)                                                                                  \
    {                                                                                              \
        const __typeof__(a) lo_ = VMIN(a, b), hi_ = VMAX(a, b);                                    \
        a = lo_;                                                                                   \
        b = hi_;                                                                                   \
    }
#define CX(a, b) CXV(v[a], v[b])
#define LOAD(v, p) memcpy(&(v), (p), sizeof(v))
/* The column of three a, b, e sorted (a <= b <= e) and stored at element `at` of the rows of
 * lows, mids and highs. */
#define SORT3_STORE(a, b, e, lo, mid, hi, at)                                                      \
    CXV(a, b)                                                                                      \
    CXV(b, e)                                                                                      \
    CXV(a, b)                                                                                      \
    memcpy((lo) + (at), &(a), sizeof(a));                                                          \
    memcpy((mid) + (at), &(b), sizeof(b));                                                         \
    memcpy((hi) + (at), &(e), sizeof(e));

/* The padded rows of a band: the slot of source row u (unclamped; replicated at the top and
 * bottom) holds it with k/2 pixels replicated on each side and a vector's width of slack after
 * it, so that a last vector reads defined memory. A row is copied once per band while the
 * window slides down. */
typedef struct row_ring {
    uint8_t *buf;
    int64_t slot_bytes;
    int64_t tag[5];
} row_ring;

static const void *ring_row(row_ring *g, const median_job *j, int64_t u, int32_t esize)
{
    const int32_t k = j->k, r = k / 2, px = j->src->channels * esize;
    const int64_t w = j->src->width, h = j->src->height;
    const int64_t s = ((u % k) + k) % k;
    uint8_t *p = g->buf + s * g->slot_bytes;
    if (g->tag[s] != u) {
        const int64_t sy = u < 0 ? 0 : u >= h ? h - 1 : u;
        const uint8_t *row = (const uint8_t *)j->src->data + sy * j->src->stride;
        memcpy(p + (int64_t)r * px, row, (size_t)(w * px));
        for (int32_t x = 0; x < r; x++) {
            memcpy(p + (int64_t)x * px, row, (size_t)px);
            memcpy(p + (r + w + x) * px, row + (w - 1) * px, (size_t)px);
        }
        g->tag[s] = u;
    }
    return p;
}

/* KERNELS(ISA, SFX, T, ATTR): the 3x3 and 5x5 medians of one dtype for one vector width, over
 * rows y0..y1. 3x3: each padded column of three is sorted once (lo, mid, hi) and a window's
 * median is med3(max of its lows, med3 of its mids, min of its highs) (Paeth's identity): 12
 * min/max a vector after the shared sort, where a network takes 19 exchanges. 5x5: the 25 values
 * of a vector of windows through NET25. tmp holds three padded rows. */
#define KERNELS(ISA, SFX, T, ATTR)                                                                 \
    ATTR static void band3_##ISA##_##SFX(median_job *j, row_ring *g, void *tmp, int64_t y0,        \
                                         int64_t y1)                                               \
    {                                                                                              \
        typedef ISA##_##SFX V;                                                                     \
        const int64_t L = (int64_t)(sizeof(V) / sizeof(T)), c = j->src->channels;                  \
        const int64_t w = j->src->width, pw = (w + 2) * c, stride = pw + L;                        \
        T *lo = tmp, *mid = lo + stride, *hi = mid + stride;                                       \
        (void)g;                                                                                   \
        const int64_t ne = w * c, h = j->src->height;                                              \
        for (int64_t y = y0; y < y1; y++) {                                                        \
            /* the three source rows themselves (replicated at the top and bottom); the sorted     \
             * columns go one pixel in, and the pixels left and right of the row repeat its        \
             * first and last (the replicated border) */                                           \
            const T *r0 =                                                                          \
                (const T *)((const uint8_t *)j->src->data + (y > 0 ? y - 1 : 0) * j->src->stride); \
            const T *r1 = (const T *)((const uint8_t *)j->src->data + y * j->src->stride);         \
            const T *r2 = (const T *)((const uint8_t *)j->src->data +                              \
                                      (y + 1 < h ? y + 1 : h - 1) * j->src->stride);               \
            int64_t p = 0;                                                                         \
            for (; p + L <= ne; p += L) {                                                          \
                V a, b, e;                                                                         \
                LOAD(a, r0 + p);                                                                   \
                LOAD(b, r1 + p);                                                                   \
                LOAD(e, r2 + p);                                                                   \
                SORT3_STORE(a, b, e, lo, mid, hi, c + p)                                           \
            }                                                                                      \
            if (p < ne) { /* the last part of a row: no read past its end */                       \
                V a, b, e;                                                                         \
                memset(&a, 0, sizeof a);                                                           \
                memset(&b, 0, sizeof b);                                                           \
                memset(&e, 0, sizeof e);                                                           \
                memcpy(&a, r0 + p, (size_t)(ne - p) * sizeof(T));                                  \
                memcpy(&b, r1 + p, (size_t)(ne - p) * sizeof(T));                                  \
                memcpy(&e, r2 + p, (size_t)(ne - p) * sizeof(T));                                  \
                SORT3_STORE(a, b, e, lo, mid, hi, c + p)                                           \
            }                                                                                      \
            for (int64_t k2 = 0; k2 < c; k2++) {                                                   \
                lo[k2] = lo[c + k2];                                                               \
                mid[k2] = mid[c + k2];                                                             \
                hi[k2] = hi[c + k2];                                                               \
                lo[c + ne + k2] = lo[ne + k2];                                                     \
                mid[c + ne + k2] = mid[ne + k2];                                                   \
                hi[c + ne + k2] = hi[ne + k2];                                                     \
            }                                                                                      \
            T *d = (T *)((uint8_t *)j->dst->data + y * j->dst->stride);                            \
            for (int64_t e0 = 0; e0 < w * c; e0 += L) {                                            \
                V l0, l1, l2, m0, m1, m2, h0, h1, h2;                                              \
                LOAD(l0, lo + e0);                                                                 \
                LOAD(l1, lo + e0 + c);                                                             \
                LOAD(l2, lo + e0 + 2 * c);                                                         \
                LOAD(m0, mid + e0);                                                                \
                LOAD(m1, mid + e0 + c);                                                            \
                LOAD(m2, mid + e0 + 2 * c);                                                        \
                LOAD(h0, hi + e0);                                                                 \
                LOAD(h1, hi + e0 + c);                                                             \
                LOAD(h2, hi + e0 + 2 * c);                                                         \
                const V lmax = VMAX(VMAX(l0, l1), l2), hmin = VMIN(VMIN(h0, h1), h2);              \
                const V mm = MED3(m0, m1, m2), v = MED3(lmax, mm, hmin);                           \
                const int64_t n = w * c - e0 < L ? w * c - e0 : L;                                 \
                if (n == L) { /* a whole vector: one store (a copy of a variable size from */      \
                    memcpy(d + e0, &v, sizeof v); /* v kept it on the stack) */                    \
                } else {                                                                           \
                    T tb[sizeof(V) / sizeof(T)];                                                   \
                    memcpy(tb, &v, sizeof v);                                                      \
                    memcpy(d + e0, tb, (size_t)n * sizeof(T));                                     \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    ATTR static void band5_##ISA##_##SFX(median_job *j, row_ring *g, void *tmp, int64_t y0,        \
                                         int64_t y1)                                               \
    {                                                                                              \
        typedef ISA##_##SFX V;                                                                     \
        (void)tmp;                                                                                 \
        const int64_t L = (int64_t)(sizeof(V) / sizeof(T)), c = j->src->channels;                  \
        const int64_t w = j->src->width;                                                           \
        for (int64_t y = y0; y < y1; y++) {                                                        \
            const T *rows[5];                                                                      \
            for (int32_t i = 0; i < 5; i++)                                                        \
                rows[i] = ring_row(g, j, y - 2 + i, sizeof(T));                                    \
            T *d = (T *)((uint8_t *)j->dst->data + y * j->dst->stride);                            \
            for (int64_t e0 = 0; e0 < w * c; e0 += L) {                                            \
                V v[25];                                                                           \
                for (int32_t i = 0; i < 5; i++)                                                    \
                    for (int32_t jx = 0; jx < 5; jx++)                                             \
                        LOAD(v[i * 5 + jx], rows[i] + e0 + jx * c);                                \
                NET25(CX)                                                                          \
                const int64_t n = w * c - e0 < L ? w * c - e0 : L;                                 \
                if (n == L) {                                                                      \
                    memcpy(d + e0, &v[12], sizeof v[12]);                                          \
                } else {                                                                           \
                    T tb[sizeof(V) / sizeof(T)];                                                   \
                    memcpy(tb, &v[12], sizeof v[12]);                                              \
                    memcpy(d + e0, tb, (size_t)n * sizeof(T));                                     \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }
#define ALL_KERNELS(ISA, ATTR)                                                                     \
    KERNELS(ISA, u8, uint8_t, ATTR)                                                                \
    KERNELS(ISA, u16, uint16_t, ATTR)                                                              \
    KERNELS(ISA, s16, int16_t, ATTR)                                                               \
    KERNELS(ISA, f32, float, ATTR)
ALL_KERNELS(v16, )
#ifdef MEDIAN_X86
ALL_KERNELS(v32, AVX2)
ALL_KERNELS(v64, AVX512)
#endif

typedef void (*band_fn)(median_job *j, row_ring *g, void *tmp, int64_t y0, int64_t y1);
#define BANDS(ISA)                                                                                 \
    {                                                                                              \
        {band3_##ISA##_u8, band3_##ISA##_u16, band3_##ISA##_s16, band3_##ISA##_f32},               \
        {                                                                                          \
            band5_##ISA##_u8, band5_##ISA##_u16, band5_##ISA##_s16, band5_##ISA##_f32              \
        }                                                                                          \
    }
static const band_fn bands_v16[2][4] = BANDS(v16);
#ifdef MEDIAN_X86
static const band_fn bands_v32[2][4] = BANDS(v32);
static const band_fn bands_v64[2][4] = BANDS(v64);
#endif

/* The widest vectors this CPU runs and the switches of core/tuning.h allow: 64, 32 or 16
 * bytes (SSE2, the baseline of x86-64). */
static int32_t vector_bytes(void)
{
#ifdef MEDIAN_X86
    const unsigned v = gip__simd();
    if (v & GIP__SIMD_AVX512)
        return 64;
    if (v & GIP__SIMD_AVX2)
        return 32;
#endif
    return 16;
}

/* A band of rows through the network kernels: the ring of padded rows and the three sorted
 * rows of the 3x3 kernel are the band's own. */
static void small_band(void *arg, int64_t y0, int64_t y1)
{
    median_job *j = arg;
    const int32_t k = j->k, vb = vector_bytes();
    const int32_t es = (int32_t)gip_dtype_size(j->src->dtype);
    const int64_t pw_bytes = (j->src->width + k - 1) * j->src->channels * es;
    row_ring g = {.slot_bytes = (pw_bytes + vb + 63) / 64 * 64};
    for (int32_t i = 0; i < 5; i++)
        g.tag[i] = INT64_MIN;
    g.buf = calloc((size_t)(k + 3), (size_t)g.slot_bytes);
    if (!g.buf) {
        atomic_store(&j->failed, 1);
        return;
    }
    const int di = j->src->dtype == GIP_U8    ? 0
                   : j->src->dtype == GIP_U16 ? 1
                   : j->src->dtype == GIP_S16 ? 2
                                              : 3;
    const band_fn(*table)[4] = bands_v16;
#ifdef MEDIAN_X86
    table = vb == 64 ? bands_v64 : vb == 32 ? bands_v32 : bands_v16;
#endif
    table[k == 5][di](j, &g, g.buf + k * g.slot_bytes, y0, y1);
    free(g.buf);
}

/* Huang's sliding histogram for u8: per row and channel, the window's histogram moves one column
 * at a time (k values out, k in) and the median moves with it: m is the smallest value with more
 * than k*k/2 values at or below it, lt the count below m. */
static void large_u8(void *arg, int64_t y0, int64_t y1)
{
    median_job *j = arg;
    const int32_t k = j->k, r = k / 2, c = j->src->channels;
    const int64_t w = j->src->width, h = j->src->height;
    const int32_t half = k * k / 2;
    const uint8_t **rows = malloc((size_t)k * sizeof *rows);
    if (!rows) {
        atomic_store(&j->failed, 1);
        return;
    }
    for (int64_t y = y0; y < y1; y++) {
        for (int32_t i = 0; i < k; i++) {
            int64_t sy = y - r + i;
            sy = sy < 0 ? 0 : sy >= h ? h - 1 : sy;
            rows[i] = (const uint8_t *)j->src->data + sy * j->src->stride;
        }
        uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
        for (int32_t ch = 0; ch < c; ch++) {
            int32_t hist[256] = {0};
            for (int32_t dx = -r; dx <= r; dx++) {
                const int64_t sx = dx < 0 ? 0 : dx >= w ? w - 1 : dx;
                for (int32_t i = 0; i < k; i++)
                    hist[rows[i][sx * c + ch]]++;
            }
            int32_t m = 0, lt = 0;
            while (lt + hist[m] <= half)
                lt += hist[m++];
            d[ch] = (uint8_t)m;
            for (int64_t x = 1; x < w; x++) {
                int64_t ox = x - 1 - r, nx = x + r;
                ox = ox < 0 ? 0 : ox;
                nx = nx >= w ? w - 1 : nx;
                for (int32_t i = 0; i < k; i++) {
                    const int32_t vo = rows[i][ox * c + ch], vn = rows[i][nx * c + ch];
                    hist[vo]--;
                    hist[vn]++;
                    lt += (vn < m) - (vo < m);
                }
                while (lt > half)
                    lt -= hist[--m];
                while (lt + hist[m] <= half)
                    lt += hist[m++];
                d[x * c + ch] = (uint8_t)m;
            }
        }
    }
    free(rows);
}

gip_status gip_median_blur(gip_context *ctx, const gip_image *src, gip_image *dst, int32_t ksize)
{
    bool on_device = false;
    gip_status st = gip__check_unary_typed(ctx, src, dst, GIP__DT_DEPTHS, OP, &on_device);
    if (st)
        return st;
    if (ksize < 1 || ksize % 2 == 0 || ksize > GIP_MEDIAN_MAX_KSIZE)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: ksize %d is invalid: an odd number in 1..%d", OP, (int)ksize,
                          GIP_MEDIAN_MAX_KSIZE);
    if (ksize > 5 && src->dtype != GIP_U8)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: ksize %d is accepted for u8 only (as cv2.medianBlur); %s takes 1, "
                          "3 or 5",
                          OP, (int)ksize, gip_dtype_name(src->dtype));
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: dst overlaps src; use separate buffers", OP);
    if (ksize == 1)
        return gip_copy(ctx, src, dst);
    if (on_device)
        return GIP__CUDA_CALL(ctx, OP, gip__median_cuda(ctx, src, dst, ksize));
    median_job j = {.src = src, .dst = dst, .k = ksize};
    atomic_init(&j.failed, 0);
    gip__parallel_for(ctx, src->height, 4, ksize > 5 ? large_u8 : small_band, &j);
    if (atomic_load(&j.failed))
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory for row buffers", OP);
    return GIP_OK;
}

static const gip_param decl[] = {
    GIP__PARAM_EX("ksize", GIP_PARAM_INT, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED | GIP_PARAM_ODD,
                  1, GIP_MEDIAN_MAX_KSIZE, 0, NULL, NULL,
                  "the window's side: 1, 3 or 5 for every dtype, up to 255 for u8", "5"),
};

typedef struct median_step {
    int32_t ksize;
} median_step;

static gip_status build(const gip_args *a, void *out)
{
    ((median_step *)out)->ksize = (int32_t)gip_args_int(a, "ksize");
    return GIP_OK;
}

static void halo(const void *params, int64_t *hx, int64_t *hy)
{
    *hx = *hy = ((const median_step *)params)->ksize / 2;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_median_blur(ctx, src, dst, ((const median_step *)p)->ksize);
}

const gip_op gip__op_median = {
    .name = "median",
    .family = "filter",
    .summary = "Median of each ksize x ksize window, as cv2.medianBlur.",
    .doc = "Each element becomes the median of its window (channels apart) with a replicated "
           "border, as OpenCV. ksize 3 and 5 for every dtype, up to 255 for u8 (a sliding "
           "histogram). Exact: equal to cv2.medianBlur and identical on CPU and CUDA.",
    .cv_name = "cv2.medianBlur",
    GIP__PARAMS(decl),
    .dtypes = GIP__DTYPES_ALL,
    .channels = GIP__CHANNELS_134,
    .params_size = sizeof(median_step),
    .build = build,
    .halo = halo,
    .border = gip__step_border_replicate,
    .run = run,
};
