/* SPDX-License-Identifier: MIT */
/* Morphology on CUDA: one erosion or dilation pass (an all-ones element up to 15x15 in one pass
 * through shared memory; larger ones as a row pass into a temporary then a column pass, each
 * direct for short lines and van Herk / Gil-Werman for long ones; other elements tap by tap from
 * a device tap list) and the element-wise steps of the compositions. Threads cover a row's elements
 * (x * channels + channel); min and max are exact, so the results are the CPU's. */
#include "border.h"
#include "cuda_util.cuh"
#include "ops/morphology/morph.h"

namespace
{

template <typename T, bool DIL> __device__ __forceinline__ T op(T a, T b)
{
    if (DIL)
        return a < b ? b : a;
    return b < a ? b : a;
}

__device__ __forceinline__ float pick(float4 v, int ch)
{
    return ch == 0 ? v.x : ch == 1 ? v.y : ch == 2 ? v.z : v.w;
}

/* Launch geometry: x over a row's elements, y over rows (grid-stride). */
struct geom {
    dim3 grid, block;
};

geom geom_of(int64_t n, int64_t rows)
{
    geom g;
    g.block = dim3(256);
    g.grid = dim3(gip__div_up(n, 256), (unsigned)(rows < 65535 ? rows : 65535));
    return g;
}

/* Any element: dst = OP over the taps, read through the border. */
template <typename T, bool DIL>
__global__ void taps_kernel(const char *src, int64_t ss, char *dst, int64_t ds, int32_t w,
                            int32_t h, int32_t c, const int2 *taps, int32_t ntaps,
                            gip_border border, float4 bv)
{
    const int32_t e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= w * c)
        return;
    const int32_t x = e / c, ch = e - x * c;
    const T b = (T)pick(bv, ch);
    for (int32_t y = blockIdx.y; y < h; y += gridDim.y) {
        T acc = b;
        for (int32_t t = 0; t < ntaps; t++) {
            const int2 tp = taps[t];
            const int32_t sx = gip__border_index32(x + tp.x, w, border);
            const int32_t sy = gip__border_index32(y + tp.y, h, border);
            const T v = (sx < 0 || sy < 0) ? b : gip__row<T>(src, ss, sy)[sx * c + ch];
            acc = t ? op<T, DIL>(acc, v) : v;
        }
        gip__row<T>(dst, ds, y)[e] = acc;
    }
}

/* Rect row pass, direct: tmp(x) = OP over i < k of src(x - ax + i). */
template <typename T, bool DIL>
__global__ void row_direct(const char *src, int64_t ss, char *dst, int64_t ds, int32_t w, int32_t h,
                           int32_t c, int32_t k, int32_t ax, gip_border border, float4 bv)
{
    const int32_t e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= w * c)
        return;
    const int32_t x = e / c, ch = e - x * c;
    const T b = (T)pick(bv, ch);
    for (int32_t y = blockIdx.y; y < h; y += gridDim.y) {
        const T *s = gip__row<T>(src, ss, y);
        T acc = b;
        for (int32_t i = 0; i < k; i++) {
            const int32_t sx = gip__border_index32(x - ax + i, w, border);
            const T v = sx < 0 ? b : s[sx * c + ch];
            acc = i ? op<T, DIL>(acc, v) : v;
        }
        gip__row<T>(dst, ds, y)[e] = acc;
    }
}

/* Rect row pass, van Herk: per block of k padded positions and channel, the running OP from the
 * block's start (g) and from its end (hb); m padded positions a row, pitch m * c elements. */
template <typename T, bool DIL>
__global__ void row_gh(const char *src, int64_t ss, T *g, T *hb, int32_t w, int32_t h, int32_t c,
                       int32_t k, int32_t ax, int32_t m, gip_border border, float4 bv)
{
    const int32_t nb = (m + k - 1) / k;
    const int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nb * c)
        return;
    const int32_t blk = i / c, ch = i - blk * c;
    const int32_t q0 = blk * k, q1 = q0 + k < m ? q0 + k : m;
    const T b = (T)pick(bv, ch);
    for (int32_t y = blockIdx.y; y < h; y += gridDim.y) {
        const T *s = gip__row<T>(src, ss, y);
        T *gr = g + (int64_t)y * m * c, *hr = hb + (int64_t)y * m * c;
        T acc = b;
        for (int32_t q = q0; q < q1; q++) {
            const int32_t sx = gip__border_index32(q - ax, w, border);
            const T v = sx < 0 ? b : s[sx * c + ch];
            acc = q == q0 ? v : op<T, DIL>(acc, v);
            gr[q * c + ch] = acc;
        }
        for (int32_t q = q1 - 1; q >= q0; q--) {
            const int32_t sx = gip__border_index32(q - ax, w, border);
            const T v = sx < 0 ? b : s[sx * c + ch];
            acc = q == q1 - 1 ? v : op<T, DIL>(acc, v);
            hr[q * c + ch] = acc;
        }
    }
}

template <typename T, bool DIL>
__global__ void row_combine(const T *g, const T *hb, char *dst, int64_t ds, int32_t w, int32_t h,
                            int32_t c, int32_t k, int32_t m)
{
    const int32_t e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= w * c)
        return;
    for (int32_t y = blockIdx.y; y < h; y += gridDim.y) {
        const int64_t r = (int64_t)y * m * c;
        gip__row<T>(dst, ds, y)[e] = op<T, DIL>(hb[r + e], g[r + e + (int64_t)(k - 1) * c]);
    }
}

/* Rect column pass, direct: dst(y) = OP over i < k of tmp(y - ay + i). */
template <typename T, bool DIL>
__global__ void col_direct(const char *src, int64_t ss, char *dst, int64_t ds, int32_t w, int32_t h,
                           int32_t c, int32_t k, int32_t ay, gip_border border, float4 bv)
{
    const int32_t e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= w * c)
        return;
    const T b = (T)pick(bv, e % c);
    for (int32_t y = blockIdx.y; y < h; y += gridDim.y) {
        T acc = b;
        for (int32_t i = 0; i < k; i++) {
            const int32_t sy = gip__border_index32(y - ay + i, h, border);
            const T v = sy < 0 ? b : gip__row<T>(src, ss, sy)[e];
            acc = i ? op<T, DIL>(acc, v) : v;
        }
        gip__row<T>(dst, ds, y)[e] = acc;
    }
}

/* Rect column pass, van Herk: per block of k padded rows and element; m padded rows, pitch
 * w * c elements. */
template <typename T, bool DIL>
__global__ void col_gh(const char *src, int64_t ss, T *g, T *hb, int32_t w, int32_t h, int32_t c,
                       int32_t k, int32_t ay, int32_t m, gip_border border, float4 bv)
{
    const int32_t e = blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t rl = (int64_t)w * c;
    if (e >= rl)
        return;
    const T b = (T)pick(bv, e % c);
    const int32_t nb = (m + k - 1) / k;
    for (int32_t blk = blockIdx.y; blk < nb; blk += gridDim.y) {
        const int32_t q0 = blk * k, q1 = q0 + k < m ? q0 + k : m;
        T acc = b;
        for (int32_t q = q0; q < q1; q++) {
            const int32_t sy = gip__border_index32(q - ay, h, border);
            const T v = sy < 0 ? b : gip__row<T>(src, ss, sy)[e];
            acc = q == q0 ? v : op<T, DIL>(acc, v);
            g[q * rl + e] = acc;
        }
        for (int32_t q = q1 - 1; q >= q0; q--) {
            const int32_t sy = gip__border_index32(q - ay, h, border);
            const T v = sy < 0 ? b : gip__row<T>(src, ss, sy)[e];
            acc = q == q1 - 1 ? v : op<T, DIL>(acc, v);
            hb[q * rl + e] = acc;
        }
    }
}

template <typename T, bool DIL>
__global__ void col_combine(const T *g, const T *hb, char *dst, int64_t ds, int32_t w, int32_t h,
                            int32_t c, int32_t k)
{
    const int32_t e = blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t rl = (int64_t)w * c;
    if (e >= rl)
        return;
    for (int32_t y = blockIdx.y; y < h; y += gridDim.y)
        gip__row<T>(dst, ds, y)[e] = op<T, DIL>(hb[y * rl + e], g[(y + k - 1) * rl + e]);
}

/* Small rectangles in one pass: a block loads its bordered tile of the source into shared memory
 * once, takes the row OP into a second shared array and the column OP from it: one read and one
 * write of the image. Element coordinates along x (x * c + channel), so a pixel's neighbours are
 * c elements apart. */
constexpr int TILE_W = 64, TILE_H = 16, TILE_MAX_K = 15;

/* The tile of a block at element ex0, row y0 (tw x th elements, the element's reach ax, ay
 * included) into shared memory through the border, by the block's nt threads. */
template <typename T>
__device__ __forceinline__ void load_tile(const char *src, int64_t ss, int32_t w, int32_t h,
                                          int32_t c, int32_t ax, int32_t ay, gip_border border,
                                          float4 bv, T *tile, int32_t tw, int32_t th, int32_t ex0,
                                          int32_t y0, int32_t t0, int32_t nt)
{
    for (int32_t i = t0; i < tw * th; i += nt) {
        const int32_t ty = i / tw, tx = i - ty * tw;
        const int32_t ch = (ex0 + tx) % c;
        const int32_t px = (ex0 + tx - ch) / c - ax; /* ex0 + tx - ax c, in pixels */
        const int32_t sx = gip__border_index32(px, w, border);
        const int32_t sy = gip__border_index32(y0 - ay + ty, h, border);
        tile[i] = (sx < 0 || sy < 0) ? (T)pick(bv, ch) : gip__row<T>(src, ss, sy)[sx * c + ch];
    }
}

template <typename T, bool DIL>
__global__ void rect_tile(const char *src, int64_t ss, char *dst, int64_t ds, int32_t w, int32_t h,
                          int32_t c, int32_t kw, int32_t kh, int32_t ax, int32_t ay,
                          gip_border border, float4 bv)
{
    extern __shared__ unsigned char smem[];
    const int32_t tw = TILE_W + (kw - 1) * c, th = TILE_H + kh - 1;
    T *tile = reinterpret_cast<T *>(smem), *rows = tile + tw * th;
    const int32_t ex0 = blockIdx.x * TILE_W, y0 = blockIdx.y * TILE_H;
    const int32_t nt = blockDim.x * blockDim.y, t0 = threadIdx.y * blockDim.x + threadIdx.x;
    load_tile<T>(src, ss, w, h, c, ax, ay, border, bv, tile, tw, th, ex0, y0, t0, nt);
    __syncthreads();
    for (int32_t i = t0; i < TILE_W * th; i += nt) {
        const int32_t ty = i / TILE_W, tx = i - ty * TILE_W;
        const T *p = tile + ty * tw + tx;
        T acc = p[0];
        for (int32_t k = 1; k < kw; k++)
            acc = op<T, DIL>(acc, p[k * c]);
        rows[i] = acc;
    }
    __syncthreads();
    for (int32_t i = t0; i < TILE_W * TILE_H; i += nt) {
        const int32_t oy = i / TILE_W, ox = i - oy * TILE_W;
        if (ex0 + ox >= w * c || y0 + oy >= h)
            continue;
        const T *p = rows + oy * TILE_W + ox;
        T acc = p[0];
        for (int32_t k = 1; k < kh; k++)
            acc = op<T, DIL>(acc, p[k * TILE_W]);
        gip__row<T>(dst, ds, y0 + oy)[ex0 + ox] = acc;
    }
}

/* Elements of at most TILE_MAX_K x TILE_MAX_K whose rows each hold one run of taps (ellipses,
 * crosses, diamonds; a row may hold none): the block's bordered tile in shared memory as
 * rect_tile loads it, then each output the OP over its runs there. Runs in element coordinates:
 * row dy, first column x0, len taps. */
struct morph_runs {
    int32_t n;
    int8_t dy[TILE_MAX_K], x0[TILE_MAX_K], len[TILE_MAX_K];
};

/* p's element as runs, when each of its rows holds at most one (taps come row by row). */
bool runs_of(const gip__morph_pass *p, morph_runs *r)
{
    if (p->kw > TILE_MAX_K || p->kh > TILE_MAX_K || p->ntaps < 1)
        return false;
    r->n = 0;
    for (int32_t t = 0; t < p->ntaps;) {
        int32_t e = t + 1;
        while (e < p->ntaps && p->taps[e].dy == p->taps[t].dy &&
               p->taps[e].dx == p->taps[e - 1].dx + 1)
            e++;
        if (r->n > 0 && r->dy[r->n - 1] == p->taps[t].dy + p->ay)
            return false; /* a second run in a row */
        r->dy[r->n] = (int8_t)(p->taps[t].dy + p->ay);
        r->x0[r->n] = (int8_t)(p->taps[t].dx + p->ax);
        r->len[r->n] = (int8_t)(e - t);
        r->n++;
        t = e;
    }
    return true;
}

template <typename T, bool DIL>
__global__ void runs_tile(const char *src, int64_t ss, char *dst, int64_t ds, int32_t w, int32_t h,
                          int32_t c, int32_t kw, int32_t kh, int32_t ax, int32_t ay,
                          morph_runs runs, gip_border border, float4 bv)
{
    extern __shared__ unsigned char smem[];
    const int32_t tw = TILE_W + (kw - 1) * c, th = TILE_H + kh - 1;
    T *tile = reinterpret_cast<T *>(smem);
    const int32_t ex0 = blockIdx.x * TILE_W, y0 = blockIdx.y * TILE_H;
    const int32_t nt = blockDim.x * blockDim.y, t0 = threadIdx.y * blockDim.x + threadIdx.x;
    load_tile<T>(src, ss, w, h, c, ax, ay, border, bv, tile, tw, th, ex0, y0, t0, nt);
    __syncthreads();
    for (int32_t i = t0; i < TILE_W * TILE_H; i += nt) {
        const int32_t oy = i / TILE_W, ox = i - oy * TILE_W;
        if (ex0 + ox >= w * c || y0 + oy >= h)
            continue;
        const T *p = tile + (oy + runs.dy[0]) * tw + ox + runs.x0[0] * c;
        T acc = p[0];
        for (int32_t k = 1; k < runs.len[0]; k++)
            acc = op<T, DIL>(acc, p[k * c]);
        for (int32_t r = 1; r < runs.n; r++) {
            p = tile + (oy + runs.dy[r]) * tw + ox + runs.x0[r] * c;
            for (int32_t k = 0; k < runs.len[r]; k++)
                acc = op<T, DIL>(acc, p[k * c]);
        }
        gip__row<T>(dst, ds, y0 + oy)[ex0 + ox] = acc;
    }
}

/* 3x3 rectangles of u8 with 1 to 4 channels, centred: each thread makes one 32-bit word (4 bytes)
 * of RECT3_ROWS rows. A row's horizontal OP comes from the words left of, at and right of it:
 * the bytes c elements to the left and right are byte permutes of two words, and the OP of four
 * bytes at once is __vminu4 or __vmaxu4; three rows of those give the output. Rows outside the
 * image come through the border row by row (the constant border's row is the border value's
 * bytes); the words whose horizontal neighbourhood leaves the row (a row's first and last word,
 * the bytes after its last whole word) take rect3_edge. Needs 4-byte-aligned rows. */
constexpr int RECT3_ROWS = 8, RECT3_THREADS = 128;

template <bool DIL> __device__ __forceinline__ uint32_t op4(uint32_t a, uint32_t b)
{
    return DIL ? __vmaxu4(a, b) : __vminu4(a, b);
}

template <bool DIL>
__device__ __forceinline__ uint32_t hop3(const uint32_t *r, int32_t j, uint32_t sel_l,
                                         uint32_t sel_r)
{
    const uint32_t a = __ldg(r + j - 1), b = __ldg(r + j), n = __ldg(r + j + 1);
    return op4<DIL>(op4<DIL>(__byte_perm(a, b, sel_l), b), __byte_perm(b, n, sel_r));
}

/* The elements [4j, min(4j + 4, n)) of rows [y0, y1) of a 3x3 rectangle, their horizontal taps
 * through the border resolved once and each source row's once, so that a row's loads (up to
 * twelve bytes) are all in flight together and the thread keeps pace with rect3_u8's others. */
template <bool DIL>
__device__ __forceinline__ void rect3_edge(const char *src, int64_t ss, char *dst, int64_t ds,
                                           int32_t w, int32_t h, int32_t c, int32_t j, int32_t y0,
                                           int32_t y1, gip_border border, float4 bv)
{
    const int32_t e0 = 4 * j, ne = min(4, w * c - e0);
    int32_t xo[4][3]; /* byte offsets in a row of the taps; -1: the constant border */
    uint8_t b[4];     /* the border value of each element's channel */
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const int32_t e = e0 + (i < ne ? i : 0), x = e / c, ch = e - x * c;
        b[i] = (uint8_t)pick(bv, ch);
#pragma unroll
        for (int d = 0; d < 3; d++) {
            const int32_t sx = gip__border_index32(x + d - 1, w, border);
            xo[i][d] = sx < 0 ? -1 : sx * c + ch;
        }
    }
    auto hrow = [&](int32_t sy, uint8_t *o) {
        const int32_t ry = gip__border_index32(sy, h, border);
        const uint8_t *r = gip__row<uint8_t>(src, ss, ry < 0 ? 0 : ry);
#pragma unroll
        for (int i = 0; i < 4; i++) {
            uint8_t v[3];
#pragma unroll
            for (int d = 0; d < 3; d++)
                v[d] = ry < 0 || xo[i][d] < 0 ? b[i] : __ldg(r + xo[i][d]);
            o[i] = op<uint8_t, DIL>(op<uint8_t, DIL>(v[0], v[1]), v[2]);
        }
    };
    uint8_t up[4], mid[4], down[4];
    hrow(y0 - 1, up);
    hrow(y0, mid);
    for (int32_t y = y0; y < y1; y++) {
        hrow(y + 1, down);
        uint8_t *d = gip__row<uint8_t>(dst, ds, y) + e0;
#pragma unroll
        for (int i = 0; i < 4; i++) {
            if (i < ne)
                d[i] = op<uint8_t, DIL>(op<uint8_t, DIL>(up[i], mid[i]), down[i]);
            up[i] = mid[i];
            mid[i] = down[i];
        }
    }
}

template <bool DIL>
__global__ void __launch_bounds__(RECT3_THREADS)
    rect3_u8(const char *__restrict__ src, int64_t ss, char *__restrict__ dst, int64_t ds,
             int32_t w, int32_t h, int32_t c, gip_border border, float4 bv)
{
    const int32_t n = w * c, nw = n / 4;                     /* whole words of a row */
    const int32_t j = blockIdx.x * blockDim.x + threadIdx.x; /* word; nw: the tail bytes */
    const int32_t y0 = blockIdx.y * RECT3_ROWS, y1 = min(y0 + RECT3_ROWS, h);
    if (j > nw || y0 >= h || (j == nw && n % 4 == 0))
        return;
    if (j < 1 || j + 1 >= nw) {
        rect3_edge<DIL>(src, ss, dst, ds, w, h, c, j, y0, y1, border, bv);
        return;
    }
    /* byte i of the left word is byte 4 + i - c of {b:a}; of the right one, byte i + c of {n:b} */
    const uint32_t sel_l = (uint32_t)((4 - c) | (5 - c) << 4 | (6 - c) << 8 | (7 - c) << 12);
    const uint32_t sel_r = (uint32_t)(c | (c + 1) << 4 | (c + 2) << 8 | (c + 3) << 12);
    if (y0 >= 1 && y1 + 1 <= h && y1 - y0 == RECT3_ROWS) {
        /* every row's loads first, all in flight together, then the column OPs */
        uint32_t hr[RECT3_ROWS + 2];
#pragma unroll
        for (int32_t r = 0; r < RECT3_ROWS + 2; r++)
            hr[r] = hop3<DIL>(gip__row<uint32_t>(src, ss, y0 - 1 + r), j, sel_l, sel_r);
#pragma unroll
        for (int32_t r = 0; r < RECT3_ROWS; r++)
            gip__row<uint32_t>(dst, ds, y0 + r)[j] =
                op4<DIL>(op4<DIL>(hr[r], hr[r + 1]), hr[r + 2]);
        return;
    }
    /* the first and last rows of blocks: rows outside through the border */
    uint32_t bw = 0; /* the constant border's row: byte i is element 4j + i's channel's value */
#pragma unroll
    for (int i = 0; i < 4; i++)
        bw |= (uint32_t)(uint8_t)pick(bv, (4 * j + i) % c) << (8 * i);
    auto hrow = [&](int32_t sy) {
        const int32_t ry = gip__border_index32(sy, h, border);
        return ry < 0 ? bw : hop3<DIL>(gip__row<uint32_t>(src, ss, ry), j, sel_l, sel_r);
    };
    uint32_t up = hrow(y0 - 1), mid = hrow(y0);
    for (int32_t y = y0; y < y1; y++) {
        const uint32_t down = hrow(y + 1);
        gip__row<uint32_t>(dst, ds, y)[j] = op4<DIL>(op4<DIL>(up, mid), down);
        up = mid;
        mid = down;
    }
}

/* The row pass (src -> out) or the column pass, direct or van Herk by k. */
template <typename T, bool DIL>
gip_status line_pass(gip_context *ctx, const gip__morph_pass *p, bool rows, const gip_image *src,
                     gip_image *out)
{
    const int32_t w = (int32_t)src->width, h = (int32_t)src->height, c = src->channels;
    const int32_t k = rows ? p->kw : p->kh, a = rows ? p->ax : p->ay;
    const float4 bv =
        make_float4(p->border_value[0], p->border_value[1], p->border_value[2], p->border_value[3]);
    const geom gm = geom_of((int64_t)w * c, h);
    cudaStream_t s = gip__stream(ctx);
    if (k < GIP__MORPH_VHGW_CUDA) {
        if (rows)
            row_direct<T, DIL><<<gm.grid, gm.block, 0, s>>>((const char *)src->data, src->stride,
                                                            (char *)out->data, out->stride, w, h, c,
                                                            k, a, p->border, bv);
        else
            col_direct<T, DIL><<<gm.grid, gm.block, 0, s>>>((const char *)src->data, src->stride,
                                                            (char *)out->data, out->stride, w, h, c,
                                                            k, a, p->border, bv);
        return GIP__LAUNCH_CHECK(ctx, "morphology line kernel");
    }
    const int32_t m = (rows ? w : h) + k - 1;
    const size_t n = (size_t)m * (size_t)(rows ? (int64_t)h * c : (int64_t)w * c);
    void *buf = NULL;
    gip_status st = gip__cuda_malloc(ctx, 2 * n * sizeof(T), &buf);
    if (st)
        return st;
    T *g = (T *)buf, *hb = g + n;
    if (rows) {
        const int32_t nb = (m + k - 1) / k;
        dim3 grid(gip__div_up((int64_t)nb * c, 128), (unsigned)(h < 65535 ? h : 65535));
        row_gh<T, DIL><<<grid, 128, 0, s>>>((const char *)src->data, src->stride, g, hb, w, h, c, k,
                                            a, m, p->border, bv);
        if (!(st = GIP__LAUNCH_CHECK(ctx, "morphology van Herk rows"))) {
            row_combine<T, DIL>
                <<<gm.grid, gm.block, 0, s>>>(g, hb, (char *)out->data, out->stride, w, h, c, k, m);
            st = GIP__LAUNCH_CHECK(ctx, "morphology van Herk rows");
        }
    } else {
        const int32_t nb = (m + k - 1) / k;
        dim3 grid(gip__div_up((int64_t)w * c, 256), (unsigned)(nb < 65535 ? nb : 65535));
        col_gh<T, DIL><<<grid, 256, 0, s>>>((const char *)src->data, src->stride, g, hb, w, h, c, k,
                                            a, m, p->border, bv);
        if (!(st = GIP__LAUNCH_CHECK(ctx, "morphology van Herk columns"))) {
            col_combine<T, DIL>
                <<<gm.grid, gm.block, 0, s>>>(g, hb, (char *)out->data, out->stride, w, h, c, k);
            st = GIP__LAUNCH_CHECK(ctx, "morphology van Herk columns");
        }
    }
    gip__cuda_free(ctx, buf);
    return st;
}

template <typename T, bool DIL>
gip_status pass(gip_context *ctx, const gip__morph_pass *p, const gip_image *src, gip_image *dst)
{
    gip_status st;
    if (sizeof(T) == 1 && p->rect && p->kw == 3 && p->kh == 3 && p->ax == 1 && p->ay == 1 &&
        src->channels <= 4 && ((uintptr_t)src->data | (uintptr_t)dst->data) % 4 == 0 &&
        (src->stride | dst->stride) % 4 == 0 &&
        (src->height + RECT3_ROWS - 1) / RECT3_ROWS <= 65535) {
        const int32_t w = (int32_t)src->width, h = (int32_t)src->height, c = src->channels;
        const float4 bv = make_float4(p->border_value[0], p->border_value[1], p->border_value[2],
                                      p->border_value[3]);
        const dim3 grid(gip__div_up((int64_t)w * c / 4 + 1, RECT3_THREADS),
                        gip__div_up(h, RECT3_ROWS));
        rect3_u8<DIL><<<grid, RECT3_THREADS, 0, gip__stream(ctx)>>>(
            (const char *)src->data, src->stride, (char *)dst->data, dst->stride, w, h, c,
            p->border, bv);
        return GIP__LAUNCH_CHECK(ctx, "morphology 3x3 word kernel");
    }
    /* (images over 65535 tiles tall take the two passes, whose grids stride) */
    if (p->rect && p->kw <= TILE_MAX_K && p->kh <= TILE_MAX_K &&
        (src->height + TILE_H - 1) / TILE_H <= 65535) {
        const int32_t w = (int32_t)src->width, h = (int32_t)src->height, c = src->channels;
        const float4 bv = make_float4(p->border_value[0], p->border_value[1], p->border_value[2],
                                      p->border_value[3]);
        const int32_t tw = TILE_W + (p->kw - 1) * c, th = TILE_H + p->kh - 1;
        const size_t shm = (size_t)(tw * th + TILE_W * th) * sizeof(T);
        const dim3 grid(gip__div_up((int64_t)w * c, TILE_W), gip__div_up(h, TILE_H)), block(64, 4);
        rect_tile<T, DIL><<<grid, block, shm, gip__stream(ctx)>>>(
            (const char *)src->data, src->stride, (char *)dst->data, dst->stride, w, h, c, p->kw,
            p->kh, p->ax, p->ay, p->border, bv);
        return GIP__LAUNCH_CHECK(ctx, "morphology tile kernel");
    }
    morph_runs runs;
    if (!p->rect && (src->height + TILE_H - 1) / TILE_H <= 65535 && runs_of(p, &runs)) {
        const int32_t w = (int32_t)src->width, h = (int32_t)src->height, c = src->channels;
        const float4 bv = make_float4(p->border_value[0], p->border_value[1], p->border_value[2],
                                      p->border_value[3]);
        const int32_t tw = TILE_W + (p->kw - 1) * c, th = TILE_H + p->kh - 1;
        const size_t shm = (size_t)tw * th * sizeof(T);
        const dim3 grid(gip__div_up((int64_t)w * c, TILE_W), gip__div_up(h, TILE_H)), block(64, 4);
        runs_tile<T, DIL><<<grid, block, shm, gip__stream(ctx)>>>(
            (const char *)src->data, src->stride, (char *)dst->data, dst->stride, w, h, c, p->kw,
            p->kh, p->ax, p->ay, runs, p->border, bv);
        return GIP__LAUNCH_CHECK(ctx, "morphology runs kernel");
    }
    if (p->rect) {
        gip_image tmp = {0};
        if ((st = gip_image_alloc(ctx, &tmp, src->width, src->height, src->channels, src->dtype,
                                  GIP_MEM_CUDA, 0)))
            return st;
        if (!(st = line_pass<T, DIL>(ctx, p, true, src, &tmp)))
            st = line_pass<T, DIL>(ctx, p, false, &tmp, dst);
        gip_image_free(ctx, &tmp);
        return st;
    }
    const size_t bytes = (size_t)p->ntaps * sizeof(int2);
    void *dtaps = NULL;
    if ((st = gip__cuda_malloc(ctx, bytes, &dtaps)))
        return st;
    st = gip__cuda_copy2d(ctx, dtaps, (int64_t)bytes, GIP_MEM_CUDA, p->taps, (int64_t)bytes,
                          GIP_MEM_HOST, (int64_t)bytes, 1);
    if (!st) {
        const int32_t w = (int32_t)src->width, h = (int32_t)src->height, c = src->channels;
        const float4 bv = make_float4(p->border_value[0], p->border_value[1], p->border_value[2],
                                      p->border_value[3]);
        const geom gm = geom_of((int64_t)w * c, h);
        taps_kernel<T, DIL><<<gm.grid, gm.block, 0, gip__stream(ctx)>>>(
            (const char *)src->data, src->stride, (char *)dst->data, dst->stride, w, h, c,
            (const int2 *)dtaps, p->ntaps, p->border, bv);
        st = GIP__LAUNCH_CHECK(ctx, "morphology taps kernel");
    }
    gip__cuda_free(ctx, dtaps);
    return st;
}

template <typename T>
__global__ void ew_kernel(int op, const char *a, int64_t as, const char *b, int64_t bs, char *d,
                          int64_t dss, int32_t n, int32_t h)
{
    const int32_t e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= n)
        return;
    for (int32_t y = blockIdx.y; y < h; y += gridDim.y) {
        const T x = gip__row<T>(a, as, y)[e];
        T r;
        if (op == GIP__MORPH_SUB) {
            const T z = gip__row<T>(b, bs, y)[e];
            if (sizeof(T) == 4)
                r = (T)((float)x - (float)z);
            else
                r = gip__saturate<T>((float)((int32_t)x - (int32_t)z));
        } else if (op == GIP__MORPH_AND) {
            r = (T)((int32_t)x & (int32_t)gip__row<T>(b, bs, y)[e]);
        } else if (op == GIP__MORPH_NOT) {
            r = (T)(255 - (int32_t)x);
        } else {
            r = x;
        }
        gip__row<T>(d, dss, y)[e] = r;
    }
}

} // namespace

extern "C" gip_status gip__morph_pass_cuda(gip_context *ctx, const gip__morph_pass *p,
                                           const gip_image *src, gip_image *dst)
{
    return gip__dispatch_dtype(src->dtype, [&](auto t) {
        using T = decltype(t);
        return p->dilate ? pass<T, true>(ctx, p, src, dst) : pass<T, false>(ctx, p, src, dst);
    });
}

extern "C" gip_status gip__morph_ew_cuda(gip_context *ctx, gip__morph_ew op, const gip_image *a,
                                         const gip_image *b, gip_image *dst)
{
    return gip__dispatch_dtype(a->dtype, [&](auto t) {
        using T = decltype(t);
        const int32_t n = (int32_t)(a->width * a->channels), h = (int32_t)a->height;
        const geom gm = geom_of(n, h);
        ew_kernel<T><<<gm.grid, gm.block, 0, gip__stream(ctx)>>>(
            (int)op, (const char *)a->data, a->stride, b ? (const char *)b->data : NULL,
            b ? b->stride : 0, (char *)dst->data, dst->stride, n, h);
        return GIP__LAUNCH_CHECK(ctx, "morphology element-wise kernel");
    });
}
