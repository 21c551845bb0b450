/* SPDX-License-Identifier: MIT */
/* gip_bayer_to_rgb on CUDA: one thread per output pixel (grid-stride), the per-pixel function
 * of cvt_bayer.h shared with the CPU. */
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

extern "C" gip_status gip__bayer_cuda(gip_context *ctx, const gip__bayer *b, gip_image *dst)
{
    int64_t bx = (b->width + 255) / 256;
    dim3 grid((unsigned)(bx < 65535 ? bx : 65535),
              (unsigned)(b->height < 65535 ? b->height : 65535));
    bayer_kernel<<<grid, 256, 0, gip__stream(ctx)>>>(*b, (char *)dst->data, dst->stride);
    return GIP__LAUNCH_CHECK(ctx, "gip_bayer_to_rgb kernel");
}
