/* SPDX-License-Identifier: MIT */
/* The registry's description of box (gip_box_filter()). */
#include "gip/filter.h"
#include "internal.h"
#include "registry/registry.h"

static const gip_param decl[] = {
    GIP__PARAM("ksize", GIP_PARAM_SIZE, GIP_PARAM_POSITIONAL, 1, 1023, 0, NULL, "3",
               "window width and height"),
    GIP__PARAM("normalize", GIP_PARAM_BOOL, 0, 0, 1, 0, NULL, "1",
               "1: the mean over the window (cv2.blur); 0: the plain sum"),
    GIP__PARAM("anchor", GIP_PARAM_LIST, 0, -1, 1022, 2, NULL, "-1",
               "the window's anchor as X,Y inside it; -1 is the centre"),
    GIP__PARAM("dtype", GIP_PARAM_CHOICE, 0, 0, 0, 0, gip__ddepth_choices, "same",
               "the result's dtype (cv2's ddepth): same as the input, or u8, u16, s16, f32 where "
               "cv2 accepts the pair"),
    GIP__BORDER_PARAMS,
};

/* The parameters and the result's dtype (-1: the input's). */
typedef struct step {
    gip_box_params p;
    int32_t dtype;
} step;

static gip_status build(const gip_args *a, void *out)
{
    gip_box_params *p = &((step *)out)->p;
    ((step *)out)->dtype = (int32_t)gip_args_int(a, "dtype");
    gip_args_size(a, "ksize", &p->ksize_w, &p->ksize_h);
    p->unnormalized = !gip_args_int(a, "normalize");
    gip_status st =
        gip__args_anchor(a, p->ksize_w, p->ksize_h, &p->has_anchor, &p->anchor_x, &p->anchor_y);
    if (st)
        return st;
    return gip__args_border(a, &p->border);
}

static void halo(const void *params, int64_t *hx, int64_t *hy)
{
    const gip_box_params *b = params;
    *hx = gip__window_reach(b->ksize_w, b->has_anchor, b->anchor_x);
    *hy = gip__window_reach(b->ksize_h, b->has_anchor, b->anchor_y);
}

static int32_t border(const void *params)
{
    return (int32_t)((const gip_box_params *)params)->border.mode;
}

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    (void)in;
    (void)identity;
    const int32_t dt = ((const step *)params)->dtype;
    if (dt >= 0)
        out->dtype = (gip_dtype)dt;
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    return gip_box_filter(ctx, src, dst, p);
}

const gip_op gip__op_box = {
    .name = "box",
    .family = "filter",
    .summary = "Box filter (mean or sum over a window), as cv2.boxFilter and cv2.blur.",
    .doc = "The mean (or the sum with normalize=0) over a ksize window at anchor, OpenCV's "
           "borders; integer sources are summed exactly and rounded as OpenCV rounds, so u8 "
           "results equal cv2.blur's.",
    .cv_name = "cv2.boxFilter",
    .params = decl,
    .nparams = GIP__COUNT(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP_CHANNELS_BIT(1) | GIP_CHANNELS_BIT(3) | GIP_CHANNELS_BIT(4),
    .params_size = sizeof(step),
    .shape = shape,
    .build = build,
    .halo = halo,
    .border = border,
    .run = run,
};
