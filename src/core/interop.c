/* SPDX-License-Identifier: MIT */
/* Interop entries: stream ordering with foreign CUDA streams, pointer location, strided copies. */
#include <string.h>

#include "interop.h"

static gip_status stream_check(gip_context *ctx, const char *op)
{
    gip_status st = gip__ctx_check(ctx, op);
    if (st)
        return st;
    if (ctx->backend != GIP_BACKEND_CUDA)
        return gip__error(ctx, GIP_ERR_NO_DEVICE,
                          "%s: the context runs on the CPU; stream ordering needs a CUDA context",
                          op);
    return GIP_OK;
}

gip_status gip_context_wait_stream(gip_context *ctx, void *stream)
{
    gip_status st = stream_check(ctx, "gip_context_wait_stream");
    if (st)
        return st;
#ifdef GIP_HAVE_CUDA
    return gip__cuda_stream_order(ctx, stream, ctx->stream, "gip_context_wait_stream");
#else
    return gip__error(ctx, GIP_ERR_NOT_BUILT, "gip_context_wait_stream: built without CUDA");
#endif
}

gip_status gip_context_signal_stream(gip_context *ctx, void *stream)
{
    gip_status st = stream_check(ctx, "gip_context_signal_stream");
    if (st)
        return st;
#ifdef GIP_HAVE_CUDA
    return gip__cuda_stream_order(ctx, ctx->stream, stream, "gip_context_signal_stream");
#else
    return gip__error(ctx, GIP_ERR_NOT_BUILT, "gip_context_signal_stream: built without CUDA");
#endif
}

gip_status gip_pointer_location(const void *ptr, gip_memory *memory, int32_t *device)
{
    if (!memory || !device)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "gip_pointer_location: memory and device must not be NULL");
    *memory = GIP_MEM_HOST;
    *device = 0;
#ifdef GIP_HAVE_CUDA
    if (ptr)
        return gip__cuda_pointer_location(ptr, memory, device);
#endif
    return GIP_OK;
}

/* Lowest and one-past-highest byte a strided view touches. */
static void strided_range(const gip_strided *v, size_t unit_bytes, intptr_t *lo, intptr_t *hi)
{
    intptr_t a = (intptr_t)v->data, b = (intptr_t)v->data;
    for (int i = 0; i < 3; i++) {
        intptr_t ext = (intptr_t)(v->shape[i] - 1) * (intptr_t)v->strides[i];
        if (ext < 0)
            a += ext;
        else
            b += ext;
    }
    *lo = a;
    *hi = b + (intptr_t)unit_bytes;
}

static gip_status check_strided(gip_context *ctx, const gip_strided *v, const char *what,
                                int is_dst)
{
    const char *op = "gip_copy_strided";
    if (!v)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op, what);
    if (!v->data)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: %s->data is NULL", op, what);
    size_t size = gip_dtype_size(v->dtype);
    if (!size)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: %s has an invalid dtype %d (u8, u16, s16, f32, c32 accepted)", op,
                          what, (int)v->dtype);
    if (v->memory != GIP_MEM_HOST && v->memory != GIP_MEM_PINNED && v->memory != GIP_MEM_CUDA)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: %s has an invalid memory kind %d", op,
                          what, (int)v->memory);
    int64_t align = v->dtype == GIP_C32 ? 4 : (int64_t)size;
    if ((uintptr_t)v->data % (uintptr_t)align)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: %s->data is not aligned to %lld bytes", op, what, (long long)align);
    int64_t n = 1;
    for (int i = 0; i < 3; i++) {
        if (v->shape[i] < 1 || v->shape[i] > GIP_MAX_DIM)
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: %s->shape[%d] = %lld must be in 1..2^31-1", op, what, i,
                              (long long)v->shape[i]);
        if (v->strides[i] % align)
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: %s->strides[%d] = %lld is not a multiple of %lld bytes", op,
                              what, i, (long long)v->strides[i], (long long)align);
        if (v->strides[i] > ((int64_t)1 << 40) || v->strides[i] < -((int64_t)1 << 40))
            return gip__error(ctx, GIP_ERR_TOO_LARGE, "%s: %s->strides[%d] is too large", op, what,
                              i);
        if (is_dst && v->strides[i] == 0 && v->shape[i] > 1)
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                              "%s: dst->strides[%d] is 0 along an axis of %lld elements", op, i,
                              (long long)v->shape[i]);
        if (n > INT64_MAX / v->shape[i])
            return gip__error(ctx, GIP_ERR_TOO_LARGE, "%s: %s has too many elements", op, what);
        n *= v->shape[i];
    }
    return GIP_OK;
}

struct copy_job {
    const gip_strided *src, *dst;
    size_t unit;
};

/* Copies rows [begin, end) of the view pair, element by element (unit bytes each). */
static void copy_rows(void *arg, int64_t begin, int64_t end)
{
    const struct copy_job *j = arg;
    const gip_strided *s = j->src, *d = j->dst;
    for (int64_t y = begin; y < end; y++) {
        const char *sr = (const char *)s->data + y * s->strides[0];
        char *dr = (char *)d->data + y * d->strides[0];
        for (int64_t x = 0; x < s->shape[1]; x++) {
            const char *sp = sr + x * s->strides[1];
            char *dp = dr + x * d->strides[1];
            for (int64_t c = 0; c < s->shape[2]; c++)
                memcpy(dp + c * d->strides[2], sp + c * s->strides[2], j->unit);
        }
    }
}

gip_status gip_copy_strided(gip_context *ctx, const gip_strided *src, const gip_strided *dst)
{
    const char *op = "gip_copy_strided";
    gip_status st = gip__ctx_check(ctx, op);
    if (st || (st = check_strided(ctx, src, "src", 0)) || (st = check_strided(ctx, dst, "dst", 1)))
        return st;
    if (src->dtype != dst->dtype)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH, "%s: src is %s but dst is %s", op,
                          gip_dtype_name(src->dtype), gip_dtype_name(dst->dtype));
    for (int i = 0; i < 3; i++)
        if (src->shape[i] != dst->shape[i])
            return gip__error(
                ctx, GIP_ERR_SHAPE_MISMATCH,
                "%s: src shape (%lld, %lld, %lld) differs from dst (%lld, %lld, %lld)", op,
                (long long)src->shape[0], (long long)src->shape[1], (long long)src->shape[2],
                (long long)dst->shape[0], (long long)dst->shape[1], (long long)dst->shape[2]);
    int src_dev = src->memory == GIP_MEM_CUDA, dst_dev = dst->memory == GIP_MEM_CUDA;
    if (src_dev != dst_dev)
        return gip__error(ctx, GIP_ERR_LOCATION_MISMATCH,
                          "%s: src is in %s memory but dst in %s memory; gip_upload/gip_download "
                          "move images between them",
                          op, src_dev ? "device" : "host", dst_dev ? "device" : "host");
    if (src_dev) {
        if (ctx->backend != GIP_BACKEND_CUDA)
            return gip__error(ctx, GIP_ERR_NO_DEVICE,
                              "%s: device views need a CUDA context; this one runs on the CPU", op);
        if (src->device != ctx->device || dst->device != ctx->device)
            return gip__error(ctx, GIP_ERR_LOCATION_MISMATCH,
                              "%s: views on devices %d and %d, the context uses device %d", op,
                              (int)src->device, (int)dst->device, (int)ctx->device);
    }
    size_t size = gip_dtype_size(src->dtype);
    intptr_t slo, shi, dlo, dhi;
    strided_range(src, size, &slo, &shi);
    strided_range(dst, size, &dlo, &dhi);
    if (slo < dhi && dlo < shi)
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: the byte ranges of src and dst intersect",
                          op);
    if (src_dev) {
#ifdef GIP_HAVE_CUDA
        return gip__copy_strided_cuda(ctx, src, dst, size,
                                      src->shape[0] * src->shape[1] * src->shape[2]);
#else
        return gip__error(ctx, GIP_ERR_NOT_BUILT, "%s: built without CUDA", op);
#endif
    }
    struct copy_job job = {src, dst, size};
    gip__parallel_for(ctx, src->shape[0], 16, copy_rows, &job);
    return GIP_OK;
}
