/* SPDX-License-Identifier: MIT */
/* The parameter block of map and stencil (expr_step.h). */
#define _POSIX_C_SOURCE 200809L
#include "ops/kernel/expr_step.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "kernel/expr.h"

/* Points the scalars at the block's own names. */
static void fix(gip__expr_step *s)
{
    for (int32_t i = 0; i < s->n; i++)
        s->scalars[i].name = s->names[i];
    s->sten.scalars = s->n ? s->scalars : NULL;
    s->sten.n_scalars = s->n;
}

gip_status gip__expr_step_build(const gip_args *a, gip__expr_step *s)
{
    const gip_op *op = gip_args_op(a);
    const char *e = gip_args_string(a, "expr");
    if (!*e)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: expr must not be empty", op->name);
    if (!(s->expr = strdup(e)))
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op->name);
    int32_t n = gip_args_scalar_count(a);
    if (n > GIP_EXPR_MAX_SCALARS)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: at most %d scalars", op->name,
                          GIP_EXPR_MAX_SCALARS);
    for (int32_t i = 0; i < n; i++) {
        double v;
        const char *name = gip_args_scalar(a, i, &v);
        snprintf(s->names[i], sizeof s->names[i], "%s", name);
        s->scalars[i].value = (float)v;
    }
    s->n = n;
    fix(s);
    return GIP_OK;
}

void gip__expr_step_release(void *params)
{
    gip__expr_step *s = params;
    free(s->expr);
    s->expr = NULL;
}

gip_status gip__expr_step_copy(void *dst, const void *src)
{
    gip__expr_step *d = dst;
    const gip__expr_step *s = src;
    *d = *s;
    d->expr = s->expr ? strdup(s->expr) : NULL;
    fix(d);
    if (s->expr && !d->expr)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "expression step: out of memory");
    return GIP_OK;
}

int32_t gip__expr_step_position(const void *params)
{
    return gip__expr_uses_position(((const gip__expr_step *)params)->expr);
}
