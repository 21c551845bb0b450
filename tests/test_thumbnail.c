/* SPDX-License-Identifier: MIT */
/* The thumbnail step: the size that fits the box with the aspect ratio kept (each side rounded,
 * at least 1), shrink_only, and the pixels equal to gip_resize to that size on every dtype and
 * channel count; on CUDA equal to the CPU; bad arguments refused. */
#include <string.h>

#include "gip/geometry.h"
#include "testing.h"

static gip_args *thumb_args(const char *size, const char *interp, int shrink_only)
{
    const gip_op *op = gip_op_find("thumbnail");
    gip_args *a = NULL;
    if (!GT_CHECK(op != NULL, "thumbnail is not registered") || !GT_OK(gip_args_create(op, &a)))
        return NULL;
    GT_OK(gip_args_set_text(a, "size", size));
    if (interp)
        GT_OK(gip_args_set_text(a, "interpolation", interp));
    GT_OK(gip_args_set_int(a, "shrink_only", shrink_only));
    return a;
}

static void reduced_loads(void);

static gip_status run_step(gip_context *ctx, const gip_image *src, gip_image *dst, const void *a)
{
    return gip_op_apply(ctx, a, src, dst);
}

static void body(gip_context *ctx)
{
    static const struct {
        int64_t w, h;
        const char *box;
        int shrink_only;
        int64_t ow, oh;
    } fits[] = {{451, 300, "100", 0, 100, 67},   {300, 451, "100", 0, 67, 100},
                {451, 300, "200x50", 0, 75, 50}, {1, 500, "10", 0, 1, 10},
                {500, 1, "10", 0, 10, 1},        {40, 30, "1000", 0, 1000, 750},
                {40, 30, "1000", 1, 40, 30},     {1, 1, "7x3", 0, 3, 3}};
    static const gip_dtype dtypes[] = {GIP_U8, GIP_U16, GIP_F32};
    uint64_t seed = 3;
    for (size_t i = 0; i < sizeof fits / sizeof fits[0]; i++)
        for (size_t d = 0; d < 3; d++)
            for (int32_t c = 1; c <= 4; c += c == 1 ? 2 : 1, seed++) {
                if (!gt_case())
                    continue;
                gip_args *a = thumb_args(fits[i].box, i % 2 ? "linear" : NULL, fits[i].shrink_only);
                if (!a)
                    return;
                gip_shape in = {fits[i].w, fits[i].h, c, dtypes[d]}, out;
                if (GT_OK(gip_op_output_shape(a, &in, &out)))
                    GT_CHECK(out.width == fits[i].ow && out.height == fits[i].oh,
                             "thumbnail %s of %lldx%lld: %lldx%lld, expected %lldx%lld",
                             fits[i].box, (long long)fits[i].w, (long long)fits[i].h,
                             (long long)out.width, (long long)out.height, (long long)fits[i].ow,
                             (long long)fits[i].oh);
                gip_image src, dst, exp;
                gt_alloc(&src, fits[i].w, fits[i].h, c, dtypes[d], seed % 2 ? 5 : 0);
                gt_alloc(&dst, fits[i].ow, fits[i].oh, c, dtypes[d], 0);
                gt_alloc(&exp, fits[i].ow, fits[i].oh, c, dtypes[d], 0);
                gt_fill_random(&src, seed, 0, 0);
                gip_context_desc cd = {.backend = GIP_BACKEND_CPU};
                gip_context *cpu = NULL;
                gip_resize_params rp = {i % 2 ? GIP_INTER_LINEAR : GIP_INTER_AREA, 0, 0, 0};
                if (GT_OK(gip_context_create(&cd, &cpu)) &&
                    GT_OK(gt_run_unary(ctx, run_step, &src, &dst, a, 0x5A)) &&
                    GT_OK(gip_resize(cpu, &src, &exp, &rp)))
                    gt_compare(&dst, &exp, 0, 0, "thumbnail vs gip_resize");
                gip_context_destroy(cpu);
                gt_free(&src);
                gt_free(&dst);
                gt_free(&exp);
                gip_args_free(a);
            }
    if (gt_case() && gip_context_backend(ctx) == GIP_BACKEND_CPU)
        reduced_loads();
    const gip_op *op = gip_op_find("thumbnail");
    gip_args *a = NULL;
    if (gt_case() && op && GT_OK(gip_args_create(op, &a))) {
        GT_STATUS(gip_args_set_text(a, "size", "0"), GIP_ERR_INVALID_ARGUMENT);
        gip_shape in = {10, 10, 1, GIP_U8}, out;
        GT_STATUS(gip_op_output_shape(a, &in, &out), GIP_ERR_INVALID_ARGUMENT); /* required */
        GT_OK(gip_args_set_text(a, "size", "5"));
        GT_OK(gip_args_set_text(a, "interpolation", "area"));
        GT_OK(gip_args_set_text(a, "antialias", "1"));
        GT_STATUS(gip_op_output_shape(a, &in, &out), GIP_ERR_INVALID_ARGUMENT);
        gip_args_free(a);
    }
}

/* gip_load_params.reduce (cv2's IMREAD_REDUCED_*): JPEG at ceil(w / n) x ceil(h / n) by
 * libjpeg's scaling, PNG resized to (w / n) x (h / n); other values refused. */
static void reduced_loads(void)
{
    gip_image img;
    gt_alloc(&img, 61, 37, 3, GIP_U8, 0);
    gt_fill_random(&img, 7, 0, 0);
    static const gip_format fmts[] = {GIP_FORMAT_JPEG, GIP_FORMAT_PNG};
    for (int f = 0; f < 2; f++) {
        gip_save_params sp = {0};
        sp.format = fmts[f];
        void *buf = NULL;
        size_t n = 0;
        if (!GT_OK(gip_image_encode(&img, &sp, &buf, &n)))
            continue;
        for (int32_t r = 1; r <= 8; r *= 2) {
            gip_load_params lp = {0};
            lp.mode = GIP_LOAD_COLOR;
            lp.reduce = r;
            gip_image out;
            if (GT_OK(gip_image_decode(buf, n, &lp, &out))) {
                const int64_t w = f == 0 ? (61 + r - 1) / r : 61 / r;
                const int64_t h = f == 0 ? (37 + r - 1) / r : 37 / r;
                GT_CHECK(out.width == w && out.height == h,
                         "%s reduce %d: %lldx%lld, expected %lldx%lld", f == 0 ? "jpeg" : "png",
                         (int)r, (long long)out.width, (long long)out.height, (long long)w,
                         (long long)h);
                gip_image_free(NULL, &out);
            }
        }
        gip_load_params lp = {0};
        lp.reduce = 3;
        gip_image out;
        GT_STATUS(gip_image_decode(buf, n, &lp, &out), GIP_ERR_INVALID_ARGUMENT);
        gip_free(buf);
    }
    gt_free(&img);
}

int main(int argc, char **argv)
{
    return gt_main(argc, argv, "thumbnail", body);
}
