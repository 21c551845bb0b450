/* SPDX-License-Identifier: MIT */
/* copy_make_border, as cv2.copyMakeBorder: the image inside a frame of top, bottom, left and
 * right pixels made by a border mode (constant with a value per channel); gip_copy_make_border()
 * and the registry's description. */
#include <string.h>

#include "gip/geometry.h"
#include "ops/geometry/pixel_map.h"
#include "registry/registry.h"

/* The constant value as the pixel's bytes (rounded and saturated for integers, as OpenCV's
 * Scalar is converted to the image type). */
static void value_bytes(const gip_image *src, const float *v, uint8_t *out)
{
    for (int32_t c = 0; c < src->channels && c < 4; c++) {
        const float x = gip__border_value_as(src->dtype, v[c]);
        switch (src->dtype) {
        case GIP_U8:
            out[c] = (uint8_t)x;
            break;
        case GIP_U16: {
            const uint16_t u = (uint16_t)x;
            memcpy(out + 2 * c, &u, 2);
            break;
        }
        case GIP_S16: {
            const int16_t s = gip__sat_s16_f32(v[c]);
            memcpy(out + 2 * c, &s, 2);
            break;
        }
        default:
            memcpy(out + 4 * c, &x, 4);
        }
    }
}

gip_status gip_copy_make_border(gip_context *ctx, const gip_image *src, gip_image *dst, int64_t top,
                                int64_t left, const gip_border_spec *border)
{
    static const char op[] = "gip_copy_make_border";
    if (!border)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: border must not be NULL", op);
    if ((unsigned)border->mode > GIP_BORDER_WRAP)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: border mode %d is unknown", op,
                          (int)border->mode);
    if (src && dst &&
        (top < 0 || left < 0 || dst->width < src->width + left || dst->height < src->height + top))
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: a %lldx%lld dst cannot hold the %lldx%lld image at left %lld, top "
                          "%lld (each margin >= 0)",
                          op, (long long)dst->width, (long long)dst->height, (long long)src->width,
                          (long long)src->height, (long long)left, (long long)top);
    gip__pixmap m = gip__pixmap_of(src, GIP__PM_BORDER);
    m.border = (int32_t)border->mode;
    m.ox = left;
    m.oy = top;
    if (src && src->channels >= 1 && src->channels <= 4)
        value_bytes(src, border->value, m.value);
    return gip__pixmap_run(ctx, src, dst, &m, op);
}

static const gip_param decl[] = {
    GIP__PARAM_EX("top", GIP_PARAM_INT, GIP_PARAM_POSITIONAL, 0, 1 << 20, 0, NULL, "0",
                  "rows added above", "2"),
    GIP__PARAM_EX("bottom", GIP_PARAM_INT, GIP_PARAM_POSITIONAL, 0, 1 << 20, 0, NULL, "0",
                  "rows added below", "3"),
    GIP__PARAM_EX("left", GIP_PARAM_INT, GIP_PARAM_POSITIONAL, 0, 1 << 20, 0, NULL, "0",
                  "columns added on the left", "4"),
    GIP__PARAM_EX("right", GIP_PARAM_INT, GIP_PARAM_POSITIONAL, 0, 1 << 20, 0, NULL, "0",
                  "columns added on the right", "1"),
    GIP__BORDER_PARAMS,
};

typedef struct cmb_step {
    int32_t top, bottom, left, right;
    gip_border_spec border;
} cmb_step;

static gip_status build(const gip_args *a, void *out)
{
    cmb_step *p = out;
    p->top = (int32_t)gip_args_int(a, "top");
    p->bottom = (int32_t)gip_args_int(a, "bottom");
    p->left = (int32_t)gip_args_int(a, "left");
    p->right = (int32_t)gip_args_int(a, "right");
    return gip__args_border(a, &p->border);
}

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    const cmb_step *p = params;
    out->width = in->width + p->left + p->right;
    out->height = in->height + p->top + p->bottom;
    if (out->width > GIP_MAX_DIM || out->height > GIP_MAX_DIM)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "copy_make_border: the result would be %lldx%lld, above %lld",
                          (long long)out->width, (long long)out->height, (long long)GIP_MAX_DIM);
    *identity = !p->top && !p->bottom && !p->left && !p->right;
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *params)
{
    const cmb_step *p = params;
    if (src && dst &&
        (dst->width != src->width + p->left + p->right ||
         dst->height != src->height + p->top + p->bottom))
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "copy_make_border: dst is %lldx%lld; the margins make %lldx%lld",
                          (long long)dst->width, (long long)dst->height,
                          (long long)(src->width + p->left + p->right),
                          (long long)(src->height + p->top + p->bottom));
    return gip_copy_make_border(ctx, src, dst, p->top, p->left, &p->border);
}

const gip_op gip__op_copy_make_border = {
    .name = "copy_make_border",
    .family = "geometry",
    .summary = "Pads the image with a border of any mode, as cv2.copyMakeBorder.",
    .doc = "The image at (left, top) of a (w + left + right) x (h + top + bottom) output whose "
           "other pixels follow OpenCV's borderInterpolate for border (reflect101, reflect, "
           "replicate, wrap; margins wider than the image reflect or wrap again) or hold "
           "border_value (constant: one number, or one per channel, rounded and saturated to "
           "the dtype). Whole pixels move: identical on every backend. Changes the image size, "
           "so it is not tiled.",
    .cv_name = "cv2.copyMakeBorder",
    GIP__PARAMS(decl),
    .dtypes = GIP__DTYPES_ALL,
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_WHOLE,
    .params_size = sizeof(cmb_step),
    .build = build,
    .shape = shape,
    .run = run,
};
