/* SPDX-License-Identifier: MIT */
/* Private prototypes of mask, shared by its entry and its CUDA backend. */
#ifndef GIP_OPS_MASK_H
#define GIP_OPS_MASK_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst = mask != 0 ? src : fill, pixel by pixel, on device views (checked by the entry); `fill`
 * holds one pixel of dst's type (px bytes, at most 16). Queued on the context's stream. */
gip_status gip__mask_cuda(gip_context *ctx, const gip_image *src, const gip_image *mask,
                          gip_image *dst, const unsigned char *fill, size_t px);

#ifdef __cplusplus
}
#endif
#endif
