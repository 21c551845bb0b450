/* SPDX-License-Identifier: MIT */
/* The row ring of the 2-D correlation engine's 3x3 kernels on CUDA, shared by the packed kernel
 * (filter2d_packed_cuda.cu) and the ring with float accumulators (filter2d_ring_cuda.cu): their
 * arguments, the ring of source rows in shared memory, a warp's lanes and bands, the finish and
 * the stores of a lane's outputs, the grid. Private to those two files. */
#ifndef GIP_FILTER2D_CUDA_CUH
#define GIP_FILTER2D_CUDA_CUH

#include <string.h>

#include <type_traits>

#include "border.h"
#include "cuda_util.cuh"
#include "filter2d.h"

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
 * UX_D * 512 bytes in flight without the registers that rows held ahead in registers take (127
 * registers a thread that way, and under 10% achieved occupancy at 3840x2160). A slot holds the
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
static __device__ __noinline__ const uint8_t *ux_border_row(const UxArgs &a, int32_t y)
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

/* The grid of the ring kernels, and a.ry, for outputs of dsize bytes and warps of we elements. A
 * warp walks a band of rows one after the other, its first UX_D source rows copied at once. Short
 * bands win although each re-reads two halo rows: at 7680x4320 u8c3, 3 to 6 rows a band take
 * 3-14% less time than 8 for box3 and Sobel to u8, s16 and f32 (Sobel to s16 and f32 least with
 * 3).
 * Below about 16384 warps a band gets fewer rows, down to 3 (3840x2160 u8c1: 7% faster than 4). */
static dim3 ux_grid(UxArgs &a, int32_t dsize, int32_t we = UX_W, int32_t rows = 0)
{
    const int64_t wx = ((int64_t)a.n + we - 1) / we;
    const int64_t want = (wx * a.H) / 16384, top = dsize == 1 ? 6 : 3;
    a.ry = (int32_t)(want < 3 ? 3 : want > top ? top : want);
    if (rows > 0) /* the caller's choice (the ring kernel's uxf_rows) */
        a.ry = rows;
    const int64_t bands = ((int64_t)a.H + a.ry - 1) / a.ry;
    const int64_t gy = (bands + UX_WARPS - 1) / UX_WARPS;
    return dim3((unsigned)wx, (unsigned)(gy < 65535 ? gy : 65535));
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

#endif /* GIP_FILTER2D_CUDA_CUH */
