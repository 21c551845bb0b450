/* SPDX-License-Identifier: MIT */
/* Private interface of normalize: the reduction (minimum, maximum, sum of |x|, sum of x^2 over
 * the pixels where the mask is not 0) on CUDA. */
#ifndef GIP_POINT_NORMALIZE_H
#define GIP_POINT_NORMALIZE_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gip__reduce {
    double min, max, l1, l2;
} gip__reduce;

/* Over every element of src (u8, u16, s16 or f32) of the pixels where mask (NULL: all) is not
 * 0; waits for the result. min > max when no pixel counts. */
gip_status gip__normalize_reduce_cuda(gip_context *ctx, const gip_image *src, const gip_image *mask,
                                      gip__reduce *out);

#ifdef __cplusplus
}
#endif
#endif
