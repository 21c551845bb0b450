/* SPDX-License-Identifier: MIT */
/* bilateral (gip_bilateral_filter) against a double-precision reference written here from
 * OpenCV's definition (its disc of taps, its float weight tables for u8, exact exponentials for
 * f32): u8 within one level (float sums against double ones at halves), f32 within 1e-4 of the
 * value range; every border, d and sigma rule, 1 and 3 channels, awkward sizes, strides. On CUDA
 * u8 results equal the CPU's exactly (same float operations). Bad input refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "border.h"
#include "testing.h"

static const gip_border borders[] = {GIP_BORDER_REFLECT_101, GIP_BORDER_REFLECT,
                                     GIP_BORDER_REPLICATE, GIP_BORDER_CONSTANT, GIP_BORDER_WRAP};

static void reference(const gip_image *src, gip_image *dst, const gip_bilateral_params *p)
{
    const double sc = p->sigma_color > 0 ? p->sigma_color : 1;
    const double ss = p->sigma_space > 0 ? p->sigma_space : 1;
    int32_t r = p->d > 0 ? p->d / 2 : (int32_t)nearbyint(ss * 1.5);
    r = r < 1 ? 1 : r;
    const int32_t c = src->channels;
    for (int64_t y = 0; y < src->height; y++)
        for (int64_t x = 0; x < src->width; x++) {
            double sum[3] = {0, 0, 0}, wsum = 0;
            for (int32_t i = -r; i <= r; i++)
                for (int32_t j = -r; j <= r; j++) {
                    const double dist = sqrt((double)i * i + (double)j * j);
                    if (dist > r)
                        continue;
                    const int64_t sx = gip__border_index(x + j, src->width, p->border);
                    const int64_t sy = gip__border_index(y + i, src->height, p->border);
                    double v[3], diff = 0;
                    for (int32_t ch = 0; ch < c; ch++) {
                        v[ch] = sx < 0 || sy < 0 ? 0 : gt_get(src, sx, sy, ch);
                        diff += fabs(v[ch] - gt_get(src, x, y, ch));
                    }
                    /* u8: OpenCV's table holds the weights as floats */
                    double cw = exp(-0.5 * diff * diff / (sc * sc));
                    if (src->dtype == GIP_U8)
                        cw = (float)cw;
                    const double wk = (double)(float)exp(-0.5 * dist * dist / (ss * ss)) * cw;
                    for (int32_t ch = 0; ch < c; ch++)
                        sum[ch] += v[ch] * wk;
                    wsum += wk;
                }
            for (int32_t ch = 0; ch < c; ch++)
                gt_set(dst, x, y, ch, sum[ch] / wsum);
        }
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_bilateral_filter(ctx, src, dst, p);
}

/* The largest |a - b| over two images of one shape. */
static double max_diff(const gip_image *a, const gip_image *b)
{
    double m = 0;
    for (int64_t y = 0; y < a->height; y++)
        for (int64_t x = 0; x < a->width; x++)
            for (int32_t c = 0; c < a->channels; c++)
                m = fmax(m, fabs(gt_get(a, x, y, c) - gt_get(b, x, y, c)));
    return m;
}

static void cases(gip_context *ctx)
{
    static const struct {
        int32_t d;
        double sc, ss;
    } ps[] = {{9, 75, 75}, {5, 20, 3}, {0, 30, 2.5}, {-1, 10, 1}, {15, 150, 10}, {3, 0, 0}};
    uint64_t seed = 1;
    gip_context *cpu = NULL;
    const bool cuda = gip_context_backend(ctx) == GIP_BACKEND_CUDA;
    if (cuda) {
        gip_context_desc d = {.backend = GIP_BACKEND_CPU};
        if (!GT_OK(gip_context_create(&d, &cpu)))
            return;
    }
    for (int s = 0; s < gt_nsizes; s++)
        for (int dt = 0; dt < 2; dt++)
            for (int32_t c = 1; c <= 3; c += 2)
                for (int k = 0; k < 3; k++, seed++) {
                    if (!gt_case())
                        continue;
                    const gt_size sz = gt_sizes[s];
                    const int pi = (int)(seed % 6);
                    if (sz.w * sz.h > 100000 && ps[pi].d > 9) /* the reference's cost */
                        continue;
                    const gip_dtype t = dt ? GIP_F32 : GIP_U8;
                    gip_bilateral_params p = {.d = ps[pi].d,
                                              .sigma_color =
                                                  t == GIP_F32 ? ps[pi].sc / 255 : ps[pi].sc,
                                              .sigma_space = ps[pi].ss,
                                              .border = borders[seed % 5]};
                    gip_image src, dst, exp;
                    gt_alloc(&src, sz.w, sz.h, c, t, seed % 3 ? 0 : 7);
                    gt_alloc(&dst, sz.w, sz.h, c, t, seed % 2 ? 0 : 5);
                    gt_alloc(&exp, sz.w, sz.h, c, t, 0);
                    gt_fill_random(&src, seed, 0, 1);
                    reference(&src, &exp, &p);
                    char label[128];
                    snprintf(label, sizeof label, "bilateral %s c%d d%d %g,%g b%d %lldx%lld",
                             gip_dtype_name(t), (int)c, (int)p.d, p.sigma_color, p.sigma_space,
                             (int)p.border, (long long)sz.w, (long long)sz.h);
                    if (GT_OK(gt_run_unary(ctx, run, &src, &dst, &p, 0x5A))) {
                        const double m = max_diff(&dst, &exp), tol = t == GIP_U8 ? 1 : 1e-4;
                        GT_CHECK(m <= tol, "%s: largest difference %g, tolerance %g", label, m,
                                 tol);
                        GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                        if (cuda && t == GIP_U8) {
                            gip_image host;
                            gt_alloc(&host, sz.w, sz.h, c, t, 0);
                            if (GT_OK(gip_bilateral_filter(cpu, &src, &host, &p)))
                                gt_compare(&dst, &host, 0, 0, label);
                            gt_free(&host);
                        }
                    }
                    gt_free(&src);
                    gt_free(&dst);
                    gt_free(&exp);
                }
    gip_context_destroy(cpu);
}

static void bad_input(gip_context *ctx)
{
    gip_image src, dst;
    gt_alloc(&src, 9, 5, 4, GIP_U8, 0);
    gt_alloc(&dst, 9, 5, 4, GIP_U8, 0);
    gt_poison(&dst, 0x77);
    gip_bilateral_params p = {.d = 5, .sigma_color = 10, .sigma_space = 3};
    GT_STATUS(gip_bilateral_filter(ctx, &src, &dst, &p), GIP_ERR_UNSUPPORTED); /* 4 channels */
    src.channels = dst.channels = 1;
    p.sigma_color = NAN;
    GT_STATUS(gip_bilateral_filter(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.sigma_color = 10;
    p.d = 300;
    GT_STATUS(gip_bilateral_filter(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.d = 5;
    GT_STATUS(gip_bilateral_filter(ctx, &src, &src, &p), GIP_ERR_ALIASING);
    GT_STATUS(gip_bilateral_filter(ctx, &src, &dst, NULL), GIP_ERR_INVALID_ARGUMENT);
    for (int64_t i = 0; i < 9 * 5 * 4; i++)
        GT_CHECK(((uint8_t *)dst.data)[i] == 0x77, "dst written by a refusal at %lld",
                 (long long)i);
    src.channels = dst.channels = 4;
    gt_free(&src);
    gt_free(&dst);
}

/* On the CPU the portable loops (GIP_NOSIMD=1) give the vector loops' bits. */
static void portable(gip_context *ctx)
{
    uint64_t seed = 71;
    for (int dt = 0; dt < 2; dt++)
        for (int32_t c = 1; c <= 3; c += 2, seed++) {
            if (!gt_case())
                continue;
            const gip_dtype t = dt ? GIP_F32 : GIP_U8;
            gip_bilateral_params p = {.d = 7,
                                      .sigma_color = t == GIP_F32 ? 40.0 / 255 : 40,
                                      .sigma_space = 3,
                                      .border = borders[seed % 5]};
            gip_image src, vec, plain;
            gt_alloc(&src, 133, 41, c, t, 3);
            gt_alloc(&vec, 133, 41, c, t, 0);
            gt_alloc(&plain, 133, 41, c, t, 0);
            gt_fill_random(&src, seed, 0, 1);
            char label[96];
            snprintf(label, sizeof label, "bilateral %s c%d: GIP_NOSIMD=1 against the default",
                     gip_dtype_name(t), (int)c);
            if (GT_OK(gip_bilateral_filter(ctx, &src, &vec, &p))) {
                gt_setenv("GIP_NOSIMD", "1");
                if (GT_OK(gip_bilateral_filter(ctx, &src, &plain, &p)))
                    gt_compare(&plain, &vec, 0, 0, label);
                gt_setenv("GIP_NOSIMD", NULL);
            }
            gt_free(&src);
            gt_free(&vec);
            gt_free(&plain);
        }
}

static void body(gip_context *ctx)
{
    cases(ctx);
    if (gt_current_backend == GT_CPU)
        portable(ctx);
    if (gt_case())
        bad_input(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "bilateral", body);
}
