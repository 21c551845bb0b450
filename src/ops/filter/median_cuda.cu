/* SPDX-License-Identifier: MIT */
/* median on CUDA. ksize 3 and 5: one thread per element gathers its window into registers and
 * runs it through the median-selecting network of median_net.h (the CPU's). Larger u8 windows:
 * one thread per element of a row walks down a strip of rows with its own 256-bin histogram in
 * shared memory (Huang's sliding histogram, vertically), tracking the median as the CPU does
 * along rows. Medians are exact, so the results are the CPU's. */
#include "cuda_util.cuh"
#include "ops/filter/median.h"
#include "ops/filter/median_net.h"

namespace
{

__device__ __forceinline__ int32_t clampi(int32_t v, int32_t n)
{
    return v < 0 ? 0 : v >= n ? n - 1 : v;
}

template <typename T, int K>
__global__ void median_small(const char *src, int64_t ss, char *dst, int64_t ds, int32_t w,
                             int32_t h, int32_t c)
{
    const int32_t e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= w * c)
        return;
    const int32_t x = e / c, ch = e - x * c;
    constexpr int N = K * K, R = K / 2, HALF = N / 2;
    for (int32_t y = blockIdx.y; y < h; y += gridDim.y) {
        T v[N];
#pragma unroll
        for (int i = 0; i < K; i++) {
            const T *row = gip__row<T>(src, ss, clampi(y - R + i, h));
#pragma unroll
            for (int j = 0; j < K; j++)
                v[i * K + j] = row[clampi(x - R + j, w) * c + ch];
        }
#define CXD(a, b)                                                                                  \
    {                                                                                              \
        const T lo_ = v[b] < v[a] ? v[b] : v[a], hi_ = v[a] < v[b] ? v[b] : v[a];                  \
        v[a] = lo_;                                                                                \
        v[b] = hi_;                                                                                \
    }
        if constexpr (K == 3) {
            NET9(CXD)
        } else {
            NET25(CXD)
        }
#undef CXD
        const T med = v[HALF];
        gip__row<T>(dst, ds, y)[e] = med;
    }
}

__device__ void strip_median(const uint8_t *src, int64_t ss, uint8_t *dst, int64_t ds, int32_t w,
                             int32_t h, int32_t c, int32_t x, int32_t ch, int32_t e, int32_t r,
                             int32_t half, int32_t y0, int32_t y1, uint16_t *hist)
{
    for (int i = 0; i < 256; i++)
        hist[i] = 0;
    for (int32_t dy = -r; dy <= r; dy++) {
        const uint8_t *row = src + (int64_t)clampi(y0 + dy, h) * ss;
        for (int32_t dx = -r; dx <= r; dx++)
            hist[row[clampi(x + dx, w) * c + ch]]++;
    }
    int32_t m = 0, lt = 0;
    while (lt + hist[m] <= half)
        lt += hist[m++];
    dst[(int64_t)y0 * ds + e] = (uint8_t)m;
    for (int32_t y = y0 + 1; y < y1; y++) {
        const uint8_t *ro = src + (int64_t)clampi(y - 1 - r, h) * ss;
        const uint8_t *rn = src + (int64_t)clampi(y + r, h) * ss;
        for (int32_t dx = -r; dx <= r; dx++) {
            const int32_t sx = clampi(x + dx, w) * c + ch;
            const int32_t vo = ro[sx], vn = rn[sx];
            hist[vo]--;
            hist[vn]++;
            lt += (vn < m) - (vo < m);
        }
        while (lt > half)
            lt -= hist[--m];
        while (lt + hist[m] <= half)
            lt += hist[m++];
        dst[(int64_t)y * ds + e] = (uint8_t)m;
    }
}

constexpr int LARGE_THREADS = 64;

__global__ void median_large(const uint8_t *src, int64_t ss, uint8_t *dst, int64_t ds, int32_t w,
                             int32_t h, int32_t c, int32_t k, int32_t strip)
{
    __shared__ uint16_t hists[LARGE_THREADS * 256];
    const int32_t e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= w * c)
        return;
    uint16_t *hist = hists + threadIdx.x * 256;
    const int32_t x = e / c, ch = e - x * c, r = k / 2, half = k * k / 2;
    for (int64_t sb = blockIdx.y; sb * strip < h; sb += gridDim.y) {
        const int32_t y0 = (int32_t)(sb * strip), y1 = y0 + strip < h ? y0 + strip : h;
        strip_median(src, ss, dst, ds, w, h, c, x, ch, e, r, half, y0, y1, hist);
    }
}

template <typename T>
gip_status small(gip_context *ctx, const gip_image *src, gip_image *dst, int32_t k)
{
    const int32_t w = (int32_t)src->width, h = (int32_t)src->height, c = src->channels;
    dim3 grid(gip__div_up((int64_t)w * c, 128), (unsigned)(h < 65535 ? h : 65535));
    if (k == 3)
        median_small<T, 3><<<grid, 128, 0, gip__stream(ctx)>>>(
            (const char *)src->data, src->stride, (char *)dst->data, dst->stride, w, h, c);
    else
        median_small<T, 5><<<grid, 128, 0, gip__stream(ctx)>>>(
            (const char *)src->data, src->stride, (char *)dst->data, dst->stride, w, h, c);
    return GIP__LAUNCH_CHECK(ctx, "median kernel");
}

} // namespace

extern "C" gip_status gip__median_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                       int32_t ksize)
{
    if (ksize <= 5)
        return gip__dispatch_dtype(src->dtype, [&](auto t) {
            using T = decltype(t);
            return small<T>(ctx, src, dst, ksize);
        });
    const int32_t w = (int32_t)src->width, h = (int32_t)src->height, c = src->channels;
    /* A strip's start costs k*k histogram updates and each further row 2k: strips of at least
     * 2k rows keep the start at most half the work. */
    const int32_t strip = 2 * ksize > 64 ? 2 * ksize : 64;
    const int64_t nstrips = (h + strip - 1) / strip;
    dim3 grid(gip__div_up((int64_t)w * c, LARGE_THREADS),
              (unsigned)(nstrips < 65535 ? nstrips : 65535));
    median_large<<<grid, LARGE_THREADS, 0, gip__stream(ctx)>>>((const uint8_t *)src->data,
                                                               src->stride, (uint8_t *)dst->data,
                                                               dst->stride, w, h, c, ksize, strip);
    return GIP__LAUNCH_CHECK(ctx, "median histogram kernel");
}
