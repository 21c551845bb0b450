/* SPDX-License-Identifier: MIT */
/* Bilinear sampling of the warps and remap on CUDA, specialised for u8 and f32 with 1, 3 or 4
 * channels: several output pixels a thread, the pixels whose four taps lie inside the image
 * computed here with gip__warp_sample's arithmetic, the others by gip__warp_sample itself. */
#ifndef GIP_OPS_WARP_CUDA_CUH
#define GIP_OPS_WARP_CUDA_CUH

#include "cuda_util.cuh"
#include "ops/geometry/warp.h"

/* Output pixels a thread (consecutive in a row) and the block: a warp along one output row. */
#define GIP__WPC_PX 4
#define GIP__WPC_BX 32
#define GIP__WPC_BY 8

/* The CN elements of the bilinear sample at (sx, sy) into o, when its four taps lie inside the
 * image (gip__warp_sample's linear case without the border); false otherwise. lx, ly are
 * sw - 1 and sh - 1 as floats (exact: sides below 2^24), ss the source stride (the source spans
 * less than 2^31 bytes). */
template <int CN, typename T>
__device__ __forceinline__ bool gip__wpc_linear(const uint8_t *src, int32_t ss, float lx, float ly,
                                                float sx, float sy, T *o)
{
    /* floor(sx) lies in [0, sw - 2] exactly when 0 <= sx < sw - 1 (NaN fails), and is then the
     * truncation */
    if (!(sx >= 0.f && sx < lx && sy >= 0.f && sy < ly))
        return false;
    const int32_t ix = (int32_t)sx, iy = (int32_t)sy;
    const float fx = __fsub_rn(sx, (float)ix), fy = __fsub_rn(sy, (float)iy);
    const T *r0 = reinterpret_cast<const T *>(src + (iy * ss + ix * CN * (int32_t)sizeof(T)));
    const T *r1 = reinterpret_cast<const T *>(reinterpret_cast<const uint8_t *>(r0) + ss);
#pragma unroll
    for (int c = 0; c < CN; c++) {
        const float p0 = (float)__ldg(r0 + c), p1 = (float)__ldg(r0 + CN + c);
        const float p2 = (float)__ldg(r1 + c), p3 = (float)__ldg(r1 + CN + c);
        const float v0 = __fmaf_rn(fx, __fsub_rn(p1, p0), p0);
        const float v1 = __fmaf_rn(fx, __fsub_rn(p3, p2), p2);
        const float v = __fmaf_rn(fy, __fsub_rn(v1, v0), v0);
        if (sizeof(T) == 1)
            o[c] = (T)gip__sat_u8_f32(v);
        else
            o[c] = (T)v;
    }
    return true;
}

/* Whether the specialised kernels take a source: sides below 2^24 (exact as floats), fewer than
 * 2^31 bytes spanned (32-bit offsets). */
static inline bool gip__wpc_source_ok(const gip_image *src)
{
    return src->width < (1 << 24) && src->height < (1 << 24) &&
           src->stride * src->height < ((int64_t)1 << 31);
}

/* gip__warp_sample out of line: the border's pixels are few, and one copy of its code keeps the
 * specialised kernels' registers for their own work. */
static __device__ __noinline__ void gip__wpc_sample(const gip__warp *w, const uint8_t *src,
                                                    int64_t sstride, uint8_t *drow, int32_t x,
                                                    float sx, float sy)
{
    gip__warp_sample(w, src, sstride, drow, x, sx, sy);
}

/* Writes the pixels of o whose bit is set in `in`; all GIP__WPC_PX of them as u8 where the row
 * allows (vec 1: 4-byte aligned, 2: 16-byte aligned) as 32-bit words or, four channels, one
 * 16-byte store. */
template <int CN, typename T>
__device__ __forceinline__ void gip__wpc_store(uint8_t *drow, int32_t x0, const T *o, uint32_t in,
                                               int32_t vec)
{
    T *d = reinterpret_cast<T *>(drow) + x0 * CN;
    if (sizeof(T) == 1 && vec && in == (1u << GIP__WPC_PX) - 1) {
        const uint8_t *b = reinterpret_cast<const uint8_t *>(o);
        uint32_t w[CN];
#pragma unroll
        for (int k = 0; k < CN; k++)
            w[k] = (uint32_t)b[4 * k] | (uint32_t)b[4 * k + 1] << 8 | (uint32_t)b[4 * k + 2] << 16 |
                   (uint32_t)b[4 * k + 3] << 24;
        if (CN == 4 && vec >= 2) {
            *reinterpret_cast<uint4 *>(d) = make_uint4(w[0], w[1 % CN], w[2 % CN], w[3 % CN]);
        } else {
#pragma unroll
            for (int k = 0; k < CN; k++)
                reinterpret_cast<uint32_t *>(d)[k] = w[k];
        }
        return;
    }
#pragma unroll
    for (int q = 0; q < GIP__WPC_PX; q++)
        if (in >> q & 1)
#pragma unroll
            for (int c = 0; c < CN; c++)
                d[q * CN + c] = o[q * CN + c];
}

/* The vec argument of gip__wpc_store for a destination view. */
static inline int32_t gip__wpc_vec(const gip_image *dst)
{
    return (uintptr_t)dst->data % 16 == 0 && dst->stride % 16 == 0 ? 2
           : (uintptr_t)dst->data % 4 == 0 && dst->stride % 4 == 0 ? 1
                                                                   : 0;
}

#endif
