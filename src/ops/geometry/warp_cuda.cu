/* SPDX-License-Identifier: MIT */
/* The warps on CUDA: one thread per output pixel running warp.h, which the CPU runs too. */
#include "cuda_util.cuh"
#include "ops/geometry/warp.h"

__global__ void warp_kernel(gip__warp w, const uint8_t *src, int64_t sstride, uint8_t *dst,
                            int64_t dstride, int64_t dw, int64_t dh)
{
    for (int64_t y = blockIdx.y; y < dh; y += gridDim.y)
        for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < dw;
             x += (int64_t)gridDim.x * blockDim.x)
            gip__warp_px(&w, src, sstride, dst + y * dstride, x, y);
}

extern "C" gip_status gip__warp_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                     const gip__warp *w)
{
    const int threads = 128;
    const int64_t bx = (dst->width + threads - 1) / threads;
    dim3 grid((unsigned)(bx < 4096 ? bx : 4096),
              (unsigned)(dst->height < 65535 ? dst->height : 65535));
    warp_kernel<<<grid, threads, 0, gip__stream(ctx)>>>(*w, (const uint8_t *)src->data, src->stride,
                                                        (uint8_t *)dst->data, dst->stride,
                                                        dst->width, dst->height);
    return GIP__LAUNCH_CHECK(ctx, "warp kernel");
}
