/* SPDX-License-Identifier: MIT */
/* resize's plan (OpenCV's coordinate tables, built once on the host) and the arithmetic of one
 * output element, written once for the CPU and the CUDA backend so that both give the same bits:
 * integer sums in the same types, single-precision products and sums in the same order and never
 * fused (the CUDA side uses the _rn intrinsics). */
#ifndef GIP_OPS_RESIZE_H
#define GIP_OPS_RESIZE_H

#include "gip/geometry.h"
#include "gip/op.h"
#include "internal.h"
#include "ops/geometry/geo_elem.h"

#if defined(__CUDACC__)
#define GIP__RS_HD __host__ __device__ __forceinline__
#else
#define GIP__RS_HD static inline
#endif

#if defined(__CUDA_ARCH__)
#define GIP__RS_MUL(a, b) __fmul_rn((a), (b))
#define GIP__RS_ADD(a, b) __fadd_rn((a), (b))
#define GIP__RS_DIV(a, b) __fdiv_rn((a), (b))
#else
#define GIP__RS_MUL(a, b) ((a) * (b))
#define GIP__RS_ADD(a, b) ((a) + (b))
#define GIP__RS_DIV(a, b) ((a) / (b))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* How the output is made. */
enum {
    GIP__RS_NEAREST = 0,  /* dst(x, y) = src(xi[x], yi[y]) */
    GIP__RS_SEP = 1,      /* horizontal taps per row, then vertical taps, then `final` */
    GIP__RS_AREA_FAST = 2 /* integer shrink factors: block sums */
};

/* How the vertical taps of GIP__RS_SEP are combined (OpenCV's VResize* of each case). */
enum {
    GIP__RS_LIN8 =
        0, /* u8 linear: (((b0 * (h0 >> 4)) >> 16) + ((b1 * (h1 >> 4)) >> 16) + 2) >> 2 */
    GIP__RS_CUBIC8 = 1,  /* u8 cubic: float lanes below simd_end, (sum + 2^21) >> 22 after */
    GIP__RS_SHIFT22 = 2, /* u8 Lanczos: (sum + 2^21) >> 22, saturated */
    GIP__RS_FIX8 = 3,    /* u8 linear-exact: (sum + 2^15) >> 16 of 8-bit fixed-point rows */
    GIP__RS_FIX16 = 4,   /* u16 linear-exact: (sum + 2^31) >> 32 of 16-bit fixed-point rows */
    GIP__RS_FSEQ = 5,    /* float: b0 h0 + b1 h1 + ... left to right, then saturate_cast */
    GIP__RS_FCUBIC = 6,  /* float cubic: h0 b0 + (h1 b1 + (h2 b2 + h3 b3)) below simd_end (OpenCV's
                            vector lanes), left to right after */
};

/* The plan: tables in one block (host memory, or a device copy with the same layout). */
typedef struct gip__resize_plan {
    int32_t kind, final;
    int32_t hfloat; /* horizontal sums in float (else integer) */
    int32_t h64;    /* integer horizontal sums need 64 bits (u16 linear-exact) */
    int32_t cn;
    gip_dtype dtype;
    int64_t sw, sh, dw, dh;
    int32_t kx, ky;   /* taps per output column / row (the stride of the tables) */
    int64_t simd_end; /* CUBIC8/FCUBIC: elements of a row (x * cn + c) that OpenCV's vector
                         loop computes */
    int32_t isx, isy; /* AREA_FAST: the integer factors */
    int32_t area2x2;  /* AREA_FAST: u8/u16 2x2 with (a + b + c + d + 2) >> 2 */
    /* Tables, indexes into one allocation: */
    const int32_t *xn, *yn;   /* taps of each column / row (NULL: kx / ky each) */
    const int32_t *xi, *yi;   /* source column / row of each tap, already inside the image */
    const int32_t *xci, *yci; /* integer coefficients */
    const float *xcf, *ycf;   /* float coefficients */
} gip__resize_plan;

/* Moves the plan's table pointers from the block `from` to its copy `to` (a device copy, or a
 * band's host copy). */
static inline void gip__rs_plan_rebase(gip__resize_plan *p, const void *from, void *to)
{
#define GIP__RS_REBASE(q)                                                                          \
    if (p->q)                                                                                      \
        p->q = (const __typeof__(*p->q) *)((const char *)to +                                      \
                                           ((const char *)p->q - (const char *)from));
    GIP__RS_REBASE(xn)
    GIP__RS_REBASE(yn)
    GIP__RS_REBASE(xi)
    GIP__RS_REBASE(yi)
    GIP__RS_REBASE(xci)
    GIP__RS_REBASE(yci)
    GIP__RS_REBASE(xcf)
    GIP__RS_REBASE(ycf)
#undef GIP__RS_REBASE
}

/* Builds the plan of resizing a sw x sh image with cn channels of dtype into dw x dh with
 * OpenCV's scale factors inv_x = dw / sw (or fx), inv_y. *block is one malloc'd allocation the
 * plan's tables point into (free() it); *bytes its size. */
gip_status gip__resize_plan_build(gip_context *ctx, gip__resize_plan *plan, void **block,
                                  size_t *bytes, int64_t sw, int64_t sh, int32_t cn,
                                  gip_dtype dtype, int64_t dw, int64_t dh, double inv_x,
                                  double inv_y, int32_t interpolation, int32_t antialias);

/* Checks the views and the interpolation and resizes src into dst with OpenCV's scale factors
 * inv_x, inv_y (dst / src sizes, or fx and fy); `antialias` as gip_resize_params'. */
gip_status gip__resize_run(gip_context *ctx, const gip_image *src, gip_image *dst, int32_t interp,
                           int32_t antialias, double inv_x, double inv_y);

/* Row bands of a resize of `in` into dw x dh (OpenCV's scale factors inv_x, inv_y): the source
 * rows [*s0, *s1) that output rows [y0, y1) read. */
gip_status gip__resize_band_rows(const gip_shape *in, int64_t dw, int64_t dh, int32_t interp,
                                 int32_t antialias, double inv_x, double inv_y, int64_t y0,
                                 int64_t y1, int64_t *s0, int64_t *s1);
/* Output rows [y0, y0 + dst->height) of the resize of an src->width x sh image into
 * dst->width x dh, from src, which holds source rows [s0, s0 + src->height): equal to those rows
 * of the whole resize. */
gip_status gip__resize_run_band(gip_context *ctx, const gip_image *src, int64_t s0, int64_t sh,
                                gip_image *dst, int64_t y0, int64_t dh, int32_t interp,
                                int32_t antialias, double inv_x, double inv_y);

/* Where a source view lies in a whole image: its first column and row, and the whole's size. */
typedef struct gip__rs_part {
    int64_t x, y, w, h;
} gip__rs_part;

/* Output columns [x0, x0 + dst->width) and rows [y0, y0 + dst->height) of the resize of a whole
 * image into dw x dh (the dst / src scale factors), host views only: equal to that window of the
 * whole resize, of which nothing else is computed. src is the whole image (part NULL) or the part
 * of it that `part` places, which must hold every source pixel the window reads
 * (gip__resize_window_source); GIP_ERR_UNSUPPORTED where the plan is not separable (nearest,
 * integer area shrinks): the caller resizes the whole image then. */
gip_status gip__resize_window(gip_context *ctx, const gip_image *src, const gip__rs_part *part,
                              gip_image *dst, int64_t dw, int64_t dh, int64_t x0, int64_t y0,
                              int32_t interp, int32_t antialias);

/* The source rectangle *need (x, y, width, height in the whole image `in`) that output window
 * (x0, y0, w, h) of its resize into dw x dh reads. GIP_ERR_UNSUPPORTED as gip__resize_window. */
gip_status gip__resize_window_source(const gip_shape *in, int64_t dw, int64_t dh, int64_t x0,
                                     int64_t y0, int64_t w, int64_t h, int32_t interp,
                                     int32_t antialias, gip__rs_part *need);

/* Runs a plan on device views (its tables in host memory: copied to the device here). */
gip_status gip__resize_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                            const gip__resize_plan *plan, const void *block, size_t bytes);

/* Resizes device views (checked by gip__resize_run) with the plan of this geometry kept on the
 * device for ctx: built and copied on the first call only. */
gip_status gip__resize_cuda_run(gip_context *ctx, const gip_image *src, gip_image *dst,
                                int32_t interp, int32_t antialias, double inv_x, double inv_y);

/* ---- one output element ------------------------------------------------------------------- */

GIP__RS_HD void gip__rs_storei(uint8_t *row, int64_t e, gip_dtype dt, int64_t v)
{
    if (dt == GIP_U8)
        row[e] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    else
        ((uint16_t *)row)[e] = (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v);
}

/* The horizontal sum of column dx, channel c, of one source row. */
GIP__RS_HD int64_t gip__rs_hint(const gip__resize_plan *p, const uint8_t *row, int64_t dx,
                                int32_t c)
{
    const int32_t n = p->xn ? p->xn[dx] : p->kx;
    const int32_t *xi = p->xi + dx * p->kx, *xc = p->xci + dx * p->kx;
    if (p->h64) {
        uint64_t s = 0;
        for (int32_t k = 0; k < n; k++)
            s += (uint64_t)(uint32_t)gip__geo_loadi(row, (int64_t)xi[k] * p->cn + c, p->dtype) *
                 (uint32_t)xc[k];
        return (int64_t)s;
    }
    int32_t s = 0;
    for (int32_t k = 0; k < n; k++)
        s += gip__geo_loadi(row, (int64_t)xi[k] * p->cn + c, p->dtype) * xc[k];
    return s;
}

GIP__RS_HD float gip__rs_hfloat(const gip__resize_plan *p, const uint8_t *row, int64_t dx,
                                int32_t c)
{
    const int32_t n = p->xn ? p->xn[dx] : p->kx;
    const int32_t *xi = p->xi + dx * p->kx;
    const float *xc = p->xcf + dx * p->kx;
    float s = GIP__RS_MUL(gip__geo_loadf(row, (int64_t)xi[0] * p->cn + c, p->dtype), xc[0]);
    for (int32_t k = 1; k < n; k++)
        s = GIP__RS_ADD(
            s, GIP__RS_MUL(gip__geo_loadf(row, (int64_t)xi[k] * p->cn + c, p->dtype), xc[k]));
    return s;
}

/* The vertical combination, for element e of output row dy, of the horizontal sums h[k] of its
 * n source rows (OpenCV's VResize* of each case). */
GIP__RS_HD void gip__rs_vint(const gip__resize_plan *p, int64_t dy, int64_t e, const int64_t *h,
                             uint8_t *drow)
{
    const int32_t n = p->yn ? p->yn[dy] : p->ky;
    const int32_t *yc = p->yci + dy * p->ky;
    switch (p->final) {
    case GIP__RS_LIN8: {
        const int32_t h0 = (int32_t)h[0], h1 = (int32_t)h[1];
        drow[e] = (uint8_t)((((yc[0] * (h0 >> 4)) >> 16) + ((yc[1] * (h1 >> 4)) >> 16) + 2) >> 2);
        return;
    }
    case GIP__RS_CUBIC8: {
        if (e < p->simd_end) {
            /* OpenCV's vector lanes: float, coefficients scaled by 2^-22, nested sums. */
            const float sc = 1.f / (2048 * 2048);
            float t = GIP__RS_MUL((float)(int32_t)h[3], (float)yc[3] * sc);
            t = GIP__RS_ADD(GIP__RS_MUL((float)(int32_t)h[2], (float)yc[2] * sc), t);
            t = GIP__RS_ADD(GIP__RS_MUL((float)(int32_t)h[1], (float)yc[1] * sc), t);
            t = GIP__RS_ADD(GIP__RS_MUL((float)(int32_t)h[0], (float)yc[0] * sc), t);
            drow[e] = gip__sat_u8_f32(t);
            return;
        }
        const int32_t s = (int32_t)h[0] * yc[0] + (int32_t)h[1] * yc[1] + (int32_t)h[2] * yc[2] +
                          (int32_t)h[3] * yc[3];
        gip__rs_storei(drow, e, GIP_U8, (s + (1 << 21)) >> 22);
        return;
    }
    case GIP__RS_SHIFT22: {
        int32_t s = 0;
        for (int32_t k = 0; k < n; k++)
            s += (int32_t)h[k] * yc[k];
        gip__rs_storei(drow, e, GIP_U8, (s + (1 << 21)) >> 22);
        return;
    }
    case GIP__RS_FIX8: {
        uint32_t s = 0;
        for (int32_t k = 0; k < n; k++)
            s += (uint32_t)h[k] * (uint32_t)yc[k];
        gip__rs_storei(drow, e, GIP_U8, (int64_t)((s + (1u << 15)) >> 16));
        return;
    }
    default: { /* GIP__RS_FIX16 */
        uint64_t s = 0;
        for (int32_t k = 0; k < n; k++)
            s += (uint64_t)h[k] * (uint32_t)yc[k];
        gip__rs_storei(drow, e, GIP_U16, (int64_t)((s + (1ull << 31)) >> 32));
        return;
    }
    }
}

GIP__RS_HD void gip__rs_vflt(const gip__resize_plan *p, int64_t dy, int64_t e, const float *h,
                             uint8_t *drow)
{
    const int32_t n = p->yn ? p->yn[dy] : p->ky;
    const float *yc = p->ycf + dy * p->ky;
    if (p->final == GIP__RS_FCUBIC && e < p->simd_end) {
        float t = GIP__RS_MUL(h[3], yc[3]);
        t = GIP__RS_ADD(GIP__RS_MUL(h[2], yc[2]), t);
        t = GIP__RS_ADD(GIP__RS_MUL(h[1], yc[1]), t);
        t = GIP__RS_ADD(GIP__RS_MUL(h[0], yc[0]), t);
        gip__geo_storef(drow, e, p->dtype, t);
        return;
    }
    float s = GIP__RS_MUL(h[0], yc[0]);
    for (int32_t k = 1; k < n; k++)
        s = GIP__RS_ADD(s, GIP__RS_MUL(h[k], yc[k]));
    gip__geo_storef(drow, e, p->dtype, s);
}

/* Separable case: element (dx, c) of output row dy, the horizontal sums made here (the CUDA
 * backend; the CPU makes whole rows of them once and calls gip__rs_vint/gip__rs_vflt). */
GIP__RS_HD void gip__rs_sep(const gip__resize_plan *p, const uint8_t *src, int64_t sstride,
                            uint8_t *drow, int64_t dy, int64_t dx, int32_t c)
{
    const int32_t n = p->yn ? p->yn[dy] : p->ky;
    const int32_t *yi = p->yi + dy * p->ky;
    const int64_t e = dx * p->cn + c;
    if (p->hfloat) {
        if (n <= 8) {
            float h[8] = {0};
            for (int32_t k = 0; k < n; k++)
                h[k] = gip__rs_hfloat(p, src + yi[k] * sstride, dx, c);
            gip__rs_vflt(p, dy, e, h, drow);
            return;
        }
        /* many rows (area): the same sum as gip__rs_vflt, streamed */
        const float *yc = p->ycf + dy * p->ky;
        float s = GIP__RS_MUL(gip__rs_hfloat(p, src + yi[0] * sstride, dx, c), yc[0]);
        for (int32_t k = 1; k < n; k++)
            s = GIP__RS_ADD(s, GIP__RS_MUL(gip__rs_hfloat(p, src + yi[k] * sstride, dx, c), yc[k]));
        gip__geo_storef(drow, e, p->dtype, s);
        return;
    }
    int64_t h[8] = {0};
    for (int32_t k = 0; k < n && k < 8; k++)
        h[k] = gip__rs_hint(p, src + yi[k] * sstride, dx, c);
    gip__rs_vint(p, dy, e, h, drow);
}

/* Integer-factor shrink (OpenCV's resizeAreaFast): element (dx, c) of output row dy. */
GIP__RS_HD void gip__rs_area_fast(const gip__resize_plan *p, const uint8_t *src, int64_t sstride,
                                  uint8_t *drow, int64_t dy, int64_t dx, int32_t c)
{
    const int64_t sy0 = dy * p->isy, sx0 = dx * p->isx;
    const int64_t e = dx * p->cn + c;
    const int32_t cn = p->cn;
    const gip_dtype dt = p->dtype;
    const int full = sy0 + p->isy <= p->sh && dx < p->sw / p->isx;
    if (full && p->area2x2) {
        const uint8_t *r0 = src + sy0 * sstride, *r1 = r0 + sstride;
        const int32_t s =
            gip__geo_loadi(r0, sx0 * cn + c, dt) + gip__geo_loadi(r0, (sx0 + 1) * cn + c, dt) +
            gip__geo_loadi(r1, sx0 * cn + c, dt) + gip__geo_loadi(r1, (sx0 + 1) * cn + c, dt);
        gip__rs_storei(drow, e, dt, (s + 2) >> 2);
        return;
    }
    if (full) {
        /* The sum over the block in OpenCV's order: rows, then columns, four at a time. */
        const int32_t area = p->isx * p->isy;
        const float scale = 1.f / (float)area;
        if (dt == GIP_U8) {
            int32_t s = 0;
            for (int32_t k = 0; k < area; k++)
                s += src[(sy0 + k / p->isx) * sstride + (sx0 + k % p->isx) * cn + c];
            drow[e] = gip__sat_u8_f32(GIP__RS_MUL((float)s, scale));
            return;
        }
        float s = 0.f;
        int32_t k = 0;
        for (; k <= area - 4; k += 4) {
            float t = 0.f;
            for (int32_t j = 0; j < 4; j++) {
                const int32_t kk = k + j;
                const float v = gip__geo_loadf(src + (sy0 + kk / p->isx) * sstride,
                                               (sx0 + kk % p->isx) * cn + c, dt);
                t = j ? GIP__RS_ADD(t, v) : v;
            }
            s = GIP__RS_ADD(s, t);
        }
        for (; k < area; k++)
            s = GIP__RS_ADD(s, gip__geo_loadf(src + (sy0 + k / p->isx) * sstride,
                                              (sx0 + k % p->isx) * cn + c, dt));
        gip__geo_storef(drow, e, dt, GIP__RS_MUL(s, scale));
        return;
    }
    /* A block cut by the image's edge: the mean of what is inside. */
    int32_t count = 0, si = 0;
    float sf = 0.f;
    for (int64_t sy = sy0; sy < sy0 + p->isy && sy < p->sh; sy++)
        for (int64_t sx = sx0; sx < sx0 + p->isx && sx < p->sw; sx++) {
            if (dt == GIP_U8)
                si += src[sy * sstride + sx * cn + c];
            else
                sf = GIP__RS_ADD(sf, gip__geo_loadf(src + sy * sstride, sx * cn + c, dt));
            count++;
        }
    if (!count) {
        gip__geo_storef(drow, e, dt, 0.f);
        return;
    }
    gip__geo_storef(drow, e, dt, GIP__RS_DIV(dt == GIP_U8 ? (float)si : sf, (float)count));
}

GIP__RS_HD void gip__rs_nearest(const gip__resize_plan *p, const uint8_t *src, int64_t sstride,
                                uint8_t *drow, int64_t dy, int64_t dx)
{
    const size_t px = (size_t)p->cn * (p->dtype == GIP_U8 ? 1 : p->dtype == GIP_U16 ? 2 : 4);
    const uint8_t *s = src + (int64_t)p->yi[dy] * sstride + (int64_t)p->xi[dx] * (int64_t)px;
    uint8_t *d = drow + dx * (int64_t)px;
    for (size_t i = 0; i < px; i++)
        d[i] = s[i];
}

#ifdef __cplusplus
}
#endif
#endif
