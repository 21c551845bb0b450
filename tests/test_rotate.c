/* SPDX-License-Identifier: MIT */
/* rotate, transpose and the crop step against their index mappings on every dtype, channel
 * count, awkward size and padded stride; on CUDA equal to the mapping bit for bit (outputs
 * poisoned first); bad input refused with the output untouched. */
#include <string.h>

#include "gip/geometry.h"
#include "testing.h"

static const gip_dtype dtypes[] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};
static const int32_t chans[] = {1, 3, 4};

/* mode 0..2: gip_rotate codes; 3: transpose */
static gip_status run_move(gip_context *ctx, const gip_image *src, gip_image *dst,
                           const void *params)
{
    const int mode = *(const int *)params;
    return mode == 3 ? gip_transpose(ctx, src, dst) : gip_rotate(ctx, src, dst, mode);
}

static gip_status run_crop(gip_context *ctx, const gip_image *src, gip_image *dst,
                           const void *params)
{
    return gip_op_apply(ctx, params, src, dst);
}

static void cases(gip_context *ctx)
{
    uint64_t seed = 3;
    for (int s = 0; s < gt_nsizes; s++)
        for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
            for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++)
                for (int mode = 0; mode < 4; mode++, seed++) {
                    if (!gt_case())
                        continue;
                    const gt_size sz = gt_sizes[s];
                    const int swap = mode != 1;
                    const int64_t dw = swap ? sz.h : sz.w, dh = swap ? sz.w : sz.h;
                    gip_image src, dst, exp;
                    gt_alloc(&src, sz.w, sz.h, chans[c], dtypes[d], seed % 3 ? 0 : 7);
                    gt_alloc(&dst, dw, dh, chans[c], dtypes[d], seed % 2 ? 0 : 5);
                    gt_alloc(&exp, dw, dh, chans[c], dtypes[d], 0);
                    gt_fill_random(&src, seed, -100, 100);
                    for (int64_t y = 0; y < dh; y++)
                        for (int64_t x = 0; x < dw; x++) {
                            int64_t sx = y, sy = x; /* transpose */
                            if (mode == 0)
                                sx = y, sy = sz.h - 1 - x;
                            else if (mode == 1)
                                sx = sz.w - 1 - x, sy = sz.h - 1 - y;
                            else if (mode == 2)
                                sx = sz.w - 1 - y, sy = x;
                            for (int32_t ch = 0; ch < chans[c]; ch++)
                                gt_set(&exp, x, y, ch, gt_get(&src, sx, sy, ch));
                        }
                    char label[96];
                    snprintf(label, sizeof label, "%s %lldx%lld %s c%d",
                             mode == 3   ? "transpose"
                             : mode == 0 ? "rotate 90cw"
                             : mode == 1 ? "rotate 180"
                                         : "rotate 90ccw",
                             (long long)sz.w, (long long)sz.h, gip_dtype_name(dtypes[d]),
                             (int)chans[c]);
                    if (GT_OK(gt_run_unary(ctx, run_move, &src, &dst, &mode, 0x5A))) {
                        gt_compare(&dst, &exp, 0, 0, label);
                        GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                    }
                    gt_free(&src);
                    gt_free(&dst);
                    gt_free(&exp);
                }
}

static void crop(gip_context *ctx)
{
    const gip_op *op = gip_op_find("crop");
    gip_args *a = NULL;
    if (!GT_CHECK(op != NULL, "crop is not registered") || !GT_OK(gip_args_create(op, &a)))
        return;
    gip_image src, dst;
    gt_alloc(&src, 13, 42, 3, GIP_U16, 6);
    gt_alloc(&dst, 5, 40, 3, GIP_U16, 2);
    gt_fill_random(&src, 9, 0, 0);
    GT_OK(gip_args_set_text(a, "x", "8"));
    GT_OK(gip_args_set_text(a, "y", "2"));
    GT_OK(gip_args_set_text(a, "w", "5"));
    GT_OK(gip_args_set_text(a, "h", "40"));
    gip_shape in = {13, 42, 3, GIP_U16}, out;
    if (GT_OK(gip_op_output_shape(a, &in, &out)))
        GT_CHECK(out.width == 5 && out.height == 40, "crop shape %lldx%lld", (long long)out.width,
                 (long long)out.height);
    if (GT_OK(gt_run_unary(ctx, run_crop, &src, &dst, a, 0x33))) {
        gip_image view = src;
        view.data = (uint8_t *)src.data + 2 * src.stride + 8 * 3 * 2;
        view.width = 5;
        view.height = 40;
        gt_compare(&dst, &view, 0, 0, "crop 8 2 5 40");
    }
    GT_OK(gip_args_set_text(a, "x", "9")); /* 9 + 5 > 13 */
    GT_STATUS(gip_op_output_shape(a, &in, &out), GIP_ERR_INVALID_ARGUMENT);
    gt_poison(&dst, 0x77);
    GT_STATUS(gip_op_apply(ctx, a, &src, &dst), GIP_ERR_INVALID_ARGUMENT);
    for (int64_t i = 0; i < 5 * 3; i++)
        GT_CHECK(((uint16_t *)dst.data)[i] == 0x7777, "dst written by a refusal");
    gt_free(&src);
    gt_free(&dst);
    gip_args_free(a);
}

static void bad_input(gip_context *ctx)
{
    gip_image src, dst, wrong;
    gt_alloc(&src, 9, 5, 3, GIP_U8, 0);
    gt_alloc(&dst, 5, 9, 3, GIP_U8, 0);
    gt_alloc(&wrong, 9, 5, 3, GIP_U8, 0);
    gt_fill_random(&src, 1, 0, 0);
    gt_poison(&dst, 0x77);
    gt_poison(&wrong, 0x77);
    GT_STATUS(gip_rotate(ctx, &src, &dst, 3), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_rotate(ctx, &src, &wrong, GIP_ROTATE_90_CLOCKWISE), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_rotate(ctx, &src, &dst, GIP_ROTATE_180), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_transpose(ctx, &src, &wrong), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_transpose(ctx, NULL, &dst), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_transpose(ctx, &src, NULL), GIP_ERR_INVALID_ARGUMENT);
    gip_image sq = src;
    sq.width = sq.height = 3; /* a view of src: in place is refused */
    GT_STATUS(gip_transpose(ctx, &src, &sq), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_transpose(ctx, &sq, &sq), GIP_ERR_ALIASING);
    gip_image d16 = dst;
    d16.dtype = GIP_U16;
    d16.width = 2; /* keeps the view inside the buffer; the dtype is refused first */
    GT_STATUS(gip_rotate(ctx, &src, &d16, GIP_ROTATE_180), GIP_ERR_SHAPE_MISMATCH);
    for (int64_t i = 0; i < 5 * 9 * 3; i++)
        GT_CHECK(((uint8_t *)dst.data)[i] == 0x77 && ((uint8_t *)wrong.data)[i] == 0x77,
                 "dst written by a refusal at %lld", (long long)i);
    gip_context_desc d = {.backend = GIP_BACKEND_CPU};
    gip_pipeline *p = NULL;
    if (GT_OK(gip_pipeline_create(&d, &p))) {
        GT_OK(gip_pipeline_parse(p, "rotate 90 | transpose | crop 0 0 2 2", NULL));
        GT_STATUS(gip_pipeline_parse(p, "rotate 45", NULL), GIP_ERR_INVALID_ARGUMENT);
        gip_pipeline_free(p);
    }
    gt_free(&src);
    gt_free(&dst);
    gt_free(&wrong);
}

/* run_move on one-pixel-in views when roi is set (data pointers off the buffers' alignment). */
typedef struct move_view {
    int mode, roi;
} move_view;

static gip_status run_move_view(gip_context *ctx, const gip_image *src, gip_image *dst,
                                const void *params)
{
    const move_view *v = params;
    gip_image s = *src, d = *dst;
    gip_status st;
    if (v->roi && ((st = gip_image_roi(src, 1, 0, src->width - 1, src->height, &s)) ||
                   (st = gip_image_roi(dst, 1, 0, dst->width - 1, dst->height, &d))))
        return st;
    return run_move(ctx, &s, &d, &v->mode);
}

/* The CUDA kernels' tiles (64 or 32 pixels a side) several to a side with partial ones at the
 * ends, rows read and written as words (16-byte strides) or byte by byte (views one pixel into
 * their buffers), the half turn's chunks of 1024 pixels. */
static void views(gip_context *ctx)
{
    static const gt_size sizes[] = {{200, 130}, {130, 67}, {1100, 3}, {3, 70}, {1, 1}};
    static const gip_dtype vdt[] = {GIP_U8, GIP_U16, GIP_F32};
    uint64_t seed = 700;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t d = 0; d < sizeof vdt / sizeof vdt[0]; d++)
            for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++)
                for (int mode = 0; mode < 4; mode++)
                    for (int roi = 0; roi < 2; roi++, seed++) {
                        if (!gt_case())
                            continue;
                        const int64_t w = sizes[s].w, h = sizes[s].h;
                        const int32_t cn = chans[c];
                        const int swap = mode != 1;
                        const int64_t dw = swap ? h : w, dh = swap ? w : h;
                        gip_image src, dst, exp, sv, dv;
                        gt_alloc(&src, w + roi, h, cn, vdt[d], gt_pad16(w + roi, cn, vdt[d]));
                        gt_alloc(&dst, dw + roi, dh, cn, vdt[d], gt_pad16(dw + roi, cn, vdt[d]));
                        gt_alloc(&exp, dw, dh, cn, vdt[d], 0);
                        gt_fill_random(&src, seed, 0, 0);
                        GT_OK(gip_image_roi(&src, roi, 0, w, h, &sv));
                        for (int64_t y = 0; y < dh; y++)
                            for (int64_t x = 0; x < dw; x++) {
                                int64_t sx = y, sy = x; /* transpose */
                                if (mode == 0)
                                    sx = y, sy = h - 1 - x;
                                else if (mode == 1)
                                    sx = w - 1 - x, sy = h - 1 - y;
                                else if (mode == 2)
                                    sx = w - 1 - y, sy = x;
                                for (int32_t ch = 0; ch < cn; ch++)
                                    gt_set(&exp, x, y, ch, gt_get(&sv, sx, sy, ch));
                            }
                        char label[96];
                        snprintf(label, sizeof label, "move %d view %lldx%lld %s c%d roi %d", mode,
                                 (long long)w, (long long)h, gip_dtype_name(vdt[d]), (int)cn, roi);
                        move_view v = {mode, roi};
                        if (GT_OK(gt_run_unary(ctx, run_move_view, &src, &dst, &v, 0x5A)) &&
                            GT_OK(gip_image_roi(&dst, roi, 0, dw, dh, &dv))) {
                            gt_compare(&dv, &exp, 0, 0, label);
                            GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                        }
                        gt_free(&src);
                        gt_free(&dst);
                        gt_free(&exp);
                    }
}

static void body(gip_context *ctx)
{
    cases(ctx);
    views(ctx);
    if (gt_case())
        crop(ctx);
    if (gt_case())
        bad_input(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "rotate", body);
}
