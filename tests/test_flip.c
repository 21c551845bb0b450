/* SPDX-License-Identifier: MIT */
/* flip (through the registry: it has no typed C function) against the index mapping of
 * cv2.flip on every dtype, channel count, awkward size, padded stride and code; on CUDA equal to
 * the CPU bit for bit; bad input refused with outputs untouched. */
#include <string.h>

#include "testing.h"

static const gip_dtype dtypes[] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};
static const int32_t chans[] = {1, 3, 4};
static const char *const codes[] = {"0", "1", "-1", "xy"};

static gip_args *flip_args(const char *code)
{
    const gip_op *op = gip_op_find("flip");
    gip_args *a = NULL;
    if (!GT_CHECK(op != NULL, "flip is not registered") || !GT_OK(gip_args_create(op, &a)))
        return NULL;
    if (!GT_OK(gip_args_set_text(a, "code", code))) {
        gip_args_free(a);
        return NULL;
    }
    return a;
}

static void cases(gip_context *ctx)
{
    uint64_t seed = 5;
    for (int s = 0; s < gt_nsizes; s++)
        for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
            for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++)
                for (size_t k = 0; k < sizeof codes / sizeof codes[0]; k++, seed++) {
                    if (!gt_case())
                        continue;
                    gip_args *a = flip_args(codes[k]);
                    if (!a)
                        return;
                    const gt_size sz = gt_sizes[s];
                    gip_image src, dst, exp;
                    gt_alloc(&src, sz.w, sz.h, chans[c], dtypes[d], seed % 3 ? 0 : 7);
                    gt_alloc(&dst, sz.w, sz.h, chans[c], dtypes[d], seed % 2 ? 0 : 5);
                    gt_alloc(&exp, sz.w, sz.h, chans[c], dtypes[d], 0);
                    gt_fill_random(&src, seed, 0, 0);
                    const int fx = strcmp(codes[k], "0") != 0, fy = strcmp(codes[k], "1") != 0;
                    for (int64_t y = 0; y < sz.h; y++)
                        for (int64_t x = 0; x < sz.w; x++)
                            for (int32_t ch = 0; ch < chans[c]; ch++)
                                gt_set(
                                    &exp, x, y, ch,
                                    gt_get(&src, fx ? sz.w - 1 - x : x, fy ? sz.h - 1 - y : y, ch));
                    char label[96];
                    snprintf(label, sizeof label, "flip %s %lldx%lld %s c%d", codes[k],
                             (long long)sz.w, (long long)sz.h, gip_dtype_name(dtypes[d]),
                             (int)chans[c]);
                    if (GT_OK(gt_run_op(ctx, a, &src, NULL, 0, &dst, 0x5A))) {
                        gt_compare(&dst, &exp, 0, 0, label);
                        GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                    }
                    gt_free(&src);
                    gt_free(&dst);
                    gt_free(&exp);
                    gip_args_free(a);
                }
}

static void bad_input(gip_context *ctx)
{
    gip_args *a = flip_args("1");
    if (!a)
        return;
    gip_image src, dst;
    gt_alloc(&src, 9, 5, 3, GIP_U8, 0);
    gt_alloc(&dst, 9, 5, 3, GIP_U16, 0);
    gt_fill_random(&src, 1, 0, 0);
    gt_poison(&dst, 0x77);
    GT_STATUS(gip_op_apply(ctx, a, &src, &dst), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_op_apply(ctx, a, &src, &src), GIP_ERR_ALIASING); /* in place is refused */
    GT_STATUS(gip_op_apply(ctx, a, NULL, &dst), GIP_ERR_INVALID_ARGUMENT);
    gip_image two = src;
    two.channels = 2;
    GT_STATUS(gip_op_apply(ctx, a, &two, &dst), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_args_set_text(a, "code", "2"), GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(strstr(gip_last_error(), "code") != NULL, "message: %s", gip_last_error());
    for (int64_t i = 0; i < 9 * 5 * 3; i++)
        GT_CHECK(((uint16_t *)dst.data)[i] == 0x7777, "dst written by a refusal at %lld",
                 (long long)i);
    /* A pipeline step: parsed, and refused for tiles (it reads the mirrored side). */
    gip_context_desc d = {.backend = GIP_BACKEND_CPU};
    gip_pipeline *p = NULL;
    if (GT_OK(gip_pipeline_create(&d, &p))) {
        GT_OK(gip_pipeline_parse(p, "flip -1 | invert", NULL));
        int64_t hx, hy;
        GT_OK(gip_pipeline_halo(p, &hx, &hy));
        GT_CHECK(hx == -1 && hy == -1, "halo %lld,%lld, expected the whole image", (long long)hx,
                 (long long)hy);
        GT_STATUS(gip_pipeline_parse(p, "flip", NULL), GIP_ERR_INVALID_ARGUMENT);
        gip_pipeline_free(p);
    }
    gt_free(&src);
    gt_free(&dst);
    gip_args_free(a);
}

/* flip of one-pixel-in views when roi is set (data pointers off the buffers' alignment). */
typedef struct flip_view {
    const gip_args *a;
    int roi;
} flip_view;

static gip_status run_flip_view(gip_context *ctx, const gip_image *src, gip_image *dst,
                                const void *params)
{
    const flip_view *v = params;
    gip_image s = *src, d = *dst;
    gip_status st;
    if (v->roi && ((st = gip_image_roi(src, 1, 0, src->width - 1, src->height, &s)) ||
                   (st = gip_image_roi(dst, 1, 0, dst->width - 1, dst->height, &d))))
        return st;
    return gip_op_apply(ctx, v->a, &s, &d);
}

/* Rows longer than the CUDA kernel's 1024-pixel chunk (a partial last chunk), 16-byte strides
 * and views one pixel into their buffers (words of the row ends moved byte by byte). */
static void views(gip_context *ctx)
{
    static const gt_size sizes[] = {{2500, 3}, {1024, 2}, {1027, 5}, {5, 4}, {1, 2}};
    static const gip_dtype vdt[] = {GIP_U8, GIP_U16, GIP_F32};
    uint64_t seed = 300;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t d = 0; d < sizeof vdt / sizeof vdt[0]; d++)
            for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++)
                for (size_t k = 0; k < sizeof codes / sizeof codes[0]; k++)
                    for (int roi = 0; roi < 2; roi++, seed++) {
                        if (!gt_case())
                            continue;
                        gip_args *a = flip_args(codes[k]);
                        if (!a)
                            return;
                        const int64_t w = sizes[s].w, h = sizes[s].h;
                        const int32_t cn = chans[c];
                        gip_image src, dst, exp, sv, dv;
                        gt_alloc(&src, w + roi, h, cn, vdt[d], gt_pad16(w + roi, cn, vdt[d]));
                        gt_alloc(&dst, w + roi, h, cn, vdt[d], gt_pad16(w + roi, cn, vdt[d]));
                        gt_alloc(&exp, w, h, cn, vdt[d], 0);
                        gt_fill_random(&src, seed, 0, 0);
                        GT_OK(gip_image_roi(&src, roi, 0, w, h, &sv));
                        const int fx = strcmp(codes[k], "0") != 0, fy = strcmp(codes[k], "1") != 0;
                        for (int64_t y = 0; y < h; y++)
                            for (int64_t x = 0; x < w; x++)
                                for (int32_t ch = 0; ch < cn; ch++)
                                    gt_set(&exp, x, y, ch,
                                           gt_get(&sv, fx ? w - 1 - x : x, fy ? h - 1 - y : y, ch));
                        char label[96];
                        snprintf(label, sizeof label, "flip view %s %lldx%lld %s c%d roi %d",
                                 codes[k], (long long)w, (long long)h, gip_dtype_name(vdt[d]),
                                 (int)cn, roi);
                        flip_view v = {a, roi};
                        if (GT_OK(gt_run_unary(ctx, run_flip_view, &src, &dst, &v, 0x5A)) &&
                            GT_OK(gip_image_roi(&dst, roi, 0, w, h, &dv))) {
                            gt_compare(&dv, &exp, 0, 0, label);
                            GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                        }
                        gt_free(&src);
                        gt_free(&dst);
                        gt_free(&exp);
                        gip_args_free(a);
                    }
}

static void body(gip_context *ctx)
{
    cases(ctx);
    views(ctx);
    if (gt_case())
        bad_input(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "flip", body);
}
