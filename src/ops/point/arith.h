/* SPDX-License-Identifier: MIT */
/* What the registry entries of the element-wise arithmetic share (add.c, subtract.c, ...): the
 * step, its inputs (src2, mask) and its build and run. */
#ifndef GIP_POINT_ARITH_H
#define GIP_POINT_ARITH_H

#include "gip/point.h"
#include "registry/registry.h"

/* value= of an arithmetic operation (one number for every channel, or one per channel). */
#define GIP__ARITH_VALUE_PARAM                                                                     \
    GIP__PARAM("value", GIP_PARAM_LIST, GIP_PARAM_POSITIONAL, -3.4e38, 3.4e38, 4, NULL, "0",       \
               "the scalar operand when src2 is not given: one number for every channel, or one "  \
               "per channel")

typedef struct gip__arith_step {
    int32_t op;
    double value[4];
    int32_t nvalue, value_set;
    int32_t scaled;
    double scale;
    int32_t reverse;
} gip__arith_step;

/* src2 (optional, src's shape and dtype) and mask (optional, u8 with one channel). */
extern const gip_input gip__arith_inputs[2];

/* Reads value= and, where the operation declares them, scale= and reverse=. */
gip_status gip__arith_build(const gip_args *a, gip__arith_step *s, gip_arith_op op);
/* run_inputs() of the arithmetic operations. */
gip_status gip__arith_run(gip_context *ctx, const gip_image *src, const gip_image *const *in,
                          gip_image *dst, const void *params);

#endif
