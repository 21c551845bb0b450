/* SPDX-License-Identifier: MIT */
/* Private prototypes of median, shared by its entry and its CUDA backend. */
#ifndef GIP_OPS_MEDIAN_H
#define GIP_OPS_MEDIAN_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst = the median of each ksize x ksize window (ksize 3 or 5 any dtype, 7..255 u8) with a
 * replicated border, on device views checked by the entry; queued on the context's stream. */
gip_status gip__median_cuda(gip_context *ctx, const gip_image *src, gip_image *dst, int32_t ksize);

#ifdef __cplusplus
}
#endif
#endif
