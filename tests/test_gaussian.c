/* SPDX-License-Identifier: MIT */
/* Gaussian blur tests: every dtype, channel count, border and awkward size against the references
 * in tests/ref (u8 exactly against an independent fixed-point reference, all dtypes against the
 * double correlation), scalar vs AVX2 on the CPU, CPU vs CUDA, stored cv2 outputs, bad input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"
#include "ref_filter.h"
#include "engine/separable/separable.h"

typedef struct gcase {
    int kw, kh;
    double sx, sy;
} gcase;

static const gcase cases[] = {{5, 7, 0, 0}, {0, 0, 1.7, 2.3}, {15, 15, 0, 0}, {3, 1, 0.6, 0}};
static const gip_dtype dtypes[] = {GIP_U8, GIP_U16, GIP_F32};
static const int chans[] = {1, 3, 4};
static gip_context *cpu_ctx; /* for CPU-vs-CUDA comparison */

/* Set by mma_path: every image gets rows of a multiple of 16 bytes (the CUDA tensor-core u8
 * kernel's case). */
static bool align16;

/* `pad`, or with align16 the padding that makes the row a multiple of 16 bytes. */
static int64_t row_pad(gt_size sz, int cn, gip_dtype dt, int64_t pad)
{
    if (!align16)
        return pad;
    int64_t row = sz.w * cn * (int64_t)gip_dtype_size(dt);
    return (row + 15) / 16 * 16 - row;
}

static gip_status run_gauss(gip_context *ctx, const gip_image *s, gip_image *d, const void *p)
{
    return gip_gaussian_blur(ctx, s, d, p);
}

/* The effective kernel sizes, written from OpenCV's rules independently of the library. */
static void effective(const gip_image *src, const gip_gaussian_params *p, int *kw, int *kh,
                      double *sx, double *sy)
{
    *sx = p->sigma_x;
    *sy = p->sigma_y > 0 ? p->sigma_y : p->sigma_x;
    *kw = p->ksize_w;
    *kh = p->ksize_h;
    if (p->border.mode != GIP_BORDER_CONSTANT) {
        if (src->width == 1)
            *kw = 1;
        if (src->height == 1)
            *kh = 1;
    }
    double f = src->dtype == GIP_U8 ? 3 : 4;
    if (*kw == 0)
        *kw = (int)nearbyint(*sx * f * 2 + 1) | 1;
    if (*kh == 0)
        *kh = (int)nearbyint(*sy * f * 2 + 1) | 1;
}

/* Fills the expected image and the double reference; returns the bound on |u8 result - exact
 * Gaussian|: 0.5 for the final rounding plus 255 times the L1 distance of the fixed-point
 * kernels from the double ones (OpenCV quantises each kernel to 1/256). */
static double expected(const gip_image *src, const gip_gaussian_params *p, gip_image *exp_img,
                       double *dref)
{
    double bound = 0.5;
    int kw, kh;
    double sx, sy, kx[128], ky[128], val[4]; /* kernels up to 127 taps */
    effective(src, p, &kw, &kh, &sx, &sy);
    GT_OK(gip_gaussian_kernel(kw, sx, kx));
    GT_OK(gip_gaussian_kernel(kh, sy, ky));
    for (int c = 0; c < 4; c++) {
        double v = p->border.value[c];
        if (src->dtype == GIP_U8)
            v = fmin(255, fmax(0, nearbyint(v)));
        else if (src->dtype == GIP_U16)
            v = fmin(65535, fmax(0, nearbyint(v)));
        val[c] = v;
    }
    double *k2 = malloc(sizeof(double) * (size_t)(kw * kh));
    ref_outer_kernel(kx, kw, ky, kh, k2);
    ref_correlate2d(src, k2, kw, kh, kw / 2, kh / 2, p->border.mode, val, 1.0, dref);
    free(k2);
    if (src->dtype == GIP_U8) {
        int32_t fx[128], fy[128];
        ref_gaussian_fixed_kernel_u8(kx, kw, fx);
        ref_gaussian_fixed_kernel_u8(ky, kh, fy);
        ref_separable_fixed_u8(src, fx, kw, fy, kh, p->border.mode, val, exp_img);
        for (int i = 0; i < kw; i++)
            bound += 255 * fabs(fx[i] / 256.0 - kx[i]);
        for (int i = 0; i < kh; i++)
            bound += 255 * fabs(fy[i] / 256.0 - ky[i]);
    } else {
        ref_store(dref, exp_img);
    }
    return bound;
}

/* gt_compare() is exact for integer dtypes; this compares within atol by way of f32 copies. */
static void compare_within(const gip_image *got, const gip_image *exp, double atol,
                           const char *label)
{
    gip_image a, b;
    gt_alloc(&a, got->width, got->height, got->channels, GIP_F32, 0);
    gt_alloc(&b, got->width, got->height, got->channels, GIP_F32, 0);
    for (int64_t y = 0; y < got->height; y++)
        for (int64_t x = 0; x < got->width; x++)
            for (int c = 0; c < got->channels; c++) {
                gt_set(&a, x, y, c, gt_get(got, x, y, c));
                gt_set(&b, x, y, c, gt_get(exp, x, y, c));
            }
    gt_compare(&a, &b, atol, 0, label);
    gt_free(&a);
    gt_free(&b);
}

static void one(gip_context *ctx, gt_size sz, gip_dtype dt, int cn, gip_border mode,
                const gcase *gc, int64_t pad, uint64_t seed)
{
    if (!gt_case())
        return;
    char label[192];
    snprintf(label, sizeof label, "gaussian %lldx%lld %s c%d %s k%dx%d s%g/%g pad%lld",
             (long long)sz.w, (long long)sz.h, gip_dtype_name(dt), cn, gip_border_name(mode),
             gc->kw, gc->kh, gc->sx, gc->sy, (long long)pad);
    gip_image src, dst, exp_img, dref_img;
    gt_alloc(&src, sz.w, sz.h, cn, dt, row_pad(sz, cn, dt, pad));
    gt_alloc(&dst, sz.w, sz.h, cn, dt, row_pad(sz, cn, dt, pad + 3));
    gt_alloc(&exp_img, sz.w, sz.h, cn, dt, 0);
    gt_alloc(&dref_img, sz.w, sz.h, cn, GIP_F32, 0);
    gt_fill_random(&src, seed, 0, 0);
    gip_gaussian_params p = {gc->kw, gc->kh, gc->sx, gc->sy, {mode, {10.4f, 200, 37, 255}}};
    double *dref = malloc(sizeof(double) * (size_t)(sz.w * sz.h * cn));
    double bound = expected(&src, &p, &exp_img, dref);
    ref_store(dref, &dref_img);
    if (GT_OK(gt_run_unary(ctx, run_gauss, &src, &dst, &p, 0xCD))) {
        /* u8: exact (fixed point); u16: float arithmetic may round a .5 case the other way, so
         * within 1; f32: float sums of values below 256 over kernels summing to 1. */
        double atol = dt == GIP_F32 ? 2e-3 : dt == GIP_U16 ? 1 : 0;
        if (dt == GIP_U16)
            compare_within(&dst, &exp_img, atol, label);
        else
            gt_compare(&dst, &exp_img, atol, 1e-5, label);
        GT_CHECK(gt_padding_intact(&dst), "%s: wrote into the row padding", label);
        if (dt == GIP_U8) {
            /* The fixed-point result stays within the quantisation bound of the exact Gaussian. */
            char l2[224];
            snprintf(l2, sizeof l2, "%s (vs double, within %.3g)", label, bound);
            compare_within(&dst, &dref_img, bound, l2);
        }
        if (gt_current_backend == GT_CPU) {
            /* The scalar path must give the same bits as the SIMD one. */
            gip_image d2;
            gt_alloc(&d2, sz.w, sz.h, cn, dt, pad);
            bool prev = gip__sep_set_simd(false);
            GT_OK(gt_run_unary(ctx, run_gauss, &src, &d2, &p, 0x5A));
            gip__sep_set_simd(prev);
            char l2[224];
            snprintf(l2, sizeof l2, "%s (scalar vs SIMD)", label);
            gt_compare(&d2, &dst, 0, 0, l2);
            gt_free(&d2);
        } else if (cpu_ctx) {
            gip_image d2;
            gt_alloc(&d2, sz.w, sz.h, cn, dt, 0);
            GT_OK(gt_run_unary(cpu_ctx, run_gauss, &src, &d2, &p, 0x5A));
            char l2[224];
            snprintf(l2, sizeof l2, "%s (CUDA vs CPU)", label);
            /* Identical, but where AUTO takes the FFT on the GPU only: f32 with a side past the
             * tiled kernel's limit (the CPU's crossover is far higher). There both stay within
             * the f32 tolerance of the exact result, so within it of each other. */
            int ekw, ekh;
            double esx, esy;
            effective(&src, &p, &ekw, &ekh, &esx, &esy);
            bool gpu_fft = dt == GIP_F32 &&
                           (ekw > GIP__SEP_CUDA_FUSED_MAX_K || ekh > GIP__SEP_CUDA_FUSED_MAX_K);
            gt_compare(&dst, &d2, gpu_fft ? atol : 0, 0, l2);
            gt_free(&d2);
        }
    }
    free(dref);
    gt_free(&src);
    gt_free(&dst);
    gt_free(&exp_img);
    gt_free(&dref_img);
}

static void test_kernel(void)
{
    /* cv2.getGaussianKernel(11, 0) and the 9-tap table. */
    static const double k11[] = {0.00881223, 0.02714358, 0.06511406, 0.12164907,
                                 0.17699836, 0.20056541, 0.17699836, 0.12164907,
                                 0.06511406, 0.02714358, 0.00881223};
    double k[16];
    GT_OK(gip_gaussian_kernel(11, 0, k));
    for (int i = 0; i < 11; i++)
        GT_CHECK(fabs(k[i] - k11[i]) < 1e-8, "kernel(11)[%d] = %.9g, want %.9g", i, k[i], k11[i]);
    GT_OK(gip_gaussian_kernel(9, 0, k));
    GT_CHECK(k[0] == 4 / 256.0 && k[4] == 60 / 256.0, "kernel(9) is not OpenCV's table");
    GT_OK(gip_gaussian_kernel(3, 2.0, k));
    double e = exp(-1.0 / 8.0), s = 1 + 2 * e;
    GT_CHECK(fabs(k[0] - e / s) < 1e-15 && fabs(k[1] - 1 / s) < 1e-15, "kernel(3, 2.0)");
    GT_STATUS(gip_gaussian_kernel(0, 1, k), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_gaussian_kernel(3, 1, NULL), GIP_ERR_INVALID_ARGUMENT);
}

static void test_stored(gip_context *ctx)
{
    static const struct {
        const char *in, *out;
        gip_gaussian_params p;
    } t[] = {
        {"chelsea_crop.ppm", "chelsea_gauss15.ppm", {15, 15, 0, 0, {GIP_BORDER_REFLECT_101}}},
        {"chelsea_crop.ppm", "chelsea_gauss_s2_reflect.ppm", {0, 0, 2.0, 0, {GIP_BORDER_REFLECT}}},
        {"astronaut_crop.pgm",
         "astronaut_gauss7x3_constant.pgm",
         {7, 3, 0, 0, {GIP_BORDER_CONSTANT}}},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char a[512], b[512];
        snprintf(a, sizeof a, "%s/filter/%s", GIP_TEST_DATA_DIR, t[i].in);
        snprintf(b, sizeof b, "%s/filter/%s", GIP_TEST_DATA_DIR, t[i].out);
        gip_image src, want, dst;
        if (!GT_CHECK(ref_load_pnm(a, &src) == 0, "cannot read %s", a))
            continue;
        if (GT_CHECK(ref_load_pnm(b, &want) == 0, "cannot read %s", b)) {
            gt_alloc(&dst, src.width, src.height, src.channels, GIP_U8, 5);
            if (GT_OK(gt_run_unary(ctx, run_gauss, &src, &dst, &t[i].p, 0xEE)))
                gt_compare(&dst, &want, 0, 0, t[i].out);
            gt_free(&dst);
            gt_free(&want);
        }
        gt_free(&src);
    }
}

static void test_bad(gip_context *ctx)
{
    gip_image src, dst, d16, d4, dsmall, s16;
    gt_alloc(&src, 16, 12, 3, GIP_U8, 0);
    gt_alloc(&dst, 16, 12, 3, GIP_U8, 0);
    gt_alloc(&d16, 16, 12, 3, GIP_U16, 0);
    gt_alloc(&d4, 16, 12, 4, GIP_U8, 0);
    gt_alloc(&dsmall, 15, 12, 3, GIP_U8, 0);
    gt_alloc(&s16, 16, 12, 3, GIP_S16, 0);
    gt_fill_random(&src, 3, 0, 0);
    gip_gaussian_params ok = {3, 3, 0, 0, {GIP_BORDER_REFLECT_101}};
    struct {
        gip_gaussian_params p;
        const char *what;
    } badp[] = {
        {{4, 3, 0, 0, {0}}, "even ksize"},
        {{3, -1, 0, 0, {0}}, "negative ksize"},
        {{0, 0, 0, 0, {0}}, "ksize and sigma both 0"},
        {{0, 0, -1, 0, {0}}, "negative sigma with ksize 0"},
        {{1025, 3, 0, 0, {0}}, "ksize above the cap"},
        {{0, 0, 1000, 0, {0}}, "sigma giving a kernel above the cap"},
        {{0, 0, NAN, 0, {0}}, "NaN sigma"},
        {{3, 3, 0, 0, {(gip_border)9}}, "unknown border"},
    };
    for (size_t i = 0; i < sizeof badp / sizeof badp[0]; i++) {
        gt_poison(&dst, 0x77);
        if (!GT_STATUS(gip_gaussian_blur(ctx, &src, &dst, &badp[i].p), GIP_ERR_INVALID_ARGUMENT))
            fprintf(stderr, "  case: %s\n", badp[i].what);
        gip_image pz;
        gt_alloc(&pz, 16, 12, 3, GIP_U8, 0);
        gt_poison(&pz, 0x77);
        gt_compare(&dst, &pz, 0, 0, badp[i].what);
        gt_free(&pz);
    }
    GT_STATUS(gip_gaussian_blur(NULL, &src, &dst, &ok), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_gaussian_blur(ctx, NULL, &dst, &ok), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_gaussian_blur(ctx, &src, NULL, &ok), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_gaussian_blur(ctx, &src, &dst, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_gaussian_blur(ctx, &src, &d16, &ok), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_gaussian_blur(ctx, &src, &d4, &ok), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_gaussian_blur(ctx, &src, &dsmall, &ok), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_gaussian_blur(ctx, &s16, &s16, &ok), GIP_ERR_UNSUPPORTED);
    gip_image two = src; /* 2 channels: not a valid gip view */
    two.channels = 2;
    two.width = 24;
    GT_STATUS(gip_gaussian_blur(ctx, &two, &two, &ok), GIP_ERR_INVALID_ARGUMENT);
    /* Overlap: dst is src shifted by one pixel; in place too. */
    gip_image shifted = src;
    shifted.data = (uint8_t *)src.data + 3;
    shifted.width = 15;
    gip_image srcv = src;
    srcv.width = 15;
    GT_STATUS(gip_gaussian_blur(ctx, &srcv, &shifted, &ok), GIP_ERR_ALIASING);
    GT_STATUS(gip_gaussian_blur(ctx, &src, &src, &ok), GIP_ERR_ALIASING);
    gip_image orig;
    gt_alloc(&orig, 16, 12, 3, GIP_U8, 0);
    gt_fill_random(&orig, 3, 0, 0);
    gt_compare(&src, &orig, 0, 0, "src unchanged after refused calls");
    gt_free(&orig);
    gt_free(&src);
    gt_free(&dst);
    gt_free(&d16);
    gt_free(&d4);
    gt_free(&dsmall);
    gt_free(&s16);
}

/* Rows wide enough that the CPU reads the image's inner columns in place and runs the 32-wide u8
 * kernels (paired-tap maddubs where the taps allow it, the 16-bit multiply path where a tap is too
 * large), each against the reference and, on the CPU, scalar against SIMD inside one(). */
static void test_wide(gip_context *ctx)
{
    static const gcase wide[] = {{15, 15, 0, 0}, {3, 1, 0.6, 0}, {7, 3, 0.4, 5}, {0, 0, 1.7, 2.3}};
    static const gip_border borders[] = {GIP_BORDER_REFLECT_101, GIP_BORDER_CONSTANT,
                                         GIP_BORDER_WRAP};
    static const gt_size sizes[] = {{300, 23}, {97, 5}};
    uint64_t seed = 900;
    for (int s = 0; s < 2; s++)
        for (int d = 0; d < 3; d++)
            for (int c = 0; c < 3; c++)
                for (int b = 0; b < 3; b++)
                    for (int g = 0; g < 4; g++, seed++)
                        one(ctx, sizes[s], dtypes[d], chans[c], borders[b], &wide[g],
                            (seed & 1) ? 5 : 0, seed);
}

/* The CPU's fused 3x3 route (AVX-512BW or AVX2) takes the 3x3 u8 Gaussian of OpenCV's
 * [64 128 64] kernel (ksize 3, sigma 0): row lengths around its vectors (16, 32 and 64 elements),
 * odd and even
 * heights (two rows a step), every border, 1, 3 and 4 channels, paddings that move the rows'
 * alignment, and a destination over the streaming threshold. Against the reference and, on the
 * CPU, scalar against SIMD inside one(). */
static void test_fused(gip_context *ctx)
{
    static const gcase g3 = {3, 3, 0, 0};
    static const gt_size sizes[] = {{2, 1},   {11, 2}, {17, 3},  {18, 2},  {19, 4},  {24, 5},
                                    {33, 3},  {34, 4}, {35, 5},  {45, 6},  {49, 6},  {66, 3},
                                    {67, 10}, {97, 2}, {130, 5}, {700, 9}, {257, 11}};
    uint64_t seed = 1500;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int c = 0; c < 3; c++)
            for (int b = 0; b <= GIP_BORDER_WRAP; b++, seed++)
                one(ctx, sizes[s], GIP_U8, chans[c], (gip_border)b, &g3, (int64_t)(seed % 7), seed);
    if (gt_current_backend == GT_CPU)
        one(ctx, (gt_size){2400, 2400}, GIP_U8, 3, GIP_BORDER_REFLECT_101, &g3, 0, seed);
}

/* method FFT: the separable kernel's spectrum as the product of two 1-D spectra (no 2-D kernel),
 * against the double reference within the frequency-domain error model of test_fft.c: three
 * transforms, each within 8 * 2^-24 * log2(2N) of the output scale sum|k| * max|src| (sum|k| = 1
 * for a Gaussian); u8 and u16 within 0.5 more for the final rounding. */
static void test_fft_method(gip_context *ctx)
{
    static const gcase ks[] = {{31, 31, 5, 0}, {9, 5, 1.2, 2}, {0, 0, 3, 0}};
    static const gt_size sizes[] = {{13, 42}, {97, 5}, {1, 17}, {130, 90}};
    static const struct {
        gip_dtype dt;
        int cn;
    } fmts[] = {{GIP_F32, 1}, {GIP_F32, 3}, {GIP_U8, 3}, {GIP_U16, 1}};
    uint64_t seed = 4000;
    for (int si = 0; si < 4; si++)
        for (int fi = 0; fi < 4; fi++)
            for (int b = 0; b <= GIP_BORDER_WRAP; b++)
                for (int g = 0; g < 3; g++, seed++) {
                    gt_size sz = sizes[si];
                    gip_dtype dt = fmts[fi].dt;
                    int cn = fmts[fi].cn;
                    char label[192];
                    snprintf(label, sizeof label, "gaussian FFT %lldx%lld %s c%d %s k%dx%d s%g/%g",
                             (long long)sz.w, (long long)sz.h, gip_dtype_name(dt), cn,
                             gip_border_name((gip_border)b), ks[g].kw, ks[g].kh, ks[g].sx,
                             ks[g].sy);
                    gip_image src, dst, exp_img;
                    gt_alloc(&src, sz.w, sz.h, cn, dt, seed & 1 ? 3 : 0);
                    gt_alloc(&dst, sz.w, sz.h, cn, dt, 2);
                    gt_alloc(&exp_img, sz.w, sz.h, cn, dt, 0);
                    gt_fill_random(&src, seed, 0, 0);
                    gip_gaussian_params p = {ks[g].kw,
                                             ks[g].kh,
                                             ks[g].sx,
                                             ks[g].sy,
                                             {(gip_border)b, {10.4f, 200, 37, 255}}};
                    p.method = GIP_CONV_FFT;
                    double *dref = malloc(sizeof(double) * (size_t)(sz.w * sz.h * cn));
                    expected(&src, &p, &exp_img, dref);
                    int kw, kh;
                    double sx, sy;
                    effective(&src, &p, &kw, &kh, &sx, &sy);
                    int64_t m = 1, n = 1;
                    while (m < sz.w + kw - 1)
                        m *= 2;
                    while (n < sz.h + kh - 1)
                        n *= 2;
                    double maxsrc = dt == GIP_U16 ? 65535 : 256; /* f32 values are in [0, 256) */
                    double tol =
                        3 * 8.0 / 16777216.0 * log2(2.0 * (double)(4 * m * n)) * maxsrc + 1e-6;
                    if (dt != GIP_F32)
                        tol += 0.5;
                    if (GT_OK(gt_run_unary(ctx, run_gauss, &src, &dst, &p, 0xCD))) {
                        int64_t bad = 0;
                        double worst = 0;
                        for (int64_t i = 0; i < sz.w * sz.h * cn; i++) {
                            int64_t y = i / (sz.w * cn), x = (i / cn) % sz.w;
                            double e = dref[i], gv = gt_get(&dst, x, y, (int)(i % cn));
                            if (dt != GIP_F32)
                                e = fmin(dt == GIP_U8 ? 255 : 65535, fmax(0, e));
                            double err = fabs(gv - e);
                            worst = err > worst ? err : worst;
                            bad += !(err <= tol);
                        }
                        GT_CHECK(bad == 0, "%s: %lld elements off, largest error %.3g (tol %.3g)",
                                 label, (long long)bad, worst, tol);
                        GT_CHECK(gt_padding_intact(&dst), "%s: wrote into the row padding", label);
                    }
                    free(dref);
                    gt_free(&src);
                    gt_free(&dst);
                    gt_free(&exp_img);
                }
}

/* Sizes around the CUDA tile edges (128 or 192 elements wide, 40 or 64 rows, 16-byte chunks),
 * kernels from 1 to beyond the tiled maximum (63) and larger than the image, every border mode;
 * each dtype and channel count in turn. */
static void test_tiles(gip_context *ctx)
{
    static const gcase kc[] = {{1, 1, 0, 0},   {31, 1, 0, 0}, {1, 31, 0, 0}, {31, 31, 0, 0},
                               {9, 17, 2, 3},  {3, 3, 0, 0},  {65, 5, 0, 0}, {5, 67, 0, 0},
                               {0, 0, 2.6, 0}, {63, 63, 0, 0}};
    static const gt_size sizes[] = {{63, 31},  {64, 32}, {65, 33}, {127, 41}, {129, 3},
                                    {4097, 3}, {1, 33},  {33, 1},  {193, 65}};
    uint64_t seed = 5000;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int b = 0; b <= GIP_BORDER_WRAP; b++)
            for (size_t k = 0; k < sizeof kc / sizeof kc[0]; k++, seed++) {
                int d = (int)(seed % 3), c = (int)((seed / 3 + s) % 3);
                one(ctx, sizes[s], dtypes[d], chans[c], (gip_border)b, &kc[k], (seed & 4) ? 7 : 0,
                    seed);
            }
}

/* u8 images with 16-byte aligned rows: on CUDA the tensor-core kernel (kh <= 17, windows of up
 * to 96 bytes, u8 taps) and its fallbacks (a tap of 256, wider windows), every border, 1, 3 and 4
 * channels, widths around its 64-byte warps and 256-byte blocks and heights around its 16-row
 * steps, with each strip cut into 1 to 7 segments in turn (a block each), so that segments
 * start and end at every kind of row; 3x9000 takes the other kernels (its border buffer would
 * outgrow the image). */
static void mma_path(gip_context *ctx)
{
    static const gcase kc[] = {{15, 15, 0, 0}, {3, 3, 0, 0},  {5, 7, 0, 0},  {0, 0, 1.7, 2.3},
                               {17, 17, 0, 0}, {31, 9, 0, 0}, {9, 17, 2, 3}, {3, 1, 0.6, 0},
                               {1, 5, 0, 0},   {13, 3, 0, 0}, {7, 11, 4, 1}, {21, 15, 0, 0}};
    static const gt_size sizes[] = {{1, 1},    {5, 3},   {16, 2},   {13, 42},  {171, 5},
                                    {255, 17}, {86, 33}, {700, 33}, {2, 40},   {1024, 3},
                                    {91, 130}, {64, 47}, {20, 161}, {257, 65}, {3, 9000}};
    static const int segs[] = {1, 2, 3, 5, 7, 0}; /* segments a strip (0: the GPU's choice) */
    align16 = true;
    uint64_t seed = 9100;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int b = 0; b <= GIP_BORDER_WRAP; b++)
            for (int c = 0; c < 3; c++, seed++) {
                gip__sep_mma_segments(segs[(seed / 12) % 6]); /* each kernel meets each */
                one(ctx, sizes[s], GIP_U8, chans[c], (gip_border)b, &kc[seed % 12], 0, seed);
            }
    gip__sep_mma_segments(0);
    align16 = false;
}

static void body(gip_context *ctx)
{
    if (gt_current_backend == GT_CUDA) {
        gip_context_desc d = {GIP_BACKEND_CPU, 0, 0, 0};
        GT_OK(gip_context_create(&d, &cpu_ctx));
    }
    test_kernel();
    uint64_t seed = 1;
    for (int s = 0; s < gt_nsizes; s++) {
        bool big = gt_sizes[s].w * gt_sizes[s].h > 100000;
        for (int d = 0; d < 3; d++)
            for (int c = 0; c < 3; c++)
                for (int b = 0; b <= GIP_BORDER_WRAP; b++)
                    for (size_t g = 0; g < sizeof cases / sizeof cases[0]; g++) {
                        if (big && (g != 0 || (b != 0 && b != 3) || chans[c] == 1))
                            continue;
                        one(ctx, gt_sizes[s], dtypes[d], chans[c], (gip_border)b, &cases[g],
                            (seed & 1) ? 7 : 0, seed);
                        seed++;
                    }
    }
    test_wide(ctx);
    test_fused(ctx);
    if (gt_case())
        test_fft_method(ctx);
    test_tiles(ctx);
    mma_path(ctx);
    test_stored(ctx);
    test_bad(ctx);
    if (gt_current_backend == GT_CPU) {
        /* Where the CPU has AVX-512BW the fused route's 512-bit body took the 3x3 u8 Gaussians
         * above; its AVX2 body runs now (elsewhere this repeats the same path). */
        printf("gaussian: again with GIP_NOAVX512=1 (the fused route's AVX2 body)\n");
        gt_setenv("GIP_NOAVX512", "1");
        test_fused(ctx);
        gt_setenv("GIP_NOAVX512", NULL);
    }
    gip_context_destroy(cpu_ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "gaussian", body);
}
