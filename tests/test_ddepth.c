/* SPDX-License-Identifier: MIT */
/* Destination dtypes as cv2's ddepth: gip_sobel, gip_filter2d and gip_box_filter from every
 * source dtype (u8, u16, f32) to every destination (u8, u16, s16, f32) that the old rules refused,
 * against the double references (rounded half to even and saturated), with both meanings of an
 * unsigned Sobel result (|v| and cv2's saturation); the case, Sobel from f32 to u8,
 * value by value; CPU and CUDA identical; the refusals that remain and their messages. Cases
 * run in slices with GIP_TEST_SLICE (testing.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/separable/separable.h"
#include "ref_filter.h"
#include "ref_filter2d.h"
#include "testing.h"

static gip_context *cpu_ctx; /* CPU context for the CUDA-vs-CPU comparison (CUDA runs only) */

static const gip_dtype srcs[] = {GIP_U8, GIP_U16, GIP_F32};
static const gip_dtype dsts[] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};
static const gt_size sizes[] = {{1, 1}, {1, 17}, {17, 1}, {13, 42}, {64, 48}, {171, 5}};
static const int32_t chans[] = {1, 3, 4};

static gip_status run_sobel(gip_context *ctx, const gip_image *s, gip_image *d, const void *p)
{
    return gip_sobel(ctx, s, d, p);
}

static gip_status run_f2d(gip_context *ctx, const gip_image *s, gip_image *d, const void *p)
{
    return gip_filter2d(ctx, s, d, p);
}

static gip_status run_box(gip_context *ctx, const gip_image *s, gip_image *d, const void *p)
{
    return gip_box_filter(ctx, s, d, p);
}

/* Pairs the old rules accepted and the operation's own test covers. */
static bool old_pair(const char *op, gip_dtype s, gip_dtype d)
{
    if (d == GIP_F32 || (s == GIP_U8 && d == GIP_S16 && strcmp(op, "sobel") == 0))
        return true;
    return s == d && strcmp(op, "sobel") != 0;
}

/* A source whose values make float sums exact: f32 in multiples of 1/8 in [0, 256), so that an
 * integer result is the exactly rounded reference (a float sum within an ulp of a half would round
 * either way). */
static void fill_src(gip_image *src, uint64_t seed)
{
    gt_fill_random(src, seed, 0, 0);
    if (src->dtype != GIP_F32)
        return;
    for (int64_t y = 0; y < src->height; y++) {
        float *row = (float *)((char *)src->data + y * src->stride);
        for (int64_t i = 0; i < src->width * src->channels; i++)
            row[i] = floorf(row[i] * 8.0f) / 8.0f;
    }
}

/* Runs fn on src into a new dst of dtype dt (odd row padding, or 16-byte rows for the packed and
 * ring CUDA kernels), compares it with the reference values `ref` stored into dt, and on CUDA
 * with the CPU's result. */
static void check(gip_context *ctx, gt_unary_fn fn, const gip_image *src, gip_dtype dt,
                  const void *params, const double *ref, double atol, bool align16,
                  const char *label)
{
    gip_image dst, exp;
    int64_t pad =
        align16 ? gt_pad16(src->width, src->channels, dt) : 3 * (int64_t)gip_dtype_size(dt);
    gt_alloc(&dst, src->width, src->height, src->channels, dt, pad);
    gt_alloc(&exp, src->width, src->height, src->channels, dt, 0);
    if (GT_OK(gt_run_unary(ctx, fn, src, &dst, params, 0xEE))) {
        ref2d_store(&exp, ref);
        gt_compare(&dst, &exp, atol, 2e-6, label);
        GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
        if (cpu_ctx) {
            gip_image cpu;
            gt_alloc(&cpu, src->width, src->height, src->channels, dt, 0);
            if (GT_OK(fn(cpu_ctx, src, &cpu, params))) {
                char l2[300];
                snprintf(l2, sizeof l2, "%s (CUDA vs CPU)", label);
                gt_compare(&dst, &cpu, 0, 0, l2);
            }
            gt_free(&cpu);
        }
    }
    gt_free(&dst);
    gt_free(&exp);
}

/* ---- Sobel ------------------------------------------------------------------------------------
 */

static void sobel_case(gip_context *ctx, gt_size sz, gip_dtype st, gip_dtype dt, int32_t ch,
                       int32_t dx, int32_t dy, int32_t ksize, gip_border b, gip_sobel_unsigned u,
                       float scale, float delta, uint64_t seed)
{
    if (!gt_case())
        return;
    const bool align16 = seed % 3 == 0;
    gip_image src;
    gt_alloc(&src, sz.w, sz.h, ch, st, align16 ? gt_pad16(sz.w, ch, st) : (int64_t)(seed % 2) * 5);
    fill_src(&src, seed);
    gip_sobel_params p = {.dx = dx, .dy = dy, .ksize = ksize, .scale = scale, .delta = delta};
    p.unsigned_out = u;
    p.border.mode = b;
    p.border.value[0] = 9, p.border.value[1] = 250, p.border.value[2] = 0.5f;
    p.border.value[3] = 77;
    double k[49];
    int32_t kw, kh;
    ref2d_sobel_kernel(dx, dy, ksize, k, &kw, &kh);
    const int64_t n = sz.w * sz.h * ch;
    double *ref = malloc((size_t)n * sizeof *ref);
    ref2d_correlate(&src, k, kw, kh, kw / 2, kh / 2, b, p.border.value, ref);
    const double sc = scale == 0 ? 1.0 : scale;
    const bool unsig = dt == GIP_U8 || dt == GIP_U16;
    for (int64_t i = 0; i < n; i++) {
        ref[i] = ref[i] * sc + delta;
        if (unsig && u == GIP_SOBEL_ABS)
            ref[i] = fabs(ref[i]);
    }
    char label[240];
    snprintf(label, sizeof label,
             "sobel %lldx%lld %s->%s%s c%d dx%d dy%d k%d %s scale %g delta %g%s", (long long)sz.w,
             (long long)sz.h, gip_dtype_name(st), gip_dtype_name(dt),
             unsig ? (u == GIP_SOBEL_ABS ? " (abs)" : " (saturate)") : "", ch, dx, dy, ksize,
             gip_border_name(b), scale, delta, align16 ? " aligned" : "");
    check(ctx, run_sobel, &src, dt, &p, ref, 1e-6, align16, label);
    free(ref);
    gt_free(&src);
}

static void sobel_pairs(gip_context *ctx)
{
    static const struct {
        int32_t dx, dy, ksize;
    } orders[] = {{1, 0, 3}, {0, 1, 3},          {1, 1, 3}, {2, 0, 5},
                  {1, 0, 1}, {0, 1, GIP_SCHARR}, {3, 2, 7}, {0, 2, 3}};
    const int no = (int)(sizeof orders / sizeof orders[0]);
    uint64_t seed = 100;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int si = 0; si < 3; si++)
            for (int di = 0; di < 4; di++)
                for (int u = 0; u < 2; u++) {
                    const gip_dtype st = srcs[si], dt = dsts[di];
                    const bool unsig = dt == GIP_U8 || dt == GIP_U16;
                    /* The unsigned mode matters for u8 and u16 only; u8 -> u8 |v| is old. */
                    if ((u && !unsig) || (old_pair("sobel", st, dt) && !(unsig && u)) ||
                        (st == GIP_U8 && dt == GIP_U8 && !u))
                        continue;
                    for (int b = 0; b <= GIP_BORDER_WRAP; b++, seed++) {
                        const int o = (int)(seed % (uint64_t)no);
                        /* Dyadic scale and delta keep the reference exact. */
                        const float scale = seed % 4 == 0 ? 0.5f : seed % 4 == 1 ? 2.0f : 0.0f;
                        const float delta = seed % 3 == 0 ? -3.25f : seed % 3 == 1 ? 2.5f : 0.0f;
                        sobel_case(ctx, sizes[s], st, dt, chans[(s + b) % 3], orders[o].dx,
                                   orders[o].dy, orders[o].ksize, (gip_border)b,
                                   u ? GIP_SOBEL_SATURATE : GIP_SOBEL_ABS, scale, delta, seed);
                    }
                }
    /* One large image per new pair, through the CUDA tiles and the CPU's bands. */
    for (int si = 0; si < 3; si++)
        for (int di = 0; di < 3; di++, seed++)
            sobel_case(ctx, (gt_size){1001, 77}, srcs[si], dsts[di], 3, 1, 1, 3,
                       (gip_border)(seed % 5), GIP_SOBEL_SATURATE, 0.0f, 0.0f, seed);
}

/* The case: cv2.Sobel(f32, CV_8U) saturates, negative values becoming 0. A row
 * 0 0 0 100 100 100 has the x derivative 0 0 400 400 0 0 (times the 1 2 1 rows); the same
 * row mirrored has -400; fractional values round half to even. */
static void sobel_f32_to_u8(gip_context *ctx)
{
    static const float row[8] = {0, 0, 0, 100, 100, 100, 100.125f, 100.25f};
    gip_image src, dst;
    gt_alloc(&src, 8, 3, 1, GIP_F32, 0);
    gt_alloc(&dst, 8, 3, 1, GIP_U8, 0);
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 8; x++)
            ((float *)((char *)src.data + y * src.stride))[x] = y == 1 ? -row[x] : row[x];
    gip_sobel_params p = {.dx = 1, .ksize = 1, .unsigned_out = GIP_SOBEL_SATURATE};
    p.border.mode = GIP_BORDER_REPLICATE;
    /* ksize 1, dx 1: [-1 0 1] along x only. Row 0: 0 0 100 100 0 0.125 0.25 0.125. */
    static const uint8_t want0[8] = {0, 0, 100, 100, 0, 0, 0, 0};
    if (GT_OK(gt_run_unary(ctx, run_sobel, &src, &dst, &p, 0x5A))) {
        const uint8_t *r0 = dst.data, *r1 = (const uint8_t *)dst.data + dst.stride;
        for (int x = 0; x < 8; x++) {
            GT_CHECK(r0[x] == want0[x], "sobel f32->u8 saturate, x=%d: got %d, expected %d", x,
                     r0[x], want0[x]);
            GT_CHECK(r1[x] == 0, "sobel f32->u8 saturate, negative row x=%d: got %d, expected 0", x,
                     r1[x]);
        }
    }
    /* Scale 3 takes 100 past 255 and 0.125 * 3 + 0.5 = 0.875 up to 1. */
    p.scale = 3.0f, p.delta = 0.5f;
    static const uint8_t want1[8] = {0, 0, 255, 255, 0, 1, 1, 1};
    if (GT_OK(gt_run_unary(ctx, run_sobel, &src, &dst, &p, 0x5A))) {
        const uint8_t *r0 = dst.data;
        for (int x = 0; x < 8; x++)
            GT_CHECK(r0[x] == want1[x], "sobel f32->u8 saturate scale 3, x=%d: got %d, expected %d",
                     x, r0[x], want1[x]);
    }
    /* The default keeps gip's |v|: the mirrored row gives 100 too. */
    p.scale = 0.0f, p.delta = 0.0f, p.unsigned_out = GIP_SOBEL_ABS;
    if (GT_OK(gt_run_unary(ctx, run_sobel, &src, &dst, &p, 0x5A))) {
        const uint8_t *r1 = (const uint8_t *)dst.data + dst.stride;
        GT_CHECK(r1[2] == 100 && r1[3] == 100, "sobel f32->u8 abs: got %d %d, expected 100 100",
                 r1[2], r1[3]);
    }
    gt_free(&src);
    gt_free(&dst);
}

/* ---- filter2D ---------------------------------------------------------------------------------
 */

/* Kernels of multiples of 1/4 (exact float products and sums with the sources above), with
 * negative taps, large enough that u8 sources reach past 255 and below 0. */
static const struct {
    int32_t kw, kh;
    float k[25];
} f2d_kernels[] = {
    {3, 3, {1, 2, 1, 0, -1.5f, 0, -2, 1, 3.25f}},
    {1, 1, {-2.5f}},
    {5, 3, {0.25f, 1, 0, -3, 0.5f, 2, 0, 1.75f, 0, -0.25f, 1, 1, -1, 0.5f, 4}},
    {3, 5, {4, -4, 2, 0.5f, 0.25f, -1, 3, 0, 0, -0.75f, 1, 1, 1, 1, 1}},
};

static void f2d_case(gip_context *ctx, gt_size sz, gip_dtype st, gip_dtype dt, int32_t ch, int ki,
                     gip_border b, float delta, uint64_t seed)
{
    if (!gt_case())
        return;
    const bool align16 = seed % 3 == 0;
    gip_image src;
    gt_alloc(&src, sz.w, sz.h, ch, st, align16 ? gt_pad16(sz.w, ch, st) : (int64_t)(seed % 2) * 5);
    fill_src(&src, seed);
    const int32_t kw = f2d_kernels[ki].kw, kh = f2d_kernels[ki].kh;
    gip_filter2d_params p = {.kernel = f2d_kernels[ki].k, .ksize_w = kw, .ksize_h = kh};
    p.delta = delta;
    p.method = GIP_CONV_DIRECT;
    p.border.mode = b;
    p.border.value[0] = 3, p.border.value[1] = 200, p.border.value[2] = 0.25f;
    p.border.value[3] = 1;
    double k[25];
    for (int i = 0; i < kw * kh; i++)
        k[i] = f2d_kernels[ki].k[i];
    const int64_t n = sz.w * sz.h * ch;
    double *ref = malloc((size_t)n * sizeof *ref);
    ref2d_correlate(&src, k, kw, kh, kw / 2, kh / 2, b, p.border.value, ref);
    for (int64_t i = 0; i < n; i++)
        ref[i] += delta;
    char label[240];
    snprintf(label, sizeof label, "filter2d %lldx%lld %s->%s c%d k%dx%d %s delta %g%s",
             (long long)sz.w, (long long)sz.h, gip_dtype_name(st), gip_dtype_name(dt), ch, kw, kh,
             gip_border_name(b), delta, align16 ? " aligned" : "");
    check(ctx, run_f2d, &src, dt, &p, ref, 1e-6, align16, label);
    free(ref);
    gt_free(&src);
}

static void f2d_pairs(gip_context *ctx)
{
    const int nk = (int)(sizeof f2d_kernels / sizeof f2d_kernels[0]);
    uint64_t seed = 5000;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int si = 0; si < 3; si++)
            for (int di = 0; di < 4; di++) {
                if (old_pair("filter2d", srcs[si], dsts[di]))
                    continue;
                for (int b = 0; b <= GIP_BORDER_WRAP; b++, seed++)
                    f2d_case(ctx, sizes[s], srcs[si], dsts[di], chans[(s + b) % 3],
                             (int)(seed % (uint64_t)nk), (gip_border)b, seed % 3 == 0 ? 2.5f : 0.0f,
                             seed);
            }
}

/* ---- box --------------------------------------------------------------------------------------
 */

static void box_case(gip_context *ctx, gt_size sz, gip_dtype st, gip_dtype dt, int32_t ch,
                     int32_t kw, int32_t kh, bool unnorm, gip_border b, uint64_t seed)
{
    if (!gt_case())
        return;
    gip_image src;
    gt_alloc(&src, sz.w, sz.h, ch, st, (int64_t)(seed % 2) * 6);
    fill_src(&src, seed);
    gip_box_params p = {.ksize_w = kw, .ksize_h = kh, .unnormalized = unnorm};
    p.border.mode = b;
    p.border.value[0] = 3.5f, p.border.value[1] = 250, p.border.value[2] = 77;
    p.border.value[3] = 1;
    double val[4], *ones = malloc(sizeof(double) * (size_t)kw * (size_t)kh);
    for (int c = 0; c < 4; c++) {
        double v = p.border.value[c];
        val[c] = st == GIP_U8    ? fmin(255, fmax(0, nearbyint(v)))
                 : st == GIP_U16 ? fmin(65535, fmax(0, nearbyint(v)))
                                 : v;
    }
    for (int i = 0; i < kw * kh; i++)
        ones[i] = 1;
    const int64_t n = sz.w * sz.h * ch;
    double *ref = malloc((size_t)n * sizeof *ref);
    ref_correlate2d(&src, ones, kw, kh, kw / 2, kh / 2, b, val, 1.0, ref);
    /* The documented rule: the exact sum (exact in float too for these sources) times
     * (float)(1 / area) in float, from u16 over areas above 32768 times 1.0 / area in double. */
    const double area = (double)kw * kh, scale64 = unnorm ? 1.0 : 1.0 / area;
    const float scale = (float)scale64;
    const bool f64 = st == GIP_U16 && area > 32768 && !unnorm;
    for (int64_t i = 0; i < n; i++)
        ref[i] = f64 ? ref[i] * scale64 : (double)((float)ref[i] * scale);
    char label[240];
    snprintf(label, sizeof label, "box %lldx%lld %s->%s c%d k%dx%d%s %s", (long long)sz.w,
             (long long)sz.h, gip_dtype_name(st), gip_dtype_name(dt), ch, kw, kh,
             unnorm ? " sum" : "", gip_border_name(b));
    check(ctx, run_box, &src, dt, &p, ref, 1e-6, false, label);
    if (gt_current_backend == GT_CPU) { /* the separable engine's scalar path gives the same */
        gip_image a, c;
        gt_alloc(&a, sz.w, sz.h, ch, dt, 0);
        gt_alloc(&c, sz.w, sz.h, ch, dt, 0);
        bool prev = gip__sep_set_simd(false);
        bool ok = GT_OK(gip_box_filter(ctx, &src, &a, &p));
        gip__sep_set_simd(prev);
        if (ok && GT_OK(gip_box_filter(ctx, &src, &c, &p))) {
            char l2[300];
            snprintf(l2, sizeof l2, "%s (scalar vs SIMD)", label);
            gt_compare(&a, &c, 0, 0, l2);
        }
        gt_free(&a);
        gt_free(&c);
    }
    free(ref);
    free(ones);
    gt_free(&src);
}

static void box_pairs(gip_context *ctx)
{
    static const struct {
        int32_t kw, kh;
        bool unnorm;
    } ks[] = {{3, 3, false}, {4, 2, false}, {5, 1, true},
              {1, 6, false}, {7, 3, true},  {2, 2, false}};
    const int nk = (int)(sizeof ks / sizeof ks[0]);
    uint64_t seed = 9000;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int si = 0; si < 3; si++)
            for (int di = 0; di < 4; di++) {
                if (old_pair("box", srcs[si], dsts[di]))
                    continue;
                for (int b = 0; b <= GIP_BORDER_WRAP; b++, seed++) {
                    const int k = (int)(seed % (uint64_t)nk);
                    box_case(ctx, sizes[s], srcs[si], dsts[di], chans[(s + b) % 3], ks[k].kw,
                             ks[k].kh, ks[k].unnorm, (gip_border)b, seed);
                }
            }
    /* u16 over an area above 32768 (OpenCV sums in double there), to u8 and s16. */
    box_case(ctx, (gt_size){40, 30}, GIP_U16, GIP_U8, 1, 201, 181, false, GIP_BORDER_REFLECT_101,
             seed++);
    box_case(ctx, (gt_size){40, 30}, GIP_U16, GIP_S16, 3, 181, 201, false, GIP_BORDER_WRAP, seed++);
    /* Sums through the f32 temporary: past 2^24 (inexact in float, past every integer dtype
     * either way), and past s16's range. */
    box_case(ctx, (gt_size){50, 40}, GIP_U16, GIP_S16, 1, 31, 17, true, GIP_BORDER_REPLICATE,
             seed++);
    box_case(ctx, (gt_size){300, 20}, GIP_U8, GIP_S16, 1, 255, 9, true, GIP_BORDER_REFLECT, seed++);
    box_case(ctx, (gt_size){1001, 77}, GIP_F32, GIP_U8, 3, 5, 5, false, GIP_BORDER_REFLECT_101,
             seed++);
}

/* ---- what is still refused ---------------------------------------------------------------- */

static void refusals(gip_context *ctx)
{
    gip_image u8, s16, c32, f32;
    gt_alloc(&u8, 12, 9, 3, GIP_U8, 0);
    gt_alloc(&s16, 12, 9, 3, GIP_S16, 0);
    gt_alloc(&f32, 12, 9, 3, GIP_F32, 0);
    gt_alloc(&c32, 12, 9, 3, GIP_C32, 0);
    gt_fill_random(&u8, 1, 0, 0);
    gt_fill_random(&s16, 2, 0, 0);
    gt_fill_random(&f32, 3, 0, 0);
    gip_sobel_params sp = {.dx = 1};
    GT_STATUS(gip_sobel(ctx, &f32, &c32, &sp), GIP_ERR_UNSUPPORTED);
    GT_CHECK(strstr(gip_last_error(), "dst dtype c32") != NULL,
             "sobel to c32: the message names the destination: %s", gip_last_error());
    GT_STATUS(gip_sobel(ctx, &s16, &f32, &sp), GIP_ERR_UNSUPPORTED);
    GT_CHECK(strstr(gip_last_error(), "src dtype s16") != NULL,
             "sobel of s16: the message names the source: %s", gip_last_error());
    sp.unsigned_out = (gip_sobel_unsigned)2;
    GT_STATUS(gip_sobel(ctx, &f32, &u8, &sp), GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(strstr(gip_last_error(), "unsigned_out 2") != NULL, "unsigned_out 2: %s",
             gip_last_error());
    float k[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    gip_filter2d_params fp = {.kernel = k, .ksize_w = 3, .ksize_h = 3};
    GT_STATUS(gip_filter2d(ctx, &f32, &c32, &fp), GIP_ERR_UNSUPPORTED);
    GT_CHECK(strstr(gip_last_error(), "dst dtype c32") != NULL, "filter2d to c32: %s",
             gip_last_error());
    fp.method = GIP_CONV_FFT;
    GT_STATUS(gip_filter2d(ctx, &u8, &s16, &fp), GIP_ERR_UNSUPPORTED);
    GT_CHECK(strstr(gip_last_error(), "method FFT") != NULL, "filter2d FFT to s16: %s",
             gip_last_error());
    gip_box_params bp = {0};
    GT_STATUS(gip_box_filter(ctx, &u8, &c32, &bp), GIP_ERR_UNSUPPORTED);
    GT_CHECK(strstr(gip_last_error(), "dst dtype c32") != NULL, "box to c32: %s", gip_last_error());
    gt_free(&u8);
    gt_free(&s16);
    gt_free(&f32);
    gt_free(&c32);
}

static void suite(gip_context *ctx)
{
    sobel_f32_to_u8(ctx);
    sobel_pairs(ctx);
    f2d_pairs(ctx);
    box_pairs(ctx);
    refusals(ctx);
}

static void body(gip_context *ctx)
{
    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
        gip_context_desc d = {.backend = GIP_BACKEND_CPU};
        if (!GT_OK(gip_context_create(&d, &cpu_ctx)))
            return;
        suite(ctx);
        gip_context_destroy(cpu_ctx);
        return;
    }
    suite(ctx);
    printf("again with GIP_NOSIMD=1 (the scalar path)\n");
    gt_setenv("GIP_NOSIMD", "1");
    suite(ctx);
    gt_setenv("GIP_NOSIMD", NULL);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "ddepth", body);
}
