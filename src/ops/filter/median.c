/* SPDX-License-Identifier: MIT */
/* median, as cv2.medianBlur: the median of each ksize x ksize window with a replicated border.
 * The checks, the CPU backend (ksize 3 and 5: a median-selecting network of compare-exchanges
 * applied to a row's elements side by side, so that the compiler vectorises it; larger u8
 * windows: Huang's sliding histogram along the row, the median tracked as the window moves) and
 * the registry's description. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "gip/smoothing.h"
#include "ops/filter/median.h"
#include "registry/registry.h"

static const char OP[] = "gip_median_blur";

/* ---- median-selecting networks ------------------------------------------------------------ */

/* Compare-exchanges (a, b): min to a, max to b. Batcher's odd-even merge sort of 32 inputs with
 * the inputs past n taken as +infinity (their comparators never swap, so they are left out),
 * then pruned backwards to those the middle output depends on. */
typedef struct network {
    int32_t n, count;
    uint8_t a[256], b[256];
} network;

static void network_make(network *net, int32_t n)
{
    uint8_t a[512], b[512];
    int32_t m = 0;
    const int32_t N = 32;
    for (int32_t p = 1; p < N; p *= 2)
        for (int32_t k = p; k >= 1; k /= 2)
            for (int32_t j = k % p; j <= N - 1 - k; j += 2 * k)
                for (int32_t i = 0; i <= k - 1 && i <= N - j - k - 1; i++)
                    if ((i + j) / (p * 2) == (i + j + k) / (p * 2) && i + j + k < n) {
                        a[m] = (uint8_t)(i + j);
                        b[m] = (uint8_t)(i + j + k);
                        m++;
                    }
    bool need[32] = {false};
    need[n / 2] = true;
    bool keep[512];
    for (int32_t c = m - 1; c >= 0; c--) {
        keep[c] = need[a[c]] || need[b[c]];
        if (keep[c])
            need[a[c]] = need[b[c]] = true;
    }
    net->n = n;
    net->count = 0;
    for (int32_t c = 0; c < m; c++)
        if (keep[c]) {
            net->a[net->count] = a[c];
            net->b[net->count] = b[c];
            net->count++;
        }
}

static network net9, net25;
static atomic_int nets_ready;

static void networks(void)
{
    if (atomic_load(&nets_ready))
        return;
    network n9, n25;
    network_make(&n9, 9);
    network_make(&n25, 25);
    net9 = n9;
    net25 = n25;
    atomic_store(&nets_ready, 1);
}

/* ---- CPU ---------------------------------------------------------------------------------- */

typedef struct median_job {
    const gip_image *src;
    gip_image *dst;
    int32_t k;
    const network *net;
    atomic_int failed;
} median_job;

#define CHUNK 64
#define MIN_OP(x, y) ((y) < (x) ? (y) : (x))
#define MAX_OP(x, y) ((x) < (y) ? (y) : (x))

/* Network medians: k padded rows of (w + k - 1) c elements each (replicated), then each chunk
 * of elements through the network, element-wise. */
#define SMALL_IMPL(SFX, T)                                                                         \
    static void small_##SFX(void *arg, int64_t y0, int64_t y1)                                     \
    {                                                                                              \
        median_job *j = arg;                                                                       \
        const int32_t k = j->k, r = k / 2, c = j->src->channels;                                   \
        const int64_t w = j->src->width, h = j->src->height, pw = (w + k - 1) * c;                 \
        T *rows = malloc((size_t)(pw * k) * sizeof(T));                                            \
        T(*v)[CHUNK] = malloc(sizeof(T[25][CHUNK]));                                               \
        if (!rows || !v) {                                                                         \
            free(rows);                                                                            \
            free(v);                                                                               \
            atomic_store(&j->failed, 1);                                                           \
            return;                                                                                \
        }                                                                                          \
        memset(v, 0, sizeof(T[25][CHUNK])); /* a short last chunk's tail stays defined */          \
        const network *net = j->net;                                                               \
        for (int64_t y = y0; y < y1; y++) {                                                        \
            for (int32_t i = 0; i < k; i++) {                                                      \
                int64_t sy = y - r + i;                                                            \
                sy = sy < 0 ? 0 : sy >= h ? h - 1 : sy;                                            \
                const T *s = (const T *)((const uint8_t *)j->src->data + sy * j->src->stride);     \
                T *p = rows + i * pw;                                                              \
                for (int64_t x = 0; x < w + k - 1; x++) {                                          \
                    int64_t sx = x - r;                                                            \
                    sx = sx < 0 ? 0 : sx >= w ? w - 1 : sx;                                        \
                    for (int32_t ch = 0; ch < c; ch++)                                             \
                        p[x * c + ch] = s[sx * c + ch];                                            \
                }                                                                                  \
            }                                                                                      \
            T *d = (T *)((uint8_t *)j->dst->data + y * j->dst->stride);                            \
            for (int64_t e0 = 0; e0 < w * c; e0 += CHUNK) {                                        \
                const int64_t n = w * c - e0 < CHUNK ? w * c - e0 : CHUNK;                         \
                for (int32_t i = 0; i < k; i++)                                                    \
                    for (int32_t jx = 0; jx < k; jx++)                                             \
                        memcpy(v[i * k + jx], rows + i * pw + e0 + (int64_t)jx * c,                \
                               (size_t)n * sizeof(T));                                             \
                for (int32_t q = 0; q < net->count; q++) {                                         \
                    T *va = v[net->a[q]], *vb = v[net->b[q]];                                      \
                    for (int64_t e = 0; e < CHUNK; e++) {                                          \
                        const T lo = MIN_OP(va[e], vb[e]), hi = MAX_OP(va[e], vb[e]);              \
                        va[e] = lo;                                                                \
                        vb[e] = hi;                                                                \
                    }                                                                              \
                }                                                                                  \
                memcpy(d + e0, v[net->n / 2], (size_t)n * sizeof(T));                              \
            }                                                                                      \
        }                                                                                          \
        free(rows);                                                                                \
        free(v);                                                                                   \
    }

SMALL_IMPL(u8, uint8_t)
SMALL_IMPL(u16, uint16_t)
SMALL_IMPL(s16, int16_t)
SMALL_IMPL(f32, float)

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
    networks();
    median_job j = {.src = src, .dst = dst, .k = ksize, .net = ksize == 3 ? &net9 : &net25};
    atomic_init(&j.failed, 0);
    gip__range_fn fn = ksize > 5               ? large_u8
                       : src->dtype == GIP_U8  ? small_u8
                       : src->dtype == GIP_U16 ? small_u16
                       : src->dtype == GIP_S16 ? small_s16
                                               : small_f32;
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
