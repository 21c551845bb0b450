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
 * warps side by side walks down one segment of a 256-byte column strip 16 rows at a time: each
 * step the block copies 16 new source rows (cp.async, a 3-slot ring) and each warp runs 2 x 4
 * horizontal products per k-step on them and 4 x 4 vertical ones, with the window of 32 H rows
 * kept packed in registers from one step to the next. Output bytes go through a small per-warp
 * shared tile so that the global stores are 8-byte words along the rows. Output column tiles
 * start at 8 mod 16 bytes (block bx outputs bytes bx * 256 - 8 ..), which lets 15-tap
 * three-channel windows fit 64 bytes in whole 16-byte granules (ldmatrix rows); the bytes before
 * 0 and from n on are computed and dropped.
 *
 * Scheduling. There are as many blocks as fit on the GPU at once: every strip is cut into the
 * same m segments (m = the resident blocks over the strips), so a block stages its 16 halo rows
 * once, no block waits for a slot, and the blocks at work at any moment stay in m bands across
 * the image (scattered blocks were slower). The border columns come from a small buffer made
 * first by sm_edges, so that the kernel copies every granule with cp.async: one with a border
 * byte read in the kernel held its block up a memory latency a step, and the blocks of the
 * strips holding border granules then set the kernel's time (four to five times the others'
 * blocks). sm_edges gives each thread one 4-byte word, and the kernel is its programmatic
 * dependent: it is launched while sm_edges runs and waits for it (griddepcontrol) only before it
 * first reads the source. Giving the strips' last rows to the block slots that m segments leave
 * idle (73 of 528 at 7680x4320 u8c3) was slower.
 *
 * Within a step the kernel is latency-bound (Nsight Compute: under half of the issue slots busy,
 * the tensor pipe less; the stalls on fixed-latency dependencies, shared-memory results and the
 * per-step barrier lead). Its timings and the schedules that lost are in
 * docs/design/gaussian.md. */
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
    /* The work: gx column strips of SM_BW bytes, each of spt 16-row steps cut into m segments
     * with the same rows in every strip; block b takes segment b / gx of strip b % gx. */
    int32_t gx, spt, m;
    /* The source bytes [xlo, xhi) and rows [ylo, yhi) that kept outputs read. */
    int32_t xlo, xhi, ylo, yhi;
    /* The edge granules (16 source bytes at a multiple of 16 not wholly inside the row): nl
     * left of the row from byte xl0, then those from byte xr0 on, for rows ylo .. yhi - 1 with
     * the border applied, made by sm_edges into edge (epitch bytes a row). */
    const uint8_t *edge;
    int32_t epitch, nl, ne, xl0, xr0;
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

/* Programmatic dependent launch: the filter kernel is launched while sm_edges runs and waits
 * for its results only before it first stages source rows. */
__device__ __forceinline__ void sm_pdl_trigger()
{
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ void sm_pdl_wait()
{
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* Byte e of a source row (any e in [xlo, xhi)) with the border applied; row: the source row, or
 * NULL for a row that is all constant border. */
__device__ __forceinline__ uint32_t sm_byte(const SmArgs &a, const uint8_t *row, int32_t cn,
                                            int32_t e)
{
    const int32_t p = e >= 0 ? e / cn : -((cn - 1 - e) / cn), c = e - p * cn;
    const int32_t sx =
        (uint32_t)e < (uint32_t)a.n ? p : gip__border_index32(p, a.W, (gip_border)a.border);
    return row && sx >= 0 ? row[sx * cn + c] : a.bv[c];
}

/* The edge granules of every row the kernel stages, one thread a 4-byte word: its four bytes'
 * loads go out together (one thread a granule reading its 16 bytes in turn took a tenth of the
 * whole filter's time). */
template <int CN> __global__ void sm_edges(const __grid_constant__ SmArgs a, uint8_t *edge)
{
    sm_pdl_trigger();
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int32_t wpr = 4 * a.ne; /* words a row */
    const int32_t r = (int32_t)(i / wpr), wi = (int32_t)(i - (int64_t)r * wpr), g = wi >> 2;
    if (r >= a.yhi - a.ylo)
        return;
    const int32_t y = a.ylo + r;
    const int32_t x = (g < a.nl ? a.xl0 + 16 * g : a.xr0 + 16 * (g - a.nl)) + 4 * (wi & 3);
    const int32_t sy =
        (uint32_t)y < (uint32_t)a.H ? y : gip__border_index32(y, a.H, (gip_border)a.border);
    const uint8_t *const row = sy >= 0 ? a.src + (int64_t)sy * a.sstride : nullptr;
    uint32_t v[4];
#pragma unroll
    for (int b = 0; b < 4; b++)
        v[b] = x + b >= a.xlo && x + b < a.xhi ? sm_byte(a, row, CN, x + b) : 0u;
    *reinterpret_cast<uint32_t *>(edge + (int64_t)r * a.epitch + 4 * wi) =
        v[0] | v[1] << 8 | v[2] << 16 | v[3] << 24;
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
        /* Bytes no kept output reads (they meet only zero taps) stay as they are. */
        if (x + 16 <= a.xlo || x >= a.xhi || y < a.ylo || y >= a.yhi)
            continue;
        uint8_t *const s = slot + cp.rr[k] * a.pitch + 16 * cp.gi[k];
        if (x < 0 || x + 16 > a.n) {
            const int32_t g = x < 0 ? (x - a.xl0) >> 4 : a.nl + ((x - a.xr0) >> 4);
            gip__cp_async16(s, a.edge + (int64_t)(y - a.ylo) * a.epitch + 16 * g);
            continue;
        }
        const int32_t sy =
            (uint32_t)y < (uint32_t)a.H ? y : gip__border_index32(y, a.H, (gip_border)a.border);
        if (sy >= 0) {
            gip__cp_async16(s, a.src + (int64_t)sy * a.sstride + x);
        } else { /* a row of constant border */
            uint32_t w[4];
#pragma unroll 1
            for (int q = 0; q < 4; q++) {
                w[q] = 0;
                for (int b = 0; b < 4; b++)
                    w[q] |= a.bv[(x + 4 * q + b) % CN] << (8 * b);
            }
            *reinterpret_cast<uint4 *>(s) = make_uint4(w[0], w[1], w[2], w[3]);
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

/* The vertical pass of one column tile: the 16 output rows from the window's previous 16 H rows
 * (pold, which then takes pnew's) and its new 16; wo: the lane's output words of rows g and
 * g + 8. */
__device__ __forceinline__ void sm_vpass(const uint32_t (&av)[4], uint32_t (&pold)[2][2],
                                         const uint32_t (&pnew)[2][2], uint32_t (&wo)[2])
{
    uint32_t v[2][4];
#pragma unroll
    for (int hf = 0; hf < 2; hf++) {
        uint32_t lo[4], hi[4];
        sm_mma(lo, av, pold[hf][0], pnew[hf][0], 32768u, 32768u, 32768u, 32768u);
        sm_mma(hi, av, pold[hf][1], pnew[hf][1], 0u, 0u, 0u, 0u);
#pragma unroll
        for (int e = 0; e < 4; e++)
            v[hf][e] = hi[e] * 256u + lo[e];
        pold[hf][0] = pnew[hf][0];
        pold[hf][1] = pnew[hf][1];
    }
    /* Byte 2 of 256 hi + lo is the output; the lane holds bytes 4q .. 4q + 3 of the tile for
     * rows g and g + 8 (the column order sigma). */
    wo[0] = __byte_perm(__byte_perm(v[0][0], v[0][1], 0x0062),
                        __byte_perm(v[1][0], v[1][1], 0x0062), 0x5410);
    wo[1] = __byte_perm(__byte_perm(v[0][2], v[0][3], 0x0062),
                        __byte_perm(v[1][2], v[1][3], 0x0062), 0x5410);
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
     * serialised, and the compiler reloads such values in the loop rather than keep them in
     * registers (half the stalls), so they go through shared memory once per block, which it
     * cannot reload from across the loop's barriers. */
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

    /* This block's segment: steps st .. st + steps - 1 of strip bx (see SmArgs); m <= spt, so
     * it has at least one. */
    const int32_t k = (int32_t)blockIdx.x / a.gx, bx = (int32_t)blockIdx.x - k * a.gx;
    const int32_t st = (int32_t)((int64_t)k * a.spt / a.m);
    const int32_t steps = (int32_t)((int64_t)(k + 1) * a.spt / a.m) - st;
    const int32_t y0 = 16 * st;
    const int32_t xs = bx * SM_BW - 16 - 16 * a.a;      /* first staged byte */
    const int32_t xw = bx * SM_BW - 8 + warp * SM_COLS; /* the warp's first output byte */
    /* Chunk c (source rows y0 - 8 + 16 c ..) lives in slot c % SM_SLOTS; chunks 0 .. steps.
     * Chunks 0 .. SM_SLOTS - 1 first (one group each, empty past the last chunk). */
    sm_pdl_wait();
#pragma unroll 1
    for (int c = 0; c < SM_SLOTS; c++) {
        if (c <= steps)
            sm_stage<CN>(a, cp, ring + c * slot_bytes, y0 - 8 + 16 * c, xs);
        gip__cp_async_commit();
    }
    /* The chunks whose rows all lie in the image and in [ylo, yhi) take a short path: each of
     * this thread's granules that is staged at all comes from one source address at row 0 plus
     * the chunk's row times a row pitch (the image's, or the edge buffer's), into a fixed offset
     * of the slot (9% faster: the general path's checks and border arithmetic are about a quarter
     * of a step's instructions). */
    const int32_t yin0 = a.ylo > 0 ? a.ylo : 0, yin1 = a.yhi < a.H ? a.yhi : a.H;
    uint32_t fso[SM_SPT]; /* offset in the slot, or ~0 for a granule not staged */
    const uint8_t *fsrc[SM_SPT];
    bool fedge[SM_SPT];
#pragma unroll
    for (int i = 0; i < SM_SPT; i++) {
        const int32_t x = xs + 16 * cp.gi[i];
        fso[i] = ~0u;
        fsrc[i] = a.src;
        fedge[i] = x < 0 || x + 16 > a.n;
        if (cp.rr[i] < 0 || x + 16 <= a.xlo || x >= a.xhi)
            continue;
        fso[i] = (uint32_t)(cp.rr[i] * a.pitch + 16 * cp.gi[i]);
        if (fedge[i]) {
            const int32_t e = x < 0 ? (x - a.xl0) >> 4 : a.nl + ((x - a.xr0) >> 4);
            fsrc[i] = a.edge + (int64_t)(cp.rr[i] - a.ylo) * a.epitch + 16 * e;
        } else {
            fsrc[i] = a.src + (int64_t)cp.rr[i] * a.sstride + x;
        }
    }
    const unsigned ring_s = (unsigned)__cvta_generic_to_shared(ring);
    gip__cp_async_wait<SM_SLOTS - 1>();
    __syncthreads();
    uint32_t pold[4][2][2]; /* [tile][half][lo, hi]: window rows y - 8 .. y + 7 */
    {
#pragma unroll
        for (int j = 0; j < 4; j++)
            sm_hpass_ld<KS>(ah, lrow, a.pitch, j, pold[j]);
    }
    int cur = 1, next = 0; /* slots of chunks s + 1 and s + SM_SLOTS */
    for (int32_t s = 0; s < steps; s++) {
        /* Chunk s + 1 is read now; s + SM_SLOTS goes into the slot chunk s used, which every warp
         * finished with before this barrier. */
        gip__cp_async_wait<SM_SLOTS - 2>();
        __syncthreads();
        if (s + SM_SLOTS <= steps) {
            const int32_t yb = y0 - 8 + 16 * (s + SM_SLOTS);
            if (yb >= yin0 && yb + 16 <= yin1) {
#pragma unroll
                for (int i = 0; i < SM_SPT; i++)
                    if (fso[i] != ~0u)
                        gip__cp_async16s(ring_s + next * slot_bytes + fso[i],
                                         fsrc[i] + (int64_t)yb * (fedge[i] ? a.epitch : a.sstride));
            } else {
                sm_stage<CN>(a, cp, ring + next * slot_bytes, yb, xs);
            }
        }
        gip__cp_async_commit();
        const unsigned sbase = lrow + (unsigned)cur * slot_bytes;
        cur = cur == SM_SLOTS - 1 ? 0 : cur + 1;
        next = next == SM_SLOTS - 1 ? 0 : next + 1;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            uint32_t pnew[2][2], wo[2];
            sm_hpass_ld<KS>(ah, sbase, a.pitch, j, pnew);
            sm_vpass(av, pold[j], pnew, wo);
            *reinterpret_cast<uint32_t *>(ot + g * SM_OPITCH + 16 * j + 4 * q) = wo[0];
            *reinterpret_cast<uint32_t *>(ot + (g + 8) * SM_OPITCH + 16 * j + 4 * q) = wo[1];
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

/* Four blocks an SM (at most 128 registers): for KS <= 2 the compiler takes 104-126, no spills;
 * left to itself it took 130 for <3, 2> once the staging had its short path, which would leave
 * three. KS = 3 (four channels) keeps the default bounds: 145 registers and three blocks an SM
 * are a fifth faster than four with 128 and a few spills. */
template <int CN, int KS>
__global__ void __launch_bounds__(32 * SM_NW, 4) sep_u8_mma(const __grid_constant__ SmArgs a)
{
    sm_body<CN, KS>(a);
}

template <int CN, int KS>
__global__ void __launch_bounds__(32 * SM_NW) sep_u8_mma_wide(const __grid_constant__ SmArgs a)
{
    sm_body<CN, KS>(a);
}

int forced_segments = 0; /* gip__sep_mma_segments */

/* Launches one block a segment (see SmArgs). shm: shared memory besides the ring. */
template <int CN, int KS>
gip_status sm_launch(gip_context *ctx, SmArgs &a, int64_t n, int64_t h, size_t shm)
{
    void (*kern)(SmArgs);
    if constexpr (KS == 3)
        kern = sep_u8_mma_wide<CN, KS>;
    else
        kern = sep_u8_mma<CN, KS>;
    shm += (size_t)SM_SLOTS * 16 * a.pitch;
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
    /* m segments a strip, m as large as lets every block be resident from the start (see the
     * top). */
    const int64_t gx = (n + 8 + SM_BW - 1) / SM_BW, spt = (h + 15) / 16;
    const int64_t resident = (int64_t)sms * (per_sm > 0 ? per_sm : 1);
    int64_t m = forced_segments > 0 ? forced_segments : resident / gx;
    if (m > spt)
        m = spt;
    if (m < 1)
        m = 1;
    if (gx * m > INT32_MAX)
        return gip__error(ctx, GIP_ERR_TOO_LARGE, "separable filter: %lld blocks",
                          (long long)(gx * m));
    a.gx = (int32_t)gx;
    a.spt = (int32_t)spt;
    a.m = (int32_t)m;
    /* Launched as sm_edges' programmatic dependent (see sm_pdl_wait): 5% faster. */
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)(gx * m));
    cfg.blockDim = dim3(32 * SM_NW);
    cfg.dynamicSmemBytes = shm;
    cfg.stream = gip__stream(ctx);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    st = gip__cuda_status(ctx, cudaLaunchKernelEx(&cfg, kern, a),
                          "separable filter (u8, tensor cores): launch");
    if (st)
        return st;
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

extern "C" void gip__sep_mma_segments(int m)
{
    forced_segments = m > 0 ? m : 0;
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
    a.xlo = -left;
    a.xhi = a.n + right;
    a.ylo = -p->ay;
    a.yhi = a.H + (p->kh - 1 - p->ay);
    /* Edge granules: those from the one holding byte xlo up to byte 0, and from the one holding
     * byte n up to xhi. */
    a.xl0 = a.xlo >= 0 ? 0 : -((-a.xlo + 15) / 16) * 16;
    a.nl = -a.xl0 / 16;
    a.xr0 = a.n / 16 * 16;
    a.ne = a.nl + (a.xhi - a.xr0 + 15) / 16;
    a.epitch = (16 * a.ne + 127) / 128 * 128;
    a.gpr = 4 * SM_NW + wa + wb;
    if (16 * a.gpr > 32 * SM_NW * SM_SPT)
        return GIP_OK;
    const int ng = (3 + 2 * ks + 3) / 4;
    int gran = a.gpr > 4 * (SM_NW - 1) + 4 * ng ? a.gpr : 4 * (SM_NW - 1) + 4 * ng;
    gran |= 1;
    a.pitch = 16 * gran;
    const size_t shm =
        (size_t)SM_NW * 16 * SM_OPITCH + (size_t)(4 * ks + 4) * 32 * sizeof(uint32_t);
    /* The edge buffer (128 bytes a row for most kernels) stays small beside the image but for
     * tall images of a few bytes a row: those take the other kernels. */
    const int64_t erows = (int64_t)a.yhi - a.ylo;
    if (erows * a.epitch > n * src->height + ((int64_t)1 << 20))
        return GIP_OK;
    *done = true;
    /* The edge granules first (sm_edges), so that the kernel stages every granule by cp.async:
     * a border byte read in the kernel would hold its block up a memory latency a step. */
    uint8_t *edge = nullptr;
    gip_status st = gip__cuda_malloc(ctx, (size_t)(erows * a.epitch), (void **)&edge);
    if (st)
        return st;
    a.edge = edge;
    const int64_t ethreads = erows * a.ne * 4;
    const unsigned eblocks = (unsigned)((ethreads + 127) / 128);
    /* (None where a one-tap row kernel meets rows of whole granules.) */
    if (eblocks && cn == 1)
        sm_edges<1><<<eblocks, 128, 0, gip__stream(ctx)>>>(a, edge);
    else if (eblocks && cn == 3)
        sm_edges<3><<<eblocks, 128, 0, gip__stream(ctx)>>>(a, edge);
    else if (eblocks)
        sm_edges<4><<<eblocks, 128, 0, gip__stream(ctx)>>>(a, edge);
    st = GIP__LAUNCH_CHECK(ctx, "separable filter (u8, tensor cores): edges");
    if (!st)
        st = cn == 1   ? sm_by_ks<1>(ctx, a, ks, n, src->height, shm)
             : cn == 3 ? sm_by_ks<3>(ctx, a, ks, n, src->height, shm)
                       : sm_by_ks<4>(ctx, a, ks, n, src->height, shm);
    gip__cuda_free(ctx, edge);
    return st;
}
