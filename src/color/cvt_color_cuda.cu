/* SPDX-License-Identifier: MIT */
/* gip_cvt_color on CUDA: one kernel per family (reorder, to gray, from gray) templated on the
 * element type and the channel counts, queued on the context's stream. */
#include <type_traits>

#include "color/cvt_color.h"
#include "cuda_util.cuh"

namespace
{

template <typename T> __device__ __forceinline__ T alpha_max()
{
    if constexpr (std::is_same<T, float>::value)
        return 1.0f;
    else if constexpr (std::is_same<T, uint8_t>::value)
        return 255;
    else if constexpr (std::is_same<T, uint16_t>::value)
        return 65535;
    else
        return 32767; /* s16: refused by the entry; here only so that the dispatch compiles */
}

/* The weights and the order of operations of the CPU side (cvt_color.h): integers with OpenCV
 * 5's 15-bit fixed point, floats as c0 * s0, then two fused multiply-adds. */
template <typename T> __device__ __forceinline__ T gray(T s0, T s1, T s2, bool red_first)
{
    if constexpr (std::is_same<T, float>::value) {
        float c0 = red_first ? GIP__GRAY_RF : GIP__GRAY_BF;
        float c2 = red_first ? GIP__GRAY_BF : GIP__GRAY_RF;
        float y = __fmul_rn(s0, c0);
        y = __fmaf_rn(s1, GIP__GRAY_GF, y);
        return __fmaf_rn(s2, c2, y);
    } else {
        int32_t c0 = red_first ? GIP__GRAY_R15 : GIP__GRAY_B15;
        int32_t c2 = red_first ? GIP__GRAY_B15 : GIP__GRAY_R15;
        int32_t y = static_cast<int32_t>(s0) * c0 + static_cast<int32_t>(s1) * GIP__GRAY_G15 +
                    static_cast<int32_t>(s2) * c2 + (1 << (GIP__GRAY_SHIFT - 1));
        return static_cast<T>(y >> GIP__GRAY_SHIFT);
    }
}

/* One thread per pixel: x over the pixels of a row (neighbouring threads, neighbouring memory),
 * y over rows with a stride of gridDim.y so that any height fits the 65535 grid limit. Each
 * pixel is read whole before it is written: in-place swaps are safe. */
template <typename T, gip__cc_kind KIND, int SCN, int DCN, bool SWAP>
__global__ void cvt_color_kernel(const void *src, int64_t sstride, void *dst, int64_t dstride,
                                 int64_t width, int64_t height)
{
    int64_t x = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (x >= width)
        return;
    for (int64_t y = blockIdx.y; y < height; y += gridDim.y) {
        const T *s = gip__row<T>(src, sstride, y) + x * SCN;
        T *d = gip__row<T>(dst, dstride, y) + x * DCN;
        if constexpr (KIND == GIP__CC_REORDER) {
            T v0 = s[0], v1 = s[1], v2 = s[2];
            T v3 = SCN == 4 ? s[3] : alpha_max<T>();
            d[0] = SWAP ? v2 : v0;
            d[1] = v1;
            d[2] = SWAP ? v0 : v2;
            if constexpr (DCN == 4)
                d[3] = v3;
        } else if constexpr (KIND == GIP__CC_TO_GRAY) {
            d[0] = gray<T>(s[0], s[1], s[2], SWAP);
        } else {
            T v = s[0];
            d[0] = v;
            d[1] = v;
            d[2] = v;
            if constexpr (DCN == 4)
                d[3] = alpha_max<T>();
        }
    }
}

template <typename T, gip__cc_kind KIND, int SCN, int DCN, bool SWAP>
gip_status launch(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    int64_t w = src->width;
    unsigned bx = w >= 256 ? 256u : static_cast<unsigned>((w + 31) / 32 * 32);
    dim3 block(bx, 1, 1);
    dim3 grid(gip__div_up(w, bx), static_cast<unsigned>(src->height < 65535 ? src->height : 65535),
              1);
    cvt_color_kernel<T, KIND, SCN, DCN, SWAP><<<grid, block, 0, gip__stream(ctx)>>>(
        src->data, src->stride, dst->data, dst->stride, w, src->height);
    return GIP__LAUNCH_CHECK(ctx, "gip_cvt_color: kernel launch");
}

} // namespace

extern "C" gip_status gip__cvt_color_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                          const gip__cc_params *p)
{
    gip_color_code code = p->code;
    return gip__dispatch_dtype(src->dtype, [&](auto tag) -> gip_status {
        using T = decltype(tag);
        switch (code) {
        case GIP_COLOR_RGB2BGR:
            return launch<T, GIP__CC_REORDER, 3, 3, true>(ctx, src, dst);
        case GIP_COLOR_RGBA2BGRA:
            return launch<T, GIP__CC_REORDER, 4, 4, true>(ctx, src, dst);
        case GIP_COLOR_RGB2RGBA:
            return launch<T, GIP__CC_REORDER, 3, 4, false>(ctx, src, dst);
        case GIP_COLOR_RGBA2RGB:
            return launch<T, GIP__CC_REORDER, 4, 3, false>(ctx, src, dst);
        case GIP_COLOR_RGB2BGRA:
            return launch<T, GIP__CC_REORDER, 3, 4, true>(ctx, src, dst);
        case GIP_COLOR_RGBA2BGR:
            return launch<T, GIP__CC_REORDER, 4, 3, true>(ctx, src, dst);
        case GIP_COLOR_RGB2GRAY:
            return launch<T, GIP__CC_TO_GRAY, 3, 1, true>(ctx, src, dst);
        case GIP_COLOR_BGR2GRAY:
            return launch<T, GIP__CC_TO_GRAY, 3, 1, false>(ctx, src, dst);
        case GIP_COLOR_RGBA2GRAY:
            return launch<T, GIP__CC_TO_GRAY, 4, 1, true>(ctx, src, dst);
        case GIP_COLOR_BGRA2GRAY:
            return launch<T, GIP__CC_TO_GRAY, 4, 1, false>(ctx, src, dst);
        case GIP_COLOR_GRAY2RGB:
            return launch<T, GIP__CC_FROM_GRAY, 1, 3, false>(ctx, src, dst);
        case GIP_COLOR_GRAY2RGBA:
            return launch<T, GIP__CC_FROM_GRAY, 1, 4, false>(ctx, src, dst);
        }
        return gip__error(ctx, GIP_ERR_INTERNAL, "gip_cvt_color: code %d reached the CUDA backend",
                          (int)code);
    });
}
