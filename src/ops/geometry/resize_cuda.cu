/* SPDX-License-Identifier: MIT */
/* resize on CUDA: the plan's tables kept on the device per context (keyed by the geometry, so a
 * repeated resize builds and copies nothing), kernels specialised for the common cases (u8 and f32
 * with 1, 3 or 4 channels; four output pixels a thread) and the generic kernel running resize.h's
 * element arithmetic for the rest. Every kernel computes what the CPU computes, in the same
 * integer types and the same unfused float operations. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_util.cuh"
#include "ops/geometry/resize.h"

/* ---- the generic kernel: one thread per output element (per pixel for nearest) ------------ */

__global__ void resize_kernel(gip__resize_plan p, const uint8_t *src, int64_t sstride, uint8_t *dst,
                              int64_t dstride)
{
    const int64_t per_row = p.kind == GIP__RS_NEAREST ? p.dw : p.dw * p.cn;
    for (int64_t y = blockIdx.y; y < p.dh; y += gridDim.y) {
        uint8_t *d = dst + y * dstride;
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < per_row;
             i += (int64_t)gridDim.x * blockDim.x) {
            /* A row holds far fewer than 2^32 elements: the pixel and channel in 32 bits (a 64-bit
             * division costs tens of instructions per element). */
            const uint32_t u = (uint32_t)i, cn = (uint32_t)p.cn;
            if (p.kind == GIP__RS_NEAREST)
                gip__rs_nearest(&p, src, sstride, d, y, i);
            else if (p.kind == GIP__RS_AREA_FAST)
                gip__rs_area_fast(&p, src, sstride, d, y, u / cn, (int32_t)(u % cn));
            else
                gip__rs_sep(&p, src, sstride, d, y, u / cn, (int32_t)(u % cn));
        }
    }
}

/* ---- specialised kernels: RS_PX output pixels a thread, a warp along one output row -------- */

#define RS_PX 4
#define RS_BX 32
#define RS_BY 8
#define RS_KS 4 /* taps a column that rs_sep_f stages in shared memory */

/* Stores the n = RS_PX * CN bytes of RS_PX u8 pixels: where the row allows (all pixels inside,
 * vec 1: the address 4-byte aligned, 2: 16-byte aligned) as 32-bit words or, four channels, one
 * 16-byte store; byte by byte otherwise. */
template <int CN>
__device__ __forceinline__ void rs_store_u8(uint8_t *d, const uint8_t *o, int32_t npx, int32_t vec)
{
    if (vec && npx == RS_PX) {
        gip__store_4px_u8<CN>(d, o, vec);
        return;
    }
#pragma unroll
    for (int i = 0; i < RS_PX * CN; i++)
        if (i < npx * CN)
            d[i] = o[i];
}

/* The first output column of this thread and its row step; false when the thread has no column. */
__device__ __forceinline__ bool rs_thread(int64_t dw, int32_t *x0)
{
    *x0 = (int32_t)((blockIdx.x * RS_BX + threadIdx.x) * RS_PX);
    return *x0 < dw;
}

/* Element c of output pixel (x, y) of a u8 2x2 shrink (gip__rs_area_fast's arithmetic): the
 * rounded mean of a whole block, the float mean of what is inside of a block cut by the edge. */
template <int CN>
__device__ __forceinline__ uint8_t rs_area2_px(const gip__resize_plan &p, const uint8_t *src,
                                               int64_t sstride, int32_t x, int32_t y, int32_t c)
{
    const int32_t sx0 = 2 * x, sy0 = 2 * y;
    if (sy0 + 2 <= p.sh && x < p.sw / 2) {
        const uint8_t *r0 = src + sy0 * sstride + sx0 * CN + c, *r1 = r0 + sstride;
        const int32_t s = __ldg(r0) + __ldg(r0 + CN) + __ldg(r1) + __ldg(r1 + CN);
        return (uint8_t)((s + 2) >> 2);
    }
    int32_t count = 0, si = 0;
    for (int32_t sy = sy0; sy < sy0 + 2 && sy < p.sh; sy++)
        for (int32_t sx = sx0; sx < sx0 + 2 && sx < p.sw; sx++) {
            si += __ldg(src + sy * sstride + sx * CN + c);
            count++;
        }
    return count ? gip__sat_u8_f32(__fdiv_rn((float)si, (float)count)) : (uint8_t)0;
}

/* OpenCV's 2x2 shrink of u8 ((a + b + c + d + 2) >> 2): where the four pixels' blocks lie inside
 * and the rows are 8-byte aligned, the 8 * CN source bytes of each row as 8-byte loads (16-byte
 * ones for four channels on 16-byte aligned rows). */
template <int CN>
__global__ void __launch_bounds__(RS_BX *RS_BY)
    rs_area2_u8(gip__resize_plan p, const uint8_t *__restrict__ src, int64_t sstride,
                uint8_t *__restrict__ dst, int64_t dstride, int32_t svec, int32_t dvec)
{
    int32_t x0;
    if (!rs_thread(p.dw, &x0))
        return;
    const int32_t dw = (int32_t)p.dw, fullw = (int32_t)(p.sw / 2), fullh = (int32_t)(p.sh / 2);
    const int32_t npx = dw - x0 < RS_PX ? dw - x0 : RS_PX;
    for (int32_t y = blockIdx.y * RS_BY + threadIdx.y; y < p.dh; y += gridDim.y * RS_BY) {
        uint8_t *d = dst + y * dstride + x0 * CN;
        uint8_t o[RS_PX * CN];
        if (svec && y < fullh && x0 + RS_PX <= fullw) {
            const uint8_t *r0 = src + (int64_t)(2 * y) * sstride + 2 * x0 * CN;
            uint32_t a[2 * CN], b[2 * CN];
            if (CN == 4 && svec >= 2) { /* 32 bytes a row: two 16-byte loads */
#pragma unroll
                for (int i = 0; i < CN / 2; i++) {
                    const uint4 va = __ldg(reinterpret_cast<const uint4 *>(r0) + i);
                    const uint4 vb = __ldg(reinterpret_cast<const uint4 *>(r0 + sstride) + i);
                    a[4 * i] = va.x;
                    a[4 * i + 1] = va.y;
                    a[4 * i + 2] = va.z;
                    a[4 * i + 3] = va.w;
                    b[4 * i] = vb.x;
                    b[4 * i + 1] = vb.y;
                    b[4 * i + 2] = vb.z;
                    b[4 * i + 3] = vb.w;
                }
            } else {
#pragma unroll
                for (int i = 0; i < CN; i++) {
                    const uint2 va = __ldg(reinterpret_cast<const uint2 *>(r0) + i);
                    const uint2 vb = __ldg(reinterpret_cast<const uint2 *>(r0 + sstride) + i);
                    a[2 * i] = va.x;
                    a[2 * i + 1] = va.y;
                    b[2 * i] = vb.x;
                    b[2 * i + 1] = vb.y;
                }
            }
#define RS_B(v, j) (((v)[(j) >> 2] >> (8 * ((j)&3))) & 255u)
#pragma unroll
            for (int q = 0; q < RS_PX; q++)
#pragma unroll
                for (int c = 0; c < CN; c++) {
                    const int j = 2 * q * CN + c;
                    const uint32_t s = RS_B(a, j) + RS_B(a, j + CN) + RS_B(b, j) + RS_B(b, j + CN);
                    o[q * CN + c] = (uint8_t)((s + 2) >> 2);
                }
#undef RS_B
        } else {
#pragma unroll
            for (int q = 0; q < RS_PX; q++)
#pragma unroll
                for (int c = 0; c < CN; c++)
                    o[q * CN + c] = q < npx ? rs_area2_px<CN>(p, src, sstride, x0 + q, y, c) : 0;
        }
        rs_store_u8<CN>(d, o, npx, dvec);
    }
}

/* K consecutive table entries from an address aligned to K entries (rs_tables_aligned()): one
 * vector load. */
template <int K> __device__ __forceinline__ void rs_taps(const int32_t *t, int32_t *v)
{
    if (K == 2) {
        const int2 a = __ldg(reinterpret_cast<const int2 *>(t));
        v[0] = a.x;
        v[1 % K] = a.y;
    } else {
#pragma unroll
        for (int i = 0; i < K / 4; i++) {
            const int4 a = __ldg(reinterpret_cast<const int4 *>(t) + i);
            v[(4 * i) % K] = a.x;
            v[(4 * i + 1) % K] = a.y;
            v[(4 * i + 2) % K] = a.z;
            v[(4 * i + 3) % K] = a.w;
        }
    }
}

/* The K * CN bytes from a (K consecutive u8 pixels of a row) weighed by xc into h[c] (the sums
 * of rs_sep_u8, in another order: integers) by gip__load_bytes: the 4-byte aligned words that
 * hold them where whole, else byte by byte. */
template <int CN, int K>
__device__ __forceinline__ void rs_sums_run(const uint8_t *a, bool whole, const int32_t *xc,
                                            int32_t *h)
{
    constexpr int NB = K * CN, NV = (NB + 3) / 4;
    uint32_t v[NV];
    gip__load_bytes<NB>(a, whole, v);
#pragma unroll
    for (int c = 0; c < CN; c++) {
        int32_t s = 0;
#pragma unroll
        for (int t = 0; t < K; t++) {
            const int j = t * CN + c;
            s += (int32_t)((v[j >> 2] >> (8 * (j & 3))) & 255u) * xc[t];
        }
        h[c] = s;
    }
}

/* u8 with fixed tap counts: linear (K = 2, FINAL GIP__RS_LIN8), cubic (4, GIP__RS_CUBIC8),
 * Lanczos-4 (8, GIP__RS_SHIFT22), linear-exact (2, GIP__RS_FIX8): integer horizontal sums (their
 * order does not matter), then gip__rs_vint's combination. */
template <int CN, int K, int FINAL>
__global__ void __launch_bounds__(RS_BX *RS_BY)
    rs_sep_u8(gip__resize_plan p, const uint8_t *__restrict__ src, int64_t sstride,
              uint8_t *__restrict__ dst, int64_t dstride, int32_t dvec)
{
    /* The taps of the block's RS_BX * RS_PX columns, staged once for all its rows by coalesced
     * loads: tap k of column RS_PX * l + q (the thread l's pixel q) at [k][q][l], so that a
     * warp's reads of one tap of its pixels q hit 32 consecutive words. The source offsets are
     * in elements (column * CN); columns past the row hold zeros. */
    __shared__ int32_t s_xo[K][RS_PX][RS_BX], s_xc[K][RS_PX][RS_BX];
    const int32_t dw = (int32_t)p.dw;
    {
        const int32_t xb = (int32_t)(blockIdx.x * RS_BX * RS_PX);
        const int32_t *ti = p.xi + xb * K, *tc = p.xci + xb * K;
        for (int32_t i = threadIdx.y * RS_BX + threadIdx.x; i < RS_BX * RS_PX * K;
             i += RS_BX * RS_BY) {
            const int32_t j = i / K, k = i % K;
            const bool ok = xb + j < dw;
            s_xo[k][j % RS_PX][j / RS_PX] = ok ? __ldg(ti + i) * CN : 0;
            s_xc[k][j % RS_PX][j / RS_PX] = ok ? __ldg(tc + i) : 0;
        }
    }
    __syncthreads();
    int32_t x0;
    if (!rs_thread(p.dw, &x0))
        return;
    const int32_t npx = dw - x0 < RS_PX ? dw - x0 : RS_PX;
    const int32_t simd_end = (int32_t)p.simd_end;
    const int32_t rb = (int32_t)p.sw * CN; /* a source row's bytes */
    for (int32_t y = blockIdx.y * RS_BY + threadIdx.y; y < p.dh; y += gridDim.y * RS_BY) {
        const uint8_t *rows[K];
        int32_t yc[K], yr[K];
        rs_taps<K>(p.yi + y * K, yr);
        rs_taps<K>(p.yci + y * K, yc);
#pragma unroll
        for (int k = 0; k < K; k++)
            rows[k] = src + (int64_t)yr[k] * sstride;
        uint8_t o[RS_PX * CN];
#pragma unroll
        for (int q = 0; q < RS_PX; q++) {
            if (q < npx) {
                const int32_t x = x0 + q;
                int32_t xo[K], xc[K];
#pragma unroll
                for (int t = 0; t < K; t++) {
                    xo[t] = s_xo[t][q][threadIdx.x];
                    xc[t] = s_xc[t][q][threadIdx.x];
                }
                int32_t h[K][CN];
                bool run = K <= 4; /* the taps K consecutive pixels */
#pragma unroll
                for (int t = 1; t < K; t++)
                    run = run && xo[t] == xo[0] + t * CN;
                if (run) {
                    const bool whole = GIP__WHOLE_WORDS(xo[0], K * CN, rb);
#pragma unroll
                    for (int k = 0; k < K; k++)
                        rs_sums_run<CN, K>(rows[k] + xo[0], whole, xc, h[k]);
                } else {
#pragma unroll
                    for (int k = 0; k < K; k++)
#pragma unroll
                        for (int c = 0; c < CN; c++) {
                            int32_t s = 0;
#pragma unroll
                            for (int t = 0; t < K; t++)
                                s += (int32_t)__ldg(rows[k] + xo[t] + c) * xc[t];
                            h[k][c] = s;
                        }
                }
#pragma unroll
                for (int c = 0; c < CN; c++) {
                    uint8_t v;
                    if (FINAL == GIP__RS_SHIFT22) {
                        int32_t s = 0;
#pragma unroll
                        for (int k = 0; k < K; k++)
                            s += h[k][c] * yc[k];
                        const int32_t r = (s + (1 << 21)) >> 22;
                        v = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
                    } else if (FINAL == GIP__RS_FIX8) {
                        uint32_t s = 0;
#pragma unroll
                        for (int k = 0; k < K; k++)
                            s += (uint32_t)h[k][c] * (uint32_t)yc[k];
                        const uint32_t r = (s + (1u << 15)) >> 16;
                        v = (uint8_t)(r > 255 ? 255 : r);
                    } else if (FINAL == GIP__RS_LIN8) {
                        v = (uint8_t)((((yc[0] * (h[0][c] >> 4)) >> 16) +
                                       ((yc[1] * (h[1 % K][c] >> 4)) >> 16) + 2) >>
                                      2);
                    } else if (x * CN + c < simd_end) {
                        /* OpenCV's vector lanes: float, coefficients scaled by 2^-22, nested. */
                        const float sc = 1.f / (2048 * 2048);
                        float t = __fmul_rn((float)h[3 % K][c], (float)yc[3 % K] * sc);
                        t = __fadd_rn(__fmul_rn((float)h[2 % K][c], (float)yc[2 % K] * sc), t);
                        t = __fadd_rn(__fmul_rn((float)h[1][c], (float)yc[1] * sc), t);
                        t = __fadd_rn(__fmul_rn((float)h[0][c], (float)yc[0] * sc), t);
                        v = gip__sat_u8_f32(t);
                    } else {
                        const int32_t s = h[0][c] * yc[0] + h[1][c] * yc[1] +
                                          h[2 % K][c] * yc[2 % K] + h[3 % K][c] * yc[3 % K];
                        const int32_t r = (s + (1 << 21)) >> 22;
                        v = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
                    }
                    o[q * CN + c] = v;
                }
            }
        }
        rs_store_u8<CN>(dst + y * dstride + x0 * CN, o, npx, dvec);
    }
}

/* Float horizontal sums (GIP__RS_FSEQ: linear and cubic of f32, area of any type; GIP__RS_FCUBIC:
 * f32 cubic), any tap counts (area's vary per column and row), T the element type (u8 or f32).
 * The sums are gip__rs_sep's: left to right, products and sums rounded apart; cubic's vertical
 * sum nested below simd_end. */
template <int CN, typename T, bool CUBIC>
__global__ void __launch_bounds__(RS_BX *RS_BY)
    rs_sep_f(gip__resize_plan p, const uint8_t *__restrict__ src, int64_t sstride,
             uint8_t *__restrict__ dst, int64_t dstride, int32_t dvec)
{
    /* Up to RS_KS taps a column: the block's columns' taps staged once in shared memory by
     * coalesced loads, laid out as rs_sep_u8's (tap k of the thread l's pixel q at [k][q][l]),
     * with their counts; more taps are read from the tables in global memory. */
    __shared__ int32_t s_xo[RS_KS][RS_PX][RS_BX], s_xn[RS_PX][RS_BX];
    __shared__ float s_xc[RS_KS][RS_PX][RS_BX];
    const int32_t dw = (int32_t)p.dw, kx = p.kx, ky = p.ky;
    const bool staged = kx <= RS_KS;
    if (staged) {
        const int32_t xb = (int32_t)(blockIdx.x * RS_BX * RS_PX);
        const int32_t tid = threadIdx.y * RS_BX + threadIdx.x;
        for (int32_t i = tid; i < RS_BX * RS_PX * kx; i += RS_BX * RS_BY) {
            const int32_t j = i / kx, k = i - j * kx;
            const bool ok = xb + j < dw;
            s_xo[k][j % RS_PX][j / RS_PX] = ok ? __ldg(p.xi + xb * kx + i) * CN : 0;
            s_xc[k][j % RS_PX][j / RS_PX] = ok ? __ldg(p.xcf + xb * kx + i) : 0.f;
        }
        for (int32_t j = tid; j < RS_BX * RS_PX; j += RS_BX * RS_BY)
            s_xn[j % RS_PX][j / RS_PX] = xb + j >= dw ? 0 : p.xn ? __ldg(p.xn + xb + j) : kx;
    }
    __syncthreads();
    int32_t x0;
    if (!rs_thread(p.dw, &x0))
        return;
    const int32_t npx = dw - x0 < RS_PX ? dw - x0 : RS_PX;
    const int32_t simd_end = (int32_t)p.simd_end;
    for (int32_t y = blockIdx.y * RS_BY + threadIdx.y; y < p.dh; y += gridDim.y * RS_BY) {
        const int32_t ny = p.yn ? __ldg(p.yn + y) : ky;
        T o[RS_PX * CN];
#pragma unroll
        for (int q = 0; q < RS_PX; q++) {
            if (q >= npx) {
#pragma unroll
                for (int ch = 0; ch < CN; ch++)
                    o[q * CN + ch] = (T)0;
                continue;
            }
            const int32_t x = x0 + q;
            const int32_t nx = CUBIC    ? 4
                               : staged ? s_xn[q][threadIdx.x]
                               : p.xn   ? __ldg(p.xn + x)
                                        : kx;
            float v[CN], hc[CUBIC ? 4 : 1][CN];
#pragma unroll(CUBIC ? 4 : 1)
            for (int32_t k = 0; k < (CUBIC ? 4 : ny); k++) {
                const T *row =
                    reinterpret_cast<const T *>(src + (int64_t)__ldg(p.yi + y * ky + k) * sstride);
                float hs[CN];
#pragma unroll(CUBIC ? 4 : 1)
                for (int32_t t = 0; t < nx; t++) {
                    const int32_t xo =
                        staged ? s_xo[t][q][threadIdx.x] : __ldg(p.xi + x * kx + t) * CN;
                    const float c = staged ? s_xc[t][q][threadIdx.x] : __ldg(p.xcf + x * kx + t);
#pragma unroll
                    for (int ch = 0; ch < CN; ch++) {
                        const float m = __fmul_rn((float)__ldg(row + xo + ch), c);
                        hs[ch] = t ? __fadd_rn(hs[ch], m) : m;
                    }
                }
                if (CUBIC) {
#pragma unroll
                    for (int ch = 0; ch < CN; ch++)
                        hc[k & 3][ch] = hs[ch];
                } else {
                    const float c = __ldg(p.ycf + y * ky + k);
#pragma unroll
                    for (int ch = 0; ch < CN; ch++) {
                        const float m = __fmul_rn(hs[ch], c);
                        v[ch] = k ? __fadd_rn(v[ch], m) : m;
                    }
                }
            }
            if (CUBIC) {
                const float *yc = p.ycf + y * 4;
                const float c0 = __ldg(yc), c1 = __ldg(yc + 1), c2 = __ldg(yc + 2),
                            c3 = __ldg(yc + 3);
#pragma unroll
                for (int ch = 0; ch < CN; ch++) {
                    if (x * CN + ch < simd_end) {
                        float t = __fmul_rn(hc[3][ch], c3);
                        t = __fadd_rn(__fmul_rn(hc[2][ch], c2), t);
                        t = __fadd_rn(__fmul_rn(hc[1][ch], c1), t);
                        v[ch] = __fadd_rn(__fmul_rn(hc[0][ch], c0), t);
                    } else {
                        float s = __fmul_rn(hc[0][ch], c0);
                        s = __fadd_rn(s, __fmul_rn(hc[1][ch], c1));
                        s = __fadd_rn(s, __fmul_rn(hc[2][ch], c2));
                        v[ch] = __fadd_rn(s, __fmul_rn(hc[3][ch], c3));
                    }
                }
            }
#pragma unroll
            for (int ch = 0; ch < CN; ch++) {
                if (sizeof(T) == 1)
                    o[q * CN + ch] = (T)gip__sat_u8_f32(v[ch]);
                else
                    o[q * CN + ch] = (T)v[ch];
            }
        }
        uint8_t *d = dst + y * dstride + (int64_t)x0 * CN * sizeof(T);
        if (sizeof(T) == 1)
            rs_store_u8<CN>(d, reinterpret_cast<const uint8_t *>(o), npx, dvec);
        else
#pragma unroll
            for (int i = 0; i < RS_PX * CN; i++)
                if (i < npx * CN)
                    reinterpret_cast<T *>(d)[i] = o[i];
    }
}

/* Nearest: each output pixel a copy of PB bytes (32-bit words where PB allows and both rows are
 * 4-byte aligned). */
template <int PB>
__global__ void __launch_bounds__(RS_BX *RS_BY)
    rs_nearest(gip__resize_plan p, const uint8_t *__restrict__ src, int64_t sstride,
               uint8_t *__restrict__ dst, int64_t dstride, int32_t vec)
{
    int32_t x0;
    if (!rs_thread(p.dw, &x0))
        return;
    const int32_t dw = (int32_t)p.dw;
    const int32_t npx = dw - x0 < RS_PX ? dw - x0 : RS_PX;
    for (int32_t y = blockIdx.y * RS_BY + threadIdx.y; y < p.dh; y += gridDim.y * RS_BY) {
        const uint8_t *s = src + (int64_t)__ldg(p.yi + y) * sstride;
        uint8_t *d = dst + y * dstride + x0 * PB;
        for (int32_t q = 0; q < npx; q++) {
            const uint8_t *sp = s + __ldg(p.xi + x0 + q) * PB;
            if (PB % 4 == 0 && vec) {
#pragma unroll
                for (int w = 0; w < PB / 4; w++)
                    reinterpret_cast<uint32_t *>(d + q * PB)[w] =
                        __ldg(reinterpret_cast<const uint32_t *>(sp) + w);
            } else {
#pragma unroll
                for (int b = 0; b < PB; b++)
                    d[q * PB + b] = __ldg(sp + b);
            }
        }
    }
}

/* ---- launching -------------------------------------------------------------------------- */

static bool rs_aligned(const gip_image *img, int a)
{
    return (uintptr_t)img->data % (uintptr_t)a == 0 && img->stride % a == 0;
}

/* Whether the integer tables of a K-tap plan start on K-entry boundaries (the device block is
 * aligned and each table's offset in it is a multiple of K entries), as rs_taps() loads them. */
static bool rs_tables_aligned(const gip__resize_plan &p, int k)
{
    const uintptr_t a = (uintptr_t)k * sizeof(int32_t);
    return (uintptr_t)p.xi % a == 0 && (uintptr_t)p.xci % a == 0 && (uintptr_t)p.yi % a == 0 &&
           (uintptr_t)p.yci % a == 0;
}

template <int CN>
static void rs_launch_cn(const gip__resize_plan &p, dim3 grid, dim3 block, cudaStream_t s,
                         const uint8_t *sp, int64_t ss, uint8_t *dp, int64_t ds, int32_t svec,
                         int32_t dvec, bool *done)
{
    *done = true;
    /* The separable kernels on large outputs: four rows a thread (a block stages its columns'
     * taps once for them), still at least 2048 blocks. */
    if (p.kind == GIP__RS_SEP && (uint64_t)grid.x * grid.y >= 8192)
        grid.y = (grid.y + 3) / 4;
    if (p.kind == GIP__RS_AREA_FAST && p.area2x2 && p.dtype == GIP_U8)
        rs_area2_u8<CN><<<grid, block, 0, s>>>(p, sp, ss, dp, ds, svec, dvec);
    else if (p.kind == GIP__RS_SEP && p.dtype == GIP_U8 && !p.hfloat && !p.h64 && !p.xn && !p.yn &&
             p.kx == p.ky && rs_tables_aligned(p, p.kx < 4 ? p.kx : 4)) {
        if (p.final == GIP__RS_LIN8 && p.kx == 2)
            rs_sep_u8<CN, 2, GIP__RS_LIN8><<<grid, block, 0, s>>>(p, sp, ss, dp, ds, dvec);
        else if (p.final == GIP__RS_FIX8 && p.kx == 2)
            rs_sep_u8<CN, 2, GIP__RS_FIX8><<<grid, block, 0, s>>>(p, sp, ss, dp, ds, dvec);
        else if (p.final == GIP__RS_CUBIC8 && p.kx == 4)
            rs_sep_u8<CN, 4, GIP__RS_CUBIC8><<<grid, block, 0, s>>>(p, sp, ss, dp, ds, dvec);
        else if (p.final == GIP__RS_SHIFT22 && p.kx == 8)
            rs_sep_u8<CN, 8, GIP__RS_SHIFT22><<<grid, block, 0, s>>>(p, sp, ss, dp, ds, dvec);
        else
            *done = false;
    } else if (p.kind == GIP__RS_SEP && p.hfloat && p.final == GIP__RS_FSEQ && p.dtype == GIP_U8)
        rs_sep_f<CN, uint8_t, false><<<grid, block, 0, s>>>(p, sp, ss, dp, ds, dvec);
    else if (p.kind == GIP__RS_SEP && p.hfloat && p.final == GIP__RS_FSEQ && p.dtype == GIP_F32)
        rs_sep_f<CN, float, false><<<grid, block, 0, s>>>(p, sp, ss, dp, ds, dvec);
    else if (p.kind == GIP__RS_SEP && p.hfloat && p.final == GIP__RS_FCUBIC && p.dtype == GIP_F32 &&
             !p.xn && !p.yn && p.kx == 4 && p.ky == 4)
        rs_sep_f<CN, float, true><<<grid, block, 0, s>>>(p, sp, ss, dp, ds, dvec);
    else
        *done = false;
}

/* Runs plan p (its tables on the device) from src into dst. */
static gip_status rs_launch(gip_context *ctx, const gip__resize_plan &p, const gip_image *src,
                            gip_image *dst)
{
    cudaStream_t s = gip__stream(ctx);
    const uint8_t *sp = (const uint8_t *)src->data;
    uint8_t *dp = (uint8_t *)dst->data;
    const int64_t esz = p.dtype == GIP_U8 ? 1 : p.dtype == GIP_U16 ? 2 : 4;
    /* The specialised kernels index rows, columns and tables in 32 bits. */
    const int64_t lim = (int64_t)1 << 30;
    bool done = false;
    if (p.dw * p.cn * esz < lim && p.sw * p.cn * esz < lim && p.dh < lim && p.sh < lim &&
        p.dw * p.kx < lim && p.dh * p.ky < lim) {
        const dim3 block(RS_BX, RS_BY);
        const int64_t gy = (p.dh + RS_BY - 1) / RS_BY;
        const dim3 grid(gip__div_up(p.dw, RS_BX * RS_PX), (unsigned)(gy < 65535 ? gy : 65535));
        /* 1: rows aligned for the kernels' 8-byte loads (4-byte stores), 2: for 16-byte ones */
        const int32_t svec = rs_aligned(src, 16) ? 2 : rs_aligned(src, 8) ? 1 : 0;
        const int32_t dvec = rs_aligned(dst, 16) ? 2 : rs_aligned(dst, 4) ? 1 : 0;
        if (p.kind == GIP__RS_NEAREST) {
            const int64_t pb = p.cn * esz;
            done = true;
            switch (pb) {
            case 1:
                rs_nearest<1><<<grid, block, 0, s>>>(p, sp, src->stride, dp, dst->stride, 0);
                break;
            case 2:
                rs_nearest<2><<<grid, block, 0, s>>>(p, sp, src->stride, dp, dst->stride, 0);
                break;
            case 6:
                rs_nearest<6><<<grid, block, 0, s>>>(p, sp, src->stride, dp, dst->stride, 0);
                break;
            case 8:
                rs_nearest<8><<<grid, block, 0, s>>>(p, sp, src->stride, dp, dst->stride,
                                                     rs_aligned(src, 4) && dvec);
                break;
            case 3:
                rs_nearest<3><<<grid, block, 0, s>>>(p, sp, src->stride, dp, dst->stride, 0);
                break;
            case 4:
                rs_nearest<4><<<grid, block, 0, s>>>(p, sp, src->stride, dp, dst->stride,
                                                     rs_aligned(src, 4) && dvec);
                break;
            case 12:
                rs_nearest<12><<<grid, block, 0, s>>>(p, sp, src->stride, dp, dst->stride,
                                                      rs_aligned(src, 4) && dvec);
                break;
            case 16:
                rs_nearest<16><<<grid, block, 0, s>>>(p, sp, src->stride, dp, dst->stride,
                                                      rs_aligned(src, 4) && dvec);
                break;
            default:
                done = false;
            }
        } else if (p.cn == 1)
            rs_launch_cn<1>(p, grid, block, s, sp, src->stride, dp, dst->stride, svec, dvec, &done);
        else if (p.cn == 3)
            rs_launch_cn<3>(p, grid, block, s, sp, src->stride, dp, dst->stride, svec, dvec, &done);
        else if (p.cn == 4)
            rs_launch_cn<4>(p, grid, block, s, sp, src->stride, dp, dst->stride, svec, dvec, &done);
    }
    if (!done) {
        const int threads = 128;
        const int64_t per_row = p.kind == GIP__RS_NEAREST ? p.dw : p.dw * p.cn;
        const int64_t bx = (per_row + threads - 1) / threads;
        dim3 grid((unsigned)(bx < 4096 ? bx : 4096), (unsigned)(p.dh < 65535 ? p.dh : 65535));
        resize_kernel<<<grid, threads, 0, s>>>(p, sp, src->stride, dp, dst->stride);
    }
    return GIP__LAUNCH_CHECK(ctx, "resize kernel");
}

extern "C" gip_status gip__resize_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                       const gip__resize_plan *plan, const void *block,
                                       size_t bytes)
{
    gip__resize_plan p = *plan;
    cudaStream_t stream = gip__stream(ctx);
    void *dev = NULL;
    gip_status st = GIP_OK;
    if (bytes) {
        if ((st = gip__cuda_malloc(ctx, bytes, &dev)))
            return st;
        st = gip__cuda_status(ctx,
                              cudaMemcpyAsync(dev, block, bytes, cudaMemcpyHostToDevice, stream),
                              "copy of the resize tables");
        gip__rs_plan_rebase(&p, block, dev);
    }
    if (!st)
        st = rs_launch(ctx, p, src, dst);
    if (dev)
        gip__cuda_free(ctx, dev);
    return st;
}

/* ---- the per-context cache of device plans ---------------------------------------------- */

/* Plans kept per context; the oldest goes first. */
#define RS_CACHE_PER_CTX 16

typedef struct rs_entry {
    gip_context *ctx;
    int64_t sw, sh, dw, dh;
    int32_t cn, dtype, interp, antialias;
    double inv_x, inv_y;
    gip__resize_plan plan; /* its tables in dev */
    void *dev;
    uint64_t used;
    struct rs_entry *next;
} rs_entry;

/* Guards the cache; held across a launch, so that no other thread frees an entry's tables
 * before the launch that reads them is queued (frees are stream-ordered after it). */
static pthread_mutex_t rs_lock = PTHREAD_MUTEX_INITIALIZER;
static rs_entry *rs_cache;
static uint64_t rs_tick;

static void rs_context_release(gip_context *ctx)
{
    pthread_mutex_lock(&rs_lock);
    for (rs_entry **pe = &rs_cache; *pe;) {
        rs_entry *e = *pe;
        if (e->ctx == ctx) {
            *pe = e->next;
            gip__cuda_free(ctx, e->dev);
            free(e);
        } else
            pe = &e->next;
    }
    pthread_mutex_unlock(&rs_lock);
}

/* Drops ctx's least recently used plan when it holds RS_CACHE_PER_CTX of them. */
static void rs_evict(gip_context *ctx)
{
    int n = 0;
    rs_entry **old = NULL;
    for (rs_entry **pe = &rs_cache; *pe; pe = &(*pe)->next)
        if ((*pe)->ctx == ctx) {
            n++;
            if (!old || (*pe)->used < (*old)->used)
                old = pe;
        }
    if (n >= RS_CACHE_PER_CTX && old) {
        rs_entry *e = *old;
        *old = e->next;
        gip__cuda_free(ctx, e->dev);
        free(e);
    }
}

extern "C" gip_status gip__resize_cuda_run(gip_context *ctx, const gip_image *src, gip_image *dst,
                                           int32_t interp, int32_t antialias, double inv_x,
                                           double inv_y)
{
    if (src->width == dst->width && src->height == dst->height) /* OpenCV copies */
        return gip__cuda_status(
            ctx,
            cudaMemcpy2DAsync(dst->data, (size_t)dst->stride, src->data, (size_t)src->stride,
                              (size_t)(src->width * src->channels * gip_dtype_size(src->dtype)),
                              (size_t)src->height, cudaMemcpyDeviceToDevice, gip__stream(ctx)),
            "resize (copy)");
    gip_status st = GIP_OK;
    pthread_mutex_lock(&rs_lock);
    rs_entry *e = rs_cache;
    for (; e; e = e->next)
        if (e->ctx == ctx && e->sw == src->width && e->sh == src->height && e->dw == dst->width &&
            e->dh == dst->height && e->cn == src->channels && e->dtype == (int32_t)src->dtype &&
            e->interp == interp && e->antialias == antialias &&
            !memcmp(&e->inv_x, &inv_x, sizeof inv_x) && !memcmp(&e->inv_y, &inv_y, sizeof inv_y))
            break;
    if (!e) {
        gip__resize_plan plan;
        void *block = NULL, *dev = NULL;
        size_t bytes = 0;
        if ((st = gip__resize_plan_build(ctx, &plan, &block, &bytes, src->width, src->height,
                                         src->channels, src->dtype, dst->width, dst->height, inv_x,
                                         inv_y, interp, antialias)))
            goto out_unlock;
        if (!bytes) { /* no tables (integer shrinks): nothing worth keeping */
            free(block);
            st = rs_launch(ctx, plan, src, dst);
            goto out_unlock;
        }
        if ((st = gip__context_on_release(ctx, rs_context_release))) {
            free(block);
            goto out_unlock;
        }
        if (!(e = (rs_entry *)calloc(1, sizeof *e))) {
            free(block);
            st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "resize: out of host memory");
            goto out_unlock;
        }
        if ((st = gip__cuda_malloc(ctx, bytes, &dev))) {
            free(block);
            free(e);
            goto out_unlock;
        }
        /* From pageable memory: the copy has its own staging once this returns. */
        st = gip__cuda_status(
            ctx, cudaMemcpyAsync(dev, block, bytes, cudaMemcpyHostToDevice, gip__stream(ctx)),
            "copy of the resize tables");
        gip__rs_plan_rebase(&plan, block, dev);
        free(block);
        if (st) {
            gip__cuda_free(ctx, dev);
            free(e);
            goto out_unlock;
        }
        rs_evict(ctx);
        e->ctx = ctx;
        e->sw = src->width;
        e->sh = src->height;
        e->dw = dst->width;
        e->dh = dst->height;
        e->cn = src->channels;
        e->dtype = (int32_t)src->dtype;
        e->interp = interp;
        e->antialias = antialias;
        e->inv_x = inv_x;
        e->inv_y = inv_y;
        e->plan = plan;
        e->dev = dev;
        e->next = rs_cache;
        rs_cache = e;
    }
    e->used = ++rs_tick;
    st = rs_launch(ctx, e->plan, src, dst);
out_unlock:
    pthread_mutex_unlock(&rs_lock);
    return st;
}
