/* SPDX-License-Identifier: MIT */
/* clahe on CUDA. u8: one kernel counts each tile's histogram (several blocks a tile, per-warp
 * counts in shared memory added into the tile's global counts) and the last block of a tile
 * turns it into the tile's table with gip__clahe_lut's arithmetic (clip, redistribution, scan,
 * float scale, lrintf), then the bilinear blend; everything queued, no host round trip. u16
 * (65536 bins): the tiles' histograms on the GPU (one block per tile, global counts), their
 * tables on the host with the CPU's own code, and the blend on the GPU. The blend rounds every
 * float step explicitly, as the CPU rounds it. */
#include <stdlib.h>
#include <string.h>

#include "cuda_util.cuh"
#include "ops/stats/stats.h"

__device__ __forceinline__ int64_t reflect101(int64_t p, int64_t n)
{
    if (n == 1)
        return 0;
    while (p < 0 || p >= n)
        p = p < 0 ? -p : 2 * n - 2 - p;
    return p;
}

template <typename T, bool SHARED>
__global__ void tile_hist_kernel(const char *src, int64_t ss, int64_t w, int64_t h, int64_t tile_w,
                                 int64_t tile_h, int hist_size, int ty0, int32_t *hists)
{
    __shared__ int32_t sh[SHARED ? 256 : 1];
    const int tile = blockIdx.y * gridDim.x + blockIdx.x; /* within the batch of tile rows */
    const int64_t ty = ty0 + (int64_t)blockIdx.y;
    int32_t *g = hists + (int64_t)tile * hist_size;
    if (SHARED) {
        sh[threadIdx.x] = 0;
        __syncthreads();
    }
    const int64_t n = tile_w * tile_h;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
        int64_t y = ty * tile_h + i / tile_w, x = blockIdx.x * tile_w + i % tile_w;
        const T *row = reinterpret_cast<const T *>(src + reflect101(y, h) * ss);
        int v = row[x < w ? x : reflect101(x, w)];
        if (SHARED)
            atomicAdd(&sh[v], 1);
        else
            atomicAdd(&g[v], 1);
    }
    if (SHARED) {
        __syncthreads();
        g[threadIdx.x] = sh[threadIdx.x];
    }
}

template <typename T>
__global__ void clahe_interp_kernel(const char *src, int64_t ss, char *dst, int64_t ds, int64_t w,
                                    int64_t h, const T *luts, int tiles_x, int tiles_y,
                                    int hist_size, float inv_tw, float inv_th)
{
    for (int64_t y = blockIdx.y; y < h; y += gridDim.y) {
        float tyf = __fsub_rn(__fmul_rn((float)y, inv_th), 0.5f);
        int ty1 = (int)floorf(tyf), ty2 = ty1 + 1;
        float ya = __fsub_rn(tyf, (float)ty1), ya1 = __fsub_rn(1.0f, ya);
        ty1 = ty1 > 0 ? ty1 : 0;
        ty2 = ty2 < tiles_y - 1 ? ty2 : tiles_y - 1;
        const int64_t plane = (int64_t)tiles_x * hist_size;
        const T *l1 = luts + ty1 * plane, *l2 = luts + ty2 * plane;
        const T *srow = reinterpret_cast<const T *>(src + y * ss);
        T *drow = reinterpret_cast<T *>(dst + y * ds);
        for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < w;
             x += (int64_t)gridDim.x * blockDim.x) {
            float txf = __fsub_rn(__fmul_rn((float)x, inv_tw), 0.5f);
            int tx1 = (int)floorf(txf), tx2 = tx1 + 1;
            float xa = __fsub_rn(txf, (float)tx1), xa1 = __fsub_rn(1.0f, xa);
            tx1 = tx1 > 0 ? tx1 : 0;
            tx2 = tx2 < tiles_x - 1 ? tx2 : tiles_x - 1;
            int v = srow[x];
            int64_t i1 = (int64_t)tx1 * hist_size + v, i2 = (int64_t)tx2 * hist_size + v;
            float top = __fadd_rn(__fmul_rn((float)l1[i1], xa1), __fmul_rn((float)l1[i2], xa));
            float bot = __fadd_rn(__fmul_rn((float)l2[i1], xa1), __fmul_rn((float)l2[i2], xa));
            float res = __fadd_rn(__fmul_rn(top, ya1), __fmul_rn(bot, ya));
            drow[x] = gip__saturate<T>(res);
        }
    }
}

#define CLAHE_THREADS 256
#define CLAHE_WARPS (CLAHE_THREADS / 32)

/* u8: block (tx, ty, k) counts rows k * CLAHE_WARPS + warp, + K * CLAHE_WARPS, ... of tile (tx,
 * ty) (K = gridDim.z), the image extended by reflection (101) past its right and bottom edges,
 * and adds its counts into the tile's (hists, zero before the launch). The tile's last block
 * builds its table into luts (tile-major, 256 entries each) as gip__clahe_lut does. */
__global__ void __launch_bounds__(CLAHE_THREADS)
    clahe_u8_tiles(const unsigned char *src, int64_t ss, int64_t w, int64_t h, int64_t tile_w,
                   int64_t tile_h, int clip, float lut_scale, int *hists, unsigned *counters,
                   unsigned char *luts)
{
    __shared__ unsigned sh[CLAHE_WARPS * 256];
    __shared__ bool last;
    __shared__ long long clipped_sh[CLAHE_WARPS];
    __shared__ int scan[CLAHE_THREADS];
    const int t = threadIdx.x, warp = t >> 5, lane = t & 31;
    for (int i = t; i < CLAHE_WARPS * 256; i += CLAHE_THREADS)
        sh[i] = 0;
    __syncthreads();
    unsigned *mine = sh + warp * 256;
    const int64_t tile = (int64_t)blockIdx.y * gridDim.x + blockIdx.x;
    const int64_t x0 = (int64_t)blockIdx.x * tile_w, y0 = (int64_t)blockIdx.y * tile_h;
    for (int64_t r = (int64_t)blockIdx.z * CLAHE_WARPS + warp; r < tile_h;
         r += (int64_t)gridDim.z * CLAHE_WARPS) {
        const unsigned char *row = src + reflect101(y0 + r, h) * ss;
        for (int64_t j = lane; j < tile_w; j += 32) {
            const int64_t x = x0 + j;
            atomicAdd(&mine[row[x < w ? x : reflect101(x, w)]], 1u);
        }
    }
    __syncthreads();
    int *g = hists + tile * 256;
    unsigned sum = 0;
#pragma unroll
    for (int k = 0; k < CLAHE_WARPS; k++)
        sum += sh[k * 256 + t];
    if (sum)
        atomicAdd(&g[t], (int)sum);
    __threadfence();
    __syncthreads();
    if (t == 0)
        last = atomicAdd(&counters[tile], 1u) == gridDim.z - 1;
    __syncthreads();
    if (!last)
        return;
    __threadfence();
    int hv = atomicAdd(&g[t], 0); /* the tile's whole count, from L2 */
    if (clip > 0) {
        /* clipped: the counts above the limit, summed exactly (64-bit) */
        long long c = hv > clip ? (long long)(hv - clip) : 0;
        hv = hv > clip ? clip : hv;
        for (int o = 16; o > 0; o >>= 1)
            c += __shfl_down_sync(0xffffffffu, c, o);
        if (lane == 0)
            clipped_sh[warp] = c;
        __syncthreads();
        long long clipped = 0;
        for (int k = 0; k < CLAHE_WARPS; k++)
            clipped += clipped_sh[k];
        const int batch = (int)(clipped / 256);
        const int residual = (int)(clipped - (long long)batch * 256);
        hv += batch;
        if (residual) {
            const int step = 256 / residual > 1 ? 256 / residual : 1;
            if (t % step == 0 && t / step < residual)
                hv++;
        }
    }
    /* inclusive scan of the 256 counts (int, as the CPU's sum) */
    scan[t] = hv;
    __syncthreads();
    for (int o = 1; o < CLAHE_THREADS; o <<= 1) {
        const int v = t >= o ? scan[t - o] : 0;
        __syncthreads();
        scan[t] += v;
        __syncthreads();
    }
    const long long v = __float2ll_rn(__fmul_rn(__int2float_rn(scan[t]), lut_scale));
    luts[tile * 256 + t] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* u8: everything on the device, queued. */
static gip_status clahe_u8(gip_context *ctx, const gip_image *src, gip_image *dst,
                           const gip__clahe_plan *p)
{
    cudaStream_t s = gip__stream(ctx);
    const int64_t ntiles = (int64_t)p->tiles_x * p->tiles_y;
    /* hists (int, 256 a tile), counters (one a tile), tables (256 bytes a tile) */
    const size_t hist_bytes = (size_t)ntiles * 256 * sizeof(int);
    const size_t ctr_bytes = ((size_t)ntiles * sizeof(unsigned) + 255) / 256 * 256;
    const size_t lut_bytes = (size_t)ntiles * 256;
    char *dmem = nullptr;
    gip_status st = gip__cuda_malloc(ctx, hist_bytes + ctr_bytes + lut_bytes, (void **)&dmem);
    if (st)
        return st;
    int *dh = (int *)dmem;
    unsigned *dc = (unsigned *)(dmem + hist_bytes);
    unsigned char *dl = (unsigned char *)(dmem + hist_bytes + ctr_bytes);
    st = gip__cuda_status(ctx, cudaMemsetAsync(dmem, 0, hist_bytes + ctr_bytes, s),
                          "cudaMemsetAsync (CLAHE histograms)");
    if (!st) {
        /* blocks per tile: about four blocks a multiprocessor over the grid, at least one row
         * of warps each */
        gip__stats_ws ws;
        const int64_t sms = gip__stats_ws_get(ctx, &ws) == GIP_OK ? ws.sms : 16;
        int64_t k = gip__div_up(4 * sms, ntiles);
        const int64_t kmax = gip__div_up(p->tile_h, CLAHE_WARPS);
        k = k > kmax ? kmax : k;
        k = k < 1 ? 1 : k > 64 ? 64 : k;
        const dim3 tg((unsigned)p->tiles_x, (unsigned)p->tiles_y, (unsigned)k);
        clahe_u8_tiles<<<tg, CLAHE_THREADS, 0, s>>>((const unsigned char *)src->data, src->stride,
                                                    src->width, src->height, p->tile_w, p->tile_h,
                                                    p->clip, p->lut_scale, dh, dc, dl);
        st = GIP__LAUNCH_CHECK(ctx, "CLAHE histogram kernel");
    }
    if (!st) {
        const float inv_tw = 1.0f / (float)p->tile_w, inv_th = 1.0f / (float)p->tile_h;
        int64_t bx = (src->width + 255) / 256;
        dim3 grid((unsigned)(bx < 1024 ? bx : 1024),
                  (unsigned)(src->height < 65535 ? src->height : 65535));
        clahe_interp_kernel<uint8_t><<<grid, 256, 0, s>>>(
            (const char *)src->data, src->stride, (char *)dst->data, dst->stride, src->width,
            src->height, (const uint8_t *)dl, p->tiles_x, p->tiles_y, 256, inv_tw, inv_th);
        st = GIP__LAUNCH_CHECK(ctx, "CLAHE blend kernel");
    }
    gip__cuda_free(ctx, dmem); /* in stream order, after the kernels */
    return st;
}

extern "C" gip_status gip__clahe_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                      const gip__clahe_plan *p)
{
    if (src->dtype == GIP_U8 && p->hist_size == 256 && p->tiles_y <= 65535)
        return clahe_u8(ctx, src, dst, p);
    cudaStream_t s = gip__stream(ctx);
    const int64_t ntiles = (int64_t)p->tiles_x * p->tiles_y;
    const size_t es = gip_dtype_size(src->dtype);
    /* Histograms of a batch of tile rows at a time: u16's are 256 KiB a tile. */
    const size_t row_hist = (size_t)p->tiles_x * p->hist_size * sizeof(int32_t);
    const size_t fit = ((size_t)64 << 20) / row_hist;
    const int batch = fit < 1 ? 1 : fit > (size_t)p->tiles_y ? p->tiles_y : (int)fit;
    const size_t hist_bytes = row_hist * (size_t)batch;
    const size_t lut_bytes = (size_t)ntiles * p->hist_size * es;
    char *dmem = nullptr;
    gip_status st = gip__cuda_malloc(ctx, hist_bytes + lut_bytes, (void **)&dmem);
    if (st)
        return st;
    int32_t *dh = (int32_t *)dmem;
    void *dl = dmem + hist_bytes;
    int32_t *hh = (int32_t *)malloc(hist_bytes);
    unsigned char *hl = (unsigned char *)malloc(lut_bytes);
    if (!hh || !hl) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "gip_clahe: out of host memory");
        goto out_free;
    }
    for (int ty0 = 0; ty0 < p->tiles_y; ty0 += batch) {
        const int rows = p->tiles_y - ty0 < batch ? p->tiles_y - ty0 : batch;
        dim3 tg((unsigned)p->tiles_x, (unsigned)rows);
        if (src->dtype == GIP_U8) {
            tile_hist_kernel<uint8_t, true><<<tg, 256, 0, s>>>((const char *)src->data, src->stride,
                                                               src->width, src->height, p->tile_w,
                                                               p->tile_h, p->hist_size, ty0, dh);
        } else {
            if ((st = gip__cuda_status(ctx, cudaMemsetAsync(dh, 0, row_hist * rows, s),
                                       "cudaMemsetAsync")))
                goto out_free;
            tile_hist_kernel<uint16_t, false>
                <<<tg, 256, 0, s>>>((const char *)src->data, src->stride, src->width, src->height,
                                    p->tile_w, p->tile_h, p->hist_size, ty0, dh);
        }
        if ((st = GIP__LAUNCH_CHECK(ctx, "CLAHE histogram kernel")) ||
            (st = gip__cuda_status(
                 ctx, cudaMemcpyAsync(hh, dh, row_hist * rows, cudaMemcpyDeviceToHost, s),
                 "cudaMemcpyAsync (CLAHE histograms)")) ||
            (st = gip__cuda_status(ctx, cudaStreamSynchronize(s), "cudaStreamSynchronize (CLAHE)")))
            goto out_free;
        for (int64_t k = 0; k < (int64_t)rows * p->tiles_x; k++) {
            const int64_t t = (int64_t)ty0 * p->tiles_x + k;
            gip__clahe_lut(p, hh + k * p->hist_size, hl + (size_t)t * p->hist_size * es,
                           src->dtype);
        }
    }
    if ((st = gip__cuda_status(ctx, cudaMemcpyAsync(dl, hl, lut_bytes, cudaMemcpyHostToDevice, s),
                               "cudaMemcpyAsync (CLAHE tables)")))
        goto out_free;
    {
        const float inv_tw = 1.0f / (float)p->tile_w, inv_th = 1.0f / (float)p->tile_h;
        int64_t bx = (src->width + 255) / 256;
        dim3 grid((unsigned)(bx < 1024 ? bx : 1024),
                  (unsigned)(src->height < 65535 ? src->height : 65535));
        if (src->dtype == GIP_U8)
            clahe_interp_kernel<uint8_t>
                <<<grid, 256, 0, s>>>((const char *)src->data, src->stride, (char *)dst->data,
                                      dst->stride, src->width, src->height, (const uint8_t *)dl,
                                      p->tiles_x, p->tiles_y, p->hist_size, inv_tw, inv_th);
        else
            clahe_interp_kernel<uint16_t>
                <<<grid, 256, 0, s>>>((const char *)src->data, src->stride, (char *)dst->data,
                                      dst->stride, src->width, src->height, (const uint16_t *)dl,
                                      p->tiles_x, p->tiles_y, p->hist_size, inv_tw, inv_th);
        st = GIP__LAUNCH_CHECK(ctx, "CLAHE blend kernel");
    }
    /* The tables are read by the queued blend: wait before the host copy goes. */
    if (!st)
        st = gip__cuda_status(ctx, cudaStreamSynchronize(s), "cudaStreamSynchronize (CLAHE)");
out_free:
    gip__cuda_free(ctx, dmem);
    free(hh);
    free(hl);
    return st;
}
