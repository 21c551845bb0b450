/* SPDX-License-Identifier: MIT */
/* thumbnail: the image scaled to fit a box, keeping its aspect ratio (as vipsthumbnail does), by
 * resize's arithmetic; a step, so `gip run 'thumbnail 256' -i DIR -o DIR` makes a folder's
 * thumbnails with the batch engine. The registry's description. */
#include <math.h>

#include "ops/geometry/resize.h"
#include "registry/registry.h"

static const gip_choice interps[] = {{"nearest", GIP_INTER_NEAREST},   {"linear", GIP_INTER_LINEAR},
                                     {"cubic", GIP_INTER_CUBIC},       {"area", GIP_INTER_AREA},
                                     {"lanczos4", GIP_INTER_LANCZOS4}, {NULL, 0}};

static const gip_param decl[] = {
    GIP__PARAM_EX("size", GIP_PARAM_SIZE, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, 1, 2147483647,
                  0, NULL, NULL,
                  "the box WxH (or N for NxN) the image is scaled to fit, its aspect ratio kept",
                  "9x7"),
    GIP__PARAM("interpolation", GIP_PARAM_CHOICE, 0, 0, 0, 0, interps, "area",
               "how it is resampled (resize's): area (the mean of the covered pixels) by default"),
    GIP__PARAM("antialias", GIP_PARAM_BOOL, 0, 0, 1, 0, NULL, "0",
               "1: with linear or cubic, the filter widened by the shrink factor (resize's "
               "antialias)"),
    GIP__PARAM("shrink_only", GIP_PARAM_BOOL, 0, 0, 1, 0, NULL, "0",
               "1: an image that already fits the box is kept as it is (never enlarged)"),
};

typedef struct thumb_step {
    int32_t bw, bh;
    int32_t interpolation, antialias, shrink_only;
} thumb_step;

static gip_status build(const gip_args *a, void *out)
{
    thumb_step *p = out;
    gip_args_size(a, "size", &p->bw, &p->bh);
    p->interpolation = (int32_t)gip_args_int(a, "interpolation");
    p->antialias = (int32_t)gip_args_int(a, "antialias");
    p->shrink_only = (int32_t)gip_args_int(a, "shrink_only");
    if (p->antialias && p->interpolation != GIP_INTER_LINEAR && p->interpolation != GIP_INTER_CUBIC)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "thumbnail: antialias works with interpolation linear or cubic only");
    return GIP_OK;
}

/* The size that fits: the smaller of the two factors, each side rounded and at least 1 and at
 * most the box's. */
static void fit(const thumb_step *p, int64_t w, int64_t h, int64_t *ow, int64_t *oh)
{
    double s = fmin((double)p->bw / (double)w, (double)p->bh / (double)h);
    if (p->shrink_only && s >= 1) {
        *ow = w;
        *oh = h;
        return;
    }
    int64_t x = (int64_t)nearbyint((double)w * s), y = (int64_t)nearbyint((double)h * s);
    *ow = x < 1 ? 1 : x > p->bw ? p->bw : x;
    *oh = y < 1 ? 1 : y > p->bh ? p->bh : y;
}

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    fit(params, in->width, in->height, &out->width, &out->height);
    *identity = out->width == in->width && out->height == in->height;
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *params)
{
    const thumb_step *p = params;
    if (src && dst && src->width > 0 && src->height > 0) {
        int64_t w, h;
        fit(p, src->width, src->height, &w, &h);
        if (dst->width != w || dst->height != h)
            return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                              "thumbnail: dst is %lldx%lld; a %lldx%lld image fits the %dx%d box "
                              "as %lldx%lld",
                              (long long)dst->width, (long long)dst->height, (long long)src->width,
                              (long long)src->height, (int)p->bw, (int)p->bh, (long long)w,
                              (long long)h);
        return gip__resize_run(ctx, src, dst, p->interpolation, p->antialias,
                               (double)w / (double)src->width, (double)h / (double)src->height);
    }
    return gip__resize_run(ctx, src, dst, p->interpolation, p->antialias, 1, 1);
}

const gip_op gip__op_thumbnail = {
    .name = "thumbnail",
    .family = "geometry",
    .summary = "Scales the image to fit a box, keeping its aspect ratio (as vipsthumbnail).",
    .doc = "The output is round(w * s) x round(h * s) with s = min(W / w, H / h) for the box "
           "WxH (each side at least 1), resampled as resize does (area by default: the mean of "
           "the covered pixels, equal to cv2.resize with INTER_AREA to that size); shrink_only=1 "
           "keeps images that already fit. As a pipeline step over a folder (gip run "
           "'thumbnail 256' -i DIR -o DIR) it makes every image's thumbnail with the batch "
           "engine. Changes the image size (not tiled).",
    .cv_name = NULL,
    .params = decl,
    .nparams = GIP__COUNT(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP_CHANNELS_BIT(1) | GIP_CHANNELS_BIT(3) | GIP_CHANNELS_BIT(4),
    .flags = GIP_OP_WHOLE,
    .params_size = sizeof(thumb_step),
    .build = build,
    .shape = shape,
    .run = run,
};
