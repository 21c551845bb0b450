/* SPDX-License-Identifier: MIT */
/* gip_copy_make_border against OpenCV's borderInterpolate written here (reflections and wraps
 * repeated for margins wider than the image) on every border mode, dtype, channel count, awkward
 * size and padded stride; constant values rounded and saturated per channel; on CUDA equal bit
 * for bit (outputs poisoned first); bad input refused with the output untouched. */
#include <math.h>
#include <string.h>

#include "gip/geometry.h"
#include "testing.h"

static const gip_dtype dtypes[] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};
static const int32_t chans[] = {1, 3, 4};
static const gip_border borders[] = {GIP_BORDER_CONSTANT, GIP_BORDER_REPLICATE, GIP_BORDER_REFLECT,
                                     GIP_BORDER_WRAP, GIP_BORDER_REFLECT_101};

/* OpenCV's borderInterpolate, step by step. */
static int64_t interp(int64_t p, int64_t n, gip_border b)
{
    if (p >= 0 && p < n)
        return p;
    if (b == GIP_BORDER_CONSTANT)
        return -1;
    if (b == GIP_BORDER_REPLICATE)
        return p < 0 ? 0 : n - 1;
    if (b == GIP_BORDER_WRAP) {
        if (p < 0)
            p -= ((p - n + 1) / n) * n;
        return p >= n ? p % n : p;
    }
    if (n == 1)
        return 0;
    const int64_t delta = b == GIP_BORDER_REFLECT_101;
    do {
        if (p < 0)
            p = -p - 1 + delta;
        else
            p = n - 1 - (p - n) - delta;
    } while (p < 0 || p >= n);
    return p;
}

typedef struct cmb {
    int64_t top, left;
    gip_border_spec b;
} cmb;

static gip_status run_cmb(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    const cmb *c = p;
    return gip_copy_make_border(ctx, src, dst, c->top, c->left, &c->b);
}

static void cases(gip_context *ctx)
{
    static const int64_t margins[][4] = {{0, 0, 0, 0}, {1, 2, 3, 4}, {20, 17, 50, 3}};
    uint64_t seed = 7;
    for (int s = 0; s < gt_nsizes; s++)
        for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
            for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++)
                for (size_t b = 0; b < sizeof borders / sizeof borders[0]; b++)
                    for (size_t m = 0; m < 3; m++, seed++) {
                        if (!gt_case())
                            continue;
                        const gt_size sz = gt_sizes[s];
                        if (sz.w * sz.h > 100000 && m != 2)
                            continue;
                        const int64_t t = margins[m][0], bo = margins[m][1], l = margins[m][2],
                                      r = margins[m][3];
                        const int64_t dw = sz.w + l + r, dh = sz.h + t + bo;
                        gip_image src, dst, exp;
                        gt_alloc(&src, sz.w, sz.h, chans[c], dtypes[d], seed % 3 ? 0 : 7);
                        gt_alloc(&dst, dw, dh, chans[c], dtypes[d], seed % 2 ? 0 : 5);
                        gt_alloc(&exp, dw, dh, chans[c], dtypes[d], 0);
                        gt_fill_random(&src, seed, -50, 300);
                        cmb p = {t, l, {borders[b], {1.6f, 300.4f, -5.f, 70000.f}}};
                        for (int64_t y = 0; y < dh; y++)
                            for (int64_t x = 0; x < dw; x++) {
                                const int64_t sx = interp(x - l, sz.w, borders[b]);
                                const int64_t sy = interp(y - t, sz.h, borders[b]);
                                for (int32_t ch = 0; ch < chans[c]; ch++)
                                    gt_set(&exp, x, y, ch,
                                           sx < 0 || sy < 0 ? p.b.value[ch]
                                                            : gt_get(&src, sx, sy, ch));
                            }
                        char label[96];
                        snprintf(label, sizeof label, "copy_make_border %lldx%lld %s c%d %s m%d",
                                 (long long)sz.w, (long long)sz.h, gip_dtype_name(dtypes[d]),
                                 (int)chans[c], gip_border_name(borders[b]), (int)m);
                        if (GT_OK(gt_run_unary(ctx, run_cmb, &src, &dst, &p, 0x5A))) {
                            gt_compare(&dst, &exp, 0, 0, label);
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
    gt_alloc(&src, 9, 5, 3, GIP_U8, 0);
    gt_alloc(&dst, 10, 6, 3, GIP_U8, 0);
    gt_fill_random(&src, 1, 0, 0);
    gt_poison(&dst, 0x77);
    gip_border_spec b = {GIP_BORDER_REFLECT, {0}};
    GT_STATUS(gip_copy_make_border(ctx, &src, &dst, 1, 1, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_copy_make_border(ctx, &src, &dst, 2, 0, &b), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_copy_make_border(ctx, &src, &dst, -1, 0, &b), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_copy_make_border(ctx, NULL, &dst, 0, 0, &b), GIP_ERR_INVALID_ARGUMENT);
    b.mode = (gip_border)9;
    GT_STATUS(gip_copy_make_border(ctx, &src, &dst, 0, 0, &b), GIP_ERR_INVALID_ARGUMENT);
    for (int64_t i = 0; i < 10 * 3; i++)
        GT_CHECK(((uint8_t *)dst.data)[i] == 0x77, "dst written by a refusal at %lld",
                 (long long)i);
    const gip_op *op = gip_op_find("copy_make_border");
    gip_args *a = NULL;
    if (GT_CHECK(op != NULL, "not registered") && GT_OK(gip_args_create(op, &a))) {
        GT_OK(gip_args_set_text(a, "top", "1"));
        GT_OK(gip_args_set_text(a, "right", "4"));
        GT_STATUS(gip_args_set_text(a, "left", "-1"), GIP_ERR_INVALID_ARGUMENT);
        gip_shape in = {9, 5, 3, GIP_U8}, out;
        if (GT_OK(gip_op_output_shape(a, &in, &out)))
            GT_CHECK(out.width == 13 && out.height == 6, "shape %lldx%lld", (long long)out.width,
                     (long long)out.height);
        gip_args_free(a);
    }
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
    return gt_main(argc, argv, "copy_make_border", body);
}
