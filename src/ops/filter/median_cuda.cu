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

/* 3x3 of u8 with 1 to 4 channels, four elements (a 32-bit word) a thread, MED3_ROWS rows a
 * thread: a row gives the words of the elements' left neighbours, themselves and their right
 * neighbours (byte permutes of the aligned words left of, at and right of the thread's; a row's
 * first and last word and its tail bytes gather them byte by byte through the border); the
 * three rows' words sorted bytewise per column (__vminu4, __vmaxu4), the median of nine is
 * med3(max of the lows, med3 of the middles, min of the highs) (exact: the columns' sorted
 * order bounds it from both sides). Needs 4-byte-aligned rows; the border replicates. */
constexpr int MED3_ROWS = 8, MED3_THREADS = 128;

struct med3_row {
    uint32_t l, c, r; /* the four elements' left neighbours, themselves, right neighbours */
};

__device__ __forceinline__ void sort3w(uint32_t &a, uint32_t &b, uint32_t &c)
{
    uint32_t t = __vminu4(a, b);
    b = __vmaxu4(a, b);
    a = t;
    t = __vminu4(b, c);
    c = __vmaxu4(b, c);
    b = t;
    t = __vminu4(a, b);
    b = __vmaxu4(a, b);
    a = t;
}

__device__ __forceinline__ uint32_t med3w(uint32_t a, uint32_t b, uint32_t c)
{
    return __vmaxu4(__vminu4(a, b), __vminu4(__vmaxu4(a, b), c));
}

/* Row sy (clamped) for word j: whole words where its neighbourhood lies in the row (edge false),
 * else byte by byte through the replicated border (elements past the row's n repeat its last). */
__device__ __forceinline__ med3_row med3_load(const char *src, int64_t ss, int32_t sy, int32_t h,
                                              int32_t j, bool edge, int32_t w, int32_t c,
                                              uint32_t sel_l, uint32_t sel_r)
{
    const char *row = src + (int64_t)clampi(sy, h) * ss;
    med3_row o;
    if (!edge) {
        const uint32_t *r = reinterpret_cast<const uint32_t *>(row);
        const uint32_t a = __ldg(r + j - 1), b = __ldg(r + j), n = __ldg(r + j + 1);
        o.l = __byte_perm(a, b, sel_l);
        o.c = b;
        o.r = __byte_perm(b, n, sel_r);
        return o;
    }
    const uint8_t *r = reinterpret_cast<const uint8_t *>(row);
    const int32_t n = w * c;
    o.l = o.c = o.r = 0;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const int32_t e = min(4 * j + i, n - 1), x = e / c, ch = e - x * c;
        o.l |= (uint32_t)__ldg(r + clampi(x - 1, w) * c + ch) << (8 * i);
        o.c |= (uint32_t)__ldg(r + e) << (8 * i);
        o.r |= (uint32_t)__ldg(r + clampi(x + 1, w) * c + ch) << (8 * i);
    }
    return o;
}

__device__ __forceinline__ uint32_t med3_out(med3_row u, med3_row m, med3_row d)
{
    sort3w(u.l, m.l, d.l);
    sort3w(u.c, m.c, d.c);
    sort3w(u.r, m.r, d.r);
    const uint32_t lo = __vmaxu4(__vmaxu4(u.l, u.c), u.r);
    const uint32_t hi = __vminu4(__vminu4(d.l, d.c), d.r);
    return med3w(lo, med3w(m.l, m.c, m.r), hi);
}

__global__ void __launch_bounds__(MED3_THREADS)
    median3_u8(const char *__restrict__ src, int64_t ss, char *__restrict__ dst, int64_t ds,
               int32_t w, int32_t h, int32_t c)
{
    const int32_t n = w * c, nw = n / 4;                     /* whole words of a row */
    const int32_t j = blockIdx.x * blockDim.x + threadIdx.x; /* word; nw: the tail bytes */
    const int32_t y0 = blockIdx.y * MED3_ROWS, y1 = min(y0 + MED3_ROWS, h);
    if (j > nw || y0 >= h || (j == nw && n % 4 == 0))
        return;
    const bool edge = j < 1 || j + 1 >= nw;
    /* byte i of the left word is byte 4 + i - c of {b:a}; of the right one, byte i + c of {n:b} */
    const uint32_t sel_l = (uint32_t)((4 - c) | (5 - c) << 4 | (6 - c) << 8 | (7 - c) << 12);
    const uint32_t sel_r = (uint32_t)(c | (c + 1) << 4 | (c + 2) << 8 | (c + 3) << 12);
    const int32_t ne = min(4, n - 4 * j); /* the thread's elements */
    med3_row up = med3_load(src, ss, y0 - 1, h, j, edge, w, c, sel_l, sel_r);
    med3_row mid = med3_load(src, ss, y0, h, j, edge, w, c, sel_l, sel_r);
    for (int32_t y = y0; y < y1; y++) {
        const med3_row down = med3_load(src, ss, y + 1, h, j, edge, w, c, sel_l, sel_r);
        const uint32_t v = med3_out(up, mid, down);
        char *d = dst + (int64_t)y * ds + 4 * (int64_t)j;
        if (ne == 4) {
            *reinterpret_cast<uint32_t *>(d) = v;
        } else {
            for (int i = 0; i < ne; i++)
                d[i] = (char)(v >> (8 * i));
        }
        up = mid;
        mid = down;
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
    const bool aligned = ((uintptr_t)src->data | (uintptr_t)dst->data) % 4 == 0 &&
                         (src->stride | dst->stride) % 4 == 0;
    if (sizeof(T) == 1 && k == 3 && c <= 4 && aligned && (h + MED3_ROWS - 1) / MED3_ROWS <= 65535) {
        const dim3 g3(gip__div_up((int64_t)w * c / 4 + 1, MED3_THREADS), gip__div_up(h, MED3_ROWS));
        median3_u8<<<g3, MED3_THREADS, 0, gip__stream(ctx)>>>(
            (const char *)src->data, src->stride, (char *)dst->data, dst->stride, w, h, c);
        return GIP__LAUNCH_CHECK(ctx, "median 3x3 word kernel");
    }
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
