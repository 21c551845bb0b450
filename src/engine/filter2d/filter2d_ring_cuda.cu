/* SPDX-License-Identifier: MIT */
/* The 2-D correlation engine on CUDA (filter2d_cuda.cu): the ring with float accumulators, on the
 * row ring of filter2d_cuda.cuh. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <type_traits>

#include "border.h"
#include "cuda_util.cuh"
#include "filter2d.h"
#include "filter2d_cuda.cuh"
#include "tuning.h"

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
 * block-wide tiles and barriers; its runtime tap tests and staging take more instructions than its
 * multiply-adds (sm_90 SASS), and it keeps few warps busy below 7680x4320. A lane holds
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

/* Rows a band for f2d_ringf, from w0, the warps the image would take with one row a band (warps
 * of we elements across, times the height). Each band re-reads two halo rows, so longer bands
 * read less, but leave fewer warps to hide the loads. The rule comes from timing band lengths 1-16
 * (GIP_F2D_RING_ROWS) at 1920x1080, 3840x2160 and 7680x4320 on filter2D 3x3 with float taps and
 * the Sobel magnitude, u8c1, u8c3 and f32c1 (docs/design/filters.md):
 * - u8 sources: about w0 / 10000 rows, 3 to 8. At 7680x4320 8 rows made the magnitude of u8c3
 *   about 12% faster than ux_grid's 3, and 6 rows filter2D u8c1 7% faster; at 1920x1080 3 rows
 *   are within 3% of the best.
 * - f32 sources: 2 rows for filter2D (2% ahead of 3 at 3840x2160, equal at 7680x4320), and for
 *   the magnitude, whose two kernels make more work a row, 4 rows from 60000 warps (6% ahead of 3
 *   at 7680x4320). */
static int32_t uxf_rows(const UxArgs &a, int32_t ssize, int32_t we, bool mag)
{
    const int64_t w0 = ((int64_t)a.n + we - 1) / we * a.H;
    if (ssize == 1)
        return (int32_t)(w0 < 30000 ? 3 : w0 > 80000 ? 8 : w0 / 10000);
    return mag && w0 >= 60000 ? 4 : 2;
}

template <typename S, typename D, int KIND>
static gip_status uxf_launch(gip_context *ctx, UxArgs &a, int32_t C)
{
    /* GIP_F2D_RING_ROWS=N (1 to 64): N rows a band instead of uxf_rows's choice, for A/B runs
     * and for the tests' bands of 1 and 7 rows. */
    const int32_t we = 32 * 16 / (int32_t)sizeof(S);
    const int32_t forced = gip__tuning_get()->f2d_ring_rows;
    const int32_t rows = forced ? forced : uxf_rows(a, (int32_t)sizeof(S), we, KIND == UXF_MAG);
    const dim3 grid = ux_grid(a, (int32_t)sizeof(D), we, rows);
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
 * It takes these plans before f2d_box, which is faster on none of them (filter2D 3x3 with float
 * taps, Sobel to f32 from f32, the magnitude); f2d_box keeps the rest. */
extern "C" gip_status gip__f2d_run_ring_cuda(gip_context *ctx, const gip__f2d_plan *p,
                                             const gip_image *src, const gip_image *dst, bool *done)
{
    *done = false;
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
        if (e - b > 9 || !gip__f2d_taps_row_major(p->taps, b, e))
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
