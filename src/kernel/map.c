/* SPDX-License-Identifier: MIT */
/* gip_map: a per-pixel expression over one or more images and named scalars. */
#include <stdlib.h>

#include "expr.h"

static bool dtype_ok(gip_dtype dt)
{
    return dt == GIP_U8 || dt == GIP_U16 || dt == GIP_F32;
}

gip_status gip_map(gip_context *ctx, const char *expr, const gip_image *inputs, int32_t n_inputs,
                   const gip_scalar *scalars, int32_t n_scalars, gip_image *dst)
{
    static const char op[] = "gip_map";
    gip_status st = gip__ctx_check(ctx, op);
    if (st)
        return st;
    if (!expr || !dst)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op,
                          !expr ? "expr" : "dst");
    if (n_inputs < 1 || n_inputs > GIP_EXPR_MAX_INPUTS || !inputs)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: n_inputs %d: 1..%d input images are needed (inputs %s)", op,
                          (int)n_inputs, GIP_EXPR_MAX_INPUTS, inputs ? "given" : "is NULL");
    if (n_scalars < 0 || n_scalars > GIP_EXPR_MAX_SCALARS || (n_scalars > 0 && !scalars))
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: n_scalars %d: 0..%d scalars with a non-NULL array", op,
                          (int)n_scalars, GIP_EXPR_MAX_SCALARS);
    bool on_device = false;
    for (int32_t i = 0; i < n_inputs; i++) {
        if ((st = gip__check_unary(ctx, &inputs[i], dst, op, &on_device)))
            return st;
        if (!dtype_ok(inputs[i].dtype))
            return gip__error(ctx, GIP_ERR_UNSUPPORTED, "%s: inputs[%d] is %s: u8, u16 or f32", op,
                              (int)i, gip_dtype_name(inputs[i].dtype));
        if (inputs[i].channels != dst->channels)
            return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                              "%s: inputs[%d] has %d channels, dst %d: they must agree", op, (int)i,
                              (int)inputs[i].channels, (int)dst->channels);
        if (gip__images_overlap(&inputs[i], dst) && !gip__images_same(&inputs[i], dst))
            return gip__error(ctx, GIP_ERR_ALIASING,
                              "%s: dst overlaps inputs[%d] without being the same view (in place "
                              "is allowed, partial overlap is not)",
                              op, (int)i);
    }
    if (!dtype_ok(dst->dtype))
        return gip__error(ctx, GIP_ERR_UNSUPPORTED, "%s: dst is %s: u8, u16 or f32", op,
                          gip_dtype_name(dst->dtype));
    if (on_device && (dst->width > INT32_MAX || dst->height > INT32_MAX))
        return gip__error(ctx, GIP_ERR_TOO_LARGE, "%s: image too large for the GPU kernel", op);

    gip__expr *e = malloc(sizeof *e);
    if (!e)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
    gip__expr_env env = {op, false, 0, n_inputs, scalars, n_scalars};
    if ((st = gip__expr_parse(ctx, &env, expr, e)))
        goto out_free;
    gip__expr_job job = {0};
    job.e = e;
    job.inputs = inputs;
    job.n_inputs = n_inputs;
    job.dst = dst;
    for (int32_t k = 0; k < n_scalars; k++)
        job.scalars[k] = scalars[k].value;
    job.border = GIP_BORDER_REPLICATE;
    st = gip__expr_dispatch(ctx, op, &job);
out_free:
    free(e);
    return st;
}
