/* SPDX-License-Identifier: MIT */
/* The core's CUDA hooks in a build without CUDA: every device request says so. */
#include <stdio.h>

#include "internal.h"

static gip_status not_built(gip_context *ctx)
{
    return gip__error(ctx, GIP_ERR_NOT_BUILT, "gip was built without CUDA");
}

gip_status gip__cuda_probe(int32_t *count, char *reason, size_t reason_size)
{
    *count = 0;
    snprintf(reason, reason_size, "gip was built without CUDA");
    return GIP_OK;
}

gip_status gip__cuda_device_info(int32_t index, gip_device_info *info)
{
    (void)index;
    (void)info;
    return not_built(NULL);
}

gip_status gip__cuda_context_init(gip_context *ctx)
{
    return not_built(ctx);
}

void gip__cuda_context_fini(gip_context *ctx)
{
    (void)ctx;
}

gip_status gip__cuda_enter(gip_context *ctx)
{
    return not_built(ctx);
}

gip_status gip__cuda_sync(gip_context *ctx)
{
    return not_built(ctx);
}

gip_status gip__cuda_malloc(gip_context *ctx, size_t bytes, void **ptr)
{
    (void)bytes;
    (void)ptr;
    return not_built(ctx);
}

void gip__cuda_free(gip_context *ctx, void *ptr)
{
    (void)ctx;
    (void)ptr;
}

int64_t gip__cuda_memory_used(const gip_context *ctx)
{
    (void)ctx;
    return 0;
}

gip_status gip__cuda_malloc_pinned(gip_context *ctx, size_t bytes, void **ptr)
{
    (void)bytes;
    (void)ptr;
    return not_built(ctx);
}

void gip__cuda_free_pinned(void *ptr)
{
    (void)ptr;
}

void gip__cuda_pinned_trim(void) {}

int gip__cuda_is_pinned(const void *ptr)
{
    (void)ptr;
    return 0;
}

gip_status gip__cuda_copy2d(gip_context *ctx, void *dst, int64_t dpitch, gip_memory dst_mem,
                            const void *src, int64_t spitch, gip_memory src_mem, int64_t row_bytes,
                            int64_t rows)
{
    (void)dst, (void)dpitch, (void)dst_mem, (void)src, (void)spitch, (void)src_mem;
    (void)row_bytes, (void)rows;
    return not_built(ctx);
}

gip_status gip__cuda_memset2d(gip_context *ctx, void *dst, int64_t pitch, uint8_t value,
                              int64_t row_bytes, int64_t rows)
{
    (void)dst, (void)pitch, (void)value, (void)row_bytes, (void)rows;
    return not_built(ctx);
}

gip_status gip__cuda_fault_for_test(gip_context *ctx)
{
    return not_built(ctx);
}
