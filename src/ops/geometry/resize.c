/* SPDX-License-Identifier: MIT */
/* resize, as cv2.resize: OpenCV's rules for the output size and the scale factors, its
 * coordinate tables for every interpolation (built here, on the host, for both backends), the
 * CPU backend, gip_resize() and the registry's description. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/geometry/resize.h"
#include "ops/op_check.h"
#include "registry/registry.h"
#include "tuning.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Single-precision arithmetic must not be fused into multiply-adds: OpenCV's is not. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

#define COEF_BITS 11
#define COEF_SCALE (1 << COEF_BITS)

/* OpenCV's saturate_cast<int>(double) and cvFloor. */
static int64_t round_even(double v)
{
    return (int64_t)nearbyint(v);
}

static int32_t sat_short(float v)
{
    const long r = lrintf(v);
    return (int32_t)(r < -32768 ? -32768 : r > 32767 ? 32767 : r);
}

gip_status gip_resize_size(int64_t sw, int64_t sh, int64_t dw, int64_t dh, double fx, double fy,
                           int64_t *out_w, int64_t *out_h)
{
    static const char op[] = "gip_resize_size";
    if (!out_w || !out_h)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: out_w and out_h must not be NULL",
                          op);
    if (sw < 1 || sh < 1 || sw > GIP_MAX_DIM || sh > GIP_MAX_DIM)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "%s: the source is %lldx%lld; each side must be in 1..%lld", op,
                          (long long)sw, (long long)sh, (long long)GIP_MAX_DIM);
    if (dw < 0 || dh < 0 || dw > GIP_MAX_DIM || dh > GIP_MAX_DIM)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "resize: dsize %lldx%lld is out of range (0..%lld each)", (long long)dw,
                          (long long)dh, (long long)GIP_MAX_DIM);
    if (dw > 0 && dh > 0) {
        *out_w = dw;
        *out_h = dh;
        return GIP_OK;
    }
    if (!(fx > 0) || !(fy > 0) || !isfinite(fx) || !isfinite(fy))
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "resize: give dsize (both sides > 0) or both fx and fy > 0 "
                          "(got dsize %lldx%lld, fx %g, fy %g)",
                          (long long)dw, (long long)dh, fx, fy);
    const double w = nearbyint((double)sw * fx), h = nearbyint((double)sh * fy);
    if (w < 1 || h < 1 || w > (double)GIP_MAX_DIM || h > (double)GIP_MAX_DIM)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "resize: fx %g, fy %g make a %.0fx%.0f image from %lldx%lld; each side "
                          "must be in 1..%lld",
                          fx, fy, w, h, (long long)sw, (long long)sh, (long long)GIP_MAX_DIM);
    *out_w = (int64_t)w;
    *out_h = (int64_t)h;
    return GIP_OK;
}

/* ---- coefficient tables ------------------------------------------------------------------- */

static void cubic_coeffs(float x, float *c)
{
    const float A = -0.75f;
    c[0] = ((A * (x + 1) - 5 * A) * (x + 1) + 8 * A) * (x + 1) - 4 * A;
    c[1] = ((A + 2) * x - (A + 3)) * x * x + 1;
    c[2] = ((A + 2) * (1 - x) - (A + 3)) * (1 - x) * (1 - x) + 1;
    c[3] = 1.f - c[0] - c[1] - c[2];
}

static void lanczos4_coeffs(float x, float *c)
{
    static const double s45 = 0.70710678118654752440084436210485;
    static const double cs[][2] = {{1, 0},  {-s45, -s45}, {0, 1},  {s45, -s45},
                                   {-1, 0}, {s45, s45},   {0, -1}, {-s45, s45}};
    const double pi = 3.1415926535897932384626433832795;
    if (x < FLT_EPSILON) {
        for (int i = 0; i < 8; i++)
            c[i] = 0;
        c[3] = 1;
        return;
    }
    float sum = 0;
    const double y0 = -(x + 3) * pi * 0.25, s0 = sin(y0), c0 = cos(y0);
    for (int i = 0; i < 8; i++) {
        const double y = -(x + 3 - i) * pi * 0.25;
        c[i] = (float)((cs[i][0] * s0 + cs[i][1] * c0) / (y * y));
        sum += c[i];
    }
    sum = 1.f / sum;
    for (int i = 0; i < 8; i++)
        c[i] *= sum;
}

/* One axis of OpenCV's generic resize (linear, cubic, Lanczos, and area when enlarging): the
 * first source index and the coefficients of each output index, taps clamped into the image.
 * `clamp_lin` is OpenCV's horizontal rule that pulls linear taps outside the image back to its
 * edge (the vertical axis does not have it). */
static void generic_axis(int64_t sn, int64_t dn, double scale, double inv, int32_t interp,
                         int area_mode, int fixpt, int clamp_lin, int32_t k, int32_t *idx,
                         int32_t *ci, float *cf)
{
    const int32_t k2 = k / 2;
    const int lin = interp != GIP_INTER_CUBIC && interp != GIP_INTER_LANCZOS4;
    for (int64_t d = 0; d < dn; d++) {
        float f;
        int64_t s;
        if (!area_mode) {
            f = (float)((d + 0.5) * scale - 0.5);
            s = (int64_t)floorf(f);
            f -= (float)s;
        } else {
            s = (int64_t)floor(d * scale);
            f = (float)((d + 1) - (s + 1) * inv);
            f = f <= 0 ? 0.f : f - floorf(f);
        }
        if (clamp_lin && lin) {
            if (s < 0)
                f = 0, s = 0;
            if (s >= sn - 1)
                f = 0, s = sn - 1;
        }
        float cb[8];
        if (interp == GIP_INTER_CUBIC)
            cubic_coeffs(f, cb);
        else if (interp == GIP_INTER_LANCZOS4)
            lanczos4_coeffs(f, cb);
        else {
            cb[0] = 1.f - f;
            cb[1] = f;
        }
        for (int32_t j = 0; j < k; j++) {
            int64_t t = s - k2 + 1 + j;
            t = t < 0 ? 0 : t >= sn ? sn - 1 : t;
            idx[d * k + j] = (int32_t)t;
            if (fixpt)
                ci[d * k + j] = sat_short(cb[j] * COEF_SCALE);
            else
                cf[d * k + j] = cb[j];
        }
    }
}

/* One axis of OpenCV's bit-exact linear resize (resize_bitExact with interpolationLinear):
 * `one` is 256 (u8) or 65536 (u16) fixed-point. */
static void exact_axis(int64_t sn, int64_t dn, double inv, int32_t one, int32_t *idx, int32_t *ci)
{
    const double scale = 1.0 / inv;
    int64_t minofs = 0, maxofs = dn;
    for (int64_t d = 0; d < dn; d++) {
        const double fv = scale * ((double)d + 0.5) - 0.5;
        const int64_t iv = (int64_t)floor(fv);
        idx[2 * d] = idx[2 * d + 1] = 0;
        ci[2 * d] = one;
        ci[2 * d + 1] = 0;
        if (iv >= 0 && sn > 1) {
            if (iv < sn - 1) {
                const int32_t c1 = (int32_t)round_even((fv - (double)iv) * one);
                idx[2 * d] = (int32_t)iv;
                idx[2 * d + 1] = (int32_t)iv + 1;
                ci[2 * d] = one - c1;
                ci[2 * d + 1] = c1;
            } else {
                if (d < maxofs)
                    maxofs = d;
            }
        } else if (d + 1 > minofs) {
            minofs = d + 1;
        }
    }
    /* Left of the image: its first pixel; right: the last offset, whole. */
    for (int64_t d = 0; d < dn; d++) {
        if (d < minofs || d >= maxofs) {
            const int32_t at = d < minofs ? 0 : (int32_t)(sn - 1);
            idx[2 * d] = idx[2 * d + 1] = at;
            ci[2 * d] = one;
            ci[2 * d + 1] = 0;
        }
    }
}

/* OpenCV's computeResizeAreaTab: (source index, weight) entries in output order; returns how many.
 */
typedef struct area_entry {
    int32_t di, si;
    float alpha;
} area_entry;

static int64_t area_tab(int64_t ssize, int64_t dsize, double scale, area_entry *tab)
{
    int64_t k = 0;
    for (int64_t dx = 0; dx < dsize; dx++) {
        const double fsx1 = dx * scale, fsx2 = fsx1 + scale;
        const double cell = fmin(scale, (double)ssize - fsx1);
        int64_t sx1 = (int64_t)ceil(fsx1), sx2 = (int64_t)floor(fsx2);
        sx2 = sx2 < ssize - 1 ? sx2 : ssize - 1;
        sx1 = sx1 < sx2 ? sx1 : sx2;
        if (sx1 - fsx1 > 1e-3)
            tab[k++] = (area_entry){(int32_t)dx, (int32_t)(sx1 - 1), (float)((sx1 - fsx1) / cell)};
        for (int64_t sx = sx1; sx < sx2; sx++)
            tab[k++] = (area_entry){(int32_t)dx, (int32_t)sx, (float)(1.0 / cell)};
        if (fsx2 - sx2 > 1e-3)
            tab[k++] = (area_entry){(int32_t)dx, (int32_t)sx2,
                                    (float)(fmin(fmin(fsx2 - sx2, 1.), cell) / cell)};
    }
    return k;
}

/* Pillow's and torchvision's antialiased filters. */
static double aa_filter(double x, int cubic)
{
    x = fabs(x);
    if (!cubic)
        return x < 1.0 ? 1.0 - x : 0.0;
    const double a = -0.5;
    if (x < 1.0)
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
    if (x < 2.0)
        return (((x - 5) * x + 8) * x - 4) * a;
    return 0.0;
}

/* ---- the plan ----------------------------------------------------------------------------- */

typedef struct axis_tab {
    int32_t k;        /* taps stride */
    int32_t variable; /* counts per output index */
} axis_tab;

/* Lays out the tables of plan p in one block: xi, xc, yi, yc, then the counts. */
static gip_status plan_alloc(gip_context *ctx, gip__resize_plan *p, void **block, size_t *bytes,
                             axis_tab ax, axis_tab ay, int hfloat, int vfloat)
{
    const size_t nx = (size_t)p->dw * (size_t)ax.k, ny = (size_t)p->dh * (size_t)ay.k;
    const size_t n =
        2 * nx + 2 * ny + (ax.variable ? (size_t)p->dw : 0) + (ay.variable ? (size_t)p->dh : 0);
    int32_t *b = calloc(n ? n : 1, sizeof(int32_t));
    if (!b)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "resize: out of memory for %zu-byte tables",
                          n * sizeof(int32_t));
    int32_t *q = b;
    p->kx = ax.k;
    p->ky = ay.k;
    p->xi = q;
    if (hfloat)
        p->xcf = (float *)(q + nx);
    else
        p->xci = q + nx;
    q += 2 * nx;
    p->yi = q;
    if (vfloat)
        p->ycf = (float *)(q + ny);
    else
        p->yci = q + ny;
    q += 2 * ny;
    if (ax.variable) {
        p->xn = q;
        q += p->dw;
    }
    if (ay.variable)
        p->yn = q;
    *block = b;
    *bytes = n * sizeof(int32_t);
    return GIP_OK;
}

static gip_status plan_nearest(gip_context *ctx, gip__resize_plan *p, void **block, size_t *bytes,
                               double inv_x, double inv_y, int exact, int copy)
{
    p->kind = GIP__RS_NEAREST;
    gip_status st = plan_alloc(ctx, p, block, bytes, (axis_tab){1, 0}, (axis_tab){1, 0}, 0, 0);
    if (st)
        return st;
    int32_t *xi = (int32_t *)p->xi, *yi = (int32_t *)p->yi;
    for (int a = 0; a < 2; a++) {
        const int64_t sn = a ? p->sh : p->sw, dn = a ? p->dh : p->dw;
        int32_t *t = a ? yi : xi;
        const double ifx = 1. / (a ? inv_y : inv_x);
        /* nearest-exact: pixel centres, the position accumulated in double as OpenCV 5 does */
        const double step = (double)sn / (double)dn;
        double f = step * 0.5;
        for (int64_t d = 0; d < dn; d++, f += step) {
            int64_t s = copy ? d : exact ? (int64_t)floor(f) : (int64_t)floor((double)d * ifx);
            t[d] = (int32_t)(s < sn - 1 ? s : sn - 1);
        }
    }
    return GIP_OK;
}

static gip_status plan_antialias(gip_context *ctx, gip__resize_plan *p, void **block, size_t *bytes,
                                 int cubic)
{
    p->kind = GIP__RS_SEP;
    p->hfloat = 1;
    p->final = GIP__RS_FSEQ;
    axis_tab t[2];
    double scale[2], support[2];
    for (int a = 0; a < 2; a++) {
        const int64_t sn = a ? p->sh : p->sw, dn = a ? p->dh : p->dw;
        scale[a] = (double)sn / (double)dn;
        support[a] = (cubic ? 2.0 : 1.0) * (scale[a] > 1.0 ? scale[a] : 1.0);
        t[a] = (axis_tab){(int32_t)ceil(support[a]) * 2 + 1, 1};
    }
    gip_status st = plan_alloc(ctx, p, block, bytes, t[0], t[1], 1, 1);
    if (st)
        return st;
    double *w = malloc(sizeof(double) * (size_t)(t[0].k > t[1].k ? t[0].k : t[1].k));
    if (!w) {
        free(*block);
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "resize: out of memory");
    }
    for (int a = 0; a < 2; a++) {
        const int64_t sn = a ? p->sh : p->sw, dn = a ? p->dh : p->dw;
        const int32_t k = t[a].k;
        int32_t *idx = (int32_t *)(a ? p->yi : p->xi), *cnt = (int32_t *)(a ? p->yn : p->xn);
        float *cf = (float *)(a ? p->ycf : p->xcf);
        const double ss = scale[a] > 1.0 ? scale[a] : 1.0;
        for (int64_t d = 0; d < dn; d++) {
            const double center = ((double)d + 0.5) * scale[a];
            int64_t lo = (int64_t)floor(center - support[a] + 0.5);
            int64_t hi = (int64_t)floor(center + support[a] + 0.5);
            lo = lo < 0 ? 0 : lo;
            hi = hi > sn ? sn : hi;
            int32_t n = (int32_t)(hi - lo);
            if (n > k)
                n = k;
            if (n < 1) { /* cannot happen for sn >= 1; keeps the table well formed */
                n = 1;
                lo = lo < sn ? lo : sn - 1;
            }
            double total = 0;
            for (int32_t j = 0; j < n; j++) {
                w[j] = aa_filter(((double)(j + lo) - center + 0.5) / ss, cubic);
                total += w[j];
            }
            for (int32_t j = 0; j < n; j++) {
                idx[d * k + j] = (int32_t)(lo + j);
                cf[d * k + j] = (float)(total != 0 ? w[j] / total : (j == 0));
            }
            cnt[d] = n;
        }
    }
    free(w);
    return GIP_OK;
}

static gip_status plan_area(gip_context *ctx, gip__resize_plan *p, void **block, size_t *bytes,
                            double scale_x, double scale_y)
{
    p->kind = GIP__RS_SEP;
    p->hfloat = 1;
    p->final = GIP__RS_FSEQ;
    area_entry *tab = malloc(sizeof(area_entry) * (size_t)(2 * (p->sw + p->sh) + 4));
    if (!tab)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "resize: out of memory");
    area_entry *xt = tab, *yt = tab + 2 * p->sw + 2;
    const int64_t nxt = area_tab(p->sw, p->dw, scale_x, xt);
    const int64_t nyt = area_tab(p->sh, p->dh, scale_y, yt);
    int32_t kmax[2] = {1, 1};
    for (int a = 0; a < 2; a++) {
        const area_entry *e = a ? yt : xt;
        const int64_t n = a ? nyt : nxt;
        for (int64_t i = 0, run = 0; i < n; i++) {
            run = i && e[i].di == e[i - 1].di ? run + 1 : 1;
            if (run > kmax[a])
                kmax[a] = (int32_t)run;
        }
    }
    gip_status st =
        plan_alloc(ctx, p, block, bytes, (axis_tab){kmax[0], 1}, (axis_tab){kmax[1], 1}, 1, 1);
    if (st) {
        free(tab);
        return st;
    }
    for (int a = 0; a < 2; a++) {
        const area_entry *e = a ? yt : xt;
        const int64_t n = a ? nyt : nxt;
        const int32_t k = kmax[a];
        int32_t *idx = (int32_t *)(a ? p->yi : p->xi), *cnt = (int32_t *)(a ? p->yn : p->xn);
        float *cf = (float *)(a ? p->ycf : p->xcf);
        for (int64_t i = 0; i < n; i++) {
            const int64_t d = e[i].di;
            const int32_t j = cnt[d]++;
            idx[d * k + j] = e[i].si;
            cf[d * k + j] = e[i].alpha;
        }
        /* An output index without entries (not made by OpenCV's tables) reads its neighbour. */
        const int64_t dn = a ? p->dh : p->dw, sn = a ? p->sh : p->sw;
        for (int64_t d = 0; d < dn; d++)
            if (!cnt[d]) {
                idx[d * k] = (int32_t)(d < sn ? d : sn - 1);
                cf[d * k] = 1.f;
                cnt[d] = 1;
            }
    }
    free(tab);
    return GIP_OK;
}

gip_status gip__resize_plan_build(gip_context *ctx, gip__resize_plan *p, void **block,
                                  size_t *bytes, int64_t sw, int64_t sh, int32_t cn, gip_dtype dt,
                                  int64_t dw, int64_t dh, double inv_x, double inv_y,
                                  int32_t interp, int32_t antialias)
{
    memset(p, 0, sizeof *p);
    *block = NULL;
    *bytes = 0;
    p->sw = sw;
    p->sh = sh;
    p->dw = dw;
    p->dh = dh;
    p->cn = cn;
    p->dtype = dt;
    if (dw == sw && dh == sh) /* OpenCV copies */
        return plan_nearest(ctx, p, block, bytes, 1, 1, 0, 1);
    if (antialias && (dw < sw || dh < sh))
        return plan_antialias(ctx, p, block, bytes, interp == GIP_INTER_CUBIC);
    if (interp == GIP_INTER_LINEAR_EXACT && dt == GIP_F32)
        interp = GIP_INTER_LINEAR;
    const double scale_x = 1. / inv_x, scale_y = 1. / inv_y;
    const int64_t isx = round_even(scale_x), isy = round_even(scale_y);
    const int area_fast =
        fabs(scale_x - (double)isx) < DBL_EPSILON && fabs(scale_y - (double)isy) < DBL_EPSILON;
    if ((interp == GIP_INTER_LINEAR_EXACT || interp == GIP_INTER_LINEAR) && area_fast && isx == 2 &&
        isy == 2)
        interp = GIP_INTER_AREA;
    if (interp == GIP_INTER_LINEAR_EXACT) {
        p->kind = GIP__RS_SEP;
        p->final = dt == GIP_U8 ? GIP__RS_FIX8 : GIP__RS_FIX16;
        p->h64 = dt != GIP_U8;
        gip_status st = plan_alloc(ctx, p, block, bytes, (axis_tab){2, 0}, (axis_tab){2, 0}, 0, 0);
        if (st)
            return st;
        const int32_t one = dt == GIP_U8 ? 256 : 65536;
        exact_axis(sw, dw, inv_x, one, (int32_t *)p->xi, (int32_t *)p->xci);
        exact_axis(sh, dh, inv_y, one, (int32_t *)p->yi, (int32_t *)p->yci);
        return GIP_OK;
    }
    if (interp == GIP_INTER_NEAREST || interp == GIP_INTER_NEAREST_EXACT)
        return plan_nearest(ctx, p, block, bytes, inv_x, inv_y, interp == GIP_INTER_NEAREST_EXACT,
                            0);
    if (interp == GIP_INTER_AREA && scale_x >= 1 && scale_y >= 1) {
        if (!area_fast)
            return plan_area(ctx, p, block, bytes, scale_x, scale_y);
        p->kind = GIP__RS_AREA_FAST;
        p->isx = (int32_t)isx;
        p->isy = (int32_t)isy;
        p->area2x2 = isx == 2 && isy == 2 && dt != GIP_F32;
        return GIP_OK;
    }
    /* The generic separable resize: linear, cubic, Lanczos, and area when enlarging. */
    const int fixpt = dt == GIP_U8;
    const int32_t k = interp == GIP_INTER_CUBIC ? 4 : interp == GIP_INTER_LANCZOS4 ? 8 : 2;
    p->kind = GIP__RS_SEP;
    p->hfloat = !fixpt;
    if (fixpt)
        p->final = k == 2 ? GIP__RS_LIN8 : k == 4 ? GIP__RS_CUBIC8 : GIP__RS_SHIFT22;
    else
        p->final = k == 4 ? GIP__RS_FCUBIC : GIP__RS_FSEQ;
    if (k == 4) { /* the elements of a row OpenCV's 128-bit vector loop computes */
        const int64_t width = dw * cn, lanes = dt == GIP_F32 ? 4 : 8;
        p->simd_end = width / lanes * lanes;
    }
    gip_status st =
        plan_alloc(ctx, p, block, bytes, (axis_tab){k, 0}, (axis_tab){k, 0}, !fixpt, !fixpt);
    if (st)
        return st;
    const int area_mode = interp == GIP_INTER_AREA;
    generic_axis(sw, dw, scale_x, inv_x, interp, area_mode, fixpt, 1, k, (int32_t *)p->xi,
                 (int32_t *)p->xci, (float *)p->xcf);
    generic_axis(sh, dh, scale_y, inv_y, interp, area_mode, fixpt, 0, k, (int32_t *)p->yi,
                 (int32_t *)p->yci, (float *)p->ycf);
    return GIP_OK;
}

/* ---- the CPU backend ---------------------------------------------------------------------- */

typedef struct resize_job {
    const gip__resize_plan *p;
    const gip_image *src;
    gip_image *dst;
} resize_job;

#if defined(__GNUC__)
#define RS_INLINE static inline __attribute__((always_inline))
#else
#define RS_INLINE static inline
#endif

/* Horizontal integer sums of one u8 source row with kx taps per column (gip__rs_hint's sums:
 * integer, so their order does not matter), cn and kx constants after inlining. */
RS_INLINE void hint_u8(const uint8_t *restrict row, int32_t *restrict h, const int32_t *restrict xi,
                       const int32_t *restrict xc, int64_t dw, int32_t cn, int32_t kx)
{
    for (int64_t x = 0; x < dw; x++) {
        const int32_t *ix = xi + x * kx, *cx = xc + x * kx;
        int32_t acc[4] = {0, 0, 0, 0};
        for (int32_t t = 0; t < kx; t++) {
            const uint8_t *s = row + (int64_t)ix[t] * cn;
            for (int32_t c = 0; c < cn; c++)
                acc[c] += s[c] * cx[t];
        }
        for (int32_t c = 0; c < cn; c++)
            h[x * cn + c] = acc[c];
    }
}

/* hint_u8() of one channel and two taps: 4 outputs whose taps are neighbours as 16-bit loads of
 * their byte pairs and one madd with the coefficient pairs (the coefficients fit 16 bits: they
 * are sat_short's or at most 256), the same integer sums. */
static void hint2_u8_c1(const uint8_t *restrict row, int32_t *restrict h,
                        const int32_t *restrict xi, const int32_t *restrict xc, int64_t dw)
{
    int64_t x = 0;
#if defined(__SSE2__)
    const __m128i z = _mm_setzero_si128();
    for (; x + 4 <= dw; x += 4) {
        const int32_t *ix = xi + 2 * x;
        if (ix[1] != ix[0] + 1 || ix[3] != ix[2] + 1 || ix[5] != ix[4] + 1 || ix[7] != ix[6] + 1) {
            hint_u8(row, h + x, ix, xc + 2 * x, 4, 1, 2);
            continue;
        }
        uint16_t q[4];
        for (int k = 0; k < 4; k++)
            memcpy(&q[k], row + ix[2 * k], 2);
        const __m128i ab = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)q), z);
        const __m128i c = _mm_packs_epi32(_mm_loadu_si128((const __m128i *)(xc + 2 * x)),
                                          _mm_loadu_si128((const __m128i *)(xc + 2 * x + 4)));
        _mm_storeu_si128((__m128i *)(h + x), _mm_madd_epi16(ab, c));
    }
#endif
    hint_u8(row, h + x, xi + 2 * x, xc + 2 * x, dw - x, 1, 2);
}

static void hint_u8_row(const gip__resize_plan *p, const uint8_t *row, int32_t *h)
{
    const int32_t *xi = p->xi, *xc = p->xci;
    const int64_t dw = p->dw;
    if (p->kx == 2 && p->cn == 1) {
        hint2_u8_c1(row, h, xi, xc, dw);
        return;
    }
#define RS_HINT_K(K)                                                                               \
    switch (p->cn) {                                                                               \
    case 1:                                                                                        \
        hint_u8(row, h, xi, xc, dw, 1, K);                                                         \
        return;                                                                                    \
    case 3:                                                                                        \
        hint_u8(row, h, xi, xc, dw, 3, K);                                                         \
        return;                                                                                    \
    default:                                                                                       \
        hint_u8(row, h, xi, xc, dw, 4, K);                                                         \
        return;                                                                                    \
    }
    switch (p->kx) {
    case 2:
        RS_HINT_K(2)
    case 4:
        RS_HINT_K(4)
    default:
        RS_HINT_K(8)
    }
#undef RS_HINT_K
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define RS_HAVE_AVX2 1
/* Horizontal u8 cubic of 3-channel pixels [x0, x1) with AVX2, two pixels a step: where a pixel's
 * four taps are adjacent and 16 bytes from the first are in the image, its 12 bytes are read
 * once and shuffled into the 16-bit pairs (tap 0, 1 and tap 2, 3 of each channel) that two
 * madds weight; the integer sums equal hcubic8_row()'s. Starts at pixel x and returns the first
 * pixel not done (x itself where its pair does not qualify). */
__attribute__((target("avx2"))) static int64_t
hcubic8_c3_avx2(const gip__resize_plan *p, const uint8_t *restrict row, int32_t *restrict h,
                const int16_t *restrict c16, int64_t x)
{
    const int32_t *xi = p->xi;
    const int64_t dw = p->dw, lim = p->sw * 3 - 16; /* the last first byte of a 16-byte read */
    const __m256i sa = _mm256_setr_epi8(0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1, 0,
                                        -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1);
    const __m256i sb = _mm256_setr_epi8(6, -1, 9, -1, 7, -1, 10, -1, 8, -1, 11, -1, -1, -1, -1, -1,
                                        6, -1, 9, -1, 7, -1, 10, -1, 8, -1, 11, -1, -1, -1, -1, -1);
    const __m256i i01 = _mm256_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2),
                  i23 = _mm256_setr_epi32(1, 1, 1, 1, 3, 3, 3, 3);
    for (; x + 2 <= dw; x += 2) {
        const int32_t *ix = xi + 4 * x;
        if (!(ix[1] == ix[0] + 1 && ix[2] == ix[0] + 2 && ix[3] == ix[0] + 3 &&
              ix[5] == ix[4] + 1 && ix[6] == ix[4] + 2 && ix[7] == ix[4] + 3 &&
              (int64_t)ix[0] * 3 <= lim && (int64_t)ix[4] * 3 <= lim))
            break;
        const __m256i v = _mm256_loadu2_m128i((const __m128i *)(row + (int64_t)ix[4] * 3),
                                              (const __m128i *)(row + (int64_t)ix[0] * 3));
        const __m256i c = _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(c16 + 4 * x)));
        const __m256i r = _mm256_add_epi32(
            _mm256_madd_epi16(_mm256_shuffle_epi8(v, sa), _mm256_permutevar8x32_epi32(c, i01)),
            _mm256_madd_epi16(_mm256_shuffle_epi8(v, sb), _mm256_permutevar8x32_epi32(c, i23)));
        _mm_storeu_si128((__m128i *)(h + x * 3), _mm256_castsi256_si128(r));
        _mm_storeu_si128((__m128i *)(h + x * 3 + 3), _mm256_extracti128_si256(r, 1));
    }
    return x;
}
#endif

#ifdef RS_HAVE_AVX2
/* u8 one-channel horizontal passes with 32 taps a group of output pixels (cubic: 8 pixels of
 * 4 taps, linear: 16 of 2), each half of a group (16 taps) within 16 bytes of the row. For group
 * g, gb[2 g + k] is the first byte of half k (gb[2 g] = -1: the group does not qualify, or 16
 * bytes from a half's first would pass the row's end) and ctl[32 g ..] the byte of each tap from
 * its half's first (pixel k's taps at kx k .. kx k + kx - 1). Built once a call, as the taps are
 * the same for every row; NULLs without memory (the passes then go without). */
static void h8_c1_plan(const gip__resize_plan *p, uint8_t **ctl_out, int32_t **gb_out)
{
    const int64_t groups = p->dw / (32 / p->kx);
    uint8_t *ctl = malloc((size_t)groups * 32);
    int32_t *gb = malloc(sizeof(int32_t) * 2 * (size_t)groups);
    *ctl_out = NULL;
    *gb_out = NULL;
    if (!ctl || !gb) {
        free(ctl);
        free(gb);
        return;
    }
    const int32_t *xi = p->xi;
    for (int64_t g = 0; g < groups; g++) {
        int ok = 1;
        for (int k = 0; k < 2; k++) {
            const int32_t *ix = xi + 32 * g + 16 * k;
            int32_t lo = ix[0], hi = ix[0];
            for (int t = 0; t < 16; t++) {
                lo = ix[t] < lo ? ix[t] : lo;
                hi = ix[t] > hi ? ix[t] : hi;
            }
            ok &= hi - lo < 16 && (int64_t)lo + 16 <= p->sw;
            gb[2 * g + k] = lo;
            for (int t = 0; t < 16; t++)
                ctl[32 * g + 16 * k + t] = (uint8_t)(ix[t] - lo);
        }
        if (!ok)
            gb[2 * g] = -1;
    }
    *ctl_out = ctl;
    *gb_out = gb;
}

/* hcubic8_row()'s one-channel sums for the groups that qualify, 8 pixels a step: two 16-byte
 * reads, one byte shuffle for the 32 taps, two madds and a horizontal add (the same integer
 * sums). Returns the first pixel not done (x itself where its group does not qualify). */
__attribute__((target("avx2"))) static int64_t
hcubic8_c1_avx2(const gip__resize_plan *p, const uint8_t *restrict row, int32_t *restrict h,
                const int16_t *restrict c16, const uint8_t *restrict ctl,
                const int32_t *restrict gb, int64_t x)
{
    const __m256i z = _mm256_setzero_si256();
    for (; x + 8 <= p->dw && x % 8 == 0 && gb[x / 4] >= 0; x += 8) {
        const __m256i s = _mm256_loadu2_m128i((const __m128i *)(row + gb[x / 4 + 1]),
                                              (const __m128i *)(row + gb[x / 4]));
        const __m256i b =
            _mm256_shuffle_epi8(s, _mm256_loadu_si256((const __m256i *)(ctl + 4 * x)));
        const int16_t *w = c16 + 4 * x; /* pixel k's 4 coefficients at 4 k */
        const __m256i ml =
            _mm256_madd_epi16(_mm256_unpacklo_epi8(b, z),
                              _mm256_loadu2_m128i((const __m128i *)(w + 16), (const __m128i *)w));
        const __m256i mh = _mm256_madd_epi16(
            _mm256_unpackhi_epi8(b, z),
            _mm256_loadu2_m128i((const __m128i *)(w + 24), (const __m128i *)(w + 8)));
        _mm256_storeu_si256((__m256i *)(h + x), _mm256_hadd_epi32(ml, mh));
    }
    return x;
}
#endif

/* Horizontal pass of u8 cubic (4 taps) into int32 rows (h may be written one element past the
 * row: its rows are padded); c16: the coefficients as int16 (sat_short's always fit), so that
 * taps 0, 1 and 2, 3 are each one madd of 16-bit pairs. */
static void hcubic8_row(const gip__resize_plan *p, const uint8_t *restrict row, int32_t *restrict h,
                        const int16_t *restrict c16, const uint8_t *restrict ctl,
                        const int32_t *restrict gb)
{
    const int32_t *xi = p->xi;
    const int32_t cn = p->cn;
    const int64_t dw = p->dw;
    int64_t x = 0;
#if defined(__SSE2__)
    const __m128i z = _mm_setzero_si128();
    if (cn == 1) {
        for (; x + 4 <= dw; x += 4) {
#ifdef RS_HAVE_AVX2
            if (gb && x % 8 == 0) {
                const int64_t nx = hcubic8_c1_avx2(p, row, h, c16, ctl, gb, x);
                if (nx != x) {
                    x = nx - 4;
                    continue;
                }
            }
#else
            (void)ctl;
            (void)gb;
#endif
            const int32_t *ix = xi + 4 * x;
            int adj = 1;
            for (int k = 0; k < 16; k += 4)
                adj &= ix[k + 1] == ix[k] + 1 && ix[k + 2] == ix[k] + 2 && ix[k + 3] == ix[k] + 3;
            if (!adj) {
                hint_u8(row, h + x, xi + 4 * x, p->xci + 4 * x, 4, 1, 4);
                continue;
            }
            int32_t q[4];
            for (int k = 0; k < 4; k++)
                memcpy(&q[k], row + ix[4 * k], 4);
            const __m128i v = _mm_loadu_si128((const __m128i *)q);
            const __m128i lo = _mm_madd_epi16(_mm_unpacklo_epi8(v, z),
                                              _mm_loadu_si128((const __m128i *)(c16 + 4 * x)));
            const __m128i hi = _mm_madd_epi16(_mm_unpackhi_epi8(v, z),
                                              _mm_loadu_si128((const __m128i *)(c16 + 4 * x + 8)));
            const __m128 l = _mm_castsi128_ps(lo), r = _mm_castsi128_ps(hi);
            const __m128i ev = _mm_castps_si128(_mm_shuffle_ps(l, r, _MM_SHUFFLE(2, 0, 2, 0)));
            const __m128i od = _mm_castps_si128(_mm_shuffle_ps(l, r, _MM_SHUFFLE(3, 1, 3, 1)));
            _mm_storeu_si128((__m128i *)(h + x), _mm_add_epi32(ev, od));
        }
    } else {
        /* a pixel's channels (4 bytes read) of taps 0, 1 and 2, 3 interleaved: two madds */
        const int64_t last = p->sw - 1; /* a tap there would read past the row (3 channels) */
#ifdef RS_HAVE_AVX2
        const int avx2 = cn == 3 && gip__simd_avx2_fma();
#endif
        for (; x < dw; x++) {
#ifdef RS_HAVE_AVX2
            if (avx2) {
                const int64_t nx = hcubic8_c3_avx2(p, row, h, c16, x);
                if (nx != x) {
                    x = nx - 1;
                    continue;
                }
            }
#endif
            const int32_t *ix = xi + 4 * x;
            if (cn == 3 && (ix[0] >= last || ix[1] >= last || ix[2] >= last || ix[3] >= last)) {
                hint_u8(row, h + x * cn, ix, p->xci + 4 * x, 1, 3, 4);
                continue;
            }
            int32_t v[4], cc[2];
            for (int k = 0; k < 4; k++)
                memcpy(&v[k], row + (int64_t)ix[k] * cn, 4);
            memcpy(cc, c16 + 4 * x, 8);
            const __m128i a = _mm_unpacklo_epi8(
                _mm_unpacklo_epi8(_mm_cvtsi32_si128(v[0]), _mm_cvtsi32_si128(v[1])), z);
            const __m128i b = _mm_unpacklo_epi8(
                _mm_unpacklo_epi8(_mm_cvtsi32_si128(v[2]), _mm_cvtsi32_si128(v[3])), z);
            const __m128i r = _mm_add_epi32(_mm_madd_epi16(a, _mm_set1_epi32(cc[0])),
                                            _mm_madd_epi16(b, _mm_set1_epi32(cc[1])));
            _mm_storeu_si128((__m128i *)(h + x * cn), r);
        }
    }
#endif
    if (x < dw) {
        if (cn == 1)
            hint_u8(row, h + x, xi + 4 * x, p->xci + 4 * x, dw - x, 1, 4);
        else if (cn == 3)
            hint_u8(row, h + x * 3, xi + 4 * x, p->xci + 4 * x, dw - x, 3, 4);
        else
            hint_u8(row, h + x * 4, xi + 4 * x, p->xci + 4 * x, dw - x, 4, 4);
    }
}

/* Horizontal float sums of one source row of T (gip__rs_hfloat's, in its order for each channel),
 * taps per column from xn or kx each. */
#define HFLT_T(NAME, T)                                                                            \
    RS_INLINE void hflt_##NAME(const uint8_t *restrict row8, float *restrict h,                    \
                               const int32_t *restrict xi, const float *restrict xc,               \
                               const int32_t *restrict xn, int32_t kx, int64_t dw, int32_t cn)     \
    {                                                                                              \
        const T *restrict row = (const T *)row8;                                                   \
        for (int64_t x = 0; x < dw; x++) {                                                         \
            const int32_t n = xn ? xn[x] : kx;                                                     \
            const int32_t *ix = xi + x * kx;                                                       \
            const float *cx = xc + x * kx;                                                         \
            float acc[4];                                                                          \
            const T *s = row + (int64_t)ix[0] * cn;                                                \
            for (int32_t c = 0; c < cn; c++)                                                       \
                acc[c] = GIP__RS_MUL((float)s[c], cx[0]);                                          \
            for (int32_t t = 1; t < n; t++) {                                                      \
                s = row + (int64_t)ix[t] * cn;                                                     \
                for (int32_t c = 0; c < cn; c++)                                                   \
                    acc[c] = GIP__RS_ADD(acc[c], GIP__RS_MUL((float)s[c], cx[t]));                 \
            }                                                                                      \
            for (int32_t c = 0; c < cn; c++)                                                       \
                h[x * cn + c] = acc[c];                                                            \
        }                                                                                          \
    }
HFLT_T(u8, uint8_t)
HFLT_T(u16, uint16_t)
HFLT_T(f32, float)

static void hflt_row(const gip__resize_plan *p, const uint8_t *row, float *h)
{
    /* the tap count a constant where every column has kx taps (2, 4, 8): loops unrolled */
#define HFLT_K(NAME, CN)                                                                           \
    if (!p->xn && p->kx == 2)                                                                      \
        hflt_##NAME(row, h, p->xi, p->xcf, NULL, 2, p->dw, CN);                                    \
    else if (!p->xn && p->kx == 4)                                                                 \
        hflt_##NAME(row, h, p->xi, p->xcf, NULL, 4, p->dw, CN);                                    \
    else if (!p->xn && p->kx == 8)                                                                 \
        hflt_##NAME(row, h, p->xi, p->xcf, NULL, 8, p->dw, CN);                                    \
    else                                                                                           \
        hflt_##NAME(row, h, p->xi, p->xcf, p->xn, p->kx, p->dw, CN);                               \
    return;
#define HFLT_CN(NAME)                                                                              \
    switch (p->cn) {                                                                               \
    case 1:                                                                                        \
        HFLT_K(NAME, 1)                                                                            \
    case 3:                                                                                        \
        HFLT_K(NAME, 3)                                                                            \
    case 4:                                                                                        \
        HFLT_K(NAME, 4)                                                                            \
    }
    if (p->dtype == GIP_U8) {
        HFLT_CN(u8)
    } else if (p->dtype == GIP_U16) {
        HFLT_CN(u16)
    } else {
        HFLT_CN(f32)
    }
#undef HFLT_CN
#undef HFLT_K
    for (int64_t x = 0; x < p->dw; x++)
        for (int32_t c = 0; c < p->cn; c++)
            h[x * p->cn + c] = gip__rs_hfloat(p, row, x, c);
}

#if defined(__SSE2__)
/* gip__sat_u8_f32 of 8 floats (finite): clamp to [-1, 256], round to nearest even (lrintf's
 * rounding, the default mode), saturate to 0..255. */
static inline __m128i sat_u8_f32x8(__m128 a, __m128 b)
{
    const __m128 lo = _mm_set1_ps(-1.f), hi = _mm_set1_ps(256.f);
    const __m128i ia = _mm_cvtps_epi32(_mm_min_ps(_mm_max_ps(a, lo), hi));
    const __m128i ib = _mm_cvtps_epi32(_mm_min_ps(_mm_max_ps(b, lo), hi));
    const __m128i w = _mm_packs_epi32(ia, ib);
    return _mm_packus_epi16(w, w);
}
#endif

/* gip__rs_vflt over a row: acc holds the running sums, element by element in its order. */
static void vflt_row(const gip__resize_plan *p, int64_t y, const float *const *rows, float *acc,
                     uint8_t *d)
{
    const int32_t n = p->yn ? p->yn[y] : p->ky;
    const float *yc = p->ycf + y * p->ky;
    const int64_t width = p->dw * p->cn;
    int64_t e0 = 0;
    if (p->final == GIP__RS_FCUBIC) {
        const float *restrict r0 = rows[0], *restrict r1 = rows[1], *restrict r2 = rows[2],
                              *restrict r3 = rows[3];
        const float c0 = yc[0], c1 = yc[1], c2 = yc[2], c3 = yc[3];
        float *restrict a = acc;
        e0 = p->simd_end;
        for (int64_t e = 0; e < e0; e++) {
            float t = GIP__RS_MUL(r3[e], c3);
            t = GIP__RS_ADD(GIP__RS_MUL(r2[e], c2), t);
            t = GIP__RS_ADD(GIP__RS_MUL(r1[e], c1), t);
            a[e] = GIP__RS_ADD(GIP__RS_MUL(r0[e], c0), t);
        }
    }
    {
        float *restrict a = acc;
        const float *restrict r = rows[0];
        const float c = yc[0];
        for (int64_t e = e0; e < width; e++)
            a[e] = GIP__RS_MUL(r[e], c);
    }
    for (int32_t k = 1; k < n; k++) {
        float *restrict a = acc;
        const float *restrict r = rows[k];
        const float c = yc[k];
        for (int64_t e = e0; e < width; e++)
            a[e] = GIP__RS_ADD(a[e], GIP__RS_MUL(r[e], c));
    }
    if (p->dtype == GIP_U8) {
        int64_t e = 0;
#if defined(__SSE2__)
        for (; e + 8 <= width; e += 8)
            _mm_storel_epi64((__m128i *)(d + e),
                             sat_u8_f32x8(_mm_loadu_ps(acc + e), _mm_loadu_ps(acc + e + 4)));
#endif
        for (; e < width; e++)
            d[e] = gip__sat_u8_f32(acc[e]);
    } else if (p->dtype == GIP_F32) {
        memcpy(d, acc, (size_t)width * sizeof(float));
    } else {
        uint16_t *restrict o = (uint16_t *)d;
        for (int64_t e = 0; e < width; e++)
            o[e] = gip__sat_u16_f32(acc[e]);
    }
}

/* u8 linear with 16-bit rows: each horizontal sum h is kept as h >> 4, which is all that LIN8
 * reads of it, and which fits 16 bits when |c0| + |c1| <= 2056 (sat_short's coefficients always
 * fit); (b * (h >> 4)) >> 16 is then the high half of a 16-bit product. */
static int lin8_s16_ok(const gip__resize_plan *p, int64_t y0, int64_t y1)
{
    if (p->dtype != GIP_U8 || p->final != GIP__RS_LIN8 || p->hfloat || p->xn || p->kx != 2)
        return 0;
    for (int64_t x = 0; x < p->dw; x++)
        if (abs(p->xci[2 * x]) + abs(p->xci[2 * x + 1]) > 2056)
            return 0;
    for (int64_t y = y0; y < y1; y++)
        if (abs(p->yci[2 * y]) > 2048 || abs(p->yci[2 * y + 1]) > 2048)
            return 0;
    return 1;
}

RS_INLINE void hlin8_s16_px(const uint8_t *row, int16_t *h, int64_t ia, int64_t ib, int32_t ca,
                            int32_t cb, int32_t cn)
{
    for (int32_t c = 0; c < cn; c++)
        h[c] = (int16_t)((row[ia + c] * ca + row[ib + c] * cb) >> 4);
}

#ifdef RS_HAVE_AVX2
/* hlin8_s16_row() for 3-channel pixels [x, ...) with AVX2, two pixels a step: where a pixel's
 * taps are neighbours and 16 bytes from the first are in the image, its 6 bytes are shuffled into
 * the 16-bit pairs that one madd weights (the same integer sums). Returns the first pixel not
 * done (x itself where its pair does not qualify). */
__attribute__((target("avx2"))) static int64_t hlin8_c3_avx2(const gip__resize_plan *p,
                                                             const uint8_t *restrict row,
                                                             int16_t *restrict h,
                                                             const int32_t *restrict ct, int64_t x)
{
    const int32_t *xi = p->xi;
    const int64_t dw = p->dw, lim = p->sw * 3 - 16; /* the last first byte of a 16-byte read */
    const __m256i sa = _mm256_setr_epi8(0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1, 0,
                                        -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1);
    const __m256i i01 = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
    for (; x + 2 <= dw; x += 2) {
        const int32_t *ix = xi + 2 * x;
        if (!(ix[1] == ix[0] + 1 && ix[3] == ix[2] + 1 && (int64_t)ix[0] * 3 <= lim &&
              (int64_t)ix[2] * 3 <= lim))
            break;
        const __m256i v = _mm256_loadu2_m128i((const __m128i *)(row + (int64_t)ix[2] * 3),
                                              (const __m128i *)(row + (int64_t)ix[0] * 3));
        const __m256i c = _mm256_permutevar8x32_epi32(
            _mm256_castsi128_si256(_mm_loadl_epi64((const __m128i *)(ct + x))), i01);
        const __m256i r = _mm256_srai_epi32(_mm256_madd_epi16(_mm256_shuffle_epi8(v, sa), c), 4);
        const __m256i s = _mm256_packs_epi32(r, r);
        _mm_storel_epi64((__m128i *)(h + x * 3), _mm256_castsi256_si128(s));
        _mm_storel_epi64((__m128i *)(h + x * 3 + 3), _mm256_extracti128_si256(s, 1));
    }
    return x;
}
#endif

#ifdef RS_HAVE_AVX2
/* hlin8_s16_row()'s one-channel values for the groups that qualify, 16 pixels a step: two
 * 16-byte reads, one byte shuffle for the 32 taps, two madds (the same integer sums and shift).
 * Returns the first pixel not done (x itself where its group does not qualify). */
__attribute__((target("avx2"))) static int64_t
hlin8_c1_avx2(const gip__resize_plan *p, const uint8_t *restrict row, int16_t *restrict h,
              const int32_t *restrict ct, const uint8_t *restrict ctl, const int32_t *restrict gb,
              int64_t x)
{
    const __m256i z = _mm256_setzero_si256();
    for (; x + 16 <= p->dw && x % 16 == 0 && gb[x / 8] >= 0; x += 16) {
        const __m256i s = _mm256_loadu2_m128i((const __m128i *)(row + gb[x / 8 + 1]),
                                              (const __m128i *)(row + gb[x / 8]));
        const __m256i b =
            _mm256_shuffle_epi8(s, _mm256_loadu_si256((const __m256i *)(ctl + 2 * x)));
        const int32_t *c = ct + x;
        const __m256i lo = _mm256_srai_epi32(
            _mm256_madd_epi16(_mm256_unpacklo_epi8(b, z),
                              _mm256_loadu2_m128i((const __m128i *)(c + 8), (const __m128i *)c)),
            4);
        const __m256i hi =
            _mm256_srai_epi32(_mm256_madd_epi16(_mm256_unpackhi_epi8(b, z),
                                                _mm256_loadu2_m128i((const __m128i *)(c + 12),
                                                                    (const __m128i *)(c + 4))),
                              4);
        _mm256_storeu_si256((__m256i *)(h + x), _mm256_packs_epi32(lo, hi));
    }
    return x;
}
#endif

/* Horizontal pass of one u8 row into 16-bit rows (h may be written one element past the row:
 * its rows are padded). */
static void hlin8_s16_row(const gip__resize_plan *p, const uint8_t *restrict row,
                          int16_t *restrict h, const int32_t *restrict ct,
                          const uint8_t *restrict ctl, const int32_t *restrict gb)
{
    const int32_t *xi = p->xi, *xc = p->xci;
    const int32_t cn = p->cn;
    const int64_t dw = p->dw;
    if (cn == 1) {
        int64_t x = 0;
#if defined(__SSE2__)
        /* 4 outputs whose taps are neighbours: their byte pairs as 16-bit loads, one madd with
         * the coefficient pairs (ct: cb << 16 | ca each) */
        const __m128i z = _mm_setzero_si128();
        for (; x + 4 <= dw; x += 4) {
#ifdef RS_HAVE_AVX2
            if (gb && x % 16 == 0) {
                const int64_t nx = hlin8_c1_avx2(p, row, h, ct, ctl, gb, x);
                if (nx != x) {
                    x = nx - 4;
                    continue;
                }
            }
#else
            (void)ctl;
            (void)gb;
#endif
            const int32_t *ix = xi + 2 * x;
            if (ix[1] != ix[0] + 1 || ix[3] != ix[2] + 1 || ix[5] != ix[4] + 1 ||
                ix[7] != ix[6] + 1) {
                for (int64_t k = x; k < x + 4; k++)
                    h[k] = (int16_t)((row[xi[2 * k]] * xc[2 * k] +
                                      row[xi[2 * k + 1]] * xc[2 * k + 1]) >>
                                     4);
                continue;
            }
            uint16_t q[4];
            for (int k = 0; k < 4; k++)
                memcpy(&q[k], row + ix[2 * k], 2);
            const __m128i ab = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)q), z);
            const __m128i r =
                _mm_srai_epi32(_mm_madd_epi16(ab, _mm_loadu_si128((const __m128i *)(ct + x))), 4);
            _mm_storel_epi64((__m128i *)(h + x), _mm_packs_epi32(r, r));
        }
#endif
        for (; x < dw; x++)
            h[x] =
                (int16_t)((row[xi[2 * x]] * xc[2 * x] + row[xi[2 * x + 1]] * xc[2 * x + 1]) >> 4);
        return;
    }
#if defined(__SSE2__)
    /* a pixel's channels (4 bytes read) of both taps interleaved as 16-bit pairs: one madd */
    const int64_t last = p->sw - 1; /* a tap there would read past the row (3 channels) */
    const __m128i z = _mm_setzero_si128();
#ifdef RS_HAVE_AVX2
    const int avx2 = cn == 3 && gip__simd_avx2_fma();
#endif
    for (int64_t x = 0; x < dw; x++) {
#ifdef RS_HAVE_AVX2
        if (avx2) {
            const int64_t nx = hlin8_c3_avx2(p, row, h, ct, x);
            if (nx != x) {
                x = nx - 1;
                continue;
            }
        }
#endif
        const int64_t ia = xi[2 * x], ib = xi[2 * x + 1];
        const int32_t ca = xc[2 * x], cb = xc[2 * x + 1];
        if (cn == 3 && (ia >= last || ib >= last)) {
            hlin8_s16_px(row, h + x * cn, ia * cn, ib * cn, ca, cb, cn);
            continue;
        }
        int32_t va, vb;
        memcpy(&va, row + ia * cn, 4);
        memcpy(&vb, row + ib * cn, 4);
        const __m128i ab =
            _mm_unpacklo_epi8(_mm_unpacklo_epi8(_mm_cvtsi32_si128(va), _mm_cvtsi32_si128(vb)), z);
        const __m128i cc = _mm_set1_epi32(ct[x]);
        const __m128i r = _mm_srai_epi32(_mm_madd_epi16(ab, cc), 4);
        _mm_storel_epi64((__m128i *)(h + x * cn), _mm_packs_epi32(r, r));
    }
#else
    for (int64_t x = 0; x < dw; x++)
        hlin8_s16_px(row, h + x * cn, (int64_t)xi[2 * x] * cn, (int64_t)xi[2 * x + 1] * cn,
                     xc[2 * x], xc[2 * x + 1], cn);
#endif
}

static void vlin8_s16_row(const int16_t *restrict r0, const int16_t *restrict r1, int32_t b0,
                          int32_t b1, int64_t width, uint8_t *restrict d)
{
    int64_t e = 0;
#if defined(__SSE2__)
    const __m128i vb0 = _mm_set1_epi16((int16_t)b0), vb1 = _mm_set1_epi16((int16_t)b1);
    const __m128i two = _mm_set1_epi16(2), lo = _mm_set1_epi16(0xff);
    for (; e + 16 <= width; e += 16) {
        __m128i s0 = _mm_add_epi16(
            _mm_add_epi16(_mm_mulhi_epi16(vb0, _mm_loadu_si128((const __m128i *)(r0 + e))),
                          _mm_mulhi_epi16(vb1, _mm_loadu_si128((const __m128i *)(r1 + e)))),
            two);
        __m128i s1 = _mm_add_epi16(
            _mm_add_epi16(_mm_mulhi_epi16(vb0, _mm_loadu_si128((const __m128i *)(r0 + e + 8))),
                          _mm_mulhi_epi16(vb1, _mm_loadu_si128((const __m128i *)(r1 + e + 8)))),
            two);
        s0 = _mm_and_si128(_mm_srai_epi16(s0, 2), lo);
        s1 = _mm_and_si128(_mm_srai_epi16(s1, 2), lo);
        _mm_storeu_si128((__m128i *)(d + e), _mm_packus_epi16(s0, s1));
    }
#endif
    for (; e < width; e++)
        d[e] = (uint8_t)((((b0 * r0[e]) >> 16) + ((b1 * r1[e]) >> 16) + 2) >> 2);
}

/* gip__rs_vint's LIN8 and CUBIC8 over a row of int32 horizontal sums. */
static void vlin8_row(const int32_t *restrict r0, const int32_t *restrict r1, int32_t b0,
                      int32_t b1, int64_t width, uint8_t *restrict d)
{
    for (int64_t e = 0; e < width; e++)
        d[e] = (uint8_t)((((b0 * (r0[e] >> 4)) >> 16) + ((b1 * (r1[e] >> 4)) >> 16) + 2) >> 2);
}

/* u8 linear-exact's vertical pass (GIP__RS_FIX8 of gip__rs_vint: unsigned sums, no overflow for
 * 8-bit rows of 8-bit weights). */
static void vfix8_row(const int32_t *restrict r0, const int32_t *restrict r1, uint32_t b0,
                      uint32_t b1, int64_t width, uint8_t *restrict d)
{
    for (int64_t e = 0; e < width; e++) {
        const uint32_t v = ((uint32_t)r0[e] * b0 + (uint32_t)r1[e] * b1 + (1u << 15)) >> 16;
        d[e] = (uint8_t)(v > 255 ? 255 : v);
    }
}

/* u8 Lanczos's vertical pass (GIP__RS_SHIFT22 of gip__rs_vint: integer sums, any order), k
 * rows. */
static void vshift22_row(const int32_t *const *rows, const int32_t *yc, int32_t k, int64_t width,
                         uint8_t *restrict d)
{
    int32_t acc[256];
    for (int64_t e0 = 0; e0 < width; e0 += 256) {
        const int64_t m = width - e0 < 256 ? width - e0 : 256;
        for (int64_t e = 0; e < m; e++)
            acc[e] = rows[0][e0 + e] * yc[0];
        for (int32_t t = 1; t < k; t++) {
            const int32_t *restrict r = rows[t] + e0, c = yc[t];
            for (int64_t e = 0; e < m; e++)
                acc[e] += r[e] * c;
        }
        for (int64_t e = 0; e < m; e++) {
            const int32_t v = (acc[e] + (1 << 21)) >> 22;
            d[e0 + e] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
}

#ifdef RS_HAVE_AVX2
/* vcubic8_row()'s float lanes with AVX2, 16 elements a step (the same products and sums in the
 * same order, the same clamp and rounding); returns the first element not done. */
__attribute__((target("avx2"))) static int64_t
vcubic8_avx2(const int32_t *restrict r0, const int32_t *restrict r1, const int32_t *restrict r2,
             const int32_t *restrict r3, float f0, float f1, float f2, float f3, int64_t e0,
             uint8_t *restrict d)
{
    const __m256 v0 = _mm256_set1_ps(f0), v1 = _mm256_set1_ps(f1), v2 = _mm256_set1_ps(f2),
                 v3 = _mm256_set1_ps(f3), lo = _mm256_set1_ps(-1.f), hi = _mm256_set1_ps(256.f);
    int64_t e = 0;
    for (; e + 16 <= e0; e += 16) {
        __m256i t[2];
        for (int k = 0; k < 2; k++) {
            const int64_t i = e + 8 * k;
#define RS_LD8(r) _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)((r) + i)))
            __m256 u = _mm256_mul_ps(RS_LD8(r3), v3);
            u = _mm256_add_ps(_mm256_mul_ps(RS_LD8(r2), v2), u);
            u = _mm256_add_ps(_mm256_mul_ps(RS_LD8(r1), v1), u);
            u = _mm256_add_ps(_mm256_mul_ps(RS_LD8(r0), v0), u);
#undef RS_LD8
            t[k] = _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(u, lo), hi));
        }
        /* int16 t0[0..7], t1[0..7], then bytes: t0 in lane 0's low half, t1 in lane 1's */
        const __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(t[0], t[1]), 0xd8);
        const __m256i b = _mm256_packus_epi16(w, w);
        _mm_storeu_si128((__m128i *)(d + e), _mm_unpacklo_epi64(_mm256_castsi256_si128(b),
                                                                _mm256_extracti128_si256(b, 1)));
    }
    return e;
}
#endif

static void vcubic8_row(const gip__resize_plan *p, int64_t y, const int32_t *const *rows,
                        uint8_t *restrict d)
{
    const int32_t *yc = p->yci + y * p->ky;
    const int32_t *restrict r0 = rows[0], *restrict r1 = rows[1], *restrict r2 = rows[2],
                            *restrict r3 = rows[3];
    const float sc = 1.f / (2048 * 2048);
    const float f0 = (float)yc[0] * sc, f1 = (float)yc[1] * sc, f2 = (float)yc[2] * sc,
                f3 = (float)yc[3] * sc;
    const int64_t width = p->dw * p->cn, e0 = p->simd_end;
    int64_t e = 0;
#ifdef RS_HAVE_AVX2
    if (gip__simd_avx2_fma())
        e = vcubic8_avx2(r0, r1, r2, r3, f0, f1, f2, f3, e0, d);
#endif
#if defined(__SSE2__)
    const __m128 v0 = _mm_set1_ps(f0), v1 = _mm_set1_ps(f1), v2 = _mm_set1_ps(f2),
                 v3 = _mm_set1_ps(f3);
    for (; e + 8 <= e0; e += 8) {
        __m128 t[2];
        for (int k = 0; k < 2; k++) {
            const int64_t i = e + 4 * k;
#define RS_LD(r) _mm_cvtepi32_ps(_mm_loadu_si128((const __m128i *)((r) + i)))
            __m128 u = _mm_mul_ps(RS_LD(r3), v3);
            u = _mm_add_ps(_mm_mul_ps(RS_LD(r2), v2), u);
            u = _mm_add_ps(_mm_mul_ps(RS_LD(r1), v1), u);
            t[k] = _mm_add_ps(_mm_mul_ps(RS_LD(r0), v0), u);
#undef RS_LD
        }
        _mm_storel_epi64((__m128i *)(d + e), sat_u8_f32x8(t[0], t[1]));
    }
#endif
    for (; e < e0; e++) {
        float t = GIP__RS_MUL((float)r3[e], f3);
        t = GIP__RS_ADD(GIP__RS_MUL((float)r2[e], f2), t);
        t = GIP__RS_ADD(GIP__RS_MUL((float)r1[e], f1), t);
        t = GIP__RS_ADD(GIP__RS_MUL((float)r0[e], f0), t);
        d[e] = gip__sat_u8_f32(t);
    }
    for (e = e0; e < width; e++) {
        const int32_t s = r0[e] * yc[0] + r1[e] * yc[1] + r2[e] * yc[2] + r3[e] * yc[3];
        gip__rs_storei(d, e, GIP_U8, (s + (1 << 21)) >> 22);
    }
}

/* The separable case a row at a time: the horizontal sums of each source row are made once into
 * a ring of ky rows (a row r lives in slot r % ky: the rows of one output row are consecutive),
 * int32 for u8 integer sums (their exact values), and combined as the CUDA backend's functions
 * combine them, a whole row per loop. */
static int sep_rows(const resize_job *j, int64_t y0, int64_t y1)
{
    const gip__resize_plan *p = j->p;
    const int64_t width = p->dw * p->cn, K = p->ky;
    const int i32 = !p->hfloat && p->dtype == GIP_U8 && !p->h64 && !p->xn &&
                    (p->kx == 2 || p->kx == 4 || p->kx == 8);
    const int s16 = lin8_s16_ok(p, y0, y1);
    const size_t esz = p->hfloat ? sizeof(float)
                       : s16     ? sizeof(int16_t)
                       : i32     ? sizeof(int32_t)
                                 : sizeof(int64_t);
    /* the ring (rows padded by 8 elements), its tags, row pointers, a float row of sums */
    const int64_t rs = width + 8;
    const size_t ring = ((size_t)(K * rs) * esz + 63) & ~(size_t)63;
    void *buf = malloc(ring + (size_t)K * (sizeof(int64_t) + sizeof(void *)) +
                       (p->hfloat ? (size_t)width * sizeof(float) : 0));
    if (!buf)
        return 0;
    int64_t *tag = (int64_t *)((uint8_t *)buf + ring);
    const void **rp = (const void **)(tag + K);
    float *acc = (float *)(rp + K);
    for (int64_t k = 0; k < K; k++)
        tag[k] = -1;
    int32_t *ct = NULL; /* s16: each column's coefficients as two 16-bit halves */
    if (s16) {
        if (!(ct = malloc(sizeof(int32_t) * (size_t)p->dw))) {
            free(buf);
            return 0;
        }
        for (int64_t x = 0; x < p->dw; x++)
            ct[x] = (int32_t)((uint32_t)p->xci[2 * x + 1] << 16 | (uint16_t)p->xci[2 * x]);
    }
    int16_t *c16 = NULL; /* u8 cubic: the column coefficients as int16 */
    if (i32 && p->kx == 4) {
        if (!(c16 = malloc(sizeof(int16_t) * 4 * (size_t)p->dw))) {
            free(ct);
            free(buf);
            return 0;
        }
        for (int64_t i = 0; i < 4 * p->dw; i++)
            c16[i] = (int16_t)p->xci[i];
    }
    uint8_t *lctl = NULL; /* u8 linear (16-bit), one channel, AVX2: the groups' tap bytes */
    int32_t *lgb = NULL;
    uint8_t *ctl = NULL; /* u8 cubic, one channel, AVX2: the groups' tap bytes */
    int32_t *gb = NULL;
#ifdef RS_HAVE_AVX2
    if (ct && p->cn == 1 && p->dw >= 16 && gip__simd_avx2_fma())
        h8_c1_plan(p, &lctl, &lgb);
    if (c16 && p->cn == 1 && p->dw >= 8 && gip__simd_avx2_fma())
        h8_c1_plan(p, &ctl, &gb);
#endif
    const uint8_t *src = j->src->data;
    const int64_t ss = j->src->stride;
    for (int64_t y = y0; y < y1; y++) {
        const int32_t n = p->yn ? p->yn[y] : p->ky;
        const int32_t *yi = p->yi + y * p->ky;
        for (int32_t k = 0; k < n; k++) {
            const int64_t r = yi[k], slot = r % K;
            void *h = (uint8_t *)buf + (size_t)(slot * rs) * esz;
            rp[k] = h;
            if (tag[slot] == r)
                continue;
            tag[slot] = r;
            const uint8_t *row = src + r * ss;
            if (p->hfloat)
                hflt_row(p, row, h);
            else if (s16)
                hlin8_s16_row(p, row, h, ct, lctl, lgb);
            else if (c16)
                hcubic8_row(p, row, h, c16, ctl, gb);
            else if (i32)
                hint_u8_row(p, row, h);
            else {
                int64_t *hh = h;
                for (int64_t x = 0; x < p->dw; x++)
                    for (int32_t c = 0; c < p->cn; c++)
                        hh[x * p->cn + c] = gip__rs_hint(p, row, x, c);
            }
        }
        uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
        if (p->hfloat)
            vflt_row(p, y, (const float *const *)rp, acc, d);
        else if (s16)
            vlin8_s16_row(rp[0], rp[1], p->yci[y * p->ky], p->yci[y * p->ky + 1], width, d);
        else if (i32 && p->final == GIP__RS_LIN8)
            vlin8_row(rp[0], rp[1], p->yci[y * p->ky], p->yci[y * p->ky + 1], width, d);
        else if (i32 && p->final == GIP__RS_SHIFT22 && n >= 1)
            vshift22_row((const int32_t *const *)rp, p->yci + y * p->ky, n, width, d);
        else if (i32 && p->final == GIP__RS_FIX8 && n == 2)
            vfix8_row(rp[0], rp[1], (uint32_t)p->yci[y * p->ky], (uint32_t)p->yci[y * p->ky + 1],
                      width, d);
        else if (i32 && p->final == GIP__RS_CUBIC8)
            vcubic8_row(p, y, (const int32_t *const *)rp, d);
        else {
            int64_t h[8] = {0};
            for (int64_t e = 0; e < width; e++) {
                for (int32_t k = 0; k < n && k < 8; k++)
                    h[k] = i32 ? ((const int32_t *)rp[k])[e] : ((const int64_t *)rp[k])[e];
                gip__rs_vint(p, y, e, h, d);
            }
        }
    }
    free(lgb);
    free(lctl);
    free(gb);
    free(ctl);
    free(c16);
    free(ct);
    free(buf);
    return 1;
}

#ifdef RS_HAVE_AVX2
/* The 2x2 means of u8 pixels with AVX-512 VBMI, k = 32 / cn whole output pixels a step (32, 10
 * or 8): the 2k source pixels of each row (at most 64 bytes, a masked load) permuted so that the
 * two bytes of each output element's horizontal pair stand side by side, summed by pairs (a madd
 * with ones), the two rows added, (s + 2) >> 2 narrowed to bytes and stored (masked). The sums
 * equal area_fast_u8_row()'s. Returns the first pixel not done. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi"))) static int64_t
area2_u8_512(const uint8_t *restrict r0, const uint8_t *restrict r1, uint8_t *restrict d,
             int64_t nx, int32_t cn)
{
    const int32_t k = 32 / cn, nb = k * cn; /* output bytes a step */
    uint8_t idx[64] = {0};
    for (int32_t e = 0; e < nb; e++) {
        const int32_t a = 2 * (e / cn) * cn + e % cn;
        idx[2 * e] = (uint8_t)a;
        idx[2 * e + 1] = (uint8_t)(a + cn);
    }
    const __m512i perm = _mm512_loadu_si512(idx), ones = _mm512_set1_epi8(1),
                  two = _mm512_set1_epi16(2);
    const __mmask64 lm = nb == 32 ? ~(__mmask64)0 : ((__mmask64)1 << (2 * nb)) - 1;
    const __mmask32 sm = nb == 32 ? ~(__mmask32)0 : ((__mmask32)1 << nb) - 1;
    int64_t x = 0;
    for (; x + k <= nx; x += k) {
        const __m512i a =
            _mm512_permutexvar_epi8(perm, _mm512_maskz_loadu_epi8(lm, r0 + 2 * x * cn));
        const __m512i b =
            _mm512_permutexvar_epi8(perm, _mm512_maskz_loadu_epi8(lm, r1 + 2 * x * cn));
        __m512i t = _mm512_add_epi16(_mm512_maddubs_epi16(a, ones), _mm512_maddubs_epi16(b, ones));
        t = _mm512_srli_epi16(_mm512_add_epi16(t, two), 2);
        _mm256_mask_storeu_epi8(d + x * cn, sm, _mm512_cvtepi16_epi8(t));
    }
    return x;
}
#endif

/* AREA_FAST for u8, a row at a time: whole blocks in typed loops (integer sums: any order; 2x2
 * blocks through area2_u8_512() first where vbmi is set), the blocks cut by the image's edge by
 * gip__rs_area_fast. */
RS_INLINE void area_fast_u8_row(const gip__resize_plan *p, const uint8_t *restrict r0, int64_t ss,
                                uint8_t *restrict d, int64_t nx, int32_t cn, int vbmi)
{
    if (p->area2x2) {
        const uint8_t *restrict r1 = r0 + ss;
        int64_t x = 0;
#ifdef RS_HAVE_AVX2
        if (vbmi)
            x = area2_u8_512(r0, r1, d, nx, cn);
#else
        (void)vbmi;
#endif
#if defined(__SSE2__)
        const __m128i two = _mm_set1_epi16(2), z = _mm_setzero_si128();
        if (cn == 1) {
            /* 16 outputs from 32 bytes of each row: even + odd bytes as 16-bit lanes */
            const __m128i lo = _mm_set1_epi16(0xff);
            for (; x + 16 <= nx; x += 16) {
                __m128i o[2];
                for (int h = 0; h < 2; h++) {
                    const __m128i a = _mm_loadu_si128((const __m128i *)(r0 + 2 * x + 16 * h));
                    const __m128i b = _mm_loadu_si128((const __m128i *)(r1 + 2 * x + 16 * h));
                    __m128i t =
                        _mm_add_epi16(_mm_add_epi16(_mm_and_si128(a, lo), _mm_srli_epi16(a, 8)),
                                      _mm_add_epi16(_mm_and_si128(b, lo), _mm_srli_epi16(b, 8)));
                    o[h] = _mm_srli_epi16(_mm_add_epi16(t, two), 2);
                }
                _mm_storeu_si128((__m128i *)(d + x), _mm_packus_epi16(o[0], o[1]));
            }
        } else if (cn == 3) {
            /* 2 output pixels from 12 bytes of each row (16 read, within the row while
             * 6 x + 16 <= 3 sw); 8 bytes stored, the last 2 rewritten by the next pixels */
            const __m128i m3 = _mm_setr_epi16(-1, -1, -1, 0, 0, 0, 0, 0);
            const __m128i m6 = _mm_setr_epi16(0, 0, 0, -1, -1, -1, 0, 0);
            for (; x + 3 <= nx && 6 * x + 16 <= 3 * p->sw; x += 2) {
                const __m128i a = _mm_loadu_si128((const __m128i *)(r0 + 6 * x));
                const __m128i b = _mm_loadu_si128((const __m128i *)(r1 + 6 * x));
                const __m128i l = _mm_add_epi16(_mm_unpacklo_epi8(a, z), _mm_unpacklo_epi8(b, z));
                const __m128i h = _mm_add_epi16(_mm_unpackhi_epi8(a, z), _mm_unpackhi_epi8(b, z));
                const __m128i s0 = _mm_add_epi16(l, _mm_srli_si128(l, 6));
                const __m128i u = _mm_or_si128(_mm_srli_si128(l, 12), _mm_slli_si128(h, 4));
                const __m128i s1 = _mm_add_epi16(u, _mm_srli_si128(u, 6));
                __m128i t =
                    _mm_or_si128(_mm_and_si128(s0, m3), _mm_and_si128(_mm_slli_si128(s1, 6), m6));
                t = _mm_srli_epi16(_mm_add_epi16(t, two), 2);
                _mm_storel_epi64((__m128i *)(d + 3 * x), _mm_packus_epi16(t, t));
            }
        } else if (cn == 4) {
            /* 2 output pixels from 4 source pixels of each row */
            for (; x + 2 <= nx; x += 2) {
                const __m128i a = _mm_loadu_si128((const __m128i *)(r0 + 8 * x));
                const __m128i b = _mm_loadu_si128((const __m128i *)(r1 + 8 * x));
                const __m128i l = _mm_add_epi16(_mm_unpacklo_epi8(a, z), _mm_unpacklo_epi8(b, z));
                const __m128i h = _mm_add_epi16(_mm_unpackhi_epi8(a, z), _mm_unpackhi_epi8(b, z));
                __m128i t = _mm_add_epi16(_mm_unpacklo_epi64(l, h), _mm_unpackhi_epi64(l, h));
                t = _mm_srli_epi16(_mm_add_epi16(t, two), 2);
                _mm_storel_epi64((__m128i *)(d + 4 * x), _mm_packus_epi16(t, t));
            }
        }
#endif
        for (; x < nx; x++)
            for (int32_t c = 0; c < cn; c++) {
                const int64_t a = 2 * x * cn + c;
                const int32_t s = r0[a] + r0[a + cn] + r1[a] + r1[a + cn];
                d[x * cn + c] = (uint8_t)((s + 2) >> 2);
            }
        return;
    }
    const int32_t isx = p->isx, isy = p->isy;
    const float scale = 1.f / (float)(isx * isy);
    for (int64_t x = 0; x < nx; x++) {
        int32_t s[4] = {0, 0, 0, 0};
        for (int32_t ry = 0; ry < isy; ry++) {
            const uint8_t *q = r0 + ry * ss + x * isx * cn;
            for (int32_t rx = 0; rx < isx; rx++)
                for (int32_t c = 0; c < cn; c++)
                    s[c] += q[rx * cn + c];
        }
        for (int32_t c = 0; c < cn; c++)
            d[x * cn + c] = gip__sat_u8_f32(GIP__RS_MUL((float)s[c], scale));
    }
}

/* AREA_FAST for f32, whole blocks of a row: gip__rs_area_fast's sums in its order (groups of four
 * taps, rows then columns, added to a sum that starts at 0), typed. */
RS_INLINE void area_fast_f32_row(const gip__resize_plan *p, const uint8_t *r0, int64_t ss,
                                 float *restrict d, int64_t nx, int32_t cn)
{
    const int32_t isx = p->isx, isy = p->isy, area = isx * isy;
    const float scale = 1.f / (float)area;
    if (isx == 2 && isy == 2) {
        const float *restrict a = (const float *)r0, *restrict b = (const float *)(r0 + ss);
        for (int64_t x = 0; x < nx; x++)
            for (int32_t c = 0; c < cn; c++) {
                const int64_t i = 2 * x * cn + c;
                float t = a[i];
                t = GIP__RS_ADD(t, a[i + cn]);
                t = GIP__RS_ADD(t, b[i]);
                t = GIP__RS_ADD(t, b[i + cn]);
                d[x * cn + c] = GIP__RS_MUL(GIP__RS_ADD(0.f, t), scale);
            }
        return;
    }
    for (int64_t x = 0; x < nx; x++)
        for (int32_t c = 0; c < cn; c++) {
            const int64_t sx0 = x * isx;
#define AF_TAP(kk) ((const float *)(r0 + (int64_t)((kk) / isx) * ss))[(sx0 + (kk) % isx) * cn + c]
            float s = 0.f;
            int32_t k = 0;
            for (; k <= area - 4; k += 4) {
                float t = AF_TAP(k);
                t = GIP__RS_ADD(t, AF_TAP(k + 1));
                t = GIP__RS_ADD(t, AF_TAP(k + 2));
                t = GIP__RS_ADD(t, AF_TAP(k + 3));
                s = GIP__RS_ADD(s, t);
            }
            for (; k < area; k++)
                s = GIP__RS_ADD(s, AF_TAP(k));
#undef AF_TAP
            d[x * cn + c] = GIP__RS_MUL(s, scale);
        }
}

static void area_fast_f32_rows(const resize_job *j, int64_t y0, int64_t y1)
{
    const gip__resize_plan *p = j->p;
    const uint8_t *src = j->src->data;
    const int64_t ss = j->src->stride, nx = p->sw / p->isx < p->dw ? p->sw / p->isx : p->dw;
    for (int64_t y = y0; y < y1; y++) {
        uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
        int64_t x0 = 0;
        if (y * p->isy + p->isy <= p->sh) {
            const uint8_t *r0 = src + y * p->isy * ss;
            float *df = (float *)d;
            if (p->cn == 1)
                area_fast_f32_row(p, r0, ss, df, nx, 1);
            else if (p->cn == 3)
                area_fast_f32_row(p, r0, ss, df, nx, 3);
            else if (p->cn == 4)
                area_fast_f32_row(p, r0, ss, df, nx, 4);
            else
                area_fast_f32_row(p, r0, ss, df, nx, p->cn);
            x0 = nx;
        }
        for (int64_t x = x0; x < p->dw; x++)
            for (int32_t c = 0; c < p->cn; c++)
                gip__rs_area_fast(p, src, ss, d, y, x, c);
    }
}

static void area_fast_u8_rows(const resize_job *j, int64_t y0, int64_t y1)
{
    const gip__resize_plan *p = j->p;
    const uint8_t *src = j->src->data;
    const int64_t ss = j->src->stride, nx = p->sw / p->isx < p->dw ? p->sw / p->isx : p->dw;
    const int vbmi = p->area2x2 && (gip__simd() & GIP__SIMD_VBMI);
    for (int64_t y = y0; y < y1; y++) {
        uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
        int64_t x0 = 0;
        if (y * p->isy + p->isy <= p->sh) {
            const uint8_t *r0 = src + y * p->isy * ss;
            if (p->cn == 1)
                area_fast_u8_row(p, r0, ss, d, nx, 1, vbmi);
            else if (p->cn == 3)
                area_fast_u8_row(p, r0, ss, d, nx, 3, vbmi);
            else
                area_fast_u8_row(p, r0, ss, d, nx, 4, vbmi);
            x0 = nx;
        }
        for (int64_t x = x0; x < p->dw; x++)
            for (int32_t c = 0; c < p->cn; c++)
                gip__rs_area_fast(p, src, ss, d, y, x, c);
    }
}

/* A nearest row: each output pixel a copy of PX bytes (a constant: moves, no byte loop). */
#define RS_NN_ROW(PX)                                                                              \
    static void nn_row_##PX(const uint8_t *restrict s, uint8_t *restrict d, const int32_t *xi,     \
                            int64_t n)                                                             \
    {                                                                                              \
        for (int64_t x = 0; x < n; x++)                                                            \
            memcpy(d + x * PX, s + (int64_t)xi[x] * PX, PX);                                       \
    }
RS_NN_ROW(1)
RS_NN_ROW(2)
RS_NN_ROW(3)
RS_NN_ROW(4)
RS_NN_ROW(6)
RS_NN_ROW(8)
RS_NN_ROW(12)
RS_NN_ROW(16)

/* Nearest rows: a row whose source row is the previous output row's is a copy of that row. */
static void nearest_rows(const resize_job *j, int64_t y0, int64_t y1)
{
    const gip__resize_plan *p = j->p;
    const size_t px = (size_t)p->cn * (p->dtype == GIP_U8 ? 1 : p->dtype == GIP_U16 ? 2 : 4);
    const int32_t *xi = p->xi, *yi = p->yi;
    const uint8_t *src = j->src->data;
    const int64_t ss = j->src->stride, ds = j->dst->stride;
    static void (*const rows[17])(const uint8_t *, uint8_t *, const int32_t *, int64_t) = {
        [1] = nn_row_1, [2] = nn_row_2, [3] = nn_row_3,   [4] = nn_row_4,
        [6] = nn_row_6, [8] = nn_row_8, [12] = nn_row_12, [16] = nn_row_16};
    void (*const row)(const uint8_t *, uint8_t *, const int32_t *, int64_t) =
        px <= 16 ? rows[px] : NULL;
    for (int64_t y = y0; y < y1; y++) {
        uint8_t *d = (uint8_t *)j->dst->data + y * ds;
        if (y > y0 && yi[y] == yi[y - 1]) {
            memcpy(d, d - ds, (size_t)p->dw * px);
            continue;
        }
        const uint8_t *s = src + (int64_t)yi[y] * ss;
        if (row)
            row(s, d, xi, p->dw);
        else
            for (int64_t x = 0; x < p->dw; x++)
                gip__rs_nearest(p, src, ss, d, y, x);
    }
}

static void resize_rows(void *arg, int64_t y0, int64_t y1)
{
    const resize_job *j = arg;
    const gip__resize_plan *p = j->p;
    const uint8_t *src = j->src->data;
    const int64_t ss = j->src->stride;
    for (int64_t y = y0; y < y1; y++) {
        uint8_t *d = (uint8_t *)j->dst->data + y * j->dst->stride;
        switch (p->kind) {
        case GIP__RS_NEAREST:
            nearest_rows(j, y, y1);
            return;
        case GIP__RS_AREA_FAST:
            if (p->dtype == GIP_U8) {
                area_fast_u8_rows(j, y, y + 1);
                break;
            }
            if (p->dtype == GIP_F32) {
                area_fast_f32_rows(j, y, y + 1);
                break;
            }
            for (int64_t x = 0; x < p->dw; x++)
                for (int32_t c = 0; c < p->cn; c++)
                    gip__rs_area_fast(p, src, ss, d, y, x, c);
            break;
        default:
            for (int64_t x = 0; x < p->dw; x++)
                for (int32_t c = 0; c < p->cn; c++)
                    gip__rs_sep(p, src, ss, d, y, x, c);
        }
    }
}

static void resize_rows_sep(void *arg, int64_t y0, int64_t y1)
{
    resize_job *j = arg;
    if (!sep_rows(j, y0, y1))
        resize_rows(arg, y0, y1); /* no memory for the row cache: element by element */
}

/* Runs a built plan (its tables in `block`) over dst's rows, on the device or the CPU. */
static gip_status run_plan(gip_context *ctx, const gip_image *src, gip_image *dst,
                           const gip__resize_plan *plan, const void *block, size_t bytes,
                           bool on_device, const char *op)
{
    if (on_device)
        return GIP__CUDA_CALL(ctx, op, gip__resize_cuda(ctx, src, dst, plan, block, bytes));
    resize_job j = {plan, src, dst};
    gip__parallel_for(ctx, dst->height, 4,
                      plan->kind == GIP__RS_SEP ? resize_rows_sep : resize_rows, &j);
    return GIP_OK;
}

/* Checks and runs: inv_x, inv_y are OpenCV's inv_scale_x/y. */
gip_status gip__resize_run(gip_context *ctx, const gip_image *src, gip_image *dst, int32_t interp,
                           int32_t antialias, double inv_x, double inv_y)
{
    static const char op[] = "resize";
    bool on_device = false;
    gip_status st = gip__check_pair_typed(ctx, src, dst, GIP__DT_IMAGE, op, &on_device);
    if (st)
        return st;
    if (interp < GIP_INTER_NEAREST || interp > GIP_INTER_NEAREST_EXACT)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: interpolation %d is unknown (0..6: nearest, linear, cubic, area, "
                          "lanczos4, linear_exact, nearest_exact)",
                          op, (int)interp);
    if (antialias && interp != GIP_INTER_LINEAR && interp != GIP_INTER_CUBIC)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: antialias works with linear and cubic interpolation only", op);
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap", op);
#ifdef GIP_HAVE_CUDA
    if (on_device)
        return gip__resize_cuda_run(ctx, src, dst, interp, antialias, inv_x, inv_y);
#endif
    gip__resize_plan plan;
    void *block;
    size_t bytes;
    if ((st = gip__resize_plan_build(ctx, &plan, &block, &bytes, src->width, src->height,
                                     src->channels, src->dtype, dst->width, dst->height, inv_x,
                                     inv_y, interp, antialias)))
        return st;
    st = run_plan(ctx, src, dst, &plan, block, bytes, on_device, op);
    free(block);
    return st;
}

/* ---- row bands (row streaming and gip.dask cut a resize by output rows) ---------------------- */

/* The source rows output rows [y0, y1) of a plan read. */
/* The source indexes [*s0, *s1) that outputs [i0, i1) of one axis read: idx holds `stride`
 * entries an output, of which the first nn[i] (or `taps` where nn is NULL) are taps, each in
 * [0, lim). */
static void tap_span(const int32_t *idx, const int32_t *nn, int32_t stride, int32_t taps,
                     int64_t i0, int64_t i1, int64_t lim, int64_t *s0, int64_t *s1)
{
    int64_t lo = lim, hi = 0;
    for (int64_t i = i0; i < i1; i++)
        for (int32_t t = 0, n = nn ? nn[i] : taps; t < n; t++) {
            const int64_t r = idx[i * stride + t];
            lo = r < lo ? r : lo;
            hi = r + 1 > hi ? r + 1 : hi;
        }
    *s0 = lo < hi ? lo : 0;
    *s1 = lo < hi ? hi : 0;
}

static void plan_rows(const gip__resize_plan *p, int64_t y0, int64_t y1, int64_t *s0, int64_t *s1)
{
    if (p->kind == GIP__RS_AREA_FAST) {
        *s0 = y0 * p->isy;
        *s1 = y1 * p->isy < p->sh ? y1 * p->isy : p->sh;
        return;
    }
    const bool one = p->kind == GIP__RS_NEAREST; /* one tap a row */
    tap_span(p->yi, one ? NULL : p->yn, p->ky, one ? 1 : p->ky, y0, y1, p->sh, s0, s1);
}

gip_status gip__resize_band_rows(const gip_shape *in, int64_t dw, int64_t dh, int32_t interp,
                                 int32_t antialias, double inv_x, double inv_y, int64_t y0,
                                 int64_t y1, int64_t *s0, int64_t *s1)
{
    gip__resize_plan plan;
    void *block;
    size_t bytes;
    gip_status st =
        gip__resize_plan_build(NULL, &plan, &block, &bytes, in->width, in->height, in->channels,
                               in->dtype, dw, dh, inv_x, inv_y, interp, antialias);
    if (st)
        return st;
    plan_rows(&plan, y0 < 0 ? 0 : y0, y1 > dh ? dh : y1, s0, s1);
    free(block);
    return GIP_OK;
}

gip_status gip__resize_run_band(gip_context *ctx, const gip_image *src, int64_t s0, int64_t sh,
                                gip_image *dst, int64_t y0, int64_t dh, int32_t interp,
                                int32_t antialias, double inv_x, double inv_y)
{
    static const char op[] = "resize (row band)";
    bool on_device = false;
    gip_status st = gip__check_pair(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    if ((st = gip__check_same_type(ctx, src, dst, op)))
        return st;
    gip__resize_plan plan, bp;
    void *block, *nb = NULL;
    size_t bytes;
    if ((st = gip__resize_plan_build(ctx, &plan, &block, &bytes, src->width, sh, src->channels,
                                     src->dtype, dst->width, dh, inv_x, inv_y, interp, antialias)))
        return st;
    int64_t r0, r1;
    const int64_t n = dst->height;
    if (y0 < 0 || n < 1 || y0 + n > dh) {
        st = gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: rows [%lld, %lld) outside 0..%lld", op,
                        (long long)y0, (long long)(y0 + n), (long long)dh);
        goto out;
    }
    plan_rows(&plan, y0, y0 + n, &r0, &r1);
    if (r0 < s0 || r1 > s0 + src->height) {
        st = gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                        "%s: output rows [%lld, %lld) read source rows [%lld, %lld), but src "
                        "holds [%lld, %lld)",
                        op, (long long)y0, (long long)(y0 + n), (long long)r0, (long long)r1,
                        (long long)s0, (long long)(s0 + src->height));
        goto out;
    }
    /* The band's plan: a copy of the tables, the rows' source rows counted from s0. */
    if (!(nb = malloc(bytes ? bytes : 1))) {
        st = gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
        goto out;
    }
    if (bytes)
        memcpy(nb, block, bytes);
    bp = plan;
    gip__rs_plan_rebase(&bp, block, nb);
    if (plan.kind != GIP__RS_AREA_FAST) {
        int32_t *yi = (int32_t *)bp.yi + y0 * plan.ky;
        for (int64_t i = 0; i < n * plan.ky; i++)
            yi[i] = yi[i] >= s0 ? (int32_t)(yi[i] - s0) : 0;
        bp.yi = yi;
        if (bp.yn)
            bp.yn += y0;
        if (bp.yci)
            bp.yci += y0 * plan.ky;
        if (bp.ycf)
            bp.ycf += y0 * plan.ky;
    } else if (y0 * plan.isy != s0) {
        st = gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                        "%s: an integer shrink band must start at source row %lld (got %lld)", op,
                        (long long)(y0 * plan.isy), (long long)s0);
        goto out;
    }
    bp.sh = src->height;
    bp.dh = n;
    st = run_plan(ctx, src, dst, &bp, nb, bytes, on_device, op);
out:
    free(nb);
    free(block);
    return st;
}

/* The window's plan: the whole plan's tables from output column x0 and row y0, source columns
 * and rows counted from (sx, sy), in a copy of the tables (*copy, to free) where they move. */
static gip_status window_plan(const gip__resize_plan *plan, const void *block, size_t bytes,
                              int64_t x0, int64_t y0, int64_t w, int64_t h, int64_t sx, int64_t sy,
                              gip__resize_plan *out, void **copy)
{
    gip__resize_plan p = *plan;
    *copy = NULL;
    if (sx || sy) {
        if (!(*copy = malloc(bytes ? bytes : 1)))
            return GIP_ERR_OUT_OF_MEMORY;
        memcpy(*copy, block, bytes);
        gip__rs_plan_rebase(&p, block, *copy);
        int32_t *xi = (int32_t *)p.xi + x0 * plan->kx, *yi = (int32_t *)p.yi + y0 * plan->ky;
        for (int64_t i = 0; i < w * plan->kx; i++)
            xi[i] = (int32_t)(xi[i] - sx);
        for (int64_t i = 0; i < h * plan->ky; i++)
            yi[i] = (int32_t)(yi[i] - sy);
    }
    p.xi += x0 * plan->kx;
    p.yi += y0 * plan->ky;
    if (p.xn)
        p.xn += x0;
    if (p.yn)
        p.yn += y0;
    if (p.xci)
        p.xci += x0 * plan->kx;
    if (p.xcf)
        p.xcf += x0 * plan->kx;
    if (p.yci)
        p.yci += y0 * plan->ky;
    if (p.ycf)
        p.ycf += y0 * plan->ky;
    const int64_t e0 = plan->simd_end - x0 * plan->cn, n = w * plan->cn;
    p.simd_end = e0 < 0 ? 0 : e0 > n ? n : e0;
    p.dw = w;
    p.dh = h;
    *out = p;
    return GIP_OK;
}

/* The source columns [*c0, *c1) and rows [*r0, *r1) that output window (x0, y0, w, h) of a
 * separable plan reads. */
static void window_reads(const gip__resize_plan *p, int64_t x0, int64_t y0, int64_t w, int64_t h,
                         int64_t *c0, int64_t *c1, int64_t *r0, int64_t *r1)
{
    tap_span(p->xi, p->xn, p->kx, p->kx, x0, x0 + w, p->sw, c0, c1);
    plan_rows(p, y0, y0 + h, r0, r1);
}

gip_status gip__resize_window_source(const gip_shape *in, int64_t dw, int64_t dh, int64_t x0,
                                     int64_t y0, int64_t w, int64_t h, int32_t interp,
                                     int32_t antialias, gip__rs_part *need)
{
    static const char op[] = "resize (window source)";
    if (x0 < 0 || y0 < 0 || w < 1 || h < 1 || x0 + w > dw || y0 + h > dh || in->width < 1 ||
        in->height < 1)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "%s: window %lldx%lld at (%lld, %lld) is not inside %lldx%lld", op,
                          (long long)w, (long long)h, (long long)x0, (long long)y0, (long long)dw,
                          (long long)dh);
    gip__resize_plan plan;
    void *block;
    size_t bytes;
    gip_status st = gip__resize_plan_build(
        NULL, &plan, &block, &bytes, in->width, in->height, in->channels, in->dtype, dw, dh,
        (double)dw / (double)in->width, (double)dh / (double)in->height, interp, antialias);
    if (st)
        return st;
    if (plan.kind != GIP__RS_SEP) {
        free(block);
        return gip__error(NULL, GIP_ERR_UNSUPPORTED, "%s: this interpolation and scale", op);
    }
    int64_t c0, c1, r0, r1;
    window_reads(&plan, x0, y0, w, h, &c0, &c1, &r0, &r1);
    free(block);
    *need = (gip__rs_part){c0, r0, c1 - c0, r1 - r0};
    return GIP_OK;
}

gip_status gip__resize_window(gip_context *ctx, const gip_image *src, const gip__rs_part *part,
                              gip_image *dst, int64_t dw, int64_t dh, int64_t x0, int64_t y0,
                              int32_t interp, int32_t antialias)
{
    static const char op[] = "resize (window)";
    bool on_device = false;
    gip_status st = gip__check_pair_typed(ctx, src, dst, GIP__DT_IMAGE, op, &on_device);
    if (st)
        return st;
    if (on_device)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED, "%s: host views only", op);
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap", op);
    const gip__rs_part whole = {0, 0, src->width, src->height}, *pt = part ? part : &whole;
    if (x0 < 0 || y0 < 0 || dw < 1 || dh < 1 || x0 + dst->width > dw || y0 + dst->height > dh)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: window %lldx%lld at (%lld, %lld) is not inside %lldx%lld", op,
                          (long long)dst->width, (long long)dst->height, (long long)x0,
                          (long long)y0, (long long)dw, (long long)dh);
    if (pt->x < 0 || pt->y < 0 || pt->x + src->width > pt->w || pt->y + src->height > pt->h)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: a %lldx%lld part at (%lld, %lld) is not inside %lldx%lld", op,
                          (long long)src->width, (long long)src->height, (long long)pt->x,
                          (long long)pt->y, (long long)pt->w, (long long)pt->h);
    gip__resize_plan plan, wp;
    void *block, *copy = NULL;
    size_t bytes;
    if ((st = gip__resize_plan_build(ctx, &plan, &block, &bytes, pt->w, pt->h, src->channels,
                                     src->dtype, dw, dh, (double)dw / (double)pt->w,
                                     (double)dh / (double)pt->h, interp, antialias)))
        return st;
    if (plan.kind != GIP__RS_SEP) {
        st = gip__error(ctx, GIP_ERR_UNSUPPORTED, "%s: this interpolation and scale", op);
        goto out;
    }
    int64_t c0, c1, r0, r1;
    window_reads(&plan, x0, y0, dst->width, dst->height, &c0, &c1, &r0, &r1);
    if (c0 < pt->x || r0 < pt->y || c1 > pt->x + src->width || r1 > pt->y + src->height) {
        st = gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                        "%s: the window reads source columns [%lld, %lld) and rows [%lld, %lld), "
                        "outside the part given",
                        op, (long long)c0, (long long)c1, (long long)r0, (long long)r1);
        goto out;
    }
    if ((st = window_plan(&plan, block, bytes, x0, y0, dst->width, dst->height, pt->x, pt->y, &wp,
                          &copy))) {
        st = gip__error(ctx, st, "%s: out of memory", op);
        goto out;
    }
    wp.sw = src->width;
    wp.sh = src->height;
    st = run_plan(ctx, src, dst, &wp, copy ? copy : block, bytes, false, op);
out:
    free(copy);
    free(block);
    return st;
}

gip_status gip_resize(gip_context *ctx, const gip_image *src, gip_image *dst,
                      const gip_resize_params *params)
{
    static const char op[] = "gip_resize";
    const gip_resize_params def = GIP_RESIZE_PARAMS_DEFAULT;
    const gip_resize_params *p = params ? params : &def;
    bool on_device = false;
    gip_status st = gip__check_pair(ctx, src, dst, op, &on_device);
    if (st)
        return st;
    double inv_x = (double)dst->width / (double)src->width;
    double inv_y = (double)dst->height / (double)src->height;
    if (p->fx > 0 || p->fy > 0) {
        int64_t w, h;
        if ((st = gip_resize_size(src->width, src->height, 0, 0, p->fx, p->fy, &w, &h)))
            return gip__error(ctx, st, "%s", gip_last_error());
        if (w != dst->width || h != dst->height)
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: fx %g, fy %g make %lldx%lld from %lldx%lld, but dst is "
                              "%lldx%lld",
                              op, p->fx, p->fy, (long long)w, (long long)h, (long long)src->width,
                              (long long)src->height, (long long)dst->width,
                              (long long)dst->height);
        inv_x = p->fx;
        inv_y = p->fy;
    }
    return gip__resize_run(ctx, src, dst, p->interpolation, p->antialias, inv_x, inv_y);
}

/* ---- the registry's description ------------------------------------------------------------ */

static const gip_choice interps[] = {{"nearest", GIP_INTER_NEAREST},
                                     {"linear", GIP_INTER_LINEAR},
                                     {"cubic", GIP_INTER_CUBIC},
                                     {"area", GIP_INTER_AREA},
                                     {"lanczos4", GIP_INTER_LANCZOS4},
                                     {"linear_exact", GIP_INTER_LINEAR_EXACT},
                                     {"nearest_exact", GIP_INTER_NEAREST_EXACT},
                                     {NULL, 0}};

static const gip_param decl[] = {
    GIP__PARAM_EX("dsize", GIP_PARAM_SIZE, GIP_PARAM_POSITIONAL, 0, 2147483647, 0, NULL, "0",
                  "the output size WxH; 0 (or a side 0): round(fx * width) x round(fy * height)",
                  "7x5"),
    GIP__PARAM("fx", GIP_PARAM_DOUBLE, 0, 0, 1e6, 0, NULL, "0",
               "the horizontal scale factor when dsize is 0"),
    GIP__PARAM("fy", GIP_PARAM_DOUBLE, 0, 0, 1e6, 0, NULL, "0",
               "the vertical scale factor when dsize is 0"),
    GIP__PARAM("interpolation", GIP_PARAM_CHOICE, 0, 0, 0, 0, interps, "linear",
               "cv2.INTER_*: nearest, linear, cubic, area, lanczos4, linear_exact, "
               "nearest_exact"),
    GIP__PARAM("antialias", GIP_PARAM_BOOL, 0, 0, 1, 0, NULL, "0",
               "1: when shrinking with linear or cubic, widen the filter by the factor (as "
               "Pillow and torchvision's antialias=True)"),
};

typedef struct resize_step {
    int32_t dw, dh;
    double fx, fy;
    int32_t interpolation, antialias;
} resize_step;

static gip_status build(const gip_args *a, void *out)
{
    resize_step *p = out;
    gip_args_size(a, "dsize", &p->dw, &p->dh);
    p->fx = gip_args_double(a, "fx");
    p->fy = gip_args_double(a, "fy");
    p->interpolation = (int32_t)gip_args_int(a, "interpolation");
    p->antialias = (int32_t)gip_args_int(a, "antialias");
    if ((int64_t)p->dw * p->dh == 0 && !(p->fx > 0 && p->fy > 0))
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "resize: dsize %dx%d is empty, so both fx and fy must be > 0 (got %g "
                          "and %g)",
                          (int)p->dw, (int)p->dh, p->fx, p->fy);
    if (p->antialias && p->interpolation != GIP_INTER_LINEAR && p->interpolation != GIP_INTER_CUBIC)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "resize: antialias works with interpolation linear or cubic only");
    return GIP_OK;
}

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    const resize_step *p = params;
    int64_t w, h;
    gip_status st = gip_resize_size(in->width, in->height, p->dw, p->dh, p->fx, p->fy, &w, &h);
    if (st)
        return st;
    out->width = w;
    out->height = h;
    *identity = w == in->width && h == in->height;
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *params)
{
    const resize_step *p = params;
    const int given = (int64_t)p->dw * p->dh > 0;
    if (!src || !dst || !src->width || !src->height)
        return gip__resize_run(ctx, src, dst, p->interpolation, p->antialias, 1, 1);
    const double inv_x = given ? (double)p->dw / (double)src->width : p->fx;
    const double inv_y = given ? (double)p->dh / (double)src->height : p->fy;
    if (!given) {
        int64_t w, h;
        gip_status st = gip_resize_size(src->width, src->height, 0, 0, p->fx, p->fy, &w, &h);
        if (st)
            return gip__error(ctx, st, "%s", gip_last_error());
        if (w != dst->width || h != dst->height)
            return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                              "resize: dst is %lldx%lld; fx %g, fy %g make %lldx%lld",
                              (long long)dst->width, (long long)dst->height, p->fx, p->fy,
                              (long long)w, (long long)h);
    }
    if (given && (dst->width != p->dw || dst->height != p->dh))
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH, "resize: dst is %lldx%lld; dsize is %dx%d",
                          (long long)dst->width, (long long)dst->height, (int)p->dw, (int)p->dh);
    return gip__resize_run(ctx, src, dst, p->interpolation, p->antialias, inv_x, inv_y);
}

/* OpenCV's scale factors of the step for an input of w x h into dw x dh. */
static void step_scale(const resize_step *p, int64_t w, int64_t h, double *inv_x, double *inv_y)
{
    const int given = (int64_t)p->dw * p->dh > 0;
    *inv_x = given ? (double)p->dw / (double)w : p->fx;
    *inv_y = given ? (double)p->dh / (double)h : p->fy;
}

static gip_status band_rows(const void *params, const gip_shape *in, int64_t y0, int64_t y1,
                            int64_t *s0, int64_t *s1)
{
    const resize_step *p = params;
    gip_shape out = *in;
    int32_t id;
    gip_status st = shape(params, in, &out, &id);
    if (st)
        return st;
    double ix, iy;
    step_scale(p, in->width, in->height, &ix, &iy);
    return gip__resize_band_rows(in, out.width, out.height, p->interpolation, p->antialias, ix, iy,
                                 y0, y1, s0, s1);
}

static gip_status run_band(gip_context *ctx, const gip_image *src, int64_t s0, const gip_shape *in,
                           gip_image *dst, int64_t y0, const void *params)
{
    const resize_step *p = params;
    gip_shape out = *in;
    int32_t id;
    gip_status st = shape(params, in, &out, &id);
    if (st)
        return gip__error(ctx, st, "%s", gip_last_error());
    if (src->width != in->width || dst->width != out.width)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "resize (row band): src is %lld wide and dst %lld; the image is "
                          "%lld wide and its result %lld",
                          (long long)src->width, (long long)dst->width, (long long)in->width,
                          (long long)out.width);
    double ix, iy;
    step_scale(p, in->width, in->height, &ix, &iy);
    return gip__resize_run_band(ctx, src, s0, in->height, dst, y0, out.height, p->interpolation,
                                p->antialias, ix, iy);
}

const gip_op gip__op_resize = {
    .name = "resize",
    .family = "geometry",
    .summary = "Resizes the image, as cv2.resize (every interpolation), with an antialias option.",
    .doc = "The output is dsize, or round(fx * width) x round(fy * height) when dsize is 0. "
           "OpenCV's coordinate mapping and arithmetic for nearest, nearest_exact, linear (11-bit "
           "fixed point for u8; a 2x shrink is the area mean), linear_exact (8/16-bit fixed "
           "point), cubic (a = -0.75), area (block means for integer factors, OpenCV's "
           "weighted cells otherwise, linear-like when enlarging) and lanczos4: u8 results equal "
           "cv2.resize's; CPU and CUDA give identical results for every dtype. antialias=1 "
           "widens linear and cubic filters when shrinking (Pillow's and torchvision's "
           "antialiased resampling, a = -0.5 for cubic), in single precision. Changes the image "
           "size: not tiled, but row streaming (gip run on files larger than memory) and "
           "gip.dask cut it by output rows.",
    .cv_name = "cv2.resize",
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_WHOLE,
    .params_size = sizeof(resize_step),
    .build = build,
    .shape = shape,
    .run = run,
    .band_rows = band_rows,
    .run_band = run_band,
};
