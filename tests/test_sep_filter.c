/* SPDX-License-Identifier: MIT */
/* sep_filter (gip_sep_filter2d) against a double-precision separable correlation written here:
 * integer kernels on integer sources exactly, float kernels or f32 sources within float rounding;
 * every dtype pair, border, anchor, delta, awkward size, padded stride and channel count; CUDA
 * equal to the reference; bad input refused with outputs untouched. */
#include <math.h>

#include "border.h"
#include "testing.h"

static const gip_dtype srcs[] = {GIP_U8, GIP_U16, GIP_F32};
static const gip_dtype dsts[] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};
static const int32_t chans[] = {1, 3, 4};
static const gip_border borders[] = {GIP_BORDER_REFLECT_101, GIP_BORDER_REFLECT,
                                     GIP_BORDER_REPLICATE, GIP_BORDER_CONSTANT, GIP_BORDER_WRAP};

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_sep_filter2d(ctx, src, dst, p);
}

static void cases(gip_context *ctx)
{
    static const float kint[][5] = {{1, 2, 1}, {-1, 0, 1}, {1, 4, 6, 4, 1}, {3}, {2, -1}};
    static const int32_t nint[] = {3, 3, 5, 1, 2};
    static const float kf[][3] = {{0.25f, 0.5f, 0.25f}, {0.1f, 0.7f, 0.2f}};
    uint64_t seed = 1;
    for (int s = 0; s < gt_nsizes; s++)
        for (size_t si = 0; si < 3; si++)
            for (size_t c = 0; c < 3; c++)
                for (int r = 0; r < 3; r++, seed++) {
                    if (!gt_case())
                        continue;
                    const gt_size sz = gt_sizes[s];
                    const bool fl = r == 2;
                    /* float kernels and f32 sources: f32 results, within float rounding (integer
                     * results of them round float sums, which a double reference cannot
                     * reproduce at halves) */
                    const gip_dtype sdt = srcs[si],
                                    ddt = fl || sdt == GIP_F32 ? GIP_F32 : dsts[seed % 4];
                    const gip_border b = borders[seed % 5];
                    const int ix = (int)(seed % 5), iy = (int)((seed / 5) % 5);
                    gip_sep_filter_params p = {.kernel_x = fl ? kf[0] : kint[ix],
                                               .kernel_y = fl ? kf[1] : kint[iy],
                                               .ksize_w = fl ? 3 : nint[ix],
                                               .ksize_h = fl ? 3 : nint[iy],
                                               .delta = seed % 3 == 0 ? 20.0f : 0.0f,
                                               .border = {b, {5, 6, 7, 8}}};
                    if (seed % 4 == 1) {
                        p.has_anchor = 1;
                        p.anchor_x = p.ksize_w - 1;
                        p.anchor_y = 0;
                    }
                    const int32_t ax = p.has_anchor ? p.anchor_x : p.ksize_w / 2;
                    const int32_t ay = p.has_anchor ? p.anchor_y : p.ksize_h / 2;
                    gip_image src, dst, exp;
                    gt_alloc(&src, sz.w, sz.h, chans[c], sdt, seed % 3 ? 0 : 7);
                    gt_alloc(&dst, sz.w, sz.h, chans[c], ddt, seed % 2 ? 0 : 5);
                    gt_alloc(&exp, sz.w, sz.h, chans[c], ddt, 0);
                    gt_fill_random(&src, seed, -1, 2);
                    for (int64_t y = 0; y < sz.h; y++)
                        for (int64_t x = 0; x < sz.w; x++)
                            for (int32_t ch = 0; ch < chans[c]; ch++) {
                                double acc = 0;
                                for (int32_t j = 0; j < p.ksize_h; j++)
                                    for (int32_t i = 0; i < p.ksize_w; i++) {
                                        int64_t sx = gip__border_index(x + i - ax, sz.w, b);
                                        int64_t sy = gip__border_index(y + j - ay, sz.h, b);
                                        double bv = gt_get(&src, 0, 0, 0);
                                        if (sx < 0 || sy < 0) {
                                            gip_image one;
                                            gt_alloc(&one, 1, 1, 1, sdt, 0);
                                            gt_set(&one, 0, 0, 0, 5 + ch);
                                            bv = gt_get(&one, 0, 0, 0);
                                            gt_free(&one);
                                        } else {
                                            bv = gt_get(&src, sx, sy, ch);
                                        }
                                        acc += (double)p.kernel_x[i] * p.kernel_y[j] * bv;
                                    }
                                gt_set(&exp, x, y, ch, acc + p.delta);
                            }
                    char label[128];
                    snprintf(label, sizeof label, "sep_filter %s->%s b%d %lldx%lld c%d %s",
                             gip_dtype_name(sdt), gip_dtype_name(ddt), (int)b, (long long)sz.w,
                             (long long)sz.h, (int)chans[c], fl ? "float kernels" : "integer");
                    const bool exact = !fl && sdt != GIP_F32;
                    const double atol = exact ? 0 : 1e-3;
                    if (GT_OK(gt_run_unary(ctx, run, &src, &dst, &p, 0x5A))) {
                        gt_compare(&dst, &exp, atol, exact ? 0 : 1e-5, label);
                        GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                    }
                    gt_free(&src);
                    gt_free(&dst);
                    gt_free(&exp);
                }
}

static void bad_input(gip_context *ctx)
{
    gip_image src, dst;
    gt_alloc(&src, 9, 5, 1, GIP_U8, 0);
    gt_alloc(&dst, 9, 5, 1, GIP_U8, 0);
    gt_fill_random(&src, 1, 0, 0);
    gt_poison(&dst, 0x77);
    const float k[3] = {1, 2, 1}, bad[3] = {1, NAN, 1};
    gip_sep_filter_params p = {.kernel_x = k, .kernel_y = NULL, .ksize_w = 3, .ksize_h = 3};
    GT_STATUS(gip_sep_filter2d(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.kernel_y = bad;
    GT_STATUS(gip_sep_filter2d(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.kernel_y = k;
    p.ksize_h = 0;
    GT_STATUS(gip_sep_filter2d(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.ksize_h = 3;
    p.has_anchor = 1;
    p.anchor_x = 3;
    GT_STATUS(gip_sep_filter2d(ctx, &src, &dst, &p), GIP_ERR_INVALID_ARGUMENT);
    p.has_anchor = 0;
    GT_STATUS(gip_sep_filter2d(ctx, &src, &src, &p), GIP_ERR_ALIASING);
    GT_STATUS(gip_sep_filter2d(ctx, &src, &dst, NULL), GIP_ERR_INVALID_ARGUMENT);
    for (int64_t i = 0; i < 9 * 5; i++)
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
    return gt_main(argc, argv, "sep_filter", body);
}
