/* SPDX-License-Identifier: MIT */
/* gip_convert on CUDA: one kernel templated on the source and destination element types, queued
 * on the context's stream. */
#include <type_traits>

#include "color/convert.h"
#include "cuda_util.cuh"

namespace
{

/* One element: a bare saturating conversion (OpenCV's noScale), or one correctly rounded fused
 * multiply-add then saturation, which is what OpenCV's cvt_32f (v_fma) and the CPU side (fmaf)
 * compute. __fmaf_rn is spelled out so that no compiler setting changes the rounding. */
template <typename S, typename D, bool PLAIN>
__device__ __forceinline__ D convert_one(S s, float a, float b)
{
    if constexpr (PLAIN) {
        if constexpr (std::is_same<D, float>::value)
            return static_cast<float>(s);
        else if constexpr (std::is_same<S, float>::value)
            return gip__saturate<D>(s);
        else if constexpr (std::is_same<D, uint8_t>::value)
            return gip__sat_u8_i32(static_cast<int32_t>(s));
        else if constexpr (std::is_same<D, uint16_t>::value)
            return gip__sat_u16_i32(static_cast<int32_t>(s));
        else
            return gip__sat_s16_i32(static_cast<int32_t>(s));
    } else {
        return gip__saturate<D>(__fmaf_rn(static_cast<float>(s), a, b));
    }
}

/* x covers the n elements of a row (consecutive threads, consecutive addresses: coalesced);
 * y walks the rows with a stride of gridDim.y so that any height fits the 65535 grid limit.
 * In place (src == dst) is safe: each thread reads its element before writing it. */
template <typename S, typename D, bool PLAIN>
__global__ void convert_kernel(const void *src, int64_t sstride, void *dst, int64_t dstride,
                               int64_t n, int64_t height, float a, float b)
{
    int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    for (int64_t y = blockIdx.y; y < height; y += gridDim.y) {
        const S *s = gip__row<S>(src, sstride, y);
        D *d = gip__row<D>(dst, dstride, y);
        d[i] = convert_one<S, D, PLAIN>(s[i], a, b);
    }
}

} // namespace

extern "C" gip_status gip__convert_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                        const gip__convert_params *p)
{
    int64_t n = src->width * src->channels;
    unsigned bx = n >= 256 ? 256u : static_cast<unsigned>((n + 31) / 32 * 32);
    dim3 block(bx, 1, 1);
    dim3 grid(gip__div_up(n, bx), static_cast<unsigned>(src->height < 65535 ? src->height : 65535),
              1);
    cudaStream_t stream = gip__stream(ctx);
    return gip__dispatch_dtype(src->dtype, [&](auto s_tag) {
        using S = decltype(s_tag);
        return gip__dispatch_dtype(dst->dtype, [&](auto d_tag) {
            using D = decltype(d_tag);
            if (p->plain)
                convert_kernel<S, D, true>
                    <<<grid, block, 0, stream>>>(src->data, src->stride, dst->data, dst->stride, n,
                                                 src->height, p->alpha, p->beta);
            else
                convert_kernel<S, D, false>
                    <<<grid, block, 0, stream>>>(src->data, src->stride, dst->data, dst->stride, n,
                                                 src->height, p->alpha, p->beta);
            return GIP__LAUNCH_CHECK(ctx, "gip_convert: convert kernel launch");
        });
    });
}
