/* SPDX-License-Identifier: MIT */
/* Bilinear sampling of the warps and remap on CUDA, specialised for u8 and f32 with 1, 3 or 4
 * channels: several output pixels a thread, the pixels whose four taps lie inside the image
 * computed here with gip__warp_sample's arithmetic (all their loads first), the others after
 * them by gip__wpc_border (gip__warp_sample's bilinear statements). */
#ifndef GIP_OPS_WARP_CUDA_CUH
#define GIP_OPS_WARP_CUDA_CUH

#include "cuda_util.cuh"
#include "ops/geometry/warp.h"

/* Output pixels a thread (consecutive in a row) and the block: a warp covers 8 threads (32
 * pixels) of 4 rows, whose taps gather from fewer source rows than one output row's under a
 * rotation. */
#define GIP__WPC_PX 4
#define GIP__WPC_BX 8
#define GIP__WPC_BY 32
/* Blocks an SM should hold: 4, 3, 2 for 1, 3, 4 channels (at most 64, 85, 128 registers). */
#define GIP__WPC_MINB(cn) ((cn) == 1 ? 4 : (cn) == 3 ? 3 : 2)

/* The taps of the pixels q < n of a thread whose source positions (sx[q], sy[q]) have their four
 * taps inside the image (gip__warp_sample's linear case without the border): their bits in the
 * result, the byte offsets of their top-left taps in off, their fractions in fx, fy (0 for the
 * others). floor(sx) lies in [0, sw - 2] exactly when 0 <= sx < sw - 1 (NaN fails), and is then
 * the truncation. lx, ly are sw - 1 and sh - 1 as floats (exact: sides below 2^24), ss the
 * source stride (the source spans less than 2^31 bytes). The bits of *wh: the pixels whose taps
 * gip__load_bytes may load as whole words (lw.x <= sx < lw.y: see gip__wpc_lw). */
template <int CN, typename T>
__device__ __forceinline__ uint32_t gip__wpc_locate(int32_t ss, float lx, float ly, float2 lw,
                                                    const float *sx, const float *sy, int32_t n,
                                                    int32_t *off, float *fx, float *fy,
                                                    uint32_t *wh)
{
    uint32_t in = 0;
    *wh = 0;
#pragma unroll
    for (int q = 0; q < GIP__WPC_PX; q++) {
        off[q] = 0;
        fx[q] = 0.f;
        fy[q] = 0.f;
        if (q < n && sx[q] >= 0.f && sx[q] < lx && sy[q] >= 0.f && sy[q] < ly) {
            const int32_t ix = (int32_t)sx[q], iy = (int32_t)sy[q];
            fx[q] = __fsub_rn(sx[q], (float)ix);
            fy[q] = __fsub_rn(sy[q], (float)iy);
            off[q] = iy * ss + ix * CN * (int32_t)sizeof(T);
            in |= 1u << q;
            *wh |= (uint32_t)(sx[q] >= lw.x && sx[q] < lw.y) << q;
        }
    }
    return in;
}

/* Where floor(sx) lies so far from the row's ends that the aligned words holding a pair's
 * 2 * CN bytes lie in the row (GIP__WHOLE_WORDS): ceil(3 / CN) <= sx < sw - 1 - ceil(3 / CN). */
template <int CN> __device__ __forceinline__ float2 gip__wpc_lw(int32_t sw)
{
    constexpr int M = (3 + CN - 1) / CN;
    return make_float2((float)M, (float)(sw - 1 - M));
}

/* The two u8 pixels from a (2 * CN bytes) into l and r by gip__load_bytes: the 4-byte aligned
 * words that hold them where whole (u8c3: 2 or 3 loads instead of 6), else byte by byte. */
template <int CN>
__device__ __forceinline__ void gip__wpc_pair_u8(const uint8_t *a, bool whole, uint8_t *l,
                                                 uint8_t *r)
{
    constexpr int NB = 2 * CN, NV = (NB + 3) / 4;
    uint32_t v[NV];
    gip__load_bytes<NB>(a, whole, v);
#pragma unroll
    for (int c = 0; c < CN; c++) {
        l[c] = (uint8_t)(v[c >> 2] >> (8 * (c & 3)));
        r[c] = (uint8_t)(v[(CN + c) >> 2] >> (8 * ((CN + c) & 3)));
    }
}

/* The bilinear samples of the pixels whose bit is set in `in` into o (CN elements a pixel; the
 * others' elements are meaningless): every tap loaded first, with no call or store between the
 * loads, so that all of them are in flight together. */
template <int CN, typename T>
__device__ __forceinline__ void gip__wpc_gather(const uint8_t *src, int32_t ss, uint32_t in,
                                                uint32_t wh, const int32_t *off, const float *fx,
                                                const float *fy, T *o)
{
    T p[GIP__WPC_PX][4][CN];
#pragma unroll
    for (int q = 0; q < GIP__WPC_PX; q++) {
        if (sizeof(T) == 1 && (in >> q & 1)) {
            const bool whole = wh >> q & 1;
            gip__wpc_pair_u8<CN>(src + off[q], whole, (uint8_t *)p[q][0], (uint8_t *)p[q][1]);
            gip__wpc_pair_u8<CN>(src + (off[q] + ss), whole, (uint8_t *)p[q][2],
                                 (uint8_t *)p[q][3]);
        } else if (in >> q & 1) {
            const T *r0 = reinterpret_cast<const T *>(src + off[q]);
            const T *r1 = reinterpret_cast<const T *>(src + (off[q] + ss));
#pragma unroll
            for (int c = 0; c < CN; c++) {
                p[q][0][c] = __ldg(r0 + c);
                p[q][1][c] = __ldg(r0 + CN + c);
                p[q][2][c] = __ldg(r1 + c);
                p[q][3][c] = __ldg(r1 + CN + c);
            }
        } else {
#pragma unroll
            for (int c = 0; c < CN; c++)
                p[q][0][c] = p[q][1][c] = p[q][2][c] = p[q][3][c] = (T)0;
        }
    }
#pragma unroll
    for (int q = 0; q < GIP__WPC_PX; q++)
#pragma unroll
        for (int c = 0; c < CN; c++) {
            const float p0 = (float)p[q][0][c], p1 = (float)p[q][1][c];
            const float p2 = (float)p[q][2][c], p3 = (float)p[q][3][c];
            const float v0 = __fmaf_rn(fx[q], __fsub_rn(p1, p0), p0);
            const float v1 = __fmaf_rn(fx[q], __fsub_rn(p3, p2), p2);
            const float v = __fmaf_rn(fy[q], __fsub_rn(v1, v0), v0);
            if (sizeof(T) == 1)
                o[q * CN + c] = (T)gip__sat_u8_f32(v);
            else
                o[q * CN + c] = (T)v;
        }
}

/* Whether the specialised kernels take a source: sides below 2^24 (exact as floats), fewer than
 * 2^31 bytes spanned (32-bit offsets). */
static inline bool gip__wpc_source_ok(const gip_image *src)
{
    return src->width < (1 << 24) && src->height < (1 << 24) &&
           src->stride * src->height < ((int64_t)1 << 31);
}

/* gip__warp_sample's bilinear case, its statements with the element type and the channel count
 * fixed (the same helpers, the same arithmetic), for the pixels with a tap outside the image.
 * Inlined into the specialised kernels: an out-of-line call there would hold every register of
 * gip__warp_sample's nearest and bicubic cases as well (128 a thread, spilling). */
template <int CN, typename T>
__device__ __forceinline__ void gip__wpc_border(const gip__warp &w, const uint8_t *src,
                                                int64_t sstride, uint8_t *drow, int32_t x, float sx,
                                                float sy)
{
    const gip_dtype dt = sizeof(T) == 1 ? GIP_U8 : GIP_F32;
    const int64_t sw = w.sw, sh = w.sh;
    const int32_t border = w.border;
    const int64_t ix = gip__wp_int(sx, 0), iy = gip__wp_int(sy, 0);
    const float fx = __fsub_rn(sx, (float)ix), fy = __fsub_rn(sy, (float)iy);
    const bool inside = ix >= 0 && ix < sw - 1 && iy >= 0 && iy < sh - 1;
    if (!inside && (border == GIP_BORDER_CONSTANT || border == GIP__BORDER_TRANSPARENT) &&
        (ix < -1 || ix >= sw || iy < -1 || iy >= sh)) {
        if (border == GIP_BORDER_CONSTANT)
#pragma unroll
            for (int32_t c = 0; c < CN; c++)
                gip__geo_storef(drow, (int64_t)x * CN + c, dt, w.bval[c]);
        return;
    }
    for (int32_t c = 0; c < CN; c++) {
        float p[4];
        for (int k = 0; k < 4; k++) {
            const int64_t tx = ix + (k & 1), ty = iy + (k >> 1);
            if (tx >= 0 && tx < sw && ty >= 0 && ty < sh)
                p[k] = gip__geo_loadf(src + ty * sstride, tx * CN + c, dt);
            else if (border == GIP_BORDER_CONSTANT)
                p[k] = w.bval[c];
            else if (border == GIP__BORDER_TRANSPARENT)
                p[k] = gip__geo_loadf(drow, (int64_t)x * CN + c, dt);
            else
                p[k] = gip__geo_loadf(src + gip__wp_wrap(ty, sh, border) * sstride,
                                      gip__wp_wrap(tx, sw, border) * CN + c, dt);
        }
        const float v0 = __fmaf_rn(fx, __fsub_rn(p[1], p[0]), p[0]);
        const float v1 = __fmaf_rn(fx, __fsub_rn(p[3], p[2]), p[2]);
        gip__geo_storef(drow, (int64_t)x * CN + c, dt, __fmaf_rn(fy, __fsub_rn(v1, v0), v0));
    }
}

/* Writes the pixels of o whose bit is set in `in`; all GIP__WPC_PX of them as u8 where the row
 * allows (vec 1: 4-byte aligned, 2: 16-byte aligned) as 32-bit words or, four channels, one
 * 16-byte store. */
template <int CN, typename T>
__device__ __forceinline__ void gip__wpc_store(uint8_t *drow, int32_t x0, const T *o, uint32_t in,
                                               int32_t vec)
{
    T *d = reinterpret_cast<T *>(drow) + x0 * CN;
    if (sizeof(T) == 1 && vec && in == (1u << GIP__WPC_PX) - 1) {
        const uint8_t *b = reinterpret_cast<const uint8_t *>(o);
        gip__store_4px_u8<CN>(reinterpret_cast<uint8_t *>(d), b, vec);
        return;
    }
#pragma unroll
    for (int q = 0; q < GIP__WPC_PX; q++)
        if (in >> q & 1)
#pragma unroll
            for (int c = 0; c < CN; c++)
                d[q * CN + c] = o[q * CN + c];
}

/* A thread's npx pixels from their source positions (px, py): the inside ones located,
 * gathered and stored first, then those with a tap outside by gip__wpc_border, after the
 * others' loads and stores. */
template <int CN, typename T>
__device__ __forceinline__ void gip__wpc_pixels(const gip__warp &w, const uint8_t *src,
                                                int64_t sstride, float lx, float ly,
                                                const float *px, const float *py, int32_t npx,
                                                uint8_t *drow, int32_t x0, int32_t vec)
{
    const int32_t ss = (int32_t)sstride;
    int32_t off[GIP__WPC_PX];
    float fx[GIP__WPC_PX], fy[GIP__WPC_PX];
    uint32_t wh;
    const uint32_t in =
        gip__wpc_locate<CN, T>(ss, lx, ly, gip__wpc_lw<CN>(w.sw), px, py, npx, off, fx, fy, &wh);
    T o[GIP__WPC_PX * CN];
    gip__wpc_gather<CN, T>(src, ss, in, wh, off, fx, fy, o);
    gip__wpc_store<CN, T>(drow, x0, o, in, vec);
    /* the pixels with a tap outside, after the others' loads and stores */
    if (in != (1u << npx) - 1)
#pragma unroll
        for (int q = 0; q < GIP__WPC_PX; q++)
            if (q < npx && !(in >> q & 1))
                gip__wpc_border<CN, T>(w, src, sstride, drow, x0 + q, px[q], py[q]);
}

/* The vec argument of gip__wpc_store for a destination view. */
static inline int32_t gip__wpc_vec(const gip_image *dst)
{
    return (uintptr_t)dst->data % 16 == 0 && dst->stride % 16 == 0 ? 2
           : (uintptr_t)dst->data % 4 == 0 && dst->stride % 4 == 0 ? 1
                                                                   : 0;
}

#endif
