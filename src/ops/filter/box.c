/* SPDX-License-Identifier: MIT */
/* box (gip_box_filter, as cv2.boxFilter / cv2.blur): a separable all-ones kernel through the
 * separable engine (exact integer sums for u8 and u16), then sum * (1 / (kw kh)) rounded half to
 * even and saturated (or the plain sum); its registry entry. */
#include <string.h>

#include "gip/color.h"
#include "gip/filter.h"
#include "engine/filter2d/filter2d.h"
#include "engine/separable/separable.h"
#include "registry/registry.h"

static const char OP[] = "gip_box_filter";

/* Checks the parameters (NULL = defaults) and fills the engine plan. Sets a message on error. */
static gip_status box_plan(gip_context *ctx, const gip_image *src, const gip_box_params *params,
                           gip__sep_plan *plan)
{
    gip_box_params p;
    if (params)
        p = *params;
    else
        memset(&p, 0, sizeof p);
    int32_t kw = p.ksize_w ? p.ksize_w : 3, kh = p.ksize_h ? p.ksize_h : 3;
    if (kw < 1 || kh < 1 || kw > GIP__SEP_MAX_K || kh > GIP__SEP_MAX_K)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: ksize %dx%d is invalid: 1..%d each (0 means 3)", OP, (int)p.ksize_w,
                          (int)p.ksize_h, GIP__SEP_MAX_K);
    int32_t ax = kw / 2, ay = kh / 2;
    if (p.has_anchor) {
        if (p.anchor_x < 0 || p.anchor_x >= kw || p.anchor_y < 0 || p.anchor_y >= kh)
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: anchor (%d, %d) is outside the %dx%d kernel", OP,
                              (int)p.anchor_x, (int)p.anchor_y, (int)kw, (int)kh);
        ax = p.anchor_x;
        ay = p.anchor_y;
    }
    if ((unsigned)p.border.mode > GIP_BORDER_WRAP)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: unknown border mode %d: reflect101, reflect, replicate, constant "
                          "or wrap",
                          OP, (int)p.border.mode);
    memset(plan, 0, sizeof *plan);
    plan->mode = GIP__SEP_FLOAT;
    plan->kw = kw;
    plan->kh = kh;
    plan->ax = ax;
    plan->ay = ay;
    plan->scale = p.unnormalized ? 1.0f : (float)(1.0 / ((double)kw * (double)kh));
    plan->box_u8 = src->dtype == GIP_U8 && (int64_t)kw * kh <= 257;
    plan->box_int = !plan->box_u8 && (src->dtype == GIP_U8 || src->dtype == GIP_U16);
    plan->scale64 = p.unnormalized ? 1.0 : 1.0 / ((double)kw * (double)kh);
    gip__sep_set_border(plan, &p.border, src->dtype);
    for (int32_t i = 0; i < kw; i++)
        plan->kxf[i] = 1.0f;
    for (int32_t i = 0; i < kh; i++)
        plan->kyf[i] = 1.0f;
    return GIP_OK;
}

gip_status gip_box_filter(gip_context *ctx, const gip_image *src, gip_image *dst,
                          const gip_box_params *params)
{
    bool on_device = false;
    /* cv2.boxFilter converts its integer or double sums to any destination depth. */
    gip_status st = gip__f2d_check_images_depths(ctx, src, dst, OP, &on_device);
    if (st)
        return st;
    const gip_dtype dt = dst->dtype;
    gip__sep_plan plan;
    if ((st = box_plan(ctx, src, params, &plan)))
        return st;
    if (dt == src->dtype || dt == GIP_F32)
        return gip__sep_run(ctx, &plan, src, dst, on_device);
    /* Other pairs: the engine's result in a temporary, then gip_convert (round half to even,
     * saturate). A normalised box of an integer source lies in the source's range, so a temporary
     * of the source's dtype holds exactly the rounded result the source's own path gives; sums and
     * f32 sources go through f32, where an integer sum is exact or past every integer dtype's
     * range. */
    bool normalized = !(params && params->unnormalized);
    gip_dtype tdt = normalized && src->dtype != GIP_F32 ? src->dtype : GIP_F32;
    gip_image tmp = {0};
    if ((st = gip_image_alloc(ctx, &tmp, src->width, src->height, src->channels, tdt,
                              on_device ? GIP_MEM_CUDA : GIP_MEM_HOST, 0)))
        return st;
    if (!(st = gip__sep_run(ctx, &plan, src, &tmp, on_device)))
        st = gip_convert(ctx, &tmp, dst, 1.0, 0.0);
    gip_image_free(ctx, &tmp);
    return st;
}

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
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP__CHANNELS_134,
    .params_size = sizeof(step),
    .dtype_at = GIP_OP_AT(step, dtype),
    .build = build,
    .halo = halo,
    .border_at = GIP_OP_AT(gip_box_params, border),
    .run = run,
};
