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
#include "registry/registry.h"

static const char OP[] = "gip_median_blur";

/* ---- CPU ---------------------------------------------------------------------------------- */

typedef struct median_job {
    const gip_image *src;
    gip_image *dst;
    int32_t k;
    atomic_int failed;
} median_job;

#define MIN_OP(x, y) ((y) < (x) ? (y) : (x))
#define MAX_OP(x, y) ((x) < (y) ? (y) : (x))
/* 16-byte vectors of each dtype (GCC's vector extensions): a window's values stay in vector
 * registers and every compare-exchange is a vector min and max. */
typedef uint8_t vec_u8 __attribute__((vector_size(16)));
typedef uint16_t vec_u16 __attribute__((vector_size(16)));
typedef int16_t vec_s16 __attribute__((vector_size(16)));
typedef float vec_f32 __attribute__((vector_size(16)));

/* Lane-wise min and max: SSE2's instructions where the target has them, else a mask select (the
 * comparison's lanes are all ones or zeros). */
#define SELECT_MIN(a, b)                                                                           \
    ({                                                                                             \
        const __typeof__((a) < (b)) m_ = (a) < (b);                                                \
        (__typeof__(a))(((__typeof__(m_))(a)&m_) | ((__typeof__(m_))(b) & ~m_));                   \
    })
#define SELECT_MAX(a, b) SELECT_MIN(b, a)
#if defined(__SSE2__)
#include <emmintrin.h>
static inline vec_u8 min_u8(vec_u8 a, vec_u8 b)
{
    return (vec_u8)_mm_min_epu8((__m128i)a, (__m128i)b);
}
static inline vec_u8 max_u8(vec_u8 a, vec_u8 b)
{
    return (vec_u8)_mm_max_epu8((__m128i)a, (__m128i)b);
}
static inline vec_s16 min_s16(vec_s16 a, vec_s16 b)
{
    return (vec_s16)_mm_min_epi16((__m128i)a, (__m128i)b);
}
static inline vec_s16 max_s16(vec_s16 a, vec_s16 b)
{
    return (vec_s16)_mm_max_epi16((__m128i)a, (__m128i)b);
}
/* u16: a - (a -sat b) is the smaller, b + (a -sat b) the larger */
static inline vec_u16 min_u16(vec_u16 a, vec_u16 b)
{
    return (vec_u16)_mm_subs_epu16((__m128i)a, _mm_subs_epu16((__m128i)a, (__m128i)b));
}
static inline vec_u16 max_u16(vec_u16 a, vec_u16 b)
{
    return (vec_u16)_mm_adds_epu16((__m128i)b, _mm_subs_epu16((__m128i)a, (__m128i)b));
}
/* f32: minps(b, a) is a where a < b is false, the scalar (b < a ? b : a) with NaN aside */
static inline vec_f32 min_f32(vec_f32 a, vec_f32 b)
{
    return (vec_f32)_mm_min_ps((__m128)a, (__m128)b);
}
static inline vec_f32 max_f32(vec_f32 a, vec_f32 b)
{
    return (vec_f32)_mm_max_ps((__m128)a, (__m128)b);
}
#else
#define VEC_MINMAX(SFX)                                                                            \
    static inline vec_##SFX min_##SFX(vec_##SFX a, vec_##SFX b)                                    \
    {                                                                                              \
        return SELECT_MIN(a, b);                                                                   \
    }                                                                                              \
    static inline vec_##SFX max_##SFX(vec_##SFX a, vec_##SFX b)                                    \
    {                                                                                              \
        return SELECT_MAX(a, b);                                                                   \
    }
VEC_MINMAX(u8)
VEC_MINMAX(u16)
VEC_MINMAX(s16)
VEC_MINMAX(f32)
#endif

#define VMIN(x, y)                                                                                 \
    _Generic((x), vec_u8 : min_u8, vec_u16 : min_u16, vec_s16 : min_s16, vec_f32 : min_f32)(x, y)
#define VMAX(x, y)                                                                                 \
    _Generic((x), vec_u8 : max_u8, vec_u16 : max_u16, vec_s16 : max_s16, vec_f32 : max_f32)(x, y)
/* min to v[a], max to v[b] */
#define CX(a, b)                                                                                   \
    {                                                                                              \
        const __typeof__(v[0]) lo_ = VMIN(v[a], v[b]), hi_ = VMAX(v[a], v[b]);                     \
        v[a] = lo_;                                                                                \
        v[b] = hi_;                                                                                \
    }

/* Network medians: K replicated padded rows of (w + K - 1) c elements (and 16 more, so that a
 * last vector reads defined memory), then a vector of elements at a time, their K x K windows
 * through the network side by side. */
#define SMALL_IMPL(SFX, T, VT, K, NET)                                                             \
    static void small##K##_##SFX(void *arg, int64_t y0, int64_t y1)                                \
    {                                                                                              \
        median_job *j = arg;                                                                       \
        const int32_t r = K / 2, c = j->src->channels;                                             \
        const int64_t w = j->src->width, h = j->src->height, pw = (w + K - 1) * c;                 \
        T *rows = calloc((size_t)((pw + 16) * K), sizeof(T));                                      \
        if (!rows) {                                                                               \
            atomic_store(&j->failed, 1);                                                           \
            return;                                                                                \
        }                                                                                          \
        for (int64_t y = y0; y < y1; y++) {                                                        \
            for (int32_t i = 0; i < K; i++) {                                                      \
                int64_t sy = y - r + i;                                                            \
                sy = sy < 0 ? 0 : sy >= h ? h - 1 : sy;                                            \
                const T *s = (const T *)((const uint8_t *)j->src->data + sy * j->src->stride);     \
                T *p = rows + i * (pw + 16);                                                       \
                /* the row in the middle, its first and last pixels replicated at the sides */     \
                memcpy(p + (int64_t)r * c, s, (size_t)(w * c) * sizeof(T));                        \
                for (int32_t x = 0; x < r; x++)                                                    \
                    for (int32_t ch = 0; ch < c; ch++) {                                           \
                        p[x * c + ch] = s[ch];                                                     \
                        p[(r + w + x) * c + ch] = s[(w - 1) * c + ch];                             \
                    }                                                                              \
            }                                                                                      \
            T *d = (T *)((uint8_t *)j->dst->data + y * j->dst->stride);                            \
            const int64_t L = (int64_t)(16 / sizeof(T));                                           \
            for (int64_t e0 = 0; e0 < w * c; e0 += L) {                                            \
                VT v[K * K];                                                                       \
                for (int32_t i = 0; i < K; i++)                                                    \
                    for (int32_t jx = 0; jx < K; jx++)                                             \
                        memcpy(&v[i * K + jx], rows + i * (pw + 16) + e0 + (int64_t)jx * c, 16);   \
                NET(CX)                                                                            \
                const int64_t n = w * c - e0 < L ? w * c - e0 : L;                                 \
                memcpy(d + e0, &v[K * K / 2], (size_t)n * sizeof(T));                              \
            }                                                                                      \
        }                                                                                          \
        free(rows);                                                                                \
    }

SMALL_IMPL(u8, uint8_t, vec_u8, 3, NET9)
SMALL_IMPL(u16, uint16_t, vec_u16, 3, NET9)
SMALL_IMPL(s16, int16_t, vec_s16, 3, NET9)
SMALL_IMPL(f32, float, vec_f32, 3, NET9)
SMALL_IMPL(u8, uint8_t, vec_u8, 5, NET25)
SMALL_IMPL(u16, uint16_t, vec_u16, 5, NET25)
SMALL_IMPL(s16, int16_t, vec_s16, 5, NET25)
SMALL_IMPL(f32, float, vec_f32, 5, NET25)

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
    gip_status st = gip__check_unary(ctx, src, dst, OP, &on_device);
    if (st)
        return st;
    const unsigned dts = GIP__DT(GIP_U8) | GIP__DT(GIP_U16) | GIP__DT(GIP_S16) | GIP__DT(GIP_F32);
    if ((st = gip__check_dtype(ctx, src, dts, OP, "src")))
        return st;
    if (src->channels != 1 && src->channels != 3 && src->channels != 4)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: src has %d channels; 1, 3 or 4 are accepted", OP,
                          (int)src->channels);
    if (dst->dtype != src->dtype || dst->channels != src->channels)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: dst is %d-channel %s but src is %d-channel %s; they must be equal",
                          OP, (int)dst->channels, gip_dtype_name(dst->dtype), (int)src->channels,
                          gip_dtype_name(src->dtype));
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
    if (on_device) {
#ifdef GIP_HAVE_CUDA
        return gip__median_cuda(ctx, src, dst, ksize);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: gip was built without CUDA", OP);
#endif
    }
    median_job j = {.src = src, .dst = dst, .k = ksize};
    atomic_init(&j.failed, 0);
    static const gip__range_fn small[2][4] = {
        {small3_u8, small3_u16, small3_s16, small3_f32},
        {small5_u8, small5_u16, small5_s16, small5_f32},
    };
    const int di = src->dtype == GIP_U8    ? 0
                   : src->dtype == GIP_U16 ? 1
                   : src->dtype == GIP_S16 ? 2
                                           : 3;
    gip__range_fn fn = ksize > 5 ? large_u8 : small[ksize == 5][di];
    gip__parallel_for(ctx, src->height, 4, fn, &j);
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

static int32_t border(const void *params)
{
    (void)params;
    return GIP_BORDER_REPLICATE;
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
    .params = decl,
    .nparams = GIP__COUNT(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_S16) |
              GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP_CHANNELS_BIT(1) | GIP_CHANNELS_BIT(3) | GIP_CHANNELS_BIT(4),
    .params_size = sizeof(median_step),
    .build = build,
    .halo = halo,
    .border = border,
    .run = run,
};
