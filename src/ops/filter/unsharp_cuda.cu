/* SPDX-License-Identifier: MIT */
/* unsharp's point-wise step on CUDA: the CPU's float operations (one product, then one fused
 * multiply-add, as cv2.addWeighted) spelt as round-to-nearest intrinsics, so integer results equal
 * the CPU's. */
#include "cuda_util.cuh"
#include "ops/filter/unsharp.h"

namespace
{

template <typename T>
__global__ void unsharp_kernel(const char *src, int64_t ss, const char *blur, int64_t bs, char *dst,
                               int64_t ds, int32_t n, int32_t h, float alpha, float beta, float t)
{
    const int32_t e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= n)
        return;
    for (int32_t y = blockIdx.y; y < h; y += gridDim.y) {
        const float s = (float)gip__row<T>(src, ss, y)[e], b = (float)gip__row<T>(blur, bs, y)[e];
        float v = s;
        if (!(fabsf(__fsub_rn(s, b)) < t))
            v = __fmaf_rn(s, alpha, __fmul_rn(b, beta));
        gip__row<T>(dst, ds, y)[e] = gip__saturate<T>(v);
    }
}

} // namespace

extern "C" gip_status gip__unsharp_cuda(gip_context *ctx, const gip_image *src,
                                        const gip_image *blur, gip_image *dst, float alpha,
                                        float beta, float threshold)
{
    return gip__dispatch_dtype(src->dtype, [&](auto tag) {
        using T = decltype(tag);
        const int32_t n = (int32_t)(src->width * src->channels), h = (int32_t)src->height;
        dim3 grid(gip__div_up(n, 256), (unsigned)(h < 65535 ? h : 65535));
        unsharp_kernel<T><<<grid, 256, 0, gip__stream(ctx)>>>(
            (const char *)src->data, src->stride, (const char *)blur->data, blur->stride,
            (char *)dst->data, dst->stride, n, h, alpha, beta, threshold);
        return GIP__LAUNCH_CHECK(ctx, "unsharp kernel");
    });
}
