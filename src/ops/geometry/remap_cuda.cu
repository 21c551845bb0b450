/* SPDX-License-Identifier: MIT */
/* remap on CUDA: bilinear u8 and f32 with 1, 3 or 4 channels from float maps four output pixels a
 * thread (warp_cuda.cuh); otherwise one thread per output pixel, its position from the maps (float
 * or fixed-point), sampled by warp.h (the CPU runs the same). */
#include "cuda_util.cuh"
#include "ops/geometry/remap.h"
#include "ops/geometry/warp_cuda.cuh"

/* Bilinear from float maps: the maps' four positions as one 16-byte load each where aligned, the
 * samples whose taps lie inside by gip__wpc_gather (all their loads together), the others by
 * gip__warp_sample (borders) afterwards. */
template <int CN, typename T>
__global__ void __launch_bounds__(GIP__WPC_BX *GIP__WPC_BY, GIP__WPC_MINB(CN))
    remap_linear_kernel(const __grid_constant__ gip__warp w, const uint8_t *__restrict__ src,
                        int64_t sstride, const uint8_t *__restrict__ mx, int64_t mxs,
                        const uint8_t *__restrict__ my, int64_t mys, uint8_t *dst, int64_t dstride,
                        int32_t dw, int32_t dh, int32_t mvec, int32_t vec)
{
    const int32_t x0 = (int32_t)((blockIdx.x * GIP__WPC_BX + threadIdx.x) * GIP__WPC_PX);
    if (x0 >= dw)
        return;
    const float lx = (float)(w.sw - 1), ly = (float)(w.sh - 1);
    const int32_t npx = dw - x0 < GIP__WPC_PX ? dw - x0 : GIP__WPC_PX;
    for (int32_t y = blockIdx.y * GIP__WPC_BY + threadIdx.y; y < dh; y += gridDim.y * GIP__WPC_BY) {
        const float *rx = reinterpret_cast<const float *>(mx + y * mxs) + x0;
        const float *ry = reinterpret_cast<const float *>(my + y * mys) + x0;
        uint8_t *drow = dst + y * dstride;
        float px[GIP__WPC_PX], py[GIP__WPC_PX];
        if (mvec && npx == GIP__WPC_PX) {
            const float4 a = __ldg(reinterpret_cast<const float4 *>(rx));
            const float4 b = __ldg(reinterpret_cast<const float4 *>(ry));
            px[0] = a.x, px[1] = a.y, px[2] = a.z, px[3] = a.w;
            py[0] = b.x, py[1] = b.y, py[2] = b.z, py[3] = b.w;
        } else {
#pragma unroll
            for (int q = 0; q < GIP__WPC_PX; q++) {
                px[q] = q < npx ? __ldg(rx + q) : 0.f;
                py[q] = q < npx ? __ldg(ry + q) : 0.f;
            }
        }
        gip__wpc_pixels<CN, T>(w, src, sstride, lx, ly, px, py, npx, drow, x0, vec);
    }
}

template <int CN, typename T>
static void remap_linear_launch(gip_context *ctx, const gip_image *src, const gip_image *mapx,
                                const gip_image *mapy, gip_image *dst, const gip__warp *w)
{
    const dim3 block(GIP__WPC_BX, GIP__WPC_BY);
    const int64_t gy = (dst->height + GIP__WPC_BY - 1) / GIP__WPC_BY;
    const dim3 grid(gip__div_up(dst->width, GIP__WPC_BX * GIP__WPC_PX),
                    (unsigned)(gy < 65535 ? gy : 65535));
    const int32_t vec = gip__wpc_vec(dst);
    const int32_t mvec = (uintptr_t)mapx->data % 16 == 0 && mapx->stride % 16 == 0 &&
                         (uintptr_t)mapy->data % 16 == 0 && mapy->stride % 16 == 0;
    remap_linear_kernel<CN, T><<<grid, block, 0, gip__stream(ctx)>>>(
        *w, (const uint8_t *)src->data, src->stride, (const uint8_t *)mapx->data, mapx->stride,
        (const uint8_t *)mapy->data, mapy->stride, (uint8_t *)dst->data, dst->stride,
        (int32_t)dst->width, (int32_t)dst->height, mvec, vec);
}

/* Launches the specialised bilinear kernel when w and the views have one; false otherwise. */
static bool remap_linear(gip_context *ctx, const gip_image *src, const gip_image *mapx,
                         const gip_image *mapy, gip_image *dst, const gip__warp *w)
{
    const int64_t esz = w->dtype == GIP_U8 ? 1 : 4, lim = (int64_t)1 << 30;
    if (w->interp != GIP_INTER_LINEAR || (w->dtype != GIP_U8 && w->dtype != GIP_F32) ||
        !gip__wpc_source_ok(src) || dst->width * w->cn * esz >= lim || dst->width * 4 >= lim ||
        w->sw * w->cn * esz >= lim || dst->height >= lim)
        return false;
#define REMAP_CN(T)                                                                                \
    switch (w->cn) {                                                                               \
    case 1:                                                                                        \
        remap_linear_launch<1, T>(ctx, src, mapx, mapy, dst, w);                                   \
        return true;                                                                               \
    case 3:                                                                                        \
        remap_linear_launch<3, T>(ctx, src, mapx, mapy, dst, w);                                   \
        return true;                                                                               \
    case 4:                                                                                        \
        remap_linear_launch<4, T>(ctx, src, mapx, mapy, dst, w);                                   \
        return true;                                                                               \
    default:                                                                                       \
        return false;                                                                              \
    }
    if (w->dtype == GIP_U8)
        REMAP_CN(uint8_t)
    else
        REMAP_CN(float)
#undef REMAP_CN
}

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
    if (remap_linear(ctx, src, mapx, mapy, dst, w))
        return GIP__LAUNCH_CHECK(ctx, "remap kernel (bilinear)");
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
