/* SPDX-License-Identifier: MIT */
/* convert_maps on CUDA: one thread per map entry (convert_maps.h, as the CPU). */
#include "cuda_util.cuh"
#include "ops/geometry/convert_maps.h"

__global__ void convert_maps_kernel(int32_t from, const uint8_t *m1, int64_t s1, const uint8_t *m2,
                                    int64_t s2, int32_t to, uint8_t *d1, int64_t t1, uint8_t *d2,
                                    int64_t t2, int64_t w, int64_t h)
{
    for (int64_t y = blockIdx.y; y < h; y += gridDim.y)
        for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < w;
             x += (int64_t)gridDim.x * blockDim.x)
            gip__convert_map_px(from, m1 + y * s1, m2 ? m2 + y * s2 : nullptr, to, d1 + y * t1,
                                d2 ? d2 + y * t2 : nullptr, x);
}

extern "C" gip_status gip__convert_maps_cuda(gip_context *ctx, int32_t from, const gip_image *m1,
                                             const gip_image *m2, int32_t to, gip_image *d1,
                                             gip_image *d2, int64_t w, int64_t h)
{
    const int threads = 128;
    const int64_t bx = (w + threads - 1) / threads;
    dim3 grid((unsigned)(bx < 4096 ? bx : 4096), (unsigned)(h < 65535 ? h : 65535));
    convert_maps_kernel<<<grid, threads, 0, gip__stream(ctx)>>>(
        from, (const uint8_t *)m1->data, m1->stride, m2 ? (const uint8_t *)m2->data : nullptr,
        m2 ? m2->stride : 0, to, (uint8_t *)d1->data, d1->stride,
        d2 ? (uint8_t *)d2->data : nullptr, d2 ? d2->stride : 0, w, h);
    return GIP__LAUNCH_CHECK(ctx, "convert_maps kernel");
}
