/* SPDX-License-Identifier: MIT */
/* The histogram of a u8 image on CUDA for the histogram thresholds: per-block counts in shared
 * memory, added into a global table of 256 counters. */
#include "cuda_util.cuh"
#include "threshold.h"

__global__ void hist_u8_kernel(const uint8_t *src, int64_t stride, int64_t w, int64_t h,
                               unsigned long long *out)
{
    __shared__ unsigned int bins[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        bins[i] = 0;
    __syncthreads();
    for (int64_t y = blockIdx.y; y < h; y += gridDim.y) {
        const uint8_t *r = src + y * stride;
        for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < w;
             x += (int64_t)gridDim.x * blockDim.x)
            atomicAdd(&bins[r[x]], 1u);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        if (bins[i])
            atomicAdd(&out[i], (unsigned long long)bins[i]);
}

extern "C" gip_status gip__hist_u8_cuda(gip_context *ctx, const gip_image *src, uint64_t hist[256])
{
    gip_image buf = {0};
    /* 256 64-bit counters: a 512 x 1 f32 image's bytes. */
    gip_status st = gip_image_alloc(ctx, &buf, 512, 1, 1, GIP_F32, GIP_MEM_CUDA, GIP_ALLOC_TIGHT);
    if (st)
        return st;
    cudaStream_t s = gip__stream(ctx);
    unsigned long long *d = (unsigned long long *)buf.data;
    st = gip__cuda_status(ctx, cudaMemsetAsync(d, 0, 256 * sizeof *d, s), "histogram clear");
    if (!st) {
        int64_t bx = (src->width + 255) / 256;
        int64_t by = src->height < 1024 ? src->height : 1024;
        dim3 grid((unsigned)(bx < 64 ? bx : 64), (unsigned)by);
        hist_u8_kernel<<<grid, 256, 0, s>>>((const uint8_t *)src->data, src->stride, src->width,
                                            src->height, d);
        st = GIP__LAUNCH_CHECK(ctx, "histogram kernel");
    }
    if (!st)
        st = gip__cuda_status(ctx,
                              cudaMemcpyAsync(hist, d, 256 * sizeof *d, cudaMemcpyDeviceToHost, s),
                              "histogram download");
    if (!st)
        st = gip__cuda_status(ctx, cudaStreamSynchronize(s), "histogram");
    gip_image_free(ctx, &buf);
    return st;
}
