/* SPDX-License-Identifier: MIT */
/* gip_stencil: an expression over a pixel's neighbourhood with a border rule, per channel. */
#include <stdlib.h>

#include "expr.h"

static bool dtype_ok(gip_dtype dt)
{
    return dt == GIP_U8 || dt == GIP_U16 || dt == GIP_F32;
}

gip_status gip_stencil(gip_context *ctx, const char *expr, const gip_image *src, gip_image *dst,
                       const gip_stencil_params *params)
{
    static const char op[] = "gip_stencil";
    gip_status st = gip__ctx_check(ctx, op);
    if (st)
        return st;
    if (!expr)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: expr is NULL", op);
    gip_stencil_params p = {0};
    if (params)
        p = *params;
    bool on_device = false;
    if ((st = gip__check_unary(ctx, src, dst, op, &on_device)))
        return st;
    if (!dtype_ok(src->dtype) || !dtype_ok(dst->dtype))
        return gip__error(ctx, GIP_ERR_UNSUPPORTED, "%s: src is %s, dst %s: u8, u16 or f32", op,
                          gip_dtype_name(src->dtype), gip_dtype_name(dst->dtype));
    if (src->channels != dst->channels)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH, "%s: src has %d channels, dst %d", op,
                          (int)src->channels, (int)dst->channels);
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING,
                          "%s: dst overlaps src; a stencil reads neighbours, so it cannot run in "
                          "place",
                          op);
    if (p.radius < 0 || p.radius > GIP_STENCIL_MAX_RADIUS)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: radius %d: 0 (from the expression) .. %d", op, (int)p.radius,
                          GIP_STENCIL_MAX_RADIUS);
    if ((unsigned)p.border.mode > GIP_BORDER_WRAP)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: border mode %d: REFLECT_101 (0), REFLECT, REPLICATE, CONSTANT or "
                          "WRAP (4)",
                          op, (int)p.border.mode);
    if (p.n_scalars < 0 || p.n_scalars > GIP_EXPR_MAX_SCALARS || (p.n_scalars > 0 && !p.scalars))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: n_scalars %d: 0..%d scalars with a non-NULL array", op,
                          (int)p.n_scalars, GIP_EXPR_MAX_SCALARS);
    if (on_device && (dst->width > INT32_MAX || dst->height > INT32_MAX))
        return gip__error(ctx, GIP_ERR_TOO_LARGE, "%s: image too large for the GPU kernel", op);

    gip__expr *e = malloc(sizeof *e);
    if (!e)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
    gip__expr_env env = {op, true,      p.radius ? p.radius : GIP_STENCIL_MAX_RADIUS,
                         1,  p.scalars, p.n_scalars};
    if ((st = gip__expr_parse(ctx, &env, expr, e)))
        goto out_free;
    gip__expr_job job = {0};
    job.e = e;
    job.inputs = src;
    job.n_inputs = 1;
    job.dst = dst;
    for (int32_t k = 0; k < p.n_scalars; k++)
        job.scalars[k] = p.scalars[k].value;
    job.radius = e->radius_used;
    job.border = p.border.mode;
    for (int k = 0; k < 4; k++)
        job.border_value[k] = p.border.value[k];
    job.stencil = true;
    st = gip__expr_dispatch(ctx, op, &job);
out_free:
    free(e);
    return st;
}
