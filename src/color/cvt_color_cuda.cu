/* SPDX-License-Identifier: MIT */
/* gip_cvt_color on CUDA: one kernel per family (reorder, to gray, from gray) templated on the
 * element type and the channel counts, several pixels per thread moved as 32-bit words, queued on
 * the context's stream. */
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

/* One pixel: s holds SCN elements, d receives DCN. */
template <typename T, gip__cc_kind KIND, int SCN, int DCN, bool SWAP>
__device__ __forceinline__ void convert_pixel(const T *s, T *d)
{
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

/* Pixels per thread: P pixels of T are a whole number of 32-bit words on both sides (4 for u8,
 * 2 for u16 and s16, 1 for f32), so that a thread's pixels move as SCN and DCN words. */
template <typename T> __host__ __device__ constexpr int pixels_per_thread()
{
    return 4 / (int)sizeof(T);
}

/* Each thread converts P consecutive pixels of a row (neighbouring threads, neighbouring memory),
 * for rows y, y + gridDim.y ... so that any height fits the 65535 grid limit. VEC: the P pixels
 * move as 32-bit words (the launcher checks that bases and strides are multiples of 4); a row's
 * last partial run and the !VEC variant go element by element. A thread reads all its pixels
 * before writing any: in-place swaps are safe. */
template <typename T, gip__cc_kind KIND, int SCN, int DCN, bool SWAP, bool VEC>
__global__ void cvt_color_kernel(const void *src, int64_t sstride, void *dst, int64_t dstride,
                                 int64_t width, int64_t height)
{
    constexpr int P = pixels_per_thread<T>();
    const int64_t x0 = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * P;
    if (x0 >= width)
        return;
    const bool full = VEC && x0 + P <= width;
    const int64_t m = width - x0 < P ? width - x0 : P;
    for (int64_t y = blockIdx.y; y < height; y += gridDim.y) {
        const T *s = gip__row<T>(src, sstride, y) + x0 * SCN;
        T *d = gip__row<T>(dst, dstride, y) + x0 * DCN;
        union {
            uint32_t w[SCN];
            T e[P * SCN];
        } sv;
        union {
            uint32_t w[DCN];
            T e[P * DCN];
        } dv;
        if (full) {
#pragma unroll
            for (int k = 0; k < SCN; k++)
                sv.w[k] = reinterpret_cast<const uint32_t *>(s)[k];
#pragma unroll
            for (int p = 0; p < P; p++)
                convert_pixel<T, KIND, SCN, DCN, SWAP>(sv.e + p * SCN, dv.e + p * DCN);
#pragma unroll
            for (int k = 0; k < DCN; k++)
                reinterpret_cast<uint32_t *>(d)[k] = dv.w[k];
        } else {
            /* Constant indices under the guards keep the arrays in registers. */
#pragma unroll
            for (int p = 0; p < P; p++)
                if (p < m)
#pragma unroll
                    for (int k = 0; k < SCN; k++)
                        sv.e[p * SCN + k] = s[p * SCN + k];
#pragma unroll
            for (int p = 0; p < P; p++)
                if (p < m) {
                    convert_pixel<T, KIND, SCN, DCN, SWAP>(sv.e + p * SCN, dv.e + p * DCN);
#pragma unroll
                    for (int k = 0; k < DCN; k++)
                        d[p * DCN + k] = dv.e[p * DCN + k];
                }
        }
    }
}

template <typename T, gip__cc_kind KIND, int SCN, int DCN, bool SWAP>
gip_status launch(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    constexpr int P = pixels_per_thread<T>();
    int64_t w = src->width;
    int64_t units = (w + P - 1) / P;
    unsigned bx = units >= 256 ? 256u : static_cast<unsigned>((units + 31) / 32 * 32);
    dim3 block(bx, 1, 1);
    dim3 grid(gip__div_up(units, bx),
              static_cast<unsigned>(src->height < 65535 ? src->height : 65535), 1);
    const bool vec = (((uintptr_t)src->data | (uint64_t)src->stride | (uintptr_t)dst->data |
                       (uint64_t)dst->stride) &
                      3) == 0;
    if (vec)
        cvt_color_kernel<T, KIND, SCN, DCN, SWAP, true><<<grid, block, 0, gip__stream(ctx)>>>(
            src->data, src->stride, dst->data, dst->stride, w, src->height);
    else
        cvt_color_kernel<T, KIND, SCN, DCN, SWAP, false><<<grid, block, 0, gip__stream(ctx)>>>(
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
        default: /* the colour spaces: cvt_space_cuda.cu */
            break;
        }
        return gip__error(ctx, GIP_ERR_INTERNAL, "gip_cvt_color: code %d reached the CUDA backend",
                          (int)code);
    });
}
