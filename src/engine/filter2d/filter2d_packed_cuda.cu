/* SPDX-License-Identifier: MIT */
/* The 2-D correlation engine on CUDA (filter2d_cuda.cu): the packed kernel, two outputs a 32-bit
 * integer operation, on the row ring of filter2d_cuda.cuh. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <type_traits>

#include "border.h"
#include "cuda_util.cuh"
#include "filter2d.h"
#include "filter2d_cuda.cuh"

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

/* How a lane's sum becomes an output. UX_FAST: s16 without the affine step that cannot saturate;
 * only the low lane carries the bias B (sums start at B, not B (1 + 2^16)): the low lane, B + s
 * in [0, 2^16), never borrows from the high one, whose 16 bits are then s mod 2^16, the s16 result
 * itself, and the low lane's is that of acc - B: two instructions a pair. UX_LUT: u8 and s16
 * outputs whose biased sums take at most UX_LUT_MAX values: a table of the finish, built by each
 * block in shared memory from the same float steps as UX_FLOAT (so equal to them by construction),
 * replaces about seven instructions an output by a load (the float finish is half of box3's
 * instructions without it). UX_FLOAT: the float steps for each output. Two u8 finishes need
 * neither the table nor the float steps, where the host has checked that they give the float
 * steps' result for every sum the plan can produce (ux_choose_u8): UX_MUL, an affine finish
 * without saturation, as (v M + A) >> 16 (the box's 1/9); UX_ABS8, min(|s|, 255) (Sobel and
 * Scharr to u8) with B a multiple of 256, two 16-bit min/max a pair. */
enum { UX_FLOAT, UX_FAST, UX_LUT, UX_MUL, UX_ABS8 };
static constexpr int UX_LUT_MAX = 8192; /* 255 * 32 + 1: Scharr, Sobel and box 3x3 fit */

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
 * adds a pair instead of three multiply-adds (1-3% faster; the compiler gives them 90-94
 * registers against 88, the same five blocks an SM). */
enum { UX_GEN, UX_ONES, UX_DIFF, UX_SMOOTH, UX_BOX, UX_SOBX, UX_SOBY };

/* The horizontal pattern of each rank-1 path. */
__host__ __device__ constexpr int ux_hpat(int hk)
{
    return hk == UX_BOX ? UX_ONES : hk == UX_SOBX ? UX_DIFF : hk == UX_SOBY ? UX_SMOOTH : hk;
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
