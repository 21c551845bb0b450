/* SPDX-License-Identifier: MIT */
/* CUDA backend of the separable-filter engine: a tiled kernel that stages the source tile and its
 * halo in shared memory once (16-byte loads where the row allows), runs the horizontal pass into
 * shared memory and the vertical pass out to global memory, each thread producing a run of outputs
 * from a register ring; a direct kernel serves kernels and images the tiled one does not take.
 * Same results as the CPU backend, bit for bit: u8 Gaussian in OpenCV's fixed point, the rest in
 * float, multiply then add in tap order without FMA contraction. */
#include <new>

#include "cuda_util.cuh"
#include "border.h"

extern "C" {
#include "separable.h"
}

namespace
{

/* ---- the tiled kernel ------------------------------------------------------------------------
 *
 * Arithmetic. FLOAT plans: H = k0 x0 + k1 x1 + ... (each product rounded, then added in tap
 * order: __fmul_rn / __fadd_rn, exactly the CPU's order), V = sum_j ky_j H_j the same way, then
 * V * scale and the CPU's conversion. FIXED_U8 plans are run in float with FMA, which is exact:
 * the launcher takes the tiled path only when every kxi, kyi >= 0, 255 * sum(kxi) <= 65535 and
 * 255 * sum(kxi) * sum(kyi) + 32768 < 2^24 (OpenCV's kernels: non-negative taps summing to 256,
 * so H <= 65280 and V <= 16711680). Then every product and every partial sum is an integer below
 * 2^24, which float holds exactly, so each FMA is exact and the order of the terms is irrelevant;
 * H never reaches 65536, so the CPU's 16-bit H (which wraps) equals the float one, and V equals
 * the CPU's integer sum. The result (V + 32768) >> 16 is formed as floor((V + 32768) * 2^-16) by
 * one FMA rounded down onto 2^23 (exact: the value lies in [0, 256) with 16 fraction bits), whose
 * low mantissa byte is the answer; it is never above 255 by the same bound.
 *
 * Staging. Shared S holds nr = th + kh - 1 source rows by nc = TE + (kw - 1) CN elements (u8 and
 * u16 converted to float exactly: the value's bytes are placed in the mantissa of 2^23 by one
 * byte permute, then 2^23 is subtracted). Rows come through a per-tile table of row pointers
 * (the vertical border resolved once per row; NULL for a constant-border row). Columns are
 * loaded in 16-byte chunks aligned in global memory (per row, as the stride may be anything):
 * a chunk wholly inside the image row is one vector load, any other chunk goes element by element
 * through gip__border_index, which only happens at the image's left and right edges.
 *
 * Bank conflicts. The pitch of S is 1 mod 16 and the lanes of a warp cover 32 / CE chunks of CE
 * elements in each of CE rows (CE = 16 / sizeof(element)): the scalar stores of one step then
 * hit 32 distinct banks. The horizontal pass gives each lane M consecutive outputs of one row,
 * lanes 4 jobs wide and 8 rows deep, M = 8 (or 24 for three channels): its scalar loads hit
 * distinct banks too (8a + b mod 32 with b = the row, and 24a likewise). Shared Hs has a pitch
 * of 4 mod 8 floats, so the 16-byte stores of the horizontal pass and the 16-byte loads of the
 * vertical pass are conflict-free.
 *
 * Rings. A horizontal job keeps the M values its outputs need for the current tap in M
 * registers; after tap i the CN values that only tap i needed are replaced by the next CN, and
 * unrolling by M / CN taps makes every register index a constant. The vertical job (4 columns by
 * R rows) does the same with R rows of 4 values. Each shared value is thus read once per job. */

constexpr int NT = 256; /* threads per block */
constexpr int NWARPS = NT / 32;
constexpr int R = 8; /* rows per vertical job */
constexpr int FUSED_K = GIP__SEP_CUDA_FUSED_MAX_K;

/* Tile width TE (elements, whole pixels), horizontal run M, default tile height. */
template <int CN> struct tile_cfg {
    static constexpr int TE = 128, M = 8, TH = 64;
};
template <> struct tile_cfg<3> {
    static constexpr int TE = 192, M = 24, TH = 40;
};

struct tiled_args {
    const void *src;
    int64_t sstride;
    void *dst;
    int64_t dstride;
    int32_t w, h, wc; /* wc = w * channels; all below 2^31 minus the halo (checked by the host) */
    int32_t kw, kh, ax, ay;
    int32_t th, nr, nc, ps, ph; /* tile rows, staged rows and columns, pitches of S and Hs */
    int32_t tiles_y;
    gip_border border;
    bool svec; /* source rows are aligned to their element size: 16-byte chunks may be used */
    bool dvec; /* destination base and stride allow 4-element stores */
    float bval[4];
    float scale;
    float kx[FUSED_K], ky[FUSED_K];
};

/* A value v < 2^23 held in the low mantissa bits of 2^23 (bits 0x4B000000 | v), as a float. */
__device__ __forceinline__ float u2f_magic(uint32_t bits)
{
    return __fsub_rn(__uint_as_float(bits), 8388608.0f);
}

/* The CE elements of one aligned 16-byte chunk as floats. */
__device__ __forceinline__ void chunk_to_float(const uint8_t *, uint4 v, float *o)
{
    const uint32_t wv[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int q = 0; q < 4; q++)
#pragma unroll
        for (int j = 0; j < 4; j++)
            o[4 * q + j] = u2f_magic(__byte_perm(wv[q], 0x4B00u, 0x5440u | (unsigned)j));
}
__device__ __forceinline__ void chunk_to_float(const uint16_t *, uint4 v, float *o)
{
    const uint32_t wv[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int q = 0; q < 4; q++) {
        o[2 * q] = u2f_magic(__byte_perm(wv[q], 0x4B00u, 0x5410u));
        o[2 * q + 1] = u2f_magic(__byte_perm(wv[q], 0x4B00u, 0x5432u));
    }
}
__device__ __forceinline__ void chunk_to_float(const float *, uint4 v, float *o)
{
    o[0] = __uint_as_float(v.x);
    o[1] = __uint_as_float(v.y);
    o[2] = __uint_as_float(v.z);
    o[3] = __uint_as_float(v.w);
}

/* Source element e (any integer) of a row (NULL: constant-border row), border applied. */
template <typename TS, int CN>
__device__ __forceinline__ float edge_elem(const tiled_args &a, const TS *row, int e)
{
    int px = e >= 0 ? e / CN : -((CN - 1 - e) / CN);
    int c = e - px * CN;
    if (!row)
        return a.bval[c];
    if (e >= 0 && e < a.wc)
        return static_cast<float>(row[e]);
    int64_t sx = gip__border_index(px, a.w, a.border);
    return sx >= 0 ? static_cast<float>(row[sx * CN + c]) : a.bval[c];
}

/* Fills S from the source rows in `rows`; S column 0 is source element e0 of each row. */
template <typename TS, int CN>
__device__ __forceinline__ void stage(const tiled_args &a, const TS *const *rows, float *S, int e0)
{
    constexpr int CE = 16 / sizeof(TS);      /* elements per chunk */
    constexpr int LA = 32 / CE;              /* chunks per row in one warp step */
    constexpr int SB = 4;                    /* steps whose loads are in flight together */
    const int nq = (a.nc + 2 * CE - 2) / CE; /* chunks covering nc columns from any alignment */
    const int cg = (nq + LA - 1) / LA, rg = (a.nr + CE - 1) / CE;
    const int lane = threadIdx.x & 31, la = lane % LA, lb = lane / LA;
    int gi = threadIdx.x >> 5; /* this warp's step: row group gi / cg, chunk group gi % cg */
    int rgi = gi / cg, cgi = gi - rgi * cg;
    while (rgi < rg) {
        uint4 raw[SB];
        int col[SB], r[SB];
        bool vec[SB], any[SB];
#pragma unroll
        for (int s = 0; s < SB; s++) {
            r[s] = rgi * CE + lb;
            any[s] = rgi < rg && r[s] < a.nr;
            vec[s] = false;
            col[s] = 0;
            if (any[s]) {
                const TS *row = rows[r[s]];
                /* Aligned chunk grid of this row: element e is a chunk start when
                 * (phase + e) % CE == 0, phase = the row's address in elements mod CE. */
                int phase = row ? (int)((reinterpret_cast<uintptr_t>(row) / sizeof(TS)) % CE) : 0;
                int eb = e0 - ((phase + e0) & (CE - 1));
                int e = eb + (cgi * LA + la) * CE;
                col[s] = e - e0;
                any[s] = cgi * LA + la < nq && col[s] < a.nc;
                vec[s] = any[s] && row && a.svec && e >= 0 && e + CE <= a.wc;
                if (vec[s])
                    raw[s] = __ldg(reinterpret_cast<const uint4 *>(row + e));
            }
            cgi += NWARPS;
            while (cgi >= cg) {
                cgi -= cg;
                rgi++;
            }
        }
#pragma unroll
        for (int s = 0; s < SB; s++) {
            if (!any[s])
                continue;
            float *srow = S + r[s] * a.ps;
            if (vec[s]) {
                float v[CE];
                chunk_to_float(static_cast<const TS *>(nullptr), raw[s], v);
#pragma unroll
                for (int j = 0; j < CE; j++)
                    if ((unsigned)(col[s] + j) < (unsigned)a.nc)
                        srow[col[s] + j] = v[j];
            } else {
                const TS *row = rows[r[s]];
                for (int j = 0; j < CE; j++)
                    if ((unsigned)(col[s] + j) < (unsigned)a.nc)
                        srow[col[s] + j] = edge_elem<TS, CN>(a, row, e0 + col[s] + j);
            }
        }
    }
}

/* One horizontal job: M outputs from S row segment `s` (column of output 0's first tap). */
template <int M, int CN, bool FIXED>
__device__ __forceinline__ void hjob(const tiled_args &a, const float *s, float *acc)
{
    constexpr int U = M / CN; /* taps per ring period */
    float ring[M];
#pragma unroll
    for (int o = 0; o < M; o++)
        ring[o] = s[o];
    const float k0 = a.kx[0];
#pragma unroll
    for (int o = 0; o < M; o++)
        acc[o] = __fmul_rn(k0, ring[o]);
    for (int i0 = 0; i0 < a.kw; i0 += U) {
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int i = i0 + u;
            if (i < a.kw) {
                if (i > 0) {
                    const float k = a.kx[i];
#pragma unroll
                    for (int o = 0; o < M; o++) {
                        const float x = ring[(o + u * CN) % M];
                        if constexpr (FIXED)
                            acc[o] = __fmaf_rn(k, x, acc[o]);
                        else
                            acc[o] = __fadd_rn(acc[o], __fmul_rn(k, x));
                    }
                }
                /* values i CN .. i CN + CN - 1 are done; bring in the next CN */
                if (i + 1 < a.kw) {
#pragma unroll
                    for (int c = 0; c < CN; c++)
                        ring[u * CN + c] = s[i * CN + M + c];
                }
            }
        }
    }
}

template <int CN, bool FIXED>
__device__ __forceinline__ void hpass(const tiled_args &a, const float *S, float *Hs)
{
    constexpr int M = tile_cfg<CN>::M, JW = tile_cfg<CN>::TE / M, CGR = JW / 4;
    static_assert(JW % 4 == 0, "whole groups of four jobs per row");
    const int lane = threadIdx.x & 31, ja = lane & 3, rb = lane >> 2;
    const int items = ((a.nr + 7) >> 3) * CGR;
    for (int it = threadIdx.x >> 5; it < items; it += NWARPS) {
        const int rgi = it / CGR, cgi = it - rgi * CGR;
        const int r = rgi * 8 + rb, g = cgi * 4 + ja;
        if (r >= a.nr)
            continue;
        float acc[M];
        hjob<M, CN, FIXED>(a, S + r * a.ps + g * M, acc);
        float4 *out = reinterpret_cast<float4 *>(Hs + r * a.ph + g * M);
#pragma unroll
        for (int q = 0; q < M / 4; q++)
            out[q] = make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
    }
}

/* Output conversions, as the CPU: FIXED (V + 2^15) >> 16; FLOAT V * scale then, for integer
 * outputs, round half to even and saturate. Rounding adds 2^23 to a value clamped into the
 * output's range (a whole range, so clamping before rounding saturates the same way; fmaxf maps
 * NaN to 0 as the CPU's conversion does); the low mantissa bits are then the integer. */
template <typename TD, bool FIXED> struct finish;
template <> struct finish<uint8_t, true> {
    static __device__ __forceinline__ uint8_t cvt(float v, float)
    {
        float t = __fadd_rn(v, 32768.0f);
        return (uint8_t)(__float_as_uint(__fmaf_rd(t, 1.0f / 65536.0f, 8388608.0f)) & 0xFFu);
    }
};
template <> struct finish<uint8_t, false> {
    static __device__ __forceinline__ uint8_t cvt(float v, float scale)
    {
        float x = fminf(fmaxf(__fmul_rn(v, scale), 0.0f), 255.0f);
        return (uint8_t)(__float_as_uint(__fadd_rn(x, 8388608.0f)) & 0xFFu);
    }
};
template <> struct finish<uint16_t, false> {
    static __device__ __forceinline__ uint16_t cvt(float v, float scale)
    {
        float x = fminf(fmaxf(__fmul_rn(v, scale), 0.0f), 65535.0f);
        return (uint16_t)(__float_as_uint(__fadd_rn(x, 8388608.0f)) & 0xFFFFu);
    }
};
template <> struct finish<float, false> {
    static __device__ __forceinline__ float cvt(float v, float scale)
    {
        return __fmul_rn(v, scale);
    }
};

template <typename TD> __device__ __forceinline__ void store4(TD *p, const TD *v);
template <> __device__ __forceinline__ void store4<uint8_t>(uint8_t *p, const uint8_t *v)
{
    *reinterpret_cast<uint32_t *>(p) =
        (uint32_t)v[0] | (uint32_t)v[1] << 8 | (uint32_t)v[2] << 16 | (uint32_t)v[3] << 24;
}
template <> __device__ __forceinline__ void store4<uint16_t>(uint16_t *p, const uint16_t *v)
{
    *reinterpret_cast<uint2 *>(p) =
        make_uint2((uint32_t)v[0] | (uint32_t)v[1] << 16, (uint32_t)v[2] | (uint32_t)v[3] << 16);
}
template <> __device__ __forceinline__ void store4<float>(float *p, const float *v)
{
    *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
}

/* Vertical pass: jobs of 4 columns by R rows, output rows y0 .. y0 + th - 1 of the tile. */
template <typename TD, int CN, bool FIXED>
__device__ __forceinline__ void vpass(const tiled_args &a, const float *Hs, int y0, int xe0)
{
    constexpr int CW = tile_cfg<CN>::TE / 4;
    const int jobs = (a.th / R) * CW;
    for (int job = threadIdx.x; job < jobs; job += NT) {
        const int st = job / CW, c4 = job - st * CW;
        const float *base = Hs + st * R * a.ph + c4 * 4;
        float4 ring[R];
#pragma unroll
        for (int o = 0; o < R; o++)
            ring[o] = *reinterpret_cast<const float4 *>(base + o * a.ph);
        float acc[R][4];
        const float k0 = a.ky[0];
#pragma unroll
        for (int o = 0; o < R; o++) {
            acc[o][0] = __fmul_rn(k0, ring[o].x);
            acc[o][1] = __fmul_rn(k0, ring[o].y);
            acc[o][2] = __fmul_rn(k0, ring[o].z);
            acc[o][3] = __fmul_rn(k0, ring[o].w);
        }
        for (int j0 = 0; j0 < a.kh; j0 += R) {
#pragma unroll
            for (int u = 0; u < R; u++) {
                const int j = j0 + u;
                if (j < a.kh) {
                    if (j > 0) {
                        const float k = a.ky[j];
#pragma unroll
                        for (int o = 0; o < R; o++) {
                            const float4 x = ring[(o + u) % R];
                            const float xs[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
                            for (int v = 0; v < 4; v++) {
                                if constexpr (FIXED)
                                    acc[o][v] = __fmaf_rn(k, xs[v], acc[o][v]);
                                else
                                    acc[o][v] = __fadd_rn(acc[o][v], __fmul_rn(k, xs[v]));
                            }
                        }
                    }
                    if (j + 1 < a.kh)
                        ring[u] = *reinterpret_cast<const float4 *>(base + (j + R) * a.ph);
                }
            }
        }
        const int xe = xe0 + c4 * 4;
#pragma unroll
        for (int o = 0; o < R; o++) {
            const int y = y0 + st * R + o;
            if (y >= a.h)
                break;
            TD out[4];
#pragma unroll
            for (int v = 0; v < 4; v++)
                out[v] = finish<TD, FIXED>::cvt(acc[o][v], a.scale);
            TD *drow = gip__row<TD>(a.dst, a.dstride, y) + xe;
            if (a.dvec && xe + 4 <= a.wc) {
                store4<TD>(drow, out);
            } else {
#pragma unroll
                for (int v = 0; v < 4; v++)
                    if (xe + v < a.wc)
                        drow[v] = out[v];
            }
        }
    }
}

template <typename TS, typename TD, int CN, bool FIXED>
__global__ void __launch_bounds__(NT, 2) sep_tiled(const tiled_args a)
{
    extern __shared__ __align__(16) unsigned char smem[];
    /* [Hs: nr x ph floats][row table: nr pointers][S: nr x ps floats] */
    float *Hs = reinterpret_cast<float *>(smem);
    const TS **rows = reinterpret_cast<const TS **>(smem + (size_t)a.nr * a.ph * sizeof(float));
    float *S = reinterpret_cast<float *>(rows + a.nr);
    constexpr int TE = tile_cfg<CN>::TE;
    const int xe0 = (int)blockIdx.x * TE; /* first output element of the tile */
    const int e0 = xe0 - a.ax * CN;       /* source element of S column 0 */
    for (int ty = blockIdx.y; ty < a.tiles_y; ty += gridDim.y) {
        const int y0 = ty * a.th;
        for (int r = threadIdx.x; r < a.nr; r += NT) {
            int64_t sy = gip__border_index((int64_t)y0 - a.ay + r, a.h, a.border);
            rows[r] = sy >= 0 ? gip__row<TS>(a.src, a.sstride, sy) : nullptr;
        }
        __syncthreads();
        stage<TS, CN>(a, rows, S, e0);
        __syncthreads();
        hpass<CN, FIXED>(a, S, Hs);
        __syncthreads();
        vpass<TD, CN, FIXED>(a, Hs, y0, xe0);
        /* No barrier needed here: the next tile writes the row table and S only after barriers
         * that follow every read of them, and Hs after two more. */
    }
}

/* ---- the direct kernel ------------------------------------------------------------------------
 * For kernels beyond FUSED_K, images too wide for 32-bit tile indices, shared memory too small,
 * or fixed-point kernels outside the exact-float bound: one thread per output element, the CPU's
 * sums straight from global memory (FIXED in integers with the CPU's 16-bit H and 64-bit V). */

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

template <typename TS, int CN, int N>
__device__ __forceinline__ float hsum_f(const sep_geom &g, const sep_coeffs<N> &k, const TS *row,
                                        int64_t x, int c)
{
    float acc = 0.0f;
    for (int i = 0; i < g.kw; i++) {
        int64_t sx = row ? gip__border_index(x - g.ax + i, g.w, g.border) : -1;
        float v = sx >= 0 ? static_cast<float>(row[sx * CN + c]) : g.bval[c];
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
    return (uint16_t)acc; /* the CPU keeps H in 16 bits */
}

template <typename TS, typename TD, int CN, bool FIXED>
__global__ void sep_direct(sep_geom g, sep_coeffs<GIP__SEP_MAX_K> k)
{
    int64_t n = g.w * CN * g.h;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t y = i / (g.w * CN), e = i - y * g.w * CN, x = e / CN;
        int c = (int)(e - x * CN);
        float facc = 0.0f;
        int64_t iacc = 0;
        for (int j = 0; j < g.kh; j++) {
            int64_t sy = gip__border_index(y - g.ay + j, g.h, g.border);
            const TS *row = sy >= 0 ? gip__row<TS>(g.src, g.sstride, sy) : nullptr;
            if constexpr (FIXED) {
                iacc += (int64_t)k.kyi[j] * hsum_i<TS, CN>(g, k, row, x, c);
            } else {
                float p = __fmul_rn(k.kyf[j], hsum_f<TS, CN>(g, k, row, x, c));
                facc = j == 0 ? p : __fadd_rn(facc, p);
            }
        }
        TD out;
        if constexpr (FIXED)
            out = (TD)gip__sat_u8_i32((int32_t)((iacc + 32768) >> 16));
        else
            out = gip__saturate<TD>(__fmul_rn(facc, g.scale));
        gip__row<TD>(g.dst, g.dstride, y)[e] = out;
    }
}

/* ---- launchers ------------------------------------------------------------------------------ */

/* The fixed-point plan fits the exact-float argument above. */
bool fixed_exact(const gip__sep_plan *p)
{
    int64_t sx = 0, sy = 0;
    for (int i = 0; i < p->kw; i++) {
        if (p->kxi[i] < 0)
            return false;
        sx += p->kxi[i];
    }
    for (int j = 0; j < p->kh; j++) {
        if (p->kyi[j] < 0)
            return false;
        sy += p->kyi[j];
    }
    return 255 * sx <= 65535 && 255 * sx * sy + 32768 < ((int64_t)1 << 24);
}

template <int CN> size_t tiled_smem(int th, int kw, int kh, int *nr, int *nc, int *ps, int *ph)
{
    *nr = th + kh - 1;
    *nc = tile_cfg<CN>::TE + (kw - 1) * CN;
    *ps = ((*nc + 15) & ~15) + 1; /* 1 mod 16 */
    *ph = tile_cfg<CN>::TE + 4;   /* 4 mod 8 */
    return (size_t)*nr * (size_t)*ph * sizeof(float) + (size_t)*nr * sizeof(void *) +
           (size_t)*nr * (size_t)*ps * sizeof(float);
}

/* Tries the tiled kernel; *done false means the plan or image is not for it. */
template <typename TS, typename TD, int CN, bool FIXED>
gip_status launch_tiled(gip_context *ctx, const gip__sep_plan *p, const sep_geom &g, bool *done)
{
    *done = false;
    constexpr int TE = tile_cfg<CN>::TE;
    const int64_t margin = (int64_t)4 * (FUSED_K + TE) * CN + 64;
    if (p->kw > FUSED_K || p->kh > FUSED_K || g.w * CN > INT32_MAX - margin ||
        g.h > INT32_MAX - margin)
        return GIP_OK;
    if (FIXED && !fixed_exact(p))
        return GIP_OK;
    int dev = 0, optin = 0;
    gip_status st = gip__cuda_status(ctx, cudaGetDevice(&dev), "separable filter: device");
    if (!st)
        st = gip__cuda_status(
            ctx, cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev),
            "separable filter: shared memory limit");
    if (st)
        return st;
    /* Largest tile height (a multiple of R) whose shared memory leaves room for two blocks per
     * SM (2 x 113 KiB of the H200's 228); failing that, the largest that fits at all. */
    int nr, nc, ps, ph, th = tile_cfg<CN>::TH;
    size_t shm = tiled_smem<CN>(th, p->kw, p->kh, &nr, &nc, &ps, &ph);
    while (th > R && shm > 113 * 1024) {
        th -= R;
        shm = tiled_smem<CN>(th, p->kw, p->kh, &nr, &nc, &ps, &ph);
    }
    if (shm > (size_t)optin)
        return GIP_OK;
    auto kern = sep_tiled<TS, TD, CN, FIXED>;
    if (shm > 48 * 1024) {
        st = gip__cuda_status(
            ctx, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm),
            "separable filter: shared memory size");
        if (st)
            return st;
    }
    tiled_args a;
    a.src = g.src;
    a.sstride = g.sstride;
    a.dst = g.dst;
    a.dstride = g.dstride;
    a.w = (int32_t)g.w;
    a.h = (int32_t)g.h;
    a.wc = (int32_t)(g.w * CN);
    a.kw = p->kw;
    a.kh = p->kh;
    a.ax = p->ax;
    a.ay = p->ay;
    a.th = th;
    a.nr = nr;
    a.nc = nc;
    a.ps = ps;
    a.ph = ph;
    int64_t tiles_y = (g.h + th - 1) / th;
    a.tiles_y = (int32_t)tiles_y;
    a.border = g.border;
    const uintptr_t sb = reinterpret_cast<uintptr_t>(g.src),
                    db = reinterpret_cast<uintptr_t>(g.dst);
    a.svec = sb % sizeof(TS) == 0 && g.sstride % (int64_t)sizeof(TS) == 0;
    a.dvec = db % (4 * sizeof(TD)) == 0 && g.dstride % (int64_t)(4 * sizeof(TD)) == 0;
    for (int c = 0; c < 4; c++)
        a.bval[c] = g.bval[c];
    a.scale = g.scale;
    for (int i = 0; i < FUSED_K; i++) {
        a.kx[i] = i < p->kw ? (FIXED ? (float)p->kxi[i] : p->kxf[i]) : 0.0f;
        a.ky[i] = i < p->kh ? (FIXED ? (float)p->kyi[i] : p->kyf[i]) : 0.0f;
    }
    dim3 grid(gip__div_up(g.w * CN, TE), (unsigned)(tiles_y < 65535 ? tiles_y : 65535));
    kern<<<grid, NT, shm, gip__stream(ctx)>>>(a);
    *done = true;
    return GIP__LAUNCH_CHECK(ctx, "separable filter (tiled)");
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
    bool done = false;
    gip_status st = launch_tiled<TS, TD, CN, FIXED>(ctx, p, g, &done);
    if (st || done)
        return st;
    /* 16 KiB of coefficients: on the heap rather than on the caller's stack. */
    sep_coeffs<GIP__SEP_MAX_K> *kp = new (std::nothrow) sep_coeffs<GIP__SEP_MAX_K>;
    if (!kp)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "separable filter: out of host memory");
    fill_coeffs(*kp, p);
    int64_t n = g.w * CN * g.h;
    int64_t blocks = (n + 255) / 256;
    sep_direct<TS, TD, CN, FIXED>
        <<<(unsigned)(blocks < 65536 * 8 ? blocks : 65536 * 8), 256, 0, gip__stream(ctx)>>>(g, *kp);
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
