/* SPDX-License-Identifier: MIT */
/* CUDA u8 Gaussian on the tensor cores: the separable engine's FIXED_U8 plans (OpenCV's 8-bit
 * fixed point) as integer matrix products, bit for bit the CPU's results.
 *
 * Arithmetic. OpenCV's u8 Gaussian is H = sum kx[i] src[x + CN (i - ax)] (an integer below 2^16:
 * the taps are integers summing to 256) then dst = (sum ky[j] H[y + j - ay] + 2^15) >> 16. Both
 * passes are banded matrix products with u8 entries, which mma.sync m16n8k32 (u8 x u8 -> s32)
 * computes exactly:
 *  - horizontal: H^T (16 output bytes x 8 rows) = Th (16 x K window bytes) . S^T (K x 8), where
 *    Th[m][k] is the tap that window byte k carries for output byte m (0 where none: the other
 *    channels' bytes and the bytes outside the kernel). K = 32 KS bytes, KS k-steps;
 *  - vertical: V (16 output rows x 8 columns) = Tv (16 x 32 window rows) . H (32 x 8), H split
 *    into its high and low bytes (two products: 256 Vhi + Vlo), the low product starting from
 *    2^15 so that the result is byte 2 of 256 Vhi + Vlo (the host takes the path only when that
 *    sum stays below 2^24, so no byte above it is ever set).
 * Every product and sum is an exact integer whatever the order: the results equal the CPU's.
 *
 * Fragments. The horizontal product's accumulator gives a lane (g = lane / 4, q = lane % 4) the
 * H of columns sigma(g) and sigma(g + 8) for rows 2q, 2q + 1 of an 8-row half; the vertical
 * product's B operand wants, for one column, 4 window rows per register. A sum over k does not
 * care in which order k runs, so the window rows are taken in the order the lanes already hold
 * them: register byte i of lane q is row 2q + i (i < 2) or 8 + 2q + i - 2 of a pair of 8-row
 * halves, and Tv's columns are laid out in the same order. The H values go from the accumulator
 * into the next product by four byte permutes per four values, with no shared memory between the
 * passes. Th's rows (the output columns) are in the order sigma, sigma(2j + e) = 4j + e and
 * sigma(8 + 2j + e) = 4j + 2 + e (e = 0, 1), so that the vertical product leaves each lane four
 * consecutive output bytes of a row: one 4-byte shared store.
 *
 * Work. A warp owns 64 output bytes of a row (four 16-byte column tiles) and a block of SM_NW
 * warps side by side walks down a band of 16 to 128 rows 16 at a time, one (band, 256 bytes)
 * tile a block: each step the block copies 16 new source rows (cp.async, a 3-slot ring, border
 * applied while staging) and each warp runs 2 x 4 horizontal products per k-step on them and
 * 4 x 4 vertical ones, with the window of 32 H rows kept packed in registers from one step to the
 * next. Output bytes go through a small per-warp shared tile so that the global stores are
 * 8-byte words along the rows. Output column tiles start at 8 mod 16 bytes (block bx outputs
 * bytes bx * 256 - 8 ..), which lets 15-tap three-channel windows fit 64 bytes in whole 16-byte
 * granules (ldmatrix rows); the bytes before 0 and from n on are computed and dropped.
 *
 * Where it stands (H200, 2026-12-04, 15x15): 7680x4320 u8c3 0.183 ms against 0.378 for the
 * float tiled kernel, u8c1 0.093 against 0.130; the issue's 0.10 ms is not reached. The profile
 * (Nsight Compute, session 11) shows a latency-bound kernel: 0.39 instructions a cycle a
 * scheduler, the stalls on the tensor-core chains' fixed latencies (40% of the samples), the
 * per-step barrier (16%) and the ldmatrix results (14%) (docs/notes.md, sessions 7 and 11). */
#include <string.h>

#include "cuda_util.cuh"
#include "border.h"

extern "C" {
#include "separable.h"
}

namespace
{

constexpr int SM_NW = 4;               /* warps per block, side by side */
constexpr int SM_COLS = 64;            /* output bytes per warp */
constexpr int SM_BW = SM_NW * SM_COLS; /* output bytes per block */
constexpr int SM_SLOTS = 3;            /* ring slots of 16 source rows */
constexpr int SM_OPITCH = 80; /* output tile pitch in bytes (conflict-free 4-byte stores) */
constexpr int SM_MAXKH = 17;  /* largest kernel height taken (32 window rows) */

struct SmArgs {
    const uint8_t *src;
    int64_t sstride;
    uint8_t *dst;
    int64_t dstride;
    int32_t W, H, n; /* n = W * CN bytes a row, below 2^30 */
    int32_t border;
    uint32_t bv[4]; /* the constant border per channel */
    int32_t a;      /* granules of the window left of a column tile's first byte, beyond 8 bytes */
    int32_t gpr;    /* granules staged per row */
    int32_t pitch; /* ring row pitch in bytes: an odd number of granules (conflict-free ldmatrix) */
    int32_t rows;  /* output rows per band, a multiple of 16 */
    int32_t bands;
    /* The first `big` bands have `rows` rows, the others (from row big * rows) rows2. */
    int32_t big, rows2;
    int32_t gx; /* blocks across a row: tiles are (band, bx), band-major */
    /* Each lane's fragments of Th (KS k-steps of 4 registers) and of Tv, built by the host. */
    uint32_t fh[3][4][32];
    uint32_t fv[4][32];
};

__device__ __forceinline__ void sm_mma(uint32_t *d, const uint32_t *a, uint32_t b0, uint32_t b1,
                                       uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3)
{
    asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%10,%11,%12,%13};\n"
        : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "r"(c0), "r"(c1), "r"(c2),
          "r"(c3));
}

__device__ __forceinline__ void sm_ldm4(uint32_t *r, unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

/* A granule not wholly inside the row (or of a constant-border row, row NULL), byte by byte.
 * Inline, with the 32-bit border map: the kernel makes no calls (around calls to out-of-line
 * helpers the compiler kept the loop's registers in local memory). */
template <int CN>
__device__ __forceinline__ void sm_fill_slow(const SmArgs &a, const uint8_t *row, int32_t x,
                                             uint8_t *s)
{
#pragma unroll 1
    for (int wd = 0; wd < 4; wd++) {
        uint32_t w = 0;
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int32_t e = x + 4 * wd + i;
            const int32_t p = e >= 0 ? e / CN : -((CN - 1 - e) / CN);
            const int32_t c = e - p * CN;
            uint32_t v;
            if (!row) {
                v = a.bv[c];
            } else if ((uint32_t)e < (uint32_t)a.n) {
                v = row[e];
            } else {
                const int32_t sx = gip__border_index32(p, a.W, (gip_border)a.border);
                v = sx < 0 ? a.bv[c] : row[sx * CN + c];
            }
            w |= v << (8 * i);
        }
        reinterpret_cast<uint32_t *>(s)[wd] = w;
    }
}

/* The granules of a 16-row chunk a thread copies: thread t takes t, t + 128, t + 256 of the
 * chunk's 16 x gpr granules (at most SM_SPT, the host checks). Fixed per block: the slot offset
 * and the row; per tile: the source byte x and whether the granule lies inside the row. */
constexpr int SM_SPT = 3;

struct SmCopy {
    int32_t rr[SM_SPT]; /* row in the chunk, or -1 for none */
    int32_t gi[SM_SPT]; /* granule in the row */
};

/* Copies chunk rows ybase .. ybase + 15 (border applied) into a slot; xs: the first staged
 * source byte of the tile. */
template <int CN>
__device__ __forceinline__ void sm_stage(const SmArgs &a, const SmCopy &cp, uint8_t *slot,
                                         int32_t ybase, int32_t xs)
{
#pragma unroll
    for (int k = 0; k < SM_SPT; k++) {
        if (cp.rr[k] < 0)
            continue;
        const int32_t y = ybase + cp.rr[k], x = xs + 16 * cp.gi[k];
        uint8_t *const s = slot + cp.rr[k] * a.pitch + 16 * cp.gi[k];
        if (x >= 0 && x + 16 <= a.n && (uint32_t)y < (uint32_t)a.H) {
            gip__cp_async16(s, a.src + (int64_t)y * a.sstride + x);
        } else {
            const int32_t sy = gip__border_index32(y, a.H, (gip_border)a.border);
            sm_fill_slow<CN>(a, sy >= 0 ? a.src + (int64_t)sy * a.sstride : nullptr, x, s);
        }
    }
}

/* The horizontal pass of one 16-row chunk for column tile j: the H of the tile's 16 columns for
 * the chunk's two 8-row halves, repacked as the vertical product's B operands: [half][lo, hi],
 * half 0 holding column sigma(g), half 1 column sigma(g + 8) (see the top). */
template <int KS, int NM>
__device__ __forceinline__ void sm_hpass(const uint32_t (&ah)[KS][4], const uint32_t (&mt)[2][NM],
                                         int j, uint32_t (&p)[2][2])
{
    uint32_t h[2][4];
#pragma unroll
    for (int ht = 0; ht < 2; ht++) {
        h[ht][0] = h[ht][1] = h[ht][2] = h[ht][3] = 0;
#pragma unroll
        for (int k = 0; k < KS; k++)
            sm_mma(h[ht], ah[k], mt[ht][j + 2 * k], mt[ht][j + 2 * k + 1], h[ht][0], h[ht][1],
                   h[ht][2], h[ht][3]);
    }
    /* Rows 2q, 2q + 1 of both halves, as low bytes and as high bytes. */
#pragma unroll
    for (int hf = 0; hf < 2; hf++) {
        const uint32_t x0 = __byte_perm(h[0][2 * hf], h[0][2 * hf + 1], 0x5140);
        const uint32_t x1 = __byte_perm(h[1][2 * hf], h[1][2 * hf + 1], 0x5140);
        p[hf][0] = __byte_perm(x0, x1, 0x5410);
        p[hf][1] = __byte_perm(x0, x1, 0x7632);
    }
}

/* The horizontal pass of column tile j loading its own granules (j .. j + 2 KS - 1 of the warp's,
 * both 8-row halves): twice the ldmatrix of loading the warp's window once, but 8 registers live
 * instead of 16, which leaves room for a fifth block an SM. */
template <int KS>
__device__ __forceinline__ void sm_hpass_ld(const uint32_t (&ah)[KS][4], unsigned sbase,
                                            int32_t pitch, int j, uint32_t (&p)[2][2])
{
    constexpr int NGJ = (2 * KS + 3) / 4;
    uint32_t mt[2][4 * NGJ];
#pragma unroll
    for (int ht = 0; ht < 2; ht++)
#pragma unroll
        for (int l = 0; l < NGJ; l++)
            sm_ldm4(&mt[ht][4 * l], sbase + (unsigned)(ht * 8 * pitch + 16 * j + 64 * l));
    sm_hpass<KS>(ah, mt, 0, p);
}

/* The kernel, one tile after another (see the top). */
template <int CN, int KS> __device__ __forceinline__ void sm_body(const SmArgs &a)
{
    constexpr int NMAT = 3 + 2 * KS;   /* 16-byte granules a warp's four tiles read */
    constexpr int NG = (NMAT + 3) / 4; /* x4 groups covering them (the zeroed margin) */
    extern __shared__ uint4 sm_dyn[];
    uint8_t *const ring = reinterpret_cast<uint8_t *>(sm_dyn);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, q = lane & 3;
    uint8_t *const ot = ring + SM_SLOTS * 16 * a.pitch + warp * 16 * SM_OPITCH;

    /* The fragments are per lane. Loads of the parameter space at lane-dependent addresses are
     * serialised, and the compiler reloaded such values in the loop rather than keep them in
     * registers (H200, 2026-12-04: half the stalls), so they go through shared memory once per
     * block, which it cannot reload from across the loop's barriers. */
    uint32_t *const frag =
        reinterpret_cast<uint32_t *>(ring + SM_SLOTS * 16 * a.pitch + SM_NW * 16 * SM_OPITCH);
    if (warp == 0) {
#pragma unroll
        for (int r = 0; r < 4; r++) {
#pragma unroll
            for (int k = 0; k < KS; k++)
                frag[(4 * k + r) * 32 + lane] = a.fh[k][r][lane];
            frag[(4 * KS + r) * 32 + lane] = a.fv[r][lane];
        }
    }
    __syncthreads();
    uint32_t ah[KS][4], av[4];
#pragma unroll
    for (int r = 0; r < 4; r++) {
#pragma unroll
        for (int k = 0; k < KS; k++)
            ah[k][r] = frag[(4 * k + r) * 32 + lane];
        av[r] = frag[(4 * KS + r) * 32 + lane];
    }

    /* Granules past the staged ones that the last warp's x4 loads read: zero, once. */
    const int wide = 4 * (SM_NW - 1) + 4 * NG;
    for (int i = threadIdx.x; i < SM_SLOTS * 16 * (wide - a.gpr); i += 32 * SM_NW) {
        const int row = i / (wide - a.gpr), gi = a.gpr + i % (wide - a.gpr);
        *reinterpret_cast<uint4 *>(ring + row * a.pitch + 16 * gi) = make_uint4(0, 0, 0, 0);
    }
    SmCopy cp;
#pragma unroll
    for (int k = 0; k < SM_SPT; k++) {
        const int i = (int)threadIdx.x + 32 * SM_NW * k;
        const bool ok = i < 16 * a.gpr;
        cp.rr[k] = ok ? i / a.gpr : -1;
        cp.gi[k] = ok ? i % a.gpr : 0;
    }
    /* This lane's ldmatrix row address in slot 0: row lane % 8 of an 8-row half, granule
     * 4 warp + lane / 8 (+ 4 per further x4 load). */
    const unsigned lrow = (unsigned)__cvta_generic_to_shared(ring) +
                          (unsigned)((lane & 7) * a.pitch + 16 * (4 * warp + (lane >> 3)));
    const unsigned slot_bytes = (unsigned)(16 * a.pitch);

    const int32_t tiles = a.gx * a.bands;
    for (int32_t tile = (int32_t)blockIdx.x; tile < tiles; tile += (int32_t)gridDim.x) {
        const int32_t band = tile / a.gx, bx = tile - band * a.gx;
        const bool big = band < a.big;
        const int32_t y0 = big ? band * a.rows : a.big * a.rows + (band - a.big) * a.rows2;
        const int32_t steps = (min(big ? a.rows : a.rows2, a.H - y0) + 15) / 16;
        const int32_t xs = bx * SM_BW - 16 - 16 * a.a;      /* first staged byte */
        const int32_t xw = bx * SM_BW - 8 + warp * SM_COLS; /* the warp's first output byte */
        /* Chunk c (source rows y0 - 8 + 16 c ..) lives in slot c % 3; chunks 0 .. steps. */
        __syncthreads(); /* the previous tile's readers are done with every slot */
        /* Chunks 0, 1 and 2 (one group each, empty past the last chunk); one call site, as the
         * staging's border path is long. */
#pragma unroll 1
        for (int c = 0; c < SM_SLOTS; c++) {
            if (c <= steps)
                sm_stage<CN>(a, cp, ring + c * slot_bytes, y0 - 8 + 16 * c, xs);
            gip__cp_async_commit();
        }
        gip__cp_async_wait<2>();
        __syncthreads();
        uint32_t pold[4][2][2]; /* [tile][half][lo, hi]: window rows y - 8 .. y + 7 */
        {
#pragma unroll
            for (int j = 0; j < 4; j++)
                sm_hpass_ld<KS>(ah, lrow, a.pitch, j, pold[j]);
        }
        int cur = 1, next = 0; /* slots of chunks s + 1 and s + 3 */
        for (int32_t s = 0; s < steps; s++) {
            /* Chunk s + 1 is read now; s + 3 goes into the slot chunk s used, which every warp
             * finished with before this barrier. */
            gip__cp_async_wait<1>();
            __syncthreads();
            if (s + 3 <= steps)
                sm_stage<CN>(a, cp, ring + next * slot_bytes, y0 - 8 + 16 * (s + 3), xs);
            gip__cp_async_commit();
            const unsigned sbase = lrow + (unsigned)cur * slot_bytes;
            cur = cur == SM_SLOTS - 1 ? 0 : cur + 1;
            next = next == SM_SLOTS - 1 ? 0 : next + 1;
#pragma unroll
            for (int j = 0; j < 4; j++) {
                uint32_t pnew[2][2];
                sm_hpass_ld<KS>(ah, sbase, a.pitch, j, pnew);
                uint32_t v[2][4];
#pragma unroll
                for (int hf = 0; hf < 2; hf++) {
                    uint32_t lo[4], hi[4];
                    sm_mma(lo, av, pold[j][hf][0], pnew[hf][0], 32768u, 32768u, 32768u, 32768u);
                    sm_mma(hi, av, pold[j][hf][1], pnew[hf][1], 0u, 0u, 0u, 0u);
#pragma unroll
                    for (int e = 0; e < 4; e++)
                        v[hf][e] = hi[e] * 256u + lo[e];
                    pold[j][hf][0] = pnew[hf][0];
                    pold[j][hf][1] = pnew[hf][1];
                }
                /* Byte 2 of 256 hi + lo is the output; the lane holds bytes 4q .. 4q + 3 of the
                 * tile for rows g and g + 8 (the column order sigma). */
                const uint32_t w0 = __byte_perm(__byte_perm(v[0][0], v[0][1], 0x0062),
                                                __byte_perm(v[1][0], v[1][1], 0x0062), 0x5410);
                const uint32_t w1 = __byte_perm(__byte_perm(v[0][2], v[0][3], 0x0062),
                                                __byte_perm(v[1][2], v[1][3], 0x0062), 0x5410);
                *reinterpret_cast<uint32_t *>(ot + g * SM_OPITCH + 16 * j + 4 * q) = w0;
                *reinterpret_cast<uint32_t *>(ot + (g + 8) * SM_OPITCH + 16 * j + 4 * q) = w1;
            }
            __syncwarp();
            /* 16 rows of 64 bytes: lane writes 8 bytes of rows lane / 8 + 4 i. */
            const int32_t x = xw + 8 * (lane & 7), yb = y0 + 16 * s;
            const uint8_t *const op = ot + (lane >> 3) * SM_OPITCH + 8 * (lane & 7);
            if (yb + 16 <= a.H && xw >= 0 && xw + SM_COLS <= a.n) {
                uint8_t *d = a.dst + (int64_t)(yb + (lane >> 3)) * a.dstride + x;
#pragma unroll
                for (int i = 0; i < 4; i++) {
                    *reinterpret_cast<uint2 *>(d) =
                        *reinterpret_cast<const uint2 *>(op + 4 * i * SM_OPITCH);
                    d += 4 * a.dstride;
                }
            } else {
#pragma unroll 1
                for (int i = 0; i < 4; i++) {
                    const int32_t y = yb + (lane >> 3) + 4 * i;
                    const uint2 o = *reinterpret_cast<const uint2 *>(op + 4 * i * SM_OPITCH);
                    if (y >= a.H || x < 0 || x >= a.n)
                        continue;
                    uint8_t *d = a.dst + (int64_t)y * a.dstride + x;
                    if (x + 8 <= a.n) {
                        *reinterpret_cast<uint2 *>(d) = o;
                    } else {
                        for (int b = 0; b < a.n - x; b++)
                            d[b] = (uint8_t)((b < 4 ? o.x : o.y) >> (8 * (b & 3)));
                    }
                }
            }
            __syncwarp();
        }
    }
}

/* With a minimum of one block an SM the compiler takes about 113 registers (4 blocks an SM)
 * instead of 92 (5) and hides more of the tensor-core chains' latency (H200, 2026-12-04,
 * 7680x4320 u8c3, KS = 2: 0.212 ms against 0.223; u8c1, KS = 1: 0.092 either way). KS = 3 (four
 * channels, not measured) would take 148 and keeps the default bounds (96 registers, five
 * blocks, no spills). */
template <int CN, int KS>
__global__ void __launch_bounds__(32 * SM_NW, 1) sep_u8_mma(const __grid_constant__ SmArgs a)
{
    sm_body<CN, KS>(a);
}

template <int CN, int KS>
__global__ void __launch_bounds__(32 * SM_NW) sep_u8_mma_wide(const __grid_constant__ SmArgs a)
{
    sm_body<CN, KS>(a);
}

int forced_rows = 0; /* gip__sep_mma_rows */

/* Picks the rows per band and launches one block per tile (the kernel also walks tiles
 * blockIdx.x + k gridDim.x, so a smaller grid would be correct too). */
template <int CN, int KS>
gip_status sm_launch(gip_context *ctx, SmArgs &a, int64_t n, int64_t h, size_t shm)
{
    void (*kern)(SmArgs);
    if constexpr (KS == 3)
        kern = sep_u8_mma_wide<CN, KS>;
    else
        kern = sep_u8_mma<CN, KS>;
    int dev = 0, sms = 0, per_sm = 0;
    gip_status st = gip__cuda_status(ctx, cudaGetDevice(&dev), "separable filter: device");
    if (!st)
        st =
            gip__cuda_status(ctx, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev),
                             "separable filter: SM count");
    if (!st)
        st = gip__cuda_status(
            ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, 32 * SM_NW, shm),
            "separable filter: occupancy");
    if (st)
        return st;
    const int64_t resident = (int64_t)sms * (per_sm > 0 ? per_sm : 1);
    const int64_t gx = (n + 8 + SM_BW - 1) / SM_BW;
    /* One tile a block, the hardware's block scheduler balancing them (a persistent grid with
     * tiles dealt round-robin lost up to a third of a round to the uneven last one: H200,
     * 2026-12-04). Long bands stage fewer halo rows (16 a band); short ones leave less of the
     * last round idle. Bands halve from 128 rows while they make fewer tiles than eight rounds
     * of resident blocks, down to 32 rows, and to 16 when 32-row bands make fewer than four. The
     * tiles of about the last round (blocks start in blockIdx order) then take bands of half the
     * height, where that is 32 rows or more. H200, 2026-12-04, 7680x4320 u8c3: 128-row bands
     * 0.212 ms, 64 0.188, 64 and 32 for the last round 0.183, 64 and 16 0.185, 32 0.209;
     * 7680x4320 u8c1: 32 rows 0.093, 64 0.101. */
    int32_t rows = 128;
    while (rows > 32 && gx * ((h + rows - 1) / rows) < 8 * resident)
        rows /= 2;
    if (rows == 32 && gx * ((h + 31) / 32) < 4 * resident)
        rows = 16;
    if (forced_rows)
        rows = forced_rows < 0 ? -forced_rows : forced_rows;
    int64_t bands = (h + rows - 1) / rows;
    a.big = (int32_t)bands;
    a.rows2 = rows;
    if (rows >= 64) {
        const int32_t r2 = rows / 2;
        /* Rows of one round of half-height tiles, rounded up to whole bands. */
        int64_t last = (resident + gx - 1) / gx * r2;
        last = (last + rows - 1) / rows * rows;
        int64_t big = last < h ? (h - last) / rows : -1;
        if (forced_rows < 0) /* the test hook: every band after the first */
            big = h > rows ? 1 : -1;
        if (big >= 0) {
            a.big = (int32_t)big;
            a.rows2 = r2;
            bands = big + (h - big * rows + r2 - 1) / r2;
        }
    }
    if (gx * bands > INT32_MAX)
        return gip__error(ctx, GIP_ERR_TOO_LARGE, "separable filter: %lld tiles",
                          (long long)(gx * bands));
    a.rows = rows;
    a.bands = (int32_t)bands;
    a.gx = (int32_t)gx;
    const int64_t tiles = gx * bands;
    const unsigned grid = (unsigned)tiles;
    kern<<<grid, 32 * SM_NW, shm, gip__stream(ctx)>>>(a);
    return GIP__LAUNCH_CHECK(ctx, "separable filter (u8, tensor cores)");
}

template <int CN>
gip_status sm_by_ks(gip_context *ctx, SmArgs &a, int ks, int64_t n, int64_t h, size_t shm)
{
    if (ks == 1)
        return sm_launch<CN, 1>(ctx, a, n, h, shm);
    if (ks == 2)
        return sm_launch<CN, 2>(ctx, a, n, h, shm);
    return sm_launch<CN, 3>(ctx, a, n, h, shm);
}

} // namespace

extern "C" void gip__sep_mma_rows(int rows)
{
    forced_rows =
        rows == 16 || rows == 32 || rows == 64 || rows == 128 || rows == -64 || rows == -128 ? rows
                                                                                             : 0;
}

extern "C" gip_status gip__sep_run_u8_mma_cuda(gip_context *ctx, const gip__sep_plan *p,
                                               const gip_image *src, const gip_image *dst,
                                               bool *done)
{
    *done = false;
    const int cn = src->channels;
    const int64_t n = src->width * (int64_t)cn;
    if (p->mode != GIP__SEP_FIXED_U8 || src->dtype != GIP_U8 || dst->dtype != GIP_U8 ||
        (cn != 1 && cn != 3 && cn != 4) || n > ((int64_t)1 << 30) ||
        src->height > ((int64_t)1 << 30))
        return GIP_OK;
    /* 16-byte copies of the source rows, 8-byte stores of the output rows. */
    if ((((uintptr_t)src->data | (uintptr_t)src->stride) & 15u) ||
        (((uintptr_t)dst->data | (uintptr_t)dst->stride) & 7u))
        return GIP_OK;
    if (p->kh > SM_MAXKH || p->ay > 8 || p->kh - 1 - p->ay > 8 || p->ax < 0 || p->ax >= p->kw ||
        p->ay < 0)
        return GIP_OK;
    /* u8 tap values, H below 2^16, 256 Vhi + Vlo + 2^15 below 2^24. */
    int64_t sx = 0, sy = 0;
    for (int i = 0; i < p->kw; i++) {
        if (p->kxi[i] < 0 || p->kxi[i] > 255)
            return GIP_OK;
        sx += p->kxi[i];
    }
    for (int j = 0; j < p->kh; j++) {
        if (p->kyi[j] < 0 || p->kyi[j] > 255)
            return GIP_OK;
        sy += p->kyi[j];
    }
    if (255 * sx > 65535 || 255 * sx * sy + 32768 >= ((int64_t)1 << 24))
        return GIP_OK;
    /* Window of a column tile at byte t (t = 8 mod 16): [t - 8 - 16 a, t + 8 + 16 b), holding
     * bytes t - CN ax .. t + 15 + CN (kw - 1 - ax); K = 16 (1 + a + b), a multiple of 32. */
    const int left = cn * p->ax, right = cn * (p->kw - 1 - p->ax);
    const int wa = left > 8 ? (left - 8 + 15) / 16 : 0;
    int wb = (right + 8 + 15) / 16;
    if ((1 + wa + wb) % 2)
        wb++;
    const int ks = (1 + wa + wb) / 2;
    if (ks > 3)
        return GIP_OK;
    SmArgs a;
    memset(&a, 0, sizeof a);
    a.src = (const uint8_t *)src->data;
    a.sstride = src->stride;
    a.dst = (uint8_t *)dst->data;
    a.dstride = dst->stride;
    a.W = (int32_t)src->width;
    a.H = (int32_t)src->height;
    a.n = (int32_t)n;
    a.border = p->border;
    for (int c = 0; c < 4; c++)
        a.bv[c] = (uint32_t)p->border_value[c]; /* a u8 value already (gip__sep_set_border) */
    for (int r = 0; r < 4; r++)
        for (int lane = 0; lane < 32; lane++) {
            const int g = lane >> 2, q = lane & 3, m = g + 8 * (r & 1);
            /* Row m of Th is output byte sigma(m) of the tile (see the top). */
            const int sig = m < 8 ? 4 * (m >> 1) + (m & 1) : 4 * ((m - 8) >> 1) + 2 + (m & 1);
            for (int k = 0; k < ks; k++) {
                uint32_t v = 0;
                for (int i = 0; i < 4; i++) {
                    /* window byte kb of the tile whose first output byte is t: byte
                     * t - 8 - 16 wa + kb, tap (that - (t + m)) / cn + ax when a whole multiple */
                    const int kb = 32 * k + 16 * (r >> 1) + 4 * q + i;
                    const int t = kb - 8 - 16 * wa - sig + cn * p->ax;
                    if (t >= 0 && t % cn == 0 && t / cn < p->kw)
                        v |= (uint32_t)p->kxi[t / cn] << (8 * i);
                }
                a.fh[k][r][lane] = v;
            }
            uint32_t v = 0;
            for (int i = 0; i < 4; i++) {
                /* window row (of 32, from 8 above the step's first output row) of byte i */
                const int wrow = 16 * (r >> 1) + (i < 2 ? 2 * q + i : 8 + 2 * q + i - 2);
                const int j = wrow - 8 + p->ay - m;
                if (j >= 0 && j < p->kh)
                    v |= (uint32_t)p->kyi[j] << (8 * i);
            }
            a.fv[r][lane] = v;
        }
    a.a = wa;
    a.gpr = 4 * SM_NW + wa + wb;
    if (16 * a.gpr > 32 * SM_NW * SM_SPT)
        return GIP_OK;
    const int ng = (3 + 2 * ks + 3) / 4;
    int gran = a.gpr > 4 * (SM_NW - 1) + 4 * ng ? a.gpr : 4 * (SM_NW - 1) + 4 * ng;
    gran |= 1;
    a.pitch = 16 * gran;
    const size_t shm = (size_t)SM_SLOTS * 16 * a.pitch + (size_t)SM_NW * 16 * SM_OPITCH +
                       (size_t)(4 * ks + 4) * 32 * sizeof(uint32_t);
    *done = true;
    if (cn == 1)
        return sm_by_ks<1>(ctx, a, ks, n, src->height, shm);
    if (cn == 3)
        return sm_by_ks<3>(ctx, a, ks, n, src->height, shm);
    return sm_by_ks<4>(ctx, a, ks, n, src->height, shm);
}
