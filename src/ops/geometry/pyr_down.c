/* SPDX-License-Identifier: MIT */
/* pyr_down, as cv2.pyrDown: Gaussian [1 4 6 4 1] blur and every second pixel kept;
 * gip_pyr_down() and the registry's description (the arithmetic is pyr.h). */
#include "gip/geometry.h"
#include "ops/geometry/pyr.h"
#include "registry/registry.h"

gip_status gip_pyr_down(gip_context *ctx, const gip_image *src, gip_image *dst, gip_border border)
{
    gip__pyr p = {0};
    p.border = (int32_t)border;
    return gip__pyr_run(ctx, src, dst, &p, "gip_pyr_down");
}

static const gip_choice borders[] = {{"reflect101", GIP_BORDER_REFLECT_101},
                                     {"reflect", GIP_BORDER_REFLECT},
                                     {"replicate", GIP_BORDER_REPLICATE},
                                     {"wrap", GIP_BORDER_WRAP},
                                     {NULL, 0}};

static const gip_param decl[] = {
    GIP__PARAM("border", GIP_PARAM_CHOICE, 0, 0, 0, 0, borders, "reflect101",
               "how pixels outside the image are made (OpenCV's BORDER_*; constant is not "
               "supported, as in OpenCV)"),
};

typedef struct pyr_step {
    int32_t border;
} pyr_step;

static gip_status build(const gip_args *a, void *out)
{
    ((pyr_step *)out)->border = (int32_t)gip_args_int(a, "border");
    return GIP_OK;
}

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    (void)params;
    (void)identity;
    out->width = (in->width + 1) / 2;
    out->height = (in->height + 1) / 2;
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *params)
{
    return gip_pyr_down(ctx, src, dst, (gip_border)((const pyr_step *)params)->border);
}

const gip_op gip__op_pyr_down = {
    .name = "pyr_down",
    .family = "geometry",
    .summary = "Blurs with the 5x5 Gaussian and halves the size, as cv2.pyrDown.",
    .doc = "dst(x, y) = sum of [1 4 6 4 1] x [1 4 6 4 1] / 256 around src(2x, 2y), a "
           "((w + 1) / 2) x ((h + 1) / 2) image; integers summed exactly and rounded by "
           "(v + 128) >> 8 as OpenCV does, so u8 and u16 results equal cv2.pyrDown's; f32 in "
           "OpenCV's order. CPU and CUDA give identical results. Changes the image size (not "
           "tiled).",
    .cv_name = "cv2.pyrDown",
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_WHOLE,
    .params_size = sizeof(pyr_step),
    .build = build,
    .shape = shape,
    .run = run,
};
