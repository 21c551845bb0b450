/* SPDX-License-Identifier: MIT */
/* CUDA backend of the separable-filter engine: one fused kernel per (source dtype, destination
 * dtype, channels, arithmetic) that filters a tile horizontally into shared memory and vertically
 * from it, so no intermediate image goes through global memory. Same arithmetic, in the same
 * order, as the CPU backend: u8 Gaussian in OpenCV's fixed point, the rest in float without FMA
 * contraction. */
#include <new>
#include <type_traits>

#include "cuda_util.cuh"
#include "border.h"

extern "C" {
#include "separable.h"
}

namespace
{

/* Tile geometry of the fused kernel: output pixels per block in x and rows per block; threads. */
constexpr int TILE_W = 64;
constexpr int TILE_H = 32;
constexpr int THREADS = 256;
constexpr int FUSED_K = GIP__SEP_CUDA_FUSED_MAX_K;

struct sep_geom {
    const void *src;
    int64_t sstride;
    void *dst;
    int64_t dstride;
    int64_t w, h;
    int kw, kh, ax, ay;
    gip_border border;
    float bval[4];
    float scale;
};

template <int N> struct sep_coeffs {
    float kxf[N], kyf[N];
    int32_t kxi[N], kyi[N];
};

template <typename T> __device__ __forceinline__ float load_elem(const T *row, int64_t i)
{
    return static_cast<float>(row[i]);
}

/* Horizontal sum at source row sy (-1: border row) for element (x, c). */
template <typename TS, int CN, bool FIXED, int N>
__device__ __forceinline__ float hsum_f(const sep_geom &g, const sep_coeffs<N> &k, const TS *row,
                                        int64_t x, int c)
{
    float acc = 0.0f;
    for (int i = 0; i < g.kw; i++) {
        int64_t sx = row ? gip__border_index(x - g.ax + i, g.w, g.border) : -1;
        float v = sx >= 0 ? load_elem(row, sx * CN + c) : g.bval[c];
        float p = __fmul_rn(k.kxf[i], v);
        acc = i == 0 ? p : __fadd_rn(acc, p);
    }
    return acc;
}

template <typename TS, int CN, int N>
__device__ __forceinline__ uint16_t hsum_i(const sep_geom &g, const sep_coeffs<N> &k, const TS *row,
                                           int64_t x, int c)
{
    int32_t acc = 0;
    for (int i = 0; i < g.kw; i++) {
        int64_t sx = row ? gip__border_index(x - g.ax + i, g.w, g.border) : -1;
        int32_t v = sx >= 0 ? (int32_t)row[sx * CN + c] : (int32_t)g.bval[c];
        acc += k.kxi[i] * v;
    }
    return (uint16_t)acc;
}

template <typename TD, bool FIXED>
__device__ __forceinline__ TD finish(float facc, int32_t iacc, float scale)
{
    if constexpr (FIXED)
        return (TD)gip__sat_u8_i32((iacc + 32768) >> 16);
    else
        return gip__saturate<TD>(__fmul_rn(facc, scale));
}

template <typename TS, typename TD, int CN, bool FIXED>
__global__ void __launch_bounds__(THREADS)
    sep_fused(sep_geom g, sep_coeffs<FUSED_K> k, int64_t tiles_y)
{
    using HT = typename std::conditional<FIXED, uint16_t, float>::type;
    extern __shared__ __align__(16) unsigned char smem[];
    HT *hs = reinterpret_cast<HT *>(smem);
    constexpr int ROW = TILE_W * CN;
    const int hrows = TILE_H + g.kh - 1;
    const int64_t x0 = (int64_t)blockIdx.x * TILE_W;
    for (int64_t ty = blockIdx.y; ty < tiles_y; ty += gridDim.y) {
        const int64_t y0 = ty * TILE_H;
        /* Horizontal pass of the tile's source rows (with the vertical halo) into shared memory. */
        for (int idx = threadIdx.x; idx < hrows * ROW; idx += THREADS) {
            int r = idx / ROW, e = idx - r * ROW;
            int px = e / CN, c = e - px * CN;
            int64_t x = x0 + px;
            if (x >= g.w)
                continue;
            int64_t sy = gip__border_index(y0 - g.ay + r, g.h, g.border);
            const TS *row = sy >= 0 ? gip__row<TS>(g.src, g.sstride, sy) : nullptr;
            if constexpr (FIXED)
                hs[idx] = hsum_i<TS, CN>(g, k, row, x, c);
            else
                hs[idx] = hsum_f<TS, CN, FIXED>(g, k, row, x, c);
        }
        __syncthreads();
        /* Vertical pass from shared memory; consecutive threads write consecutive elements. */
        for (int idx = threadIdx.x; idx < TILE_H * ROW; idx += THREADS) {
            int r = idx / ROW, e = idx - r * ROW;
            int64_t y = y0 + r, x = x0 + e / CN;
            if (y >= g.h || x >= g.w)
                continue;
            float facc = 0.0f;
            int32_t iacc = 0;
            for (int j = 0; j < g.kh; j++) {
                HT v = hs[(r + j) * ROW + e];
                if constexpr (FIXED) {
                    iacc += k.kyi[j] * (int32_t)v;
                } else {
                    float p = __fmul_rn(k.kyf[j], v);
                    facc = j == 0 ? p : __fadd_rn(facc, p);
                }
            }
            gip__row<TD>(g.dst, g.dstride, y)[x0 * CN + e] = finish<TD, FIXED>(facc, iacc, g.scale);
        }
        __syncthreads();
    }
}

/* Kernels larger than the fused tile allows: one thread per output element, the same sums in the
 * same order, straight from global memory (still no intermediate image). */
template <typename TS, typename TD, int CN, bool FIXED>
__global__ void sep_direct(sep_geom g, sep_coeffs<GIP__SEP_MAX_K> k)
{
    int64_t n = g.w * CN * g.h;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t y = i / (g.w * CN), e = i - y * g.w * CN, x = e / CN;
        int c = (int)(e - x * CN);
        float facc = 0.0f;
        int32_t iacc = 0;
        for (int j = 0; j < g.kh; j++) {
            int64_t sy = gip__border_index(y - g.ay + j, g.h, g.border);
            const TS *row = sy >= 0 ? gip__row<TS>(g.src, g.sstride, sy) : nullptr;
            if constexpr (FIXED) {
                iacc += k.kyi[j] * (int32_t)hsum_i<TS, CN>(g, k, row, x, c);
            } else {
                float p = __fmul_rn(k.kyf[j], hsum_f<TS, CN, FIXED>(g, k, row, x, c));
                facc = j == 0 ? p : __fadd_rn(facc, p);
            }
        }
        gip__row<TD>(g.dst, g.dstride, y)[e] = finish<TD, FIXED>(facc, iacc, g.scale);
    }
}

template <int N> void fill_coeffs(sep_coeffs<N> &k, const gip__sep_plan *p)
{
    for (int i = 0; i < N; i++) {
        k.kxf[i] = i < p->kw ? p->kxf[i] : 0.0f;
        k.kyf[i] = i < p->kh ? p->kyf[i] : 0.0f;
        k.kxi[i] = i < p->kw ? p->kxi[i] : 0;
        k.kyi[i] = i < p->kh ? p->kyi[i] : 0;
    }
}

template <typename TS, typename TD, int CN, bool FIXED>
gip_status launch(gip_context *ctx, const gip__sep_plan *p, const sep_geom &g)
{
    cudaStream_t s = gip__stream(ctx);
    if (p->kw <= FUSED_K && p->kh <= FUSED_K) {
        using HT = typename std::conditional<FIXED, uint16_t, float>::type;
        size_t shm = (size_t)(TILE_H + p->kh - 1) * TILE_W * CN * sizeof(HT);
        auto kern = sep_fused<TS, TD, CN, FIXED>;
        if (shm > 48 * 1024) {
            gip_status st = gip__cuda_status(
                ctx,
                cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm),
                "separable filter: shared memory size");
            if (st)
                return st;
        }
        sep_coeffs<FUSED_K> k;
        fill_coeffs(k, p);
        int64_t tiles_y = (g.h + TILE_H - 1) / TILE_H;
        dim3 grid(gip__div_up(g.w, TILE_W), (unsigned)(tiles_y < 65535 ? tiles_y : 65535));
        kern<<<grid, THREADS, shm, s>>>(g, k, tiles_y);
        return GIP__LAUNCH_CHECK(ctx, "separable filter (fused)");
    }
    /* 16 KiB of coefficients: on the heap rather than on the caller's stack. */
    sep_coeffs<GIP__SEP_MAX_K> *kp = new (std::nothrow) sep_coeffs<GIP__SEP_MAX_K>;
    if (!kp)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "separable filter: out of host memory");
    fill_coeffs(*kp, p);
    int64_t n = g.w * CN * g.h;
    int64_t blocks = (n + 255) / 256;
    sep_direct<TS, TD, CN, FIXED>
        <<<(unsigned)(blocks < 65536 * 8 ? blocks : 65536 * 8), 256, 0, s>>>(g, *kp);
    delete kp;
    return GIP__LAUNCH_CHECK(ctx, "separable filter (direct)");
}

template <typename TS, typename TD, bool FIXED>
gip_status by_channels(gip_context *ctx, const gip__sep_plan *p, const sep_geom &g, int cn)
{
    switch (cn) {
    case 1:
        return launch<TS, TD, 1, FIXED>(ctx, p, g);
    case 3:
        return launch<TS, TD, 3, FIXED>(ctx, p, g);
    case 4:
        return launch<TS, TD, 4, FIXED>(ctx, p, g);
    default:
        return gip__error(ctx, GIP_ERR_UNSUPPORTED, "separable filter: %d channels", cn);
    }
}

} // namespace

extern "C" gip_status gip__sep_run_cuda(gip_context *ctx, const gip__sep_plan *plan,
                                        const gip_image *src, gip_image *dst)
{
    gip_status st = gip__cuda_enter(ctx);
    if (st)
        return st;
    sep_geom g;
    g.src = src->data;
    g.sstride = src->stride;
    g.dst = dst->data;
    g.dstride = dst->stride;
    g.w = src->width;
    g.h = src->height;
    g.kw = plan->kw;
    g.kh = plan->kh;
    g.ax = plan->ax;
    g.ay = plan->ay;
    g.border = plan->border;
    for (int c = 0; c < 4; c++)
        g.bval[c] = plan->border_value[c];
    g.scale = plan->scale;
    int cn = src->channels;
    if (plan->mode == GIP__SEP_FIXED_U8)
        return by_channels<uint8_t, uint8_t, true>(ctx, plan, g, cn);
    gip_dtype sd = src->dtype, dd = dst->dtype;
    if (sd == GIP_U8 && dd == GIP_U8)
        return by_channels<uint8_t, uint8_t, false>(ctx, plan, g, cn);
    if (sd == GIP_U8 && dd == GIP_F32)
        return by_channels<uint8_t, float, false>(ctx, plan, g, cn);
    if (sd == GIP_U16 && dd == GIP_U16)
        return by_channels<uint16_t, uint16_t, false>(ctx, plan, g, cn);
    if (sd == GIP_U16 && dd == GIP_F32)
        return by_channels<uint16_t, float, false>(ctx, plan, g, cn);
    if (sd == GIP_F32 && dd == GIP_F32)
        return by_channels<float, float, false>(ctx, plan, g, cn);
    return gip__error(ctx, GIP_ERR_UNSUPPORTED, "separable filter: %s to %s", gip_dtype_name(sd),
                      gip_dtype_name(dd));
}
