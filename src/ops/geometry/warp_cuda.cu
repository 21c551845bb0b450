/* SPDX-License-Identifier: MIT */
/* The warps on CUDA: one thread per output pixel running warp.h (Lanczos: warp_lanczos.h), which
 * the CPU runs too. */
#include <pthread.h>

#include "cuda_util.cuh"
#include "ops/geometry/warp.h"
#include "ops/geometry/warp_lanczos.h"

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
