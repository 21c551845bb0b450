/* SPDX-License-Identifier: MIT */
/* adaptiveThreshold (gip_adaptive_threshold): each pixel against the mean of its block, the mean
 * made by the box filter or the Gaussian blur as OpenCV makes it, and its registry entry. */
#include <math.h>
#include <string.h>

#include "gip/color.h"
#include "gip/filter.h"
#include "gip/point.h"
#include "ops/op_step.h"
#include "pointwise.h"
#include "registry/registry.h"

gip_status gip_adaptive_threshold(gip_context *ctx, const gip_image *src, gip_image *dst,
                                  double maxval, gip_adaptive_method method, gip_thresh_type type,
                                  int32_t block_size, double c)
{
    static const char op[] = "gip_adaptive_threshold";
    bool on_device = false;
    gip_status st =
        gip__pw_check(ctx, src, dst, op, GIP__DT(GIP_U8), GIP_U8, false, false, &on_device);
    if (st)
        return st;
    if (src->channels != 1)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: src must have one channel, got %d (convert to gray first)", op,
                          (int)src->channels);
    if (block_size < 3 || block_size % 2 == 0)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: block_size must be odd and at least 3, got %d", op, (int)block_size);
    if (method != GIP_ADAPTIVE_MEAN && method != GIP_ADAPTIVE_GAUSSIAN)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: method must be GIP_ADAPTIVE_MEAN (0) or GIP_ADAPTIVE_GAUSSIAN (1), "
                          "got %d",
                          op, (int)method);
    if (type != GIP_THRESH_BINARY && type != GIP_THRESH_BINARY_INV)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: type must be GIP_THRESH_BINARY (0) or GIP_THRESH_BINARY_INV (1), "
                          "got %d",
                          op, (int)type);
    if (!isfinite(maxval) || !isfinite(c))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: maxval and c must be finite", op);
    gip_memory mem = src->memory;
    gip_image mean = {0}, f = {0}, fm = {0};
    if ((st = gip_image_alloc(ctx, &mean, src->width, src->height, 1, GIP_U8, mem, 0)))
        return st;
    const gip_border_spec rep = {GIP_BORDER_REPLICATE, {0, 0, 0, 0}};
    if (method == GIP_ADAPTIVE_MEAN) {
        gip_box_params bp;
        memset(&bp, 0, sizeof bp);
        bp.ksize_w = bp.ksize_h = block_size;
        bp.border = rep;
        st = gip_box_filter(ctx, src, &mean, &bp);
    } else {
        /* OpenCV blurs the f32 copy and rounds the blurred values back to u8. */
        gip_gaussian_params gp;
        memset(&gp, 0, sizeof gp);
        gp.ksize_w = gp.ksize_h = block_size;
        gp.border = rep;
        gp.method = GIP_CONV_DIRECT;
        if (!(st = gip_image_alloc(ctx, &f, src->width, src->height, 1, GIP_F32, mem, 0)) &&
            !(st = gip_image_alloc(ctx, &fm, src->width, src->height, 1, GIP_F32, mem, 0)) &&
            !(st = gip_convert(ctx, src, &f, 1.0, 0.0)) &&
            !(st = gip_gaussian_blur(ctx, &f, &fm, &gp)))
            st = gip_convert(ctx, &fm, &mean, 1.0, 0.0);
    }
    if (!st) {
        gip__pw p;
        memset(&p, 0, sizeof p);
        p.kind = GIP__PW_ARITH;
        p.sub = GIP__OP_ADAPT;
        p.inv = type == GIP_THRESH_BINARY_INV;
        /* OpenCV: delta rounded up for BINARY, down for BINARY_INV, compared as -delta. */
        double d = p.inv ? floor(c) : ceil(c);
        d = d < -1e6 ? -1e6 : d > 1e6 ? 1e6 : d;
        p.v[0] = (float)-d;
        p.w[0] = (float)gip__sat_u8_f32((float)(maxval < -1e9  ? -1e9
                                                : maxval > 1e9 ? 1e9
                                                               : maxval));
        st = gip__pw_run2(ctx, src, &mean, NULL, dst, &p, on_device);
    }
    gip_image_free(ctx, &fm);
    gip_image_free(ctx, &f);
    gip_image_free(ctx, &mean);
    return st;
}

static const gip_choice method_choices[] = {
    {"mean", GIP_ADAPTIVE_MEAN}, {"gaussian", GIP_ADAPTIVE_GAUSSIAN}, {NULL, 0}};
static const gip_choice type_choices[] = {
    {"binary", GIP_THRESH_BINARY}, {"binary_inv", GIP_THRESH_BINARY_INV}, {NULL, 0}};

static const gip_param decl[] = {
    GIP__PARAM_EX("block_size", GIP_PARAM_INT,
                  GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED | GIP_PARAM_ODD, 3, 1023, 0, NULL, NULL,
                  "the side of the block whose mean each pixel is compared with", "11"),
    GIP__PARAM("c", GIP_PARAM_DOUBLE, GIP_PARAM_POSITIONAL, -1e6, 1e6, 0, NULL, "0",
               "subtracted from the mean"),
    GIP__PARAM("method", GIP_PARAM_CHOICE, 0, 0, 0, 0, method_choices, "mean",
               "the block's plain mean, or its Gaussian-weighted mean (cv2.ADAPTIVE_THRESH_*)"),
    GIP__PARAM("type", GIP_PARAM_CHOICE, 0, 0, 0, 0, type_choices, "binary",
               "binary: maxval where src > mean - c; binary_inv: the opposite"),
    GIP__PARAM("maxval", GIP_PARAM_DOUBLE, 0, -1e30, 1e30, 0, NULL, "255",
               "the value written where the rule holds (rounded and saturated)"),
};

typedef struct adaptive_step {
    int32_t block, method, type;
    double c, maxval;
} adaptive_step;

static gip_status build(const gip_args *a, void *out)
{
    adaptive_step *s = out;
    s->block = (int32_t)gip_args_int(a, "block_size");
    s->c = gip_args_double(a, "c");
    s->method = (int32_t)gip_args_int(a, "method");
    s->type = (int32_t)gip_args_int(a, "type");
    s->maxval = gip_args_double(a, "maxval");
    return GIP_OK;
}

static void halo(const void *params, int64_t *hx, int64_t *hy)
{
    *hx = *hy = ((const adaptive_step *)params)->block / 2;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    const adaptive_step *s = p;
    return gip_adaptive_threshold(ctx, src, dst, s->maxval, (gip_adaptive_method)s->method,
                                  (gip_thresh_type)s->type, s->block, s->c);
}

const gip_op gip__op_adaptive_threshold = {
    .name = "adaptive_threshold",
    .family = "point",
    .summary = "Threshold against the local mean of each pixel's block, as cv2.adaptiveThreshold.",
    .doc = "binary: maxval where src - mean > -ceil(c), else 0; binary_inv: maxval where "
           "src - mean <= -floor(c). The mean is the u8 box filter (method mean) or the f32 "
           "Gaussian blur rounded to u8 (method gaussian, sigma from the block size) over "
           "block_size x block_size with replicated borders, as OpenCV. u8 with one channel.",
    .cv_name = "cv2.adaptiveThreshold",
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8),
    .channels = GIP_CHANNELS_BIT(1),
    .params_size = sizeof(adaptive_step),
    .build = build,
    .halo = halo,
    .border = gip__step_border_replicate,
    .run = run,
};
