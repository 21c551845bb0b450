/* SPDX-License-Identifier: MIT */
/* Tests of gip_invert: every dtype and channel count on awkward sizes and padded strides (on the
 * CPU with AVX2 and with the plain loops), in place, the f32 max parameter, images large enough
 * for the CPU's streaming stores, and a bad-input table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"

static gip_status run_inv(gip_context *ctx, const gip_image *s, gip_image *d, const void *p)
{
    return gip_invert(ctx, s, d, p);
}

static void expected(const gip_image *src, gip_image *exp, double max)
{
    for (int64_t y = 0; y < src->height; y++)
        for (int64_t x = 0; x < src->width; x++)
            for (int32_t c = 0; c < src->channels; c++) {
                double m = src->dtype == GIP_U8 ? 255 : src->dtype == GIP_U16 ? 65535 : max;
                double v = m - gt_get(src, x, y, c);
                gt_set(exp, x, y, c, src->dtype == GIP_F32 ? (double)(float)v : v);
            }
}

static void sweep(gip_context *ctx)
{
    static const gip_dtype dts[] = {GIP_U8, GIP_U16, GIP_F32};
    static const int32_t chans[] = {1, 3, 4};
    uint64_t seed = 1;
    for (int s = 0; s < gt_nsizes; s++)
        for (int d = 0; d < 3; d++)
            for (int c = 0; c < 3; c++)
                for (int pad = 0; pad < 3; pad++) {
                    gt_size sz = gt_sizes[s];
                    gip_image src, dst, exp;
                    /* pads: tight, odd (unaligned rows), and a multiple of 16 plus 4 */
                    int64_t sp = pad == 0 ? 0 : pad == 1 ? 4 * 3 : 20;
                    int64_t dp = pad == 0 ? 0 : pad == 1 ? 4 * 5 : 4;
                    gt_alloc(&src, sz.w, sz.h, chans[c], dts[d], sp);
                    gt_alloc(&dst, sz.w, sz.h, chans[c], dts[d], dp);
                    gt_alloc(&exp, sz.w, sz.h, chans[c], dts[d], 0);
                    gt_fill_random(&src, seed++, -2.0f, 3.0f);
                    gip_invert_params p = {.max = pad == 2 ? 2.5f : 0.0f};
                    char label[128];
                    snprintf(label, sizeof label, "invert %lldx%lld %s c%d pad %d", (long long)sz.w,
                             (long long)sz.h, gip_dtype_name(dts[d]), chans[c], pad);
                    if (GT_OK(gt_run_unary(ctx, run_inv, &src, &dst, pad == 1 ? NULL : &p, 0x3C))) {
                        expected(&src, &exp, p.max == 0 ? 1.0 : p.max);
                        gt_compare(&dst, &exp, 0, 0, label);
                        GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                    }
                    gt_free(&src);
                    gt_free(&dst);
                    gt_free(&exp);
                }
}

/* In place, on whatever memory the context uses; odd offsets make the 16-byte vectors start
 * mid-row on CUDA. */
static void in_place(gip_context *ctx)
{
    static const gip_dtype dts[] = {GIP_U8, GIP_U16, GIP_F32};
    for (int d = 0; d < 3; d++) {
        gip_image img, exp, dev = {0};
        gt_alloc(&img, 333, 21, 3, dts[d], 0);
        gt_alloc(&exp, 333, 21, 3, dts[d], 0);
        gt_fill_random(&img, 40 + d, 0, 1);
        expected(&img, &exp, 1.0);
        bool cuda = gip_context_backend(ctx) == GIP_BACKEND_CUDA;
        if (cuda) {
            if (!GT_OK(gip_image_alloc(ctx, &dev, 333, 21, 3, dts[d], GIP_MEM_CUDA, 0)) ||
                !GT_OK(gip_upload(ctx, &img, &dev)))
                goto out;
            GT_OK(gip_invert(ctx, &dev, &dev, NULL));
            GT_OK(gip_download(ctx, &dev, &img));
        } else {
            GT_OK(gip_invert(ctx, &img, &img, NULL));
        }
        gt_compare(&img, &exp, 0, 0, "invert in place");
        if (cuda && dts[d] == GIP_U8) {
            /* A view starting at byte 3 of each row: source and destination co-aligned. */
            gip_image v = dev;
            v.data = (char *)dev.data + 3;
            v.width = 300;
            gip_image hv, he;
            gt_alloc(&hv, 300, 21, 3, GIP_U8, 0);
            gt_alloc(&he, 300, 21, 3, GIP_U8, 0);
            gip_image hsrc = img;
            hsrc.data = (char *)img.data + 3;
            hsrc.width = 300;
            GT_OK(gip_upload(ctx, &img, &dev));
            GT_OK(gip_invert(ctx, &v, &v, NULL));
            GT_OK(gip_download(ctx, &v, &hv));
            for (int64_t y = 0; y < 21; y++)
                for (int64_t i = 0; i < 900; i++)
                    ((uint8_t *)he.data)[y * he.stride + i] =
                        (uint8_t)(255 - ((uint8_t *)hsrc.data)[y * hsrc.stride + i]);
            gt_compare(&hv, &he, 0, 0, "invert in place, unaligned view");
            gt_free(&hv);
            gt_free(&he);
        }
    out:
        if (cuda)
            gip_image_free(ctx, &dev);
        gt_free(&img);
        gt_free(&exp);
    }
}

/* Destinations of GIP__STREAM_BYTES (16 MiB) or more take the CPU's streaming stores; rows
 * 20 bytes longer than the pixels start at every alignment, so the unaligned heads are run too.
 * Both CPU paths: AVX2 (where the CPU has it) and GIP_NOSIMD=1's plain loops. The CUDA kernel
 * has no such path; the sweep covers it. */
static void large(gip_context *ctx)
{
    if (gip_context_backend(ctx) != GIP_BACKEND_CPU) {
        printf("invert: large images run on the CPU backend only (its streaming stores)\n");
        return;
    }
    static const struct {
        int64_t w, h;
        int32_t c;
        gip_dtype dt;
    } cases[] = {{2400, 2400, 3, GIP_U8}, {2050, 4200, 1, GIP_U16}, {2100, 2100, 1, GIP_F32}};
    for (int k = 0; k < 3; k++) {
        gip_image src, dst, exp;
        gt_alloc(&src, cases[k].w, cases[k].h, cases[k].c, cases[k].dt, 0);
        gt_alloc(&dst, cases[k].w, cases[k].h, cases[k].c, cases[k].dt, 20);
        gt_alloc(&exp, cases[k].w, cases[k].h, cases[k].c, cases[k].dt, 0);
        gt_fill_random(&src, 70 + k, -2.0f, 3.0f);
        expected(&src, &exp, 1.0);
        for (int plain = 0; plain < 2; plain++) {
            char label[96];
            snprintf(label, sizeof label, "invert large %s%s", gip_dtype_name(cases[k].dt),
                     plain ? " (GIP_NOSIMD=1)" : "");
            if (plain)
                gt_setenv("GIP_NOSIMD", "1");
            gt_poison(&dst, 0x5A);
            if (GT_OK(gip_invert(ctx, &src, &dst, NULL))) {
                gt_compare(&dst, &exp, 0, 0, label);
                GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
            }
            if (plain)
                gt_setenv("GIP_NOSIMD", NULL);
        }
        /* In place: no streaming, the same results. */
        if (GT_OK(gip_invert(ctx, &src, &src, NULL)))
            gt_compare(&src, &exp, 0, 0, "invert large in place");
        gt_free(&src);
        gt_free(&dst);
        gt_free(&exp);
    }
}

static void bad_inputs(gip_context *ctx)
{
    gip_image src, dst, d16, small, s16;
    gt_alloc(&src, 20, 10, 3, GIP_U8, 0);
    gt_alloc(&dst, 20, 10, 3, GIP_U8, 0);
    gt_alloc(&d16, 20, 10, 3, GIP_U16, 0);
    gt_alloc(&small, 20, 9, 3, GIP_U8, 0);
    gt_alloc(&s16, 20, 10, 3, GIP_S16, 0);
    gt_poison(&dst, 0x5A);
    gip_invert_params bad = {.max = NAN};
    GT_STATUS(gip_invert(NULL, &src, &dst, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_invert(ctx, NULL, &dst, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_invert(ctx, &src, NULL, NULL), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_invert(ctx, &src, &dst, &bad), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_invert(ctx, &src, &d16, NULL), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_invert(ctx, &src, &small, NULL), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_invert(ctx, &s16, &s16, NULL), GIP_ERR_UNSUPPORTED);
    gip_image c2 = src; /* 2 channels: not a valid gip view */
    c2.channels = 2;
    c2.width = 30;
    gip_image c2d = dst;
    c2d.channels = 2;
    c2d.width = 30;
    GT_STATUS(gip_invert(ctx, &c2, &c2d, NULL), GIP_ERR_INVALID_ARGUMENT);
    gip_image neg = src;
    neg.width = -1;
    GT_STATUS(gip_invert(ctx, &neg, &dst, NULL), GIP_ERR_INVALID_ARGUMENT);
    gip_image shifted = src;
    shifted.data = (char *)src.data + 3;
    shifted.height = 9;
    gip_image s9 = src;
    s9.height = 9;
    GT_STATUS(gip_invert(ctx, &s9, &shifted, NULL), GIP_ERR_ALIASING);
    gip_image dev = dst;
    dev.memory = GIP_MEM_CUDA;
    GT_STATUS(gip_invert(ctx, &src, &dev, NULL), gip_context_backend(ctx) == GIP_BACKEND_CUDA
                                                     ? GIP_ERR_LOCATION_MISMATCH
                                                     : GIP_ERR_NO_DEVICE);
    bool untouched = true;
    for (int64_t i = 0; i < 20 * 10 * 3; i++)
        untouched &= ((uint8_t *)dst.data)[i] == 0x5A;
    GT_CHECK(untouched, "invert: a refused call wrote into dst");
    gt_free(&src);
    gt_free(&dst);
    gt_free(&d16);
    gt_free(&small);
    gt_free(&s16);
}

static void body(gip_context *ctx)
{
    sweep(ctx);
    if (gip_context_backend(ctx) == GIP_BACKEND_CPU) {
        printf("invert: the sweep again with GIP_NOSIMD=1 (the plain loops)\n");
        gt_setenv("GIP_NOSIMD", "1");
        sweep(ctx);
        gt_setenv("GIP_NOSIMD", NULL);
    }
    in_place(ctx);
    large(ctx);
    bad_inputs(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "invert", body);
}
