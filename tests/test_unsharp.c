/* SPDX-License-Identifier: MIT */
/* unsharp (gip_unsharp_mask): the blur from gip_gaussian_blur on the CPU (its exactness is
 * test_gaussian's), the sharpening written here as cv2.addWeighted defines it (fmaf(src, alpha,
 * blur * beta), rounded half to even and saturated), the threshold; every dtype, channel count,
 * awkward size, stride and border; CUDA equal to it; bad input refused with outputs untouched. */
#include <math.h>
#include <string.h>

#include "testing.h"

static const gip_dtype dtypes[] = {GIP_U8, GIP_U16, GIP_F32};
static const int32_t chans[] = {1, 3, 4};

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_unsharp_mask(ctx, src, dst, p);
}

static void cases(gip_context *ctx)
{
    gip_context *cpu = NULL;
    gip_context_desc desc = {.backend = GIP_BACKEND_CPU};
    if (!GT_OK(gip_context_create(&desc, &cpu)))
        return;
    static const struct {
        int32_t k;
        double sigma, amount, threshold;
    } ps[] = {{5, 0, 1, 0}, {9, 2, 0.7, 0}, {0, 1.5, 2.5, 0}, {3, 0, 1.3, 10}, {7, 1, -0.4, 0}};
    uint64_t seed = 1;
    for (int s = 0; s < gt_nsizes; s++)
        for (size_t d = 0; d < 3; d++)
            for (size_t c = 0; c < 3; c++)
                for (int r = 0; r < 2; r++, seed++) {
                    if (!gt_case())
                        continue;
                    const gt_size sz = gt_sizes[s];
                    const int pi = (int)(seed % 5);
                    gip_unsharp_params p = {.ksize_w = ps[pi].k,
                                            .ksize_h = ps[pi].k,
                                            .sigma = ps[pi].sigma,
                                            .amount = ps[pi].amount,
                                            .threshold = ps[pi].threshold,
                                            .border = {(gip_border)(seed % 5), {9, 8, 7, 6}}};
                    const gip_dtype t = dtypes[d];
                    gip_image src, dst, exp, blur;
                    gt_alloc(&src, sz.w, sz.h, chans[c], t, seed % 3 ? 0 : 7);
                    gt_alloc(&dst, sz.w, sz.h, chans[c], t, seed % 2 ? 0 : 5);
                    gt_alloc(&exp, sz.w, sz.h, chans[c], t, 0);
                    gt_alloc(&blur, sz.w, sz.h, chans[c], t, 0);
                    gt_fill_random(&src, seed, 0, 1);
                    gip_gaussian_params gp = {.ksize_w = p.ksize_w,
                                              .ksize_h = p.ksize_h,
                                              .sigma_x = p.sigma,
                                              .sigma_y = p.sigma,
                                              .border = p.border,
                                              .method = GIP_CONV_DIRECT};
                    if (!GT_OK(gip_gaussian_blur(cpu, &src, &blur, &gp)))
                        break;
                    const float alpha = (float)(1.0 + p.amount), beta = (float)-p.amount;
                    for (int64_t y = 0; y < sz.h; y++)
                        for (int64_t x = 0; x < sz.w; x++)
                            for (int32_t ch = 0; ch < chans[c]; ch++) {
                                const float sv = (float)gt_get(&src, x, y, ch);
                                const float bv = (float)gt_get(&blur, x, y, ch);
                                const float v = fabsf(sv - bv) < (float)p.threshold
                                                    ? sv
                                                    : fmaf(sv, alpha, bv * beta);
                                gt_set(&exp, x, y, ch, v);
                            }
                    char label[128];
                    snprintf(label, sizeof label, "unsharp %s c%d k%d s%g a%g t%g b%d %lldx%lld",
                             gip_dtype_name(t), (int)chans[c], (int)p.ksize_w, p.sigma, p.amount,
                             p.threshold, (int)p.border.mode, (long long)sz.w, (long long)sz.h);
                    if (GT_OK(gt_run_unary(ctx, run, &src, &dst, &p, 0x5A))) {
                        gt_compare(&dst, &exp, 0, 0, label);
                        GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                    }
                    gt_free(&src);
                    gt_free(&dst);
                    gt_free(&exp);
                    gt_free(&blur);
                }
    gip_context_destroy(cpu);
}

static void bad_input(gip_context *ctx)
{
    gip_image src, dst;
    gt_alloc(&src, 9, 5, 3, GIP_U8, 0);
    gt_alloc(&dst, 9, 5, 3, GIP_U8, 0);
    gt_fill_random(&src, 1, 0, 0);
    gt_poison(&dst, 0x77);
    gip_unsharp_params p = {.ksize_w = 4, .ksize_h = 4, .amount = 1};
    GT_STATUS(gip_unsharp_mask(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT); /* even */
    p.ksize_w = p.ksize_h = 3;
    p.amount = INFINITY;
    GT_STATUS(gip_unsharp_mask(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.amount = 1;
    GT_STATUS(gip_unsharp_mask(ctx, &src, &src, &p), GIP_ERR_ALIASING);
    GT_STATUS(gip_unsharp_mask(ctx, &src, &dst, NULL), GIP_ERR_INVALID_ARGUMENT);
    for (int64_t i = 0; i < 9 * 5 * 3; i++)
        GT_CHECK(((uint8_t *)dst.data)[i] == 0x77, "dst written by a refusal at %lld",
                 (long long)i);
    gt_free(&src);
    gt_free(&dst);
}

static void body(gip_context *ctx)
{
    cases(ctx);
    if (gt_case())
        bad_input(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "unsharp", body);
}
