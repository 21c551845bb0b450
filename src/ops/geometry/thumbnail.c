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
    GIP__PARAM("shrink_on_load", GIP_PARAM_BOOL, 0, 0, 1, 0, NULL, "1",
               "1: run first on a JPEG file, the file is decoded at 1/2, 1/4 or 1/8 of its size "
               "by libjpeg's DCT scaling where that still holds the thumbnail's size (as "
               "vipsthumbnail); 0: decoded whole. No effect on an image in memory"),
};

typedef struct thumb_step {
    int32_t bw, bh;
    int32_t interpolation, antialias, shrink_only, shrink_on_load;
} thumb_step;

static gip_status build(const gip_args *a, void *out)
{
    thumb_step *p = out;
    gip_args_size(a, "size", &p->bw, &p->bh);
    p->interpolation = (int32_t)gip_args_int(a, "interpolation");
    p->antialias = (int32_t)gip_args_int(a, "antialias");
    p->shrink_only = (int32_t)gip_args_int(a, "shrink_only");
    p->shrink_on_load = (int32_t)gip_args_int(a, "shrink_on_load");
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

/* The largest of 8, 4, 2 whose decode (each side rounded up, as libjpeg's scaled IDCT) is still
 * at least the thumbnail's size: fitting the smaller decode then gives that size too. */
static int32_t load_reduce(const void *params, int64_t w, int64_t h)
{
    const thumb_step *p = params;
    if (!p->shrink_on_load || w < 1 || h < 1)
        return 1;
    double s = fmin((double)p->bw / (double)w, (double)p->bh / (double)h);
    for (int32_t n = 8; n >= 2; n /= 2)
        if ((double)((w + n - 1) / n) >= (double)w * s &&
            (double)((h + n - 1) / n) >= (double)h * s)
            return n;
    return 1;
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

static gip_status band_rows(const void *params, const gip_shape *in, int64_t y0, int64_t y1,
                            int64_t *s0, int64_t *s1)
{
    const thumb_step *p = params;
    int64_t w, h;
    fit(p, in->width, in->height, &w, &h);
    return gip__resize_band_rows(in, w, h, p->interpolation, p->antialias,
                                 (double)w / (double)in->width, (double)h / (double)in->height, y0,
                                 y1, s0, s1);
}

static gip_status run_band(gip_context *ctx, const gip_image *src, int64_t s0, const gip_shape *in,
                           gip_image *dst, int64_t y0, const void *params)
{
    const thumb_step *p = params;
    int64_t w, h;
    fit(p, in->width, in->height, &w, &h);
    if (src->width != in->width || dst->width != w)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "thumbnail (row band): src is %lld wide and dst %lld; the image is "
                          "%lld wide and its thumbnail %lld",
                          (long long)src->width, (long long)dst->width, (long long)in->width,
                          (long long)w);
    return gip__resize_run_band(ctx, src, s0, in->height, dst, y0, h, p->interpolation,
                                p->antialias, (double)w / (double)in->width,
                                (double)h / (double)in->height);
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
           "engine. First in a chain run on a JPEG file (the command, gip run, the batch "
           "engine, gip.thumbnail on a path) it shrinks on load: the file is decoded at 1/2, 1/4 "
           "or 1/8 of its size by libjpeg's DCT scaling where that still holds the thumbnail's "
           "size, so a 30000x30000 JPEG costs 1/64 of its pixels (the result then differs from "
           "fitting the whole decode by the scaling's filter, and its size by the rounding of "
           "the smaller sides; shrink_on_load=0 decodes whole). "
           "Changes the image size: not tiled, but row streaming and gip.dask cut it by output "
           "rows.",
    .cv_name = NULL,
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_WHOLE,
    .params_size = sizeof(thumb_step),
    .build = build,
    .shape = shape,
    .run = run,
    .load_reduce = load_reduce,
    .band_rows = band_rows,
    .run_band = run_band,
};
