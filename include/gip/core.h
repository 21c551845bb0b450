/* SPDX-License-Identifier: MIT */
/* gip core: status codes, errors, contexts, devices, image views, allocation and transfers. */
#ifndef GIP_CORE_H
#define GIP_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "gip/export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GIP_VERSION_MAJOR 0
#define GIP_VERSION_MINOR 1
#define GIP_VERSION_PATCH 0
/** The version as one integer: major * 10000 + minor * 100 + patch. */
#define GIP_VERSION (GIP_VERSION_MAJOR * 10000 + GIP_VERSION_MINOR * 100 + GIP_VERSION_PATCH)

/** Returns the run-time library version as "MAJOR.MINOR.PATCH" (static storage). */
GIP_API const char *gip_version(void);

/** Returns a one-line description of how the library was built, e.g. "gip 0.1.0 (CUDA 13.0,
 *  OpenMP, libjpeg-turbo, libpng)". Static storage. */
GIP_API const char *gip_build_info(void);

/* ---------------------------------------------------------------------------------------------
 * Status codes. Zero is success; the hundreds digit names the group (gip_status_group()).
 * ------------------------------------------------------------------------------------------- */
typedef enum gip_status {
    GIP_OK = 0,

    /* 1xx: the caller passed something wrong. */
    GIP_ERR_INVALID_ARGUMENT = 100,  /* NULL pointer, negative size, bad enum, bad parameter */
    GIP_ERR_SHAPE_MISMATCH = 101,    /* input and output sizes or channels do not agree */
    GIP_ERR_LOCATION_MISMATCH = 102, /* host and device images mixed, or another device's memory */
    GIP_ERR_ALIASING = 103,          /* output overlaps an input where that is not allowed */

    /* 2xx: valid request that gip does not do. */
    GIP_ERR_UNSUPPORTED = 200, /* dtype, channel count or mode not handled by this operation */
    GIP_ERR_NOT_BUILT = 201,   /* the library was built without the component (CUDA, nvJPEG), or
                                  its shared library is missing at run time (cuFFT, NVRTC, cuBLAS) */

    /* 3xx: sizes beyond limits. */
    GIP_ERR_TOO_LARGE = 300, /* overflowing size or above a configured limit */

    /* 4xx: memory. */
    GIP_ERR_OUT_OF_MEMORY = 400,        /* host allocation failed */
    GIP_ERR_DEVICE_OUT_OF_MEMORY = 401, /* device allocation failed */

    /* 5xx: CUDA device. */
    GIP_ERR_DEVICE = 500,    /* a CUDA call failed (message names it) */
    GIP_ERR_NO_DEVICE = 501, /* a CUDA device was required and none is usable */
    GIP_ERR_BAD_STATE = 502, /* the context hit a sticky device error earlier and refuses work */

    /* 6xx: files. */
    GIP_ERR_IO = 600,        /* read, write, rename failed */
    GIP_ERR_NOT_FOUND = 601, /* the path does not exist */

    /* 7xx: data. */
    GIP_ERR_CORRUPT = 700,        /* truncated or corrupt file or stream */
    GIP_ERR_UNKNOWN_FORMAT = 701, /* bytes are not in a format gip reads */

    /* 9xx: a bug in gip. */
    GIP_ERR_INTERNAL = 900
} gip_status;

/** Returns the enum name of a status ("GIP_ERR_CORRUPT"), or "GIP_ERR_UNKNOWN_STATUS". */
GIP_API const char *gip_status_name(gip_status status);

/** Returns a short English description of a status ("corrupt or truncated data"). */
GIP_API const char *gip_status_string(gip_status status);

/** Returns the group of a status: the code with its last two digits cleared (GIP_ERR_DEVICE
 *  for GIP_ERR_BAD_STATE, GIP_ERR_INVALID_ARGUMENT for GIP_ERR_SHAPE_MISMATCH ...). */
GIP_API gip_status gip_status_group(gip_status status);

/** Returns the message of the last error raised on the calling thread by any gip function
 *  (context or not), or "" when none. The pointer stays valid until the thread's next gip call. */
GIP_API const char *gip_last_error(void);

/** Clears the calling thread's last error message. */
GIP_API void gip_clear_error(void);

/* ---------------------------------------------------------------------------------------------
 * Element types, memory kinds and image views.
 * ------------------------------------------------------------------------------------------- */
typedef enum gip_dtype {
    GIP_DTYPE_NONE = 0,
    GIP_U8 = 1,  /* uint8_t */
    GIP_U16 = 2, /* uint16_t */
    GIP_S16 = 3, /* int16_t (Sobel outputs) */
    GIP_F32 = 4, /* float */
    GIP_C32 = 5  /* complex float: two floats (re, im) per channel element */
} gip_dtype;

/** Bytes of one channel element of a dtype, 0 for an invalid dtype. */
GIP_API size_t gip_dtype_size(gip_dtype dtype);
/** Name of a dtype: "u8", "u16", "s16", "f32", "c32", or "?". */
GIP_API const char *gip_dtype_name(gip_dtype dtype);

/**
 * strtod restricted to decimal numbers, the grammar of every number gip reads as text (pipeline
 * arguments, parameters, expressions, the command line): [+|-] digits [. [digits]]
 * [e|E [+|-] digits], or [+|-] . digits [exponent]. Hex floats, inf, nan and leading spaces are
 * not numbers: *end == s then. Out-of-range values come back as strtod gives them (HUGE_VAL, 0).
 */
GIP_API double gip_strtod(const char *s, char **end);
/**
 * Reads a byte count: a positive decimal integer with an optional K, M, G or T suffix (powers of
 * 1024), optionally followed by "i" and "B" ("256M", "1GiB", "4096"), as GIP_MAX_MEMORY and
 * --max-memory take it. @return 1 and *out set, or 0 for anything else (*out unchanged).
 */
GIP_API int32_t gip_parse_bytes(const char *s, int64_t *out);

typedef enum gip_memory {
    GIP_MEM_HOST = 0,   /* ordinary host memory */
    GIP_MEM_PINNED = 1, /* page-locked host memory (cudaMallocHost); host for dispatch */
    GIP_MEM_CUDA = 2    /* CUDA device memory of device `device` */
} gip_memory;

/**
 * An image view. It never owns its memory: `data` points at the first pixel of row 0, rows are
 * `stride` bytes apart (stride >= width * channels * dtype size, any value, not only aligned),
 * pixels are interleaved (HWC). Fill one with gip_image_wrap(), gip_image_alloc(), or by hand.
 */
typedef struct gip_image {
    void *data;
    int64_t width;
    int64_t height;
    int32_t channels; /* 1, 3 or 4 */
    gip_dtype dtype;
    int64_t stride; /* bytes between the starts of consecutive rows */
    gip_memory memory;
    int32_t device; /* CUDA device ordinal when memory == GIP_MEM_CUDA, else 0 */
} gip_image;

/** How pixels outside the image are made up (OpenCV's names; the diagram shows row "abcdefgh"). */
typedef enum gip_border {
    GIP_BORDER_REFLECT_101 = 0, /* gfedcb|abcdefgh|gfedcba  (OpenCV's default) */
    GIP_BORDER_REFLECT = 1,     /* fedcba|abcdefgh|hgfedcb */
    GIP_BORDER_REPLICATE = 2,   /* aaaaaa|abcdefgh|hhhhhhh */
    GIP_BORDER_CONSTANT = 3,    /* vvvvvv|abcdefgh|vvvvvvv  (v = the border value) */
    GIP_BORDER_WRAP = 4         /* cdefgh|abcdefgh|abcdefg */
} gip_border;

/** Name of a border mode ("reflect101", "reflect", "replicate", "constant", "wrap"). */
GIP_API const char *gip_border_name(gip_border border);
/** Parses a border name (also OpenCV's "BORDER_DEFAULT", "reflect_101"); GIP_ERR_INVALID_ARGUMENT
 *  when unknown. */
GIP_API gip_status gip_border_parse(const char *name, gip_border *border);

/** Border mode plus the value used by GIP_BORDER_CONSTANT (per channel, in the source's scale). */
typedef struct gip_border_spec {
    gip_border mode;
    float value[4];
} gip_border_spec;

/** Largest width or height gip accepts anywhere (2^31 - 1, so CUDA grids and indices fit). */
#define GIP_MAX_DIM ((int64_t)2147483647)

/**
 * Computes the tight row size and the buffer size of an image.
 * @param width, height  >= 1 and <= GIP_MAX_DIM.
 * @param channels       1, 3 or 4.
 * @param dtype          a valid gip_dtype.
 * @param row_bytes      out (may be NULL): width * channels * dtype size.
 * @param total_bytes    out (may be NULL): row_bytes * height.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT for bad values; GIP_ERR_TOO_LARGE when a product
 *         overflows 63 bits.
 */
GIP_API gip_status gip_image_size(int64_t width, int64_t height, int32_t channels, gip_dtype dtype,
                                  int64_t *row_bytes, int64_t *total_bytes);

/**
 * Fills `img` as a view of caller-owned memory after checking every field (no memory is touched).
 * @param stride  0 means tight (width * channels * dtype size); otherwise >= that.
 * @param memory  where `data` lives; for GIP_MEM_CUDA `device` names the device.
 * @return GIP_OK, GIP_ERR_INVALID_ARGUMENT (NULL img/data, bad sizes, stride too small, bad enum),
 *         GIP_ERR_TOO_LARGE (size overflow). On error `img` is unchanged.
 */
GIP_API gip_status gip_image_wrap(gip_image *img, void *data, int64_t width, int64_t height,
                                  int32_t channels, gip_dtype dtype, int64_t stride,
                                  gip_memory memory, int32_t device);

/** Checks that a view is well formed (what gip_image_wrap checks). GIP_OK or
 *  GIP_ERR_INVALID_ARGUMENT/GIP_ERR_TOO_LARGE with a message naming `what`. */
GIP_API gip_status gip_image_check(const gip_image *img, const char *what);

/** Non-zero when the view's memory is host memory (HOST or PINNED). */
GIP_API int gip_image_on_host(const gip_image *img);

/** Bytes of one row's pixels, width * channels * dtype size (no overflow check). */
GIP_API int64_t gip_image_row_bytes(const gip_image *img);

/** Address of pixel (x, y)'s first channel. No bounds check. */
GIP_API void *gip_image_pixel(const gip_image *img, int64_t x, int64_t y);

/** Returns a view of the rectangle (x, y, w, h) of `img` in `roi` (same memory). Checks bounds. */
GIP_API gip_status gip_image_roi(const gip_image *img, int64_t x, int64_t y, int64_t w, int64_t h,
                                 gip_image *roi);

/* ---------------------------------------------------------------------------------------------
 * Contexts.
 * ------------------------------------------------------------------------------------------- */
typedef struct gip_context gip_context;

typedef enum gip_backend {
    GIP_BACKEND_AUTO = 0, /* a usable CUDA device if there is one, else the CPU */
    GIP_BACKEND_CPU = 1,  /* host only; device images are refused */
    GIP_BACKEND_CUDA = 2  /* requires a usable CUDA device; creation fails otherwise */
} gip_backend;

/*
 * Threads: a context is used by one thread at a time (its sticky error, message and CUDA stream
 * are not locked); distinct contexts may be used concurrently from any threads, and the
 * process-wide state behind them (FFT plan caches, the kernel cache, OpenBLAS's thread setting)
 * is safe to share. Images and read-only objects (gip_net) may be read by several contexts at
 * once. tests/test_concurrency.c runs this under ThreadSanitizer (make tsan).
 */

/** What a context should use. Zero-initialise it: zero means default for every field. */
typedef struct gip_context_desc {
    gip_backend backend; /* default AUTO */
    int32_t device;      /* CUDA device ordinal; default 0 */
    int32_t threads;     /* CPU threads; 0 = OpenMP's default (OMP_NUM_THREADS where it is set,
                          * else the number of cores), >= 1 */
    uint32_t flags;      /* reserved, must be 0 */
} gip_context_desc;

/**
 * Creates a context. With AUTO and no usable CUDA device it falls back to the CPU and records why
 * (see gip_context_describe()).
 * @param desc  may be NULL (all defaults).
 * @param out   receives the context; set to NULL on failure.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL out, bad backend, negative threads or device,
 *         flags); GIP_ERR_NO_DEVICE (CUDA requested, none usable); GIP_ERR_NOT_BUILT (CUDA
 *         requested in a build without CUDA); GIP_ERR_DEVICE; GIP_ERR_OUT_OF_MEMORY.
 * The message for a failure is the thread's last error.
 */
GIP_API gip_status gip_context_create(const gip_context_desc *desc, gip_context **out);

/** Waits for the context's queued device work and frees it. NULL is a no-op. */
GIP_API void gip_context_destroy(gip_context *ctx);

/** Backend in use: GIP_BACKEND_CPU or GIP_BACKEND_CUDA (never AUTO). */
GIP_API gip_backend gip_context_backend(const gip_context *ctx);

/** CUDA device ordinal in use, or -1 for a CPU context. */
GIP_API int32_t gip_context_device(const gip_context *ctx);

/** CPU thread count used by host operations. */
GIP_API int32_t gip_context_threads(const gip_context *ctx);

/** Changes the CPU thread count (>= 1, or 0 for the default). */
GIP_API gip_status gip_context_set_threads(gip_context *ctx, int32_t threads);

/**
 * One line saying what the context uses, e.g. "CUDA device 0: NVIDIA H200 (132 SMs, 139 GiB)" or
 * "CPU, 2 threads (no CUDA device: CUDA driver not found)". Valid while the context lives.
 */
GIP_API const char *gip_context_describe(const gip_context *ctx);

/** The last error message raised on this context, or "" when none. */
GIP_API const char *gip_context_error(const gip_context *ctx);

/**
 * The CUDA stream (a cudaStream_t) on which the context queues device work, or NULL for a CPU
 * context. gip creates a non-blocking stream per context.
 */
GIP_API void *gip_context_stream(const gip_context *ctx);

/**
 * Waits until all work queued on the context has finished.
 * @return GIP_OK; GIP_ERR_DEVICE when queued work failed (a sticky failure also moves the context
 *         to GIP_ERR_BAD_STATE for every later call); GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_context_sync(gip_context *ctx);

/** GIP_OK while the context is usable, GIP_ERR_BAD_STATE after a sticky device error. */
GIP_API gip_status gip_context_status(const gip_context *ctx);

/**
 * Caps the device memory that the context's allocations (images, scratch and intermediate
 * buffers, filter taps; not the work areas that cuFFT, cuDNN and nvJPEG allocate for themselves)
 * may hold at once: an allocation that would pass it fails with GIP_ERR_DEVICE_OUT_OF_MEMORY and a
 * message naming the limit, as if the device were full, and the context stays usable. For tests of
 * out-of-memory paths and for sharing a GPU. Memory freed in stream order counts until the
 * context's stream reaches the free.
 * @param bytes  >= 0; 0 removes the limit.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL ctx, negative bytes); GIP_ERR_NO_DEVICE (a CPU
 *         context); GIP_ERR_UNSUPPORTED (a device without stream-ordered memory pools, whose
 *         allocations gip cannot count).
 */
GIP_API gip_status gip_context_set_device_memory_limit(gip_context *ctx, int64_t bytes);

/**
 * Device memory the context's allocations hold now, in bytes (0 for a CPU context or NULL). The
 * context keeps freed blocks cached for reuse; they are not counted here.
 */
GIP_API int64_t gip_context_device_memory_used(const gip_context *ctx);

/* ---------------------------------------------------------------------------------------------
 * CUDA devices.
 * ------------------------------------------------------------------------------------------- */
typedef struct gip_device_info {
    int32_t index;
    char name[256];
    int32_t cc_major, cc_minor; /* compute capability */
    int32_t sm_count;
    int64_t total_memory; /* bytes */
    int32_t usable;       /* non-zero when gip can run on it (compute capability >= 5.0 and a
                             kernel of this build runs there) */
    char reason[128];     /* why not usable, "" when usable */
} gip_device_info;

/**
 * Number of CUDA devices visible (usable or not). Never fails for lack of a GPU: returns GIP_OK
 * with *count = 0 and gip_device_unavailable_reason() says why (no driver, no device, built
 * without CUDA).
 */
GIP_API gip_status gip_device_count(int32_t *count);

/** Properties of device `index`. GIP_ERR_INVALID_ARGUMENT for a bad index or NULL info. */
GIP_API gip_status gip_device_get_info(int32_t index, gip_device_info *info);

/** Why no CUDA device is usable, "" when one is. Static storage. */
GIP_API const char *gip_device_unavailable_reason(void);

/* ---------------------------------------------------------------------------------------------
 * Allocation and transfers.
 * ------------------------------------------------------------------------------------------- */
/**
 * Allocates an image and fills the view `img`. The stride is the tight row size rounded up to 64
 * bytes for host memory and to 256 bytes for device memory (pass GIP_ALLOC_TIGHT for no padding).
 * Free with gip_image_free(). Memory content is undefined. Device memory comes from the
 * context's stream-ordered pool (cudaMallocFromPoolAsync): it is ready at once for work queued on
 * the context's stream; work on another stream must first wait for that stream (an event, or
 * gip_context_sync()). Freed blocks are cached by the context and reused, so a loop of calls
 * does not pay cudaMalloc and cudaFree each time.
 * @param ctx     needed for GIP_MEM_CUDA/GIP_MEM_PINNED (the context's device); may be NULL for
 *                GIP_MEM_HOST.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT; GIP_ERR_TOO_LARGE; GIP_ERR_OUT_OF_MEMORY;
 *         GIP_ERR_DEVICE_OUT_OF_MEMORY; GIP_ERR_NO_DEVICE (device memory on a CPU context);
 *         GIP_ERR_BAD_STATE. On failure `img` is unchanged.
 */
GIP_API gip_status gip_image_alloc(gip_context *ctx, gip_image *img, int64_t width, int64_t height,
                                   int32_t channels, gip_dtype dtype, gip_memory memory,
                                   uint32_t flags);
#define GIP_ALLOC_TIGHT 1u /* stride = width * channels * dtype size */

/**
 * Frees memory from gip_image_alloc() and zeroes the view. NULL or a zeroed view is a no-op.
 * Device memory is freed in stream order on `ctx`'s stream: work already queued there may still
 * use it, work queued on other streams must have finished (as with cudaFreeAsync); the block
 * returns to the context's cache. With ctx NULL device memory is freed by cudaFree, which waits
 * for the device. ctx may be NULL for host memory. Page-locked (GIP_MEM_PINNED) blocks are kept
 * in a cache (GIP_PINNED_CACHE bytes, 1 GiB by default) and given to later allocations without
 * waiting for the device: free one only after the copies queued into or out of it have finished
 * (gip_context_sync()).
 */
GIP_API void gip_image_free(gip_context *ctx, gip_image *img);

/**
 * Copies pixels between two views of the same width, height, channels and dtype, in any
 * combination of host and device memory, strided. Device copies are queued on the context's
 * stream; a copy into pageable host memory returns when the data is there; call
 * gip_context_sync() before reading a pinned destination.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT; GIP_ERR_SHAPE_MISMATCH; GIP_ERR_NO_DEVICE (a device
 *         view on a CPU context); GIP_ERR_LOCATION_MISMATCH (device view of another device);
 *         GIP_ERR_DEVICE; GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_copy(gip_context *ctx, const gip_image *src, gip_image *dst);

/** gip_copy() that also checks the direction: host `src` to device `dst`. */
GIP_API gip_status gip_upload(gip_context *ctx, const gip_image *src, gip_image *dst);
/** gip_copy() that also checks the direction: device `src` to host `dst`. */
GIP_API gip_status gip_download(gip_context *ctx, const gip_image *src, gip_image *dst);

/** Fills every element of `img` with the byte `value` (host or device). Used to poison outputs. */
GIP_API gip_status gip_image_fill_bytes(gip_context *ctx, gip_image *img, uint8_t value);

#ifdef __cplusplus
}
#endif
#endif
