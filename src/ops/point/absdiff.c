/* SPDX-License-Identifier: MIT */
/* The registry's absdiff (cv2.absdiff): gip_arith() with GIP_ARITH_ABSDIFF. */
#include "arith.h"

GIP__ARITH_DECL(GIP_ARITH_ABSDIFF)

const gip_op gip__op_absdiff = {
    .name = "absdiff",
    .summary = "Absolute difference with a second image or a scalar, as cv2.absdiff.",
    .doc = "dst = saturate(|src - b|). The second image (src2) and a mask are optional inputs; "
           "where the mask is 0 "
           "the result is 0.",
    .cv_name = "cv2.absdiff",
    GIP__ARITH_ENTRY(GIP__ARITH_DTYPES),
};
