/* SPDX-License-Identifier: MIT */
/* calcHist's common case on CUDA, shared with equalizeHist and the automatic thresholds: the 256
 * bins of one channel of a u8 image without a mask (bin = value, no table). One launch: per-warp
 * counts in shared memory, each block's counts added (64-bit atomics) into the workspace's
 * accumulator, the last block to finish takes the totals (setting the accumulator back to zero)
 * and writes what the caller asked for: 64-bit counts (downloaded, or straight into mapped
 * page-locked memory), gip_calc_hist's floats in device memory (nothing downloaded, nothing
 * synchronised), or equalizeHist's table, whose pass over the image follows on the stream. */
#include <string.h>

#include "cuda_util.cuh"
#include "ops/stats/stats.h"

#define HIST_THREADS 256
#define HIST_WARPS (HIST_THREADS / 32)

/* What the last block writes (any of them may be NULL). */
struct hist_out {
    unsigned long long *u64; /* the counts */
    float *f32;              /* gip_calc_hist's floats (device memory) */
    int accumulate;          /* f32: add to the old values, rounded half to even */
    unsigned char *lut;      /* equalizeHist's table */
    long long total;         /* lut: the image's pixels */
};

/* equalize_hist.c's table, by the 256 threads of the last block; h: the (32-bit) counts as the
 * CPU sees them. The cumulative counts past the first used level come from an inclusive scan
 * (64-bit, exact), each then rounded as the CPU rounds: float product, lrintf. */
__device__ __forceinline__ void equalize_lut(unsigned h, long long total, unsigned char *lut)
{
    __shared__ unsigned long long ps[HIST_THREADS];
    __shared__ unsigned hs[HIST_THREADS];
    __shared__ int first;
    const int t = threadIdx.x;
    if (t == 0)
        first = 255;
    hs[t] = h;
    ps[t] = h;
    __syncthreads();
    if (h && t < 255)
        atomicMin(&first, t);
    for (int off = 1; off < HIST_THREADS; off <<= 1) {
        const unsigned long long v = t >= off ? ps[t - off] : 0ull;
        __syncthreads();
        ps[t] += v;
        __syncthreads();
    }
    const int i = first;
    unsigned char v = 0;
    if ((long long)hs[i] == total) {
        v = (unsigned char)i;
    } else if (t > i) {
        const float scale = __fdiv_rn(255.0f, __ll2float_rn(total - (long long)hs[i]));
        const long long sum = (long long)(ps[t] - ps[i]);
        const long long r = __float2ll_rn(__fmul_rn(__ll2float_rn(sum), scale));
        v = (unsigned char)(r < 0 ? 0 : r > 255 ? 255 : r);
    }
    lut[t] = v;
}

/* The block's per-warp counts (sh, HIST_WARPS x 256) added into acc; the last block takes the
 * totals, sets acc and the counter back to zero and writes out. */
__device__ __forceinline__ void hist_finish(const unsigned *sh, unsigned *counter,
                                            unsigned long long *acc, const hist_out &out)
{
    __shared__ bool last;
    __syncthreads();
    const int t = threadIdx.x;
    unsigned sum = 0;
#pragma unroll
    for (int k = 0; k < HIST_WARPS; k++)
        sum += sh[k * 256 + t];
    if (sum)
        atomicAdd(&acc[t], (unsigned long long)sum);
    __threadfence();
    __syncthreads();
    if (t == 0)
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last)
        return;
    __threadfence();
    const unsigned long long c = atomicExch(&acc[t], 0ull);
    if (t == 0)
        *counter = 0;
    if (out.u64)
        out.u64[t] = c;
    if (out.f32) {
        /* calc_hist.c: (float)(nearbyint(old) + (double)count), the count as its uint32_t */
        const double n = (double)(unsigned)c;
        out.f32[t] = __double2float_rn(out.accumulate ? __dadd_rn(rint((double)out.f32[t]), n) : n);
    }
    if (out.lut)
        equalize_lut((unsigned)c, out.total, out.lut);
}

__device__ __forceinline__ unsigned *hist_clear(unsigned *sh)
{
    for (int i = threadIdx.x; i < HIST_WARPS * 256; i += HIST_THREADS)
        sh[i] = 0;
    __syncthreads();
    return sh + (threadIdx.x >> 5) * 256;
}

/* Item i's 16 * NV bytes into wd, false (nothing read) where the item is a row's rest. */
template <int NV>
__device__ __forceinline__ bool hist_load(const unsigned char *src, int64_t ss, unsigned gpr,
                                          unsigned ipr, unsigned i, unsigned *wd)
{
    const unsigned y = i / ipr, g = i - y * ipr;
    if (g >= gpr)
        return false;
    const uint4 *p = reinterpret_cast<const uint4 *>(src + (int64_t)y * ss) + (size_t)g * NV;
#pragma unroll
    for (int v = 0; v < NV; v++) {
        const uint4 q = __ldg(p + v);
        wd[4 * v] = q.x;
        wd[4 * v + 1] = q.y;
        wd[4 * v + 2] = q.z;
        wd[4 * v + 3] = q.w;
    }
    return true;
}

/* Counts item i: its loaded bytes (vec) or, for a row's rest, the pixels past the groups. */
template <int CN, int CH, int NV>
__device__ __forceinline__ void hist_count(unsigned *mine, bool vec, const unsigned *wd,
                                           const unsigned char *src, int64_t ss, int64_t w,
                                           unsigned gpr, unsigned ipr, unsigned i)
{
    constexpr int P = 16 * NV / CN;
    if (vec) {
#pragma unroll
        for (int e = CH; e < 16 * NV; e += CN)
            atomicAdd(&mine[(wd[e >> 2] >> (8 * (e & 3))) & 0xffu], 1u);
    } else {
        const unsigned y = i / ipr;
        const unsigned char *row = src + (int64_t)y * ss;
        for (int64_t x = (int64_t)gpr * P; x < w; x++)
            atomicAdd(&mine[row[x * CN + CH]], 1u);
    }
}

/* Channel CH of CN-channel rows, 16-byte aligned. The work items are, row after row, the row's
 * groups of 16 * NV bytes (P pixels) and, where the row has bytes left, one item for them. Each
 * thread reads two items before counting them (twice the bytes in flight). */
template <int CN, int CH>
__global__ void __launch_bounds__(HIST_THREADS)
    hist_u8_vec(const unsigned char *src, int64_t ss, int64_t w, unsigned gpr, unsigned ipr,
                unsigned n, unsigned *counter, unsigned long long *acc, hist_out out)
{
    constexpr int NV = CN == 3 ? 3 : 1;
    __shared__ unsigned sh[HIST_WARPS * 256];
    unsigned *mine = hist_clear(sh);
    const unsigned T = gridDim.x * blockDim.x; /* n + 2 T stays below 2^32: n <= 2^30 */
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + T < n; i += 2 * T) {
        unsigned a[4 * NV], b[4 * NV];
        const bool va = hist_load<NV>(src, ss, gpr, ipr, i, a);
        const bool vb = hist_load<NV>(src, ss, gpr, ipr, i + T, b);
        hist_count<CN, CH, NV>(mine, va, a, src, ss, w, gpr, ipr, i);
        hist_count<CN, CH, NV>(mine, vb, b, src, ss, w, gpr, ipr, i + T);
    }
    if (i < n) {
        unsigned a[4 * NV];
        const bool va = hist_load<NV>(src, ss, gpr, ipr, i, a);
        hist_count<CN, CH, NV>(mine, va, a, src, ss, w, gpr, ipr, i);
    }
    hist_finish(sh, counter, acc, out);
}

/* Any channel count and alignment: one pixel per thread, rows by blocks. */
__global__ void __launch_bounds__(HIST_THREADS)
    hist_u8_any(const unsigned char *src, int64_t ss, int64_t w, int64_t h, int cn, int ch,
                unsigned *counter, unsigned long long *acc, hist_out out)
{
    __shared__ unsigned sh[HIST_WARPS * 256];
    unsigned *mine = hist_clear(sh);
    for (int64_t y = blockIdx.x; y < h; y += gridDim.x) {
        const unsigned char *row = src + y * ss;
        for (int64_t x = threadIdx.x; x < w; x += HIST_THREADS)
            atomicAdd(&mine[row[x * cn + ch]], 1u);
    }
    hist_finish(sh, counter, acc, out);
}

template <int CN, int CH>
static void launch_vec(int grid, cudaStream_t s, const gip_image *src, unsigned gpr, unsigned ipr,
                       unsigned n, unsigned *ctr, unsigned long long *acc, const hist_out &out)
{
    hist_u8_vec<CN, CH><<<grid, HIST_THREADS, 0, s>>>((const unsigned char *)src->data, src->stride,
                                                      src->width, gpr, ipr, n, ctr, acc, out);
}

/* The one launch, queued: channel `channel` of src counted into what out names. */
static gip_status hist_launch(gip_context *ctx, const gip__stats_ws &ws, const gip_image *src,
                              int32_t channel, const hist_out &out)
{
    cudaStream_t s = gip__stream(ctx);
    unsigned *ctr = (unsigned *)ws.dev + GIP__STATS_CTR_HIST;
    unsigned long long *acc = (unsigned long long *)(ws.dev + GIP__STATS_WS_ACC);
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
        /* two items a thread per pass; at most 4 blocks (8 KB of counts each) a multiprocessor */
        grid = gip__div_up(n, 2 * HIST_THREADS);
        grid = grid < 4 * (int64_t)ws.sms ? grid : 4 * (int64_t)ws.sms;
        grid = grid < 1 ? 1 : grid;
        const int g = (int)grid;
        const unsigned a = (unsigned)gpr, b = (unsigned)ipr;
        if (cn == 1)
            launch_vec<1, 0>(g, s, src, a, b, n, ctr, acc, out);
        else if (cn == 3 && channel == 0)
            launch_vec<3, 0>(g, s, src, a, b, n, ctr, acc, out);
        else if (cn == 3 && channel == 1)
            launch_vec<3, 1>(g, s, src, a, b, n, ctr, acc, out);
        else if (cn == 3)
            launch_vec<3, 2>(g, s, src, a, b, n, ctr, acc, out);
        else if (channel == 0)
            launch_vec<4, 0>(g, s, src, a, b, n, ctr, acc, out);
        else if (channel == 1)
            launch_vec<4, 1>(g, s, src, a, b, n, ctr, acc, out);
        else if (channel == 2)
            launch_vec<4, 2>(g, s, src, a, b, n, ctr, acc, out);
        else
            launch_vec<4, 3>(g, s, src, a, b, n, ctr, acc, out);
    } else {
        grid = h < 4 * (int64_t)ws.sms ? h : 4 * (int64_t)ws.sms;
        grid = grid < 1 ? 1 : grid;
        hist_u8_any<<<(int)grid, HIST_THREADS, 0, s>>>(
            (const unsigned char *)src->data, src->stride, w, h, cn, channel, ctr, acc, out);
    }
    return GIP__LAUNCH_CHECK(ctx, "histogram kernel");
}

extern "C" gip_status gip__hist_u8_channel_cuda(gip_context *ctx, const gip_image *src,
                                                int32_t channel, uint64_t hist[256])
{
    gip__stats_ws ws;
    gip_status st = gip__stats_ws_get(ctx, &ws);
    if (st)
        return st;
    cudaStream_t s = gip__stream(ctx);
    hist_out out;
    memset(&out, 0, sizeof out);
    /* the counts straight into the mapped host buffer where there is one, else downloaded */
    out.u64 = ws.host_dev ? (unsigned long long *)ws.host_dev
                          : (unsigned long long *)(ws.dev + GIP__STATS_WS_RESULT);
    st = hist_launch(ctx, ws, src, channel, out);
    if (!st && !ws.host_dev)
        st = gip__cuda_status(ctx,
                              cudaMemcpyAsync(ws.host, out.u64, 256 * sizeof(unsigned long long),
                                              cudaMemcpyDeviceToHost, s),
                              "cudaMemcpyAsync (histogram)");
    if (!st)
        st = gip__cuda_status(ctx, cudaStreamSynchronize(s), "cudaStreamSynchronize (histogram)");
    if (!st)
        memcpy(hist, ws.host, 256 * sizeof(uint64_t));
    return st;
}

extern "C" gip_status gip__calc_hist_u8_dev(gip_context *ctx, const gip_image *src, int32_t channel,
                                            float *hist, bool accumulate)
{
    gip__stats_ws ws;
    gip_status st = gip__stats_ws_get(ctx, &ws);
    if (st)
        return st;
    hist_out out;
    memset(&out, 0, sizeof out);
    out.f32 = hist;
    out.accumulate = accumulate;
    return hist_launch(ctx, ws, src, channel, out);
}

extern "C" int gip__calc_hist_device_ptr(gip_context *ctx, const void *p)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError(); /* older runtimes: not known to CUDA, so host memory */
        return 0;
    }
    if (a.type != cudaMemoryTypeDevice)
        return 0;
    return a.device == ctx->device ? 1 : -1;
}

/* ---- equalizeHist ------------------------------------------------------------------------ */

/* dst = lut[src], 16 bytes a thread: item g of row y is the row's g-th 16-byte group, or for
 * g == gpr the bytes past the groups. Rows of src and dst 16-byte aligned. */
__global__ void __launch_bounds__(256)
    equalize_apply_vec(const unsigned char *src, int64_t ss, unsigned char *dst, int64_t ds,
                       int64_t w, int64_t h, unsigned gpr, const unsigned char *lut)
{
    __shared__ unsigned char t[256];
    t[threadIdx.x] = __ldg(lut + threadIdx.x);
    __syncthreads();
    const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g > gpr)
        return;
    for (int64_t y = blockIdx.y; y < h; y += gridDim.y) {
        const unsigned char *s = src + y * ss;
        unsigned char *d = dst + y * ds;
        if (g < gpr) {
            const uint4 q = __ldg(reinterpret_cast<const uint4 *>(s) + g);
            const unsigned in[4] = {q.x, q.y, q.z, q.w};
            unsigned o[4];
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const unsigned v = in[k];
                o[k] = (unsigned)t[v & 0xffu] | (unsigned)t[(v >> 8) & 0xffu] << 8 |
                       (unsigned)t[(v >> 16) & 0xffu] << 16 | (unsigned)t[v >> 24] << 24;
            }
            reinterpret_cast<uint4 *>(d)[g] = make_uint4(o[0], o[1], o[2], o[3]);
        } else {
            for (int64_t x = (int64_t)gpr * 16; x < w; x++)
                d[x] = t[s[x]];
        }
    }
}

/* Any alignment: one pixel a thread. */
__global__ void __launch_bounds__(256)
    equalize_apply_any(const unsigned char *src, int64_t ss, unsigned char *dst, int64_t ds,
                       int64_t w, int64_t h, const unsigned char *lut)
{
    __shared__ unsigned char t[256];
    t[threadIdx.x] = __ldg(lut + threadIdx.x);
    __syncthreads();
    for (int64_t y = blockIdx.y; y < h; y += gridDim.y)
        for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < w;
             x += (int64_t)gridDim.x * blockDim.x)
            dst[y * ds + x] = t[src[y * ss + x]];
}

extern "C" gip_status gip__equalize_hist_cuda(gip_context *ctx, const gip_image *src,
                                              gip_image *dst)
{
    gip__stats_ws ws;
    gip_status st = gip__stats_ws_get(ctx, &ws);
    if (st)
        return st;
    if (src->width < 1 || src->height < 1)
        return GIP_OK;
    cudaStream_t s = gip__stream(ctx);
    unsigned char *lut = (unsigned char *)(ws.dev + GIP__STATS_WS_LUT);
    hist_out out;
    memset(&out, 0, sizeof out);
    out.lut = lut;
    out.total = (long long)(src->width * src->height);
    if ((st = hist_launch(ctx, ws, src, 0, out)))
        return st;
    const unsigned char *sp = (const unsigned char *)src->data;
    unsigned char *dp = (unsigned char *)dst->data;
    const int64_t w = src->width, h = src->height;
    const unsigned gy = (unsigned)(h < 65535 ? h : 65535);
    if ((((uintptr_t)sp | (uintptr_t)dp | (uintptr_t)src->stride | (uintptr_t)dst->stride) % 16) ==
            0 &&
        w / 16 < ((int64_t)1 << 30)) {
        const int64_t gpr = w / 16;
        const dim3 grid((unsigned)gip__div_up(gpr + 1, 256), gy);
        equalize_apply_vec<<<grid, 256, 0, s>>>(sp, src->stride, dp, dst->stride, w, h,
                                                (unsigned)gpr, lut);
    } else {
        const int64_t bx = gip__div_up(w, 256);
        const dim3 grid((unsigned)(bx < 1024 ? bx : 1024), gy);
        equalize_apply_any<<<grid, 256, 0, s>>>(sp, src->stride, dp, dst->stride, w, h, lut);
    }
    return GIP__LAUNCH_CHECK(ctx, "equalizeHist table kernel");
}
