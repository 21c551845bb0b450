/* SPDX-License-Identifier: MIT */
/* crop: the rectangle (x, y, w, h) of the image as a pipeline step (in C a crop is a view:
 * offset the data pointer); the registry's description. */
#include "ops/geometry/pixel_map.h"
#include "registry/registry.h"

static const gip_param decl[] = {
    GIP__PARAM_EX("x", GIP_PARAM_INT, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, 0, 2147483646, 0,
                  NULL, NULL, "the rectangle's left column", "1"),
    GIP__PARAM_EX("y", GIP_PARAM_INT, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, 0, 2147483646, 0,
                  NULL, NULL, "the rectangle's top row", "0"),
    GIP__PARAM_EX("w", GIP_PARAM_INT, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, 1, 2147483647, 0,
                  NULL, NULL, "the rectangle's width", "5"),
    GIP__PARAM_EX("h", GIP_PARAM_INT, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, 1, 2147483647, 0,
                  NULL, NULL, "the rectangle's height", "3"),
};

typedef struct crop_step {
    int64_t x, y, w, h;
} crop_step;

static gip_status build(const gip_args *a, void *out)
{
    crop_step *p = out;
    p->x = gip_args_int(a, "x");
    p->y = gip_args_int(a, "y");
    p->w = gip_args_int(a, "w");
    p->h = gip_args_int(a, "h");
    return GIP_OK;
}

static gip_status inside(gip_context *ctx, const crop_step *p, int64_t w, int64_t h)
{
    if (p->x + p->w > w || p->y + p->h > h)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "crop: the rectangle x %lld, y %lld, w %lld, h %lld is not inside the "
                          "%lldx%lld image",
                          (long long)p->x, (long long)p->y, (long long)p->w, (long long)p->h,
                          (long long)w, (long long)h);
    return GIP_OK;
}

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    const crop_step *p = params;
    gip_status st = inside(NULL, p, in->width, in->height);
    if (st)
        return st;
    out->width = p->w;
    out->height = p->h;
    *identity = p->w == in->width && p->h == in->height;
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *params)
{
    const crop_step *p = params;
    if (src && dst) {
        gip_status st = inside(ctx, p, src->width, src->height);
        if (st)
            return st;
        if (dst->width != p->w || dst->height != p->h)
            return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                              "crop: dst is %lldx%lld; w x h is %lldx%lld", (long long)dst->width,
                              (long long)dst->height, (long long)p->w, (long long)p->h);
    }
    gip__pixmap m = gip__pixmap_of(src, GIP__PM_CROP);
    m.ox = p->x;
    m.oy = p->y;
    return gip__pixmap_run(ctx, src, dst, &m, "crop");
}

const gip_op gip__op_crop = {
    .name = "crop",
    .family = "geometry",
    .summary = "Keeps the rectangle x, y, w, h of the image (a pipeline step).",
    .doc = "dst(i, j) = src(x + i, y + j) for a w x h dst; the rectangle must lie inside the "
           "image. Every dtype and channel count, identical on every backend. Changes the image "
           "size, so it is not tiled.",
    .cv_name = NULL,
    GIP__PARAMS(decl),
    .dtypes = GIP__DTYPES_ALL,
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_WHOLE,
    .params_size = sizeof(crop_step),
    .build = build,
    .shape = shape,
    .run = run,
};
