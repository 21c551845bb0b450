/* SPDX-License-Identifier: MIT */
/* The registry's divide (cv2.divide): gip_arith() with GIP_ARITH_DIVIDE. */
#include "arith.h"

static const gip_param decl[] = {
    GIP__ARITH_VALUE_PARAM,
    GIP__PARAM("scale", GIP_PARAM_DOUBLE, 0, -1e30, 1e30, 0, NULL, "1",
               "multiplies the source first"),
    GIP__PARAM("reverse", GIP_PARAM_BOOL, 0, 0, 1, 0, NULL, "0",
               "with value: the scalar is the left operand"),
};

static gip_status build(const gip_args *a, void *out)
{
    return gip__arith_build(a, out, GIP_ARITH_DIVIDE);
}

const gip_op gip__op_divide = {
    .name = "divide",
    .family = "point",
    .summary = "Divides by a second image or a scalar with a scale, as cv2.divide.",
    .doc = "dst = saturate((src * scale) / b) in single precision; with reverse=1 (value * scale) "
           "/ src (cv2.divide(scalar, image)). Integer images: a zero divisor gives 0 (with "
           "reverse, only for an integer value, as OpenCV); f32 gives IEEE results. The second "
           "image (src2) and a mask are optional inputs; where the mask is 0 "
           "the result is 0.",
    .cv_name = "cv2.divide",
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
