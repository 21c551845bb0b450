/* SPDX-License-Identifier: MIT */
/* inRange (gip_in_range): a u8 mask of the pixels whose every channel lies within per-channel
 * bounds, and its registry entry. */
#include <math.h>

#include "gip/point.h"
#include "pointwise.h"
#include "registry/registry.h"

#define DT_RANGE GIP__DT_DEPTHS

gip_status gip_in_range(gip_context *ctx, const gip_image *src, gip_image *dst, const double *lower,
                        const double *upper)
{
    static const char op[] = "gip_in_range";
    bool on_device = false;
    gip_status st = gip__pw_check(ctx, src, dst, op, DT_RANGE, GIP_U8, true, false, &on_device);
    if (st)
        return st;
    if (!lower || !upper)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          !lower ? "lower" : "upper");
    float lo[4] = {0}, hi[4] = {0};
    for (int c = 0; c < src->channels; c++) {
        if (isnan(lower[c]) || isnan(upper[c]))
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: bound of channel %d is NaN", op,
                              c);
        lo[c] = gip__pw_scalar_as(src->dtype, lower[c]);
        hi[c] = gip__pw_scalar_as(src->dtype, upper[c]);
    }
    return gip__pw_in_range(ctx, src, dst, lo, hi, on_device);
}

static const gip_param decl[] = {
    GIP__PARAM_EX("lower", GIP_PARAM_LIST, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, -3.4e38,
                  3.4e38, 4, NULL, NULL,
                  "the lowest value kept: one number for every channel, or one per channel", "50"),
    GIP__PARAM_EX("upper", GIP_PARAM_LIST, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, -3.4e38,
                  3.4e38, 4, NULL, NULL,
                  "the highest value kept: one number for every channel, or one per channel",
                  "200"),
};

typedef struct range_step {
    double lo[4], hi[4];
    int32_t nlo, nhi;
} range_step;

static gip_status build(const gip_args *a, void *out)
{
    range_step *r = out;
    r->nlo = gip_args_list(a, "lower", r->lo, 4);
    r->nhi = gip_args_list(a, "upper", r->hi, 4);
    return GIP_OK;
}

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    const range_step *r = params;
    (void)identity;
    if ((r->nlo != 1 && r->nlo != in->channels) || (r->nhi != 1 && r->nhi != in->channels))
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "inrange: lower and upper take one number or one per channel (%d), got "
                          "%d and %d",
                          (int)in->channels, (int)r->nlo, (int)r->nhi);
    out->channels = 1;
    out->dtype = GIP_U8;
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    const range_step *r = p;
    if ((r->nlo != 1 && r->nlo != src->channels) || (r->nhi != 1 && r->nhi != src->channels))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "inrange: lower and upper take one number or one per channel (%d), got "
                          "%d and %d",
                          (int)src->channels, (int)r->nlo, (int)r->nhi);
    double lo[4], hi[4];
    for (int c = 0; c < 4; c++) {
        lo[c] = r->lo[r->nlo == 1 ? 0 : c];
        hi[c] = r->hi[r->nhi == 1 ? 0 : c];
    }
    return gip_in_range(ctx, src, dst, lo, hi);
}

const gip_op gip__op_inrange = {
    .name = "inrange",
    .family = "point",
    .summary = "255 where every channel lies within [lower, upper], else 0, as cv2.inRange.",
    .doc = "The result is a u8 image with one channel. Integer images compare with the bounds "
           "rounded and saturated to their dtype (as OpenCV converts scalars); f32 compares in "
           "single precision. One number applies to every channel.",
    .cv_name = "cv2.inRange",
    GIP__PARAMS(decl),
    .dtypes = GIP__DTYPES_ALL,
    .channels = GIP__CHANNELS_134,
    .params_size = sizeof(range_step),
    .build = build,
    .shape = shape,
    .run = run,
};
