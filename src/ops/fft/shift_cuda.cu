/* SPDX-License-Identifier: MIT */
/* fftshift / ifftshift on the GPU: one thread per float of a row, reading the rotated source. */
#include "engine/fft/fft_cuda.cuh"
#include "shift.h"

__global__ void shift_kernel(const void *src, int64_t sstride, void *dst, int64_t dstride,
                             int64_t w, int64_t h, int per, int64_t ox, int64_t oy)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= w * per)
        return;
    int64_t x = i / per, k = i - x * per;
    int64_t sx = x + ox >= w ? x + ox - w : x + ox;
    for (int64_t y = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; y < h;
         y += (int64_t)gridDim.y * blockDim.y) {
        int64_t sy = y + oy >= h ? y + oy - h : y + oy;
        gip__row<float>(dst, dstride, y)[i] = gip__row<float>(src, sstride, sy)[sx * per + k];
    }
}

extern "C" gip_status gip__fftshift_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                         bool inverse)
{
    int64_t w = src->width, h = src->height;
    int64_t ox = inverse ? w / 2 : w - w / 2, oy = inverse ? h / 2 : h - h / 2;
    if (ox == w)
        ox = 0;
    if (oy == h)
        oy = 0;
    int per = src->channels * (src->dtype == GIP_C32 ? 2 : 1);
    dim3 grid, block;
    gip__fft_grid(w * per, h, &grid, &block);
    shift_kernel<<<grid, block, 0, gip__stream(ctx)>>>(src->data, src->stride, dst->data,
                                                       dst->stride, w, h, per, ox, oy);
    return GIP__LAUNCH_CHECK(ctx, "shift_kernel");
}
