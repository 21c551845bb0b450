/* SPDX-License-Identifier: MIT */
/* User kernels at run time: CUDA source compiled with NVRTC (cached on disk), and map/stencil
 * expressions that run on both backends. */
#ifndef GIP_KERNEL_H
#define GIP_KERNEL_H

#include "gip/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* =============================================================================================
 * Raw CUDA modules (CUDA contexts only).
 *
 * A module is CUDA C++ source compiled by NVRTC for the compute capability of the context's
 * device: a cubin for sm_XY when NVRTC knows that architecture, otherwise PTX for the newest
 * compute_XY it knows below it (the driver finishes the compilation at load). Kernels are looked
 * up by name, so declare them `extern "C" __global__` (C++ names are mangled).
 *
 * Compiled code is cached on disk, in $GIP_CACHE_DIR, else $XDG_CACHE_HOME/gip, else
 * ~/.cache/gip (created when missing). The key covers the source, the options, the target
 * architecture and the NVRTC, CUDA runtime and driver versions. Entries are written atomically
 * (temporary file, then rename) and checked on every read (magic, format version, full key,
 * length, checksum); anything that does not match is ignored and rebuilt. A folder that cannot be
 * created or written just disables the cache.
 * ============================================================================================ */
typedef struct gip_module gip_module;
typedef struct gip_kernel gip_kernel;

/** Compile flags (gip_compile_options.flags). */
#define GIP_COMPILE_NO_CACHE 1u /* neither read nor write the disk cache */

/** Compilation options. Zero-initialise: zero means no extra option, no include path. */
typedef struct gip_compile_options {
    const char *const *options;       /* extra NVRTC options ("-DRADIUS=2", "--use_fast_math") */
    int32_t n_options;                /* number of entries in options, >= 0 */
    const char *const *include_paths; /* folders searched by #include "..."; each becomes -I */
    int32_t n_include_paths;          /* >= 0 */
    uint32_t flags;                   /* GIP_COMPILE_* */
} gip_compile_options;

/**
 * Compiles CUDA source for the context's device and loads it.
 * @param ctx              a CUDA context (a CPU context gives GIP_ERR_NO_DEVICE: raw CUDA modules
 *                         need a CUDA device).
 * @param source           NUL-terminated CUDA C++ source.
 * @param name_for_errors  file name used in NVRTC's messages ("mean.cu"); NULL means "kernel.cu".
 * @param options          may be NULL (no extra options). gip adds --gpu-architecture itself; do
 *                         not pass one.
 * @param out              receives the module; NULL on failure. Free with gip_module_free().
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL arguments, negative counts, NULL entries, and a
 *         compile error: the message then holds NVRTC's log, "mean.cu(3): error: ...");
 * GIP_ERR_NO_DEVICE; GIP_ERR_UNSUPPORTED (the device is older than every architecture NVRTC knows);
 *         GIP_ERR_DEVICE (loading the code failed); GIP_ERR_OUT_OF_MEMORY; GIP_ERR_BAD_STATE.
 * Thread-safe. Compilation is synchronous; nothing is queued on the stream.
 */
GIP_API gip_status gip_module_compile(gip_context *ctx, const char *source,
                                      const char *name_for_errors,
                                      const gip_compile_options *options, gip_module **out);

/** Unloads a module and frees its kernels. Waits for nothing: free it only when launches that
 *  use it have finished (gip_context_sync()). NULL is a no-op. */
GIP_API void gip_module_free(gip_module *module);

/** What a compilation did. */
typedef struct gip_module_info {
    int32_t cache_hit; /* non-zero: the code came from the disk cache, NVRTC did not run */
    int32_t cc_major;  /* compute capability compiled for */
    int32_t cc_minor;
    int32_t is_ptx;         /* non-zero: PTX (compute_XY) finished by the driver, else a cubin */
    char target[32];        /* "sm_90" or "compute_90" */
    double compile_seconds; /* wall time in NVRTC (0 on a cache hit) */
    double load_seconds;    /* wall time reading the cache entry and loading the code */
} gip_module_info;

/** Fills `info` for a module. GIP_ERR_INVALID_ARGUMENT for NULL arguments. */
GIP_API gip_status gip_module_get_info(const gip_module *module, gip_module_info *info);

/**
 * Finds the `extern "C" __global__` function `name` of a module. The kernel belongs to the module
 * (valid until gip_module_free(); do not free it); asking twice gives the same pointer.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL arguments); GIP_ERR_NOT_FOUND (no kernel of that
 *         name; the message lists the module's kernels); GIP_ERR_DEVICE; GIP_ERR_OUT_OF_MEMORY.
 */
GIP_API gip_status gip_module_get_kernel(gip_module *module, const char *name, gip_kernel **out);

/** Kinds of kernel argument. */
typedef enum gip_arg_type {
    GIP_ARG_NONE = 0,
    GIP_ARG_PTR = 1,   /* a device pointer, passed as is (8 bytes) */
    GIP_ARG_IMAGE = 2, /* a device image view, expanded to five parameters, see below */
    GIP_ARG_I32 = 3,   /* int */
    GIP_ARG_I64 = 4,   /* long long */
    GIP_ARG_F32 = 5,   /* float */
    GIP_ARG_F64 = 6    /* double */
} gip_arg_type;

/**
 * One kernel argument. GIP_ARG_IMAGE expands, in this order, to the parameters
 *     T *data, int width, int height, long long stride, int channels
 * of the kernel (T: the element type, unsigned char / unsigned short / short / float; stride is
 * in bytes between row starts, so row y is (T *)((char *)data + y * stride)). A kernel taking one
 * image in and one out therefore reads
 *     extern "C" __global__ void k(const unsigned char *src, int w, int h, long long sstride,
 *                                  int c, unsigned char *dst, int dw, int dh, long long dstride,
 *                                  int dc)
 * The image must live on the context's device.
 */
typedef struct gip_kernel_arg {
    gip_arg_type type;
    union {
        void *ptr;
        const gip_image *image;
        int32_t i32;
        int64_t i64;
        float f32;
        double f64;
    } v;
} gip_kernel_arg;

/** Argument constructors, for C callers. */
static inline gip_kernel_arg gip_arg_ptr(void *p)
{
    gip_kernel_arg a = {GIP_ARG_PTR, {0}};
    a.v.ptr = p;
    return a;
}
static inline gip_kernel_arg gip_arg_image(const gip_image *img)
{
    gip_kernel_arg a = {GIP_ARG_IMAGE, {0}};
    a.v.image = img;
    return a;
}
static inline gip_kernel_arg gip_arg_i32(int32_t v)
{
    gip_kernel_arg a = {GIP_ARG_I32, {0}};
    a.v.i32 = v;
    return a;
}
static inline gip_kernel_arg gip_arg_i64(int64_t v)
{
    gip_kernel_arg a = {GIP_ARG_I64, {0}};
    a.v.i64 = v;
    return a;
}
static inline gip_kernel_arg gip_arg_f32(float v)
{
    gip_kernel_arg a = {GIP_ARG_F32, {0}};
    a.v.f32 = v;
    return a;
}
static inline gip_kernel_arg gip_arg_f64(double v)
{
    gip_kernel_arg a = {GIP_ARG_F64, {0}};
    a.v.f64 = v;
    return a;
}

/** Launch geometry. Zero-initialise: zero means computed. */
typedef struct gip_launch_config {
    uint32_t grid[3];      /* blocks; grid[0] == 0: computed so that one thread covers one pixel
                              of the size image: ceil(width / block[0]) x ceil(height / block[1]) */
    uint32_t block[3];     /* threads per block; block[0] == 0 means 16 x 16 x 1 */
    uint32_t shared_bytes; /* dynamic shared memory */
    const gip_image *size_from; /* image whose size gives a computed grid; NULL: the first
                                   GIP_ARG_IMAGE argument */
} gip_launch_config;

/**
 * Launches a kernel on the context's stream and checks the launch (not its completion: errors
 * that happen while it runs show at the next gip_context_sync()). Zero entries of grid[1..2] and
 * block[1..2] mean 1 when the other entries are given.
 * The number of parameters the arguments expand to and each one's size are checked against the
 * kernel's signature (GIP_ERR_INVALID_ARGUMENT naming the first mismatch).
 * @param config  may be NULL (everything computed).
 * @param args    `count` arguments (count >= 0; args may be NULL when count is 0).
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL arguments, bad types, argument mismatch, no image
 *         to size a computed grid, grid/block beyond the device's limits); GIP_ERR_NO_DEVICE (CPU
 *         context); GIP_ERR_LOCATION_MISMATCH (an image not on the context's device, or a module
 *         compiled for another compute capability); GIP_ERR_TOO_LARGE (a computed grid beyond
 *         65535 block rows, or an image over 2^31 - 1 pixels a side); GIP_ERR_DEVICE;
 *         GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_kernel_launch(gip_context *ctx, const gip_kernel *kernel,
                                     const gip_launch_config *config, const gip_kernel_arg *args,
                                     int32_t count);

/** Process-wide counters of the disk cache of compiled code (raw modules and expressions). */
typedef struct gip_cache_stats {
    int64_t hits;           /* entries read and used */
    int64_t misses;         /* compilations done because no usable entry existed */
    int64_t rejected;       /* entries found but ignored: corrupt, truncated, foreign */
    int64_t stores;         /* entries written */
    int64_t store_failures; /* entries that could not be written (cache disabled or I/O error) */
} gip_cache_stats;

/** Copies the counters into `out` (ignored when NULL). */
GIP_API void gip_kernel_cache_stats(gip_cache_stats *out);
/** Sets every counter to zero. */
GIP_API void gip_kernel_cache_stats_reset(void);

/**
 * Writes the folder the disk cache uses now into buf ("" when no folder can be derived: no
 * $GIP_CACHE_DIR, $XDG_CACHE_HOME or $HOME). Returns GIP_OK, or GIP_ERR_INVALID_ARGUMENT when buf
 * is NULL or too small.
 */
GIP_API gip_status gip_kernel_cache_dir(char *buf, size_t size);

/* =============================================================================================
 * Map and stencil expressions (both backends). The language is described in docs/expressions.md:
 * float32 arithmetic, comparisons, && || !, ?:, abs min max clamp sqrt exp log pow floor ceil
 * round sin cos, x y width height c channels, named scalars, and pixel accessors. An expression
 * may start with "out =". Evaluation is per channel in float32; the result is rounded half to
 * even and saturated for u8/u16 outputs (NaN gives 0), stored as is for f32.
 *
 * The CPU interprets a compiled register program over rows; the GPU runs generated CUDA compiled
 * by NVRTC through the disk cache (first use of an expression/dtype/border combination compiles,
 * later uses in the process reuse the loaded code). Integer outputs are identical on both backends
 * for expressions made of + - * / % min max clamp abs floor ceil round sqrt, comparisons, logic
 * and ?: (no contraction into FMA, same evaluation order); exp log pow sin cos may differ by an ulp
 * or two between libm and CUDA, which can move a rounded integer output by one.
 *
 * Syntax and type errors return GIP_ERR_INVALID_ARGUMENT with a message giving the column
 * (1-based) and what was expected: "gip_map: column 9: expected ')' after function arguments".
 * ============================================================================================ */

/** A named scalar parameter of an expression. */
typedef struct gip_scalar {
    const char *name; /* identifier: letter or _ then letters, digits, _; not a reserved word */
    float value;
} gip_scalar;

/** Largest number of map inputs and of scalars. */
#define GIP_EXPR_MAX_INPUTS 8
#define GIP_EXPR_MAX_SCALARS 16

/**
 * dst(x, y, c) = expr evaluated at (x, y, c). Input i is named in<i> (in0, in1, ...) and also by
 * the letter 'a' + i except c, which is the channel: a, b, (in2), d, e ...; input 0 is also `in`.
 * @param inputs     n_inputs views (1..GIP_EXPR_MAX_INPUTS), each u8, u16 or f32 (dtypes may
 *                   differ), all of dst's width, height and channel count (1, 3 or 4), all where
 *                   dst is (host, or the context's device).
 * @param scalars    n_scalars named values (0..GIP_EXPR_MAX_SCALARS, distinct names); NULL when 0.
 * @param dst        u8, u16 or f32. dst may be exactly an input (in place); other overlaps are
 *                   refused.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL arguments, bad counts, syntax or type error,
 *         unknown identifier); GIP_ERR_SHAPE_MISMATCH; GIP_ERR_UNSUPPORTED (dtype);
 *         GIP_ERR_ALIASING; GIP_ERR_LOCATION_MISMATCH; GIP_ERR_NO_DEVICE; GIP_ERR_DEVICE;
 *         GIP_ERR_BAD_STATE; GIP_ERR_OUT_OF_MEMORY. On error dst is unchanged.
 * Device work is queued on the context's stream (the first use of an expression compiles it,
 * synchronously).
 */
GIP_API gip_status gip_map(gip_context *ctx, const char *expr, const gip_image *inputs,
                           int32_t n_inputs, const gip_scalar *scalars, int32_t n_scalars,
                           gip_image *dst);

/** Stencil parameters. Zero-initialise. */
typedef struct gip_stencil_params {
    int32_t radius;         /* largest |dx| and |dy| allowed, 0..GIP_STENCIL_MAX_RADIUS; 0 means
                               the largest offset the expression uses */
    gip_border_spec border; /* how pixels outside the image are made up (default REFLECT_101) */
    const gip_scalar *scalars;
    int32_t n_scalars; /* 0..GIP_EXPR_MAX_SCALARS */
} gip_stencil_params;

#define GIP_STENCIL_MAX_RADIUS 32

/**
 * dst(x, y, c) = expr, where in(dx, dy) is src(x + dx, y + dy, c) with the border rule applied
 * outside the image (dx, dy: integer constants, |dx|, |dy| <= radius) and `in` is in(0, 0).
 * @param src     u8, u16 or f32; 1, 3 or 4 channels.
 * @param dst     same width, height and channels as src; u8, u16 or f32; must not overlap src.
 * @param params  may be NULL (defaults).
 * @return as gip_map(), plus GIP_ERR_INVALID_ARGUMENT for a bad radius, border or an offset
 *         beyond the radius.
 */
GIP_API gip_status gip_stencil(gip_context *ctx, const char *expr, const gip_image *src,
                               gip_image *dst, const gip_stencil_params *params);

/**
 * Unloads the expression kernels this process has loaded (the disk cache stays), so that the next
 * use of an expression reads the disk cache again: for benchmarks measuring the cached-load time
 * and for long-running programs that used many expressions. Call it only when no map or stencil
 * work is queued on any context (after gip_context_sync()). Nothing to do on the CPU.
 */
GIP_API void gip_expr_cache_release(void);

#ifdef __cplusplus
}
#endif
#endif
