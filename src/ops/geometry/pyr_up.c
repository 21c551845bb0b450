/* SPDX-License-Identifier: MIT */
/* pyr_up, as cv2.pyrUp: the image doubled with zeros between pixels and blurred by the 5x5
 * Gaussian times 4; gip_pyr_up() and the registry's description (the arithmetic is pyr.h). */
#include "gip/geometry.h"
#include "ops/geometry/pyr.h"
#include "ops/op_step.h"
#include "registry/registry.h"

gip_status gip_pyr_up(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    gip__pyr p = {0};
    p.up = 1;
    p.border = GIP_BORDER_REFLECT_101;
    return gip__pyr_run(ctx, src, dst, &p, "gip_pyr_up");
}

static gip_status shape(const void *params, const gip_shape *in, gip_shape *out, int32_t *identity)
{
    (void)params;
    (void)identity;
    if (in->width > GIP_MAX_DIM / 2 || in->height > GIP_MAX_DIM / 2)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "pyr_up: %lldx%lld is too large to double", (long long)in->width,
                          (long long)in->height);
    out->width = 2 * in->width;
    out->height = 2 * in->height;
    return GIP_OK;
}

static gip_status run(gip_context *ctx, const gip_image *src, gip_image *dst, const void *params)
{
    (void)params;
    return gip_pyr_up(ctx, src, dst);
}

const gip_op gip__op_pyr_up = {
    .name = "pyr_up",
    .family = "geometry",
    .summary = "Doubles the size and blurs with the 5x5 Gaussian, as cv2.pyrUp.",
    .doc = "The 2w x 2h image with the source at even positions and zeros between, filtered by "
           "[1 4 6 4 1] x [1 4 6 4 1] / 64 with reflect101 borders; integers rounded by "
           "(v + 32) >> 6 as OpenCV does, so u8 and u16 results equal cv2.pyrUp's. CPU and CUDA "
           "give identical results. Changes the image size (not tiled).",
    .cv_name = "cv2.pyrUp",
    .params = NULL,
    .nparams = 0,
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_WHOLE,
    .params_size = 1,
    .build = gip__step_build_none,
    .shape = shape,
    .run = run,
};
