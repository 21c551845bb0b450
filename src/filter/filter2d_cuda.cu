/* SPDX-License-Identifier: MIT */
/* The 2-D correlation engine on CUDA. Integer plans on u8 images with taps inside 3x3 (Sobel,
 * Scharr, the 3x3 box, integer kernels) run a kernel that sums two outputs per 32-bit integer
 * operation; plans whose taps fit a 3x3 or 5x5 box (float taps, the magnitude's two kernels at
 * once) run a tiled kernel specialised for the box, the channel count and the dtypes; any other
 * plan runs the generic tiled kernel, and
 * kernels too large for a tile read global memory directly. All of them use exactly the CPU's
 * arithmetic (filter2d.h), so integer results match the CPU bit for bit. */
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

/* ---- the fast path: every tap inside a 3x3 or 5x5 box ---------------------------------------
 *
 * A block of FB_THREADS threads owns a tile of FB_THREADS chunks of a row (a chunk is 8 bytes of
 * u8/u16 or 16 bytes of f32 source elements) by FB_NY output rows. The tile's source rows and
 * their halo are staged in shared memory in the source dtype: the rows' border mapping once a
 * row, one cp.async per chunk where the chunk lies inside the row and the row is aligned, the
 * border element by element only outside the image (H200, 2026-12-04, against a 64-bit border
 * mapping and an alignment test for every chunk and a load through registers: filter2D 3x3 at
 * 7680x4320 u8c1 0.138 -> 0.126 ms, u8c3 0.258 -> 0.228, f32c1 0.143 -> 0.107; Sobel magnitude
 * u8c3 0.447 -> 0.413). Each thread then walks its column of chunks down the staged rows:
 * it converts one window row to float once and adds it, tap by tap, to the K output rows that use
 * it; an output row is finished and stored (vectorised where dst allows) when its last kernel row
 * is in. Every output's taps arrive in the plan's row-major order, one __fmaf_rn at a time, as on
 * the CPU; integer plans run the same float chain, which is exact because every partial sum stays
 * below 2^24 (checked on the host), so the results equal the CPU's int32 sums. */
static constexpr int FB_THREADS = 128; /* threads per block, one chunk column each */
/* Output rows per tile. 32 was slower for u8 (H200, 2026-12-04, Sobel magnitude at 7680x4320
 * u8c3 0.413 -> 0.509 ms, u8c1 0.192 -> 0.244). */
static constexpr int FB_NY = 16;
static constexpr int FB_MAXK = 5; /* largest box */

template <typename S> struct FbChunk;
template <> struct FbChunk<uint8_t> {
    static constexpr int VE = 8; /* elements per chunk */
    typedef uint2 vec;
};
template <> struct FbChunk<uint16_t> {
    static constexpr int VE = 4;
    typedef uint2 vec;
};
template <> struct FbChunk<float> {
    static constexpr int VE = 4;
    typedef uint4 vec;
};

struct FbArgs {
    const char *src;
    int64_t sstride;
    char *dst;
    int64_t dstride;
    int32_t W, H, n; /* n = W * C elements per row */
    int32_t border;
    uint32_t mask[2];              /* bit (dy + R) * K + (dx + R): the tap is in the plan */
    float k[2][FB_MAXK * FB_MAXK]; /* coefficients at the same positions */
    float bv[4];
    float init, scale, delta;
    int32_t affine, post;
};

/* Source element e (any integer) of a staged row: the row's own element, or the border's. sy < 0:
 * the whole row is the constant border. */
template <typename S, int C>
__device__ __forceinline__ S fb_fetch(const FbArgs &a, const S *row, int32_t e)
{
    int32_t p = e >= 0 ? e / C : -((C - 1 - e) / C); /* floor(e / C) */
    int32_t c = e - p * C;
    if (!row)
        return (S)a.bv[c];
    if ((uint32_t)e < (uint32_t)a.n)
        return row[e];
    const int64_t sx = gip__border_index(p, a.W, (gip_border)a.border);
    return sx < 0 ? (S)a.bv[c] : row[sx * C + c];
}

/* Element i of a window held as 32-bit words, as a float (exact: u8 and u16 through the mantissa
 * of 2^23, which costs a byte permute and a subtraction instead of a slow conversion). */
template <typename S> __device__ __forceinline__ float fb_elem(const uint32_t *w, int i);
template <> __device__ __forceinline__ float fb_elem<uint8_t>(const uint32_t *w, int i)
{
    return __fsub_rn(__uint_as_float(__byte_perm(w[i >> 2], 0x4B000000u, 0x7540u | (i & 3))),
                     8388608.0f);
}
template <> __device__ __forceinline__ float fb_elem<uint16_t>(const uint32_t *w, int i)
{
    const unsigned b = (unsigned)(i & 1) * 2;
    return __fsub_rn(
        __uint_as_float(__byte_perm(w[i >> 1], 0x4B000000u, 0x7500u | ((b + 1) << 4) | b)),
        8388608.0f);
}
template <> __device__ __forceinline__ float fb_elem<float>(const uint32_t *w, int i)
{
    return __uint_as_float(w[i]);
}

/* saturate(v) with the CPU store's rules (clamp, then round half to even; NaN gives the low
 * bound), through the 1.5 * 2^23 rounding trick instead of a conversion instruction. */
template <typename D> __device__ __forceinline__ D fb_sat(float v);
__device__ __forceinline__ int32_t fb_rne(float v, float lo, float hi)
{
    v = fminf(fmaxf(v, lo), hi);
    return __float_as_int(__fadd_rn(v, 12582912.0f)) - 0x4B400000;
}
template <> __device__ __forceinline__ uint8_t fb_sat<uint8_t>(float v)
{
    return (uint8_t)fb_rne(v, 0.0f, 255.0f);
}
template <> __device__ __forceinline__ uint16_t fb_sat<uint16_t>(float v)
{
    return (uint16_t)fb_rne(v, 0.0f, 65535.0f);
}
template <> __device__ __forceinline__ int16_t fb_sat<int16_t>(float v)
{
    return (int16_t)fb_rne(v, -32768.0f, 32767.0f);
}
template <> __device__ __forceinline__ float fb_sat<float>(float v)
{
    return v;
}

/* The output value (filter2d.h); g0, g1 are exact integers for integer plans. */
template <typename D, bool MAG>
__device__ __forceinline__ D fb_finish(const FbArgs &a, float g0, float g1)
{
    float v = g0;
    if (MAG) {
        float s = __fmul_rn(g0, g0); /* gx * gx */
        s = __fmaf_rn(g1, g1, s);
        v = __fsqrt_rn(s);
    }
    if (a.affine)
        v = __fmaf_rn(v, a.scale, a.delta);
    if (a.post == GIP__F2D_ABS)
        v = fabsf(v);
    return fb_sat<D>(v);
}

/* Packs n values of D into 32-bit words (little endian, as memory holds them). */
template <typename D, int N> __device__ __forceinline__ void fb_pack(const D *v, uint32_t *w)
{
#pragma unroll
    for (int i = 0; i < N * (int)sizeof(D) / 4; i++)
        w[i] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        if (sizeof(D) == 1)
            w[i / 4] |= (uint32_t)(uint8_t)v[i] << (8 * (i % 4));
        else if (sizeof(D) == 2)
            w[i / 2] |= (uint32_t)(uint16_t)v[i] << (16 * (i % 2));
        else
            w[i] = __float_as_uint((float)v[i]);
    }
}

template <typename S, typename D, int C, int K, bool MAG>
__global__ void __launch_bounds__(FB_THREADS) f2d_box(const FbArgs a)
{
    constexpr int R = K / 2, RC = R * C;
    constexpr int VE = FbChunk<S>::VE, CB = VE * (int)sizeof(S);
    constexpr int HC = (RC + VE - 1) / VE; /* halo chunks on each side */
    constexpr int HE = HC * VE;            /* halo elements on each side */
    constexpr int CPR = FB_THREADS + 2 * HC;
    constexpr int ROWS = FB_NY + 2 * R;
    constexpr int TW = FB_THREADS * VE;
    constexpr int NW = (2 * HC + 1) * CB / 4; /* words of a thread's window row */
    constexpr int WIN = VE + 2 * RC;          /* window elements a thread uses */
    constexpr int NACC2 = MAG ? K : 1;
    typedef typename FbChunk<S>::vec vec;
    __shared__ __align__(16) unsigned char sm[ROWS * CPR * CB];
    __shared__ const S *srow[ROWS]; /* a tile's source rows (NULL: constant border) */
    __shared__ bool svec[ROWS];     /* the row takes vector copies (aligned) */

    const int tid = threadIdx.x;
    const int32_t ex0 = (int32_t)blockIdx.x * TW; /* first output element of the tile */
    const int32_t elo = ex0 - HE;                 /* element held by chunk 0 of a staged row */
    const int32_t nty = (a.H + FB_NY - 1) / FB_NY;
    const gip_border border = (gip_border)a.border;
    for (int32_t by = blockIdx.y; by < nty; by += gridDim.y) {
        const int32_t y0 = by * FB_NY;
        __syncthreads(); /* the previous tile's readers are done */
        /* The rows' border mapping once a row; then every chunk inside its row is one
         * asynchronous copy (the element offsets are multiples of VE, so an aligned row keeps
         * every chunk aligned), the rest element by element through the border. */
        if (tid < ROWS) {
            const int32_t yy = y0 - R + tid;
            const int64_t sy =
                (uint32_t)yy < (uint32_t)a.H ? yy : gip__border_index(yy, a.H, border);
            const S *row = sy >= 0 ? gip__row<S>(a.src, a.sstride, sy) : nullptr;
            srow[tid] = row;
            svec[tid] = row && ((uintptr_t)row & (uintptr_t)(CB - 1)) == 0;
        }
        __syncthreads();
        const unsigned sbase = (unsigned)__cvta_generic_to_shared(sm);
        for (int idx = tid; idx < ROWS * CPR; idx += FB_THREADS) {
            const int r = idx / CPR, j = idx - r * CPR;
            const S *row = srow[r];
            const int32_t e0 = elo + j * VE;
            unsigned char *d = sm + (r * CPR + j) * CB;
            if (svec[r] && e0 >= 0 && e0 + VE <= a.n) {
                const unsigned sd = sbase + (unsigned)((r * CPR + j) * CB);
                if constexpr (CB == 16)
                    gip__cp_async16s(sd, row + e0);
                else
                    gip__cp_async8s(sd, row + e0);
            } else {
                S *ds = reinterpret_cast<S *>(d);
#pragma unroll
                for (int i = 0; i < VE; i++)
                    ds[i] = fb_fetch<S, C>(a, row, e0 + i);
            }
        }
        gip__cp_async_commit();
        gip__cp_async_wait<0>();
        __syncthreads();

        float acc[K][VE], acc2[NACC2][VE];
#pragma unroll
        for (int s = 0; s < K; s++)
#pragma unroll
            for (int i = 0; i < VE; i++)
                acc[s][i] = a.init;
#pragma unroll
        for (int s = 0; s < NACC2; s++)
#pragma unroll
            for (int i = 0; i < VE; i++)
                acc2[s][i] = a.init;
        const int32_t ex = ex0 + tid * VE; /* this thread's first output element */
#pragma unroll
        for (int ri = 0; ri < ROWS; ri++) {
            uint32_t w[NW];
#pragma unroll
            for (int q = 0; q < 2 * HC + 1; q++) {
                const vec v = *reinterpret_cast<const vec *>(sm + (ri * CPR + tid + q) * CB);
                w[q * CB / 4] = v.x;
                w[q * CB / 4 + 1] = v.y;
                if constexpr (CB == 16) {
                    w[q * CB / 4 + 2] = reinterpret_cast<const uint4 &>(v).z;
                    w[q * CB / 4 + 3] = reinterpret_cast<const uint4 &>(v).w;
                }
            }
            float x[WIN];
#pragma unroll
            for (int i = 0; i < WIN; i++)
                x[i] = fb_elem<S>(w, HE - RC + i);
#pragma unroll
            for (int dy = 0; dy < K; dy++) {
                const int o = ri - dy; /* the output row this window row is kernel row dy of */
                if (o < 0 || o >= FB_NY)
                    continue;
                const int s = o % K;
#pragma unroll
                for (int dx = 0; dx < K; dx++) {
                    const int t = dy * K + dx;
                    if (a.mask[0] >> t & 1u) {
                        const float kk = a.k[0][t];
#pragma unroll
                        for (int i = 0; i < VE; i++)
                            acc[s][i] = __fmaf_rn(kk, x[i + dx * C], acc[s][i]);
                    }
                    if (MAG && (a.mask[1] >> t & 1u)) {
                        const float kk = a.k[1][t];
#pragma unroll
                        for (int i = 0; i < VE; i++)
                            acc2[MAG ? s : 0][i] =
                                __fmaf_rn(kk, x[i + dx * C], acc2[MAG ? s : 0][i]);
                    }
                }
                if (dy != K - 1)
                    continue;
                /* Output row o is complete: store it and free its accumulators. */
                const int32_t y = y0 + o;
                if (y < a.H && ex < a.n) {
                    D out[VE];
#pragma unroll
                    for (int i = 0; i < VE; i++)
                        out[i] = fb_finish<D, MAG>(a, acc[s][i], acc2[MAG ? s : 0][i]);
                    D *drow = gip__row<D>(a.dst, a.dstride, y) + ex;
                    constexpr int OB = VE * (int)sizeof(D); /* 8, 16 or 32 bytes */
                    constexpr int VB = OB >= 16 ? 16 : 8;
                    if (ex + VE <= a.n && ((uintptr_t)drow & (uintptr_t)(VB - 1)) == 0) {
                        uint32_t pw[OB / 4];
                        fb_pack<D, VE>(out, pw);
                        if constexpr (VB == 16) {
#pragma unroll
                            for (int q = 0; q < OB / 16; q++)
                                reinterpret_cast<uint4 *>(drow)[q] = make_uint4(
                                    pw[4 * q], pw[4 * q + 1], pw[4 * q + 2], pw[4 * q + 3]);
                        } else {
                            *reinterpret_cast<uint2 *>(drow) = make_uint2(pw[0], pw[1]);
                        }
                    } else {
#pragma unroll
                        for (int i = 0; i < VE; i++)
                            if (ex + i < a.n)
                                drow[i] = out[i];
                    }
                }
#pragma unroll
                for (int i = 0; i < VE; i++)
                    acc[s][i] = a.init;
                if (MAG)
#pragma unroll
                    for (int i = 0; i < VE; i++)
                        acc2[MAG ? s : 0][i] = a.init;
            }
        }
    }
}

template <typename S, typename D, int C, int K, bool MAG>
static gip_status fb_launch(gip_context *ctx, const FbArgs &a)
{
    constexpr int TW = FB_THREADS * FbChunk<S>::VE;
    const int64_t ntx = ((int64_t)a.n + TW - 1) / TW;
    const int64_t nty = ((int64_t)a.H + FB_NY - 1) / FB_NY;
    dim3 grid((unsigned)ntx, (unsigned)(nty < 65535 ? nty : 65535));
    f2d_box<S, D, C, K, MAG><<<grid, FB_THREADS, 0, gip__stream(ctx)>>>(a);
    return GIP__LAUNCH_CHECK(ctx, "2-D filter kernel (3x3/5x5 tile)");
}

template <typename S, typename D, bool MAG>
static gip_status fb_dispatch(gip_context *ctx, const FbArgs &a, int32_t C, int32_t K)
{
    if (K == 3) {
        if (C == 1)
            return fb_launch<S, D, 1, 3, MAG>(ctx, a);
        if (C == 3)
            return fb_launch<S, D, 3, 3, MAG>(ctx, a);
        return fb_launch<S, D, 4, 3, MAG>(ctx, a);
    }
    if (C == 1)
        return fb_launch<S, D, 1, 5, MAG>(ctx, a);
    if (C == 3)
        return fb_launch<S, D, 3, 5, MAG>(ctx, a);
    return fb_launch<S, D, 4, 5, MAG>(ctx, a);
}

/* True when taps [b, e) are in strictly row-major order (the order the box kernel visits). */
static bool fb_row_major(const gip__f2d_tap *t, int32_t b, int32_t e)
{
    for (int32_t i = b + 1; i < e; i++)
        if (t[i].dy < t[i - 1].dy || (t[i].dy == t[i - 1].dy && t[i].dx <= t[i - 1].dx))
            return false;
    return true;
}

/* Fills the box kernel's arguments when the plan fits it: every tap within 2 of the anchor, each
 * kernel's taps in row-major order, integer plans exact in float (each kernel's sum of |k| times
 * the largest source value below 2^24), rows and heights within int32 tiles. Returns the box side
 * (3 or 5), or 0 when the generic kernels must run the plan. */
static int32_t fb_prepare(const gip__f2d_plan *p, const gip_image *src, const gip_image *dst,
                          FbArgs *fa)
{
    const int64_t n = src->width * (int64_t)src->channels;
    if (n > ((int64_t)1 << 30) || src->height > ((int64_t)1 << 30))
        return 0;
    const gip_dtype sd = src->dtype, dd = dst->dtype;
    const bool mag = p->post == GIP__F2D_MAG;
    const bool pair_ok =
        mag ? ((sd == GIP_U8 && (dd == GIP_U8 || dd == GIP_F32)) ||
               ((sd == GIP_U16 || sd == GIP_F32) && dd == GIP_F32))
            : ((sd == GIP_U8 && (dd == GIP_U8 || dd == GIP_S16 || dd == GIP_F32)) ||
               (sd == GIP_U16 && (dd == GIP_U16 || dd == GIP_F32)) ||
               (sd == GIP_F32 && dd == GIP_F32));
    if (!pair_ok)
        return 0;
    const int32_t nk = mag ? 2 : 1;
    const int32_t total = p->ntaps + (mag ? p->ntaps2 : 0);
    int32_t r = 0;
    for (int32_t i = 0; i < total; i++) {
        const int32_t ax = abs(p->taps[i].dx), ay = abs(p->taps[i].dy);
        r = ax > r ? ax : r;
        r = ay > r ? ay : r;
    }
    if (r > 2)
        return 0;
    const int32_t K = r <= 1 ? 3 : 5, R = K / 2;
    const double maxval = sd == GIP_U8 ? 255.0 : 65535.0;
    memset(fa, 0, sizeof *fa);
    for (int32_t part = 0; part < nk; part++) {
        const int32_t b = part ? p->ntaps : 0, e = part ? total : p->ntaps;
        if (!fb_row_major(p->taps, b, e))
            return 0;
        double sum = 0;
        for (int32_t i = b; i < e; i++) {
            const gip__f2d_tap *t = &p->taps[i];
            const int32_t pos = (t->dy + R) * K + (t->dx + R);
            fa->mask[part] |= 1u << pos;
            fa->k[part][pos] = p->int_acc ? (float)t->ki : t->kf;
            sum += fabs((double)t->ki);
        }
        if (p->int_acc && sum * maxval >= 16777216.0)
            return 0;
    }
    fa->src = (const char *)src->data;
    fa->sstride = src->stride;
    fa->dst = (char *)dst->data;
    fa->dstride = dst->stride;
    fa->W = (int32_t)src->width;
    fa->H = (int32_t)src->height;
    fa->n = (int32_t)n;
    fa->border = p->border;
    for (int c = 0; c < 4; c++)
        fa->bv[c] = p->border_value[c];
    fa->init = p->int_acc ? 0.0f : p->init;
    fa->scale = p->scale;
    fa->delta = p->delta;
    fa->affine = p->affine;
    fa->post = p->post;
    return K;
}

/* Runs the plan with the box kernel when it fits; *done tells whether it ran. */
static gip_status fb_run(gip_context *ctx, const gip__f2d_plan *p, const gip_image *src,
                         const gip_image *dst, bool *done)
{
    FbArgs fa;
    const int32_t K = fb_prepare(p, src, dst, &fa);
    *done = K != 0;
    if (!K)
        return GIP_OK;
    const int32_t C = src->channels;
    const gip_dtype sd = src->dtype, dd = dst->dtype;
    if (p->post == GIP__F2D_MAG) {
        if (sd == GIP_U8)
            return dd == GIP_U8 ? fb_dispatch<uint8_t, uint8_t, true>(ctx, fa, C, K)
                                : fb_dispatch<uint8_t, float, true>(ctx, fa, C, K);
        if (sd == GIP_U16)
            return fb_dispatch<uint16_t, float, true>(ctx, fa, C, K);
        return fb_dispatch<float, float, true>(ctx, fa, C, K);
    }
    if (sd == GIP_U8) {
        if (dd == GIP_U8)
            return fb_dispatch<uint8_t, uint8_t, false>(ctx, fa, C, K);
        if (dd == GIP_S16)
            return fb_dispatch<uint8_t, int16_t, false>(ctx, fa, C, K);
        return fb_dispatch<uint8_t, float, false>(ctx, fa, C, K);
    }
    if (sd == GIP_U16)
        return dd == GIP_U16 ? fb_dispatch<uint16_t, uint16_t, false>(ctx, fa, C, K)
                             : fb_dispatch<uint16_t, float, false>(ctx, fa, C, K);
    return fb_dispatch<float, float, false>(ctx, fa, C, K);
}

/* ---- the packed path: u8 sources, integer taps inside 3x3 ----------------------------------
 *
 * Integer plans on u8 images whose taps lie within one pixel of the anchor (Sobel and Scharr
 * 3x3, the 3x3 box, integer filter2d kernels) have sums below 2^16 once shifted by a bias, so
 * two of them fit one 32-bit register as 16-bit lanes and one integer multiply-add serves two
 * outputs. A warp owns 512 bytes of a row (16 per lane, one aligned 16-byte copy) and walks down
 * a band of a few output rows (ux_launch), each source row loaded once and added to the three
 * output rows it belongs to; the four bytes either side of a lane come from its neighbours by
 * shuffles (lanes 0 and 31, and every lane at the image's edges, fetch their own through the
 * border).
 *
 * Arithmetic. A pair register holds two source bytes x, x' as x + 2^16 x' (which two: ux_pair).
 * With B = 255 * (sum of |k| over the negative taps), acc = B (1 + 2^16) + sum k * pair (mod 2^32)
 * has lanes B + sum k x, each in [0, 255 * sum |k|]; the host takes the path only when that is
 * below 2^16, so the two lanes are exact whatever the intermediate carries were (the sum is
 * linear modulo 2^32 and its two final lanes lie in range). Each lane minus B is the plan's exact
 * int32 sum, which then goes through filter2d.h's finish: as a float (exact, below 2^24), the
 * affine step, |v|, saturation. s16 outputs without the affine step whose range cannot saturate
 * (255 * sum |k| <= 32767) subtract B in the lanes directly. */
static constexpr int UX_WARPS = 4;   /* warps per block, stacked in y */
static constexpr int UX_W = 32 * 16; /* elements per warp along a row */

struct UxArgs {
    const uint8_t *src;
    int64_t sstride;
    char *dst;
    int64_t dstride;
    int32_t W, H, n; /* n = W * C elements per row, below 2^30 */
    int32_t border;
    int32_t k[9];   /* taps by position (dy + 1) * 3 + (dx + 1) */
    int32_t v[3];   /* rank-1 paths: the taps are v[dy + 1] * h[dx + 1], h the kernel's pattern */
    uint32_t bias2; /* the accumulators' start: B (1 + 2^16), or B in UX_FAST (low lane only) */
    float fbias;    /* 2^23 + B */
    uint32_t bv[4]; /* the constant border per channel (u8 values) */
    float scale, delta;
    int32_t affine, abs;
    int32_t ry;               /* output rows per warp, a band (ux_launch) */
    int32_t lut;              /* UX_LUT: entries of the finish table, 255 * sum |k| + 1 */
    int32_t b;                /* B */
    uint32_t mul_m, mul_a;    /* UX_MUL: M and A (mod 2^32) */
    uint32_t abs_2b, abs_top; /* UX_ABS8: 2B and B + 255 in both lanes */
    float kf[2][9];    /* f2d_ringf: each kernel's taps by position, as k (MAG: two kernels) */
    uint32_t kmask[2]; /* f2d_ringf: bit (dy + 1) * 3 + (dx + 1) when the kernel has that tap */
    float init; /* f2d_ringf: the accumulators' start (filter2D's delta; 0 for integer plans) */
};

/* How a lane's sum becomes an output. UX_FAST: s16 without the affine step that cannot saturate;
 * only the low lane carries the bias B (sums start at B, not B (1 + 2^16)): the low lane, B + s
 * in [0, 2^16), never borrows from the high one, whose 16 bits are then s mod 2^16, the s16 result
 * itself, and the low lane's is that of acc - B: two instructions a pair. UX_LUT: u8 and s16
 * outputs whose biased sums take at most UX_LUT_MAX values: a table of the finish, built by each
 * block in shared memory from the same float steps as UX_FLOAT (so equal to them by construction),
 * replaces about seven instructions an output by a load (H200, 2026-12-03: the float finish was
 * half of box3's instructions). UX_FLOAT: the float steps for each output. Two u8 finishes need
 * neither the table nor the float steps, where the host has checked that they give the float
 * steps' result for every sum the plan can produce (ux_choose_u8): UX_MUL, an affine finish
 * without saturation, as (v M + A) >> 16 (the box's 1/9); UX_ABS8, min(|s|, 255) (Sobel and
 * Scharr to u8) with B a multiple of 256, two 16-bit min/max a pair. */
enum { UX_FLOAT, UX_FAST, UX_LUT, UX_MUL, UX_ABS8 };
static constexpr int UX_LUT_MAX = 8192; /* 255 * 32 + 1: Scharr, Sobel and box 3x3 fit */

/* The ring below carries u8 sources for the packed kernels and u8 or f32 sources for f2d_ringf.
 * Its units for a source type S: a lane's 16 bytes hold VE = 16 / sizeof(S) elements, and each
 * side of a warp's 512 bytes is a quad: 4 elements (a u8 word, or 16 bytes of f32). */
template <typename S> struct UxQuad;
template <> struct UxQuad<uint8_t> {
    typedef uint32_t type;
};
template <> struct UxQuad<float> {
    typedef uint4 type;
};

/* Element i of a row (NULL: constant border row) for any integer i, border applied, as the bits of
 * its value (rare: the border and the row's last elements). */
template <typename S, int C>
__device__ __forceinline__ uint32_t ux_elem(const UxArgs &a, const S *row, int32_t ei)
{
    const int32_t p = ei >= 0 ? ei / C : -((C - 1 - ei) / C);
    const int32_t c = ei - p * C;
    const S *at;
    if (!row) {
        return a.bv[c];
    } else if ((uint32_t)ei < (uint32_t)a.n) {
        at = row + ei;
    } else {
        const int32_t sx = gip__border_index32(p, a.W, (gip_border)a.border);
        if (sx < 0)
            return a.bv[c];
        at = row + (int64_t)sx * C + c;
    }
    if constexpr (sizeof(S) == 1)
        return *at;
    else
        return __float_as_uint(*at);
}

/* Four elements e .. e + 3 (e a multiple of 4, any value) of a row (NULL: constant border row)
 * as a quad, border applied. */
template <typename S, int C>
__device__ __forceinline__ typename UxQuad<S>::type ux_word(const UxArgs &a, const S *row,
                                                            int32_t e)
{
    if constexpr (sizeof(S) == 1) {
        /* ux_elem's steps written out: through ux_elem the packed kernels' SASS changed (register
         * allocation through the whole kernel), and their GPU record is for this code. */
        if (row && e >= 0 && e + 4 <= a.n)
            return __ldg(reinterpret_cast<const uint32_t *>(row + e));
        uint32_t w = 0;
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int32_t ei = e + i;
            const int32_t p = ei >= 0 ? ei / C : -((C - 1 - ei) / C);
            const int32_t c = ei - p * C;
            uint32_t v;
            if (!row) {
                v = a.bv[c];
            } else if ((uint32_t)ei < (uint32_t)a.n) {
                v = row[ei];
            } else {
                const int32_t sx = gip__border_index32(p, a.W, (gip_border)a.border);
                v = sx < 0 ? a.bv[c] : row[(int64_t)sx * C + c];
            }
            w |= v << (8 * i);
        }
        return w;
    } else {
        if (row && e >= 0 && e + 4 <= a.n)
            return __ldg(reinterpret_cast<const uint4 *>(row + e));
        return make_uint4(ux_elem<S, C>(a, row, e), ux_elem<S, C>(a, row, e + 1),
                          ux_elem<S, C>(a, row, e + 2), ux_elem<S, C>(a, row, e + 3));
    }
}

/* Source rows travel through a ring of UX_D slots per warp in shared memory: cp.async copies
 * (16 bytes a lane, no registers held while in flight) issued UX_D rows ahead, so a warp keeps
 * UX_D * 512 bytes in flight without the registers that rows held ahead in registers took (H200,
 * 2026-12-03: 127 registers a thread, 8.8% achieved occupancy on 3840x2160). A slot holds the
 * warp's 512 bytes at byte 16, the quad before them just below (byte 12 for u8, 0 for f32) and the
 * quad after them at 528 (lanes 0 and 31 copy those two), so that each lane reads its window as
 * three loads, the quads either side being its neighbours' (no shuffles). Border and row-end quads
 * are computed and stored into the slot directly. Addresses are 32-bit shared-window addresses
 * kept in registers. */
static constexpr int UX_D = 8;      /* ring slots (rows in flight) per warp, a power of two */
static constexpr int UX_SLOT = 544; /* bytes a slot: 16 + 512 + 16 */

/* The rare cases, out of line (inlined they made the kernel tens of thousands of instructions long
 * and its loop a stream of instruction-cache misses): a row outside the image, the last words
 * of a row, the side word at the image's edges. */
__device__ __noinline__ const uint8_t *ux_border_row(const UxArgs &a, int32_t y)
{
    const int32_t sy = gip__border_index32(y, a.H, (gip_border)a.border);
    return sy >= 0 ? a.src + (int64_t)sy * a.sstride : nullptr;
}

template <typename S, int C>
__device__ __noinline__ void ux_fill_slow(const UxArgs &a, const S *row, int32_t e, unsigned s)
{
    /* Outputs read up to C <= 4 elements past the row: quads from n + 4 on are never used
     * (left 0, which also keeps the border arithmetic to a few elements a row). */
    if constexpr (sizeof(S) == 1) {
        uint32_t w[4];
#pragma unroll
        for (int q = 0; q < 4; q++)
            w[q] = e + 4 * q < a.n + 4 ? ux_word<S, C>(a, row, e + 4 * q) : 0u;
        gip__sts128(s, make_uint4(w[0], w[1], w[2], w[3]));
    } else {
        gip__sts128(s, e < a.n + 4 ? ux_word<S, C>(a, row, e) : make_uint4(0, 0, 0, 0));
    }
}

template <typename S, int C>
__device__ __noinline__ typename UxQuad<S>::type ux_side_slow(const UxArgs &a, const S *row,
                                                              int32_t e)
{
    if constexpr (sizeof(S) == 1)
        return e < a.n + 4 ? ux_word<S, C>(a, row, e) : 0u;
    else
        return e < a.n + 4 ? ux_word<S, C>(a, row, e) : make_uint4(0, 0, 0, 0);
}

__device__ __forceinline__ void ux_sts_quad(unsigned s, uint32_t q)
{
    gip__sts32(s, q);
}
__device__ __forceinline__ void ux_sts_quad(unsigned s, uint4 q)
{
    gip__sts128(s, q);
}

/* A quad's asynchronous copy, predicated on `on`. */
template <typename S> __device__ __forceinline__ void ux_quad_copy(bool on, unsigned s, const S *g)
{
    if constexpr (sizeof(S) == 1)
        gip__cp_async4s_if(on, s, g);
    else
        gip__cp_async16s_if(on, s, g);
}

/* What a lane keeps for its copies: its lane, whether it copies a side quad (lanes 0 and 31) and
 * where that lies from its 16 bytes (-4 or -16, or 16), in the slot and in the row alike. */
struct UxLane {
    int lane;
    bool side;
    int32_t sdo;
};

template <typename S> __device__ __forceinline__ UxLane ux_lane_of(int lane)
{
    return {lane, lane == 0 || lane == 31, lane == 0 ? -4 * (int)sizeof(S) : 16};
}

/* Issue row y (border-mapped) into a lane's slot (s: the lane's 16 bytes in it): its VE elements
 * at e and, for lanes 0 / 31, the quad before / after them (off: y sstride + e sizeof(S), kept by
 * the caller). `inner`: the block's columns and the quads either side of them lie inside the row
 * (every block but the first and the last of a row): then a row inside the image takes one path
 * for the whole warp, the side quads' copies predicated on the lane. */
template <typename S, int C>
__device__ __forceinline__ void ux_issue(const UxArgs &a, int32_t y, int32_t e, const UxLane &ln,
                                         bool inner, unsigned s, int64_t off)
{
    constexpr int VE = 16 / (int)sizeof(S), QB = 4 * (int)sizeof(S);
    if (inner && (uint32_t)y < (uint32_t)a.H) {
        const uint8_t *row = a.src + off; /* off = y sstride + e sizeof(S) */
        gip__cp_async16s(s, row);
        ux_quad_copy(ln.side, s + ln.sdo, reinterpret_cast<const S *>(row + ln.sdo));
        return;
    }
    const S *row = reinterpret_cast<const S *>(
        (uint32_t)y < (uint32_t)a.H ? a.src + (int64_t)y * a.sstride : ux_border_row(a, y));
    if (row && e + VE <= a.n)
        gip__cp_async16s(s, row + e);
    else
        ux_fill_slow<S, C>(a, row, e, s);
    if (ln.lane == 0) {
        if (row && e >= 4)
            ux_quad_copy(true, s - QB, row + e - 4);
        else
            ux_sts_quad(s - QB, ux_side_slow<S, C>(a, row, e - 4));
    } else if (ln.lane == 31) {
        if (row && e + VE + 4 <= a.n)
            ux_quad_copy(true, s + 16, row + e + VE);
        else
            ux_sts_quad(s + 16, ux_side_slow<S, C>(a, row, e + VE));
    }
}

/* A lane's 24 window bytes (4 before its 16, 4 after) travel as 16-bit lanes in two halves: X[q]
 * holds window bytes (4q, 4q + 2) and X[6 + q] bytes (4q + 1, 4q + 3), q = 0 .. 5. Pair j (0 .. 7)
 * of the accumulators is the lane's outputs ux_out(j, 0) and ux_out(j, 1), window bytes
 * t = 4 + 4 (j / 2) + j % 2 and t + 2. The pair of the bytes D further (D = -C, 0, C) is one
 * register when t + D is 0 or 1 mod 4 and one byte permute otherwise: half the permutes of
 * consecutive pairs for one and three channels, none for four. */
__device__ __forceinline__ constexpr int ux_out(int j, int h)
{
    return 4 * (j >> 1) + (j & 1) + 2 * h;
}

template <int D> __device__ __forceinline__ uint32_t ux_pair(const uint32_t *X, int j)
{
    const int u = 4 + 4 * (j >> 1) + (j & 1) + D, q = u >> 2;
    switch (u & 3) {
    case 0:
        return X[q];
    case 1:
        return X[6 + q];
    case 2:
        return __byte_perm(X[q], X[q + 1], 0x5432);
    default:
        return __byte_perm(X[6 + q], X[6 + q + 1], 0x5432);
    }
}

/* acc[j] += sum over dx of k[dx] * pair(j, dx * C). */
template <int C>
__device__ __forceinline__ void ux_add(uint32_t *acc, const uint32_t *X, int32_t k0, int32_t k1,
                                       int32_t k2)
{
#pragma unroll
    for (int j = 0; j < 8; j++) {
        uint32_t s = acc[j];
        if (k0)
            s += (uint32_t)k0 * ux_pair<-C>(X, j);
        if (k1)
            s += (uint32_t)k1 * ux_pair<0>(X, j);
        if (k2)
            s += (uint32_t)k2 * ux_pair<C>(X, j);
        acc[j] = s;
    }
}

/* Lane h (0 or 1) of a pair minus B, as an exact float. */
__device__ __forceinline__ float ux_lane(const UxArgs &a, uint32_t p, int h)
{
    return __fsub_rn(__uint_as_float(__byte_perm(p, 0x4B000000u, h ? 0x7432u : 0x7410u)), a.fbias);
}

/* The bits of one output for lane value v (an exact float): filter2d.h's finish, the affine step,
 * |v| and saturation, the result in the low bits (u8, s16) or as the float (f32). */
template <typename D> __device__ __forceinline__ uint32_t ux_finish(const UxArgs &a, float v)
{
    if (a.affine)
        v = __fmaf_rn(v, a.scale, a.delta);
    if (a.abs)
        v = fabsf(v);
    if constexpr (std::is_same<D, uint8_t>::value)
        return __float_as_uint(__fadd_rn(fminf(fmaxf(v, 0.0f), 255.0f), 8388608.0f));
    else if constexpr (std::is_same<D, int16_t>::value)
        return __float_as_uint(__fadd_rn(fminf(fmaxf(v, -32768.0f), 32767.0f), 12582912.0f));
    else
        return __float_as_uint(v);
}

/* N outputs' finished bits t (in the low bits, or the float) packed as memory holds them. */
template <typename D, int N = 16>
__device__ __forceinline__ void ux_pack(const uint32_t *t, uint32_t *o)
{
#pragma unroll
    for (int q = 0; q < N * (int)sizeof(D) / 4; q++) {
        if constexpr (sizeof(D) == 1)
            o[q] = __byte_perm(__byte_perm(t[4 * q], t[4 * q + 1], 0x0040),
                               __byte_perm(t[4 * q + 2], t[4 * q + 3], 0x0040), 0x5410);
        else if constexpr (sizeof(D) == 2)
            o[q] = __byte_perm(t[2 * q], t[2 * q + 1], 0x5410);
        else
            o[q] = t[q];
    }
}

/* Stores a lane's N packed outputs o at d (N sizeof(D) a multiple of 16 bytes): 16-byte stores when
 * all N lie inside the row (`left`: the row's elements from d on), else element by element up to
 * the row's end. */
template <typename D, int N = 16>
__device__ __forceinline__ void ux_write(const uint32_t *o, D *d, int32_t left)
{
    if (left >= N) {
#pragma unroll
        for (int q = 0; q < N * (int)sizeof(D) / 16; q++)
            reinterpret_cast<uint4 *>(d)[q] =
                make_uint4(o[4 * q], o[4 * q + 1], o[4 * q + 2], o[4 * q + 3]);
        return;
    }
#pragma unroll
    for (int i = 0; i < N; i++) { /* the row's last elements (constant indices: no local array) */
        if (i >= left)
            break;
        if constexpr (sizeof(D) == 1)
            d[i] = (D)(o[i / 4] >> (8 * (i % 4)));
        else if constexpr (sizeof(D) == 2)
            d[i] = (D)(o[i / 2] >> (16 * (i % 2)));
        else
            d[i] = __uint_as_float(o[i]);
    }
}

/* The 16 outputs of a lane for one row, as filter2d.h finishes them, stored at d (ux_write). */
template <typename D, int MODE>
__device__ __forceinline__ void ux_store(const UxArgs &a, const uint32_t *acc, const D *lut, D *d,
                                         int32_t left)
{
    uint32_t o[16 * sizeof(D) / 4];
    if constexpr (MODE == UX_FAST) {
        /* Words 2q and 2q + 1 are the low and the high lanes of pairs 2q and 2q + 1. */
#pragma unroll
        for (int q = 0; q < 4; q++) {
            o[2 * q] =
                __byte_perm(acc[2 * q] - (uint32_t)a.b, acc[2 * q + 1] - (uint32_t)a.b, 0x5410);
            o[2 * q + 1] = __byte_perm(acc[2 * q], acc[2 * q + 1], 0x7632);
        }
    } else if constexpr (MODE == UX_MUL) {
        /* Each lane's (v M + A) >> 16 in byte 2: the low lane by a multiply-add on its 16 bits, the
         * high one by the high half of acc (M 2^16), to which the low lane adds at most the margin
         * emax that ux_choose_u8 has allowed for. */
        uint32_t r[16];
#pragma unroll
        for (int j = 0; j < 8; j++) {
            r[ux_out(j, 0)] = (acc[j] & 0xFFFFu) * a.mul_m + a.mul_a;
            r[ux_out(j, 1)] = __umulhi(acc[j], a.mul_m << 16) + a.mul_a;
        }
#pragma unroll
        for (int q = 0; q < 4; q++)
            o[q] = __byte_perm(__byte_perm(r[4 * q], r[4 * q + 1], 0x0062),
                               __byte_perm(r[4 * q + 2], r[4 * q + 3], 0x0062), 0x5410);
    } else if constexpr (MODE == UX_ABS8) {
        /* min(|s|, 255) = min(max(v, 2B - v), B + 255) - B, lane by lane; B is a multiple of 256,
         * so the low byte of each lane is the output. */
#pragma unroll
        for (int q = 0; q < 4; q++) {
            uint32_t m[2];
#pragma unroll
            for (int e = 0; e < 2; e++)
                m[e] = __vminu2(__vmaxu2(acc[2 * q + e], a.abs_2b - acc[2 * q + e]), a.abs_top);
            o[q] = __byte_perm(m[0], m[1], 0x6240);
        }
    } else {
        /* UX_LUT: the biased lane values index the table directly; UX_FLOAT: the float steps. */
        uint32_t t[16];
#pragma unroll
        for (int j = 0; j < 8; j++) {
            if constexpr (MODE == UX_LUT) {
                t[ux_out(j, 0)] = (uint32_t)(uint16_t)lut[acc[j] & 0xFFFFu];
                t[ux_out(j, 1)] = (uint32_t)(uint16_t)lut[acc[j] >> 16];
            } else {
                t[ux_out(j, 0)] = ux_finish<D>(a, ux_lane(a, acc[j], 0));
                t[ux_out(j, 1)] = ux_finish<D>(a, ux_lane(a, acc[j], 1));
            }
        }
        ux_pack<D>(t, o);
    }
    ux_write<D>(o, d, left);
}

/* Horizontal weights of a rank-1 plan (taps v[dy] * h[dx]), known at compile time: UX_GEN is the
 * general 3x3 path (nine runtime taps), the others the row weights (1, 1, 1) of the box, (-1, 0, 1)
 * of Sobel and Scharr along x, (1, 2, 1) of Sobel along y, with the vertical weights v at run time.
 * The last three know v too: the box (1, 1, 1) both ways (bias 0), Sobel along x (h (-1, 0, 1),
 * v (1, 2, 1)) and along y (h (1, 2, 1), v (-1, 0, 1)). They keep the horizontal pass of the
 * last three rows instead of three accumulators and combine them once per output row: one or two
 * adds a pair instead of three multiply-adds (H200, 2026-12-04: 1-3% faster; the compiler gives
 * them 90-94 registers against 88, the same five blocks an SM). */
enum { UX_GEN, UX_ONES, UX_DIFF, UX_SMOOTH, UX_BOX, UX_SOBX, UX_SOBY };

/* The horizontal pattern of each rank-1 path. */
__host__ __device__ constexpr int ux_hpat(int hk)
{
    return hk == UX_BOX ? UX_ONES : hk == UX_SOBX ? UX_DIFF : hk == UX_SOBY ? UX_SMOOTH : hk;
}

/* The ring's shared memory of a block, one ring per warp. */
struct UxRing {
    uint4 slot[UX_WARPS][UX_D][UX_SLOT / 16];
};

/* Where a warp stands in its band: its ring (s0: the lane's 16 bytes in slot 0, s: in the slot of
 * the next row), the offset of the source row to issue next (y sstride + e) and that of the next
 * output row (y dstride + e sizeof(D)); kept running so that no row recomputes them. */
struct UxCursor {
    unsigned s0, s;
    int i; /* slot index, 0 .. UX_D - 1 */
    int64_t soff, doff;
};

/* Words of a lane's window: its 16 bytes and a quad either side (6 for u8, 12 for f32). */
template <typename S> constexpr int ux_nwin()
{
    return 4 + 2 * (int)sizeof(S);
}

/* Source row r (r in y0 - 1 .. yend) as the lane's window w (the quad before its 16 bytes, them,
 * the quad after, little endian); refills the row's slot with row r + UX_D and moves the cursor
 * on. */
template <typename S, int C>
__device__ __forceinline__ void ux_row_words(const UxArgs &a, UxCursor &cur, const UxLane &ln,
                                             int32_t e, bool inner, int32_t yend, int32_t r,
                                             uint32_t (&w)[ux_nwin<S>()])
{
    const unsigned s = cur.s;
    gip__cp_async_wait<UX_D - 1>(); /* row r's group is done, for this lane's copies */
    __syncwarp();                   /* and for its neighbours', whose words it reads */
    const uint4 v = gip__lds128(s);
    if constexpr (sizeof(S) == 1) {
        w[0] = gip__lds32(s - 4);
        w[1] = v.x, w[2] = v.y, w[3] = v.z, w[4] = v.w;
        w[5] = gip__lds32(s + 16);
    } else {
        const uint4 b = gip__lds128(s - 16), f = gip__lds128(s + 16);
        w[0] = b.x, w[1] = b.y, w[2] = b.z, w[3] = b.w;
        w[4] = v.x, w[5] = v.y, w[6] = v.z, w[7] = v.w;
        w[8] = f.x, w[9] = f.y, w[10] = f.z, w[11] = f.w;
    }
    /* Refill the slot once every lane has read its words from it. */
    __syncwarp();
    if (r + UX_D <= yend)
        ux_issue<S, C>(a, r + UX_D, e, ln, inner, s, cur.soff);
    gip__cp_async_commit();
    cur.soff += a.sstride;
    cur.i = (cur.i + 1) & (UX_D - 1);
    cur.s = cur.s0 + (unsigned)(cur.i * UX_SLOT);
}

/* The same row as the halves X (ux_pair) of the lane's 24 bytes. */
template <int C>
__device__ __forceinline__ void ux_row(const UxArgs &a, UxCursor &cur, const UxLane &ln, int32_t e,
                                       bool inner, int32_t yend, int32_t r, uint32_t *X)
{
    uint32_t w[6];
    ux_row_words<uint8_t, C>(a, cur, ln, e, inner, yend, r, w);
#pragma unroll
    for (int q = 0; q < 6; q++) {
        X[q] = __byte_perm(w[q], 0u, 0x4240);
        X[6 + q] = __byte_perm(w[q], 0u, 0x4341);
    }
}

/* One source row r of a rank-1 plan: its horizontal pass h, then P (output row r - 1) gets v[2] h
 * and is complete, Q (row r) gets v[1] h and R (row r + 1) starts at B + v[0] h. Callers rotate
 * the roles of three register sets instead of moving accumulators. */
/* The horizontal pass of one row: h[j] for the accumulators' pair j, pattern HP. */
template <int C, int HP> __device__ __forceinline__ void ux_hpass(const uint32_t *X, uint32_t *h)
{
#pragma unroll
    for (int j = 0; j < 8; j++) {
        if constexpr (HP == UX_ONES)
            h[j] = ux_pair<-C>(X, j) + ux_pair<0>(X, j) + ux_pair<C>(X, j);
        else if constexpr (HP == UX_DIFF)
            h[j] = ux_pair<C>(X, j) - ux_pair<-C>(X, j);
        else
            h[j] = ux_pair<-C>(X, j) + 2u * ux_pair<0>(X, j) + ux_pair<C>(X, j);
    }
}

/* Source row r of a path with fixed vertical weights (UX_BOX, UX_SOBX, UX_SOBY): Hc gets its
 * horizontal pass and, with Ha and Hb those of rows r - 2 and r - 1, completes output row r - 1.
 * Callers rotate the roles of the three sets. */
template <typename D, int C, int MODE, int HK>
__device__ __forceinline__ void
ux_fixed(const UxArgs &a, const D *lut, const uint32_t *X, int32_t r, int32_t y0, int32_t e,
         UxCursor &cur, const uint32_t (&Ha)[8], const uint32_t (&Hb)[8], uint32_t (&Hc)[8])
{
    ux_hpass<C, ux_hpat(HK)>(X, Hc);
    if (r > y0 && e < a.n) {
        uint32_t o[8];
#pragma unroll
        for (int j = 0; j < 8; j++) {
            if constexpr (HK == UX_BOX) /* the host takes it with B = 0 only */
                o[j] = Ha[j] + Hb[j] + Hc[j];
            else if constexpr (HK == UX_SOBX)
                o[j] = Ha[j] + Hc[j] + a.bias2 + 2u * Hb[j];
            else
                o[j] = Hc[j] - Ha[j] + a.bias2;
        }
        ux_store<D, MODE>(a, o, lut, reinterpret_cast<D *>(a.dst + cur.doff), a.n - e);
    }
    cur.doff += a.dstride;
}

template <typename D, int C, int MODE, int HK>
__device__ __forceinline__ void ux_rank1(const UxArgs &a, const D *lut, const uint32_t *X,
                                         int32_t r, int32_t y0, int32_t e, UxCursor &cur,
                                         uint32_t (&P)[8], uint32_t (&Q)[8], uint32_t (&R)[8])
{
    uint32_t h[8];
    ux_hpass<C, HK>(X, h);
#pragma unroll
    for (int j = 0; j < 8; j++)
        P[j] += (uint32_t)a.v[2] * h[j];
    if (r > y0 && e < a.n)
        ux_store<D, MODE>(a, P, lut, reinterpret_cast<D *>(a.dst + cur.doff), a.n - e);
    cur.doff += a.dstride;
#pragma unroll
    for (int j = 0; j < 8; j++) {
        Q[j] += (uint32_t)a.v[1] * h[j];
        R[j] = a.bias2 + (uint32_t)a.v[0] * h[j];
    }
}

/* One source row of a rank-1 plan, the sets (S0, S1, S2) in the rotation's order: with runtime
 * vertical weights they are the accumulators (P, Q, R) of ux_rank1; with fixed ones, S0 takes
 * this row's horizontal pass and S1, S2 hold those of the two rows before (ux_fixed). */
template <typename D, int C, int MODE, int HK>
__device__ __forceinline__ void ux_step(const UxArgs &a, const D *lut, const uint32_t *X, int32_t r,
                                        int32_t y0, int32_t e, UxCursor &cur, uint32_t (&S0)[8],
                                        uint32_t (&S1)[8], uint32_t (&S2)[8])
{
    if constexpr (HK == UX_BOX || HK == UX_SOBX || HK == UX_SOBY)
        ux_fixed<D, C, MODE, HK>(a, lut, X, r, y0, e, cur, S1, S2, S0);
    else
        ux_rank1<D, C, MODE, HK>(a, lut, X, r, y0, e, cur, S0, S1, S2);
}

/* Where a lane of a ring kernel stands (block (x, y), warp threadIdx.y): its first element e (a
 * warp takes 32 VE elements of a row), whether the block's columns and the quads either side lie
 * inside the row, its copy duties, its 16 bytes in slot 0 of its warp's ring, and the bands of
 * a.ry output rows to walk. */
struct UxWarp {
    int32_t e;
    bool inner;
    UxLane ln;
    unsigned s0;
    int32_t bands;
};

template <typename S> __device__ __forceinline__ UxWarp ux_warp(const UxArgs &a, UxRing &ring)
{
    constexpr int VE = 16 / (int)sizeof(S);
    const int lane = threadIdx.x, wy = threadIdx.y;
    const int32_t e0 = (int32_t)blockIdx.x * 32 * VE;
    return {e0 + lane * VE, e0 >= 4 && e0 + 32 * VE + 4 <= a.n, ux_lane_of<S>(lane),
            (unsigned)__cvta_generic_to_shared(&ring.slot[wy][0][1 + lane]),
            (a.H + a.ry - 1) / a.ry};
}

/* A warp's start on the band of output rows y0 .. yend - 1: source rows y0 - 1 .. yend, the first
 * UX_D of them in flight, one commit group each (empty past the band, so that the group count stays
 * uniform); the cursor's output offset at row y0 - 2 for elements of dsize bytes. */
template <typename S, int C>
__device__ __forceinline__ UxCursor ux_band_start(const UxArgs &a, const UxLane &ln, int32_t e,
                                                  bool inner, int32_t y0, int32_t yend, unsigned s0,
                                                  int32_t dsize)
{
    UxCursor cur;
    cur.s0 = cur.s = s0;
    cur.i = 0;
    cur.soff = (int64_t)(y0 - 1) * a.sstride + (int64_t)e * (int64_t)sizeof(S);
    if (inner && y0 >= 1 && min(y0 - 2 + UX_D, yend) < a.H) {
        /* Every row of the first UX_D inside the image (most bands): straight copies. */
        const uint8_t *row = a.src + cur.soff;
#pragma unroll
        for (int i = 0; i < UX_D; i++) {
            if (y0 - 1 + i <= yend) {
                gip__cp_async16s(s0 + i * UX_SLOT, row);
                ux_quad_copy(ln.side, s0 + i * UX_SLOT + ln.sdo,
                             reinterpret_cast<const S *>(row + ln.sdo));
            }
            gip__cp_async_commit();
            row += a.sstride;
        }
        cur.soff += UX_D * a.sstride;
    } else {
#pragma unroll 1
        for (int i = 0; i < UX_D; i++) {
            if (y0 - 1 + i <= yend)
                ux_issue<S, C>(a, y0 - 1 + i, e, ln, inner, s0 + i * UX_SLOT, cur.soff);
            gip__cp_async_commit();
            cur.soff += a.sstride;
        }
    }
    /* Row r's call stores output row r - 1: the first call is r = y0 - 1. */
    cur.doff = (int64_t)(y0 - 2) * a.dstride + (int64_t)e * dsize;
    return cur;
}

template <typename D, int C, int MODE, int HK>
__global__ void __launch_bounds__(32 * UX_WARPS) f2d_u8x3(const __grid_constant__ UxArgs a)
{
    /* __grid_constant__: the out-of-line helpers take `a` by reference; without it the compiler
     * copies the arguments to the stack and the loop reloads the taps from there. */
    __shared__ UxRing ring;
    extern __shared__ uint4 ux_dyn[]; /* UX_LUT: the finish table, a.lut entries */
    D *const lut = reinterpret_cast<D *>(ux_dyn);
    const int lane = threadIdx.x, wy = threadIdx.y;
    if constexpr (MODE == UX_LUT) {
        for (int32_t i = wy * 32 + lane; i < a.lut; i += 32 * UX_WARPS)
            lut[i] = (D)ux_finish<D>(a, (float)(i - a.b));
        __syncthreads();
    }
    const UxWarp wp = ux_warp<uint8_t>(a, ring);
    const int32_t e = wp.e, bands = wp.bands;
    const bool inner = wp.inner;
    const UxLane ln = wp.ln;
    const unsigned s0 = wp.s0;
    /* Each warp walks its own bands (the ring's __syncwarp needs every lane: the loop is
     * warp-uniform). */
    for (int32_t band = (int32_t)(blockIdx.y * UX_WARPS + wy); band < bands;
         band += (int32_t)(gridDim.y * UX_WARPS)) {
        const int32_t y0 = band * a.ry, yend = min(y0 + a.ry, a.H);
        UxCursor cur = ux_band_start<uint8_t, C>(a, ln, e, inner, y0, yend, s0, (int32_t)sizeof(D));
        uint32_t X[12];
        if constexpr (HK != UX_GEN) {
            /* Three rows a turn, the three register sets' roles rotating (no moves between
             * rows). */
            uint32_t A[8] = {0}, B[8] = {0}, Cc[8] = {0};
            for (int32_t r = y0 - 1;;) {
                ux_row<C>(a, cur, ln, e, inner, yend, r, X);
                ux_step<D, C, MODE, HK>(a, lut, X, r, y0, e, cur, A, B, Cc);
                if (++r > yend)
                    break;
                ux_row<C>(a, cur, ln, e, inner, yend, r, X);
                ux_step<D, C, MODE, HK>(a, lut, X, r, y0, e, cur, B, Cc, A);
                if (++r > yend)
                    break;
                ux_row<C>(a, cur, ln, e, inner, yend, r, X);
                ux_step<D, C, MODE, HK>(a, lut, X, r, y0, e, cur, Cc, A, B);
                if (++r > yend)
                    break;
            }
        } else {
            uint32_t A[8], B[8];
#pragma unroll
            for (int j = 0; j < 8; j++) {
                A[j] = B[j] = a.bias2;
            }
            for (int32_t r = y0 - 1; r <= yend; r++) {
                ux_row<C>(a, cur, ln, e, inner, yend, r, X);
                /* Output row r - 1 gets its last kernel row, r its middle, r + 1 its first. */
                ux_add<C>(A, X, a.k[6], a.k[7], a.k[8]);
                if (r > y0 && e < a.n)
                    ux_store<D, MODE>(a, A, lut, reinterpret_cast<D *>(a.dst + cur.doff), a.n - e);
                cur.doff += a.dstride;
#pragma unroll
                for (int j = 0; j < 8; j++) {
                    A[j] = B[j], B[j] = a.bias2;
                }
                ux_add<C>(A, X, a.k[3], a.k[4], a.k[5]);
                ux_add<C>(B, X, a.k[0], a.k[1], a.k[2]);
            }
        }
    }
}

/* The grid of the ring kernels, and a.ry, for outputs of dsize bytes and warps of we elements. A
 * warp walks a band of rows one after the other, its first UX_D source rows copied at once. Short
 * bands won on the H200 although each re-reads two halo rows: 7680x4320 u8c3 (2026-12-04, session
 * 11's kernel, rows a band 8 / 6 / 4 / 3) box3 0.0757 / 0.0731 / 0.0753 / -, Sobel to u8 0.0752 /
 * 0.0726 / 0.0719 /
 * -, Sobel to s16 0.1086 / 0.1043 / 0.0978 / 0.0938, Sobel to f32 0.2721 / 0.2644 / 0.2582 /
 * 0.2547. Below about 16384 warps a band gets fewer rows, down to 3 (3840x2160 u8c1: 0.026 against
 * 0.028 with 4, session 10). */
static dim3 ux_grid(UxArgs &a, int32_t dsize, int32_t we = UX_W, int32_t rows = 0)
{
    const int64_t wx = ((int64_t)a.n + we - 1) / we;
    const int64_t want = (wx * a.H) / 16384, top = dsize == 1 ? 6 : 3;
    a.ry = (int32_t)(want < 3 ? 3 : want > top ? top : want);
    if (rows > 0) /* a tuning run's choice (uxf_launch) */
        a.ry = rows;
    const int64_t bands = ((int64_t)a.H + a.ry - 1) / a.ry;
    const int64_t gy = (bands + UX_WARPS - 1) / UX_WARPS;
    return dim3((unsigned)wx, (unsigned)(gy < 65535 ? gy : 65535));
}

template <typename D, int MODE, int HK = UX_GEN>
static gip_status ux_launch(gip_context *ctx, UxArgs &a, int32_t C)
{
    const dim3 grid = ux_grid(a, (int32_t)sizeof(D)), block(32, UX_WARPS);
    cudaStream_t s = gip__stream(ctx);
    const size_t shm = MODE == UX_LUT ? (size_t)a.lut * sizeof(D) : 0; /* <= 16 KB */
    if (C == 1)
        f2d_u8x3<D, 1, MODE, HK><<<grid, block, shm, s>>>(a);
    else if (C == 3)
        f2d_u8x3<D, 3, MODE, HK><<<grid, block, shm, s>>>(a);
    else
        f2d_u8x3<D, 4, MODE, HK><<<grid, block, shm, s>>>(a);
    return GIP__LAUNCH_CHECK(ctx, "2-D filter kernel (u8 3x3, packed)");
}

/* The rank-1 paths compiled for a mode: all of them for the table and the float finish; the box's
 * for UX_MUL, the gradients' for UX_ABS8 (fewer instantiations: the file is the slowest to build).
 */
static constexpr bool ux_has(int mode, int hk)
{
    if (hk == UX_BOX)
        return mode == UX_MUL;
    if (hk == UX_SOBX || hk == UX_SOBY)
        return mode == UX_ABS8 || mode == UX_FAST || mode == UX_FLOAT;
    return mode == UX_MUL ? hk == UX_ONES : mode == UX_ABS8 ? hk != UX_ONES : true;
}

/* The packed kernel for output D in mode MODE: the rank-1 path when the taps are v[dy] * h[dx]
 * with h one of the compiled row patterns (a.v filled), else the general one. */
template <typename D, int MODE>
static gip_status ux_launch_plan(gip_context *ctx, UxArgs &a, int32_t C)
{
    static const int32_t pat[3][3] = {{1, 1, 1}, {-1, 0, 1}, {1, 2, 1}};
    for (int hk = 0; hk < 3; hk++) {
        bool fits = true;
        for (int dy = 0; dy < 3 && fits; dy++) {
            a.v[dy] = a.k[dy * 3 + 2]; /* every pattern ends in 1 */
            for (int dx = 0; dx < 3 && fits; dx++)
                fits = a.k[dy * 3 + dx] == a.v[dy] * pat[hk][dx];
        }
        if (!fits)
            continue;
        const bool v121 = a.v[0] == 1 && a.v[1] == 2 && a.v[2] == 1;
        const bool vdiff = a.v[0] == -1 && a.v[1] == 0 && a.v[2] == 1;
        const bool v111 = a.v[0] == 1 && a.v[1] == 1 && a.v[2] == 1;
        if constexpr (ux_has(MODE, UX_BOX))
            if (hk == 0 && v111 && a.bias2 == 0)
                return ux_launch<D, MODE, UX_BOX>(ctx, a, C);
        if constexpr (ux_has(MODE, UX_SOBX))
            if (hk == 1 && v121)
                return ux_launch<D, MODE, UX_SOBX>(ctx, a, C);
        if constexpr (ux_has(MODE, UX_SOBY))
            if (hk == 2 && vdiff)
                return ux_launch<D, MODE, UX_SOBY>(ctx, a, C);
        if constexpr (ux_has(MODE, UX_ONES))
            if (hk == 0)
                return ux_launch<D, MODE, UX_ONES>(ctx, a, C);
        if constexpr (ux_has(MODE, UX_DIFF))
            if (hk == 1)
                return ux_launch<D, MODE, UX_DIFF>(ctx, a, C);
        if constexpr (ux_has(MODE, UX_SMOOTH))
            if (hk == 2)
                return ux_launch<D, MODE, UX_SMOOTH>(ctx, a, C);
        break;
    }
    return ux_launch<D, MODE>(ctx, a, C);
}

/* The ring kernels' arguments that every plan fills alike: the images, the border (constant values
 * as their bits: a u8 value, filter2d.h, or the float) and the finish. */
static void ux_fill_args(UxArgs *a, const gip__f2d_plan *p, const gip_image *src,
                         const gip_image *dst)
{
    a->src = (const uint8_t *)src->data;
    a->sstride = src->stride;
    a->dst = (char *)dst->data;
    a->dstride = dst->stride;
    a->W = (int32_t)src->width;
    a->H = (int32_t)src->height;
    a->n = (int32_t)(src->width * src->channels);
    a->border = p->border;
    for (int c = 0; c < 4; c++) {
        if (src->dtype == GIP_U8)
            a->bv[c] = (uint32_t)p->border_value[c];
        else
            memcpy(&a->bv[c], &p->border_value[c], sizeof(float));
    }
    a->scale = p->scale;
    a->delta = p->delta;
    a->affine = p->affine;
    a->abs = p->post == GIP__F2D_ABS;
}

/* filter2d.h's finish of an integer sum s to u8, on the host with the device's float steps. */
static int32_t ux_finish_u8_host(const UxArgs &a, int32_t s)
{
    float v = (float)s;
    if (a.affine)
        v = fmaf(v, a.scale, a.delta);
    if (a.abs)
        v = fabsf(v);
    const float t = fminf(fmaxf(v, 0.0f), 255.0f) + 8388608.0f; /* rounds half to even */
    return (int32_t)(t - 8388608.0f);
}

/* A u8 finish without the table for sums s in [-lo, hi] (UX_ABS8 or UX_MUL, a's fields set), or -1.
 * Each is taken only when it equals the float steps for every s, checked here one by one. */
static int ux_choose_u8(UxArgs &a, int32_t lo, int32_t hi)
{
    bool abs8 = true;
    for (int32_t s = -lo; s <= hi && abs8; s++)
        abs8 = ux_finish_u8_host(a, s) == (s < 0 ? (-s < 255 ? -s : 255) : (s < 255 ? s : 255));
    const int32_t B8 = (lo > hi ? lo : hi) + 255 & ~255;
    if (abs8 && 2 * B8 + 255 <= 65535) {
        a.b = B8;
        a.bias2 = (uint32_t)B8 * 0x10001u;
        a.abs_2b = (uint32_t)(2 * B8) * 0x10001u;
        a.abs_top = (uint32_t)(B8 + 255) * 0x10001u;
        return UX_ABS8;
    }
    /* UX_MUL: lane v = s + B in [0, vmax] gives byte 2 of v M + A (+ e in [0, emax] for the high
     * lane, from the low lane under __umulhi); A is the interval every v allows, if any. */
    const double sc = a.affine ? (double)a.scale : 1.0;
    if (!(sc > 0.0) || sc * 65536.0 > 65535.0)
        return -1;
    const int32_t B = a.b, vmax = lo + hi;
    const int64_t m0 = llround(sc * 65536.0);
    for (int64_t M = m0 - 2; M <= m0 + 2; M++) {
        if (M < 1 || M > 65535)
            continue;
        const int64_t emax = ((int64_t)vmax * M) >> 16;
        int64_t amin = INT64_MIN, amax = INT64_MAX;
        for (int32_t v = 0; v <= vmax && amin <= amax; v++) {
            const int64_t base = ((int64_t)ux_finish_u8_host(a, v - B) << 16) - v * M;
            amin = base > amin ? base : amin;
            amax = base + 65535 - emax < amax ? base + 65535 - emax : amax;
        }
        if (amin <= amax) {
            a.mul_m = (uint32_t)M;
            a.mul_a = (uint32_t)amin;
            return UX_MUL;
        }
    }
    return -1;
}

extern "C" gip_status gip__f2d_run_u8x3_cuda(gip_context *ctx, const gip__f2d_plan *p,
                                             const gip_image *src, const gip_image *dst, bool *done)
{
    *done = false;
    const gip_dtype dd = dst->dtype;
    const int64_t n = src->width * (int64_t)src->channels;
    if (src->dtype != GIP_U8 || !p->int_acc || p->post == GIP__F2D_MAG ||
        (dd != GIP_U8 && dd != GIP_S16 && dd != GIP_F32) || n >= ((int64_t)1 << 30) ||
        src->height >= ((int64_t)1 << 30))
        return GIP_OK; /* (32-bit border arithmetic: periods 2n below 2^31) */
    /* 16-byte loads and stores: base and stride of both images aligned. */
    if (((uintptr_t)src->data | (uintptr_t)src->stride | (uintptr_t)dst->data |
         (uintptr_t)dst->stride) &
        15u)
        return GIP_OK;
    UxArgs a;
    memset(&a, 0, sizeof a);
    int64_t sum = 0, neg = 0;
    for (int32_t i = 0; i < p->ntaps; i++) {
        const gip__f2d_tap *t = &p->taps[i];
        if (t->dx < -1 || t->dx > 1 || t->dy < -1 || t->dy > 1)
            return GIP_OK;
        a.k[(t->dy + 1) * 3 + (t->dx + 1)] += t->ki;
    }
    for (int i = 0; i < 9; i++) {
        sum += a.k[i] < 0 ? -(int64_t)a.k[i] : a.k[i];
        neg += a.k[i] < 0 ? -(int64_t)a.k[i] : 0;
    }
    if (255 * sum > 65535)
        return GIP_OK;
    const uint32_t B = (uint32_t)(255 * neg);
    ux_fill_args(&a, p, src, dst);
    a.bias2 = B * 0x10001u;
    a.fbias = 8388608.0f + (float)B;
    *done = true;
    const int32_t C = src->channels;
    a.b = (int32_t)B;
    const bool lut = 255 * sum + 1 <= UX_LUT_MAX;
    if (lut)
        a.lut = (int32_t)(255 * sum + 1);
    /* The modes whose rows the benchmarks and the CLI use get the rank-1 path too (Sobel and
     * Scharr to s16, u8 or f32, the box); the float finish of u8 and s16 outputs (sums too wide for
     * the table) only the general one. */
    if (dd == GIP_S16) {
        if (!a.affine && !a.abs && 255 * sum <= 32767) {
            a.bias2 = B; /* UX_FAST: see ux_store */
            return ux_launch_plan<int16_t, UX_FAST>(ctx, a, C);
        }
        return lut ? ux_launch_plan<int16_t, UX_LUT>(ctx, a, C)
                   : ux_launch<int16_t, UX_FLOAT>(ctx, a, C);
    }
    if (dd == GIP_U8) {
        const int mode = ux_choose_u8(a, (int32_t)(255 * neg), (int32_t)(255 * (sum - neg)));
        if (mode == UX_ABS8)
            return ux_launch_plan<uint8_t, UX_ABS8>(ctx, a, C);
        if (mode == UX_MUL)
            return ux_launch_plan<uint8_t, UX_MUL>(ctx, a, C);
    }
    if (dd == GIP_U8)
        return lut ? ux_launch_plan<uint8_t, UX_LUT>(ctx, a, C)
                   : ux_launch<uint8_t, UX_FLOAT>(ctx, a, C);
    return ux_launch_plan<float, UX_FLOAT>(ctx, a, C);
}

/* ---- the ring with float accumulators: u8 and f32 sources, taps inside 3x3 -------------------
 *
 * Plans the packed kernel cannot take (float taps, the gradient magnitude, f32 sources) on images
 * with 16-byte rows, when every tap lies within one pixel of the anchor, run on the packed
 * kernel's ring, lanes and bands with float accumulators: a lane's window becomes floats once a
 * row (u8 through a byte permute into the mantissa of 2^23 and a subtraction, exact), and each
 * source row adds its taps to the three output rows it belongs to, one __fmaf_rn a tap in the
 * plan's row-major order, as filter2d.h's arithmetic and the CPU do; so the outputs are
 * bit-identical to the CPU's. Integer plans run the same float chain, exact because every partial
 * sum stays below 2^24 (checked on the host, as for f2d_box). f2d_box runs these plans with
 * block-wide tiles and barriers; its runtime tap tests and staging took more instructions than its
 * multiply-adds (sm_90 SASS, 2026-12-04), and it kept few warps busy below 7680x4320. A lane holds
 * VE = 16 / sizeof(S) outputs of a row: 16 for u8, 4 for f32. */
enum { UXF_FULL, UXF_MASK, UXF_MAG }; /* all nine taps; some of them (tested); two kernels */

/* acc[i] = fma(k[t], x[i + dx C], acc[i]) for the taps t = 3 dy + dx (dx = 0, 1, 2) of one kernel
 * row that are in kernel `kn`'s plan, in order. */
template <int N, int C, bool FULL>
__device__ __forceinline__ void uxf_add(const UxArgs &a, float *acc, const float *x, int dy, int kn)
{
#pragma unroll
    for (int dx = 0; dx < 3; dx++) {
        const int t = 3 * dy + dx;
        if (!FULL && !(a.kmask[kn] >> t & 1u))
            continue;
        const float k = a.kf[kn][t];
#pragma unroll
        for (int i = 0; i < N; i++)
            acc[i] = __fmaf_rn(k, x[i + dx * C], acc[i]);
    }
}

/* Finishes (filter2d.h) and stores a lane's N sums at d: g, and g2 for the magnitude. */
template <typename D, int N, bool MAG>
__device__ __forceinline__ void uxf_store(const UxArgs &a, const float *g, const float *g2, D *d,
                                          int32_t left)
{
    uint32_t t[N], o[N * sizeof(D) / 4];
    if (!MAG && !a.affine && !a.abs) { /* filter2D: saturation only (uniform branch) */
#pragma unroll
        for (int i = 0; i < N; i++) {
            if constexpr (std::is_same<D, uint8_t>::value)
                t[i] = __float_as_uint(__fadd_rn(fminf(fmaxf(g[i], 0.0f), 255.0f), 8388608.0f));
            else
                t[i] = __float_as_uint(g[i]);
        }
    } else {
#pragma unroll
        for (int i = 0; i < N; i++) {
            float v = g[i];
            if constexpr (MAG) {
                float q = __fmul_rn(v, v); /* gx * gx */
                q = __fmaf_rn(g2[i], g2[i], q);
                v = __fsqrt_rn(q);
            }
            t[i] = ux_finish<D>(a, v);
        }
    }
    ux_pack<D, N>(t, o);
    ux_write<D, N>(o, d, left);
}

template <typename S, typename D, int C, int KIND>
__global__ void __launch_bounds__(32 * UX_WARPS) f2d_ringf(const __grid_constant__ UxArgs a)
{
    constexpr int VE = 16 / (int)sizeof(S), NX = VE + 2 * C, NK = KIND == UXF_MAG ? 2 : 1;
    constexpr bool FULL = KIND == UXF_FULL;
    __shared__ UxRing ring;
    const UxWarp wp = ux_warp<S>(a, ring);
    const int32_t e = wp.e;
    for (int32_t band = (int32_t)(blockIdx.y * UX_WARPS + threadIdx.y); band < wp.bands;
         band += (int32_t)(gridDim.y * UX_WARPS)) {
        const int32_t y0 = band * a.ry, yend = min(y0 + a.ry, a.H);
        UxCursor cur =
            ux_band_start<S, C>(a, wp.ln, e, wp.inner, y0, yend, wp.s0, (int32_t)sizeof(D));
        /* Output rows r - 1 and r + 1 of source row r (then r and r + 1), per kernel. */
        float A[NK][VE], B[NK][VE];
#pragma unroll
        for (int k = 0; k < NK; k++)
#pragma unroll
            for (int i = 0; i < VE; i++)
                A[k][i] = B[k][i] = a.init;
        for (int32_t r = y0 - 1; r <= yend; r++) {
            uint32_t w[ux_nwin<S>()];
            ux_row_words<S, C>(a, cur, wp.ln, e, wp.inner, yend, r, w);
            /* Output i's tap dx reads element i + (dx - 1) C of the lane's: x[i + dx C]. */
            float x[NX];
#pragma unroll
            for (int j = 0; j < NX; j++) {
                if constexpr (sizeof(S) == 1) {
                    const int b = 4 - C + j; /* window byte: the lane's first is byte 4 */
                    x[j] = __fsub_rn(
                        __uint_as_float(__byte_perm(w[b >> 2], 0x4B000000u, 0x7540u | (b & 3))),
                        8388608.0f);
                } else {
                    x[j] = __uint_as_float(w[4 - C + j]); /* the lane's first is word 4 */
                }
            }
            /* Output row r - 1 gets its last kernel row, r its middle, r + 1 its first. The first
             * and the last of these skip rows outside the band (r - 1 < y0, r + 1 >= yend; the
             * tests are uniform across the warp): 4 of the band's 3 (ry + 2) steps, 11 of 15 left
             * with 3 rows a band. Testing the middle one too (2 more steps) took registers: the
             * MASK and MAG kernels went from 92-122 to 121-138 (sm_90, ptxas -v). */
            if (r > y0) {
#pragma unroll
                for (int k = 0; k < NK; k++)
                    uxf_add<VE, C, FULL>(a, A[k], x, 2, k);
                if (e < a.n)
                    uxf_store<D, VE, KIND == UXF_MAG>(
                        a, A[0], A[NK - 1], reinterpret_cast<D *>(a.dst + cur.doff), a.n - e);
            }
            cur.doff += a.dstride;
            const bool first = r + 1 < yend;
#pragma unroll
            for (int k = 0; k < NK; k++) {
#pragma unroll
                for (int i = 0; i < VE; i++) {
                    A[k][i] = B[k][i], B[k][i] = a.init;
                }
                uxf_add<VE, C, FULL>(a, A[k], x, 1, k);
                if (first)
                    uxf_add<VE, C, FULL>(a, B[k], x, 0, k);
            }
        }
    }
}

template <typename S, typename D, int KIND>
static gip_status uxf_launch(gip_context *ctx, UxArgs &a, int32_t C)
{
    /* GIP_F2D_RING_ROWS=N (1 to 64): N rows a band instead of ux_grid's choice, for A/B runs
     * (f32 sources re-read two halo rows of 16 bytes an element per band of 3). */
    const char *rv = getenv("GIP_F2D_RING_ROWS");
    const int rows = rv && atoi(rv) > 0 && atoi(rv) <= 64 ? atoi(rv) : 0;
    const dim3 grid = ux_grid(a, (int32_t)sizeof(D), 32 * 16 / (int32_t)sizeof(S), rows);
    const dim3 block(32, UX_WARPS);
    cudaStream_t s = gip__stream(ctx);
    if (C == 1)
        f2d_ringf<S, D, 1, KIND><<<grid, block, 0, s>>>(a);
    else if (C == 3)
        f2d_ringf<S, D, 3, KIND><<<grid, block, 0, s>>>(a);
    else
        f2d_ringf<S, D, 4, KIND><<<grid, block, 0, s>>>(a);
    return GIP__LAUNCH_CHECK(ctx, "2-D filter kernel (3x3, ring, float)");
}

template <typename S, typename D>
static gip_status uxf_dispatch(gip_context *ctx, UxArgs &a, int32_t C, bool mag)
{
    if (mag)
        return uxf_launch<S, D, UXF_MAG>(ctx, a, C);
    if (a.kmask[0] == 0x1FFu)
        return uxf_launch<S, D, UXF_FULL>(ctx, a, C);
    return uxf_launch<S, D, UXF_MASK>(ctx, a, C);
}

/* Runs a plan through f2d_ringf when it qualifies: u8 sources to u8 or f32, f32 sources to f32,
 * every tap of each kernel within one pixel of the anchor in row-major order, integer plans exact
 * in float, both images 16-byte aligned, rows below 2^30 elements; *done says whether it ran.
 * The default since it ran on the H200 (2026-12-05: 1.3-3.6x faster than f2d_box on every row of
 * filter2D 3x3 with float taps, Sobel to f32 from f32 and the magnitude, 1920x1080 to 7680x4320);
 * GIP_F2D_RING=0 (read at each call) sends these plans back to f2d_box. */
static gip_status uxf_run(gip_context *ctx, const gip__f2d_plan *p, const gip_image *src,
                          const gip_image *dst, bool *done)
{
    *done = false;
    const char *on = getenv("GIP_F2D_RING");
    if (on && atoi(on) == 0)
        return GIP_OK;
    const gip_dtype sd = src->dtype, dd = dst->dtype;
    const int64_t n = src->width * (int64_t)src->channels;
    if (!((sd == GIP_U8 && (dd == GIP_U8 || dd == GIP_F32)) || (sd == GIP_F32 && dd == GIP_F32)) ||
        n >= ((int64_t)1 << 30) || src->height >= ((int64_t)1 << 30))
        return GIP_OK;
    if (((uintptr_t)src->data | (uintptr_t)src->stride | (uintptr_t)dst->data |
         (uintptr_t)dst->stride) &
        15u)
        return GIP_OK;
    const bool mag = p->post == GIP__F2D_MAG;
    UxArgs a;
    memset(&a, 0, sizeof a);
    for (int32_t part = 0; part < (mag ? 2 : 1); part++) {
        const int32_t b = part ? p->ntaps : 0, e = part ? p->ntaps + p->ntaps2 : p->ntaps;
        if (e - b > 9 || !fb_row_major(p->taps, b, e))
            return GIP_OK;
        double sum = 0;
        for (int32_t i = b; i < e; i++) {
            const gip__f2d_tap *t = &p->taps[i];
            if (t->dx < -1 || t->dx > 1 || t->dy < -1 || t->dy > 1)
                return GIP_OK;
            const int pos = (t->dy + 1) * 3 + (t->dx + 1);
            a.kf[part][pos] = p->int_acc ? (float)t->ki : t->kf;
            a.kmask[part] |= 1u << pos;
            sum += fabs((double)t->ki);
        }
        if (p->int_acc && sum * (sd == GIP_U8 ? 255.0 : 65535.0) >= 16777216.0)
            return GIP_OK;
    }
    ux_fill_args(&a, p, src, dst);
    a.init = p->int_acc ? 0.0f : p->init;
    *done = true;
    const int32_t C = src->channels;
    if (sd == GIP_F32)
        return uxf_dispatch<float, float>(ctx, a, C, mag);
    if (dd == GIP_U8)
        return uxf_dispatch<uint8_t, uint8_t>(ctx, a, C, mag);
    return uxf_dispatch<uint8_t, float>(ctx, a, C, mag);
}

extern "C" gip_status gip__f2d_run_cuda(gip_context *ctx, const gip__f2d_plan *plan,
                                        const gip_image *src, gip_image *dst)
{
    bool done = false;
    gip_status bst = gip__f2d_run_u8x3_cuda(ctx, plan, src, dst, &done);
    if (done || bst)
        return bst;
    bst = uxf_run(ctx, plan, src, dst, &done);
    if (done || bst)
        return bst;
    bst = fb_run(ctx, plan, src, dst, &done);
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
