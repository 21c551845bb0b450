/* SPDX-License-Identifier: MIT */
/* Reading and writing images: JPEG (libjpeg-turbo), PNG (libpng), binary PPM/PGM. */
#ifndef GIP_IO_H
#define GIP_IO_H

#include "gip/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gip_format {
    GIP_FORMAT_AUTO = 0, /* read: from the bytes; write: from the path's extension */
    GIP_FORMAT_JPEG = 1,
    GIP_FORMAT_PNG = 2,
    GIP_FORMAT_PNM = 3 /* binary PGM (P5, gray) and PPM (P6, RGB), 8 or 16 bits */
} gip_format;

/**
 * The format a file name's extension names, as gip_image_save() chooses it: .jpg/.jpeg, .png,
 * .pgm/.ppm/.pnm; GIP_FORMAT_AUTO for any other or none. *pnm_kind (may be NULL) is 1 for .pgm,
 * 3 for .ppm and 0 otherwise.
 */
GIP_API gip_format gip_format_from_path(const char *path, int32_t *pnm_kind);
/** Name of a format: "jpeg", "png", "pnm", or "?". */
GIP_API const char *gip_format_name(gip_format format);

typedef enum gip_load_mode {
    GIP_LOAD_UNCHANGED = 0, /* channels and depth as stored (see below) */
    GIP_LOAD_GRAY = 1,      /* 1 channel, u8 (cv2.IMREAD_GRAYSCALE) */
    GIP_LOAD_COLOR = 2      /* 3 channels, u8 (cv2.IMREAD_COLOR) */
} gip_load_mode;
/* With GIP_LOAD_UNCHANGED, gray+alpha files load as 4 channels (gray replicated, alpha kept) since
 * gip images have 1, 3 or 4 channels; 16-bit PNG/PNM load as u16. */

/** Default decoding limits: refuse images above these before allocating (decompression bombs). */
#define GIP_DEFAULT_MAX_PIXELS ((int64_t)1 << 30) /* 1 Gpixel */
#define GIP_DEFAULT_MAX_DIM ((int64_t)1 << 20)    /* 1048576 per side */

/**
 * The host memory limit of a load whose gip_load_params.max_memory is 0 (and of the whole-image
 * run of gip_pipeline_run_file_bounded() with max_memory 0): the GIP_MAX_MEMORY environment
 * variable when it is set (a byte count: a positive integer with an optional K, M, G or T suffix,
 * powers of 1024, e.g. "512M"), else a quarter of the memory the process may use (the physical
 * memory, or a lower cgroup limit). Read at each call. -1 when GIP_MAX_MEMORY is set but is not a
 * byte count; a load then fails with GIP_ERR_INVALID_ARGUMENT naming it.
 */
GIP_API int64_t gip_default_max_memory(void);

/** Options for loading. Zero-initialise: zero means default for every field. */
typedef struct gip_load_params {
    gip_load_mode mode;
    int32_t bgr;        /* non-zero: colour channels in BGR(A) order, as cv2.imread gives */
    int32_t keep_depth; /* with GRAY/COLOR: keep 16-bit depth (cv2.IMREAD_ANYDEPTH) */
    int64_t max_pixels; /* 0 = GIP_DEFAULT_MAX_PIXELS */
    int64_t max_dim;    /* 0 = GIP_DEFAULT_MAX_DIM */
    int64_t max_memory; /* bytes of host memory the load may allocate; 0 = the default limit,
                           gip_default_max_memory() */
    /* non-zero: keep the stored pixel order; zero (the default) turns the image upright by its
     * EXIF Orientation, as cv2.imread does (cv2.IMREAD_IGNORE_ORIENTATION) */
    int32_t ignore_orientation;
    /* 2, 4 or 8: load at 1/N of the size, as cv2.IMREAD_REDUCED_*: a JPEG by libjpeg's DCT
     * scaling (each side rounded up: shrink-on-load, decoding 1/N^2 of the pixels), other formats
     * resized to (w / N) x (h / N) with INTER_LINEAR_EXACT (each side at least 1). 0 or 1: full
     * size; for a file run through a pipeline (gip_pipeline_run_file*(), gip_batch_run()), 0
     * takes the first step's shrink-on-load (gip_op_load_reduce(): thumbnail's) and 1 decodes
     * whole. Applied before the EXIF orientation, as cv2 does. */
    int32_t reduce;
} gip_load_params;
/* EXIF Orientation is read from a JPEG's APP1 "Exif" segment and a PNG's eXIf chunk; values 2..8
 * mirror, rotate or transpose the loaded image exactly as cv2.imread does (5..8 swap its width
 * and height), in every mode. cv2.imread skips it for IMREAD_UNCHANGED: gip's Python imread
 * sets ignore_orientation for that flag. A missing, malformed or out-of-range tag is ignored. */

/** What a file holds, read from its header only. */
typedef struct gip_image_info {
    gip_format format;
    int64_t width, height;
    int32_t channels;    /* as stored: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
    int32_t bit_depth;   /* 8 or 16 */
    int32_t progressive; /* JPEG: progressive; PNG: interlaced */
    int32_t orientation; /* EXIF Orientation 1..8 (1: none or invalid) found in the header; width
                            and height are as stored, before loading applies it (5..8 swap them;
                            a PNG eXIf chunk after the pixels is seen only by loading) */
} gip_image_info;

/**
 * Reads the header of a file and describes the image.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL); GIP_ERR_NOT_FOUND; GIP_ERR_IO;
 *         GIP_ERR_UNKNOWN_FORMAT; GIP_ERR_CORRUPT. The message says what and where.
 */
GIP_API gip_status gip_image_probe(const char *path, gip_image_info *info);
/** gip_image_probe() on bytes in memory. */
GIP_API gip_status gip_image_probe_memory(const void *data, size_t size, gip_image_info *info);

/**
 * Loads an image file into newly allocated host memory (free with gip_image_free(NULL, out)).
 * The format comes from the file's bytes. Sizes are checked against the limits before any pixel
 * memory is allocated: max_dim, max_pixels, then max_memory against the bytes the load allocates
 * (the decoded image, and a converted copy where the mode or order differs from the file's),
 * all read from the header, so that a small file declaring a huge image (a decompression bomb)
 * costs no memory. Bigger images can be streamed by rows: gip_pipeline_run_file_bounded().
 * GIP_LOAD_GRAY gives what cv2.imread(IMREAD_GRAYSCALE) gives: libjpeg's luma for JPEG,
 * libpng's RGB-to-gray (0.299, 0.587) for colour PNG. The image is turned upright by its EXIF
 * Orientation unless params->ignore_orientation.
 * @param params  may be NULL (defaults).
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT; GIP_ERR_NOT_FOUND; GIP_ERR_IO; GIP_ERR_UNKNOWN_FORMAT;
 *         GIP_ERR_CORRUPT (truncated or corrupt data); GIP_ERR_TOO_LARGE (above a limit);
 *         GIP_ERR_OUT_OF_MEMORY. On error `out` is unchanged and nothing is leaked.
 */
GIP_API gip_status gip_image_load(const char *path, const gip_load_params *params, gip_image *out);
/** gip_image_load() from bytes in memory. */
GIP_API gip_status gip_image_decode(const void *data, size_t size, const gip_load_params *params,
                                    gip_image *out);

typedef enum gip_subsampling {
    GIP_SUBSAMPLING_DEFAULT = 0, /* 4:2:0, as cv2.imwrite */
    GIP_SUBSAMPLING_444 = 1,
    GIP_SUBSAMPLING_422 = 2,
    GIP_SUBSAMPLING_420 = 3
} gip_subsampling;

/** Options for saving. Zero-initialise: zero means default for every field. */
typedef struct gip_save_params {
    gip_format format; /* 0 = from the path's extension (.jpg .jpeg .png .ppm .pgm .pnm) */
    int32_t quality;   /* JPEG quality 1..100, 0 = 95 (cv2's default) */
    gip_subsampling subsampling; /* JPEG chroma subsampling */
    int32_t progressive;         /* JPEG: non-zero writes a progressive file */
    int32_t png_compression;     /* PNG zlib level 1..9, 0 = 1 (cv2's default is 1) */
    int32_t bgr;                 /* non-zero: the image's colour channels are in BGR(A) order */
    int32_t overwrite; /* non-zero: replace an existing output even when it is read-only */
} gip_save_params;

/**
 * Writes a host image (u8, or u16 for PNG/PNM; 1, 3 or 4 channels; JPEG takes 1 or 3) to a file.
 * The data go to an unnamed file in the same folder (O_TMPFILE; elsewhere a locked temporary
 * "PATH.gip.tmp" that the next save of PATH removes if a killed process left it) which gets the
 * name `path` only when complete: a failure never leaves a partial file and never destroys an
 * existing one. A new file gets mode 0666 & ~umask; a replaced file keeps its permission bits. An
 * existing file that the caller may not write (read-only) is refused unless params->overwrite.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT; GIP_ERR_UNSUPPORTED (dtype/channels the format cannot
 *         store, unknown extension); GIP_ERR_LOCATION_MISMATCH (device image: download first);
 *         GIP_ERR_IO (folder missing or unwritable, disk full, a read-only `path` without
 *         overwrite); GIP_ERR_OUT_OF_MEMORY.
 */
GIP_API gip_status gip_image_save(const char *path, const gip_image *img,
                                  const gip_save_params *params);

/**
 * Encodes a host image into a newly allocated buffer (free with gip_free()). `params->format`
 * must name a format (AUTO is refused). Statuses as gip_image_save().
 */
GIP_API gip_status gip_image_encode(const gip_image *img, const gip_save_params *params,
                                    void **data, size_t *size);

/** Frees memory that gip returned (encoded buffers). NULL is a no-op. */
GIP_API void gip_free(void *ptr);

/* ---- GPU JPEG (nvJPEG) ----------------------------------------------------------------------- *
 * Built when CMake finds nvjpeg.h and libnvjpeg (NVJPEG_ROOT may name the nvidia-nvjpeg wheel's
 * nvidia/cu13 folder); otherwise every function below returns GIP_ERR_NOT_BUILT ("built without
 * nvJPEG"). Decoding uses the GPU's hardware JPEG decoder (where the GPU has one) through nvJPEG's
 * batched API for baseline files it supports, else the GPU hybrid backend (progressive files
 * included), and libjpeg-turbo plus an upload for what nvJPEG refuses (CMYK, 12-bit, gray files
 * in colour modes, corrupt data: the CPU decoder then gives the precise error) and for reduced
 * loads (params->reduce 2, 4, 8: libjpeg's DCT scaling decodes 1/N^2 of the pixels). nvJPEG's IDCT
 * is not libjpeg's ISLOW: pixels differ from gip_image_decode() by a few levels (bound measured in
 * tests/test_nvjpeg.c and docs/pipelines.md). Calls are synchronous: the images are complete on
 * return. Thread-safe (one nvJPEG handle per process, a state per call). */

/**
 * Decodes JPEG bytes into a new device image on ctx's device (free with gip_image_free(ctx, ..)):
 * GIP_LOAD_GRAY gives 1 channel (the Y plane), other modes 3 (RGB, BGR with params->bgr), u8.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT; GIP_ERR_NO_DEVICE (CPU context); GIP_ERR_NOT_BUILT;
 *         statuses of gip_image_decode() for files decoded on the CPU (GIP_ERR_CORRUPT for
 *         corrupt or truncated data, GIP_ERR_TOO_LARGE above the limits); GIP_ERR_DEVICE;
 *         GIP_ERR_DEVICE_OUT_OF_MEMORY. On error *out is unchanged.
 */
GIP_API gip_status gip_jpeg_decode_device(gip_context *ctx, const void *data, size_t size,
                                          const gip_load_params *params, gip_image *out);
/**
 * Decodes n files at once (one batched hardware decode for those the hardware takes). outs[i]
 * and statuses[i] receive each file's image and status (a failed file leaves outs[i] zeroed).
 * @return GIP_OK when the batch ran (check statuses); GIP_ERR_INVALID_ARGUMENT (n < 1, NULL);
 *         GIP_ERR_NO_DEVICE; GIP_ERR_NOT_BUILT; GIP_ERR_DEVICE (every file then failed).
 */
GIP_API gip_status gip_jpeg_decode_device_batch(gip_context *ctx, int32_t n,
                                                const void *const *data, const size_t *sizes,
                                                const gip_load_params *params, gip_image *outs,
                                                gip_status *statuses);
/**
 * Encodes a device image (u8, 1 or 3 channels, ctx's device) as a baseline JPEG with nvJPEG into
 * a malloc'd buffer (free with gip_free()). params: quality (0 = 95) and subsampling (default
 * 4:2:0) as gip_image_encode(), bgr for BGR images; progressive is refused. Waits for the result.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT; GIP_ERR_LOCATION_MISMATCH (host image);
 * GIP_ERR_UNSUPPORTED (dtype/channels, progressive); GIP_ERR_TOO_LARGE (> 65500 per side);
 * GIP_ERR_NOT_BUILT; GIP_ERR_DEVICE; GIP_ERR_OUT_OF_MEMORY.
 */
GIP_API gip_status gip_jpeg_encode_device(gip_context *ctx, const gip_image *img,
                                          const gip_save_params *params, void **data, size_t *size);
/** The nvJPEG backend this process uses: "hardware", "gpu-hybrid", or "" (none / not built). */
GIP_API const char *gip_nvjpeg_backend(void);

/**
 * How many images this process's nvJPEG decodes (gip_jpeg_decode_device*, the batch codec) went
 * through each path so far: the hardware decoder, the GPU hybrid backend, and libjpeg-turbo on the
 * CPU followed by an upload (what nvJPEG refused). Any pointer may be NULL; all zero without
 * nvJPEG. For seeing where a batch's decode time goes.
 */
GIP_API void gip_nvjpeg_decode_counts(int64_t *hardware, int64_t *hybrid, int64_t *cpu);

#ifdef __cplusplus
}
#endif
#endif
