/* SPDX-License-Identifier: MIT */
/* CUDA backend of the separable-filter engine: a tiled kernel that stages the source tile and its
 * halo in shared memory once (16-byte loads where the row allows), runs the horizontal pass into
 * shared memory and the vertical pass out to global memory, each thread producing a run of outputs
 * from a register ring; a direct kernel serves kernels and images the tiled one does not take.
 * Same results as the CPU backend, bit for bit: u8 Gaussian in OpenCV's fixed point, u8 and u16
 * boxes (box_int plans) in exact integer sums, the rest in float, multiply then add in tap order
 * without FMA contraction. */
#include <string.h>

#include <new>

#include "cuda_util.cuh"
#include "border.h"

extern "C" {
#include "engine/filter2d/filter2d.h"
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
 * low mantissa byte is the answer; it is never above 255 by the same bound. box_int plans (all-ones
 * taps, u8 or u16 source) keep the float H, which is exact (at most 63 values below 2^16: below
 * 2^22), but sum V in 32-bit integers (below 63 * 63 * 2^16 < 2^32, where float sums would round
 * past 2^24) and convert V to float once, as the CPU does.
 *
 * Staging. Shared S holds nr = th + kh - 1 source rows of nq 16-byte chunks (nq * CE >= nc =
 * TE + (kw - 1) CN elements, CE = 16 / sizeof(element)) in the source dtype, unconverted: S
 * column 0 is source element e0 of each row. Rows come through a per-tile table of row pointers
 * (the vertical border resolved once per row; NULL for a constant-border row). A chunk whose
 * source bytes lie inside the image row is read as the one or two aligned 16-byte global chunks
 * covering it, shifted into place in registers by the row's misalignment (a funnel shift) and
 * written with one 16-byte shared store (u8) or four 4-byte ones (u16, f32, whose pitch is odd);
 * any other chunk goes element by element through gip__border_index, which only happens at the
 * image's left and right edges and for constant-border rows. Whole chunks are written (S rows are
 * padded to them), so the interior needs no per-element checks. The horizontal pass converts
 * when it reads: one 4-byte shared load brings 4 u8 (2 u16) elements, each turned into a float
 * exactly by one byte permute placing it in the mantissa of 2^23 and one subtraction of 2^23.
 *
 * Bank conflicts. The horizontal pass gives each lane M consecutive outputs of one row, lanes 4
 * jobs wide and 8 rows deep, M = 8 (or 24 for three channels); the pitch of S in words is 4 mod 8
 * for u8 (at most 2-way conflicts, the best a multiple of 4 allows) and odd for u16 and f32
 * (at most 2-way, none for f32). Shared Hs has a pitch of 4 mod 8 floats, so the 16-byte stores
 * of the horizontal pass and the 16-byte loads of the vertical pass are conflict-free.
 *
 * Rings. A horizontal job keeps the M values its outputs need for the current tap in M
 * registers; after tap i the CN values that only tap i needed are replaced by the next CN, and
 * unrolling by M / CN taps makes every register index a constant. The vertical job (4 columns by
 * R rows) does the same with R rows of 4 values. Each shared value is thus read once per job. */

constexpr int NT = 256; /* threads per block */
constexpr int NWARPS = NT / 32;
constexpr int R = 8;    /* rows per vertical job */
constexpr int MINB = 3; /* blocks per SM the registers and shared memory are sized for */
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
    int32_t th, nr, nq, ph;  /* tile rows, staged rows, chunks per staged row, pitch of Hs */
    int32_t pw;              /* pitch of S in 32-bit words */
    int32_t s_off, rows_off; /* byte offsets of S and of the row table in shared memory */
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

/* Element k (a constant) of a 32-bit word of staged elements, as a float (exact). */
template <typename TS> __device__ __forceinline__ float word_elem(uint32_t w, int k);
template <> __device__ __forceinline__ float word_elem<uint8_t>(uint32_t w, int k)
{
    return u2f_magic(__byte_perm(w, 0x4B00u, 0x5440u | (unsigned)k));
}
template <> __device__ __forceinline__ float word_elem<uint16_t>(uint32_t w, int k)
{
    return u2f_magic(__byte_perm(w, 0x4B00u, k ? 0x5432u : 0x5410u));
}
template <> __device__ __forceinline__ float word_elem<float>(uint32_t w, int)
{
    return __uint_as_float(w);
}

/* The bits of one element, for packing into a 32-bit word. */
__device__ __forceinline__ uint32_t elem_bits(uint8_t v)
{
    return v;
}
__device__ __forceinline__ uint32_t elem_bits(uint16_t v)
{
    return v;
}
__device__ __forceinline__ uint32_t elem_bits(float v)
{
    return __float_as_uint(v);
}

/* Elements e .. e + CE - 1 (any integers) of a row (NULL: constant-border row), border applied,
 * packed as one 16-byte chunk (the border value is one of the source dtype: see
 * gip__border_value_as). It only runs at the image's edges and for constant-border rows. */
template <typename TS, int CN>
__device__ __forceinline__ uint4 edge_chunk(const TS *row, int e, int w, int wc, gip_border border,
                                            float4 bv)
{
    constexpr int CE = 16 / sizeof(TS);
    const float bvals[4] = {bv.x, bv.y, bv.z, bv.w};
    uint32_t o[4] = {0, 0, 0, 0};
#pragma unroll
    for (int j = 0; j < CE; j++) {
        const int ej = e + j;
        const int px = ej >= 0 ? ej / CN : -((CN - 1 - ej) / CN);
        const int c = ej - px * CN;
        TS v;
        if (!row) {
            v = static_cast<TS>(bvals[c]);
        } else if (ej >= 0 && ej < wc) {
            v = row[ej];
        } else {
            const int64_t sx = gip__border_index(px, w, border);
            v = sx >= 0 ? row[sx * CN + c] : static_cast<TS>(bvals[c]);
        }
        o[j * sizeof(TS) / 4] |= elem_bits(v) << (8 * ((j * sizeof(TS)) % 4));
    }
    return make_uint4(o[0], o[1], o[2], o[3]);
}

/* One staged chunk between its global loads and its shared store. */
struct chunk_ld {
    uint4 A, B;  /* the aligned 16-byte global chunks covering it (B: only when m > 0) */
    int r, q, m; /* S row, chunk, and the bytes by which its start lies past A's */
    bool vec;    /* a chunk of S loaded as A:B (else left to the border pass) */
};

/* Whether chunk q of a row (source element e its first) can be read as aligned 16-byte
 * global chunks A (and B when *m, its misalignment in bytes, is not 0) inside the row. */
template <typename TS>
__device__ __forceinline__ bool chunk_vec(const tiled_args &a, const TS *row, int e, int *m,
                                          int *ea)
{
    constexpr int CE = 16 / sizeof(TS);
    *m = (int)(reinterpret_cast<uintptr_t>(row + e) & 15u);
    *ea = e - *m / (int)sizeof(TS); /* first element of A */
    return row && a.svec && *ea >= 0 && *ea + (*m ? 2 * CE : CE) <= a.wc;
}

/* Issues the global loads of chunk idx (row-major over nr x nq) of S when it is a vector one. */
template <typename TS>
__device__ __forceinline__ chunk_ld chunk_load(const tiled_args &a, const TS *const *rows, int e0,
                                               int idx)
{
    constexpr int CE = 16 / sizeof(TS);
    chunk_ld c;
    c.r = idx / a.nq;
    c.q = idx - c.r * a.nq;
    c.m = 0;
    c.vec = false;
    c.A = make_uint4(0u, 0u, 0u, 0u);
    c.B = c.A; /* not used when m = 0 */
    if (idx < a.nr * a.nq) {
        int ea;
        c.vec = chunk_vec<TS>(a, rows[c.r], e0 + c.q * CE, &c.m, &ea);
        const uint4 *pa = reinterpret_cast<const uint4 *>(rows[c.r] + ea);
        if (c.vec)
            c.A = __ldg(pa);
        if (c.vec && c.m)
            c.B = __ldg(pa + 1);
    }
    return c;
}

/* Four words into S row r, chunk q. */
template <typename TS>
__device__ __forceinline__ void chunk_put(const tiled_args &a, uint32_t *S, int r, int q,
                                          uint32_t o0, uint32_t o1, uint32_t o2, uint32_t o3)
{
    uint32_t *d = S + r * a.pw + q * 4;
    if constexpr (sizeof(TS) == 1) {
        *reinterpret_cast<uint4 *>(d) = make_uint4(o0, o1, o2, o3);
    } else {
        d[0] = o0;
        d[1] = o1;
        d[2] = o2;
        d[3] = o3;
    }
}

/* Writes a vector chunk into S: bytes m .. m + 15 of A:B. */
template <typename TS>
__device__ __forceinline__ void chunk_store(const tiled_args &a, uint32_t *S, const chunk_ld &c)
{
    if (!c.vec)
        return;
    /* word shift by m >> 2 as two masked selections (bit operations: conditionals here get
     * turned into indexing a local array), then a funnel shift by m & 3 bytes */
    const uint32_t s1 = 0u - ((uint32_t)c.m >> 2 & 1u), s2 = 0u - ((uint32_t)c.m >> 3 & 1u);
    const uint32_t u0 = c.A.x ^ ((c.A.x ^ c.A.y) & s1), u1 = c.A.y ^ ((c.A.y ^ c.A.z) & s1),
                   u2 = c.A.z ^ ((c.A.z ^ c.A.w) & s1), u3 = c.A.w ^ ((c.A.w ^ c.B.x) & s1),
                   u4 = c.B.x ^ ((c.B.x ^ c.B.y) & s1), u5 = c.B.y ^ ((c.B.y ^ c.B.z) & s1),
                   u6 = c.B.z ^ ((c.B.z ^ c.B.w) & s1);
    const uint32_t v0 = u0 ^ ((u0 ^ u2) & s2), v1 = u1 ^ ((u1 ^ u3) & s2),
                   v2 = u2 ^ ((u2 ^ u4) & s2), v3 = u3 ^ ((u3 ^ u5) & s2),
                   v4 = u4 ^ ((u4 ^ u6) & s2);
    const uint32_t sb = 8u * ((uint32_t)c.m & 3u);
    chunk_put<TS>(a, S, c.r, c.q, __funnelshift_r(v0, v1, sb), __funnelshift_r(v1, v2, sb),
                  __funnelshift_r(v2, v3, sb), __funnelshift_r(v3, v4, sb));
}

/* Fills S from the source rows in `rows`: chunk q of S row r holds source elements
 * e0 + q CE .. e0 + q CE + CE - 1 of row r. First every chunk that can be read as vectors, two
 * per thread with their loads in flight together; then, only in tiles that have any (`edge`:
 * at the image's left and right edges, unaligned rows, constant-border rows), the others through
 * the border, in a loop of their own so that the border arithmetic (64-bit divisions, which are
 * calls) does not make the vector loop save its registers to local memory. */
template <typename TS, int CN>
__device__ __forceinline__ void stage(const tiled_args &a, const TS *const *rows, uint32_t *S,
                                      int e0, bool edge)
{
    constexpr int CE = 16 / sizeof(TS);
    const int total = a.nr * a.nq;
    for (int base = threadIdx.x; base < total; base += 2 * NT) {
        const chunk_ld c0 = chunk_load<TS>(a, rows, e0, base);
        const chunk_ld c1 = chunk_load<TS>(a, rows, e0, base + NT);
        chunk_store<TS>(a, S, c0);
        chunk_store<TS>(a, S, c1);
    }
    if (!edge)
        return;
    const float4 bv = make_float4(a.bval[0], a.bval[1], a.bval[2], a.bval[3]);
    for (int idx = threadIdx.x; idx < total; idx += NT) {
        const int r = idx / a.nq, q = idx - r * a.nq, e = e0 + q * CE;
        int m, ea;
        if (chunk_vec<TS>(a, rows[r], e, &m, &ea))
            continue;
        const uint4 v = edge_chunk<TS, CN>(rows[r], e, a.w, a.wc, a.border, bv);
        chunk_put<TS>(a, S, r, q, v.x, v.y, v.z, v.w);
    }
}

/* One horizontal job: M outputs from the S row words `s` (element 0: output 0's first tap). The
 * ring is refilled from 32-bit words, each loaded from shared memory when its first element is
 * needed and converted element by element. */
template <typename TS, int M, int CN, bool FIXED>
__device__ __forceinline__ void hjob(const tiled_args &a, const uint32_t *s, float *acc)
{
    constexpr int U = M / CN;           /* taps per ring period */
    constexpr int EPW = 4 / sizeof(TS); /* elements per word */
    constexpr int MW = M / EPW;         /* words per period */
    static_assert(M % EPW == 0, "whole words per period");
    float ring[M];
#pragma unroll
    for (int wi = 0; wi < MW; wi++) {
        const uint32_t w = s[wi];
#pragma unroll
        for (int k = 0; k < EPW; k++)
            ring[wi * EPW + k] = word_elem<TS>(w, k);
    }
    const float k0 = a.kx[0];
#pragma unroll
    for (int o = 0; o < M; o++)
        acc[o] = __fmul_rn(k0, ring[o]);
    for (int i0 = 0; i0 < a.kw; i0 += U) {
        /* the words of this period's M new elements start at word (M + i0 CN) / EPW */
        const uint32_t *ps = s + (M + i0 * CN) / EPW;
        uint32_t wb[MW];
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
                    for (int c = 0; c < CN; c++) {
                        const int t = u * CN + c; /* new element t of the period */
                        if (t % EPW == 0)
                            wb[t / EPW] = ps[t / EPW];
                        ring[t] = word_elem<TS>(wb[t / EPW], t % EPW);
                    }
                }
            }
        }
    }
}

template <typename TS, int CN, bool FIXED>
__device__ __forceinline__ void hpass(const tiled_args &a, const uint32_t *S, float *Hs)
{
    constexpr int M = tile_cfg<CN>::M, JW = tile_cfg<CN>::TE / M, CGR = JW / 4;
    constexpr int JWW = M * (int)sizeof(TS) / 4; /* words from one job's start to the next */
    static_assert(JW % 4 == 0, "whole groups of four jobs per row");
    const int lane = threadIdx.x & 31, ja = lane & 3, rb = lane >> 2;
    const int items = ((a.nr + 7) >> 3) * CGR;
    for (int it = threadIdx.x >> 5; it < items; it += NWARPS) {
        const int rgi = it / CGR, cgi = it - rgi * CGR;
        const int r = rgi * 8 + rb, g = cgi * 4 + ja;
        if (r >= a.nr)
            continue;
        float acc[M];
        hjob<TS, M, CN, FIXED>(a, S + r * a.pw + g * JWW, acc);
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

/* Vertical pass: jobs of 4 columns by R rows, output rows y0 .. y0 + th - 1 of the tile. BOXI:
 * the sums in integers (iacc) instead of floats (acc). */
template <typename TD, int CN, bool FIXED, bool BOXI>
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
        uint32_t iacc[R][4];
        const float k0 = a.ky[0];
#pragma unroll
        for (int o = 0; o < R; o++) {
            if constexpr (BOXI) {
                iacc[o][0] = __float2uint_rz(ring[o].x);
                iacc[o][1] = __float2uint_rz(ring[o].y);
                iacc[o][2] = __float2uint_rz(ring[o].z);
                iacc[o][3] = __float2uint_rz(ring[o].w);
            } else {
                acc[o][0] = __fmul_rn(k0, ring[o].x);
                acc[o][1] = __fmul_rn(k0, ring[o].y);
                acc[o][2] = __fmul_rn(k0, ring[o].z);
                acc[o][3] = __fmul_rn(k0, ring[o].w);
            }
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
                                if constexpr (BOXI)
                                    iacc[o][v] += __float2uint_rz(xs[v]);
                                else if constexpr (FIXED)
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
            for (int v = 0; v < 4; v++) {
                if constexpr (BOXI)
                    out[v] = finish<TD, false>::cvt(__uint2float_rn(iacc[o][v]), a.scale);
                else
                    out[v] = finish<TD, FIXED>::cvt(acc[o][v], a.scale);
            }
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

template <typename TS, typename TD, int CN, bool FIXED, bool BOXI>
__global__ void __launch_bounds__(NT, MINB) sep_tiled(const tiled_args a)
{
    extern __shared__ __align__(16) unsigned char smem[];
    /* [Hs: nr x ph floats][S: nr x pw words][row table: nr pointers] */
    float *Hs = reinterpret_cast<float *>(smem);
    uint32_t *S = reinterpret_cast<uint32_t *>(smem + a.s_off);
    const TS **rows = reinterpret_cast<const TS **>(smem + a.rows_off);
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
        /* Some chunk may need the border (see stage): a conservative, block-uniform test. */
        const bool edge =
            !a.svec || e0 < 16 || e0 + (a.nq + 2) * 16 > a.wc ||
            (a.border == GIP_BORDER_CONSTANT && (y0 - a.ay < 0 || y0 - a.ay + a.nr > a.h));
        stage<TS, CN>(a, rows, S, e0, edge);
        __syncthreads();
        hpass<TS, CN, FIXED>(a, S, Hs);
        __syncthreads();
        vpass<TD, CN, FIXED, BOXI>(a, Hs, y0, xe0);
        /* No barrier needed here: the next tile writes the row table and S only after barriers
         * that follow every read of them, and Hs after two more. */
    }
}

/* ---- the direct kernel ------------------------------------------------------------------------
 * For kernels beyond FUSED_K, images too wide for 32-bit tile indices, shared memory too small,
 * or fixed-point kernels outside the exact-float bound: one thread per output element, the CPU's
 * sums straight from global memory (FIXED in integers with the CPU's 16-bit H and 64-bit V; BOXI
 * with 32-bit H and 64-bit V, and u16 outputs of areas above 32768 converted in double). */

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
    double scale64; /* box_int plans */
    bool f64;       /* box_int u16 -> u16 of an area above 32768: V * scale64 in double */
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

/* box_int: the exact horizontal sum (at most 1023 values below 2^16). */
template <typename TS, int CN>
__device__ __forceinline__ uint32_t hsum_box(const sep_geom &g, const TS *row, int64_t x, int c)
{
    uint32_t acc = 0;
    for (int i = 0; i < g.kw; i++) {
        int64_t sx = row ? gip__border_index(x - g.ax + i, g.w, g.border) : -1;
        acc += sx >= 0 ? (uint32_t)row[sx * CN + c] : (uint32_t)g.bval[c];
    }
    return acc;
}

template <typename TS, typename TD, int CN, bool FIXED, bool BOXI>
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
            if constexpr (BOXI) {
                iacc += hsum_box<TS, CN>(g, row, x, c);
            } else if constexpr (FIXED) {
                iacc += (int64_t)k.kyi[j] * hsum_i<TS, CN>(g, k, row, x, c);
            } else {
                float p = __fmul_rn(k.kyf[j], hsum_f<TS, CN>(g, k, row, x, c));
                facc = j == 0 ? p : __fadd_rn(facc, p);
            }
        }
        TD out;
        if constexpr (BOXI) {
            out = gip__saturate<TD>(__fmul_rn(__ll2float_rn(iacc), g.scale));
            if constexpr (sizeof(TD) == 2) {
                if (g.f64) {
                    double v = __dmul_rn((double)iacc, g.scale64);
                    out = gip__sat_u16_i32(gip__round_f64(v < 65536.0 ? v : 65536.0));
                }
            }
        } else if constexpr (FIXED)
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

/* Shared memory of a tile th rows high; fills the pitches and offsets of `a`. */
template <typename TS, int CN> size_t tiled_smem(int th, int kw, int kh, tiled_args *a)
{
    constexpr int CE = 16 / sizeof(TS);
    const int nc = tile_cfg<CN>::TE + (kw - 1) * CN; /* staged elements per row */
    a->th = th;
    a->nr = th + kh - 1;
    a->nq = (nc + CE - 1) / CE;
    /* u8: a multiple of 4 words (16-byte stores), 4 mod 8; u16, f32: odd (see the top) */
    a->pw = sizeof(TS) == 1 ? a->nq * 4 + ((a->nq * 4) % 8 == 0 ? 4 : 0) : a->nq * 4 + 1;
    a->ph = tile_cfg<CN>::TE + 4; /* 4 mod 8 */
    a->s_off = a->nr * a->ph * (int)sizeof(float);
    a->rows_off = (a->s_off + a->nr * a->pw * 4 + 7) & ~7;
    return (size_t)a->rows_off + (size_t)a->nr * sizeof(void *);
}

/* Tries the tiled kernel; *done false means the plan or image is not for it. */
template <typename TS, typename TD, int CN, bool FIXED, bool BOXI>
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
    /* Largest tile height (a multiple of R) whose shared memory leaves room for MINB blocks
     * per SM (the device's opt-in limit, less 1 KiB per block for the runtime); failing that, the
     * largest that fits at all. */
    tiled_args a;
    int th = tile_cfg<CN>::TH;
    size_t shm = tiled_smem<TS, CN>(th, p->kw, p->kh, &a);
    while (th > R && shm > (size_t)(228 / MINB - 1) * 1024) {
        th -= R;
        shm = tiled_smem<TS, CN>(th, p->kw, p->kh, &a);
    }
    if (shm > (size_t)optin)
        return GIP_OK;
    auto kern = sep_tiled<TS, TD, CN, FIXED, BOXI>;
    if (shm > 48 * 1024) {
        /* The attribute belongs to the kernel, for every thread of the process: set to the
         * device's maximum (the same value whoever sets it), never to this launch's size, which
         * another thread's smaller setting could undercut before the launch. */
        st = gip__cuda_status(
            ctx, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, optin),
            "separable filter: shared memory size");
        if (st)
            return st;
    }
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

template <typename TS, typename TD, int CN, bool FIXED, bool BOXI>
gip_status launch(gip_context *ctx, const gip__sep_plan *p, const sep_geom &g)
{
    bool done = false;
    gip_status st = launch_tiled<TS, TD, CN, FIXED, BOXI>(ctx, p, g, &done);
    if (st || done)
        return st;
    /* 16 KiB of coefficients: on the heap rather than on the caller's stack. */
    sep_coeffs<GIP__SEP_MAX_K> *kp = new (std::nothrow) sep_coeffs<GIP__SEP_MAX_K>;
    if (!kp)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "separable filter: out of host memory");
    fill_coeffs(*kp, p);
    int64_t n = g.w * CN * g.h;
    int64_t blocks = (n + 255) / 256;
    sep_direct<TS, TD, CN, FIXED, BOXI>
        <<<(unsigned)(blocks < 65536 * 8 ? blocks : 65536 * 8), 256, 0, gip__stream(ctx)>>>(g, *kp);
    delete kp;
    return GIP__LAUNCH_CHECK(ctx, "separable filter (direct)");
}

template <typename TS, typename TD, bool FIXED, bool BOXI = false>
gip_status by_channels(gip_context *ctx, const gip__sep_plan *p, const sep_geom &g, int cn)
{
    switch (cn) {
    case 1:
        return launch<TS, TD, 1, FIXED, BOXI>(ctx, p, g);
    case 3:
        return launch<TS, TD, 3, FIXED, BOXI>(ctx, p, g);
    case 4:
        return launch<TS, TD, 4, FIXED, BOXI>(ctx, p, g);
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
    g.scale64 = plan->scale64;
    gip_dtype sd = src->dtype, dd = dst->dtype;
    g.f64 = plan->box_int && dd == GIP_U16 && (int64_t)plan->kw * plan->kh > 32768;
    int cn = src->channels;
    if (plan->box_u8 && plan->kw == 3 && plan->kh == 3 && plan->ax == 1 && plan->ay == 1) {
        /* The centred 3x3 box on u8 is the 2-D engine's packed integer kernel: nine taps of 1,
         * then V * scale converted as here (fmaf(V, scale, 0) rounds as V * scale does). */
        gip__f2d_tap taps[9];
        gip__f2d_plan fp;
        memset(&fp, 0, sizeof fp);
        for (int i = 0; i < 9; i++) {
            taps[i].dx = i % 3 - 1;
            taps[i].dy = i / 3 - 1;
            taps[i].kf = 1.0f;
            taps[i].ki = 1;
        }
        fp.kw = fp.kh = 3;
        fp.ax = fp.ay = 1;
        fp.ntaps = 9;
        fp.taps = taps;
        fp.int_acc = true;
        fp.affine = plan->scale != 1.0f;
        fp.scale = plan->scale;
        fp.post = GIP__F2D_PLAIN;
        fp.border = plan->border;
        for (int c = 0; c < 4; c++)
            fp.border_value[c] = plan->border_value[c];
        bool done = false;
        st = gip__f2d_run_u8x3_cuda(ctx, &fp, src, dst, &done);
        if (done || st)
            return st;
    }
    if (plan->mode == GIP__SEP_FIXED_U8) {
        bool done = false;
        st = gip__sep_run_u8_mma_cuda(ctx, plan, src, dst, &done);
        if (done || st)
            return st;
        return by_channels<uint8_t, uint8_t, true>(ctx, plan, g, cn);
    }
    if (plan->box_int) {
        if (sd == GIP_U8 && dd == GIP_U8)
            return by_channels<uint8_t, uint8_t, false, true>(ctx, plan, g, cn);
        if (sd == GIP_U8 && dd == GIP_F32)
            return by_channels<uint8_t, float, false, true>(ctx, plan, g, cn);
        if (sd == GIP_U16 && dd == GIP_U16)
            return by_channels<uint16_t, uint16_t, false, true>(ctx, plan, g, cn);
        if (sd == GIP_U16 && dd == GIP_F32)
            return by_channels<uint16_t, float, false, true>(ctx, plan, g, cn);
    }
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
