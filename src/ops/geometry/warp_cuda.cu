/* SPDX-License-Identifier: MIT */
/* The warps on CUDA: bilinear u8 and f32 with 1, 3 or 4 channels four output pixels a thread
 * (warp_cuda.cuh), everything else one thread per output pixel running warp.h (Lanczos:
 * warp_lanczos.h), which the CPU runs too. */
#include <pthread.h>

#include "cuda_util.cuh"
#include "ops/geometry/warp.h"
#include "ops/geometry/warp_cuda.cuh"
#include "ops/geometry/warp_lanczos.h"

/* Bilinear warps: each pixel's source position as gip__warp_px computes it, the samples whose
 * taps lie inside by gip__wpc_gather (all their loads together), the others by
 * gip__warp_sample (borders) afterwards. */
template <int CN, typename T, bool PERSP>
__global__ void __launch_bounds__(GIP__WPC_BX *GIP__WPC_BY, GIP__WPC_MINB(CN))
    warp_linear_kernel(const __grid_constant__ gip__warp w, const uint8_t *__restrict__ src,
                       int64_t sstride, uint8_t *dst, int64_t dstride, int32_t dw, int32_t dh,
                       int32_t vec)
{
    const int32_t x0 = (int32_t)((blockIdx.x * GIP__WPC_BX + threadIdx.x) * GIP__WPC_PX);
    if (x0 >= dw)
        return;
    const float lx = (float)(w.sw - 1), ly = (float)(w.sh - 1);
    const int32_t vec_end = (int32_t)w.vec_end;
    const int32_t npx = dw - x0 < GIP__WPC_PX ? dw - x0 : GIP__WPC_PX;
    for (int32_t y = blockIdx.y * GIP__WPC_BY + threadIdx.y; y < dh; y += gridDim.y * GIP__WPC_BY) {
        uint8_t *drow = dst + y * dstride;
        const float fyd = (float)y;
        /* the row's parts of the positions, as gip__warp_px makes them */
        const float ax = __fadd_rn(__fmul_rn(fyd, w.m[1]), w.m[2]);
        const float ay = __fadd_rn(__fmul_rn(fyd, w.m[4]), w.m[5]);
        const float aw = PERSP ? __fadd_rn(__fmul_rn(fyd, w.m[7]), w.m[8]) : 1.f;
        const float bx = __fmul_rn(fyd, w.m[1]), by = __fmul_rn(fyd, w.m[4]);
        const float bw = PERSP ? __fmul_rn(fyd, w.m[7]) : 0.f;
        float px[GIP__WPC_PX], py[GIP__WPC_PX];
#pragma unroll
        for (int q = 0; q < GIP__WPC_PX; q++) {
            const float fxd = (float)(x0 + q);
            float sx, sy;
            if (x0 + q < vec_end) {
                sx = __fmaf_rn(w.m[0], fxd, ax);
                sy = __fmaf_rn(w.m[3], fxd, ay);
                if (PERSP) {
                    const float ww = __fmaf_rn(w.m[6], fxd, aw);
                    sx = __fdiv_rn(sx, ww);
                    sy = __fdiv_rn(sy, ww);
                }
            } else {
                sx = __fadd_rn(__fmaf_rn(fxd, w.m[0], bx), w.m[2]);
                sy = __fadd_rn(__fmaf_rn(fxd, w.m[3], by), w.m[5]);
                if (PERSP) {
                    const float ww = __fadd_rn(__fmaf_rn(fxd, w.m[6], bw), w.m[8]);
                    sx = __fdiv_rn(sx, ww);
                    sy = __fdiv_rn(sy, ww);
                }
            }
            px[q] = sx;
            py[q] = sy;
        }
        gip__wpc_pixels<CN, T>(w, src, sstride, lx, ly, px, py, npx, drow, x0, vec);
    }
}

template <int CN, typename T>
static void warp_linear_launch(gip_context *ctx, const gip_image *src, gip_image *dst,
                               const gip__warp *w)
{
    const dim3 block(GIP__WPC_BX, GIP__WPC_BY);
    const int64_t gy = (dst->height + GIP__WPC_BY - 1) / GIP__WPC_BY;
    const dim3 grid(gip__div_up(dst->width, GIP__WPC_BX * GIP__WPC_PX),
                    (unsigned)(gy < 65535 ? gy : 65535));
    const int32_t vec = gip__wpc_vec(dst);
    if (w->persp)
        warp_linear_kernel<CN, T, true><<<grid, block, 0, gip__stream(ctx)>>>(
            *w, (const uint8_t *)src->data, src->stride, (uint8_t *)dst->data, dst->stride,
            (int32_t)dst->width, (int32_t)dst->height, vec);
    else
        warp_linear_kernel<CN, T, false><<<grid, block, 0, gip__stream(ctx)>>>(
            *w, (const uint8_t *)src->data, src->stride, (uint8_t *)dst->data, dst->stride,
            (int32_t)dst->width, (int32_t)dst->height, vec);
}

/* Launches the specialised bilinear kernel when w and the views have one; false otherwise. */
static bool warp_linear(gip_context *ctx, const gip_image *src, gip_image *dst, const gip__warp *w)
{
    const int64_t esz = w->dtype == GIP_U8 ? 1 : 4, lim = (int64_t)1 << 30;
    if (w->interp != GIP_INTER_LINEAR || (w->dtype != GIP_U8 && w->dtype != GIP_F32) ||
        !gip__wpc_source_ok(src) || dst->width * w->cn * esz >= lim || w->sw * w->cn * esz >= lim ||
        dst->height >= lim)
        return false;
#define WARP_CN(T)                                                                                 \
    switch (w->cn) {                                                                               \
    case 1:                                                                                        \
        warp_linear_launch<1, T>(ctx, src, dst, w);                                                \
        return true;                                                                               \
    case 3:                                                                                        \
        warp_linear_launch<3, T>(ctx, src, dst, w);                                                \
        return true;                                                                               \
    case 4:                                                                                        \
        warp_linear_launch<4, T>(ctx, src, dst, w);                                                \
        return true;                                                                               \
    default:                                                                                       \
        return false;                                                                              \
    }
    if (w->dtype == GIP_U8)
        WARP_CN(uint8_t)
    else
        WARP_CN(float)
#undef WARP_CN
}

__global__ void warp_kernel(gip__warp w, const uint8_t *src, int64_t sstride, uint8_t *dst,
                            int64_t dstride, int64_t dw, int64_t dh)
{
    for (int64_t y = blockIdx.y; y < dh; y += gridDim.y)
        for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < dw;
             x += (int64_t)gridDim.x * blockDim.x)
            gip__warp_px(&w, src, sstride, dst + y * dstride, x, y);
}

extern "C" gip_status gip__warp_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                     const gip__warp *w)
{
    if (warp_linear(ctx, src, dst, w))
        return GIP__LAUNCH_CHECK(ctx, "warp kernel (bilinear)");
    const int threads = 128;
    const int64_t bx = (dst->width + threads - 1) / threads;
    dim3 grid((unsigned)(bx < 4096 ? bx : 4096),
              (unsigned)(dst->height < 65535 ? dst->height : 65535));
    warp_kernel<<<grid, threads, 0, gip__stream(ctx)>>>(*w, (const uint8_t *)src->data, src->stride,
                                                        (uint8_t *)dst->data, dst->stride,
                                                        dst->width, dst->height);
    return GIP__LAUNCH_CHECK(ctx, "warp kernel");
}

/* ---- Lanczos-4 (warp_lanczos.h): the tables uploaded once per device ---------------------- */

static pthread_mutex_t lz_mu = PTHREAD_MUTEX_INITIALIZER;
static void *lz_dev[64]; /* per device: 1024 * 64 floats, then 1024 * 64 s16 */

extern "C" gip_status gip__lanczos_tabs_cuda(gip_context *ctx, gip__lz_tabs *t)
{
    const int32_t dev = gip_context_device(ctx);
    if (dev < 0 || dev >= 64)
        return gip__error(ctx, GIP_ERR_DEVICE, "lanczos tables: device %d out of range", (int)dev);
    gip__lz_tabs host;
    gip__lanczos_tabs(&host);
    const size_t nf = 1024 * 64 * sizeof(float), ni = 1024 * 64 * sizeof(int16_t);
    pthread_mutex_lock(&lz_mu);
    if (!lz_dev[dev]) {
        void *p = NULL;
        if (cudaMalloc(&p, nf + ni) != cudaSuccess ||
            cudaMemcpy(p, host.f, nf, cudaMemcpyHostToDevice) != cudaSuccess ||
            cudaMemcpy((char *)p + nf, host.i, ni, cudaMemcpyHostToDevice) != cudaSuccess) {
            (void)cudaGetLastError();
            if (p)
                cudaFree(p);
            pthread_mutex_unlock(&lz_mu);
            return gip__error(ctx, GIP_ERR_DEVICE_OUT_OF_MEMORY,
                              "lanczos tables: cannot place 384 KB on cuda:%d", (int)dev);
        }
        lz_dev[dev] = p;
    }
    t->f = (const float *)lz_dev[dev];
    t->i = (const int16_t *)((const char *)lz_dev[dev] + nf);
    pthread_mutex_unlock(&lz_mu);
    return GIP_OK;
}

__global__ void lanczos_kernel(gip__warp w, gip__lz_tabs t, const uint8_t *src, int64_t sstride,
                               const uint8_t *m1, int64_t s1, const uint8_t *m2, int64_t s2,
                               int32_t fixed, uint8_t *dst, int64_t dstride, int64_t dw, int64_t dh)
{
    for (int64_t y = blockIdx.y; y < dh; y += gridDim.y) {
        const uint8_t *r1 = m1 ? m1 + y * s1 : nullptr;
        const uint8_t *r2 = m2 ? m2 + y * s2 : nullptr;
        for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < dw;
             x += (int64_t)gridDim.x * blockDim.x) {
            int32_t ix, iy, f;
            if (!r1) {
                gip__lz_pos_warp(&w, dw, dh, x, y, &ix, &iy, &f);
            } else if (fixed) {
                ix = reinterpret_cast<const int16_t *>(r1)[2 * x];
                iy = reinterpret_cast<const int16_t *>(r1)[2 * x + 1];
                f = r2 ? reinterpret_cast<const uint16_t *>(r2)[x] & 1023 : 0;
            } else {
                gip__lz_split(
                    gip__lz_roundf(__fmul_rn(reinterpret_cast<const float *>(r1)[x], 32.f)),
                    gip__lz_roundf(__fmul_rn(reinterpret_cast<const float *>(r2)[x], 32.f)), &ix,
                    &iy, &f);
            }
            gip__lz_sample(&w, t, src, sstride, dst + y * dstride, x, ix, iy, f);
        }
    }
}

extern "C" gip_status gip__lanczos_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                        const gip__warp *w, const gip_image *m1,
                                        const gip_image *m2, int32_t fixed)
{
    gip__lz_tabs t;
    gip_status st = gip__lanczos_tabs_cuda(ctx, &t);
    if (st)
        return st;
    const int threads = 128;
    const int64_t bx = (dst->width + threads - 1) / threads;
    dim3 grid((unsigned)(bx < 4096 ? bx : 4096),
              (unsigned)(dst->height < 65535 ? dst->height : 65535));
    lanczos_kernel<<<grid, threads, 0, gip__stream(ctx)>>>(
        *w, t, (const uint8_t *)src->data, src->stride, m1 ? (const uint8_t *)m1->data : nullptr,
        m1 ? m1->stride : 0, m2 ? (const uint8_t *)m2->data : nullptr, m2 ? m2->stride : 0, fixed,
        (uint8_t *)dst->data, dst->stride, dst->width, dst->height);
    return GIP__LAUNCH_CHECK(ctx, "lanczos kernel");
}
