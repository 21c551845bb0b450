/* SPDX-License-Identifier: MIT */
/* Private pieces of the pipeline family: the step list, the LUT pass of fused point-wise runs,
 * and the bounded FIFO of the batch engine. */
#ifndef GIP_PIPELINE_INTERNAL_H
#define GIP_PIPELINE_INTERNAL_H

#include <stdbool.h>

#include "gip/pipeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the LUT pass: dst(x, y, c) = table[value * channels + c] ------------------------------ *
 * src u8; dst u8, u16, s16 or f32 (element size `esize`), same size and channels; table holds
 * 256 * channels elements of dst's dtype, in the images' memory. */
void gip__lut_apply_cpu(const gip_context *ctx, const gip_image *src, gip_image *dst,
                        const void *table, int32_t esize);
#ifdef GIP_HAVE_CUDA
gip_status gip__lut_apply_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                               const void *table, int32_t esize);
#endif

/* ---- a bounded FIFO of pointers (not synchronised: the batch engine holds its lock) -------- */
typedef struct gip__ring {
    void **items;
    int32_t cap, head, count;
} gip__ring;
/* GIP_OK or GIP_ERR_OUT_OF_MEMORY; cap >= 1. */
gip_status gip__ring_init(gip__ring *r, int32_t cap);
void gip__ring_fini(gip__ring *r);
/* false when full (nothing changes). */
bool gip__ring_push(gip__ring *r, void *item);
/* NULL when empty. */
void *gip__ring_pop(gip__ring *r);

#ifdef __cplusplus
}
#endif
#endif
