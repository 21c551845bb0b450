/* SPDX-License-Identifier: MIT */
/* integral on CUDA: each row scanned by one block (warp-shuffle scans, a running carry across the
 * row's chunks), then each column accumulated down the rows by one thread; s32 sums wrap modulo
 * 2^32 (unsigned arithmetic) and integer sources into f64 are exact, so both equal the CPU's.
 * The tilted image follows the CPU's recurrence row after row in one block, with the CPU's order
 * of additions, so it equals the CPU's for every depth. */
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
