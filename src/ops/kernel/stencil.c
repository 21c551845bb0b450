/* SPDX-License-Identifier: MIT */
/* The registry's description of stencil (gip_stencil()). */
#include "ops/kernel/expr_step.h"
#include "registry/registry.h"

static const gip_param decl[] = {
    GIP__PARAM_EX(
        "expr", GIP_PARAM_STRING, GIP_PARAM_POSITIONAL | GIP_PARAM_REQUIRED, 0, 0, 0, NULL, NULL,
        "the expression, reading neighbours as in(dx, dy), e.g. 'out = (in(-1,0) + in(1,0)) / 2'; "
        "other NAME=VALUE arguments are named scalars",
        "out = (in(-1,0) + in(1,0)) / 2"),
    GIP__PARAM("radius", GIP_PARAM_INT, 0, 0, GIP_STENCIL_MAX_RADIUS, 0, NULL, "0",
               "the largest |dx| and |dy| allowed; 0: the largest the expression uses"),
    GIP__BORDER_PARAMS,
};

static gip_status build(const gip_args *a, void *out)
{
    gip__expr_step *s = out;
    gip_status st = gip__expr_step_build(a, s);
    if (st)
        return st;
    s->sten.radius = (int32_t)gip_args_int(a, "radius");
    return gip__args_border(a, &s->sten.border);
}

static void halo(const void *params, int64_t *hx, int64_t *hy)
{
    const gip__expr_step *s = params;
    *hx = *hy = s->sten.radius ? s->sten.radius : GIP_STENCIL_MAX_RADIUS;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *p)
{
    const gip__expr_step *s = p;
    return gip_stencil(ctx, s->expr, src, dst, &s->sten);
}

const gip_op gip__op_stencil = {
    .name = "stencil",
    .family = "kernel",
    .summary = "A neighbourhood expression, compiled for the CPU and the GPU.",
    .doc = "out = EXPR of the pixel's neighbours in(dx, dy) (integer constants up to radius), "
           "with OpenCV's borders outside the image; the seed's PyCUDA 3x3 mean is "
           "'out = (in(-1,-1) + ... + in(1,1)) / 9'.",
    .cv_name = NULL,
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_SCALARS,
    .params_size = sizeof(gip__expr_step),
    .build = build,
    .release = gip__expr_step_release,
    .copy = gip__expr_step_copy,
    .halo = halo,
    .border_at = GIP_OP_AT(gip__expr_step, sten.border),
    .position = gip__expr_step_position,
    .run = run,
};
