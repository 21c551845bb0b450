/* SPDX-License-Identifier: MIT */
/* The 2-D correlation engine on CUDA: gip__f2d_run_cuda gives a plan to the first kernel that
 * takes it. Integer plans on u8 images with taps inside 3x3 (Sobel, Scharr, the 3x3 box, integer
 * kernels) run the packed kernel, which sums two outputs per 32-bit integer operation
 * (filter2d_packed_cuda.cu); plans with every tap within one pixel on 16-byte aligned rows run
 * the ring with float accumulators (filter2d_ring_cuda.cu); plans whose taps fit a 3x3 or 5x5 box
 * run a tiled kernel specialised for the box, the channel count and the dtypes
 * (filter2d_box_cuda.cu); any other plan runs the generic tiled kernel below, and kernels too
 * large for a tile read global memory directly. All of them use exactly the CPU's arithmetic
 * (filter2d.h), so integer results match the CPU bit for bit. Each family has its own file so
 * that they build in parallel: as one file the engine took over four minutes on one core of the
 * GPU machine. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <type_traits>

#include "border.h"
#include "cuda_util.cuh"
#include "filter2d.h"

/* ---- the generic path: any kernel ---------------------------------------------------------- */

/* Tile geometry (constexpr so that it can be tuned after GPU runs). */
static constexpr int F2D_TX = 32;                  /* threads in x (a warp along a row) */
static constexpr int F2D_TY = 8;                   /* threads in y */
static constexpr int F2D_PX = 4;                   /* outputs per thread along x, F2D_TX apart */
static constexpr int F2D_PY = 4;                   /* outputs per thread along y, F2D_TY apart */
static constexpr int F2D_TILE_W = F2D_TX * F2D_PX; /* tile width in elements (not pixels) */
static constexpr int F2D_TILE_H = F2D_TY * F2D_PY; /* tile height in rows */
static constexpr int F2D_SMEM_MAX = 48 * 1024;     /* larger tiles take the direct kernel */
static constexpr int F2D_PARAM_TAPS = 128;         /* taps passed by value with the launch */
static constexpr int F2D_DIRECT_THREADS = 256;

struct F2dTap {
    int16_t dx, dy;
    int32_t k; /* float bits for float plans, the int for integer plans */
};

struct F2dArgs {
    const char *src;
    int64_t sstride;
    char *dst;
    int64_t dstride;
    int64_t W, H, n; /* n = W * C elements per row */
    int32_t C;
    int32_t ax, ay;
    int32_t ntaps, ntaps2;
    int32_t border;
    float bv[4];
    float init, scale, delta;
    int32_t affine, post;
    int32_t pitch, srows; /* tile row length in elements, tile rows */
    const F2dTap *gtaps;  /* taps in device memory when there are more than F2D_PARAM_TAPS */
    F2dTap taps[F2D_PARAM_TAPS];
};

__device__ __forceinline__ F2dTap f2d_tap(const F2dArgs &a, int t)
{
    return a.gtaps ? a.gtaps[t] : a.taps[t];
}

template <typename A> __device__ __forceinline__ A f2d_mac(int32_t k, A v, A acc);
template <> __device__ __forceinline__ int32_t f2d_mac<int32_t>(int32_t k, int32_t v, int32_t acc)
{
    return acc + k * v;
}
template <> __device__ __forceinline__ float f2d_mac<float>(int32_t k, float v, float acc)
{
    return __fmaf_rn(__int_as_float(k), v, acc);
}

template <typename D> __device__ __forceinline__ D f2d_sat_int(int32_t v);
template <> __device__ __forceinline__ uint8_t f2d_sat_int<uint8_t>(int32_t v)
{
    return gip__sat_u8_i32(v);
}
template <> __device__ __forceinline__ uint16_t f2d_sat_int<uint16_t>(int32_t v)
{
    return gip__sat_u16_i32(v);
}
template <> __device__ __forceinline__ int16_t f2d_sat_int<int16_t>(int32_t v)
{
    return gip__sat_s16_i32(v);
}
template <> __device__ __forceinline__ float f2d_sat_int<float>(int32_t v)
{
    return __int2float_rn(v);
}

/* The output value from the accumulators, as described in filter2d.h. */
template <typename D, typename A>
__device__ __forceinline__ D f2d_finish(const F2dArgs &a, A acc0, A acc1)
{
    constexpr bool is_int = std::is_same<A, int32_t>::value;
    if constexpr (is_int) {
        if (!a.affine && a.post != GIP__F2D_MAG) {
            int32_t v = (int32_t)acc0;
            if (a.post == GIP__F2D_ABS)
                v = v < 0 ? -v : v;
            return f2d_sat_int<D>(v);
        }
    }
    float v;
    if (a.post == GIP__F2D_MAG) {
        float gx = is_int ? __int2float_rn((int32_t)acc0) : (float)acc0;
        float gy = is_int ? __int2float_rn((int32_t)acc1) : (float)acc1;
        float s = __fmul_rn(gx, gx);
        s = __fmaf_rn(gy, gy, s);
        v = __fsqrt_rn(s);
    } else {
        v = is_int ? __int2float_rn((int32_t)acc0) : (float)acc0;
    }
    if (a.affine)
        v = __fmaf_rn(v, a.scale, a.delta);
    if (a.post == GIP__F2D_ABS)
        v = fabsf(v);
    return gip__saturate<D>(v);
}

template <typename A> __device__ __forceinline__ A f2d_init(const F2dArgs &a)
{
    if constexpr (std::is_same<A, int32_t>::value)
        return 0;
    else
        return a.init;
}

template <typename S, typename D, typename A>
__global__ void __launch_bounds__(F2D_TX *F2D_TY) f2d_tiled(const F2dArgs a)
{
    extern __shared__ __align__(16) unsigned char f2d_smem[];
    A *tile = reinterpret_cast<A *>(f2d_smem);
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t ntx = (a.n + F2D_TILE_W - 1) / F2D_TILE_W;
    const int64_t nty = (a.H + F2D_TILE_H - 1) / F2D_TILE_H;
    const gip_border border = (gip_border)a.border;
    for (int64_t by = blockIdx.y; by < nty; by += gridDim.y)
        for (int64_t bx = blockIdx.x; bx < ntx; bx += gridDim.x) {
            const int64_t ex0 = bx * F2D_TILE_W, y0 = by * F2D_TILE_H;
            __syncthreads(); /* the previous tile's readers are done */
            /* Tile element e holds source element ex0 + e - ax * C (border-mapped). */
            for (int e = tx; e < a.pitch; e += F2D_TX) {
                const int64_t ge = ex0 + e; /* >= 0; shifted by ax * C */
                const int32_t c = (int32_t)(ge % a.C);
                const int64_t sx = gip__border_index(ge / a.C - a.ax, a.W, border);
                for (int r = ty; r < a.srows; r += F2D_TY) {
                    const int64_t sy = gip__border_index(y0 - a.ay + r, a.H, border);
                    A v;
                    if (sx < 0 || sy < 0)
                        v = (A)a.bv[c];
                    else
                        v = (A)gip__row<S>(a.src, a.sstride, sy)[sx * a.C + c];
                    tile[r * a.pitch + e] = v;
                }
            }
            __syncthreads();
            A acc[F2D_PY][F2D_PX], acc2[F2D_PY][F2D_PX];
#pragma unroll
            for (int j = 0; j < F2D_PY; j++)
#pragma unroll
                for (int i = 0; i < F2D_PX; i++)
                    acc[j][i] = f2d_init<A>(a), acc2[j][i] = f2d_init<A>(a);
            for (int t = 0; t < a.ntaps; t++) {
                const F2dTap tp = f2d_tap(a, t);
                const A *base = tile + (tp.dy + a.ay + ty) * a.pitch + (tp.dx + a.ax) * a.C + tx;
#pragma unroll
                for (int j = 0; j < F2D_PY; j++)
#pragma unroll
                    for (int i = 0; i < F2D_PX; i++)
                        acc[j][i] =
                            f2d_mac<A>(tp.k, base[j * F2D_TY * a.pitch + i * F2D_TX], acc[j][i]);
            }
            if (a.post == GIP__F2D_MAG)
                for (int t = a.ntaps; t < a.ntaps + a.ntaps2; t++) {
                    const F2dTap tp = f2d_tap(a, t);
                    const A *base =
                        tile + (tp.dy + a.ay + ty) * a.pitch + (tp.dx + a.ax) * a.C + tx;
#pragma unroll
                    for (int j = 0; j < F2D_PY; j++)
#pragma unroll
                        for (int i = 0; i < F2D_PX; i++)
                            acc2[j][i] = f2d_mac<A>(tp.k, base[j * F2D_TY * a.pitch + i * F2D_TX],
                                                    acc2[j][i]);
                }
#pragma unroll
            for (int j = 0; j < F2D_PY; j++) {
                const int64_t y = y0 + ty + j * F2D_TY;
                if (y >= a.H)
                    break;
                D *drow = gip__row<D>(a.dst, a.dstride, y);
#pragma unroll
                for (int i = 0; i < F2D_PX; i++) {
                    const int64_t e = ex0 + tx + i * F2D_TX;
                    if (e < a.n)
                        drow[e] = f2d_finish<D, A>(a, acc[j][i], acc2[j][i]);
                }
            }
        }
}

/* Large kernels: one output element per thread, taps read through the border from global memory
 * (cached), same arithmetic. */
template <typename S, typename D, typename A> __global__ void f2d_direct(const F2dArgs a)
{
    const gip_border border = (gip_border)a.border;
    for (int64_t y = blockIdx.y; y < a.H; y += gridDim.y)
        for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < a.n;
             e += (int64_t)gridDim.x * blockDim.x) {
            const int64_t px = e / a.C;
            const int32_t c = (int32_t)(e % a.C);
            A acc[2] = {f2d_init<A>(a), f2d_init<A>(a)};
            const int32_t nt = a.ntaps + (a.post == GIP__F2D_MAG ? a.ntaps2 : 0);
            for (int t = 0; t < nt; t++) {
                const F2dTap tp = f2d_tap(a, t);
                const int64_t sx = gip__border_index(px + tp.dx, a.W, border);
                const int64_t sy = gip__border_index(y + tp.dy, a.H, border);
                A v;
                if (sx < 0 || sy < 0)
                    v = (A)a.bv[c];
                else
                    v = (A)gip__row<S>(a.src, a.sstride, sy)[sx * a.C + c];
                const int k = t < a.ntaps ? 0 : 1;
                acc[k] = f2d_mac<A>(tp.k, v, acc[k]);
            }
            gip__row<D>(a.dst, a.dstride, y)[e] = f2d_finish<D, A>(a, acc[0], acc[1]);
        }
}

template <typename S, typename D, typename A>
static gip_status f2d_launch(gip_context *ctx, const F2dArgs &a, bool tiled, size_t smem)
{
    cudaStream_t stream = gip__stream(ctx);
    if (tiled) {
        int64_t ntx = (a.n + F2D_TILE_W - 1) / F2D_TILE_W;
        int64_t nty = (a.H + F2D_TILE_H - 1) / F2D_TILE_H;
        dim3 grid((unsigned)(ntx < 2147483647 ? ntx : 2147483647),
                  (unsigned)(nty < 65535 ? nty : 65535));
        f2d_tiled<S, D, A><<<grid, dim3(F2D_TX, F2D_TY), smem, stream>>>(a);
    } else {
        int64_t nbx = (a.n + F2D_DIRECT_THREADS - 1) / F2D_DIRECT_THREADS;
        dim3 grid((unsigned)(nbx < 65535 ? nbx : 65535), (unsigned)(a.H < 65535 ? a.H : 65535));
        f2d_direct<S, D, A><<<grid, F2D_DIRECT_THREADS, 0, stream>>>(a);
    }
    return GIP__LAUNCH_CHECK(ctx, "2-D filter kernel");
}

template <typename S, typename A>
static gip_status f2d_dispatch_dst(gip_context *ctx, gip_dtype dt, const F2dArgs &a, bool tiled,
                                   size_t smem)
{
    switch (dt) {
    case GIP_U8:
        return f2d_launch<S, uint8_t, A>(ctx, a, tiled, smem);
    case GIP_U16:
        return f2d_launch<S, uint16_t, A>(ctx, a, tiled, smem);
    case GIP_S16:
        return f2d_launch<S, int16_t, A>(ctx, a, tiled, smem);
    case GIP_F32:
        return f2d_launch<S, float, A>(ctx, a, tiled, smem);
    default:
        return gip__error(ctx, GIP_ERR_INTERNAL, "2-D filter: unexpected dst dtype %d", (int)dt);
    }
}

extern "C" gip_status gip__f2d_run_cuda(gip_context *ctx, const gip__f2d_plan *plan,
                                        const gip_image *src, gip_image *dst)
{
    bool done = false;
    gip_status bst = gip__f2d_run_u8x3_cuda(ctx, plan, src, dst, &done);
    if (done || bst)
        return bst;
    bst = gip__f2d_run_ring_cuda(ctx, plan, src, dst, &done);
    if (done || bst)
        return bst;
    bst = gip__f2d_run_box_cuda(ctx, plan, src, dst, &done);
    if (done || bst)
        return bst;
    /* The arguments hold the taps by value (about 1 KiB): keep them off the stack. */
    F2dArgs *args = (F2dArgs *)calloc(1, sizeof *args);
    if (!args)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "2-D filter: out of host memory");
    args->src = (const char *)src->data;
    args->sstride = src->stride;
    args->dst = (char *)dst->data;
    args->dstride = dst->stride;
    args->W = src->width;
    args->H = src->height;
    args->C = src->channels;
    args->n = src->width * src->channels;
    args->ax = plan->ax;
    args->ay = plan->ay;
    args->ntaps = plan->ntaps;
    args->ntaps2 = plan->post == GIP__F2D_MAG ? plan->ntaps2 : 0;
    args->border = plan->border;
    for (int c = 0; c < 4; c++)
        args->bv[c] = plan->border_value[c];
    args->init = plan->init;
    args->scale = plan->scale;
    args->delta = plan->delta;
    args->affine = plan->affine;
    args->post = plan->post;
    args->pitch = F2D_TILE_W + (plan->kw - 1) * src->channels;
    args->srows = F2D_TILE_H + plan->kh - 1;
    const int32_t nt = args->ntaps + args->ntaps2;
    F2dTap *host = nt > F2D_PARAM_TAPS ? (F2dTap *)malloc((size_t)nt * sizeof(F2dTap)) : args->taps;
    gip_status st = GIP_OK;
    void *dev = NULL;
    if (!host) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "2-D filter: out of host memory");
        goto out_free_args;
    }
    for (int32_t t = 0; t < nt; t++) {
        const gip__f2d_tap *tp = &plan->taps[t];
        host[t].dx = (int16_t)tp->dx;
        host[t].dy = (int16_t)tp->dy;
        if (plan->int_acc)
            host[t].k = tp->ki;
        else
            memcpy(&host[t].k, &tp->kf, sizeof(float));
    }
    if (host != args->taps) {
        /* Many taps: a stream-ordered device copy, freed in stream order after the kernel. */
        size_t bytes = (size_t)nt * sizeof(F2dTap);
        cudaStream_t stream = gip__stream(ctx);
        if ((st = gip__cuda_malloc(ctx, bytes, &dev)))
            goto out_free_host;
        if ((st = gip__cuda_status(
                 ctx, cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, stream),
                 "copy of the filter taps")))
            goto out_free_dev;
        args->gtaps = (const F2dTap *)dev;
    }
    {
        const size_t smem = (size_t)args->srows * (size_t)args->pitch * 4;
        const bool tiled = smem <= (size_t)F2D_SMEM_MAX;
        if (plan->int_acc) {
            if (src->dtype == GIP_U8)
                st = f2d_dispatch_dst<uint8_t, int32_t>(ctx, dst->dtype, *args, tiled, smem);
            else
                st = f2d_dispatch_dst<uint16_t, int32_t>(ctx, dst->dtype, *args, tiled, smem);
        } else {
            if (src->dtype == GIP_U8)
                st = f2d_dispatch_dst<uint8_t, float>(ctx, dst->dtype, *args, tiled, smem);
            else if (src->dtype == GIP_U16)
                st = f2d_dispatch_dst<uint16_t, float>(ctx, dst->dtype, *args, tiled, smem);
            else
                st = f2d_dispatch_dst<float, float>(ctx, dst->dtype, *args, tiled, smem);
        }
    }
out_free_dev:
    gip__cuda_free(ctx, dev);
out_free_host:
    if (host != args->taps)
        free(host);
out_free_args:
    free(args);
    return st;
}
