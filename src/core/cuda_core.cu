/* SPDX-License-Identifier: MIT */
/* The core's CUDA side: device discovery, per-context stream, allocation, copies and the error
 * conversion that marks contexts bad after sticky device errors. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_util.cuh"

static bool is_sticky(cudaError_t err)
{
    switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
    case cudaErrorUnknown:
        return true;
    default:
        return false;
    }
}

extern "C" gip_status gip__cuda_status(gip_context *ctx, cudaError_t err, const char *what)
{
    if (err == cudaSuccess)
        return GIP_OK;
    if (is_sticky(err)) {
        const gip_status st =
            gip__error(ctx, GIP_ERR_DEVICE,
                       "%s failed: %s (%s); the CUDA context is corrupted and this gip context "
                       "refuses further work",
                       what, cudaGetErrorString(err), cudaGetErrorName(err));
        if (ctx && !ctx->bad) { /* the first one is the one later refusals quote */
            memcpy(ctx->bad_error, ctx->error, sizeof ctx->bad_error);
            ctx->bad = true;
        }
        return st;
    }
    (void)cudaGetLastError(); /* clear a non-sticky error so that it is not reported twice */
    if (err == cudaErrorMemoryAllocation)
        return gip__error(ctx, GIP_ERR_DEVICE_OUT_OF_MEMORY, "%s failed: out of device memory",
                          what);
    return gip__error(ctx, GIP_ERR_DEVICE, "%s failed: %s (%s)", what, cudaGetErrorString(err),
                      cudaGetErrorName(err));
}

__global__ void probe_kernel(int *p)
{
    if (p)
        *p = 1;
}

extern "C" gip_status gip__cuda_probe(int32_t *count, char *reason, size_t reason_size)
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        const char *why;
        switch (err) {
        case cudaErrorNoDevice:
            why = "no CUDA device present";
            break;
        case cudaErrorInsufficientDriver:
            why = "CUDA driver not found or older than the CUDA runtime gip was built with";
            break;
        default:
            why = cudaGetErrorString(err);
            break;
        }
        snprintf(reason, reason_size, "%s", why);
        (void)cudaGetLastError();
        *count = 0;
        return GIP_OK;
    }
    if (n == 0)
        snprintf(reason, reason_size, "no CUDA device present");
    *count = n;
    return GIP_OK;
}

extern "C" gip_status gip__cuda_device_info(int32_t index, gip_device_info *info)
{
    memset(info, 0, sizeof *info);
    info->index = index;
    cudaDeviceProp prop;
    cudaError_t err = cudaGetDeviceProperties(&prop, index);
    if (err != cudaSuccess)
        return gip__cuda_status(NULL, err, "cudaGetDeviceProperties");
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->sm_count = prop.multiProcessorCount;
    info->total_memory = (int64_t)prop.totalGlobalMem;
    /* Usable when this build carries code the device can run: ask for a kernel's attributes. */
    int prev = 0;
    cudaGetDevice(&prev);
    cudaSetDevice(index);
    cudaFuncAttributes attr;
    err = cudaFuncGetAttributes(&attr, probe_kernel);
    cudaSetDevice(prev);
    if (err == cudaSuccess) {
        info->usable = 1;
    } else {
        (void)cudaGetLastError();
        if (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction)
            snprintf(info->reason, sizeof info->reason,
                     "device too old: compute capability %d.%d, this build needs %s", prop.major,
                     prop.minor, GIP_CUDA_ARCH_DESC);
        else
            snprintf(info->reason, sizeof info->reason, "%s", cudaGetErrorString(err));
    }
    return GIP_OK;
}

extern "C" gip_status gip__cuda_enter(gip_context *ctx)
{
    int cur = -1;
    if (cudaGetDevice(&cur) == cudaSuccess && cur == ctx->device)
        return GIP_OK;
    return gip__cuda_status(ctx, cudaSetDevice(ctx->device), "cudaSetDevice");
}

extern "C" gip_status gip__cuda_context_init(gip_context *ctx)
{
    gip_status st = gip__cuda_enter(ctx);
    if (st)
        return st;
    cudaStream_t stream;
    if ((st = gip__cuda_status(ctx, cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
                               "cudaStreamCreateWithFlags")))
        return st;
    ctx->stream = stream;
    /* The context's own memory pool (not the device's default one, which CuPy, PyTorch or the
     * application may configure): freed memory stays cached in it (release threshold unbounded)
     * until the context goes or an allocation would fail, so that a loop of calls reuses its
     * images and scratch buffers instead of paying cudaMalloc and cudaFree (which waits for the
     * whole device) each time. Devices without memory pools use cudaMalloc. */
    int pools = 0;
    if (cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, ctx->device) ==
            cudaSuccess &&
        pools) {
        cudaMemPoolProps props;
        memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.handleTypes = cudaMemHandleTypeNone;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = ctx->device;
        cudaMemPool_t pool;
        if ((st = gip__cuda_status(ctx, cudaMemPoolCreate(&pool, &props), "cudaMemPoolCreate"))) {
            cudaStreamDestroy(stream);
            ctx->stream = NULL;
            return st;
        }
        uint64_t keep = UINT64_MAX;
        if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess)
            (void)cudaGetLastError(); /* then the pool only caches less: not an error */
        ctx->pool = pool;
    } else {
        (void)cudaGetLastError();
    }
    cudaDeviceProp prop;
    if ((st = gip__cuda_status(ctx, cudaGetDeviceProperties(&prop, ctx->device),
                               "cudaGetDeviceProperties"))) {
        cudaStreamDestroy(stream);
        ctx->stream = NULL;
        if (ctx->pool)
            cudaMemPoolDestroy(static_cast<cudaMemPool_t>(ctx->pool));
        ctx->pool = NULL;
        return st;
    }
    snprintf(ctx->describe, sizeof ctx->describe, "CUDA device %d: %s (%d SMs, %.0f GiB)",
             (int)ctx->device, prop.name, prop.multiProcessorCount,
             (double)prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
    return GIP_OK;
}

extern "C" void gip__cuda_context_fini(gip_context *ctx)
{
    if (!ctx->stream)
        return;
    cudaSetDevice(ctx->device);
    cudaStreamSynchronize(gip__stream(ctx));
    cudaStreamDestroy(gip__stream(ctx));
    ctx->stream = NULL;
    /* Images still allocated from the pool keep it alive: CUDA destroys it after their frees. */
    if (ctx->pool)
        cudaMemPoolDestroy(static_cast<cudaMemPool_t>(ctx->pool));
    ctx->pool = NULL;
}

extern "C" gip_status gip__cuda_sync(gip_context *ctx)
{
    return gip__cuda_status(ctx, cudaStreamSynchronize(gip__stream(ctx)), "cudaStreamSynchronize");
}

extern "C" int64_t gip__cuda_memory_used(const gip_context *ctx)
{
    uint64_t used = 0;
    if (ctx && ctx->pool &&
        cudaMemPoolGetAttribute(static_cast<cudaMemPool_t>(ctx->pool),
                                cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess) {
        (void)cudaGetLastError();
        used = 0;
    }
    return (int64_t)used;
}

static gip_status device_oom(gip_context *ctx, size_t bytes)
{
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    (void)cudaGetLastError();
    return gip__error(ctx, GIP_ERR_DEVICE_OUT_OF_MEMORY,
                      "out of device memory allocating %zu bytes on device %d (%zu free of %zu)",
                      bytes, (int)ctx->device, free_b, total_b);
}

extern "C" gip_status gip__cuda_malloc(gip_context *ctx, size_t bytes, void **ptr)
{
    gip_status st = gip__cuda_enter(ctx);
    if (st)
        return st;
    if (!ctx->pool) {
        cudaError_t err = cudaMalloc(ptr, bytes);
        if (err == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            return device_oom(ctx, bytes);
        }
        return gip__cuda_status(ctx, err, "cudaMalloc");
    }
    cudaMemPool_t pool = static_cast<cudaMemPool_t>(ctx->pool);
    if (ctx->device_memory_limit) {
        int64_t used = gip__cuda_memory_used(ctx);
        if ((uint64_t)used + bytes > (uint64_t)ctx->device_memory_limit)
            return gip__error(ctx, GIP_ERR_DEVICE_OUT_OF_MEMORY,
                              "out of device memory: allocating %zu bytes would pass the "
                              "context's limit of %lld bytes (%lld in use; "
                              "gip_context_set_device_memory_limit)",
                              bytes, (long long)ctx->device_memory_limit, (long long)used);
    }
    cudaError_t err = cudaMallocFromPoolAsync(ptr, bytes, pool, gip__stream(ctx));
    if (err == cudaErrorMemoryAllocation) {
        /* The pool's cached blocks may be what fills the device: wait for the frees queued on
         * the stream, give the cached memory back and try once more. */
        (void)cudaGetLastError();
        cudaStreamSynchronize(gip__stream(ctx));
        cudaMemPoolTrimTo(pool, 0);
        err = cudaMallocFromPoolAsync(ptr, bytes, pool, gip__stream(ctx));
        if (err == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            return device_oom(ctx, bytes);
        }
    }
    return gip__cuda_status(ctx, err, "cudaMallocFromPoolAsync");
}

extern "C" void gip__cuda_free(gip_context *ctx, void *ptr)
{
    if (!ptr)
        return;
    /* Stream-ordered on the context: after the work queued there, without waiting for it. A
     * pointer from another device, or any pointer freed without a pooled context, is freed by
     * cudaFree, which waits for the device. */
    if (ctx && ctx->pool && gip__cuda_enter(ctx) == GIP_OK) {
        cudaPointerAttributes at;
        if (cudaPointerGetAttributes(&at, ptr) == cudaSuccess && at.device == ctx->device &&
            cudaFreeAsync(ptr, gip__stream(ctx)) == cudaSuccess)
            return;
        (void)cudaGetLastError();
    }
    /* A free has no caller to report to; its error must not be picked up by the next launch
     * check of this thread. */
    if (cudaFree(ptr) != cudaSuccess)
        (void)cudaGetLastError();
}

/* ---- pinned host memory ----------------------------------------------------------------------
 * cudaMallocHost locks every page it gives (about a millisecond per few tens of MB) and
 * cudaFreeHost waits for the device, so freed blocks are kept and given again: to a request of
 * at most their size and at least half of it, the smallest such block first. At most
 * PIN_CACHE_BYTES (GIP_PINNED_CACHE bytes in the environment, read once) stay cached; the oldest
 * go beyond that. Sizes are rounded up to PIN_GRAIN so that images of nearly one size share
 * blocks. A block must not be freed while copies into or out of it are still queued (gip's own
 * callers synchronise first; gip_image_free() documents it), since a cached block is given again
 * without waiting for the device. */
#define PIN_GRAIN ((size_t)64 << 10)
#define PIN_CACHE_DEFAULT ((size_t)1 << 30)

typedef struct pin_block {
    void *ptr;
    size_t bytes;
} pin_block;

typedef struct pin_list {
    pin_block *b;
    size_t n, cap;
} pin_list;

static pthread_mutex_t pin_lock = PTHREAD_MUTEX_INITIALIZER;
static pin_list pin_live, pin_free;
static size_t pin_free_bytes;

static size_t pin_cache_limit(void)
{
    static size_t limit;
    static bool read;
    if (!read) {
        const char *e = getenv("GIP_PINNED_CACHE");
        char *end = NULL;
        unsigned long long v = e && *e ? strtoull(e, &end, 10) : 0;
        limit = e && *e && end && !*end ? (size_t)v : PIN_CACHE_DEFAULT;
        read = true;
    }
    return limit;
}

static bool pin_push(pin_list *l, pin_block b)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        pin_block *nb = (pin_block *)realloc(l->b, cap * sizeof *nb);
        if (!nb)
            return false;
        l->b = nb;
        l->cap = cap;
    }
    l->b[l->n++] = b;
    return true;
}

static pin_block pin_take(pin_list *l, size_t i)
{
    pin_block b = l->b[i];
    memmove(l->b + i, l->b + i + 1, (l->n - i - 1) * sizeof *l->b);
    l->n--;
    return b;
}

extern "C" gip_status gip__cuda_malloc_pinned(gip_context *ctx, size_t bytes, void **ptr)
{
    size_t want = (bytes + PIN_GRAIN - 1) / PIN_GRAIN * PIN_GRAIN;
    if (want < bytes)
        return gip__error(ctx, GIP_ERR_TOO_LARGE, "pinned host memory: %zu bytes is too large",
                          bytes);
    pthread_mutex_lock(&pin_lock);
    size_t best = pin_free.n;
    for (size_t i = 0; i < pin_free.n; i++) {
        size_t have = pin_free.b[i].bytes;
        if (have >= want && have / 2 <= want &&
            (best == pin_free.n || have < pin_free.b[best].bytes))
            best = i;
    }
    if (best < pin_free.n) {
        pin_block b = pin_free.b[best];
        if (pin_push(&pin_live, b)) {
            pin_take(&pin_free, best);
            pin_free_bytes -= b.bytes;
            pthread_mutex_unlock(&pin_lock);
            *ptr = b.ptr;
            return GIP_OK;
        }
    }
    pthread_mutex_unlock(&pin_lock);
    void *p = NULL;
    cudaError_t err = cudaMallocHost(&p, want);
    if (err == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        /* The cache may be what holds the memory: give it back and try once more. */
        gip__cuda_pinned_trim();
        err = cudaMallocHost(&p, want);
        if (err == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY,
                              "out of pinned host memory allocating %zu bytes", bytes);
        }
    }
    gip_status st = gip__cuda_status(ctx, err, "cudaMallocHost");
    if (st)
        return st;
    pthread_mutex_lock(&pin_lock);
    bool kept = pin_push(&pin_live, (pin_block){p, want});
    pthread_mutex_unlock(&pin_lock);
    if (!kept) {
        cudaFreeHost(p);
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "pinned host memory: out of host memory");
    }
    *ptr = p;
    return GIP_OK;
}

extern "C" void gip__cuda_release_pinned(void *ptr)
{
    if (!ptr)
        return;
    pthread_mutex_lock(&pin_lock);
    for (size_t i = pin_live.n; i-- > 0;)
        if (pin_live.b[i].ptr == ptr) {
            pin_take(&pin_live, i);
            break;
        }
    pthread_mutex_unlock(&pin_lock);
    if (cudaFreeHost(ptr) != cudaSuccess)
        (void)cudaGetLastError();
}

extern "C" void gip__cuda_free_pinned(void *ptr)
{
    if (!ptr)
        return;
    pin_block drop[8];
    int ndrop = 0;
    bool cached = false;
    pthread_mutex_lock(&pin_lock);
    for (size_t i = pin_live.n; i-- > 0;) {
        if (pin_live.b[i].ptr != ptr)
            continue;
        pin_block b = pin_take(&pin_live, i);
        size_t limit = pin_cache_limit();
        if (b.bytes <= limit && pin_push(&pin_free, b)) {
            pin_free_bytes += b.bytes;
            cached = true;
            while (pin_free_bytes > limit && ndrop < 8) {
                drop[ndrop] = pin_take(&pin_free, 0);
                pin_free_bytes -= drop[ndrop++].bytes;
            }
        }
        break;
    }
    pthread_mutex_unlock(&pin_lock);
    if (!cached && cudaFreeHost(ptr) != cudaSuccess)
        (void)cudaGetLastError();
    for (int i = 0; i < ndrop; i++)
        if (cudaFreeHost(drop[i].ptr) != cudaSuccess)
            (void)cudaGetLastError();
}

extern "C" void gip__cuda_pinned_trim(void)
{
    for (;;) {
        pthread_mutex_lock(&pin_lock);
        if (!pin_free.n) {
            pthread_mutex_unlock(&pin_lock);
            return;
        }
        pin_block b = pin_take(&pin_free, pin_free.n - 1);
        pin_free_bytes -= b.bytes;
        pthread_mutex_unlock(&pin_lock);
        if (cudaFreeHost(b.ptr) != cudaSuccess)
            (void)cudaGetLastError();
    }
}

extern "C" int gip__cuda_is_pinned(const void *ptr)
{
    cudaPointerAttributes at;
    if (!ptr || cudaPointerGetAttributes(&at, ptr) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return at.type == cudaMemoryTypeHost;
}

/* Device-to-device 2D copy: cudaMemcpy2DAsync between device pitches runs on a copy engine at
 * about half the memory bandwidth, so rows are copied by a kernel instead. Each thread moves one
 * unit U (16 bytes when both bases and pitches allow, down to 2) per row; the grid covers a row's
 * units in x and rows in y (looping past 65535 rows). The bytes of a row past its last whole unit
 * are copied one by one by the first threads. Source and destination never overlap (gip_copy
 * refuses that), so the source may be read through the read-only path. */
template <typename U>
__global__ void copy2d_kernel(char *dst, int64_t dpitch, const char *src, int64_t spitch,
                              int64_t units, int64_t tail, int64_t rows)
{
    const int64_t u = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int64_t y = blockIdx.y; y < rows; y += gridDim.y) {
        const char *s = src + y * spitch;
        char *d = dst + y * dpitch;
        if (u < units)
            reinterpret_cast<U *>(d)[u] = __ldg(reinterpret_cast<const U *>(s) + u);
        if (u < tail)
            d[units * (int64_t)sizeof(U) + u] = s[units * (int64_t)sizeof(U) + u];
    }
}

template <typename U>
static gip_status copy2d_launch(gip_context *ctx, void *dst, int64_t dpitch, const void *src,
                                int64_t spitch, int64_t row_bytes, int64_t rows)
{
    const int64_t units = row_bytes / (int64_t)sizeof(U), tail = row_bytes % (int64_t)sizeof(U);
    const int64_t work = units > tail ? units : tail;
    const unsigned bx = work >= 256 ? 256u : (unsigned)((work + 31) / 32 * 32);
    dim3 grid(gip__div_up(work, bx), (unsigned)(rows < 65535 ? rows : 65535));
    copy2d_kernel<U><<<grid, bx, 0, gip__stream(ctx)>>>((char *)dst, dpitch, (const char *)src,
                                                        spitch, units, tail, rows);
    return GIP__LAUNCH_CHECK(ctx, "gip_copy: device copy kernel launch");
}

static gip_status copy2d_device(gip_context *ctx, void *dst, int64_t dpitch, const void *src,
                                int64_t spitch, int64_t row_bytes, int64_t rows)
{
    /* Contiguous on both sides: one long row, so that no row ends in a partial unit (its
     * pitch is then never used, nor constrains the unit). */
    if (dpitch == row_bytes && spitch == row_bytes) {
        row_bytes *= rows;
        rows = 1;
        dpitch = spitch = 0;
    }
    /* Widest unit dividing both bases and both pitches (grid x, row_bytes / unit / 256 blocks,
     * stays below 2^31 for any row that fits in device memory with units of 2 bytes or more);
     * odd addresses or pitches keep the runtime's copy. */
    const uint64_t a =
        (uint64_t)(uintptr_t)dst | (uint64_t)(uintptr_t)src | (uint64_t)dpitch | (uint64_t)spitch;
    if ((a & 15) == 0)
        return copy2d_launch<uint4>(ctx, dst, dpitch, src, spitch, row_bytes, rows);
    if ((a & 7) == 0)
        return copy2d_launch<uint2>(ctx, dst, dpitch, src, spitch, row_bytes, rows);
    if ((a & 3) == 0)
        return copy2d_launch<uint32_t>(ctx, dst, dpitch, src, spitch, row_bytes, rows);
    if ((a & 1) == 0)
        return copy2d_launch<uint16_t>(ctx, dst, dpitch, src, spitch, row_bytes, rows);
    return gip__cuda_status(ctx,
                            cudaMemcpy2DAsync(dst, (size_t)dpitch, src, (size_t)spitch,
                                              (size_t)row_bytes, (size_t)rows,
                                              cudaMemcpyDeviceToDevice, gip__stream(ctx)),
                            "cudaMemcpy2DAsync");
}

extern "C" gip_status gip__cuda_copy2d(gip_context *ctx, void *dst, int64_t dpitch,
                                       gip_memory dst_mem, const void *src, int64_t spitch,
                                       gip_memory src_mem, int64_t row_bytes, int64_t rows)
{
    cudaMemcpyKind kind;
    bool dd = dst_mem == GIP_MEM_CUDA, sd = src_mem == GIP_MEM_CUDA;
    kind = sd ? (dd ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
              : (dd ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
    if (sd && dd)
        return copy2d_device(ctx, dst, dpitch, src, spitch, row_bytes, rows);
    cudaError_t err = cudaMemcpy2DAsync(dst, (size_t)dpitch, src, (size_t)spitch, (size_t)row_bytes,
                                        (size_t)rows, kind, gip__stream(ctx));
    gip_status st = gip__cuda_status(ctx, err, "cudaMemcpy2DAsync");
    if (st)
        return st;
    /* A download into pageable memory must be complete when the call returns. */
    if (sd && !dd && dst_mem == GIP_MEM_HOST)
        return gip__cuda_sync(ctx);
    return GIP_OK;
}

extern "C" gip_status gip__cuda_memset2d(gip_context *ctx, void *dst, int64_t pitch, uint8_t value,
                                         int64_t row_bytes, int64_t rows)
{
    return gip__cuda_status(ctx,
                            cudaMemset2DAsync(dst, (size_t)pitch, value, (size_t)row_bytes,
                                              (size_t)rows, gip__stream(ctx)),
                            "cudaMemset2DAsync");
}

__global__ void fault_kernel(int *p)
{
    *p = 42;
}

extern "C" gip_status gip__cuda_fault_for_test(gip_context *ctx)
{
    gip_status st = gip__cuda_enter(ctx);
    if (st)
        return st;
    fault_kernel<<<1, 1, 0, gip__stream(ctx)>>>((int *)(uintptr_t)0x10);
    if ((st = GIP__LAUNCH_CHECK(ctx, "fault_kernel")))
        return st;
    return gip__cuda_sync(ctx);
}
