/* SPDX-License-Identifier: MIT */
/* remap on CUDA: one thread per output pixel, its position from the maps (float or fixed-point),
 * sampled by warp.h (the CPU runs the same). */
#include "cuda_util.cuh"
#include "ops/geometry/remap.h"

__global__ void remap_kernel(gip__warp w, const uint8_t *src, int64_t sstride, const uint8_t *mx,
                             int64_t mxs, const uint8_t *my, int64_t mys, uint8_t *dst,
                             int64_t dstride, int64_t dw, int64_t dh)
{
    for (int64_t y = blockIdx.y; y < dh; y += gridDim.y) {
        const float *rx = reinterpret_cast<const float *>(mx + y * mxs);
        const float *ry = reinterpret_cast<const float *>(my + y * mys);
        for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < dw;
             x += (int64_t)gridDim.x * blockDim.x)
            gip__warp_sample(&w, src, sstride, dst + y * dstride, x, rx[x], ry[x]);
    }
}

extern "C" gip_status gip__remap_cuda(gip_context *ctx, const gip_image *src, const gip_image *mapx,
                                      const gip_image *mapy, gip_image *dst, const gip__warp *w)
{
    const int threads = 128;
    const int64_t bx = (dst->width + threads - 1) / threads;
    dim3 grid((unsigned)(bx < 4096 ? bx : 4096),
              (unsigned)(dst->height < 65535 ? dst->height : 65535));
    remap_kernel<<<grid, threads, 0, gip__stream(ctx)>>>(
        *w, (const uint8_t *)src->data, src->stride, (const uint8_t *)mapx->data, mapx->stride,
        (const uint8_t *)mapy->data, mapy->stride, (uint8_t *)dst->data, dst->stride, dst->width,
        dst->height);
    return GIP__LAUNCH_CHECK(ctx, "remap kernel");
}

__global__ void remap_fixed_kernel(gip__warp w, const uint8_t *src, int64_t sstride,
                                   const uint8_t *mxy, int64_t mxys, const uint8_t *mf, int64_t mfs,
                                   uint8_t *dst, int64_t dstride, int64_t dw, int64_t dh)
{
    for (int64_t y = blockIdx.y; y < dh; y += gridDim.y) {
        const int16_t *rxy = reinterpret_cast<const int16_t *>(mxy + y * mxys);
        const uint16_t *rf = mf ? reinterpret_cast<const uint16_t *>(mf + y * mfs) : nullptr;
        for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < dw;
             x += (int64_t)gridDim.x * blockDim.x)
            gip__warp_sample_fixed(&w, src, sstride, dst + y * dstride, x, rxy[2 * x],
                                   rxy[2 * x + 1], rf ? rf[x] & 1023 : -1);
    }
}

extern "C" gip_status gip__remap_fixed_cuda(gip_context *ctx, const gip_image *src,
                                            const gip_image *mxy, const gip_image *mf,
                                            gip_image *dst, const gip__warp *w)
{
    const int threads = 128;
    const int64_t bx = (dst->width + threads - 1) / threads;
    dim3 grid((unsigned)(bx < 4096 ? bx : 4096),
              (unsigned)(dst->height < 65535 ? dst->height : 65535));
    remap_fixed_kernel<<<grid, threads, 0, gip__stream(ctx)>>>(
        *w, (const uint8_t *)src->data, src->stride, (const uint8_t *)mxy->data, mxy->stride,
        mf ? (const uint8_t *)mf->data : nullptr, mf ? mf->stride : 0, (uint8_t *)dst->data,
        dst->stride, dst->width, dst->height);
    return GIP__LAUNCH_CHECK(ctx, "remap kernel (fixed-point maps)");
}
