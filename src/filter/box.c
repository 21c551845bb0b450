/* SPDX-License-Identifier: MIT */
/* Box filter as cv2.boxFilter / cv2.blur: a separable all-ones kernel through the separable
 * engine (exact integer sums for u8 and u16), then sum * (1 / (kw kh)) rounded half to even and
 * saturated (or the plain sum). */
#include <string.h>

#include "box.h"
#include "gip/color.h"

static const char OP[] = "gip_box_filter";

gip_status gip__box_plan(gip_context *ctx, const gip_image *src, const gip_box_params *params,
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
    gip_status st = gip__check_unary(ctx, src, dst, OP, &on_device);
    if (st)
        return st;
    if ((st = gip__check_dtype(ctx, src, GIP__DT_IMAGE, OP, "src")))
        return st;
    if (dst->channels != src->channels)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH, "%s: dst has %d channels, src %d", OP,
                          (int)dst->channels, (int)src->channels);
    /* cv2.boxFilter converts its integer or double sums to any destination depth. */
    const gip_dtype dt = dst->dtype;
    if (dt != GIP_U8 && dt != GIP_U16 && dt != GIP_S16 && dt != GIP_F32)
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "%s: dst dtype %s is not supported: u8, u16, s16 or f32 are accepted", OP,
                          gip_dtype_name(dt));
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: dst overlaps src; use separate buffers", OP);
    gip__sep_plan plan;
    if ((st = gip__box_plan(ctx, src, params, &plan)))
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
