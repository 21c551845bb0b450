/* SPDX-License-Identifier: MIT */
/* The registry's min (cv2.min): gip_arith() with GIP_ARITH_MIN. */
#include "arith.h"

GIP__ARITH_DECL(GIP_ARITH_MIN)

const gip_op gip__op_min = {
    .name = "min",
    .summary = "Element-wise minimum with a second image or a scalar, as cv2.min.",
    .doc = "dst = min(src, b); a scalar is first rounded and saturated to the dtype, as OpenCV. "
           "The second image (src2) and a mask are optional inputs; where the mask is 0 "
           "the result is 0.",
    .cv_name = "cv2.min",
    GIP__ARITH_ENTRY(GIP__ARITH_DTYPES),
};
