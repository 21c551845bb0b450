/* SPDX-License-Identifier: MIT */
/* Private pieces of the pipeline family: the step list, the LUT pass of fused point-wise runs,
 * the bounded FIFO of the batch engine and the crash-safe output writer. */
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

/* ---- output files -------------------------------------------------------------------------- *
 * Writes `size` bytes as `path` so that `path` appears only complete: an unnamed O_TMPFILE in the
 * folder, written and fsync'd, then linked to `path` (refused with *existed = true when path
 * exists and !overwrite; replaced through a named temporary + rename when overwrite). Without
 * O_TMPFILE support, the named temporary of gip_image_save(). GIP_ERR_IO with the reason. */
gip_status gip__write_output(const char *path, const void *data, size_t size, bool overwrite,
                             bool *existed);

#ifdef __cplusplus
}
#endif
#endif
