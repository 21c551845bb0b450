/* SPDX-License-Identifier: MIT */
/* mask (an operation that reads a second image through gip_op_apply_inputs) against
 * cv2.copyTo's rule on every dtype, channel count, awkward size, padded stride and fill value;
 * on CUDA equal to the CPU bit for bit; missing, mismatched and misplaced inputs refused with
 * dst untouched; refused as a pipeline step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"

static const gip_dtype dtypes[] = {GIP_U8, GIP_U16, GIP_S16, GIP_F32};
static const int32_t chans[] = {1, 3, 4};
static const char *const values[] = {"0", "300", "-7.5,2.5,1e9,3"};

static gip_args *mask_args(const char *value)
{
    const gip_op *op = gip_op_find("mask");
    gip_args *a = NULL;
    if (!GT_CHECK(op != NULL, "mask is not registered") || !GT_OK(gip_args_create(op, &a)))
        return NULL;
    if (!GT_OK(gip_args_set_text(a, "value", value))) {
        gip_args_free(a);
        return NULL;
    }
    return a;
}

static gip_status device_copy(gip_context *ctx, const gip_image *host, gip_image *dev)
{
    gip_status st = gip_image_alloc(ctx, dev, host->width, host->height, host->channels,
                                    host->dtype, GIP_MEM_CUDA, 0);
    if (!st && (st = gip_upload(ctx, host, dev)))
        gip_image_free(ctx, dev);
    return st;
}

/* The fill of channel c as cv2 writes a Scalar into dtype dt: rounded half to even, saturated. */
static double fill_of(const char *value, int32_t c, gip_dtype dt)
{
    double v[4];
    int n = 0;
    for (const char *p = value; n < 4 && *p;) {
        char *end;
        v[n++] = strtod(p, &end);
        p = *end == ',' ? end + 1 : end;
    }
    double f = v[n <= 1 ? 0 : c < n ? c : n - 1];
    if (dt == GIP_F32)
        return (float)f;
    double lo = dt == GIP_U8 ? 0 : dt == GIP_U16 ? 0 : -32768;
    double hi = dt == GIP_U8 ? 255 : dt == GIP_U16 ? 65535 : 32767;
    f = nearbyint(f);
    return f < lo ? lo : f > hi ? hi : f;
}

static void cases(gip_context *ctx)
{
    uint64_t seed = 11;
    for (int s = 0; s < gt_nsizes; s++)
        for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
            for (size_t c = 0; c < sizeof chans / sizeof chans[0]; c++)
                for (size_t k = 0; k < sizeof values / sizeof values[0]; k++, seed++) {
                    if (!gt_case())
                        continue;
                    gip_args *a = mask_args(values[k]);
                    if (!a)
                        return;
                    const gt_size sz = gt_sizes[s];
                    gip_image src, mask, dst, exp;
                    gt_alloc(&src, sz.w, sz.h, chans[c], dtypes[d], seed % 3 ? 0 : 7);
                    gt_alloc(&mask, sz.w, sz.h, 1, GIP_U8, seed % 2 ? 3 : 0);
                    gt_alloc(&dst, sz.w, sz.h, chans[c], dtypes[d], seed % 2 ? 0 : 5);
                    gt_alloc(&exp, sz.w, sz.h, chans[c], dtypes[d], 0);
                    gt_fill_random(&src, seed, 0, 0);
                    gt_fill_random(&mask, seed * 7 + 1, 0, 0);
                    /* About a third of the mask zero, the rest any non-zero value. */
                    for (int64_t y = 0; y < sz.h; y++)
                        for (int64_t x = 0; x < sz.w; x++)
                            if ((int)gt_get(&mask, x, y, 0) % 3 == 0)
                                gt_set(&mask, x, y, 0, 0);
                    for (int64_t y = 0; y < sz.h; y++)
                        for (int64_t x = 0; x < sz.w; x++)
                            for (int32_t ch = 0; ch < chans[c]; ch++)
                                gt_set(&exp, x, y, ch,
                                       gt_get(&mask, x, y, 0) != 0
                                           ? gt_get(&src, x, y, ch)
                                           : fill_of(values[k], ch, dtypes[d]));
                    char label[96];
                    snprintf(label, sizeof label, "mask value=%s %lldx%lld %s c%d", values[k],
                             (long long)sz.w, (long long)sz.h, gip_dtype_name(dtypes[d]),
                             (int)chans[c]);
                    const gip_image *in = &mask;
                    if (GT_OK(gt_run_op(ctx, a, &src, &in, 1, &dst, 0x5A))) {
                        gt_compare(&dst, &exp, 0, 0, label);
                        GT_CHECK(gt_padding_intact(&dst), "%s: padding written", label);
                    }
                    gt_free(&src);
                    gt_free(&mask);
                    gt_free(&dst);
                    gt_free(&exp);
                    gip_args_free(a);
                }
}

static void bad_input(gip_context *ctx)
{
    gip_args *a = mask_args("0");
    if (!a)
        return;
    gip_image src, dst, mask, small, three;
    gt_alloc(&src, 9, 5, 3, GIP_U8, 0);
    gt_alloc(&dst, 9, 5, 3, GIP_U8, 0);
    gt_alloc(&mask, 9, 5, 1, GIP_U8, 0);
    gt_alloc(&small, 8, 5, 1, GIP_U8, 0);
    gt_alloc(&three, 9, 5, 3, GIP_U8, 0);
    gt_fill_random(&src, 1, 0, 0);
    gt_fill_random(&mask, 2, 0, 0);
    gt_poison(&dst, 0x77);
    const gip_image *none = NULL, *m = &mask, *sm = &small, *th = &three;
    /* Without the required mask: through gip_op_apply, and as an explicit NULL. */
    GT_STATUS(gip_op_apply(ctx, a, &src, &dst), GIP_ERR_INVALID_ARGUMENT);
    GT_CHECK(strstr(gip_last_error(), "mask") != NULL, "message: %s", gip_last_error());
    GT_STATUS(gip_op_apply_inputs(ctx, a, &src, &none, 1, &dst), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_op_apply_inputs(ctx, a, &src, NULL, 1, &dst), GIP_ERR_INVALID_ARGUMENT);
    const gip_image *two[2] = {&mask, &mask};
    GT_STATUS(gip_op_apply_inputs(ctx, a, &src, two, 2, &dst), GIP_ERR_INVALID_ARGUMENT);
    GT_STATUS(gip_op_apply_inputs(ctx, a, &src, &sm, 1, &dst), GIP_ERR_SHAPE_MISMATCH);
    GT_STATUS(gip_op_apply_inputs(ctx, a, &src, &th, 1, &dst), GIP_ERR_UNSUPPORTED);
    GT_CHECK(strstr(gip_last_error(), "mask") != NULL, "message: %s", gip_last_error());
    GT_STATUS(gip_op_apply_inputs(ctx, a, &src, &m, 1, &mask), GIP_ERR_SHAPE_MISMATCH);
    gip_image alias = src;
    alias.data = (uint8_t *)src.data + 1; /* overlaps src without being it */
    GT_STATUS(gip_op_apply_inputs(ctx, a, &src, &m, 1, &alias), GIP_ERR_ALIASING);
    if (gip_context_backend(ctx) == GIP_BACKEND_CUDA) {
        /* Host mask with a device src: a location mismatch, nothing queued. */
        gip_image ds, dd;
        if (GT_OK(device_copy(ctx, &src, &ds))) {
            if (GT_OK(device_copy(ctx, &dst, &dd))) {
                GT_STATUS(gip_op_apply_inputs(ctx, a, &ds, &m, 1, &dd), GIP_ERR_LOCATION_MISMATCH);
                gip_image_free(ctx, &dd);
            }
            gip_image_free(ctx, &ds);
        }
    }
    for (int64_t i = 0; i < 9 * 5 * 3; i++)
        GT_CHECK(((uint8_t *)dst.data)[i] == 0x77, "dst written by a refusal at %lld",
                 (long long)i);
    /* In place (dst is src) is allowed. */
    if (GT_OK(gip_op_apply_inputs(ctx, a, &src, &m, 1, &src)))
        GT_CHECK(gip_context_sync(ctx) == GIP_OK, "sync");
    /* A pipeline cannot give the mask: the step is refused with a message naming it. */
    gip_context_desc d = {.backend = GIP_BACKEND_CPU};
    gip_pipeline *p = NULL;
    if (GT_OK(gip_pipeline_create(&d, &p))) {
        GT_STATUS(gip_pipeline_parse(p, "invert | mask", NULL), GIP_ERR_INVALID_ARGUMENT);
        GT_CHECK(strstr(gip_last_error(), "mask") != NULL, "message: %s", gip_last_error());
        gip_pipeline_free(p);
    }
    const gip_op *op = gip_op_find("mask");
    int32_t idx = -1;
    GT_CHECK(op && gip_op_input(op, "mask", &idx) == &op->inputs[0] && idx == 0,
             "gip_op_input(mask)");
    GT_CHECK(op && gip_op_input(op, "nope", NULL) == NULL, "gip_op_input(nope)");
    gt_free(&src);
    gt_free(&dst);
    gt_free(&mask);
    gt_free(&small);
    gt_free(&three);
    gip_args_free(a);
}

static void body(gip_context *ctx)
{
    cases(ctx);
    if (gt_case())
        bad_input(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "mask", body);
}
