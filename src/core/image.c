/* SPDX-License-Identifier: MIT */
/* Image views: size arithmetic with overflow checks, validation, allocation and transfers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "internal.h"

size_t gip_dtype_size(gip_dtype dtype)
{
    switch (dtype) {
    case GIP_U8:
        return 1;
    case GIP_U16:
    case GIP_S16:
        return 2;
    case GIP_F32:
        return 4;
    case GIP_C32:
        return 8;
    default:
        return 0;
    }
}

const char *gip_dtype_name(gip_dtype dtype)
{
    switch (dtype) {
    case GIP_U8:
        return "u8";
    case GIP_U16:
        return "u16";
    case GIP_S16:
        return "s16";
    case GIP_F32:
        return "f32";
    case GIP_C32:
        return "c32";
    default:
        return "?";
    }
}

/* Multiplies two non-negative values; false on overflow of int64_t. */
static bool mul_ok(int64_t a, int64_t b, int64_t *out)
{
    if (a != 0 && b > INT64_MAX / a)
        return false;
    *out = a * b;
    return true;
}

static gip_status size_checked(gip_context *ctx, const char *what, int64_t width, int64_t height,
                               int32_t channels, gip_dtype dtype, int64_t *row_bytes,
                               int64_t *total_bytes)
{
    if (width < 1 || height < 1)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: size %lldx%lld is invalid: width and height must be >= 1", what,
                          (long long)width, (long long)height);
    if (width > GIP_MAX_DIM || height > GIP_MAX_DIM)
        return gip__error(ctx, GIP_ERR_TOO_LARGE,
                          "%s: size %lldx%lld is too large: each side must be <= %lld", what,
                          (long long)width, (long long)height, (long long)GIP_MAX_DIM);
    if (channels != 1 && channels != 3 && channels != 4)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: %d channels is invalid: 1, 3 or 4 are accepted", what,
                          (int)channels);
    size_t es = gip_dtype_size(dtype);
    if (es == 0)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: dtype %d is invalid: u8, u16, s16, f32 or c32 are accepted", what,
                          (int)dtype);
    int64_t row = 0, total = 0;
    if (!mul_ok(width, (int64_t)channels * (int64_t)es, &row) || !mul_ok(row, height, &total))
        return gip__error(ctx, GIP_ERR_TOO_LARGE, "%s: %lldx%lldx%d %s needs more than 2^63 bytes",
                          what, (long long)width, (long long)height, (int)channels,
                          gip_dtype_name(dtype));
    if (row_bytes)
        *row_bytes = row;
    if (total_bytes)
        *total_bytes = total;
    return GIP_OK;
}

gip_status gip_image_size(int64_t width, int64_t height, int32_t channels, gip_dtype dtype,
                          int64_t *row_bytes, int64_t *total_bytes)
{
    return size_checked(NULL, "gip_image_size", width, height, channels, dtype, row_bytes,
                        total_bytes);
}

static gip_status check_view(gip_context *ctx, const gip_image *img, const char *what)
{
    if (!img)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s is NULL", what);
    if (!img->data)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s has no data (NULL pointer)", what);
    int64_t row = 0, total = 0;
    gip_status st =
        size_checked(ctx, what, img->width, img->height, img->channels, img->dtype, &row, &total);
    if (st)
        return st;
    if (img->stride < row)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: stride %lld is smaller than a row (%lld bytes)", what,
                          (long long)img->stride, (long long)row);
    int64_t span;
    if (!mul_ok(img->stride, img->height - 1, &span) || span > INT64_MAX - row)
        return gip__error(ctx, GIP_ERR_TOO_LARGE, "%s: stride %lld times height overflows", what,
                          (long long)img->stride);
    /* Elements must be naturally aligned (c32 as floats): CUDA faults otherwise, and the CPU
     * paths read whole elements. */
    size_t align = img->dtype == GIP_C32 ? 4 : gip_dtype_size(img->dtype);
    if ((uintptr_t)img->data % align != 0 || (uint64_t)img->stride % align != 0)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT,
                          "%s: data pointer and stride (%lld) must be multiples of the %s element "
                          "alignment (%zu bytes)",
                          what, (long long)img->stride, gip_dtype_name(img->dtype), align);
    if (img->memory != GIP_MEM_HOST && img->memory != GIP_MEM_PINNED && img->memory != GIP_MEM_CUDA)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: memory kind %d is invalid", what,
                          (int)img->memory);
    if (img->memory == GIP_MEM_CUDA && img->device < 0)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: device %d is invalid", what,
                          (int)img->device);
    return GIP_OK;
}

gip_status gip_image_check(const gip_image *img, const char *what)
{
    return check_view(NULL, img, what ? what : "image");
}

gip_status gip_image_wrap(gip_image *img, void *data, int64_t width, int64_t height,
                          int32_t channels, gip_dtype dtype, int64_t stride, gip_memory memory,
                          int32_t device)
{
    if (!img)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_image_wrap: img is NULL");
    gip_image v = {data,  width,  height, channels,
                   dtype, stride, memory, memory == GIP_MEM_CUDA ? device : 0};
    if (stride == 0 && width > 0 && width <= GIP_MAX_DIM && channels > 0 && channels <= 4)
        v.stride = width * channels * (int64_t)gip_dtype_size(dtype);
    gip_status st = check_view(NULL, &v, "gip_image_wrap");
    if (st)
        return st;
    *img = v;
    return GIP_OK;
}

int gip_image_on_host(const gip_image *img)
{
    return img && img->memory != GIP_MEM_CUDA;
}

int64_t gip_image_row_bytes(const gip_image *img)
{
    return img->width * img->channels * (int64_t)gip_dtype_size(img->dtype);
}

void *gip_image_pixel(const gip_image *img, int64_t x, int64_t y)
{
    return (char *)img->data + y * img->stride +
           x * img->channels * (int64_t)gip_dtype_size(img->dtype);
}

gip_status gip_image_roi(const gip_image *img, int64_t x, int64_t y, int64_t w, int64_t h,
                         gip_image *roi)
{
    gip_status st = check_view(NULL, img, "gip_image_roi: img");
    if (st)
        return st;
    if (!roi)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "gip_image_roi: roi is NULL");
    if (x < 0 || y < 0 || w < 1 || h < 1 || x > img->width - w || y > img->height - h)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT,
                          "gip_image_roi: rectangle (%lld, %lld, %lld x %lld) is not inside the "
                          "%lld x %lld image",
                          (long long)x, (long long)y, (long long)w, (long long)h,
                          (long long)img->width, (long long)img->height);
    gip_image v = *img;
    v.data = gip_image_pixel(img, x, y);
    v.width = w;
    v.height = h;
    *roi = v;
    return GIP_OK;
}

int64_t gip__image_span(const gip_image *img)
{
    return img->stride * (img->height - 1) + gip_image_row_bytes(img);
}

bool gip__images_overlap(const gip_image *a, const gip_image *b)
{
    if (a->memory == GIP_MEM_CUDA) {
        if (b->memory != GIP_MEM_CUDA || a->device != b->device)
            return false;
    } else if (b->memory == GIP_MEM_CUDA) {
        return false;
    }
    const char *a0 = (const char *)a->data, *b0 = (const char *)b->data;
    return a0 < b0 + gip__image_span(b) && b0 < a0 + gip__image_span(a);
}

bool gip__images_same(const gip_image *a, const gip_image *b)
{
    return a->data == b->data && a->stride == b->stride && a->width == b->width &&
           a->height == b->height && a->channels == b->channels && a->dtype == b->dtype &&
           a->memory == b->memory && a->device == b->device;
}

gip_status gip__ctx_check(gip_context *ctx, const char *op)
{
    if (!ctx)
        return gip__error(NULL, GIP_ERR_INVALID_ARGUMENT, "%s: context is NULL", op);
    if (ctx->bad)
        return gip__error(ctx, GIP_ERR_BAD_STATE,
                          "%s: the context is unusable after an earlier device error; "
                          "destroy it and create a new one (earlier error: %s)",
                          op, ctx->bad_error[0] ? ctx->bad_error : "unknown");
    return GIP_OK;
}

gip_status gip__image_check_ctx(gip_context *ctx, const gip_image *img, const char *op,
                                const char *what)
{
    char label[160];
    snprintf(label, sizeof label, "%s: %s", op, what);
    gip_status st = check_view(ctx, img, label);
    if (st)
        return st;
    if (img->memory == GIP_MEM_CUDA) {
        if (ctx->backend != GIP_BACKEND_CUDA)
            return gip__error(ctx, GIP_ERR_NO_DEVICE,
                              "%s: %s is in CUDA device memory but the context runs on the CPU; "
                              "create a CUDA context or download the image first",
                              op, what);
        if (img->device != ctx->device)
            return gip__error(ctx, GIP_ERR_LOCATION_MISMATCH,
                              "%s: %s is on CUDA device %d but the context uses device %d", op,
                              what, (int)img->device, (int)ctx->device);
    }
    return GIP_OK;
}

/* The context, then src and dst, each valid and usable with the context. */
static gip_status check_ctx_src_dst(gip_context *ctx, const gip_image *src, const gip_image *dst,
                                    const char *op)
{
    gip_status st = gip__ctx_check(ctx, op);
    if (!st && !(st = gip__image_check_ctx(ctx, src, op, "src")))
        st = gip__image_check_ctx(ctx, dst, op, "dst");
    return st;
}

gip_status gip__check_pair(gip_context *ctx, const gip_image *src, const gip_image *dst,
                           const char *op, bool *on_device)
{
    gip_status st = check_ctx_src_dst(ctx, src, dst, op);
    if (st)
        return st;
    bool sd = src->memory == GIP_MEM_CUDA, dd = dst->memory == GIP_MEM_CUDA;
    if (sd != dd)
        return gip__error(ctx, GIP_ERR_LOCATION_MISMATCH,
                          "%s: src is in %s memory and dst in %s memory; both must be on the host "
                          "or both on the device (use gip_upload/gip_download to move data)",
                          op, sd ? "device" : "host", dd ? "device" : "host");
    if (on_device)
        *on_device = sd;
    if (sd)
        return gip__cuda_enter(ctx);
    return GIP_OK;
}

gip_status gip__check_unary(gip_context *ctx, const gip_image *src, const gip_image *dst,
                            const char *op, bool *on_device)
{
    gip_status st = gip__check_pair(ctx, src, dst, op, on_device);
    if (st)
        return st;
    if (src->width != dst->width || src->height != dst->height)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: src is %lldx%lld but dst is %lldx%lld; they must be equal", op,
                          (long long)src->width, (long long)src->height, (long long)dst->width,
                          (long long)dst->height);
    return GIP_OK;
}

gip_status gip__check_same_type(gip_context *ctx, const gip_image *src, const gip_image *dst,
                                const char *op)
{
    if (dst->dtype != src->dtype || dst->channels != src->channels)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: dst is %d-channel %s but src is %d-channel %s; they must be equal",
                          op, (int)dst->channels, gip_dtype_name(dst->dtype), (int)src->channels,
                          gip_dtype_name(src->dtype));
    return GIP_OK;
}

gip_status gip__check_same(gip_context *ctx, const gip_image *src, const gip_image *dst,
                           const char *op, bool *on_device)
{
    gip_status st = gip__check_unary(ctx, src, dst, op, on_device);
    return st ? st : gip__check_same_type(ctx, src, dst, op);
}

gip_status gip__check_dtype(gip_context *ctx, const gip_image *img, unsigned accepted,
                            const char *op, const char *what)
{
    if (img->dtype > 0 && img->dtype < 32 && (accepted & GIP__DT(img->dtype)))
        return GIP_OK;
    char list[64] = "";
    for (int d = GIP_U8; d <= GIP_C32; d++)
        if (accepted & GIP__DT(d)) {
            size_t n = strlen(list);
            snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "",
                     gip_dtype_name((gip_dtype)d));
        }
    return gip__error(ctx, GIP_ERR_UNSUPPORTED, "%s: %s dtype %s is not supported: %s are accepted",
                      op, what, gip_dtype_name(img->dtype), list);
}

/* ---- allocation ----------------------------------------------------------------------------- */

/* Physical memory of the machine in bytes, or INT64_MAX when unknown. A host request above it can
 * never succeed; refusing it up front gives a clear message instead of overcommit surprises. */
static int64_t physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0 || pages > INT64_MAX / page)
        return INT64_MAX;
    return (int64_t)pages * page;
}

static int64_t round_up(int64_t v, int64_t to)
{
    return (v + to - 1) / to * to;
}

/* Host image memory, 64-byte aligned. From 4 MiB on (numpy's threshold for the same hint), whole
 * 2 MiB pages on a 2 MiB boundary, with transparent huge pages asked for: where Linux gives them on
 * request only (the usual "madvise" setting) gip's images got 4 KiB pages while numpy's arrays got
 * huge ones. Memory-bound filters gain (on two threads the 3x3 box of u8c3 images 1.12x, Sobel
 * to s16 and invert of large images 1.07-1.18x), the others do not move (Gaussian, filter2D).
 * The hint changes nothing else; refused, the memory is as before. */
static void *host_alloc(int64_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const int64_t huge = (int64_t)2 << 20;
    if (bytes >= ((int64_t)4 << 20)) {
        const size_t size = (size_t)round_up(bytes, huge);
        void *p = aligned_alloc((size_t)huge, size);
        if (p)
            (void)madvise(p, size, MADV_HUGEPAGE);
        return p;
    }
#endif
    return aligned_alloc(64, (size_t)round_up(bytes, 64));
}

gip_status gip_image_alloc(gip_context *ctx, gip_image *img, int64_t width, int64_t height,
                           int32_t channels, gip_dtype dtype, gip_memory memory, uint32_t flags)
{
    static const char op[] = "gip_image_alloc";
    if (!img)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: img is NULL", op);
    if (flags & ~GIP_ALLOC_TIGHT)
        return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: unknown flags 0x%x", op,
                          (unsigned)flags);
    int64_t row = 0, total = 0;
    gip_status st = size_checked(ctx, op, width, height, channels, dtype, &row, &total);
    if (st)
        return st;
    if (memory != GIP_MEM_HOST) {
        if (memory != GIP_MEM_PINNED && memory != GIP_MEM_CUDA)
            return gip__error(ctx, GIP_ERR_INVALID_ARGUMENT, "%s: memory kind %d is invalid", op,
                              (int)memory);
        if ((st = gip__ctx_check(ctx, op)))
            return st;
        if (ctx->backend != GIP_BACKEND_CUDA)
            return gip__error(ctx, GIP_ERR_NO_DEVICE,
                              "%s: %s memory needs a CUDA context; this one runs on the CPU", op,
                              memory == GIP_MEM_CUDA ? "device" : "pinned host");
    }
    int64_t align = (flags & GIP_ALLOC_TIGHT) ? 1 : (memory == GIP_MEM_CUDA ? 256 : 64);
    int64_t stride = round_up(row, align);
    if (stride > INT64_MAX / height)
        return gip__error(ctx, GIP_ERR_TOO_LARGE, "%s: padded size overflows", op);
    int64_t bytes = stride * height;
    if ((uint64_t)bytes > (uint64_t)SIZE_MAX)
        return gip__error(ctx, GIP_ERR_TOO_LARGE, "%s: %lld bytes exceed the address space", op,
                          (long long)bytes);
    if (memory != GIP_MEM_CUDA && bytes > physical_memory())
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY,
                          "%s: %lldx%lldx%d %s needs %lld bytes, more than the machine's %lld "
                          "bytes of memory",
                          op, (long long)width, (long long)height, (int)channels,
                          gip_dtype_name(dtype), (long long)bytes, (long long)physical_memory());
    void *p = NULL;
    switch (memory) {
    case GIP_MEM_HOST:
        p = host_alloc(bytes);
        if (!p)
            return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY,
                              "%s: out of host memory allocating %lld bytes (%lldx%lldx%d %s)", op,
                              (long long)bytes, (long long)width, (long long)height, (int)channels,
                              gip_dtype_name(dtype));
        break;
    case GIP_MEM_PINNED:
        if ((st = gip__cuda_malloc_pinned(ctx, (size_t)bytes, &p)))
            return st;
        break;
    case GIP_MEM_CUDA:
        if ((st = gip__cuda_malloc(ctx, (size_t)bytes, &p)))
            return st;
        break;
    }
    gip_image v = {p,     width,  height, channels,
                   dtype, stride, memory, memory == GIP_MEM_CUDA ? ctx->device : 0};
    *img = v;
    return GIP_OK;
}

void gip_image_free(gip_context *ctx, gip_image *img)
{
    if (!img || !img->data)
        return;
    switch (img->memory) {
    case GIP_MEM_HOST:
        free(img->data);
        break;
    case GIP_MEM_PINNED:
        gip__cuda_free_pinned(img->data);
        break;
    case GIP_MEM_CUDA:
        gip__cuda_free(ctx, img->data);
        break;
    }
    memset(img, 0, sizeof *img);
}

/* ---- transfers ------------------------------------------------------------------------------ */

static gip_status copy_checked(gip_context *ctx, const gip_image *src, gip_image *dst,
                               const char *op)
{
    gip_status st = check_ctx_src_dst(ctx, src, dst, op);
    if (st)
        return st;
    if (src->width != dst->width || src->height != dst->height || src->channels != dst->channels ||
        src->dtype != dst->dtype)
        return gip__error(ctx, GIP_ERR_SHAPE_MISMATCH,
                          "%s: src is %lldx%lldx%d %s but dst is %lldx%lldx%d %s; they must be "
                          "equal (use gip_convert to change dtype)",
                          op, (long long)src->width, (long long)src->height, (int)src->channels,
                          gip_dtype_name(src->dtype), (long long)dst->width, (long long)dst->height,
                          (int)dst->channels, gip_dtype_name(dst->dtype));
    if (gip__images_same(src, dst))
        return GIP_OK;
    if (gip__images_overlap(src, dst))
        return gip__error(ctx, GIP_ERR_ALIASING, "%s: src and dst overlap", op);
    int64_t row = gip_image_row_bytes(src);
    if (src->memory != GIP_MEM_CUDA && dst->memory != GIP_MEM_CUDA) {
        if (src->stride == row && dst->stride == row) {
            memcpy(dst->data, src->data, (size_t)(row * src->height));
        } else {
            for (int64_t y = 0; y < src->height; y++)
                memcpy((char *)dst->data + y * dst->stride,
                       (const char *)src->data + y * src->stride, (size_t)row);
        }
        return GIP_OK;
    }
    if ((st = gip__cuda_enter(ctx)))
        return st;
    return gip__cuda_copy2d(ctx, dst->data, dst->stride, dst->memory, src->data, src->stride,
                            src->memory, row, src->height);
}

gip_status gip_copy(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    return copy_checked(ctx, src, dst, "gip_copy");
}

gip_status gip_upload(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    static const char op[] = "gip_upload";
    if (src && dst && (src->memory == GIP_MEM_CUDA || dst->memory != GIP_MEM_CUDA))
        return gip__error(ctx, GIP_ERR_LOCATION_MISMATCH,
                          "%s: src must be in host memory and dst in device memory", op);
    return copy_checked(ctx, src, dst, op);
}

gip_status gip_download(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    static const char op[] = "gip_download";
    if (src && dst && (src->memory != GIP_MEM_CUDA || dst->memory == GIP_MEM_CUDA))
        return gip__error(ctx, GIP_ERR_LOCATION_MISMATCH,
                          "%s: src must be in device memory and dst in host memory", op);
    return copy_checked(ctx, src, dst, op);
}

gip_status gip_image_fill_bytes(gip_context *ctx, gip_image *img, uint8_t value)
{
    static const char op[] = "gip_image_fill_bytes";
    gip_status st = gip__ctx_check(ctx, op);
    if (st || (st = gip__image_check_ctx(ctx, img, op, "img")))
        return st;
    int64_t row = gip_image_row_bytes(img);
    if (img->memory != GIP_MEM_CUDA) {
        for (int64_t y = 0; y < img->height; y++)
            memset((char *)img->data + y * img->stride, value, (size_t)row);
        return GIP_OK;
    }
    if ((st = gip__cuda_enter(ctx)))
        return st;
    return gip__cuda_memset2d(ctx, img->data, img->stride, value, row, img->height);
}
