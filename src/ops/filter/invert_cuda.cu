/* SPDX-License-Identifier: MIT */
/* gip_invert on CUDA: 16-byte loads and stores where source and destination rows share their
 * alignment (scalar head and tail), element loads otherwise; grid-stride in both directions so
 * that any size runs. u8 and u16 inversion is a bitwise NOT of the bytes. */
#include "cuda_util.cuh"
#include "invert.h"

/* Threads per block and 16-byte vectors per thread; constexpr so that they can be tuned. */
static constexpr int INVERT_THREADS = 256;
static constexpr int INVERT_VEC_PER_THREAD = 2;

template <bool F32> __device__ __forceinline__ uint4 invert_vec(uint4 v, float max)
{
    if (F32) {
        v.x = __float_as_uint(__fsub_rn(max, __uint_as_float(v.x)));
        v.y = __float_as_uint(__fsub_rn(max, __uint_as_float(v.y)));
        v.z = __float_as_uint(__fsub_rn(max, __uint_as_float(v.z)));
        v.w = __float_as_uint(__fsub_rn(max, __uint_as_float(v.w)));
    } else {
        v.x = ~v.x, v.y = ~v.y, v.z = ~v.z, v.w = ~v.w;
    }
    return v;
}

/* Element unit: one byte for u8/u16 (NOT is byte-wise), one float for f32. */
template <bool F32> __device__ __forceinline__ void invert_one(const char *s, char *d, float max)
{
    if (F32)
        *reinterpret_cast<float *>(d) = __fsub_rn(max, *reinterpret_cast<const float *>(s));
    else
        *reinterpret_cast<uint8_t *>(d) = (uint8_t) ~*reinterpret_cast<const uint8_t *>(s);
}

/* Each y of the grid walks rows; each row is `units` elements of `unit` bytes. */
template <bool F32>
__global__ void invert_kernel(const char *src, int64_t sstride, char *dst, int64_t dstride,
                              int64_t units, int64_t rows, float max)
{
    constexpr int unit = F32 ? 4 : 1;
    constexpr int per_vec = 16 / unit;
    const int64_t t0 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t tstep = (int64_t)gridDim.x * blockDim.x;
    for (int64_t y = blockIdx.y; y < rows; y += gridDim.y) {
        const char *s = src + y * sstride;
        char *d = dst + y * dstride;
        uintptr_t sa = reinterpret_cast<uintptr_t>(s), da = reinterpret_cast<uintptr_t>(d);
        if (((sa ^ da) & 15) != 0) {
            for (int64_t i = t0; i < units; i += tstep)
                invert_one<F32>(s + i * unit, d + i * unit, max);
            continue;
        }
        /* Same alignment: a scalar head up to the 16-byte boundary, vectors, a scalar tail. */
        int64_t head = (int64_t)(((16 - (da & 15)) & 15) / unit);
        if (head > units)
            head = units;
        int64_t nvec = (units - head) / per_vec;
        int64_t tail0 = head + nvec * per_vec;
        if (t0 < head)
            invert_one<F32>(s + t0 * unit, d + t0 * unit, max);
        if (t0 < units - tail0)
            invert_one<F32>(s + (tail0 + t0) * unit, d + (tail0 + t0) * unit, max);
        const uint4 *sv = reinterpret_cast<const uint4 *>(s + head * unit);
        uint4 *dv = reinterpret_cast<uint4 *>(d + head * unit);
        for (int64_t v = t0; v < nvec; v += tstep)
            dv[v] = invert_vec<F32>(__ldg(sv + v), max);
    }
}

extern "C" gip_status gip__invert_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                       float max)
{
    const bool f32 = src->dtype == GIP_F32;
    int64_t row = gip_image_row_bytes(src);
    int64_t rows = src->height;
    int64_t sstride = src->stride, dstride = dst->stride;
    /* Tight images are one long row: no per-row head and tail. */
    if (sstride == row && dstride == row) {
        row *= rows;
        rows = 1;
        sstride = dstride = row;
    }
    const int64_t units = f32 ? row / 4 : row;
    const int64_t per_thread = (int64_t)(f32 ? 4 : 16) * INVERT_VEC_PER_THREAD;
    int64_t bx = ((units + per_thread - 1) / per_thread + INVERT_THREADS - 1) / INVERT_THREADS;
    if (bx < 1)
        bx = 1;
    if (bx > 65535 * 32)
        bx = 65535 * 32;
    dim3 grid((unsigned)bx, (unsigned)(rows < 65535 ? rows : 65535));
    if (f32)
        invert_kernel<true><<<grid, INVERT_THREADS, 0, gip__stream(ctx)>>>(
            (const char *)src->data, sstride, (char *)dst->data, dstride, units, rows, max);
    else
        invert_kernel<false><<<grid, INVERT_THREADS, 0, gip__stream(ctx)>>>(
            (const char *)src->data, sstride, (char *)dst->data, dstride, units, rows, max);
    return GIP__LAUNCH_CHECK(ctx, "gip_invert kernel");
}
