/* SPDX-License-Identifier: MIT */
/* Private prototypes shared by the interop entry (interop.c) and its CUDA backend. */
#ifndef GIP_CORE_INTEROP_H
#define GIP_CORE_INTEROP_H

#include "gip/interop.h"
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Event record on `from`, wait on `to` (either may be the context's stream). */
gip_status gip__cuda_stream_order(gip_context *ctx, void *from, void *to, const char *op);
gip_status gip__cuda_pointer_location(const void *ptr, gip_memory *memory, int32_t *device);
/* The copy of gip_copy_strided() on device views, after the entry checked everything. */
gip_status gip__copy_strided_cuda(gip_context *ctx, const gip_strided *src, const gip_strided *dst,
                                  size_t unit, int64_t units);

#ifdef __cplusplus
}
#endif
#endif
