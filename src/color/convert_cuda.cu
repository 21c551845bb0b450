/* SPDX-License-Identifier: MIT */
/* gip_convert on CUDA: one kernel templated on the source and destination element types, with
 * vector loads and stores of whole element groups, queued on the context's stream. */
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

/* An unsigned type of B bytes (4, 8 or 16) for vector loads and stores. */
template <int B> struct vec_of;
template <> struct vec_of<4> {
    using type = uint32_t;
};
template <> struct vec_of<8> {
    using type = uint2;
};
template <> struct vec_of<16> {
    using type = uint4;
};

/* Elements per group: 16 bytes on the wider side, 4 or 8 on the narrower. */
template <typename S, typename D> __host__ __device__ constexpr int group_elems()
{
    return 16 / (int)(sizeof(S) > sizeof(D) ? sizeof(S) : sizeof(D));
}

/* Groups per thread, a block's worth apart so that every load and store instruction of a warp
 * covers one contiguous span. */
constexpr int CONVERT_GROUPS = 2;
constexpr unsigned CONVERT_THREADS = 256;

/* Each thread converts CONVERT_GROUPS groups of N consecutive elements of a row, for rows y,
 * y + gridDim.y ... (any height fits the 65535 grid limit). VEC: whole groups move as one vector
 * each way (the launcher checks that bases and strides allow it); the row's last partial group
 * and the !VEC variant go element by element. In place (src == dst, equal element sizes) is safe:
 * a thread reads its group before writing it, and no other thread touches it. */
template <typename S, typename D, bool PLAIN, bool VEC>
__global__ void convert_kernel(const void *src, int64_t sstride, void *dst, int64_t dstride,
                               int64_t n, int64_t height, float a, float b)
{
    constexpr int N = group_elems<S, D>();
    using SV = typename vec_of<N *(int)sizeof(S)>::type;
    using DV = typename vec_of<N *(int)sizeof(D)>::type;
    const int64_t base = (int64_t)blockIdx.x * blockDim.x * CONVERT_GROUPS + threadIdx.x;
    for (int64_t y = blockIdx.y; y < height; y += gridDim.y) {
        const S *srow = gip__row<S>(src, sstride, y);
        D *drow = gip__row<D>(dst, dstride, y);
#pragma unroll
        for (int g = 0; g < CONVERT_GROUPS; g++) {
            const int64_t i0 = (base + (int64_t)g * blockDim.x) * N;
            if (i0 >= n)
                break;
            if (VEC && i0 + N <= n) {
                union {
                    SV v;
                    S e[N];
                } sv;
                union {
                    DV v;
                    D e[N];
                } dv;
                sv.v = *reinterpret_cast<const SV *>(srow + i0);
#pragma unroll
                for (int k = 0; k < N; k++)
                    dv.e[k] = convert_one<S, D, PLAIN>(sv.e[k], a, b);
                *reinterpret_cast<DV *>(drow + i0) = dv.v;
            } else {
                const int64_t m = n - i0 < N ? n - i0 : N;
                for (int64_t k = 0; k < m; k++)
                    drow[i0 + k] = convert_one<S, D, PLAIN>(srow[i0 + k], a, b);
            }
        }
    }
}

template <typename S, typename D, bool PLAIN>
gip_status convert_launch(gip_context *ctx, const gip_image *src, gip_image *dst, float a, float b)
{
    constexpr int N = group_elems<S, D>();
    int64_t n = src->width * src->channels;
    int64_t height = src->height, sstride = src->stride, dstride = dst->stride;
    /* Tight on both sides: one long row, so that rows end in no partial group. */
    if (sstride == n * (int64_t)sizeof(S) && dstride == n * (int64_t)sizeof(D)) {
        n *= height;
        height = 1;
        sstride = dstride = 0;
    }
    const uint64_t sa = (uint64_t)(uintptr_t)src->data | (uint64_t)sstride;
    const uint64_t da = (uint64_t)(uintptr_t)dst->data | (uint64_t)dstride;
    const bool vec = sa % (N * sizeof(S)) == 0 && da % (N * sizeof(D)) == 0;
    const int64_t per_block = (int64_t)CONVERT_THREADS * CONVERT_GROUPS * N;
    unsigned bx = CONVERT_THREADS;
    if (n < per_block) { /* narrow rows: fewer threads, each still on whole groups */
        int64_t groups = (n + N - 1) / N;
        bx = (unsigned)((groups + CONVERT_GROUPS - 1) / CONVERT_GROUPS + 31) / 32 * 32;
    }
    dim3 grid(gip__div_up(n, (int64_t)bx * CONVERT_GROUPS * N),
              (unsigned)(height < 65535 ? height : 65535), 1);
    cudaStream_t stream = gip__stream(ctx);
    if (vec)
        convert_kernel<S, D, PLAIN, true>
            <<<grid, bx, 0, stream>>>(src->data, sstride, dst->data, dstride, n, height, a, b);
    else
        convert_kernel<S, D, PLAIN, false>
            <<<grid, bx, 0, stream>>>(src->data, sstride, dst->data, dstride, n, height, a, b);
    return GIP__LAUNCH_CHECK(ctx, "gip_convert: convert kernel launch");
}

} // namespace

extern "C" gip_status gip__convert_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                        const gip__convert_params *p)
{
    return gip__dispatch_dtype(src->dtype, [&](auto s_tag) {
        using S = decltype(s_tag);
        return gip__dispatch_dtype(dst->dtype, [&](auto d_tag) {
            using D = decltype(d_tag);
            if (p->plain)
                return convert_launch<S, D, true>(ctx, src, dst, p->alpha, p->beta);
            return convert_launch<S, D, false>(ctx, src, dst, p->alpha, p->beta);
        });
    });
}
