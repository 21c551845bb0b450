/* SPDX-License-Identifier: MIT */
/* The registry's absdiff (cv2.absdiff): gip_arith() with GIP_ARITH_ABSDIFF. */
#include "arith.h"

static const gip_param decl[] = {
    GIP__ARITH_VALUE_PARAM,
};

static gip_status build(const gip_args *a, void *out)
{
    return gip__arith_build(a, out, GIP_ARITH_ABSDIFF);
}

const gip_op gip__op_absdiff = {
    .name = "absdiff",
    .family = "point",
    .summary = "Absolute difference with a second image or a scalar, as cv2.absdiff.",
    .doc = "dst = saturate(|src - b|). The second image (src2) and a mask are optional inputs; "
           "where the mask is 0 "
           "the result is 0.",
    .cv_name = "cv2.absdiff",
    .params = decl,
    .nparams = GIP__COUNT(decl),
    .dtypes = GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_S16) |
              GIP_DTYPE_BIT(GIP_F32),
    .channels = GIP_CHANNELS_BIT(1) | GIP_CHANNELS_BIT(3) | GIP_CHANNELS_BIT(4),
    .flags = GIP_OP_POINTWISE | GIP_OP_IN_PLACE,
    .params_size = sizeof(gip__arith_step),
    .build = build,
    .inputs = gip__arith_inputs,
    .ninputs = 2,
    .run_inputs = gip__arith_run,
};
