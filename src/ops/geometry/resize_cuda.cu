/* SPDX-License-Identifier: MIT */
/* resize on CUDA: the host-built plan's tables copied to the device, one thread per output
 * element (per pixel for nearest) running the arithmetic of resize.h, which the CPU runs too. */
#include "cuda_util.cuh"
#include "ops/geometry/resize.h"

__global__ void resize_kernel(gip__resize_plan p, const uint8_t *src, int64_t sstride, uint8_t *dst,
                              int64_t dstride)
{
    const int64_t per_row = p.kind == GIP__RS_NEAREST ? p.dw : p.dw * p.cn;
    for (int64_t y = blockIdx.y; y < p.dh; y += gridDim.y) {
        uint8_t *d = dst + y * dstride;
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < per_row;
             i += (int64_t)gridDim.x * blockDim.x) {
            /* A row holds far fewer than 2^32 elements: the pixel and channel in 32 bits (a 64-bit
             * division costs tens of instructions per element). */
            const uint32_t u = (uint32_t)i, cn = (uint32_t)p.cn;
            if (p.kind == GIP__RS_NEAREST)
                gip__rs_nearest(&p, src, sstride, d, y, i);
            else if (p.kind == GIP__RS_AREA_FAST)
                gip__rs_area_fast(&p, src, sstride, d, y, u / cn, (int32_t)(u % cn));
            else
                gip__rs_sep(&p, src, sstride, d, y, u / cn, (int32_t)(u % cn));
        }
    }
}

extern "C" gip_status gip__resize_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                       const gip__resize_plan *plan, const void *block,
                                       size_t bytes)
{
    gip__resize_plan p = *plan;
    cudaStream_t stream = gip__stream(ctx);
    void *dev = NULL;
    gip_status st = GIP_OK;
    if (bytes) {
        if ((st = gip__cuda_malloc(ctx, bytes, &dev)))
            return st;
        st = gip__cuda_status(ctx,
                              cudaMemcpyAsync(dev, block, bytes, cudaMemcpyHostToDevice, stream),
                              "copy of the resize tables");
        gip__rs_plan_rebase(&p, block, dev);
    }
    if (!st) {
        const int threads = 128;
        const int64_t per_row = p.kind == GIP__RS_NEAREST ? p.dw : p.dw * p.cn;
        const int64_t bx = (per_row + threads - 1) / threads;
        dim3 grid((unsigned)(bx < 4096 ? bx : 4096), (unsigned)(p.dh < 65535 ? p.dh : 65535));
        resize_kernel<<<grid, threads, 0, stream>>>(p, (const uint8_t *)src->data, src->stride,
                                                    (uint8_t *)dst->data, dst->stride);
        st = GIP__LAUNCH_CHECK(ctx, "resize kernel");
    }
    if (dev)
        gip__cuda_free(ctx, dev);
    return st;
}
