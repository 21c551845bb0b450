/* SPDX-License-Identifier: MIT */
/* The registry's bitwise_xor (cv2.bitwise_xor): gip_arith() with GIP_ARITH_XOR. */
#include "arith.h"

GIP__ARITH_DECL(GIP_ARITH_XOR)

const gip_op gip__op_bitwise_xor = {
    .name = "bitwise_xor",
    .summary = "Bitwise XOR with a second image or a scalar, as cv2.bitwise_xor.",
    .doc = "dst = src ^ b on the integer values; a scalar is first rounded and saturated to the "
           "dtype. Integer dtypes. The second image (src2) and a mask are optional inputs; where "
           "the mask is 0 "
           "the result is 0.",
    .cv_name = "cv2.bitwise_xor",
    GIP__ARITH_ENTRY(GIP__BITWISE_DTYPES),
};
