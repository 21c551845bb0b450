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

/* The dtypes of the arithmetic: every image dtype; the bitwise operations leave out f32. */
#define GIP__ARITH_DTYPES                                                                          \
    (GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_S16) |                     \
     GIP_DTYPE_BIT(GIP_F32))
#define GIP__BITWISE_DTYPES                                                                        \
    (GIP_DTYPE_BIT(GIP_U8) | GIP_DTYPE_BIT(GIP_U16) | GIP_DTYPE_BIT(GIP_S16))

/* The parameters (value= alone) and build() of an arithmetic operation of kind `op`. */
#define GIP__ARITH_DECL(op)                                                                        \
    static const gip_param decl[] = {GIP__ARITH_VALUE_PARAM};                                      \
    static gip_status build(const gip_args *a, void *out)                                          \
    {                                                                                              \
        return gip__arith_build(a, out, (op));                                                     \
    }

/* What an arithmetic entry holds beside its name and words: its file's `decl` and `build`, the
 * dtypes it takes, and what they all share (point-wise, in place, src2 and mask inputs). */
#define GIP__ARITH_ENTRY(dtypes_)                                                                  \
    .family = "point", GIP__PARAMS(decl), .dtypes = (dtypes_), .channels = GIP__CHANNELS_134,      \
    .flags = GIP_OP_POINTWISE | GIP_OP_IN_PLACE, .params_size = sizeof(gip__arith_step),           \
    .build = build, .inputs = gip__arith_inputs, .ninputs = 2, .run_inputs = gip__arith_run

/* src2 (optional, src's shape and dtype) and mask (optional, u8 with one channel). */
extern const gip_input gip__arith_inputs[2];

/* Reads value= and, where the operation declares them, scale= and reverse=. */
gip_status gip__arith_build(const gip_args *a, gip__arith_step *s, gip_arith_op op);
/* run_inputs() of the arithmetic operations. */
gip_status gip__arith_run(gip_context *ctx, const gip_image *src, const gip_image *const *in,
                          gip_image *dst, const void *params);

#endif
