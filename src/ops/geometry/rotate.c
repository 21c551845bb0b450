/* SPDX-License-Identifier: MIT */
/* rotate, as cv2.rotate: 90 degrees clockwise, 180, or 90 counter-clockwise, whole pixels
 * moved; gip_rotate() and the registry's description. */
#include "gip/geometry.h"
#include "ops/geometry/pixel_map.h"
#include "registry/registry.h"

gip_status gip_rotate(gip_context *ctx, const gip_image *src, gip_image *dst, int32_t code)
{
    static const char op[] = "gip_rotate";
    if (code < GIP_ROTATE_90_CLOCKWISE || code > GIP_ROTATE_90_COUNTERCLOCKWISE)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: rotateCode %d is unknown (0: 90 clockwise, 1: 180, 2: 90 "
                          "counter-clockwise)",
                          op, (int)code);
    if (src && dst) {
        const int quarter = code != GIP_ROTATE_180;
        const int64_t w = quarter ? src->height : src->width,
                      h = quarter ? src->width : src->height;
        if (dst->width != w || dst->height != h)
            return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                              "%s: dst is %lldx%lld; rotating %lldx%lld makes %lldx%lld", op,
                              (long long)dst->width, (long long)dst->height, (long long)src->width,
                              (long long)src->height, (long long)w, (long long)h);
    }
    const int32_t mode = code == GIP_ROTATE_90_CLOCKWISE ? GIP__PM_ROT90CW
                         : code == GIP_ROTATE_180        ? GIP__PM_ROT180
                                                         : GIP__PM_ROT90CCW;
    const gip__pixmap m = gip__pixmap_of(src, mode);
    return gip__pixmap_run(ctx, src, dst, &m, op);
}

static const gip_choice codes[] = {{"90_clockwise", GIP_ROTATE_90_CLOCKWISE},
                                   {"180", GIP_ROTATE_180},
                                   {"90_counterclockwise", GIP_ROTATE_90_COUNTERCLOCKWISE},
                                   {"90", GIP_ROTATE_90_CLOCKWISE},
                                   {"270", GIP_ROTATE_90_COUNTERCLOCKWISE},
                                   {"cw", GIP_ROTATE_90_CLOCKWISE},
                                   {"ccw", GIP_ROTATE_90_COUNTERCLOCKWISE},
                                   {NULL, 0}};

static const gip_param decl[] = {
    GIP__PARAM_EX("code", GIP_PARAM_CHOICE, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, 0, 0, 0,
                  codes, NULL,
                  "cv2.rotate's rotateCode: 90_clockwise (or 90, cw), 180, 90_counterclockwise "
                  "(or 270, ccw)",
                  "90_clockwise"),
};

typedef struct rotate_step {
    int32_t code;
} rotate_step;

static gip_status build(const gip_args *a, void *out)
{
    ((rotate_step *)out)->code = (int32_t)gip_args_int(a, "code");
    return GIP_OK;
}

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    (void)identity;
    if (((const rotate_step *)params)->code != GIP_ROTATE_180) {
        out->width = in->height;
        out->height = in->width;
    }
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *params)
{
    return gip_rotate(ctx, src, dst, ((const rotate_step *)params)->code);
}

const gip_op gip__op_rotate = {
    .name = "rotate",
    .family = "geometry",
    .summary = "Rotates the image by 90, 180 or 270 degrees, as cv2.rotate.",
    .doc = "90_clockwise: dst(x, y) = src(y, h-1-x); 180: src(w-1-x, h-1-y); "
           "90_counterclockwise: src(w-1-y, x). A quarter turn swaps width and height. Whole "
           "pixels move: every dtype and channel count, identical on every backend. Reads the "
           "whole image (not tiled).",
    .cv_name = "cv2.rotate",
    GIP__PARAMS(decl),
    .dtypes = GIP__DTYPES_ALL,
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_WHOLE,
    .params_size = sizeof(rotate_step),
    .build = build,
    .shape = shape,
    .run = run,
};
