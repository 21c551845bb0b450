/* SPDX-License-Identifier: MIT */
/* integral on CUDA. One-channel sums and squared sums by bands of rows (below: the column sums
 * of each band, their running sums down the bands, then each band's rows from its first); other
 * channel counts row by row (each row scanned by one block, warp-shuffle scans, a running carry
 * across the row's chunks), then each column accumulated down the rows by one thread. s32 sums
 * wrap modulo 2^32 (unsigned arithmetic) and integer sources into f64 are exact, so both equal
 * the CPU's. The tilted image follows the CPU's recurrence row after row in one block, with the
 * CPU's order of additions, so it equals the CPU's for every depth. */
#include "cuda_util.cuh"
#include "ops/stats/stats.h"

#define SCAN_THREADS 256

/* Inclusive scan of v over the block; total gets the block's sum. */
template <typename A> static __device__ A block_scan(A v, A *warp_sums, A &total)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int o = 1; o < 32; o <<= 1) {
        A n = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o)
            v += n;
    }
    if (lane == 31)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        A s = lane < SCAN_THREADS / 32 ? warp_sums[lane] : (A)0;
        for (int o = 1; o < 32; o <<= 1) {
            A n = __shfl_up_sync(0xffffffffu, s, o);
            if (lane >= o)
                s += n;
        }
        if (lane < SCAN_THREADS / 32)
            warp_sums[lane] = s;
    }
    __syncthreads();
    if (warp > 0)
        v += warp_sums[warp - 1];
    total = warp_sums[SCAN_THREADS / 32 - 1];
    __syncthreads();
    return v;
}

/* Row y of src into output row y + 1: running sums of v (SQ: v * v) in A, column 0 zero. */
template <typename T, typename A, bool SQ>
static __global__ void __launch_bounds__(SCAN_THREADS)
    integral_rows(const char *src, int64_t ss, int64_t w, int64_t h, int cn, char *out, int64_t os)
{
    __shared__ A warp_sums[SCAN_THREADS / 32];
    for (int64_t y = blockIdx.x; y < h; y += gridDim.x) {
        const T *s = reinterpret_cast<const T *>(src + y * ss);
        A *o = reinterpret_cast<A *>(out + (y + 1) * os);
        for (int c = 0; c < cn; c++) {
            A carry = 0;
            for (int64_t x0 = 0; x0 < w; x0 += SCAN_THREADS) {
                const int64_t x = x0 + threadIdx.x;
                A v = x < w ? (A)s[x * cn + c] : (A)0;
                if (SQ)
                    v = v * v;
                A total;
                A p = block_scan<A>(v, warp_sums, total);
                if (x < w)
                    o[(x + 1) * cn + c] = carry + p;
                carry += total;
            }
            if (threadIdx.x == 0)
                o[c] = 0;
        }
    }
}

/* Each column i of rows 1 .. h1 - 1 accumulated down (row 0 is zero). */
template <typename A>
static __global__ void integral_cols(char *out, int64_t os, int64_t n, int64_t h1)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    A acc = 0;
    for (int64_t y = 1; y < h1; y++) {
        A *r = reinterpret_cast<A *>(out + y * os);
        acc += r[i];
        r[i] = acc;
    }
}

/* ---- one-channel sums by bands of rows ---------------------------------------------------
 * The output rows are cut into bands of R: band b writes rows bR .. bR + R - 1 (the last band
 * stops at row h). Its first row is the integral of the input rows above it, the row-wise
 * running sum of V[b], the column sums of those rows (integral_colsum sums each band's columns,
 * integral_colscan adds them up down the bands); each next row is the row above plus the running
 * sum of its input row (OpenCV's recurrence), the row above read back from the output, which
 * this block has just written. Input read twice, output written once, three launches. Integer
 * sources into s32 (modulo 2^32) or f64 (exact) give the CPU's values; f32 results round within
 * the summation bound the tests allow. */

#define BAND_CHUNK (4 * SCAN_THREADS)

/* buf row b + 1 = the column sums (of v or v * v) of input rows bR .. bR + R - 1, for the bands
 * b < nb; buf row 0 = 0. */
template <typename T, typename A, bool SQ>
static __global__ void __launch_bounds__(SCAN_THREADS)
    integral_colsum(const char *src, int64_t ss, int64_t w, int64_t h, int64_t R, int64_t nb,
                    A *buf)
{
    const int64_t x = (int64_t)blockIdx.x * SCAN_THREADS + threadIdx.x;
    const int64_t b = blockIdx.y;
    if (x >= w)
        return;
    if (b == 0)
        buf[x] = 0;
    if (b >= nb)
        return;
    const int64_t y1 = (b + 1) * R < h ? (b + 1) * R : h;
    A s = 0;
    for (int64_t y = b * R; y < y1; y++) {
        A v = (A) reinterpret_cast<const T *>(src + y * ss)[x];
        s += SQ ? v * v : v;
    }
    buf[(b + 1) * w + x] = s;
}

/* buf rows 0 .. nb - 1 replaced by their running sums down the rows (in place): a block per 32
 * columns, its 8 warps each a run of rows, the runs' totals added in order. */
template <typename A>
static __global__ void __launch_bounds__(SCAN_THREADS)
    integral_colscan(A *buf, int64_t w, int64_t nb)
{
    constexpr int NWARP = SCAN_THREADS / 32;
    __shared__ A tot[NWARP][32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t x = (int64_t)blockIdx.x * 32 + lane;
    const int64_t seg = (nb + NWARP - 1) / NWARP;
    const int64_t b0 = warp * seg < nb ? warp * seg : nb;
    const int64_t b1 = b0 + seg < nb ? b0 + seg : nb;
    A s = 0;
    if (x < w)
        for (int64_t b = b0; b < b1; b++)
            s += buf[b * w + x];
    tot[warp][lane] = s;
    __syncthreads();
    A acc = 0;
    for (int k = 0; k < warp; k++)
        acc += tot[k][lane];
    if (x < w)
        for (int64_t b = b0; b < b1; b++) {
            acc += buf[b * w + x];
            buf[b * w + x] = acc;
        }
}

/* One output row o (w + 1 values, o[0] = 0): o[x + 1] = above[x + 1] (0 where above is NULL) plus
 * the running sum of val(x). Chunks of BAND_CHUNK values staged in shared memory (coalesced loads
 * and stores), 4 consecutive values a thread, a block scan of the threads' totals, a carry across
 * the chunks. The thread that stores o[x + 1] is the one that stored above[x + 1] (the same x for
 * every row), so it reads it back without a barrier, early, with the row's values. */
template <typename A, typename F>
static __device__ __forceinline__ void band_row(F val, int64_t w, const A *above, A *o, A *stage,
                                                A *warp_sums)
{
    const int t = threadIdx.x;
    A carry = 0;
    for (int64_t x0 = 0; x0 < w; x0 += BAND_CHUNK) {
        A up[4];
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const int64_t x = x0 + t + k * SCAN_THREADS;
            stage[t + k * SCAN_THREADS] = x < w ? val(x) : (A)0;
            up[k] = above && x < w ? above[x + 1] : (A)0;
        }
        __syncthreads();
        A v[4];
#pragma unroll
        for (int k = 0; k < 4; k++)
            v[k] = stage[4 * t + k];
        v[1] += v[0];
        v[2] += v[1];
        v[3] += v[2];
        A total;
        const A incl = block_scan<A>(v[3], warp_sums, total);
        const A before = carry + (incl - v[3]);
#pragma unroll
        for (int k = 0; k < 4; k++)
            stage[4 * t + k] = before + v[k];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const int64_t x = x0 + t + k * SCAN_THREADS;
            if (x < w)
                o[x + 1] =
                    above ? up[k] + stage[t + k * SCAN_THREADS] : stage[t + k * SCAN_THREADS];
        }
        carry += total;
        __syncthreads();
    }
    if (t == 0)
        o[0] = 0;
}

template <typename T, typename A, bool SQ>
static __global__ void __launch_bounds__(SCAN_THREADS)
    integral_band(const char *src, int64_t ss, int64_t w, int64_t h, int64_t R, const A *V,
                  char *out, int64_t os)
{
    __shared__ A stage[BAND_CHUNK];
    __shared__ A warp_sums[SCAN_THREADS / 32];
    const int64_t b = blockIdx.x, y0 = b * R;
    const int64_t y1 = y0 + R - 1 < h ? y0 + R - 1 : h;
    const A *vb = V + b * w;
    band_row<A>([&](int64_t x) { return vb[x]; }, w, (const A *)nullptr,
                reinterpret_cast<A *>(out + y0 * os), stage, warp_sums);
    for (int64_t y = y0 + 1; y <= y1; y++) {
        const T *in = reinterpret_cast<const T *>(src + (y - 1) * ss);
        band_row<A>(
            [&](int64_t x) {
                A v = (A)in[x];
                return SQ ? v * v : v;
            },
            w, reinterpret_cast<const A *>(out + (y - 1) * os), reinterpret_cast<A *>(out + y * os),
            stage, warp_sums);
    }
}

template <typename T, typename A, bool SQ>
static gip_status run_bands(gip_context *ctx, const gip_image *src, gip_array *a)
{
    gip__stats_ws ws;
    gip_status st = gip__stats_ws_get(ctx, &ws);
    if (st)
        return st;
    cudaStream_t s = gip__stream(ctx);
    const int64_t w = src->width, h = src->height;
    const int64_t os = a->stride ? a->stride : (w + 1) * (int64_t)sizeof(A);
    /* about two bands a multiprocessor */
    const int64_t bands = 2 * (int64_t)ws.sms;
    const int64_t R = h / bands + 1;
    const int64_t nbands = h / R + 1; /* bands of output rows; the first nbands - 1 sum inputs */
    A *buf = nullptr;
    if ((st = gip__cuda_malloc(ctx, (size_t)(nbands * w) * sizeof(A), (void **)&buf)))
        return st;
    dim3 g1(gip__div_up(w, SCAN_THREADS), (unsigned)(nbands > 1 ? nbands - 1 : 1));
    integral_colsum<T, A, SQ><<<g1, SCAN_THREADS, 0, s>>>((const char *)src->data, src->stride, w,
                                                          h, R, nbands - 1, buf);
    st = GIP__LAUNCH_CHECK(ctx, "integral column sums kernel");
    if (!st) {
        integral_colscan<A><<<gip__div_up(w, 32), SCAN_THREADS, 0, s>>>(buf, w, nbands);
        st = GIP__LAUNCH_CHECK(ctx, "integral column scan kernel");
    }
    if (!st) {
        integral_band<T, A, SQ><<<(unsigned)nbands, SCAN_THREADS, 0, s>>>(
            (const char *)src->data, src->stride, w, h, R, buf, (char *)a->data, os);
        st = GIP__LAUNCH_CHECK(ctx, "integral bands kernel");
    }
    gip__cuda_free(ctx, buf);
    return st;
}

/* The tilted image row after row in one block (the CPU's recurrence and order of additions). */
template <typename T, typename A>
static __global__ void __launch_bounds__(1024)
    integral_tilted(const char *src, int64_t ss, int64_t w, int64_t h, int cn, char *out,
                    int64_t os)
{
    const int64_t n = (w + 1) * cn;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
        reinterpret_cast<A *>(out)[i] = 0;
    __syncthreads();
    for (int64_t y = 1; y <= h; y++) {
        A *o = reinterpret_cast<A *>(out + y * os);
        const A *r1 = reinterpret_cast<const A *>(out + (y - 1) * os);
        const A *r2 = y >= 2 ? reinterpret_cast<const A *>(out + (y - 2) * os) : nullptr;
        const T *i1 = reinterpret_cast<const T *>(src + (y - 1) * ss);
        const T *i2 = y >= 2 ? reinterpret_cast<const T *>(src + (y - 2) * ss) : nullptr;
        for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
            const int64_t x = i / cn;
            const int c = (int)(i % cn);
            if (x == 0) {
                o[c] = w >= 1 ? r1[cn + c] : (r2 ? r2[c] : (A)0);
                continue;
            }
            A l = r1[(x - 1) * cn + c];
            A r = x < w ? r1[(x + 1) * cn + c] : (r2 ? r2[w * cn + c] : (A)0);
            A u = r2 ? r2[x * cn + c] : (A)0;
            A v = (A)i1[(x - 1) * cn + c];
            if (i2)
                v += (A)i2[(x - 1) * cn + c];
            o[i] = l + r - u + v;
        }
        __syncthreads();
    }
}

template <typename T, typename A>
static gip_status run_sum(gip_context *ctx, const gip_image *src, gip_array *a, bool sq)
{
    /* one channel, at most 2^24 bands' worth of grid: by bands */
    if (src->channels == 1 && src->width >= 1 && src->height >= 1 &&
        src->width <= ((int64_t)1 << 40) && src->height <= ((int64_t)1 << 40))
        return sq ? run_bands<T, A, true>(ctx, src, a) : run_bands<T, A, false>(ctx, src, a);
    cudaStream_t s = gip__stream(ctx);
    const int64_t w = src->width, h = src->height, cn = src->channels, n = (w + 1) * cn;
    const int64_t os = a->stride ? a->stride : n * (int64_t)sizeof(A);
    gip_status st = gip__cuda_status(ctx, cudaMemsetAsync(a->data, 0, (size_t)n * sizeof(A), s),
                                     "cudaMemsetAsync (integral)");
    if (st || h == 0)
        return st;
    const int grid = (int)(h < 8192 ? h : 8192);
    if (sq)
        integral_rows<T, A, true><<<grid, SCAN_THREADS, 0, s>>>(
            (const char *)src->data, src->stride, w, h, (int)cn, (char *)a->data, os);
    else
        integral_rows<T, A, false><<<grid, SCAN_THREADS, 0, s>>>(
            (const char *)src->data, src->stride, w, h, (int)cn, (char *)a->data, os);
    if ((st = GIP__LAUNCH_CHECK(ctx, "integral rows kernel")))
        return st;
    integral_cols<A><<<gip__div_up(n, 256), 256, 0, s>>>((char *)a->data, os, n, h + 1);
    return GIP__LAUNCH_CHECK(ctx, "integral columns kernel");
}

template <typename T, typename A>
static gip_status run_tilted(gip_context *ctx, const gip_image *src, gip_array *a)
{
    const int64_t n = (src->width + 1) * src->channels;
    const int64_t os = a->stride ? a->stride : n * (int64_t)sizeof(A);
    integral_tilted<T, A><<<1, 1024, 0, gip__stream(ctx)>>>((const char *)src->data, src->stride,
                                                            src->width, src->height, src->channels,
                                                            (char *)a->data, os);
    return GIP__LAUNCH_CHECK(ctx, "integral tilted kernel");
}

/* One output of the depth it has (the caller checked the combination). */
template <typename T>
static gip_status run_one(gip_context *ctx, const gip_image *src, gip_array *a, int kind)
{
    switch (a->depth) {
    case GIP_DEPTH_S32:
        return kind == 2 ? run_tilted<T, unsigned>(ctx, src, a)
                         : run_sum<T, unsigned>(ctx, src, a, kind == 1);
    case GIP_DEPTH_F32:
        return kind == 2 ? run_tilted<T, float>(ctx, src, a)
                         : run_sum<T, float>(ctx, src, a, kind == 1);
    default:
        return kind == 2 ? run_tilted<T, double>(ctx, src, a)
                         : run_sum<T, double>(ctx, src, a, kind == 1);
    }
}

extern "C" gip_status gip__integral_cuda(gip_context *ctx, const gip_image *src, gip_array *sum,
                                         gip_array *sqsum, gip_array *tilted)
{
    gip_array *outs[3] = {sum, sqsum, tilted};
    for (int k = 0; k < 3; k++) {
        if (!outs[k])
            continue;
        gip_status st;
        switch (src->dtype) {
        case GIP_U8:
            st = run_one<uint8_t>(ctx, src, outs[k], k);
            break;
        case GIP_U16:
            st = run_one<uint16_t>(ctx, src, outs[k], k);
            break;
        case GIP_S16:
            st = run_one<int16_t>(ctx, src, outs[k], k);
            break;
        default:
            st = run_one<float>(ctx, src, outs[k], k);
        }
        if (st)
            return st;
    }
    return GIP_OK;
}
