/* SPDX-License-Identifier: MIT */
/* gip_yuv_to_rgb on CUDA: one thread per output pixel (grid-stride), the per-pixel function of
 * cvt_yuv.h shared with the CPU. */
#include "color/cvt_yuv.h"
#include "cuda_util.cuh"

__global__ void yuv_kernel(gip__yuv_frame f, uint8_t *dst, int64_t ds)
{
    for (int64_t y = blockIdx.y; y < f.height; y += gridDim.y)
        for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < f.width;
             x += (int64_t)gridDim.x * blockDim.x)
            gip__yuv_pixel(&f, x, y, dst + y * ds + x * f.dcn);
}

extern "C" gip_status gip__yuv_to_rgb_cuda(gip_context *ctx, const gip__yuv_frame *f,
                                           gip_image *dst)
{
    int64_t bx = (f->width + 255) / 256;
    dim3 grid((unsigned)(bx < 65535 ? bx : 65535),
              (unsigned)(f->height < 65535 ? f->height : 65535));
    yuv_kernel<<<grid, 256, 0, gip__stream(ctx)>>>(*f, (uint8_t *)dst->data, dst->stride);
    return GIP__LAUNCH_CHECK(ctx, "gip_yuv_to_rgb kernel");
}

__global__ void yuv_enc_kernel(gip__yuv_enc e, uint8_t *dst, int64_t ds, int64_t fw, int64_t fh)
{
    for (int64_t y = blockIdx.y; y < fh; y += gridDim.y)
        for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < fw;
             x += (int64_t)gridDim.x * blockDim.x)
            dst[y * ds + x] = gip__yuv_enc_byte(&e, x, y);
}

extern "C" gip_status gip__rgb_to_yuv_cuda(gip_context *ctx, const gip__yuv_enc *e, gip_image *dst)
{
    int64_t bx = (dst->width + 255) / 256;
    dim3 grid((unsigned)(bx < 65535 ? bx : 65535),
              (unsigned)(dst->height < 65535 ? dst->height : 65535));
    yuv_enc_kernel<<<grid, 256, 0, gip__stream(ctx)>>>(*e, (uint8_t *)dst->data, dst->stride,
                                                       dst->width, dst->height);
    return GIP__LAUNCH_CHECK(ctx, "gip_rgb_to_yuv kernel");
}
