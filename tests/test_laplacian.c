/* SPDX-License-Identifier: MIT */
/* laplacian (gip_laplacian) and the scharr entry against a double-precision correlation written
 * here with OpenCV's kernels: every ksize, dtype pair, border, awkward size, padded stride and
 * channel count; integer sources exact (integer scale and delta), f32 within float rounding;
 * CUDA equal to the reference, hence to the CPU; bad input refused with outputs untouched. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "border.h"
#include "testing.h"

static const gip_dtype srcs[] = {GIP_U8, GIP_U16, GIP_F32};
static const gip_dtype dsts[] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};
static const int32_t chans[] = {1, 3, 4};
static const gip_border borders[] = {GIP_BORDER_REFLECT_101, GIP_BORDER_REFLECT,
                                     GIP_BORDER_REPLICATE, GIP_BORDER_CONSTANT};

/* OpenCV's second-derivative kernel of size k: dxx + dyy (k 1 and 3: its 3x3 kernels). */
static int32_t kernel(int32_t k, int32_t *out)
{
    static const int32_t k1[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0}, k3[9] = {2, 0, 2, 0, -8, 0, 2, 0, 2};
    static const int32_t d5[5] = {1, 0, -2, 0, 1}, s5[5] = {1, 4, 6, 4, 1};
    static const int32_t d7[7] = {1, 2, -1, -4, -1, 2, 1}, s7[7] = {1, 6, 15, 20, 15, 6, 1};
    if (k <= 3) {
        memcpy(out, k == 1 ? k1 : k3, sizeof k1);
        return 3;
    }
    const int32_t *d = k == 5 ? d5 : d7, *s = k == 5 ? s5 : s7;
    for (int32_t y = 0; y < k; y++)
        for (int32_t x = 0; x < k; x++)
            out[y * k + x] = d[x] * s[y] + s[x] * d[y];
    return k;
}

static void correlate(const gip_image *src, gip_image *dst, const int32_t *k, int32_t kw,
                      int32_t kh, double scale, double delta, gip_border border, double bv)
{
    for (int64_t y = 0; y < src->height; y++)
        for (int64_t x = 0; x < src->width; x++)
            for (int32_t c = 0; c < src->channels; c++) {
                double acc = 0;
                for (int32_t j = 0; j < kh; j++)
                    for (int32_t i = 0; i < kw; i++) {
                        int64_t sx = gip__border_index(x + i - kw / 2, src->width, border);
                        int64_t sy = gip__border_index(y + j - kh / 2, src->height, border);
                        acc += k[j * kw + i] * (sx < 0 || sy < 0 ? bv : gt_get(src, sx, sy, c));
                    }
                gt_set(dst, x, y, c, acc * scale + delta);
            }
}

static gip_status run_lap(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_laplacian(ctx, src, dst, p);
}

static void laplacian_cases(gip_context *ctx)
{
    uint64_t seed = 1;
    static const int32_t ks[] = {1, 3, 5, 7};
    for (int s = 0; s < gt_nsizes; s++)
        for (size_t si = 0; si < 3; si++)
            for (size_t c = 0; c < 3; c++)
                for (size_t ki = 0; ki < 4; ki++, seed++) {
                    if (!gt_case())
                        continue;
                    const gt_size sz = gt_sizes[s];
                    /* f32 sources give f32 results here: their float sums rounded to integers
                     * cannot be reproduced by a double reference at halves */
                    const gip_dtype sdt = srcs[si], ddt = sdt == GIP_F32 ? GIP_F32 : dsts[seed % 4];
                    const gip_border b = borders[seed % 4];
                    gip_laplacian_params p = {.ksize = ks[ki],
                                              .scale = seed % 3 == 0 ? 2.0f : 1.0f,
                                              .delta = seed % 5 == 0 ? 100.0f : 0.0f,
                                              .border = {b, {7, 8, 9, 10}}};
                    gip_image src, dst, exp;
                    gt_alloc(&src, sz.w, sz.h, chans[c], sdt, seed % 3 ? 0 : 7);
                    gt_alloc(&dst, sz.w, sz.h, chans[c], ddt, seed % 2 ? 0 : 5);
                    gt_alloc(&exp, sz.w, sz.h, chans[c], ddt, 0);
                    gt_fill_random(&src, seed, -1, 2);
                    int32_t kern[49];
                    const int32_t n = kernel(ks[ki], kern);
                    for (int32_t ch = 0; ch < chans[c]; ch++) {
                        /* the reference per channel (its constant differs per channel) */
                        gip_image s1, d1;
                        gt_alloc(&s1, sz.w, sz.h, 1, sdt, 0);
                        gt_alloc(&d1, sz.w, sz.h, 1, ddt, 0);
                        for (int64_t y = 0; y < sz.h; y++)
                            for (int64_t x = 0; x < sz.w; x++)
                                gt_set(&s1, x, y, 0, gt_get(&src, x, y, ch));
                        correlate(&s1, &d1, kern, n, n, p.scale, p.delta, b, 7 + ch);
                        for (int64_t y = 0; y < sz.h; y++)
                            for (int64_t x = 0; x < sz.w; x++)
                                gt_set(&exp, x, y, ch, gt_get(&d1, x, y, 0));
                        gt_free(&s1);
                        gt_free(&d1);
                    }
                    char label[128];
                    snprintf(label, sizeof label, "laplacian k%d %s->%s b%d %lldx%lld c%d",
                             (int)ks[ki], gip_dtype_name(sdt), gip_dtype_name(ddt), (int)b,
                             (long long)sz.w, (long long)sz.h, (int)chans[c]);
                    if (GT_OK(gt_run_unary(ctx, run_lap, &src, &dst, &p, 0x5A))) {
                        /* f32 sources: float sums of values below 2 in magnitude, each step
                         * within half an ulp of the running sum, bounded by 2 sum|k| 2^-24 per
                         * tap: sum|k| * 2 * 2^-24 * taps covers them, times |scale| */
                        double bound = 0;
                        for (int32_t i = 0; i < n * n; i++)
                            bound += abs(kern[i]);
                        bound *= 2.0 * n * n / 16777216.0 * fabs(p.scale);
                        /* (plus a few ulps of the result, which delta may make large) */
                        gt_compare(&dst, &exp, sdt == GIP_F32 ? bound : 0,
                                   sdt == GIP_F32 ? 5e-7 : 0, label);
                        GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                    }
                    gt_free(&src);
                    gt_free(&dst);
                    gt_free(&exp);
                }
}

/* The scharr entry equals gip_sobel with GIP_SCHARR (its exactness is test_sobel's). */
static void scharr_entry(gip_context *ctx)
{
    const gip_op *op = gip_op_find("scharr");
    gip_args *a = NULL;
    if (!GT_CHECK(op != NULL, "scharr is not registered") || !GT_OK(gip_args_create(op, &a)))
        return;
    GT_OK(gip_args_set_text(a, "dy", "1"));
    GT_OK(gip_args_set_text(a, "dtype", "f32"));
    gip_image src, dst, exp;
    gt_alloc(&src, 37, 21, 3, GIP_U8, 0);
    gt_alloc(&dst, 37, 21, 3, GIP_F32, 0);
    gt_alloc(&exp, 37, 21, 3, GIP_F32, 0);
    gt_fill_random(&src, 9, 0, 0);
    const int32_t k[9] = {-3, -10, -3, 0, 0, 0, 3, 10, 3};
    correlate(&src, &exp, k, 3, 3, 1, 0, GIP_BORDER_REFLECT_101, 0);
    if (GT_OK(gip_op_apply(ctx, a, &src, &dst)))
        gt_compare(&dst, &exp, 0, 0, "scharr dy=1");
    GT_STATUS(gip_args_set_text(a, "dx", "1"), GIP_OK);
    GT_STATUS(gip_op_apply(ctx, a, &src, &dst), GIP_ERR_INVALID_ARGUMENT); /* dx + dy = 2 */
    gip_args_free(a);
    gt_free(&src);
    gt_free(&dst);
    gt_free(&exp);
}

static void bad_input(gip_context *ctx)
{
    gip_image src, dst;
    gt_alloc(&src, 9, 5, 1, GIP_U8, 0);
    gt_alloc(&dst, 9, 5, 1, GIP_S16, 0);
    gt_fill_random(&src, 1, 0, 0);
    gt_poison(&dst, 0x77);
    gip_laplacian_params p = {.ksize = 4};
    GT_STATUS(gip_laplacian(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.ksize = 3;
    p.border.mode = GIP_BORDER_WRAP;
    GT_STATUS(gip_laplacian(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.border.mode = GIP_BORDER_REFLECT;
    p.scale = NAN;
    GT_STATUS(gip_laplacian(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_laplacian(ctx, &src, &dst, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_laplacian(ctx, NULL, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    for (int64_t i = 0; i < 9 * 5 * 2; i++)
        GT_CHECK(((uint8_t *)dst.data)[i] == 0x77, "dst written by a refusal at %lld",
                 (long long)i);
    gt_free(&src);
    gt_free(&dst);
}

static void body(gip_context *ctx)
{
    laplacian_cases(ctx);
    if (gt_case() && gip_context_backend(ctx) == GIP_BACKEND_CPU)
        scharr_entry(ctx);
    if (gt_case())
        bad_input(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "laplacian", body);
}
