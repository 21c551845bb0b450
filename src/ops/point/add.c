/* SPDX-License-Identifier: MIT */
/* The registry's add (cv2.add): gip_arith() with GIP_ARITH_ADD. */
#include "arith.h"

GIP__ARITH_DECL(GIP_ARITH_ADD)

const gip_op gip__op_add = {
    .name = "add",
    .summary = "Adds a second image or a scalar, saturating, as cv2.add.",
    .doc = "dst = saturate(src + b), b = src2 or value; computed in single precision for a scalar "
           "(OpenCV 5), exactly for two integer images. The second image (src2) and a mask are "
           "optional inputs; where the mask is 0 "
           "the result is 0.",
    .cv_name = "cv2.add",
    GIP__ARITH_ENTRY(GIP__ARITH_DTYPES),
};
