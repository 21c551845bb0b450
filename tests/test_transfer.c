/* SPDX-License-Identifier: MIT */
/* The transfer engine: host images given to a CUDA context (gip_op_apply with host views, a
 * pipeline run on host images) give what the same call gives on device images. Every registered
 * operation runs with its example arguments on host images through the engine, with a chunk of
 * 4 KiB (so that images move in many chunks and the row-band operations run in many bands with
 * their halos) and with the default chunk, on pageable, page-locked and padded views, in place
 * where the operation allows it; its result is compared with the device run of the same call
 * (integers identical, within one level for GIP_OP_INEXACT, f32 within 1e-4: an operation may
 * pick another method for a band's size). Then a pipeline, transparent warps (dst's pixels go
 * up), extra inputs, and refusals that leave dst unchanged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"

static gip_args *example_args(const gip_op *op)
{
    gip_args *a = NULL;
    if (!GT_OK(gip_args_create(op, &a)))
        return NULL;
    for (int32_t k = 0; k < op->nparams; k++)
        if (op->params[k].example)
            GT_OK(gip_args_set_text(a, op->params[k].name, op->params[k].example));
    return a;
}

/* Extra inputs as test_registry makes them: src's size, the declared type. */
static int32_t make_inputs(const gip_op *op, const gip_image *src, uint64_t seed, gip_image *in)
{
    for (int32_t k = 0; k < op->ninputs; k++) {
        const gip_input *d = &op->inputs[k];
        gip_dtype dt = src->dtype;
        int32_t ch = src->channels;
        if (!(d->flags & GIP_INPUT_SAME_TYPE)) {
            if (d->dtypes)
                for (dt = GIP_C32; !(d->dtypes & GIP_DTYPE_BIT(dt)); dt = (gip_dtype)(dt - 1))
                    ;
            if (d->channels && !(d->channels & GIP_CHANNELS_BIT(ch)))
                for (ch = 1; !(d->channels & GIP_CHANNELS_BIT(ch)); ch++)
                    ;
        }
        gt_alloc(&in[k], src->width, src->height, ch, dt, 0);
        gt_fill_random(&in[k], seed + (uint64_t)k * 17, 0, dt == GIP_F32 ? 1.0f : 0);
    }
    return op->ninputs;
}

/* A page-locked copy of a host image (pixels and stride). */
static gip_status pinned_copy(gip_context *ctx, const gip_image *from, gip_image *to)
{
    gip_status st = gip_image_alloc(ctx, to, from->width, from->height, from->channels, from->dtype,
                                    GIP_MEM_PINNED, 0);
    if (!st)
        st = gip_copy(ctx, from, to);
    return st;
}

enum { PAGEABLE, PINNED_SRC, PINNED_DST, PINNED_BOTH, NMEM };
static const char *const mem_names[NMEM] = {"pageable", "pinned src", "pinned dst",
                                            "pinned src and dst"};

static double tolerance(const gip_op *op, gip_dtype dt)
{
    return dt == GIP_F32 ? 1e-4 : (op->flags & GIP_OP_INEXACT) ? 1 : 0;
}

/* One operation on one image: the engine's result against the device run's. */
static void one(gip_context *ctx, const gip_op *op, const gip_args *a, int64_t w, int64_t h,
                gip_dtype dt, int32_t ch, int mem, uint64_t seed, const char *chunk)
{
    gip_image src, exp, got, more[8];
    gt_alloc(&src, w, h, ch, dt, seed % 2 ? 5 : 0);
    gt_fill_random(&src, seed, 0, dt == GIP_F32 ? 1.0f : 0);
    gip_shape in = {w, h, ch, dt}, os;
    if (gip_op_output_shape(a, &in, &os) != GIP_OK) { /* frame layouts want other sizes */
        gt_free(&src);
        return;
    }
    char label[192];
    snprintf(label, sizeof label, "%s %s c%d %lldx%lld, %s, chunk %s", op->name, gip_dtype_name(dt),
             (int)ch, (long long)w, (long long)h, mem_names[mem], chunk ? chunk : "default");
    const int32_t nin = make_inputs(op, &src, seed * 31, more);
    const gip_image *use[8];
    for (int32_t k = 0; k < nin; k++)
        use[k] = &more[k];
    gt_alloc(&exp, os.width, os.height, os.channels, os.dtype, 0);
    gt_alloc(&got, os.width, os.height, os.channels, os.dtype, seed % 3 ? 0 : 7);
    gip_status se = gt_run_op(ctx, a, &src, use, nin, &exp, 0xCD); /* device images */
    if (!GT_CHECK(se == GIP_OK, "%s: device run: %s", label, gip_last_error()))
        goto out;
    gt_setenv("GIP_TRANSFER_CHUNK", chunk);
    gip_image psrc = {0}, pdst = {0};
    const gip_image *s = &src;
    gip_image *d = &got;
    gt_poison(&got, 0xCD); /* what the device run's dst held before (transparent warps keep it) */
    if ((mem == PINNED_SRC || mem == PINNED_BOTH) && GT_OK(pinned_copy(ctx, &src, &psrc)))
        s = &psrc;
    if ((mem == PINNED_DST || mem == PINNED_BOTH) && GT_OK(pinned_copy(ctx, &got, &pdst)))
        d = &pdst;
    gip_status sg = gip_op_apply_inputs(ctx, a, s, nin ? use : NULL, nin, d);
    gt_setenv("GIP_TRANSFER_CHUNK", NULL);
    if (GT_CHECK(sg == GIP_OK, "%s: host run: %s", label, gip_last_error())) {
        if (d == &pdst)
            GT_OK(gip_copy(ctx, &pdst, &got));
        gt_compare(&got, &exp, tolerance(op, os.dtype), os.dtype == GIP_F32 ? 1e-4 : 0, label);
        GT_CHECK(gt_padding_intact(&got), "%s: padding written", label);
    }
    gip_image_free(ctx, &psrc);
    gip_image_free(ctx, &pdst);
out:
    gt_free(&src);
    gt_free(&exp);
    gt_free(&got);
    for (int32_t k = 0; k < nin; k++)
        gt_free(&more[k]);
}

/* Every registered operation, on the dtypes and channel counts it declares (one size each),
 * in many small chunks and bands and in the default chunk. */
static void every_operation(gip_context *ctx)
{
    static const gip_dtype dts[] = {GIP_U8, GIP_U16, GIP_F32};
    static const int32_t chs[] = {1, 3, 4};
    uint64_t seed = 7;
    for (int32_t i = 0; i < gip_op_count(); i++) {
        const gip_op *op = gip_op_at(i);
        gip_args *a = example_args(op);
        if (!a)
            continue;
        for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++)
            for (size_t c = 0; c < sizeof chs / sizeof chs[0]; c++, seed++) {
                if (!gip_op_accepts(op, dts[d], chs[c]) || !gt_case())
                    continue;
                /* 302x242: even sizes and heights of 3k+2 fit the frame layouts' rules, odd
                 * enough elsewhere. Memory kinds rotate with the case. */
                one(ctx, op, a, 302, 242, dts[d], chs[c], (int)(seed % NMEM), seed, "4096");
                one(ctx, op, a, 302, 240, dts[d], chs[c], (int)((seed + 1) % NMEM), seed + 1, NULL);
            }
        gip_args_free(a);
    }
}

/* A large image in the default chunk: many chunks, bands that span several of them. */
static void large(gip_context *ctx)
{
    static const char *const names[] = {"gaussian", "invert", "box", "median", "resize"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!gt_case())
            continue;
        const gip_op *op = gip_op_find(names[i]);
        if (!GT_CHECK(op != NULL, "%s is registered", names[i]))
            continue;
        gip_args *a = example_args(op);
        if (!a)
            continue;
        for (int mem = 0; mem < NMEM; mem++)
            one(ctx, op, a, 2999, 2011, GIP_U8, 3, mem, 100 + (uint64_t)i * 7 + (uint64_t)mem,
                NULL);
        gip_args_free(a);
    }
}

/* In place (src and dst the same host pixels) where the operation allows it (GIP_OP_IN_PLACE),
 * refused as on the device where it does not. */
static void in_place(gip_context *ctx)
{
    static const char *const texts[][2] = {
        {"invert", NULL}, {"threshold", "100"}, {"gaussian", "9"}};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        if (!gt_case())
            continue;
        const gip_op *op = gip_op_find(texts[i][0]);
        gip_args *a = NULL;
        if (!GT_CHECK(op != NULL, "%s is registered", texts[i][0]) ||
            !GT_OK(gip_args_create(op, &a)))
            continue;
        if (texts[i][1])
            GT_OK(gip_args_set_text(a,
                                    op->nparams && strcmp(op->params[0].name, "ksize") == 0
                                        ? "ksize"
                                        : op->params[0].name,
                                    texts[i][1]));
        gip_image img, exp;
        gt_alloc(&img, 517, 389, 3, GIP_U8, 0);
        gt_alloc(&exp, 517, 389, 3, GIP_U8, 0);
        gt_fill_random(&img, 31 + i, 0, 0);
        GT_OK(gt_run_op(ctx, a, &img, NULL, 0, &exp, 0));
        gt_setenv("GIP_TRANSFER_CHUNK", "8192");
        char label[64];
        snprintf(label, sizeof label, "%s in place", texts[i][0]);
        if (op->flags & GIP_OP_IN_PLACE) {
            if (GT_OK(gip_op_apply(ctx, a, &img, &img)))
                gt_compare(&img, &exp, 0, 0, label);
        } else {
            GT_STATUS(gip_op_apply(ctx, a, &img, &img), GIP_ERR_ALIASING);
        }
        gt_setenv("GIP_TRANSFER_CHUNK", NULL);
        gt_free(&img);
        gt_free(&exp);
        gip_args_free(a);
    }
}

/* A pipeline on host images: through the engine in bands, equal to the device run. */
static void pipeline(gip_context *ctx)
{
    static const char *const texts[] = {"gaussian 7 | invert | box 5",
                                        "resize 333x211 | gaussian 5", "equalize_hist"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        if (!gt_case())
            continue;
        gip_context_desc d = {.backend = GIP_BACKEND_CUDA, .device = gip_context_device(ctx)};
        gip_pipeline *p = NULL;
        if (!GT_OK(gip_pipeline_create(&d, &p)))
            continue;
        gip_parse_error err;
        if (!GT_OK(gip_pipeline_parse(p, texts[i], &err))) {
            gip_pipeline_free(p);
            continue;
        }
        gip_image src, got, exp, dsrc = {0}, ddst = {0};
        gt_alloc(&src, 1203, 977, 1, GIP_U8, 3);
        gt_fill_random(&src, 5 + i, 0, 0);
        int64_t ow, oh;
        int32_t oc;
        gip_dtype odt;
        GT_OK(gip_pipeline_output_shape(p, 1203, 977, 1, GIP_U8, &ow, &oh, &oc, &odt));
        gt_alloc(&got, ow, oh, oc, odt, 0);
        gt_alloc(&exp, ow, oh, oc, odt, 0);
        gip_context *pc = gip_pipeline_context(p);
        if (GT_OK(gip_image_alloc(pc, &dsrc, 1203, 977, 1, GIP_U8, GIP_MEM_CUDA, 0)) &&
            GT_OK(gip_image_alloc(pc, &ddst, ow, oh, oc, odt, GIP_MEM_CUDA, 0)) &&
            GT_OK(gip_upload(pc, &src, &dsrc)) && GT_OK(gip_pipeline_run(p, &dsrc, &ddst)) &&
            GT_OK(gip_download(pc, &ddst, &exp))) {
            gt_setenv("GIP_TRANSFER_CHUNK", "16384");
            if (GT_OK(gip_pipeline_run(p, &src, &got)))
                gt_compare(&got, &exp, 0, 0, texts[i]);
            gt_setenv("GIP_TRANSFER_CHUNK", NULL);
        }
        gip_image_free(pc, &dsrc);
        gip_image_free(pc, &ddst);
        gt_free(&src);
        gt_free(&got);
        gt_free(&exp);
        gip_pipeline_free(p);
    }
}

/* Refusals come before any transfer and leave dst as it was. */
static void refusals(gip_context *ctx)
{
    gip_args *a = NULL;
    if (!GT_OK(gip_args_create(gip_op_find("gaussian"), &a)))
        return;
    GT_OK(gip_args_set_text(a, "ksize", "5"));
    gip_image src, dst, keep, dev = {0};
    gt_alloc(&src, 64, 48, 3, GIP_U8, 0);
    gt_alloc(&dst, 63, 48, 3, GIP_U8, 0);
    gt_alloc(&keep, 63, 48, 3, GIP_U8, 0);
    gt_fill_random(&src, 1, 0, 0);
    gt_fill_random(&dst, 2, 0, 0);
    GT_OK(gip_copy(ctx, &dst, &keep));
    GT_STATUS(gip_op_apply(ctx, a, &src, &dst), GIP_ERR_SHAPE_MISMATCH);
    gt_compare(&dst, &keep, 0, 0, "dst after a shape refusal");
    if (GT_OK(gip_image_alloc(ctx, &dev, 64, 48, 3, GIP_U8, GIP_MEM_CUDA, 0))) {
        GT_STATUS(gip_op_apply(ctx, a, &src, &dev), GIP_ERR_LOCATION_MISMATCH);
        GT_CHECK(strstr(gip_last_error(), "host") != NULL, "message: %s", gip_last_error());
    }
    gip_image_free(ctx, &dev);
    gip_image view, sub; /* overlapping views of one image (not the same pixels) */
    GT_OK(gip_image_roi(&src, 1, 0, 63, 48, &view));
    GT_OK(gip_image_roi(&src, 0, 0, 63, 48, &sub));
    GT_STATUS(gip_op_apply(ctx, a, &sub, &view), GIP_ERR_ALIASING);
    gt_free(&src);
    gt_free(&dst);
    gt_free(&keep);
    gip_args_free(a);
}

static void body(gip_context *ctx)
{
    if (gip_context_backend(ctx) != GIP_BACKEND_CUDA) {
        /* The engine serves CUDA contexts; on the CPU page-locked memory is refused. */
        gip_image img = {0};
        gip_status st = gip_image_alloc(ctx, &img, 8, 8, 1, GIP_U8, GIP_MEM_PINNED, 0);
        GT_CHECK(st == GIP_ERR_NO_DEVICE || st == GIP_ERR_NOT_BUILT,
                 "pinned memory on a CPU context: %s", gip_status_name(st));
        return;
    }
    every_operation(ctx);
    large(ctx);
    in_place(ctx);
    pipeline(ctx);
    if (gt_case())
        refusals(ctx);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "transfer", body);
}
