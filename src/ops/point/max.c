/* SPDX-License-Identifier: MIT */
/* The registry's max (cv2.max): gip_arith() with GIP_ARITH_MAX. */
#include "arith.h"

GIP__ARITH_DECL(GIP_ARITH_MAX)

const gip_op gip__op_max = {
    .name = "max",
    .summary = "Element-wise maximum with a second image or a scalar, as cv2.max.",
    .doc = "dst = max(src, b); a scalar is first rounded and saturated to the dtype, as OpenCV. "
           "The second image (src2) and a mask are optional inputs; where the mask is 0 "
           "the result is 0.",
    .cv_name = "cv2.max",
    GIP__ARITH_ENTRY(GIP__ARITH_DTYPES),
};
