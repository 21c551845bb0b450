/* SPDX-License-Identifier: MIT */
/* Tests of gip_mix_channels and the registry's mix_channels: channels of several sources into
 * channels of several destinations by (source, destination) pairs, zeros for -1, the channels no
 * pair names untouched, against an index reference written here; every dtype, the awkward sizes,
 * padded strides; CUDA equal to the CPU bit for bit; bad input refused with nothing written. */
#include <stdio.h>
#include <string.h>

#include "testing.h"

static const gip_dtype dtypes[4] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};

/* The pairs: two sources (4 and 3 channels: 0..6), two destinations (3 and 1: 0..3); a zero
 * fill, a repeated destination (the later pair wins), destination channel 3 from source 6. */
static const int32_t from_to[] = {0, 2, 5, 0, -1, 1, 6, 3, 2, 0};
#define NPAIRS 5

/* Expected destinations: their old pixels, then the pairs in order. */
static void expect(const gip_image *srcs, gip_image *exps)
{
    for (int k = 0; k < NPAIRS; k++) {
        int32_t s = from_to[2 * k], d = from_to[2 * k + 1];
        const gip_image *si = s < 4 ? &srcs[0] : &srcs[1];
        int32_t sc = s < 4 ? s : s - 4;
        gip_image *di = d < 3 ? &exps[0] : &exps[1];
        int32_t dc = d < 3 ? d : d - 3;
        for (int64_t y = 0; y < si->height; y++)
            for (int64_t x = 0; x < si->width; x++)
                gt_set(di, x, y, dc, s < 0 ? 0 : gt_get(si, x, y, sc));
    }
}

/* Runs gip_mix_channels on ctx; on a CUDA context the images go up and the results come down. */
static gip_status run(gip_context *ctx, const gip_image *srcs, gip_image *dsts)
{
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA)
        return gip_mix_channels(ctx, srcs, 2, dsts, 2, from_to, NPAIRS);
    gip_image ds[2] = {{0}}, dd[2] = {{0}};
    gip_status st = GIP_OK;
    for (int i = 0; i < 2 && !st; i++) {
        if ((st = gip_image_alloc(ctx, &ds[i], srcs[i].width, srcs[i].height, srcs[i].channels,
                                  srcs[i].dtype, GIP_MEM_CUDA, 0)) ||
            (st = gip_image_alloc(ctx, &dd[i], dsts[i].width, dsts[i].height, dsts[i].channels,
                                  dsts[i].dtype, GIP_MEM_CUDA, 0)) ||
            (st = gip_upload(ctx, &srcs[i], &ds[i])) || (st = gip_upload(ctx, &dsts[i], &dd[i])))
            break;
    }
    if (!st)
        st = gip_mix_channels(ctx, ds, 2, dd, 2, from_to, NPAIRS);
    for (int i = 0; i < 2 && !st; i++)
        st = gip_download(ctx, &dd[i], &dsts[i]);
    if (!st)
        st = gip_context_sync(ctx);
    for (int i = 0; i < 2; i++) {
        gip_image_free(ctx, &ds[i]);
        gip_image_free(ctx, &dd[i]);
    }
    return st;
}

static void pairs(gip_context *ctx)
{
    for (int si = 0; si < gt_nsizes; si++)
        for (int t = 0; t < 4; t++) {
            if (!gt_case())
                continue;
            const gt_size sz = gt_sizes[si];
            gip_image srcs[2], dsts[2], exps[2];
            gt_alloc(&srcs[0], sz.w, sz.h, 4, dtypes[t], 3);
            gt_alloc(&srcs[1], sz.w, sz.h, 3, dtypes[t], 0);
            gt_alloc(&dsts[0], sz.w, sz.h, 3, dtypes[t], 5);
            gt_alloc(&dsts[1], sz.w, sz.h, 1, dtypes[t], 2);
            gt_fill_random(&srcs[0], 11 + (uint64_t)si, -100, 100);
            gt_fill_random(&srcs[1], 31 + (uint64_t)si, -100, 100);
            for (int i = 0; i < 2; i++) {
                gt_fill_random(&dsts[i], 51 + (uint64_t)(si * 2 + i), -100, 100);
                gt_alloc(&exps[i], sz.w, sz.h, dsts[i].channels, dtypes[t], 0);
                for (int64_t y = 0; y < sz.h; y++)
                    for (int64_t x = 0; x < sz.w; x++)
                        for (int c = 0; c < dsts[i].channels; c++)
                            gt_set(&exps[i], x, y, c, gt_get(&dsts[i], x, y, c));
            }
            expect(srcs, exps);
            char label[96];
            snprintf(label, sizeof label, "mix_channels %s %lldx%lld", gip_dtype_name(dtypes[t]),
                     (long long)sz.w, (long long)sz.h);
            if (GT_OK(run(ctx, srcs, dsts)))
                for (int i = 0; i < 2; i++) {
                    gt_compare(&dsts[i], &exps[i], 0, 0, label);
                    GT_CHECK(gt_padding_intact(&dsts[i]), "%s: padding written", label);
                }
            for (int i = 0; i < 2; i++) {
                gt_free(&srcs[i]);
                gt_free(&dsts[i]);
                gt_free(&exps[i]);
            }
        }
}

/* The registry's step: a new image, channels no pair names are zeros. */
static void step(gip_context *ctx)
{
    const gip_op *op = gip_op_find("mix_channels");
    GT_CHECK(op != NULL, "mix_channels is not registered");
    if (!op)
        return;
    gip_args *a = NULL;
    if (!GT_OK(gip_args_create(op, &a)))
        return;
    GT_OK(gip_args_set_text(a, "from_to", "2,0,0,2,1,3"));
    gip_image src, dst, exp;
    gt_alloc(&src, 13, 42, 3, GIP_U8, 4);
    gt_alloc(&dst, 13, 42, 4, GIP_U8, 1);
    gt_alloc(&exp, 13, 42, 4, GIP_U8, 0);
    gt_fill_random(&src, 5, 0, 0);
    for (int64_t y = 0; y < 42; y++)
        for (int64_t x = 0; x < 13; x++) {
            gt_set(&exp, x, y, 0, gt_get(&src, x, y, 2));
            gt_set(&exp, x, y, 1, 0);
            gt_set(&exp, x, y, 2, gt_get(&src, x, y, 0));
            gt_set(&exp, x, y, 3, gt_get(&src, x, y, 1));
        }
    if (GT_OK(gt_run_op(ctx, a, &src, NULL, 0, &dst, 0x3C)))
        gt_compare(&dst, &exp, 0, 0, "mix_channels step");
    gip_shape in = {13, 42, 1, GIP_U8}, out;
    GT_STATUS(gip_op_output_shape(a, &in, &out), GIP_ERR_INVALID_ARGUMENT); /* channel 2 of 1 */
    GT_STATUS(gip_args_set_text(a, "from_to", "0,1,2"), GIP_OK);
    gip_shape three = {13, 42, 3, GIP_U8};
    GT_STATUS(gip_op_output_shape(a, &three, &out), GIP_ERR_INVALID_ARGUMENT); /* odd count */
    GT_STATUS(gip_args_set_text(a, "from_to", "0,1"), GIP_OK);
    GT_STATUS(gip_op_output_shape(a, &three, &out), GIP_ERR_INVALID_ARGUMENT);   /* 2 channels */
    GT_STATUS(gip_args_set_text(a, "from_to", "0,4"), GIP_ERR_INVALID_ARGUMENT); /* range */
    gip_args_free(a);
    gt_free(&src);
    gt_free(&dst);
    gt_free(&exp);
}

static void bad_inputs(gip_context *ctx)
{
    gip_image s[2], d[2], f32, small;
    gt_alloc(&s[0], 20, 10, 3, GIP_U8, 0);
    gt_alloc(&s[1], 20, 10, 1, GIP_U8, 0);
    gt_alloc(&d[0], 20, 10, 3, GIP_U8, 0);
    gt_alloc(&d[1], 20, 10, 4, GIP_U8, 0);
    gt_alloc(&f32, 20, 10, 3, GIP_F32, 0);
    gt_alloc(&small, 19, 10, 3, GIP_U8, 0);
    for (int i = 0; i < 2; i++)
        gt_poison(&d[i], 0x5A);
    const int32_t ok[4] = {0, 0, 3, 6};
    const int32_t far_src[2] = {4, 0}, far_dst[2] = {0, 7}, low[2] = {-2, 0};
    GT_STATUS(gip_mix_channels(ctx, NULL, 2, d, 2, ok, 2), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_mix_channels(ctx, s, 2, NULL, 2, ok, 2), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_mix_channels(ctx, s, 2, d, 2, NULL, 2), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_mix_channels(ctx, s, 0, d, 2, ok, 2), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_mix_channels(ctx, s, 2, d, 2, ok, 0), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_mix_channels(ctx, s, 2, d, 2, far_src, 1), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_mix_channels(ctx, s, 2, d, 2, far_dst, 1), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_mix_channels(ctx, s, 2, d, 2, low, 1), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_mix_channels(ctx, &f32, 1, d, 2, ok, 1), GIP_ERR_UNSUPPORTED);
    GT_STATUS(gip_mix_channels(ctx, &small, 1, d, 2, ok, 1), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_mix_channels(ctx, s, 2, s, 1, ok, 1), GIP_ERR_ALIASING);
    GT_OK(gip_mix_channels(ctx, s, 2, d, 2, ok, 2));
    /* a valid pair before an invalid one: nothing is written */
    gip_image dn[2];
    gt_alloc(&dn[0], 20, 10, 3, GIP_U8, 0);
    gt_alloc(&dn[1], 20, 10, 4, GIP_U8, 0);
    gt_poison(&dn[0], 0x5A);
    gt_poison(&dn[1], 0x5A);
    const int32_t mixed[4] = {0, 0, 9, 1};
    GT_STATUS(gip_mix_channels(ctx, s, 2, dn, 2, mixed, 2), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_mix_channels(NULL, s, 2, dn, 2, ok, 2), GIP_ERR_INVALID_ARGUMENT);
    bool untouched = true;
    for (int i = 0; i < 2; i++)
        for (int64_t y = 0; y < 10; y++)
            for (int64_t b = 0; b < 20 * dn[i].channels; b++)
                untouched &= ((uint8_t *)dn[i].data)[y * dn[i].stride + b] == 0x5A;
    GT_CHECK(untouched, "mix_channels: a refused call wrote into dst");
    for (int i = 0; i < 2; i++) {
        gt_free(&s[i]);
        gt_free(&d[i]);
        gt_free(&dn[i]);
    }
    gt_free(&f32);
    gt_free(&small);
}

static void body(gip_context *ctx)
{
    pairs(ctx);
    step(ctx);
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA)
        bad_inputs(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "mix_channels", body);
}
