/* SPDX-License-Identifier: MIT */
/* The registry's description of map (gip_map() of one input). */
#include "ops/kernel/expr_step.h"
#include "registry/registry.h"

static const gip_param decl[] = {
    GIP__PARAM_EX(
        "expr", GIP_PARAM_STRING, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, 0, 0, 0, NULL, NULL,
        "the expression (docs/expressions.md), e.g. 'out = 255 - in'; other NAME=VALUE arguments "
        "are named scalars",
        "out = 255 - in"),
};

static gip_status build(const gip_args *a, void *out)
{
    return gip__expr_step_build(a, out);
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    const gip__expr_step *s = p;
    return gip_map(ctx, s->expr, src, 1, s->n ? s->scalars : NULL, s->n, dst);
}

const gip_op gip__op_map = {
    .name = "map",
    .family = "kernel",
    .summary = "A per-pixel expression, compiled for the CPU and the GPU.",
    .doc = "out = EXPR of in (the pixel), c (the channel), x, y, width, height and named "
           "scalars, evaluated in float32 per channel; u8/u16 results rounded half to even and "
           "saturated. Expressions that do not read the position fold into one table pass with "
           "their point-wise neighbours in a pipeline.",
    .cv_name = NULL,
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_POINTWISE | GIP_OP_SCALARS,
    .params_size = sizeof(gip__expr_step),
    .build = build,
    .release = gip__expr_step_release,
    .copy = gip__expr_step_copy,
    .position = gip__expr_step_position,
    .run = run,
};
