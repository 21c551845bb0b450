/* SPDX-License-Identifier: MIT */
/* The box kernel of the 2-D correlation engine on CUDA (filter2d_cuda.cu), for plans whose taps
 * all lie inside a 3x3 or 5x5 box: the kernel, its arguments and its launch. Its instances are
 * built in three files, by source and output dtype, so that they compile in parallel (as one
 * file they took 87 of the engine's 128 s on one core): filter2d_box_u8_cuda.cu (u8 sources to u8
 * and s16), filter2d_box_u8f32_cuda.cu (u8 to f32), filter2d_box_cuda.cu (u16 and f32 sources,
 * and the plan's checks). Private to those files. */
#ifndef GIP_FILTER2D_BOX_CUDA_CUH
#define GIP_FILTER2D_BOX_CUDA_CUH

#include <type_traits>

#include "border.h"
#include "cuda_util.cuh"
#include "filter2d.h"

/* ---- the fast path: every tap inside a 3x3 or 5x5 box ---------------------------------------
 *
 * A block of FB_THREADS threads owns a tile of FB_THREADS chunks of a row (a chunk is 8 bytes of
 * u8/u16 or 16 bytes of f32 source elements) by FB_NY output rows. The tile's source rows and
 * their halo are staged in shared memory in the source dtype: the rows' border mapping once a
 * row, one cp.async per chunk where the chunk lies inside the row and the row is aligned, the
 * border element by element only outside the image (against a 64-bit border mapping, an
 * alignment test for every chunk and a load through registers, this took 7-25% off filter2D 3x3
 * and the Sobel magnitude at 7680x4320). Each thread then walks its column of chunks down the
 * staged rows: it converts one window row to float once and adds it, tap by tap, to the K output
 * rows that use it; an output row is finished and stored (vectorised where dst allows) when its
 * last kernel row is in. Every output's taps arrive in the plan's row-major order, one __fmaf_rn at
 * a time, as on the CPU; integer plans run the same float chain, which is exact because every
 * partial sum stays below 2^24 (checked on the host), so the results equal the CPU's int32 sums. */
static constexpr int FB_THREADS = 128; /* threads per block, one chunk column each */
/* Output rows per tile. 32 is slower for u8 (the Sobel magnitude at 7680x4320 took a quarter
 * longer). */
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

/* The box kernel for u8 sources to u8 or s16 (dd), and to f32; mag: the plan's two kernels. */
gip_status gip__fb_run_u8(gip_context *ctx, const FbArgs &a, int32_t C, int32_t K, gip_dtype dd,
                          bool mag);
gip_status gip__fb_run_u8f32(gip_context *ctx, const FbArgs &a, int32_t C, int32_t K, bool mag);

#endif /* GIP_FILTER2D_BOX_CUDA_CUH */
