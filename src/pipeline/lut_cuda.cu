/* SPDX-License-Identifier: MIT */
/* The table pass of fused point-wise runs on CUDA: the per-channel table (256 x channels entries,
 * at most 4 KiB) is staged in shared memory, then each thread maps four elements of a row (aligned
 * rows) or one. */
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

/* Four elements a thread for rows whose source is 4-byte aligned and whose destination is aligned
 * to four of its elements (checked by the caller): one 4-byte load, four lookups, one vector
 * store; CH is the channel count (the channel of element 4q + j is (4q + j) mod CH, and 4 is
 * 1 mod 3). Blocks take several rows, so each table fill serves many. */
template <typename T> struct alignas(4 * sizeof(T)) lut_vec4 {
    T e[4];
};

template <typename T, int CH>
__global__ void lut4_kernel(const uint8_t *src, int64_t sstride, T *dst, int64_t dstride,
                            uint32_t n, uint32_t rows, const T *table)
{
    __shared__ T tab[256 * 4];
    for (int i = threadIdx.x; i < 256 * CH; i += blockDim.x)
        tab[i] = table[i];
    __syncthreads();
    const uint32_t quads = n >> 2, tail = n & 3u;
    for (uint32_t y = blockIdx.y; y < rows; y += gridDim.y) {
        const uint8_t *s = src + (int64_t)y * sstride;
        T *d = reinterpret_cast<T *>(reinterpret_cast<char *>(dst) + (int64_t)y * dstride);
        for (uint32_t q = blockIdx.x * blockDim.x + threadIdx.x; q < quads;
             q += gridDim.x * blockDim.x) {
            const uint32_t v = __ldg(reinterpret_cast<const uint32_t *>(s) + q);
            const uint32_t c0 = CH == 3 ? q % 3u : 0u;
            lut_vec4<T> r;
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const uint32_t c = CH == 1   ? 0u
                                   : CH == 3 ? (c0 + (uint32_t)j) % 3u
                                             : (uint32_t)(j % CH);
                r.e[j] = tab[((v >> (8 * j)) & 255u) * CH + c];
            }
            reinterpret_cast<lut_vec4<T> *>(d)[q] = r;
        }
        if (blockIdx.x == 0 && threadIdx.x < tail) {
            const uint32_t i = (quads << 2) + threadIdx.x;
            d[i] = tab[(uint32_t)s[i] * CH + i % CH];
        }
    }
}

template <typename T, int CH>
static void launch4(gip_context *ctx, const gip_image *src, gip_image *dst, const void *table)
{
    const int64_t n = src->width * src->channels;
    const dim3 grid = gip__row_grid(n / 4, LUT_THREADS, src->height);
    lut4_kernel<T, CH><<<grid, LUT_THREADS, 0, gip__stream(ctx)>>>(
        static_cast<const uint8_t *>(src->data), src->stride, static_cast<T *>(dst->data),
        dst->stride, (uint32_t)n, (uint32_t)src->height, static_cast<const T *>(table));
}

template <typename T>
static gip_status launch(gip_context *ctx, const gip_image *src, gip_image *dst, const void *table)
{
    const int64_t n = src->width * src->channels;
    if (((uintptr_t)src->data | (uintptr_t)src->stride) % 4 == 0 &&
        ((uintptr_t)dst->data | (uintptr_t)dst->stride) % (4 * sizeof(T)) == 0 &&
        n < ((int64_t)1 << 31) && src->height < ((int64_t)1 << 31)) {
        switch (src->channels) {
        case 1:
            launch4<T, 1>(ctx, src, dst, table);
            break;
        case 2:
            launch4<T, 2>(ctx, src, dst, table);
            break;
        case 3:
            launch4<T, 3>(ctx, src, dst, table);
            break;
        default:
            launch4<T, 4>(ctx, src, dst, table);
            break;
        }
        return GIP__LAUNCH_CHECK(ctx, "pipeline table pass");
    }
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
