/* SPDX-License-Identifier: MIT */
/* The registry's bitwise_or (cv2.bitwise_or): gip_arith() with GIP_ARITH_OR. */
#include "arith.h"

GIP__ARITH_DECL(GIP_ARITH_OR)

const gip_op gip__op_bitwise_or = {
    .name = "bitwise_or",
    .summary = "Bitwise OR with a second image or a scalar, as cv2.bitwise_or.",
    .doc = "dst = src | b on the integer values; a scalar is first rounded and saturated to the "
           "dtype. Integer dtypes. The second image (src2) and a mask are optional inputs; where "
           "the mask is 0 "
           "the result is 0.",
    .cv_name = "cv2.bitwise_or",
    GIP__ARITH_ENTRY(GIP__BITWISE_DTYPES),
};
