/* SPDX-License-Identifier: MIT */
/* Tests of gip_conv2d: dtypes, input/output channel counts, kernel sizes and paddings on awkward
 * sizes and padded strides against the double reference; CPU and CUDA identical; the seed's
 * 3-to-3-channel Sobel Conv2d; a bad-input table. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref_filter2d.h"
#include "testing.h"

static gip_context *cpu_ctx;

static gip_status run_conv(gip_context *ctx, const gip_image *s, gip_image *d, const void *p)
{
    return gip_conv2d(ctx, s, d, p);
}

/* Integer outputs from float accumulation: only near-.5 ties of the exact value may differ. */
static bool compare_near_ties(const gip_image *got, const gip_image *exp, const double *ref,
                              const char *label)
{
    int64_t bad = 0;
    for (int64_t y = 0; y < got->height; y++)
        for (int64_t x = 0; x < got->width; x++)
            for (int32_t c = 0; c < got->channels; c++) {
                double g = gt_get(got, x, y, c), e = gt_get(exp, x, y, c);
                if (g == e)
                    continue;
                double r = ref[(y * got->width + x) * got->channels + c];
                bool tie = fabs(r - floor(r) - 0.5) <= 1e-4 * (1 + fabs(r));
                if (fabs(g - e) > 1 || !tie) {
                    if (!bad)
                        fprintf(stderr, "FAIL %s: x=%lld y=%lld c=%d got %g expected %g\n", label,
                                (long long)x, (long long)y, c, g, e);
                    bad++;
                }
            }
    return GT_CHECK(bad == 0, "%s: %lld elements differ beyond a .5 tie", label, (long long)bad);
}

static void one_case(gip_context *ctx, gt_size sz, gip_dtype st, gip_dtype dt, int32_t ci,
                     int32_t co, int32_t kh, int32_t kw, int32_t ph, int32_t pw, bool bias,
                     bool integer, uint64_t seed)
{
    if (!gt_case())
        return;
    int64_t ow = sz.w + 2 * pw - kw + 1, oh = sz.h + 2 * ph - kh + 1;
    if (ow < 1 || oh < 1)
        return;
    int32_t nw = co * ci * kh * kw;
    float *w = malloc((size_t)nw * sizeof *w), b[4];
    uint64_t s = seed * 31 + 7;
    double wsum = 0;
    for (int32_t i = 0; i < nw; i++) {
        double u = gt_rand_unit(&s) - 0.5;
        w[i] = integer ? (float)floor(u * 6) : (float)(u * 0.3);
        wsum += fabs(w[i]);
    }
    for (int i = 0; i < 4; i++)
        b[i] = integer ? (float)(i * 3 - 4) : (float)(gt_rand_unit(&s) * 20 - 5);
    gip_conv2d_params p = {
        .weight = w, .bias = bias ? b : NULL, .kh = kh, .kw = kw, .pad_h = ph, .pad_w = pw};
    gip_image src, dst, exp;
    gt_alloc(&src, sz.w, sz.h, ci, st, seed % 2 ? 4 : 0);
    gt_alloc(&dst, ow, oh, co, dt, seed % 2 ? 0 : 8);
    gt_alloc(&exp, ow, oh, co, dt, 0);
    gt_fill_random(&src, seed, 0, 0);
    char label[200];
    snprintf(label, sizeof label, "conv2d %lldx%lld %s->%s %d->%d k%dx%d pad %d,%d%s%s",
             (long long)sz.w, (long long)sz.h, gip_dtype_name(st), gip_dtype_name(dt), ci, co, kh,
             kw, ph, pw, bias ? " bias" : "", integer ? " integer" : "");
    if (GT_OK(gt_run_unary(ctx, run_conv, &src, &dst, &p, 0x77))) {
        double *ref = malloc((size_t)(ow * oh * co) * sizeof *ref);
        ref2d_conv2d(&src, w, p.bias, kh, kw, ph, pw, co, ref);
        ref2d_store(&exp, ref);
        double maxv = st == GIP_U16 ? 65535 : 256;
        if (dt == GIP_F32)
            gt_compare(&dst, &exp, 2e-6 * (wsum * maxv + 20), 1e-6, label);
        else if (integer && st != GIP_F32)
            gt_compare(&dst, &exp, 0, 0, label);
        else
            compare_near_ties(&dst, &exp, ref, label);
        GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
        if (cpu_ctx) {
            gip_image cpu;
            gt_alloc(&cpu, ow, oh, co, dt, 0);
            if (GT_OK(gip_conv2d(cpu_ctx, &src, &cpu, &p))) {
                char l2[240];
                snprintf(l2, sizeof l2, "%s (CUDA vs CPU)", label);
                gt_compare(&dst, &cpu, 0, 0, l2);
            }
            gt_free(&cpu);
        }
        free(ref);
    }
    gt_free(&src);
    gt_free(&dst);
    gt_free(&exp);
    free(w);
}

static void sweep(gip_context *ctx)
{
    static const gip_dtype dts[] = {GIP_U8, GIP_U16, GIP_F32};
    static const int32_t chans[] = {1, 3, 4};
    static const int32_t shapes[][4] = {{3, 3, 1, 1}, {1, 1, 0, 0}, {5, 3, 2, 0}, {2, 4, 0, 3}};
    uint64_t seed = 1;
    for (int s = 0; s < gt_nsizes; s++) {
        bool big = gt_sizes[s].w * gt_sizes[s].h > 10000;
        for (int k = 0; k < 4; k++)
            for (int sd = 0; sd < 3; sd++)
                for (int dd = 0; dd < 3; dd++)
                    for (int a = 0; a < 3; a++)
                        for (int c = 0; c < 3; c++) {
                            if (big && (a != (k + sd) % 3 || c != (k + dd) % 3 || dd != sd))
                                continue;
                            const int32_t *sh = shapes[k];
                            one_case(ctx, gt_sizes[s], dts[sd], dts[dd], chans[a], chans[c], sh[0],
                                     sh[1], sh[2], sh[3], seed % 2 == 0, seed % 3 == 0, seed);
                            seed++;
                        }
    }
}

/* The 3 -> 3 channel 3x3 case (a tiled kernel on CUDA) at the edges of its tiles (128 columns,
 * 16 rows), with every padding from 0 to 2 and dtypes rotating. */
static void tile_edges(gip_context *ctx)
{
    static const gt_size sizes[] = {{31, 7},   {32, 8},  {33, 9},   {63, 15},  {64, 16},
                                    {65, 17},  {129, 7}, {127, 17}, {128, 18}, {130, 16},
                                    {4097, 3}, {3, 3},   {2, 40},   {257, 33}, {1, 5}};
    static const gip_dtype dts[] = {GIP_U8, GIP_U16, GIP_F32};
    uint64_t seed = 9000;
    int idx = 0;
    for (int s = 0; s < (int)(sizeof sizes / sizeof sizes[0]); s++)
        for (int pad = 0; pad < 3; pad++, idx++) {
            const int sd = idx % 3, dd = (idx / 3) % 3;
            one_case(ctx, sizes[s], dts[sd], dts[dd], 3, 3, 3, 3, pad, (pad + idx) % 3,
                     seed % 2 == 0, seed % 3 == 0, seed);
            seed++;
        }
}

/* The seed program: nn.Conv2d(3, 3, 3, padding=1, bias=False) with the horizontal Sobel kernel
 * for every (output, input) pair, on an RGB u8 image; u8 output clipped to 0..255. */
static void seed_sobel(gip_context *ctx)
{
    static const float sob[9] = {-1, 0, 1, -2, 0, 2, -1, 0, 1};
    float w[3 * 3 * 9];
    for (int i = 0; i < 9; i++)
        memcpy(w + 9 * i, sob, sizeof sob);
    gip_conv2d_params p = {.weight = w, .kh = 3, .kw = 3, .pad_h = 1, .pad_w = 1};
    gip_image src, dst, exp, df, ef;
    gt_alloc(&src, 123, 77, 3, GIP_U8, 0);
    gt_alloc(&dst, 123, 77, 3, GIP_U8, 0);
    gt_alloc(&exp, 123, 77, 3, GIP_U8, 0);
    gt_alloc(&df, 123, 77, 3, GIP_F32, 0);
    gt_alloc(&ef, 123, 77, 3, GIP_F32, 0);
    gt_fill_random(&src, 2024, 0, 0);
    double *ref = malloc(123 * 77 * 3 * sizeof *ref);
    ref2d_conv2d(&src, w, NULL, 3, 3, 1, 1, 3, ref);
    ref2d_store(&exp, ref);
    ref2d_store(&ef, ref);
    if (GT_OK(gt_run_unary(ctx, run_conv, &src, &dst, &p, 0)))
        gt_compare(&dst, &exp, 0, 0, "seed Sobel Conv2d u8");
    if (GT_OK(gt_run_unary(ctx, run_conv, &src, &df, &p, 0)))
        gt_compare(&df, &ef, 0, 0, "seed Sobel Conv2d f32 (integer sums are exact)");
    free(ref);
    gt_free(&src);
    gt_free(&dst);
    gt_free(&exp);
    gt_free(&df);
    gt_free(&ef);
}

static void bad_inputs(gip_context *ctx)
{
    float w[4 * 4 * 9] = {0};
    gip_image src, dst, big, s16, c2;
    gt_alloc(&src, 20, 10, 3, GIP_U8, 0);
    gt_alloc(&dst, 20, 10, 3, GIP_F32, 0);
    gt_alloc(&big, 20, 12, 3, GIP_F32, 0);
    gt_alloc(&s16, 20, 10, 3, GIP_S16, 0);
    gt_alloc(&c2, 40, 10, 1, GIP_F32, 0);
    c2.width = 20, c2.channels = 2; /* a hand-made view gip does not accept */
    gt_poison(&dst, 0x5A);
    gip_conv2d_params p = {.weight = w, .kh = 3, .kw = 3, .pad_h = 1, .pad_w = 1};
    gip_conv2d_params q;
    GT_STATUS(gip_conv2d(NULL, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_conv2d(ctx, NULL, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_conv2d(ctx, &src, NULL, &p), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_conv2d(ctx, &src, &dst, NULL), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.weight = NULL;
    GT_STATUS(gip_conv2d(ctx, &src, &dst, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.kh = 0;
    GT_STATUS(gip_conv2d(ctx, &src, &dst, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.kw = 300;
    GT_STATUS(gip_conv2d(ctx, &src, &dst, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.pad_h = -1;
    GT_STATUS(gip_conv2d(ctx, &src, &dst, &q), GIP_ERR_INVALID_ARGUMENT);
    q = p, q.pad_h = 0, q.pad_w = 0, q.kh = 11, q.kw = 1;
    GT_STATUS(gip_conv2d(ctx, &src, &dst, &q), GIP_ERR_INVALID_ARGUMENT); /* kernel > image */
    float wn[4 * 4 * 9] = {0};
    wn[20] = NAN;
    q = p, q.weight = wn;
    GT_STATUS(gip_conv2d(ctx, &src, &dst, &q), GIP_ERR_INVALID_ARGUMENT);
    float bn[4] = {0, INFINITY, 0, 0};
    q = p, q.bias = bn;
    GT_STATUS(gip_conv2d(ctx, &src, &dst, &q), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_conv2d(ctx, &src, &big, &p), GIP_ERR_SHAPE_MISMATCH);
    q = p, q.pad_h = 0;
    GT_STATUS(gip_conv2d(ctx, &src, &dst, &q), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_conv2d(ctx, &src, &s16, &p), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_conv2d(ctx, &s16, &dst, &p), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_conv2d(ctx, &src, &c2, &p), GIP_ERR_INVALID_ARGUMENT);
    gip_image alias = dst;
    alias.dtype = GIP_U8;
    alias.channels = 3;
    GT_STATUS(gip_conv2d(ctx, &alias, &dst, &p), GIP_ERR_ALIASING);
    gip_image dev = dst;
    dev.memory = GIP_MEM_CUDA;
    GT_STATUS(gip_conv2d(ctx, &src, &dev, &p), gip_context_backend(ctx) == GIP_BACKEND_CUDA
                                                   ? GIP_ERR_LOCATION_MISMATCH
                                                   : GIP_ERR_NO_DEVICE);
    bool untouched = true;
    for (int64_t i = 0; i < 20 * 10 * 3 * 4; i++)
        untouched &= ((uint8_t *)dst.data)[i] == 0x5A;
    GT_CHECK(untouched, "conv2d: a refused call wrote into dst");
    gt_free(&src);
    gt_free(&dst);
    gt_free(&big);
    gt_free(&s16);
    gt_free(&c2);
}

static void suite(gip_context *ctx)
{
    sweep(ctx);
    tile_edges(ctx);
    seed_sobel(ctx);
    bad_inputs(ctx);
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
    return gt_main(argc, argv, "conv2d", body);
}
