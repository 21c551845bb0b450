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

/* NV12/NV21 into 3 or 4 channels, four columns of two rows a thread (one chroma row serves
 * both): 4-byte loads of Y and of two UV pairs, the outputs gathered in registers and stored as
 * 4-byte words. For frames whose width is a multiple of 4 and whose planes, strides and output
 * rows are 4-byte aligned (checked by the caller); the arithmetic is gip__yuv_rgb3's. */
template <int DCN> __global__ void nv12_quad_kernel(gip__yuv_frame f, uint8_t *dst, int64_t ds)
{
    const uint32_t quads = (uint32_t)(f.width >> 2), pairs = (uint32_t)(f.height >> 1);
    const bool nv21 = f.layout == GIP_YUV_NV21;
    for (uint32_t qy = blockIdx.y * blockDim.y + threadIdx.y; qy < pairs;
         qy += gridDim.y * blockDim.y)
        for (uint32_t qx = blockIdx.x * blockDim.x + threadIdx.x; qx < quads;
             qx += gridDim.x * blockDim.x) {
            const int64_t y0 = 2 * (int64_t)qy;
            const uint32_t c = __ldg(reinterpret_cast<const uint32_t *>(
                f.data + (f.height + (int64_t)qy) * f.stride + 4 * (int64_t)qx));
            const int u0 = (int)((c >> (nv21 ? 8 : 0)) & 255u),
                      v0 = (int)((c >> (nv21 ? 0 : 8)) & 255u);
            const int u1 = (int)((c >> (nv21 ? 24 : 16)) & 255u),
                      v1 = (int)((c >> (nv21 ? 16 : 24)) & 255u);
#pragma unroll
            for (int r = 0; r < 2; r++) {
                const uint32_t yw = __ldg(reinterpret_cast<const uint32_t *>(
                    f.data + (y0 + r) * f.stride + 4 * (int64_t)qx));
                uint8_t o[4 * DCN];
#pragma unroll
                for (int k = 0; k < 4; k++) {
                    uint8_t r, g, b;
                    gip__yuv_rgb3(&f, (int)((yw >> (8 * k)) & 255u), k < 2 ? u0 : u1,
                                  k < 2 ? v0 : v1, &r, &g, &b);
                    o[k * DCN] = f.bidx ? r : b;
                    o[k * DCN + 1] = g;
                    o[k * DCN + 2] = f.bidx ? b : r;
                    if (DCN == 4)
                        o[k * DCN + 3] = 255;
                }
                uint32_t *out =
                    reinterpret_cast<uint32_t *>(dst + (y0 + r) * ds + (int64_t)qx * 4 * DCN);
#pragma unroll
                for (int k = 0; k < DCN; k++)
                    out[k] = (uint32_t)o[4 * k] | (uint32_t)o[4 * k + 1] << 8 |
                             (uint32_t)o[4 * k + 2] << 16 | (uint32_t)o[4 * k + 3] << 24;
            }
        }
}

static bool yuv_quads(const gip__yuv_frame *f, const gip_image *dst)
{
    return (f->layout == GIP_YUV_NV12 || f->layout == GIP_YUV_NV21) &&
           (f->dcn == 3 || f->dcn == 4) && f->width % 4 == 0 && f->height % 2 == 0 &&
           ((uintptr_t)f->data | (uintptr_t)f->stride | (uintptr_t)dst->data |
            (uintptr_t)dst->stride) %
                   4 ==
               0 &&
           f->width < ((int64_t)1 << 32) && f->height < ((int64_t)1 << 32);
}

extern "C" gip_status gip__yuv_to_rgb_cuda(gip_context *ctx, const gip__yuv_frame *f,
                                           gip_image *dst)
{
    if (yuv_quads(f, dst)) {
        const dim3 block(32, 4);
        const int64_t bx = (f->width / 4 + 31) / 32, by = (f->height / 2 + 3) / 4;
        const dim3 grid((unsigned)(bx < 65535 ? bx : 65535), (unsigned)(by < 65535 ? by : 65535));
        if (f->dcn == 3)
            nv12_quad_kernel<3>
                <<<grid, block, 0, gip__stream(ctx)>>>(*f, (uint8_t *)dst->data, dst->stride);
        else
            nv12_quad_kernel<4>
                <<<grid, block, 0, gip__stream(ctx)>>>(*f, (uint8_t *)dst->data, dst->stride);
        return GIP__LAUNCH_CHECK(ctx, "gip_yuv_to_rgb kernel");
    }
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
