/* SPDX-License-Identifier: MIT */
/* pyr_down and pyr_up on CUDA: one thread per output element running pyr.h, which the CPU runs
 * too. */
#include "cuda_util.cuh"
#include "ops/geometry/pyr.h"

__global__ void pyr_kernel(gip__pyr p, const uint8_t *src, int64_t sstride, uint8_t *dst,
                           int64_t dstride, int64_t dw, int64_t dh)
{
    const int64_t per_row = dw * p.cn;
    for (int64_t y = blockIdx.y; y < dh; y += gridDim.y)
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < per_row;
             i += (int64_t)gridDim.x * blockDim.x) {
            /* pixel and channel in 32 bits: a row holds far fewer than 2^32 elements */
            const uint32_t u = (uint32_t)i, cn = (uint32_t)p.cn;
            if (p.up)
                gip__pyr_up(&p, src, sstride, dst + y * dstride, y, u / cn, (int32_t)(u % cn));
            else
                gip__pyr_down(&p, src, sstride, dst + y * dstride, y, u / cn, (int32_t)(u % cn));
        }
}

extern "C" gip_status gip__pyr_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                    const gip__pyr *p)
{
    const int threads = 128;
    const int64_t bx = (dst->width * p->cn + threads - 1) / threads;
    dim3 grid((unsigned)(bx < 4096 ? bx : 4096),
              (unsigned)(dst->height < 65535 ? dst->height : 65535));
    pyr_kernel<<<grid, threads, 0, gip__stream(ctx)>>>(*p, (const uint8_t *)src->data, src->stride,
                                                       (uint8_t *)dst->data, dst->stride,
                                                       dst->width, dst->height);
    return GIP__LAUNCH_CHECK(ctx, "pyramid kernel");
}
