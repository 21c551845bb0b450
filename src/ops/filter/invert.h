/* SPDX-License-Identifier: MIT */
/* Private prototypes of gip_invert shared by its entry and its two backends. */
#ifndef GIP_FILTER_INVERT_H
#define GIP_FILTER_INVERT_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst = max - src on host views (checked by the entry; dst may equal src). `max` is used for f32
 * only: u8 and u16 use 255 and 65535. */
gip_status gip__invert_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, float max);
/* The same on device views, queued on the context's stream. */
gip_status gip__invert_cuda(gip_context *ctx, const gip_image *src, gip_image *dst, float max);

#ifdef __cplusplus
}
#endif
#endif
