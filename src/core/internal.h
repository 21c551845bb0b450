/* SPDX-License-Identifier: MIT */
/* Private core of libgip: the context structure, error raising, argument checks shared by every
 * operation, the CPU parallel-for and the CUDA hooks of the core. */
#ifndef GIP_CORE_INTERNAL_H
#define GIP_CORE_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>

#include "gip/core.h"
#include "saturate.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GIP__MSG_SIZE 1024
/* Release hooks one context holds at most (one per cache that keeps per-context state). */
#define GIP__RELEASE_HOOKS 8

/* What a cache outside core frees for a context that is being destroyed. */
typedef void (*gip__release_fn)(gip_context *ctx);

struct gip_context {
    gip_backend backend; /* CPU or CUDA, never AUTO */
    int32_t device;      /* CUDA ordinal, -1 on CPU */
    int32_t threads;     /* CPU threads, >= 1 */
    void *stream;        /* cudaStream_t owned by the context, NULL on CPU */
    void *pool;          /* cudaMemPool_t of the context's device allocations; NULL on CPU and on
                            devices without memory pools (then plain cudaMalloc) */
    int64_t device_memory_limit; /* bytes the pool may hold in use at once; 0 = no limit */
    bool bad;                    /* a sticky device error happened */
    gip__release_fn release[GIP__RELEASE_HOOKS]; /* gip__context_on_release(), in order */
    int32_t nrelease;
    char describe[384];
    char error[GIP__MSG_SIZE];
    char bad_error[GIP__MSG_SIZE]; /* the sticky error's message, quoted by later refusals */
};

/* Raises an error: formats the message into the calling thread's buffer and, when ctx is not NULL,
 * into the context's. Returns `status` so that callers write `return gip__error(...)`. */
gip_status gip__error(gip_context *ctx, gip_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
gip_status gip__verror(gip_context *ctx, gip_status status, const char *fmt, va_list ap);

/* Registers fn to run when ctx is destroyed, before its CUDA stream goes: a cache that keeps
 * plans or buffers per context (the FFT's) calls it when it first keeps something for ctx, and
 * core knows nothing else of it. Registering the same fn again for ctx does nothing; hooks run in
 * the reverse order of registration. Thread-safe. GIP_ERR_OUT_OF_MEMORY (with a message) when ctx
 * already holds GIP__RELEASE_HOOKS other hooks; ctx NULL does nothing. */
gip_status gip__context_on_release(gip_context *ctx, gip__release_fn fn);

/* GIP_ERR_INVALID_ARGUMENT for a NULL context, GIP_ERR_BAD_STATE for a poisoned one. `op` names
 * the public function for the message. */
gip_status gip__ctx_check(gip_context *ctx, const char *op);

/* Checks that `img` is a well-formed view usable on `ctx` (device views need a CUDA context on the
 * same device). `what` names the argument ("src") and `op` the function. */
gip_status gip__image_check_ctx(gip_context *ctx, const gip_image *img, const char *op,
                                const char *what);

/* Checks a unary operation's arguments: context usable, both views well formed, same location
 * (both host, or both on the context's device), same width and height. Channels and dtypes are the
 * operation's business. Sets *on_device. */
gip_status gip__check_unary(gip_context *ctx, const gip_image *src, const gip_image *dst,
                            const char *op, bool *on_device);

/* GIP_ERR_SHAPE_MISMATCH, naming both, unless dst has src's dtype and channel count. */
gip_status gip__check_same_type(gip_context *ctx, const gip_image *src, const gip_image *dst,
                                const char *op);

/* gip__check_unary() and equal dtypes and channel counts: an operation whose dst has src's type
 * (flip, invert, mask, fftshift). */
gip_status gip__check_same(gip_context *ctx, const gip_image *src, const gip_image *dst,
                           const char *op, bool *on_device);

/* Checks a pair of views for an operation whose output size may differ from its input's (FFT
 * half spectra, Conv2d): context usable, both views well formed, same location. Sets *on_device
 * and makes the context's device current for device views. gip__check_unary() adds equal sizes. */
gip_status gip__check_pair(gip_context *ctx, const gip_image *src, const gip_image *dst,
                           const char *op, bool *on_device);

/* The set of dtypes an operation accepts, as bits: GIP__DT(GIP_U8) | GIP__DT(GIP_F32) ... */
#define GIP__DT(dtype) (1u << (unsigned)(dtype))
/* The image dtypes of most operations: u8, u16, f32. */
#define GIP__DT_IMAGE (GIP__DT(GIP_U8) | GIP__DT(GIP_U16) | GIP__DT(GIP_F32))
/* Every real dtype: the results a filter may be asked for (cv2's ddepth). */
#define GIP__DT_DEPTHS (GIP__DT_IMAGE | GIP__DT(GIP_S16))

/* GIP_ERR_UNSUPPORTED with a message listing the accepted dtypes when img's dtype is not among
 * `accepted`. `what` names the argument ("src"). */
gip_status gip__check_dtype(gip_context *ctx, const gip_image *img, unsigned accepted,
                            const char *op, const char *what);

/* A constant border's value as a source of dtype `dt` holds it: rounded and saturated for u8 and
 * u16 (OpenCV saturate_casts the scalar to the image type), as given otherwise. */
static inline float gip__border_value_as(gip_dtype dt, float v)
{
    if (dt == GIP_U8)
        return (float)gip__sat_u8_f32(v);
    if (dt == GIP_U16)
        return (float)gip__sat_u16_f32(v);
    return v;
}

/* Non-zero when the byte ranges spanned by the two views overlap. */
bool gip__images_overlap(const gip_image *a, const gip_image *b);

/* Non-zero when both views describe exactly the same pixels (same data, stride, shape): the
 * in-place case that point-wise operations allow. */
bool gip__images_same(const gip_image *a, const gip_image *b);

/* Number of bytes a view spans: stride * (height - 1) + row bytes. */
int64_t gip__image_span(const gip_image *img);

/* CPU destinations spanning at least this many bytes (half a large L3) are written with
 * streaming stores by the operations that have them: they would not stay in the caches, and
 * streaming saves reading each line before writing it. */
#define GIP__STREAM_BYTES ((int64_t)16 << 20)

/* Runs fn(arg, begin, end) over [0, n) split into contiguous chunks on the context's CPU threads
 * (gip's worker pool, core/parallel.c). Operations never create threads themselves; this is the
 * one place that does. `grain` is the smallest chunk worth a thread (rows, usually 1..16). ctx may
 * be NULL (default threads). */
typedef void (*gip__range_fn)(void *arg, int64_t begin, int64_t end);
void gip__parallel_for(const gip_context *ctx, int64_t n, int64_t grain, gip__range_fn fn,
                       void *arg);
/* How many jobs gip__parallel_for has handed to the worker pool in this process (the rest ran on
 * their calling thread): tests check that small jobs do not wake the pool. */
uint64_t gip__parallel_pool_jobs(void);

/* GIP_MAX_MEMORY as set in the environment (NULL when unset), for messages that say where a
 * limit came from. It is read at each call, as gip_default_max_memory() reads it: a documented
 * option that programs (the CLI's --max-memory) set while they run. */
const char *gip__max_memory_env(void);

/* Default CPU thread count (OpenMP's: OMP_NUM_THREADS where it is set, else the core count). */
int32_t gip__default_threads(void);

/* The cores this process may run on (the batch engine's default worker count). */
int32_t gip__core_count(void);

/* ---- CUDA hooks of the core; defined in cuda_core.cu, or in cuda_none.c without CUDA. -------- */
/* Counts devices; on zero writes why into reason. */
gip_status gip__cuda_probe(int32_t *count, char *reason, size_t reason_size);
gip_status gip__cuda_device_info(int32_t index, gip_device_info *info);
/* Makes the context's device current on this thread, creates its stream, fills describe. */
gip_status gip__cuda_context_init(gip_context *ctx);
void gip__cuda_context_fini(gip_context *ctx);
/* Makes the context's device current on this thread (cheap; call at each CUDA entry). */
gip_status gip__cuda_enter(gip_context *ctx);
gip_status gip__cuda_sync(gip_context *ctx);
/* Device memory from the context's stream-ordered pool: ready at once for work on the context's
 * stream (other streams must wait for it); the context's device memory limit applies. Freed in
 * stream order on ctx's stream; ctx NULL frees synchronously (cudaFree). */
gip_status gip__cuda_malloc(gip_context *ctx, size_t bytes, void **ptr);
void gip__cuda_free(gip_context *ctx, void *ptr);
/* Bytes of the context's pool in use (allocated and not yet freed in stream order). */
int64_t gip__cuda_memory_used(const gip_context *ctx);
/* Page-locked host memory. Freed blocks are cached and given again (GIP_PINNED_CACHE bytes at
 * most, 1 GiB by default): free only what no queued copy still uses. trim gives the cache back. */
gip_status gip__cuda_malloc_pinned(gip_context *ctx, size_t bytes, void **ptr);
void gip__cuda_free_pinned(void *ptr);
/* Frees a block from gip__cuda_malloc_pinned() at once, past the cache (buffers a component keeps
 * for itself and gives back rarely: they would otherwise stay resident in the cache). */
void gip__cuda_release_pinned(void *ptr);
void gip__cuda_pinned_trim(void);
/* Non-zero when ptr is page-locked host memory the device can copy from asynchronously
 * (cudaMallocHost, cudaHostRegister, PyTorch's pin_memory()). */
int gip__cuda_is_pinned(const void *ptr);
/* 2D copy in any direction; `dst_mem`/`src_mem` say where each side lives. */
gip_status gip__cuda_copy2d(gip_context *ctx, void *dst, int64_t dpitch, gip_memory dst_mem,
                            const void *src, int64_t spitch, gip_memory src_mem, int64_t row_bytes,
                            int64_t rows);
gip_status gip__cuda_memset2d(gip_context *ctx, void *dst, int64_t pitch, uint8_t value,
                              int64_t row_bytes, int64_t rows);
/* Test hook: launches a kernel that writes through a bad address, poisoning the CUDA context. */
gip_status gip__cuda_fault_for_test(gip_context *ctx);

#ifdef __cplusplus
}
#endif
#endif
