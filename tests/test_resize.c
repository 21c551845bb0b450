/* SPDX-License-Identifier: MIT */
/* gip_resize and the resize step against a double-precision reference written here (OpenCV's
 * coordinate mapping with exact weights) on every dtype, channel count, interpolation, awkward
 * size and padded stride, within the levels the fixed-point arithmetic allows; the same size is
 * an exact copy; on CUDA equal to the CPU bit for bit for every dtype; bad input refused with
 * the output untouched. (Bit-exactness against cv2.resize itself is python/tests/test_geometry.py.)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gip/geometry.h"
#include "ops/geometry/resize.h"
#include "testing.h"

static const gip_dtype dtypes[] = {GIP_U8, GIP_U16, GIP_F32};
static const int32_t chans[] = {1, 3, 4};
static const int32_t interps[] = {
    GIP_INTER_NEAREST,  GIP_INTER_LINEAR,       GIP_INTER_CUBIC,        GIP_INTER_AREA,
    GIP_INTER_LANCZOS4, GIP_INTER_LINEAR_EXACT, GIP_INTER_NEAREST_EXACT};

static double kernel(int32_t interp, int32_t k, double t)
{
    if (interp == GIP_INTER_CUBIC) {
        const double A = -0.75, x = t + 1 - k; /* distance of tap k (k = 0..3 at -1..2) */
        const double ax = fabs(x);
        if (ax < 1)
            return ((A + 2) * ax - (A + 3)) * ax * ax + 1;
        if (ax < 2)
            return ((A * ax - 5 * A) * ax + 8 * A) * ax - 4 * A;
        return 0;
    }
    if (interp == GIP_INTER_LANCZOS4) {
        const double pi = 3.14159265358979323846, x = t + 3 - k;
        if (fabs(x) < 1e-12)
            return 1;
        return 4 * sin(pi * x) * sin(pi * x / 4) / (pi * pi * x * x);
    }
    return k == 0 ? 1 - t : t;
}

/* The weights of output index d on one axis: n taps at idx[] with w[] (normalised). */
static int axis_weights(int32_t interp, int64_t sn, int64_t dn, int64_t d, int64_t *idx, double *w,
                        int exact)
{
    const double scale = (double)sn / (double)dn;
    if (interp == GIP_INTER_AREA && scale >= 1) {
        const double a = d * scale, b = fmin(a + scale, (double)sn);
        int n = 0;
        double total = 0;
        for (int64_t s = (int64_t)floor(a); s < b; s++) {
            const double o = fmin(b, s + 1.0) - fmax(a, (double)s);
            if (o <= 1e-9)
                continue;
            idx[n] = s;
            w[n++] = o;
            total += o;
        }
        for (int i = 0; i < n; i++)
            w[i] /= total;
        return n;
    }
    double f, t;
    int64_t s;
    if (interp == GIP_INTER_AREA) { /* enlarging: OpenCV's area-mode linear weights */
        s = (int64_t)floor(d * scale);
        f = (float)((d + 1) - (s + 1) / scale);
        t = f <= 0 ? 0 : f - floor(f);
    } else {
        /* OpenCV's coordinates are single precision (double for linear-exact) */
        f = exact ? (d + 0.5) * scale - 0.5 : (float)((d + 0.5) * scale - 0.5);
        s = (int64_t)floor(f);
        t = f - s;
    }
    const int k = interp == GIP_INTER_CUBIC ? 4 : interp == GIP_INTER_LANCZOS4 ? 8 : 2;
    double total = 0;
    for (int j = 0; j < k; j++) {
        int64_t q = s - k / 2 + 1 + j;
        idx[j] = q < 0 ? 0 : q >= sn ? sn - 1 : q;
        w[j] = kernel(interp, j, t);
        total += w[j];
    }
    for (int j = 0; j < k; j++)
        w[j] /= total;
    return k;
}

static void reference(const gip_image *src, gip_image *exp, int32_t interp)
{
    const int64_t sw = src->width, sh = src->height, dw = exp->width, dh = exp->height;
    const int64_t nmax = (sw > sh ? sw : sh) + 16;
    int64_t *ix = malloc(sizeof(int64_t) * 2 * nmax), *iy = ix + nmax;
    double *wx = malloc(sizeof(double) * 2 * nmax), *wy = wx + nmax;
    for (int64_t y = 0; y < dh; y++) {
        for (int64_t x = 0; x < dw; x++) {
            if (interp == GIP_INTER_NEAREST || interp == GIP_INTER_NEAREST_EXACT) {
                int64_t sx, sy;
                if (interp == GIP_INTER_NEAREST) {
                    sx = (int64_t)floor((double)x * (1. / ((double)dw / (double)sw)));
                    sy = (int64_t)floor((double)y * (1. / ((double)dh / (double)sh)));
                } else { /* pixel centres, the position accumulated in double (OpenCV 5) */
                    double fx = 0.5 * sw / dw, fy = 0.5 * sh / dh;
                    for (int64_t i = 0; i < x; i++)
                        fx += (double)sw / dw;
                    for (int64_t i = 0; i < y; i++)
                        fy += (double)sh / dh;
                    sx = (int64_t)floor(fx);
                    sy = (int64_t)floor(fy);
                }
                sx = sx < sw - 1 ? sx : sw - 1;
                sy = sy < sh - 1 ? sy : sh - 1;
                for (int32_t c = 0; c < src->channels; c++)
                    gt_set(exp, x, y, c, gt_get(src, sx, sy, c));
                continue;
            }
            const int32_t lin = interp == GIP_INTER_LINEAR_EXACT ? GIP_INTER_LINEAR : interp;
            const int ex = interp == GIP_INTER_LINEAR_EXACT && src->dtype != GIP_F32;
            const int nx = axis_weights(lin, sw, dw, x, ix, wx, ex);
            const int ny = axis_weights(lin, sh, dh, y, iy, wy, ex);
            for (int32_t c = 0; c < src->channels; c++) {
                double v = 0;
                for (int j = 0; j < ny; j++)
                    for (int i = 0; i < nx; i++)
                        v += wy[j] * wx[i] * gt_get(src, ix[i], iy[j], c);
                gt_set(exp, x, y, c, v);
            }
        }
    }
    free(ix);
    free(wx);
}

/* The levels the fixed-point and single-precision arithmetic may differ from the exact weights. */
static double tolerance(gip_dtype dt, int32_t interp)
{
    if (interp == GIP_INTER_NEAREST || interp == GIP_INTER_NEAREST_EXACT)
        return 0;
    if (dt == GIP_F32)
        return interp == GIP_INTER_LINEAR || interp == GIP_INTER_LINEAR_EXACT ? 2e-3 : 0.05;
    if (interp == GIP_INTER_CUBIC || interp == GIP_INTER_LANCZOS4)
        return dt == GIP_U8 ? 2 : 2;
    return 1;
}

/* got within tol of exp on every element (integer dtypes too); prints the first miss and the
 * largest difference. */
static void compare_within(const gip_image *got, const gip_image *exp, double tol,
                           const char *label)
{
    double worst = 0;
    int64_t bad = 0, fx = -1, fy = -1;
    int32_t fc = -1;
    for (int64_t y = 0; y < got->height; y++)
        for (int64_t x = 0; x < got->width; x++)
            for (int32_t c = 0; c < got->channels; c++) {
                const double d = fabs(gt_get(got, x, y, c) - gt_get(exp, x, y, c));
                if (!(d <= tol)) {
                    if (!bad++)
                        fx = x, fy = y, fc = c;
                }
                if (d > worst)
                    worst = d;
            }
    GT_CHECK(!bad,
             "%s: %lld elements beyond %g, largest difference %g; first at x=%lld y=%lld c=%d: "
             "got %g, expected %g",
             label, (long long)bad, tol, worst, (long long)fx, (long long)fy, (int)fc,
             bad ? gt_get(got, fx, fy, fc) : 0.0, bad ? gt_get(exp, fx, fy, fc) : 0.0);
}

static gip_status run_resize(gip_context *ctx, const gip_image *src, gip_image *dst,
                             const void *params)
{
    return gip_resize(ctx, src, dst, params);
}

static void cases(gip_context *ctx)
{
    gip_context *cpu = NULL;
    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
        gip_context_desc d = {.backend = GIP_BACKEND_CPU};
        if (!GT_OK(gip_context_create(&d, &cpu)))
            return;
    }
    uint64_t seed = 11;
    for (int s = 0; s < gt_nsizes; s++) {
        const gt_size sz = gt_sizes[s];
        const int big = sz.w * sz.h > 100000;
        /* smaller by non-integer factors, larger, by two, to one pixel, the same */
        const int64_t outs[][2] = {{sz.w * 2 / 3 + 1, sz.h * 3 / 5 + 1},
                                   {big ? 97 : sz.w * 7 / 3 + 2, big ? 61 : sz.h * 5 / 2 + 1},
                                   {(sz.w + 1) / 2, (sz.h + 1) / 2},
                                   {1, 1},
                                   {sz.w, sz.h}};
        for (size_t o = 0; o < sizeof outs / sizeof outs[0]; o++)
            for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
                for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++)
                    for (size_t k = 0; k < sizeof interps / sizeof interps[0]; k++, seed++) {
                        if (!gt_case())
                            continue;
                        if (big && (interps[k] == GIP_INTER_LANCZOS4 || o == 4) && c != 1)
                            continue; /* kept short: the big size once per dtype there */
                        const int64_t dw = outs[o][0], dh = outs[o][1];
                        gip_image src, dst, exp;
                        gt_alloc(&src, sz.w, sz.h, chans[c], dtypes[d], seed % 3 ? 0 : 7);
                        gt_alloc(&dst, dw, dh, chans[c], dtypes[d], seed % 2 ? 0 : 5);
                        gt_alloc(&exp, dw, dh, chans[c], dtypes[d], 0);
                        gt_fill_random(&src, seed, 0, 0);
                        gip_resize_params p = {interps[k], 0, 0, 0};
                        char label[128];
                        snprintf(label, sizeof label,
                                 "resize %lldx%lld -> %lldx%lld %s c%d inter %d", (long long)sz.w,
                                 (long long)sz.h, (long long)dw, (long long)dh,
                                 gip_dtype_name(dtypes[d]), (int)chans[c], (int)interps[k]);
                        if (GT_OK(gt_run_unary(ctx, run_resize, &src, &dst, &p, 0x5A))) {
                            GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                            if (o == 4)
                                gt_compare(&dst, &src, 0, 0, label); /* the same size: a copy */
                            else if (!cpu) {
                                reference(&src, &exp, interps[k]);
                                compare_within(&dst, &exp, tolerance(dtypes[d], interps[k]), label);
                            } else {
                                /* CUDA: the CPU's bits, every dtype */
                                if (GT_OK(gip_resize(cpu, &src, &exp, &p)))
                                    gt_compare(&dst, &exp, 0, 0, label);
                            }
                        }
                        gt_free(&src);
                        gt_free(&dst);
                        gt_free(&exp);
                    }
    }
    /* antialias: on CUDA the CPU's bits; on the CPU shrinking a constant image keeps it */
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0] && gt_case(); d++)
        for (int cubic = 0; cubic < 2; cubic++) {
            gip_image src, dst, exp;
            gt_alloc(&src, 101, 67, 3, dtypes[d], 3);
            gt_alloc(&dst, 29, 40, 3, dtypes[d], 0);
            gt_alloc(&exp, 29, 40, 3, dtypes[d], 0);
            gip_resize_params p = {cubic ? GIP_INTER_CUBIC : GIP_INTER_LINEAR, 1, 0, 0};
            if (cpu) {
                gt_fill_random(&src, 99 + d, 0, 0);
                if (GT_OK(gt_run_unary(ctx, run_resize, &src, &dst, &p, 0x11)) &&
                    GT_OK(gip_resize(cpu, &src, &exp, &p)))
                    gt_compare(&dst, &exp, 0, 0, "antialias cuda vs cpu");
            } else {
                for (int64_t y = 0; y < 67; y++)
                    for (int64_t x = 0; x < 101; x++)
                        for (int32_t c = 0; c < 3; c++)
                            gt_set(&src, x, y, c, 100 + 7 * c);
                for (int64_t y = 0; y < 40; y++)
                    for (int64_t x = 0; x < 29; x++)
                        for (int32_t c = 0; c < 3; c++)
                            gt_set(&exp, x, y, c, 100 + 7 * c);
                if (GT_OK(gt_run_unary(ctx, run_resize, &src, &dst, &p, 0x11)))
                    gt_compare(&dst, &exp, dtypes[d] == GIP_F32 ? 1e-4 : 0, 0,
                               "antialias of a constant");
            }
            gt_free(&src);
            gt_free(&dst);
            gt_free(&exp);
        }
    gip_context_destroy(cpu);
}

static void sizes_and_factors(gip_context *ctx)
{
    int64_t w = 0, h = 0;
    GT_OK(gip_resize_size(10, 7, 0, 0, 0.25, 0.5, &w, &h));
    GT_CHECK(w == 2 && h == 4, "round(2.5) = 2, round(3.5) = 4 (half to even): got %lldx%lld",
             (long long)w, (long long)h);
    GT_OK(gip_resize_size(10, 7, 3, 9, 0.25, 0.5, &w, &h));
    GT_CHECK(w == 3 && h == 9, "dsize wins over fx, fy: got %lldx%lld", (long long)w, (long long)h);
    GT_STATUS(gip_resize_size(10, 7, 0, 5, 0, 0, &w, &h), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_resize_size(10, 7, 0, 0, 0.01, 0.5, &w, &h), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_resize_size(10, 7, 0, 0, NAN, 0.5, &w, &h), GIP_ERR_INVALID_ARGUMENT);
    /* fx, fy as the factors: nearest maps x to floor(x / fx), not floor(x * sw / dw) */
    gip_image src, dst;
    gt_alloc(&src, 10, 1, 1, GIP_U8, 0);
    gt_alloc(&dst, 3, 1, 1, GIP_U8, 0);
    for (int x = 0; x < 10; x++)
        gt_set(&src, x, 0, 0, x);
    gip_resize_params p = {GIP_INTER_NEAREST, 0, 0.34, 1.0};
    if (GT_OK(gt_run_unary(ctx, run_resize, &src, &dst, &p, 0))) {
        const int want[3] = {0, 2, 5}; /* floor(x / 0.34) */
        for (int x = 0; x < 3; x++)
            GT_CHECK(gt_get(&dst, x, 0, 0) == want[x], "fx nearest x=%d: got %g want %d", x,
                     gt_get(&dst, x, 0, 0), want[x]);
    }
    gt_free(&src);
    gt_free(&dst);
}

static void bad_input(gip_context *ctx)
{
    gip_image src, dst, d16;
    gt_alloc(&src, 9, 5, 3, GIP_U8, 0);
    gt_alloc(&dst, 4, 3, 3, GIP_U8, 0);
    gt_alloc(&d16, 4, 3, 3, GIP_U16, 0);
    gt_fill_random(&src, 1, 0, 0);
    gt_poison(&dst, 0x77);
    gip_resize_params p = GIP_RESIZE_PARAMS_DEFAULT;
    GT_STATUS(gip_resize(ctx, NULL, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_resize(ctx, &src, NULL, &p), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_resize(ctx, &src, &d16, &p), GIP_ERR_SHAPE_MISMATCH);
    gip_image two = src;
    two.channels = 2;
    gip_image two_d = dst;
    two_d.channels = 2;
    GT_STATUS(gip_resize(ctx, &two, &two_d, &p), GIP_ERR_INVALID_ARGUMENT);
    gip_image s16, s16d;
    gt_alloc(&s16, 9, 5, 3, GIP_S16, 0);
    gt_alloc(&s16d, 4, 3, 3, GIP_S16, 0);
    GT_STATUS(gip_resize(ctx, &s16, &s16d, &p), GIP_ERR_UNSUPPORTED);
    gt_free(&s16);
    gt_free(&s16d);
    p.interpolation = 9;
    GT_STATUS(gip_resize(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p = (gip_resize_params){GIP_INTER_AREA, 1, 0, 0};
    GT_STATUS(gip_resize(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(strstr(gip_last_error(), "antialias") != NULL, "message: %s", gip_last_error());
    p = (gip_resize_params){GIP_INTER_LINEAR, 0, 0.5, 0.5}; /* 9x5 * 0.5 = 4x2, dst is 4x3 */
    GT_STATUS(gip_resize(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    gip_image part = src;
    part.width = 4;
    part.height = 3;
    p = (gip_resize_params)GIP_RESIZE_PARAMS_DEFAULT;
    GT_STATUS(gip_resize(ctx, &src, &part, &p), GIP_ERR_ALIASING);
    for (int64_t i = 0; i < 4 * 3 * 3; i++)
        GT_CHECK(((uint8_t *)dst.data)[i] == 0x77, "dst written by a refusal at %lld",
                 (long long)i);
    /* The registry: the step's output shape, its checks, and a pipeline. */
    const gip_op *op = gip_op_find("resize");
    gip_args *a = NULL;
    if (GT_CHECK(op != NULL, "resize is not registered") && GT_OK(gip_args_create(op, &a))) {
        gip_shape in = {9, 5, 3, GIP_U8}, out;
        GT_STATUS(gip_op_output_shape(a, &in, &out), GIP_ERR_INVALID_ARGUMENT); /* no size */
        GT_OK(gip_args_set_text(a, "fx", "0.5"));
        GT_OK(gip_args_set_text(a, "fy", "1.5"));
        if (GT_OK(gip_op_output_shape(a, &in, &out)))
            GT_CHECK(out.width == 4 && out.height == 8 && out.channels == 3,
                     "fx 0.5 fy 1.5 of 9x5: %lldx%lld", (long long)out.width,
                     (long long)out.height);
        GT_OK(gip_args_set_text(a, "dsize", "4x3"));
        GT_STATUS(gip_args_set_text(a, "interpolation", "bogus"), GIP_ERR_INVALID_ARGUMENT);
        GT_OK(gip_args_set_text(a, "interpolation", "cubic"));
        if (GT_OK(gip_op_output_shape(a, &in, &out)))
            GT_CHECK(out.width == 4 && out.height == 3, "dsize 4x3: %lldx%lld",
                     (long long)out.width, (long long)out.height);
        gip_image ref;
        gt_alloc(&ref, 4, 3, 3, GIP_U8, 0);
        gip_resize_params q = {GIP_INTER_CUBIC, 0, 0, 0};
        if (GT_OK(gt_run_unary(ctx, run_resize, &src, &ref, &q, 0)) &&
            gip_context_backend(ctx) == GIP_BACKEND_CPU && GT_OK(gip_op_apply(ctx, a, &src, &dst)))
            gt_compare(&dst, &ref, 0, 0, "registry vs gip_resize");
        gt_free(&ref);
        gip_args_free(a);
    }
    gip_context_desc d = {.backend = GIP_BACKEND_CPU};
    gip_pipeline *pl = NULL;
    if (GT_OK(gip_pipeline_create(&d, &pl))) {
        GT_OK(gip_pipeline_parse(pl, "resize 7x5 interpolation=area | invert", NULL));
        int64_t hx, hy;
        GT_OK(gip_pipeline_halo(pl, &hx, &hy));
        GT_CHECK(hx == -1 && hy == -1, "halo %lld,%lld, expected the whole image", (long long)hx,
                 (long long)hy);
        GT_STATUS(gip_pipeline_parse(pl, "resize", NULL), GIP_ERR_INVALID_ARGUMENT);
        GT_STATUS(gip_pipeline_parse(pl, "resize 7x5 antialias=1 interpolation=nearest", NULL),
                  GIP_ERR_INVALID_ARGUMENT);
        gip_pipeline_free(pl);
    }
    gt_free(&src);
    gt_free(&dst);
    gt_free(&d16);
}

/* Row bands (gip_op_band_rows, gip_op_apply_band): output rows [y0, y1) computed from only the
 * source rows the band names (copied into an image of their own) equal those rows of the whole
 * resize, for every interpolation, shrinks (incl. integer ones) and enlargements, antialias and
 * thumbnail; bad bands refused. */
typedef struct band_call {
    const gip_args *a;
    int64_t s0, y0;
    gip_shape in;
} band_call;

static gip_status run_band(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    const band_call *b = p;
    return gip_op_apply_band(ctx, b->a, src, b->s0, &b->in, dst, b->y0);
}

static void bands(gip_context *ctx)
{
    static const struct {
        const char *op, *args[3];
        int64_t w, h;
    } cases[] = {
        {"resize", {"dsize=40x23", "interpolation=linear", NULL}, 97, 61},
        {"resize", {"dsize=40x23", "interpolation=cubic", NULL}, 97, 61},
        {"resize", {"dsize=40x23", "interpolation=area", NULL}, 97, 61},
        {"resize", {"dsize=40x23", "interpolation=lanczos4", NULL}, 97, 61},
        {"resize", {"dsize=40x23", "interpolation=nearest_exact", NULL}, 97, 61},
        {"resize", {"dsize=40x23", "interpolation=linear_exact", NULL}, 97, 61},
        {"resize", {"dsize=40x23", "interpolation=linear", "antialias=1"}, 97, 61},
        {"resize", {"dsize=33x20", "interpolation=area", NULL}, 99, 60},   /* integer factors */
        {"resize", {"dsize=48x30", "interpolation=linear", NULL}, 97, 61}, /* exactly 2 */
        {"resize", {"dsize=150x131", "interpolation=cubic", NULL}, 61, 47},
        {"resize", {"dsize=150x131", "interpolation=area", NULL}, 61, 47},
        {"resize", {"dsize=150x131", "interpolation=nearest", NULL}, 61, 47},
        {"thumbnail", {"size=30", NULL, NULL}, 97, 61},
        {"thumbnail", {"size=30", "interpolation=linear", "antialias=1"}, 61, 97},
    };
    static const gip_dtype dts[] = {GIP_U8, GIP_U16, GIP_F32};
    gip_context *cpu = NULL;
    gip_context_desc cd = {.backend = GIP_BACKEND_CPU};
    if (!GT_OK(gip_context_create(&cd, &cpu)))
        return;
    uint64_t seed = 700;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (size_t d = 0; d < 3; d++)
            for (int32_t c = 1; c <= 4; c += c == 1 ? 2 : 1, seed++) {
                gip_args *a = NULL;
                if (!GT_OK(gip_args_create(gip_op_find(cases[i].op), &a)))
                    continue;
                for (int k = 0; k < 3 && cases[i].args[k]; k++) {
                    char name[32];
                    const char *eq = strchr(cases[i].args[k], '=');
                    snprintf(name, sizeof name, "%.*s", (int)(eq - cases[i].args[k]),
                             cases[i].args[k]);
                    GT_OK(gip_args_set_text(a, name, eq + 1));
                }
                gip_shape in = {cases[i].w, cases[i].h, c, dts[d]}, out;
                gip_image src, whole;
                if (!GT_OK(gip_op_output_shape(a, &in, &out))) {
                    gip_args_free(a);
                    continue;
                }
                gt_alloc(&src, in.width, in.height, c, dts[d], 0);
                gt_alloc(&whole, out.width, out.height, c, dts[d], 0);
                gt_fill_random(&src, seed, 0, 0);
                GT_OK(gip_op_apply(cpu, a, &src, &whole));
                /* bands of 1, 7 and the rest, at the start, middle and end */
                const int64_t cuts[][2] = {{0, 1},
                                           {0, 7},
                                           {out.height / 2 - 3, out.height / 2 + 4},
                                           {out.height - 1, out.height},
                                           {0, out.height}};
                for (size_t b = 0; b < sizeof cuts / sizeof cuts[0]; b++) {
                    if (!gt_case())
                        continue;
                    const int64_t y0 = cuts[b][0], y1 = cuts[b][1];
                    int64_t s0 = -1, s1 = -1;
                    if (!GT_OK(gip_op_band_rows(a, &in, y0, y1, &s0, &s1)))
                        continue;
                    GT_CHECK(s0 >= 0 && s1 <= in.height && s0 < s1,
                             "%s: band [%lld, %lld) -> "
                             "source [%lld, %lld)",
                             cases[i].op, (long long)y0, (long long)y1, (long long)s0,
                             (long long)s1);
                    gip_image part, sband, dband, want;
                    gt_alloc(&sband, in.width, s1 - s0, c, dts[d], 3);
                    gt_alloc(&dband, out.width, y1 - y0, c, dts[d], 0);
                    if (GT_OK(gip_image_roi(&src, 0, s0, in.width, s1 - s0, &part)) &&
                        GT_OK(gip_copy(cpu, &part, &sband))) {
                        band_call bc = {a, s0, y0, in};
                        char label[160];
                        snprintf(label, sizeof label, "%s %s %s %s %s c%d rows [%lld, %lld)",
                                 cases[i].op, cases[i].args[0],
                                 cases[i].args[1] ? cases[i].args[1] : "",
                                 cases[i].args[2] ? cases[i].args[2] : "", gip_dtype_name(dts[d]),
                                 (int)c, (long long)y0, (long long)y1);
                        if (GT_OK(gt_run_unary(ctx, run_band, &sband, &dband, &bc, 0x3C)) &&
                            GT_OK(gip_image_roi(&whole, 0, y0, out.width, y1 - y0, &want)))
                            gt_compare(&dband, &want, 0, 0, label);
                    }
                    gt_free(&sband);
                    gt_free(&dband);
                }
                /* a band that lacks rows, rows outside, a step that is not cut */
                if (gt_case() && in.height > 4) {
                    gip_image part, dband;
                    gt_alloc(&dband, out.width, 2, c, dts[d], 0);
                    int64_t s0, s1;
                    if (GT_OK(gip_op_band_rows(a, &in, out.height - 2, out.height, &s0, &s1)) &&
                        GT_OK(gip_image_roi(&src, 0, 0, in.width, 2, &part)))
                        GT_STATUS(gip_op_apply_band(cpu, a, &part, 0, &in, &dband, out.height - 2),
                                  s0 >= 2 ? GIP_ERR_SHAPE_MISMATCH : GIP_OK);
                    GT_STATUS(gip_op_band_rows(a, &in, 0, out.height + 1, &s0, &s1),
                              GIP_ERR_INVALID_ARGUMENT);
                    gt_free(&dband);
                }
                gt_free(&src);
                gt_free(&whole);
                gip_args_free(a);
            }
    gip_args *g = NULL;
    gip_shape in = {10, 10, 1, GIP_U8};
    int64_t s0, s1;
    if (GT_OK(gip_args_create(gip_op_find("gaussian"), &g)))
        GT_STATUS(gip_op_band_rows(g, &in, 0, 1, &s0, &s1), GIP_ERR_UNSUPPORTED);
    gip_args_free(g);
    gip_context_destroy(cpu);
}

/* gip_resize of a one-pixel-in view when roi is set (a data pointer off the buffer's alignment). */
typedef struct roi_call {
    gip_resize_params p;
    int roi;
} roi_call;

static gip_status run_resize_roi(gip_context *ctx, const gip_image *src, gip_image *dst,
                                 const void *params)
{
    const roi_call *c = params;
    gip_image s = *src, d = *dst;
    gip_status st;
    if (c->roi && ((st = gip_image_roi(src, 1, 0, src->width - 1, src->height, &s)) ||
                   (st = gip_image_roi(dst, 1, 0, dst->width - 1, dst->height, &d))))
        return st;
    return gip_resize(ctx, &s, &d, &c->p);
}

/* The CUDA kernels' vector paths (8-byte aligned source rows, 4-byte aligned destination rows) and
 * their fallbacks: 16-byte strides, views one pixel into their buffers, widths that leave a
 * partial group of four pixels, odd sizes whose last 2x2 block is cut by the edge, one pixel;
 * each equal to the CPU's resize of a tight copy. */
static void views(gip_context *ctx)
{
    gip_context *cpu = NULL;
    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
        gip_context_desc d = {.backend = GIP_BACKEND_CPU};
        if (!GT_OK(gip_context_create(&d, &cpu)))
            return;
    }
    gip_context *ref = cpu ? cpu : ctx;
    static const gt_size sizes[] = {{63, 47}, {30, 5}, {2, 2}, {1, 1}, {130, 9}};
    static const double factors[] = {0.5, 2.0, 0.6, 1.7};
    static const gip_dtype vdt[] = {GIP_U8, GIP_F32};
    static const int32_t vin[] = {GIP_INTER_NEAREST, GIP_INTER_LINEAR, GIP_INTER_CUBIC,
                                  GIP_INTER_AREA};
    uint64_t seed = 500;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t f = 0; f < sizeof factors / sizeof factors[0]; f++)
            for (size_t d = 0; d < sizeof vdt / sizeof vdt[0]; d++)
                for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++)
                    for (size_t k = 0; k < sizeof vin / sizeof vin[0]; k++)
                        for (int roi = 0; roi < 2; roi++, seed++) {
                            if (!gt_case())
                                continue;
                            const int64_t sw = sizes[s].w, sh = sizes[s].h;
                            int64_t dw, dh;
                            if (gip_resize_size(sw, sh, 0, 0, factors[f], factors[f], &dw, &dh) ||
                                dw < 1 || dh < 1)
                                continue;
                            const int32_t cn = chans[c];
                            gip_image src, dst, tsrc, exp, gv;
                            gt_alloc(&src, sw + roi, sh, cn, vdt[d],
                                     gt_pad16(sw + roi, cn, vdt[d]));
                            gt_alloc(&dst, dw + roi, dh, cn, vdt[d],
                                     gt_pad16(dw + roi, cn, vdt[d]));
                            gt_alloc(&tsrc, sw, sh, cn, vdt[d], 0);
                            gt_alloc(&exp, dw, dh, cn, vdt[d], 0);
                            gt_fill_random(&src, seed, 0, 0);
                            for (int64_t y = 0; y < sh; y++)
                                for (int64_t x = 0; x < sw; x++)
                                    for (int32_t ch = 0; ch < cn; ch++)
                                        gt_set(&tsrc, x, y, ch, gt_get(&src, x + roi, y, ch));
                            roi_call call = {{vin[k], 0, factors[f], factors[f]}, roi};
                            char label[128];
                            snprintf(label, sizeof label,
                                     "resize view %lldx%lld fx %g %s c%d inter %d roi %d",
                                     (long long)sw, (long long)sh, factors[f],
                                     gip_dtype_name(vdt[d]), (int)cn, (int)vin[k], roi);
                            if (GT_OK(gt_run_unary(ctx, run_resize_roi, &src, &dst, &call, 0x3C)) &&
                                GT_OK(gip_resize(ref, &tsrc, &exp, &call.p)) &&
                                GT_OK(gip_image_roi(&dst, roi, 0, dw, dh, &gv))) {
                                GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                                gt_compare(&gv, &exp, 0, 0, label);
                            }
                            gt_free(&src);
                            gt_free(&dst);
                            gt_free(&tsrc);
                            gt_free(&exp);
                        }
    gip_context_destroy(cpu);
}

/* CUDA: outputs large enough that the specialised kernels give each thread several rows (at
 * least 8192 blocks of 128 columns by 8 rows: here 16 by 513, the last rows a partial pass) and
 * stage their column taps once a block: the CPU's bits (nothing to compare with on the CPU). */
static void large_outputs(gip_context *ctx)
{
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA)
        return;
    gip_context *cpu = NULL;
    gip_context_desc d = {.backend = GIP_BACKEND_CPU};
    if (!GT_OK(gip_context_create(&d, &cpu)))
        return;
    static const int32_t lin[] = {GIP_INTER_LINEAR, GIP_INTER_CUBIC, GIP_INTER_AREA,
                                  GIP_INTER_LINEAR_EXACT};
    uint64_t seed = 900;
    for (int32_t cn = 1; cn <= 3; cn += 2)
        for (size_t k = 0; k < sizeof lin / sizeof lin[0]; k++, seed++) {
            if (!gt_case())
                continue;
            const int64_t sw = 1001, sh = 1777, dw = 2047, dh = 4100;
            gip_image src, dst, exp;
            gt_alloc(&src, sw, sh, cn, GIP_U8, seed % 2 ? 0 : 3);
            gt_alloc(&dst, dw, dh, cn, GIP_U8, 0);
            gt_alloc(&exp, dw, dh, cn, GIP_U8, 0);
            gt_fill_random(&src, seed, 0, 0);
            gip_resize_params p = {lin[k], 0, 0, 0};
            char label[96];
            snprintf(label, sizeof label, "resize large %lldx%lld -> %lldx%lld u8 c%d inter %d",
                     (long long)sw, (long long)sh, (long long)dw, (long long)dh, (int)cn,
                     (int)lin[k]);
            if (GT_OK(gt_run_unary(ctx, run_resize, &src, &dst, &p, 0x5A)) &&
                GT_OK(gip_resize(cpu, &src, &exp, &p)))
                gt_compare(&dst, &exp, 0, 0, label);
            gt_free(&src);
            gt_free(&dst);
            gt_free(&exp);
        }
    gip_context_destroy(cpu);
}

/* u8 halving by INTER_AREA (and INTER_LINEAR, which OpenCV sends there) is the exact
 * (a + b + c + d + 2) >> 2 of each 2x2 block, on widths around every vector step (16, 32, 10
 * and 8 output pixels) and with padded rows; on the CPU again with GIP_NOAVX512=1 and with
 * GIP_NOSIMD=1, so that each of its loops is checked. */
static void halves(gip_context *ctx)
{
    static const int64_t widths[] = {2, 4, 18, 20, 22, 34, 62, 64, 66, 96, 130, 258, 2002};
    static const int64_t heights[] = {2, 6, 10};
    static const char *const caps[] = {NULL, "GIP_NOAVX512", "GIP_NOSIMD"};
    const int ncaps = gt_current_backend == GT_CPU ? 3 : 1;
    for (int cap = 0; cap < ncaps; cap++) {
        if (caps[cap])
            gt_setenv(caps[cap], "1");
        for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++)
            for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++)
                for (size_t hi = 0; hi < sizeof heights / sizeof heights[0]; hi++)
                    for (int lin = 0; lin < 2; lin++) {
                        if (!gt_case())
                            continue;
                        const int64_t sw = widths[wi], sh = heights[hi], dw = sw / 2, dh = sh / 2;
                        gip_image src, dst, exp;
                        gt_alloc(&src, sw, sh, chans[c], GIP_U8, (int64_t)wi % 3 * 5);
                        gt_alloc(&dst, dw, dh, chans[c], GIP_U8, (int64_t)hi % 2 * 3);
                        gt_alloc(&exp, dw, dh, chans[c], GIP_U8, 0);
                        gt_fill_random(&src, (uint64_t)(97 * wi + 7 * hi + c + 1), 0, 0);
                        for (int64_t y = 0; y < dh; y++)
                            for (int64_t x = 0; x < dw; x++)
                                for (int32_t k = 0; k < chans[c]; k++) {
                                    const double t = gt_get(&src, 2 * x, 2 * y, k) +
                                                     gt_get(&src, 2 * x + 1, 2 * y, k) +
                                                     gt_get(&src, 2 * x, 2 * y + 1, k) +
                                                     gt_get(&src, 2 * x + 1, 2 * y + 1, k);
                                    gt_set(&exp, x, y, k, (double)(((int32_t)t + 2) >> 2));
                                }
                        gip_resize_params p = {lin ? GIP_INTER_LINEAR : GIP_INTER_AREA, 0, 0, 0};
                        char label[128];
                        snprintf(label, sizeof label, "halve %lldx%lld c%d %s%s%s", (long long)sw,
                                 (long long)sh, (int)chans[c], lin ? "linear" : "area",
                                 caps[cap] ? " with " : "", caps[cap] ? caps[cap] : "");
                        if (GT_OK(gt_run_unary(ctx, run_resize, &src, &dst, &p, 0x77))) {
                            GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                            gt_compare(&dst, &exp, 0, 0, label);
                        }
                        gt_free(&src);
                        gt_free(&dst);
                        gt_free(&exp);
                    }
        if (caps[cap])
            gt_setenv(caps[cap], NULL);
    }
}

/* gip__resize_window (the loader's centre crops) against the same window of the whole resize, bit
 * for bit, from the whole source and from only the part gip__resize_window_source says it reads:
 * every separable interpolation, shrinking and enlarging, windows at the corners, the middle and
 * one pixel wide; the plans that are not separable are refused. */
static void windows(gip_context *ctx)
{
    if (gt_current_backend != GT_CPU)
        return;
    static const struct {
        int32_t interp, aa;
        int64_t sw, sh, dw, dh;
        int sep;
    } cases[] = {{GIP_INTER_LINEAR, 1, 97, 61, 40, 23, 1},
                 {GIP_INTER_LINEAR, 1, 500, 375, 341, 256, 1},
                 {GIP_INTER_LINEAR, 0, 97, 61, 40, 23, 1},
                 {GIP_INTER_LINEAR, 1, 61, 47, 150, 131, 1},
                 {GIP_INTER_CUBIC, 0, 97, 61, 40, 23, 1},
                 {GIP_INTER_CUBIC, 1, 97, 61, 40, 23, 1},
                 {GIP_INTER_CUBIC, 0, 61, 47, 150, 131, 1},
                 {GIP_INTER_LANCZOS4, 0, 97, 61, 40, 23, 1},
                 {GIP_INTER_LINEAR_EXACT, 0, 97, 61, 40, 23, 1},
                 {GIP_INTER_AREA, 0, 97, 61, 40, 23, 1},
                 {GIP_INTER_NEAREST, 0, 97, 61, 40, 23, 0},
                 {GIP_INTER_AREA, 0, 99, 60, 33, 20, 0}};
    static const gip_dtype dts[] = {GIP_U8, GIP_U16, GIP_F32};
    uint64_t seed = 900;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (size_t d = 0; d < 3; d++)
            for (int32_t c = 1; c <= 4; c += c == 1 ? 2 : 1, seed++) {
                if (!gt_case())
                    continue;
                const int64_t dw = cases[i].dw, dh = cases[i].dh;
                gip_image src, whole, win;
                gt_alloc(&src, cases[i].sw, cases[i].sh, c, dts[d], 3);
                gt_fill_random(&src, seed, 0, 0);
                gt_alloc(&whole, dw, dh, c, dts[d], 0);
                gip_resize_params rp = {cases[i].interp, cases[i].aa, 0.0, 0.0};
                if (!GT_OK(gip_resize(ctx, &src, &whole, &rp))) {
                    gt_free(&src);
                    gt_free(&whole);
                    continue;
                }
                const int64_t wins[][4] = {{0, 0, dw, dh},         {0, 0, 7, 5},
                                           {dw - 9, dh - 4, 9, 4}, {dw / 3, dh / 4, dw / 2, dh / 2},
                                           {dw / 2, 1, 1, dh - 1}, {1, dh / 2, dw - 1, 1}};
                for (size_t k = 0; k < sizeof wins / sizeof wins[0]; k++) {
                    const int64_t x0 = wins[k][0], y0 = wins[k][1], w = wins[k][2], h = wins[k][3];
                    gt_alloc(&win, w, h, c, dts[d], 5);
                    /* odd k: from only the part of the source the window reads */
                    const gip_shape in = {cases[i].sw, cases[i].sh, c, dts[d]};
                    gip__rs_part need = {0, 0, cases[i].sw, cases[i].sh};
                    gip_image part = src;
                    gip_status st = GIP_OK;
                    if (k % 2) {
                        st = gip__resize_window_source(&in, dw, dh, x0, y0, w, h, cases[i].interp,
                                                       cases[i].aa, &need);
                        if (st == GIP_OK)
                            GT_OK(gip_image_roi(&src, need.x, need.y, need.w, need.h, &part));
                    }
                    const gip__rs_part where = {need.x, need.y, cases[i].sw, cases[i].sh};
                    if (st == GIP_OK)
                        st = gip__resize_window(ctx, &part, k % 2 ? &where : NULL, &win, dw, dh, x0,
                                                y0, cases[i].interp, cases[i].aa);
                    char label[128];
                    snprintf(label, sizeof label,
                             "window interp %d aa %d %lldx%lld->%lldx%lld %s c%d "
                             "(%lld, %lld) %lldx%lld",
                             (int)cases[i].interp, (int)cases[i].aa, (long long)cases[i].sw,
                             (long long)cases[i].sh, (long long)dw, (long long)dh,
                             gip_dtype_name(dts[d]), c, (long long)x0, (long long)y0, (long long)w,
                             (long long)h);
                    if (!cases[i].sep) {
                        GT_CHECK(st == GIP_ERR_UNSUPPORTED, "%s: %s, expected unsupported", label,
                                 gip_status_name(st));
                    } else if (GT_CHECK(st == GIP_OK, "%s: %s", label, gip_status_name(st))) {
                        const size_t rb = (size_t)(w * c) * gip_dtype_size(dts[d]);
                        int64_t bad = -1;
                        for (int64_t y = 0; y < h && bad < 0; y++)
                            if (memcmp((const char *)win.data + y * win.stride,
                                       (const char *)whole.data + (y0 + y) * whole.stride +
                                           (size_t)(x0 * c) * gip_dtype_size(dts[d]),
                                       rb) != 0)
                                bad = y;
                        GT_CHECK(bad < 0, "%s: row %lld differs from the whole resize's", label,
                                 (long long)bad);
                    }
                    gt_free(&win);
                }
                /* outside the whole output, or a part short of what the window reads: refused */
                gt_alloc(&win, 4, 4, c, dts[d], 0);
                GT_STATUS(gip__resize_window(ctx, &src, NULL, &win, dw, dh, dw - 3, 0,
                                             cases[i].interp, cases[i].aa),
                          GIP_ERR_INVALID_ARGUMENT);
                if (cases[i].sep) {
                    gip_image part;
                    const gip__rs_part where = {1, 0, cases[i].sw, cases[i].sh};
                    GT_OK(gip_image_roi(&src, 1, 0, cases[i].sw - 1, cases[i].sh, &part));
                    GT_STATUS(gip__resize_window(ctx, &part, &where, &win, dw, dh, 0, 0,
                                                 cases[i].interp, cases[i].aa),
                              GIP_ERR_SHAPE_MISMATCH);
                }
                gt_free(&win);
                gt_free(&src);
                gt_free(&whole);
            }
}

static void body(gip_context *ctx)
{
    cases(ctx);
    halves(ctx);
    views(ctx);
    bands(ctx);
    windows(ctx);
    large_outputs(ctx);
    if (gt_case())
        sizes_and_factors(ctx);
    if (gt_case())
        bad_input(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "resize", body);
}
