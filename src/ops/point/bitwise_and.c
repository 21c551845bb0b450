/* SPDX-License-Identifier: MIT */
/* The registry's bitwise_and (cv2.bitwise_and): gip_arith() with GIP_ARITH_AND. */
#include "arith.h"

GIP__ARITH_DECL(GIP_ARITH_AND)

const gip_op gip__op_bitwise_and = {
    .name = "bitwise_and",
    .summary = "Bitwise AND with a second image or a scalar, as cv2.bitwise_and.",
    .doc = "dst = src & b on the integer values; a scalar is first rounded and saturated to the "
           "dtype. Integer dtypes. The second image (src2) and a mask are optional inputs; where "
           "the mask is 0 "
           "the result is 0.",
    .cv_name = "cv2.bitwise_and",
    GIP__ARITH_ENTRY(GIP__BITWISE_DTYPES),
};
