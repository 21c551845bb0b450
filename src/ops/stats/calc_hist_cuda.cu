/* SPDX-License-Identifier: MIT */
/* calcHist's common case on CUDA, shared with equalizeHist and the automatic thresholds: the 256
 * bins of one channel of a u8 image without a mask (bin = value, no table). One launch: per-warp
 * counts in shared memory, each block's counts to the workspace, the last block to finish adds
 * them up; then one download into page-locked memory. */
#include <string.h>

#include "cuda_util.cuh"
#include "ops/stats/stats.h"

#define HIST_THREADS 256
#define HIST_WARPS (HIST_THREADS / 32)

/* The block's per-warp counts (sh, HIST_WARPS x 256) added up into parts[blockIdx.x]; the last
 * block adds every block's into result (64-bit) and sets the counter back to zero. */
__device__ __forceinline__ void hist_finish(const unsigned *sh, unsigned *parts, unsigned *counter,
                                            unsigned long long *result)
{
    __shared__ bool last;
    __syncthreads();
    const int t = threadIdx.x;
    unsigned sum = 0;
#pragma unroll
    for (int k = 0; k < HIST_WARPS; k++)
        sum += sh[k * 256 + t];
    parts[(size_t)blockIdx.x * 256 + t] = sum;
    __threadfence();
    __syncthreads();
    if (t == 0)
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last)
        return;
    __threadfence();
    unsigned long long total = 0;
    for (unsigned b = 0; b < gridDim.x; b++)
        total += __ldcg(&parts[(size_t)b * 256 + t]);
    result[t] = total;
    if (t == 0)
        *counter = 0;
}

__device__ __forceinline__ unsigned *hist_clear(unsigned *sh)
{
    for (int i = threadIdx.x; i < HIST_WARPS * 256; i += HIST_THREADS)
        sh[i] = 0;
    __syncthreads();
    return sh + (threadIdx.x >> 5) * 256;
}

/* Channel CH of CN-channel rows, 16-byte aligned. The work items are, row after row, the row's
 * groups of 16 * NV bytes (P pixels) and, where the row has bytes left, one item for them. */
template <int CN, int CH>
__global__ void __launch_bounds__(HIST_THREADS)
    hist_u8_vec(const unsigned char *src, int64_t ss, int64_t w, unsigned gpr, unsigned ipr,
                unsigned n, unsigned *parts, unsigned *counter, unsigned long long *result)
{
    constexpr int NV = CN == 3 ? 3 : 1;
    constexpr int P = 16 * NV / CN;
    __shared__ unsigned sh[HIST_WARPS * 256];
    unsigned *mine = hist_clear(sh);
    const unsigned T = gridDim.x * blockDim.x;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += T) {
        const unsigned y = i / ipr, g = i - y * ipr;
        const unsigned char *row = src + (int64_t)y * ss;
        if (g < gpr) {
            const uint4 *p = reinterpret_cast<const uint4 *>(row) + (size_t)g * NV;
            unsigned wd[4 * NV];
#pragma unroll
            for (int v = 0; v < NV; v++) {
                const uint4 q = __ldg(p + v);
                wd[4 * v] = q.x;
                wd[4 * v + 1] = q.y;
                wd[4 * v + 2] = q.z;
                wd[4 * v + 3] = q.w;
            }
#pragma unroll
            for (int e = CH; e < 16 * NV; e += CN)
                atomicAdd(&mine[(wd[e >> 2] >> (8 * (e & 3))) & 0xffu], 1u);
        } else {
            for (int64_t x = (int64_t)gpr * P; x < w; x++)
                atomicAdd(&mine[row[x * CN + CH]], 1u);
        }
    }
    hist_finish(sh, parts, counter, result);
}

/* Any channel count and alignment: one pixel per thread, rows by blocks. */
__global__ void __launch_bounds__(HIST_THREADS)
    hist_u8_any(const unsigned char *src, int64_t ss, int64_t w, int64_t h, int cn, int ch,
                unsigned *parts, unsigned *counter, unsigned long long *result)
{
    __shared__ unsigned sh[HIST_WARPS * 256];
    unsigned *mine = hist_clear(sh);
    for (int64_t y = blockIdx.x; y < h; y += gridDim.x) {
        const unsigned char *row = src + y * ss;
        for (int64_t x = threadIdx.x; x < w; x += HIST_THREADS)
            atomicAdd(&mine[row[x * cn + ch]], 1u);
    }
    hist_finish(sh, parts, counter, result);
}

template <int CN, int CH>
static void launch_vec(int grid, cudaStream_t s, const gip_image *src, unsigned gpr, unsigned ipr,
                       unsigned n, unsigned *parts, unsigned *ctr, unsigned long long *res)
{
    hist_u8_vec<CN, CH><<<grid, HIST_THREADS, 0, s>>>((const unsigned char *)src->data, src->stride,
                                                      src->width, gpr, ipr, n, parts, ctr, res);
}

extern "C" gip_status gip__hist_u8_channel_cuda(gip_context *ctx, const gip_image *src,
                                                int32_t channel, uint64_t hist[256])
{
    gip__stats_ws ws;
    gip_status st = gip__stats_ws_get(ctx, &ws);
    if (st)
        return st;
    cudaStream_t s = gip__stream(ctx);
    unsigned *ctr = (unsigned *)ws.dev + GIP__STATS_CTR_HIST;
    /* the counts straight into the mapped host buffer where there is one, else downloaded */
    unsigned long long *res = ws.host_dev ? (unsigned long long *)ws.host_dev
                                          : (unsigned long long *)(ws.dev + GIP__STATS_WS_RESULT);
    unsigned *parts = (unsigned *)(ws.dev + GIP__STATS_WS_PARTS);
    const int cn = src->channels;
    const int64_t w = src->width, h = src->height;
    const int64_t p = cn == 4 ? 4 : 16; /* pixels per group */
    const int64_t gpr = w / p, ipr = gpr + (w % p != 0);
    const bool vec = (cn == 1 || cn == 3 || cn == 4) && channel >= 0 && channel < cn && w >= 1 &&
                     h >= 1 && ((uintptr_t)src->data | (uintptr_t)src->stride) % 16 == 0 &&
                     ipr <= ((int64_t)1 << 30) / h;
    int64_t grid;
    if (vec) {
        const unsigned n = (unsigned)(ipr * h);
        grid = gip__div_up(n, 2 * HIST_THREADS);
        grid = grid < 4 * (int64_t)ws.sms ? grid : 4 * (int64_t)ws.sms;
        grid = grid < GIP__STATS_WS_BLOCKS ? grid : GIP__STATS_WS_BLOCKS;
        const int g = (int)grid;
        const unsigned a = (unsigned)gpr, b = (unsigned)ipr;
        if (cn == 1)
            launch_vec<1, 0>(g, s, src, a, b, n, parts, ctr, res);
        else if (cn == 3 && channel == 0)
            launch_vec<3, 0>(g, s, src, a, b, n, parts, ctr, res);
        else if (cn == 3 && channel == 1)
            launch_vec<3, 1>(g, s, src, a, b, n, parts, ctr, res);
        else if (cn == 3)
            launch_vec<3, 2>(g, s, src, a, b, n, parts, ctr, res);
        else if (channel == 0)
            launch_vec<4, 0>(g, s, src, a, b, n, parts, ctr, res);
        else if (channel == 1)
            launch_vec<4, 1>(g, s, src, a, b, n, parts, ctr, res);
        else if (channel == 2)
            launch_vec<4, 2>(g, s, src, a, b, n, parts, ctr, res);
        else
            launch_vec<4, 3>(g, s, src, a, b, n, parts, ctr, res);
    } else {
        grid = h < 4 * (int64_t)ws.sms ? h : 4 * (int64_t)ws.sms;
        grid = grid < GIP__STATS_WS_BLOCKS ? grid : GIP__STATS_WS_BLOCKS;
        grid = grid < 1 ? 1 : grid;
        hist_u8_any<<<(int)grid, HIST_THREADS, 0, s>>>(
            (const unsigned char *)src->data, src->stride, w, h, cn, channel, parts, ctr, res);
    }
    st = GIP__LAUNCH_CHECK(ctx, "histogram kernel");
    if (!st && !ws.host_dev)
        st = gip__cuda_status(ctx,
                              cudaMemcpyAsync(ws.host, res, 256 * sizeof(unsigned long long),
                                              cudaMemcpyDeviceToHost, s),
                              "cudaMemcpyAsync (histogram)");
    if (!st)
        st = gip__cuda_status(ctx, cudaStreamSynchronize(s), "cudaStreamSynchronize (histogram)");
    if (!st)
        memcpy(hist, ws.host, 256 * sizeof(uint64_t));
    return st;
}
