/* SPDX-License-Identifier: MIT */
/* Step functions that several operations' registry descriptors share: the build of an operation
 * without parameters, a fixed replicated border, and the copy of the coefficients a step owns. */
#ifndef GIP_OPS_OP_STEP_H
#define GIP_OPS_OP_STEP_H

#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "registry/registry.h"

/* The build of an operation that takes no parameters: its step is empty. */
static inline gip_status gip__step_build_none(const gip_args *a, void *out)
{
    (void)a;
    (void)out;
    return GIP_OK;
}

/* The border of an operation that always replicates its edge pixels, whatever its parameters
 * (as cv2.medianBlur and cv2.adaptiveThreshold do). */
static inline int32_t gip__step_border_replicate(const void *params)
{
    (void)params;
    return GIP_BORDER_REPLICATE;
}

/* For a step's copy: *out = a heap copy of the n floats at src (a kernel the step owns and its
 * release frees), or NULL when src is NULL. GIP_ERR_OUT_OF_MEMORY, naming op, with *out NULL when
 * memory runs out. */
static inline gip_status gip__step_copy_floats(const float *src, size_t n, const char *op,
                                               const float **out)
{
    *out = NULL;
    if (!src)
        return GIP_OK;
    float *k = malloc(n * sizeof *k);
    if (!k)
        return gip__error(NULL, GIP_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    memcpy(k, src, n * sizeof *k);
    *out = k;
    return GIP_OK;
}

#endif
