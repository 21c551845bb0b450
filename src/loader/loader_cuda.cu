/* SPDX-License-Identifier: MIT */
/* The batch loader's fused pass on the GPU: n u8 crops (HWC) -> the batch, mirrored per image,
 * normalised as pixel * a[c] + b[c] (fused multiply-add, as the CPU pass) and written as NCHW or
 * NHWC half / bfloat16 / float / u8. One thread per output pixel (its three channels). */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuda_util.cuh"
#include "loader/loader_internal.h"

struct norm_args {
    float a[3], b[3];
};

template <typename T> __device__ __forceinline__ T convert(float v, uint8_t raw);
template <> __device__ __forceinline__ __half convert<__half>(float v, uint8_t)
{
    return __float2half_rn(v);
}
template <> __device__ __forceinline__ __nv_bfloat16 convert<__nv_bfloat16>(float v, uint8_t)
{
    return __float2bfloat16_rn(v);
}
template <> __device__ __forceinline__ float convert<float>(float v, uint8_t)
{
    return v;
}
template <> __device__ __forceinline__ uint8_t convert<uint8_t>(float, uint8_t raw)
{
    return raw;
}

template <typename T, bool NCHW>
__global__ void loader_normalize_kernel(const uint8_t *__restrict__ src,
                                        const uint8_t *__restrict__ flip, int64_t S, norm_args na,
                                        T *__restrict__ dst)
{
    const int64_t img = blockIdx.z;
    const int64_t y = blockIdx.y;
    const int64_t plane = S * S;
    const uint8_t *row = src + (img * plane + y * S) * 3;
    const bool f = flip[img] != 0;
    for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < S;
         x += (int64_t)gridDim.x * blockDim.x) {
        const uint8_t *p = row + 3 * (f ? S - 1 - x : x);
#pragma unroll
        for (int c = 0; c < 3; c++) {
            const T v = convert<T>(__fmaf_rn((float)p[c], na.a[c], na.b[c]), p[c]);
            if (NCHW)
                dst[(img * 3 + c) * plane + y * S + x] = v;
            else
                dst[(img * plane + y * S + x) * 3 + c] = v;
        }
    }
}

template <typename T>
static void launch(gip_context *ctx, const gip__loader_cfg *cfg, const uint8_t *src,
                   const uint8_t *flip, int64_t n, void *dst)
{
    norm_args na;
    for (int c = 0; c < 3; c++) {
        na.a[c] = cfg->a[c];
        na.b[c] = cfg->b[c];
    }
    const int64_t S = cfg->size;
    const int threads = 128;
    dim3 grid(gip__div_up(S, threads), (unsigned)S, (unsigned)n);
    if (cfg->layout == GIP_LOADER_NCHW)
        loader_normalize_kernel<T, true>
            <<<grid, threads, 0, gip__stream(ctx)>>>(src, flip, S, na, static_cast<T *>(dst));
    else
        loader_normalize_kernel<T, false>
            <<<grid, threads, 0, gip__stream(ctx)>>>(src, flip, S, na, static_cast<T *>(dst));
}

extern "C" gip_status gip__loader_normalize_cuda(gip_context *ctx, const gip__loader_cfg *cfg,
                                                 const uint8_t *src, const uint8_t *flip, int64_t n,
                                                 void *dst)
{
    if (n > 65535 || cfg->size > 65535)
        return gip__error(ctx, GIP_ERR_TOO_LARGE,
                          "loader: batch of %lld images of %d pixels is "
                          "above the kernel's grid",
                          (long long)n, (int)cfg->size);
    gip_status st = gip__cuda_enter(ctx);
    if (st)
        return st;
    switch (cfg->dtype) {
    case GIP_LOADER_F16:
        launch<__half>(ctx, cfg, src, flip, n, dst);
        break;
    case GIP_LOADER_BF16:
        launch<__nv_bfloat16>(ctx, cfg, src, flip, n, dst);
        break;
    case GIP_LOADER_F32:
        launch<float>(ctx, cfg, src, flip, n, dst);
        break;
    default:
        launch<uint8_t>(ctx, cfg, src, flip, n, dst);
    }
    return GIP__LAUNCH_CHECK(ctx, "loader normalize kernel");
}
