/* SPDX-License-Identifier: MIT */
/* gip_bayer_to_rgb on CUDA: the per-pixel functions of cvt_bayer.h shared with the CPU, four
 * pixels a thread for u8 colour output, else one thread a pixel. */
#include "color/cvt_bayer.h"
#include "cuda_util.cuh"

__global__ void bayer_kernel(gip__bayer b, char *dst, int64_t ds)
{
    const uint32_t amax = b.u16 ? 65535 : 255;
    for (int64_t y = blockIdx.y; y < b.height; y += gridDim.y) {
        char *row = dst + y * ds;
        for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < b.width;
             x += (int64_t)gridDim.x * blockDim.x) {
            uint32_t v[3];
            gip__bayer_pixel(&b, x, y, v);
            for (int c = 0; c < b.dcn; c++) {
                uint32_t e = c < 3 ? v[c] : amax;
                if (b.u16)
                    reinterpret_cast<uint16_t *>(row)[x * b.dcn + c] = (uint16_t)e;
                else
                    reinterpret_cast<uint8_t *>(row)[x * b.dcn + c] = (uint8_t)e;
            }
        }
    }
}

/* u8 bilinear and edge-aware mosaics into 3 or 4 channels, four pixels of a row a thread: the
 * 3x6 window of the four sites read once, the colours by gip__bayer_rgb (the arithmetic every
 * backend runs), stored as 4-byte words (output rows 4-byte aligned: checked by the caller). The
 * quads that touch the outer rows or columns take gip__bayer_pixel's border rule pixel by
 * pixel. */
template <int DCN> __global__ void bayer_quad_kernel(gip__bayer b, uint8_t *dst, int64_t ds)
{
    const uint32_t w = (uint32_t)b.width, h = (uint32_t)b.height, quads = (w + 3) / 4;
    const uint8_t *src = (const uint8_t *)b.data;
    for (uint32_t y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += gridDim.y * blockDim.y)
        for (uint32_t q = blockIdx.x * blockDim.x + threadIdx.x; q < quads;
             q += gridDim.x * blockDim.x) {
            const uint32_t x0 = 4 * q;
            uint8_t *row = dst + (int64_t)y * ds;
            if (y >= 1 && y + 1 < h && x0 >= 1 && x0 + 4 < w) {
                const uint8_t *r0 = src + (int64_t)(y - 1) * b.stride + (x0 - 1);
                const uint8_t *r1 = r0 + b.stride, *r2 = r1 + b.stride;
                uint32_t a0[6], a1[6], a2[6];
#pragma unroll
                for (int k = 0; k < 6; k++)
                    a0[k] = __ldg(r0 + k), a1[k] = __ldg(r1 + k), a2[k] = __ldg(r2 + k);
                const uint32_t i = y - 1;
                const int blue = (i & 1) ? -b.blue : b.blue;
                const uint32_t swg = (i & 1) ^ (uint32_t)b.green;
                uint8_t o[4 * DCN];
#pragma unroll
                for (int k = 0; k < 4; k++) {
                    const bool on_green = (((x0 + k - 1) & 1) ^ swg) != 0;
                    uint32_t v[3];
                    gip__bayer_rgb(&b, on_green, blue, a1[k + 1], a0[k + 1], a2[k + 1], a1[k],
                                   a1[k + 2], a0[k] + a0[k + 2] + a2[k] + a2[k + 2], v);
                    o[k * DCN] = (uint8_t)v[0];
                    o[k * DCN + 1] = (uint8_t)v[1];
                    o[k * DCN + 2] = (uint8_t)v[2];
                    if (DCN == 4)
                        o[k * DCN + 3] = 255;
                }
                uint32_t *out = reinterpret_cast<uint32_t *>(row + (int64_t)x0 * DCN);
#pragma unroll
                for (int k = 0; k < DCN; k++)
                    out[k] = (uint32_t)o[4 * k] | (uint32_t)o[4 * k + 1] << 8 |
                             (uint32_t)o[4 * k + 2] << 16 | (uint32_t)o[4 * k + 3] << 24;
            } else {
                for (uint32_t x = x0; x < x0 + 4 && x < w; x++) {
                    uint32_t v[3];
                    gip__bayer_pixel(&b, x, y, v);
                    for (int c = 0; c < DCN; c++)
                        row[(int64_t)x * DCN + c] = (uint8_t)(c < 3 ? v[c] : 255u);
                }
            }
        }
}

extern "C" gip_status gip__bayer_cuda(gip_context *ctx, const gip__bayer *b, gip_image *dst)
{
    if (!b->u16 && (b->method == 0 || b->method == 1) && (b->dcn == 3 || b->dcn == 4) &&
        b->width > 2 && b->height > 2 && b->width < ((int64_t)1 << 31) &&
        b->height < ((int64_t)1 << 31) &&
        ((uintptr_t)dst->data | (uintptr_t)dst->stride) % 4 == 0) {
        const dim3 block(32, 4);
        const int64_t bx = ((b->width + 3) / 4 + 31) / 32, by = (b->height + 3) / 4;
        const dim3 grid((unsigned)(bx < 65535 ? bx : 65535), (unsigned)(by < 65535 ? by : 65535));
        if (b->dcn == 3)
            bayer_quad_kernel<3>
                <<<grid, block, 0, gip__stream(ctx)>>>(*b, (uint8_t *)dst->data, dst->stride);
        else
            bayer_quad_kernel<4>
                <<<grid, block, 0, gip__stream(ctx)>>>(*b, (uint8_t *)dst->data, dst->stride);
        return GIP__LAUNCH_CHECK(ctx, "gip_bayer_to_rgb kernel");
    }
    int64_t bx = (b->width + 255) / 256;
    dim3 grid((unsigned)(bx < 65535 ? bx : 65535),
              (unsigned)(b->height < 65535 ? b->height : 65535));
    bayer_kernel<<<grid, 256, 0, gip__stream(ctx)>>>(*b, (char *)dst->data, dst->stride);
    return GIP__LAUNCH_CHECK(ctx, "gip_bayer_to_rgb kernel");
}
