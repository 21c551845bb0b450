/* SPDX-License-Identifier: MIT */
/* pyr_down and pyr_up on CUDA: u8 with 1, 3 or 4 channels four output pixels a thread, the
 * pixels whose taps lie inside the image summed here without border lookups (integer sums, so in
 * any order), the others by pyr.h; every other case one thread per output element running
 * pyr.h, which the CPU runs too. */
#include "cuda_util.cuh"
#include "ops/geometry/pyr.h"

__global__ void pyr_kernel(gip__pyr p, const uint8_t *src, int64_t sstride, uint8_t *dst,
                           int64_t dstride, int64_t dw, int64_t dh)
{
    const int64_t per_row = dw * p.cn;
    for (int64_t y = blockIdx.y; y < dh; y += gridDim.y)
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < per_row;
             i += (int64_t)gridDim.x * blockDim.x) {
            /* pixel and channel in 32 bits: a row holds far fewer than 2^32 elements */
            const uint32_t u = (uint32_t)i, cn = (uint32_t)p.cn;
            if (p.up)
                gip__pyr_up(&p, src, sstride, dst + y * dstride, y, u / cn, (int32_t)(u % cn));
            else
                gip__pyr_down(&p, src, sstride, dst + y * dstride, y, u / cn, (int32_t)(u % cn));
        }
}

/* ---- u8, four output pixels a thread ------------------------------------------------------ */

#define PYR_PX 4
#define PYR_BX 32
#define PYR_BY 8

/* The border's elements out of line (few, and one copy of their code). */
static __device__ __noinline__ void pyr_border(const gip__pyr *p, const uint8_t *src,
                                               int64_t sstride, uint8_t *drow, int32_t y, int32_t x)
{
    for (int32_t c = 0; c < p->cn; c++) {
        if (p->up)
            gip__pyr_up(p, src, sstride, drow, y, x, c);
        else
            gip__pyr_down(p, src, sstride, drow, y, x, c);
    }
}

/* Writes the pixels of o whose bit is set in `in`; all four where the row allows (vec 1: 4-byte
 * aligned, 2: 16-byte aligned) as 32-bit words or, four channels, one 16-byte store. */
template <int CN>
__device__ __forceinline__ void pyr_store(uint8_t *d, const uint8_t *o, uint32_t in, int32_t vec)
{
    if (vec && in == (1u << PYR_PX) - 1) {
        gip__store_4px_u8<CN>(d, o, vec);
        return;
    }
#pragma unroll
    for (int q = 0; q < PYR_PX; q++)
        if (in >> q & 1)
#pragma unroll
            for (int c = 0; c < CN; c++)
                d[q * CN + c] = o[q * CN + c];
}

/* pyrDown: output (x, y) from source rows 2y-2 .. 2y+2 and columns 2x-2 .. 2x+2, inside where
 * 1 <= x, 2x+2 < sw and 1 <= y, 2y+2 < sh. */
template <int CN>
__global__ void __launch_bounds__(PYR_BX *PYR_BY)
    pyr_down_u8(const __grid_constant__ gip__pyr p, const uint8_t *__restrict__ src,
                int64_t sstride, uint8_t *dst, int64_t dstride, int32_t dw, int32_t dh, int32_t vec)
{
    const int32_t x0 = (int32_t)((blockIdx.x * PYR_BX + threadIdx.x) * PYR_PX);
    if (x0 >= dw)
        return;
    const int32_t sw = (int32_t)p.sw, sh = (int32_t)p.sh;
    for (int32_t y = blockIdx.y * PYR_BY + threadIdx.y; y < dh; y += gridDim.y * PYR_BY) {
        uint8_t *drow = dst + y * dstride;
        const bool yin = y >= 1 && 2 * y + 2 < sh;
        const uint8_t *r0 = src + (int64_t)(yin ? 2 * y - 2 : 0) * sstride;
        uint8_t o[PYR_PX * CN];
        uint32_t in = 0;
#pragma unroll
        for (int q = 0; q < PYR_PX; q++) {
            const int32_t x = x0 + q;
            if (x >= dw)
                break;
            if (yin && x >= 1 && 2 * x + 2 < sw) {
#pragma unroll
                for (int c = 0; c < CN; c++) {
                    int32_t h[5];
#pragma unroll
                    for (int k = 0; k < 5; k++) {
                        const uint8_t *r = r0 + k * sstride + (2 * x - 2) * CN + c;
                        h[k] = __ldg(r + 2 * CN) * 6 + (__ldg(r + CN) + __ldg(r + 3 * CN)) * 4 +
                               __ldg(r) + __ldg(r + 4 * CN);
                    }
                    const int32_t v = h[2] * 6 + (h[1] + h[3]) * 4 + h[0] + h[4];
                    o[q * CN + c] = gip__sat_u8_i32((v + 128) >> 8);
                }
                in |= 1u << q;
            } else {
                pyr_border(&p, src, sstride, drow, y, x);
            }
        }
        pyr_store<CN>(drow + x0 * CN, o, in, vec);
    }
}

/* pyrUp: output (X, Y) from source rows Y/2 - 1 .. Y/2 + 1 and columns X/2 - 1 .. X/2 + 1, inside
 * where 1 <= X/2 <= sw - 2 and 1 <= Y/2 <= sh - 2 (gip__pyr_up's and gip__pyu_h's middle cases). */
template <int CN>
__global__ void __launch_bounds__(PYR_BX *PYR_BY)
    pyr_up_u8(const __grid_constant__ gip__pyr p, const uint8_t *__restrict__ src, int64_t sstride,
              uint8_t *dst, int64_t dstride, int32_t dw, int32_t dh, int32_t vec)
{
    const int32_t x0 = (int32_t)((blockIdx.x * PYR_BX + threadIdx.x) * PYR_PX);
    if (x0 >= dw)
        return;
    const int32_t sw = (int32_t)p.sw, sh = (int32_t)p.sh;
    for (int32_t Y = blockIdx.y * PYR_BY + threadIdx.y; Y < dh; Y += gridDim.y * PYR_BY) {
        uint8_t *drow = dst + Y * dstride;
        const int32_t y = Y >> 1;
        const bool yin = y >= 1 && y + 1 <= sh - 1;
        const uint8_t *r1 = src + (int64_t)(yin ? y : 0) * sstride;
        uint8_t o[PYR_PX * CN];
        uint32_t in = 0;
#pragma unroll
        for (int q = 0; q < PYR_PX; q++) {
            const int32_t X = x0 + q, i = X >> 1;
            if (X >= dw)
                break;
            if (yin && i >= 1 && i + 1 <= sw - 1) {
#pragma unroll
                for (int c = 0; c < CN; c++) {
                    int32_t h[3];
#pragma unroll
                    for (int k = 0; k < 3; k++) {
                        const uint8_t *r = r1 + (k - 1) * sstride + i * CN + c;
                        h[k] = (X & 1) ? (__ldg(r) + __ldg(r + CN)) * 4
                                       : __ldg(r - CN) + __ldg(r) * 6 + __ldg(r + CN);
                    }
                    const int32_t v = (Y & 1) ? (h[1] + h[2]) * 4 : h[0] + h[1] * 6 + h[2];
                    o[q * CN + c] = gip__sat_u8_i32((v + 32) >> 6);
                }
                in |= 1u << q;
            } else {
                pyr_border(&p, src, sstride, drow, Y, X);
            }
        }
        pyr_store<CN>(drow + x0 * CN, o, in, vec);
    }
}

template <int CN>
static void pyr_u8_launch(gip_context *ctx, const gip_image *src, gip_image *dst, const gip__pyr *p)
{
    const dim3 block(PYR_BX, PYR_BY);
    const int64_t gy = (dst->height + PYR_BY - 1) / PYR_BY;
    const dim3 grid(gip__div_up(dst->width, PYR_BX * PYR_PX), (unsigned)(gy < 65535 ? gy : 65535));
    const int32_t vec = (uintptr_t)dst->data % 16 == 0 && dst->stride % 16 == 0 ? 2
                        : (uintptr_t)dst->data % 4 == 0 && dst->stride % 4 == 0 ? 1
                                                                                : 0;
    if (p->up)
        pyr_up_u8<CN><<<grid, block, 0, gip__stream(ctx)>>>(
            *p, (const uint8_t *)src->data, src->stride, (uint8_t *)dst->data, dst->stride,
            (int32_t)dst->width, (int32_t)dst->height, vec);
    else
        pyr_down_u8<CN><<<grid, block, 0, gip__stream(ctx)>>>(
            *p, (const uint8_t *)src->data, src->stride, (uint8_t *)dst->data, dst->stride,
            (int32_t)dst->width, (int32_t)dst->height, vec);
}

extern "C" gip_status gip__pyr_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                    const gip__pyr *p)
{
    const int64_t lim = (int64_t)1 << 29;
    if (p->dtype == GIP_U8 && dst->width * p->cn < lim && p->sw * p->cn < lim &&
        dst->height < lim && p->sh < lim && (p->cn == 1 || p->cn == 3 || p->cn == 4)) {
        if (p->cn == 1)
            pyr_u8_launch<1>(ctx, src, dst, p);
        else if (p->cn == 3)
            pyr_u8_launch<3>(ctx, src, dst, p);
        else
            pyr_u8_launch<4>(ctx, src, dst, p);
        return GIP__LAUNCH_CHECK(ctx, "pyramid kernel (u8)");
    }
    const int threads = 128;
    const int64_t bx = (dst->width * p->cn + threads - 1) / threads;
    dim3 grid((unsigned)(bx < 4096 ? bx : 4096),
              (unsigned)(dst->height < 65535 ? dst->height : 65535));
    pyr_kernel<<<grid, threads, 0, gip__stream(ctx)>>>(*p, (const uint8_t *)src->data, src->stride,
                                                       (uint8_t *)dst->data, dst->stride,
                                                       dst->width, dst->height);
    return GIP__LAUNCH_CHECK(ctx, "pyramid kernel");
}
