/* SPDX-License-Identifier: MIT */
/* Private prototypes of flip, shared by its entry and its CUDA backend. */
#ifndef GIP_OPS_FLIP_H
#define GIP_OPS_FLIP_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst(x, y) = src(fx ? w-1-x : x, fy ? h-1-y : y) on device views (checked by the entry),
 * queued on the context's stream. */
gip_status gip__flip_cuda(gip_context *ctx, const gip_image *src, gip_image *dst, int fx, int fy);

#ifdef __cplusplus
}
#endif
#endif
