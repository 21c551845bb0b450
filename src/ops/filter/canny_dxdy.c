/* SPDX-License-Identifier: MIT */
/* canny_dxdy, as cv2.Canny(dx, dy, ...): Canny edges from given s16 derivatives, src being dx
 * and the input dy (gip_canny_dxdy in canny.c); its registry entry. */
#include "gip/edges.h"
#include "ops/filter/canny.h"
#include "registry/registry.h"

static const gip_param decl[] = {
    GIP__CANNY_THRESHOLD_PARAMS,
    GIP__CANNY_L2_PARAM,
};

static const gip_input inputs[] = {
    {.name = "dy",
     .flags = GIP_INPUT_SAME_SIZE | GIP_INPUT_SAME_TYPE,
     .doc = "the y derivative (s16, as src, the x derivative)"},
};

static gip_status build(const gip_args *a, void *out)
{
    gip_canny_params *p = out;
    p->threshold1 = gip_args_double(a, "threshold1");
    p->threshold2 = gip_args_double(a, "threshold2");
    p->l2_gradient = (int32_t)gip_args_int(a, "l2");
    return GIP_OK;
}

static gip_status run_inputs(gip_context *ctx, const gip_image *src, const gip_image *const *in,
                             gip_image *dst, const void *params)
{
    return gip_canny_dxdy(ctx, src, in[0], dst, params);
}

const gip_op gip__op_canny_dxdy = {
    .name = "canny_dxdy",
    .family = "filter",
    .summary = "Canny edges from given derivatives (src = dx, input dy), as cv2.Canny(dx, dy).",
    .doc = "The stages of canny after the derivatives: integer magnitudes, non-maximum "
           "suppression and hysteresis between the thresholds, as OpenCV, on s16 dx (src) and dy "
           "(--dy FILE, dy= in Python) of the same size and channels; bit-exact with cv2.Canny.",
    .cv_name = "cv2.Canny",
    GIP__PARAMS(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_S16),
    .channels = GIP__CHANNELS_134,
    .flags = GIP_OP_WHOLE,
    .params_size = sizeof(gip_canny_params),
    .build = build,
    .shape = gip__shape_u8c1,
    GIP__INPUTS(inputs),
    .run_inputs = run_inputs,
};
