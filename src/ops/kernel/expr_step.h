/* SPDX-License-Identifier: MIT */
/* The parameter block map and stencil share: the expression, its named scalars, and the
 * stencil's radius and border. */
#ifndef GIP_OPS_EXPR_STEP_H
#define GIP_OPS_EXPR_STEP_H

#include "gip/kernel.h"
#include "gip/op.h"

typedef struct gip__expr_step {
    char *expr;
    int32_t n;
    gip_scalar scalars[GIP_EXPR_MAX_SCALARS];
    char names[GIP_EXPR_MAX_SCALARS][64];
    gip_stencil_params sten; /* scalars point into this block */
} gip__expr_step;

/* expr and the scalars from args (the stencil's radius and border are its own). */
gip_status gip__expr_step_build(const gip_args *args, gip__expr_step *s);
void gip__expr_step_release(void *params);
gip_status gip__expr_step_copy(void *dst, const void *src);
/* Whether the expression reads x, y, width or height. */
int32_t gip__expr_step_position(const void *params);

#endif
