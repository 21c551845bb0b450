/* SPDX-License-Identifier: MIT */
/* The table pass of fused point-wise runs on CUDA: the per-channel table (256 x channels entries,
 * at most 4 KiB) is staged in shared memory, then each thread maps elements of a row. */
#include "cuda_util.cuh"
#include "pipeline_internal.h"

static constexpr int LUT_THREADS = 256;

template <typename T>
__global__ void lut_kernel(const uint8_t *src, int64_t sstride, T *dst, int64_t dstride, int64_t n,
                           int64_t rows, int channels, const T *table)
{
    __shared__ T tab[256 * 4];
    for (int i = threadIdx.x; i < 256 * channels; i += blockDim.x)
        tab[i] = table[i];
    __syncthreads();
    const int64_t t0 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t tstep = (int64_t)gridDim.x * blockDim.x;
    for (int64_t y = blockIdx.y; y < rows; y += gridDim.y) {
        const uint8_t *s = src + y * sstride;
        T *d = reinterpret_cast<T *>(reinterpret_cast<char *>(dst) + y * dstride);
        for (int64_t i = t0; i < n; i += tstep)
            d[i] = tab[(int)s[i] * channels + (int)(i % channels)];
    }
}

template <typename T>
static gip_status launch(gip_context *ctx, const gip_image *src, gip_image *dst, const void *table)
{
    const int64_t n = src->width * src->channels;
    int64_t bx = (n + LUT_THREADS - 1) / LUT_THREADS;
    if (bx > 1024)
        bx = 1024; /* grid-stride covers the rest */
    int64_t by = src->height < 65535 ? src->height : 65535;
    dim3 grid((unsigned)bx, (unsigned)by);
    lut_kernel<T><<<grid, LUT_THREADS, 0, gip__stream(ctx)>>>(
        static_cast<const uint8_t *>(src->data), src->stride, static_cast<T *>(dst->data),
        dst->stride, n, src->height, (int)src->channels, static_cast<const T *>(table));
    return GIP__LAUNCH_CHECK(ctx, "pipeline table pass");
}

extern "C" gip_status gip__lut_apply_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                          const void *table, int32_t esize)
{
    gip_status st = gip__cuda_enter(ctx);
    if (st)
        return st;
    switch (esize) {
    case 1:
        return launch<uint8_t>(ctx, src, dst, table);
    case 2:
        return launch<uint16_t>(ctx, src, dst, table);
    default:
        return launch<uint32_t>(ctx, src, dst, table);
    }
}
