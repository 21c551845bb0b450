/* SPDX-License-Identifier: MIT */
/* The batch loader: JPEG (or any format gip reads) files or memory buffers in, fixed-size batches
 * of cropped, augmented and normalised NCHW/NHWC tensors out, for training and inference. */
#ifndef GIP_LOADER_H
#define GIP_LOADER_H

#include "gip/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Which decoder the worker threads use. */
typedef enum gip_loader_decoder {
    /** libjpeg-turbo (and libpng, PNM) on the CPU; crops, resizing and jitter on the CPU too:
     *  the same bits on both backends. */
    GIP_LOADER_DECODE_CPU = 0,
    /** CUDA contexts only: JPEGs decoded by nvJPEG in groups of up to 16 files per worker
     *  (gip_jpeg_decode_device_batch(): what nvJPEG refuses goes through libjpeg-turbo and an
     *  upload), cropped and resized on the device. Pixels differ from the CPU decoder's by
     *  nvJPEG's IDCT (a few levels, tests/test_nvjpeg.c); colour jitter is refused. */
    GIP_LOADER_DECODE_NVJPEG = 1
} gip_loader_decoder;

/** How each image becomes an out_size x out_size crop. */
typedef enum gip_loader_mode {
    /** torchvision's Resize(resize) + CenterCrop(size): the shorter side to `resize` (the longer
     *  to int(resize * long / short)), then the centre size x size (offsets rounded half to
     *  even, as int(round((h - size) / 2.0))). */
    GIP_LOADER_EVAL = 0,
    /** torchvision's RandomResizedCrop(size, scale, ratio).get_params (10 tries, then the
     *  centre-crop fallback), then the crop resized to size x size. */
    GIP_LOADER_TRAIN = 1,
    /** The whole image resized to fit size x size (scale min(size / w, size / h), each side
     *  rounded half to even, at least 1) and centred on `fill` (offsets floored). */
    GIP_LOADER_LETTERBOX = 2
} gip_loader_mode;

typedef enum gip_loader_layout {
    GIP_LOADER_NCHW = 0, /**< [n][channel][y][x] */
    GIP_LOADER_NHWC = 1  /**< [n][y][x][channel] */
} gip_loader_layout;

typedef enum gip_loader_dtype {
    GIP_LOADER_F16 = 0,  /**< IEEE half, rounded to nearest even */
    GIP_LOADER_BF16 = 1, /**< bfloat16, rounded to nearest even */
    GIP_LOADER_F32 = 2,  /**< float */
    GIP_LOADER_U8 = 3    /**< the pixels, not normalised (mean and std must be 0) */
} gip_loader_dtype;

typedef enum gip_loader_on_error {
    GIP_LOADER_FAIL = 0, /**< gip_loader_next() returns the file's status, naming the file */
    GIP_LOADER_SKIP = 1  /**< the file is left out of its batch (n is smaller; see skipped) */
} gip_loader_on_error;

/**
 * What a loader reads and makes. Zero-initialise: zero is the default of every field.
 * Images are decoded as RGB u8 without applying EXIF orientation (as torchvision's decode_jpeg
 * and PIL's open), cropped and resized (bilinear with antialias, gip_resize()'s antialias: a
 * triangle filter widened by the shrink factor, as torchvision's antialias=True and Pillow; a
 * plain bilinear when enlarging), optionally flipped and colour-jittered, then normalised as
 * out = (pixel / 255 - mean[c]) / std[c] (computed as pixel * a[c] + b[c] in float, fused
 * multiply-add) and converted to the output dtype.
 */
typedef struct gip_loader_desc {
    const char *const *files;   /**< n paths; or NULL with `buffers` */
    const void *const *buffers; /**< n encoded images in memory (read, not copied: they must
                                     outlive the loader); used when files is NULL */
    const size_t *buffer_sizes; /**< n sizes, with buffers */
    int64_t n;                  /**< number of files or buffers, >= 1 */
    const int64_t *labels;      /**< optional n labels that travel with each batch */

    int32_t batch_size; /**< images per batch, 1..65535; 0 = 256 */
    int32_t size;       /**< output width and height, 1..16384; 0 = 224 */
    int32_t resize;     /**< EVAL: the shorter side before the centre crop, >= size;
                             0 = size * 256 / 224 (rounded down) */
    gip_loader_mode mode;
    double scale[2]; /**< TRAIN: area fraction range, 0 < lo <= hi <= 1; {0, 0} = {0.08, 1} */
    double ratio[2]; /**< TRAIN: aspect ratio (w / h) range, 0 < lo <= hi; {0, 0} = {3/4, 4/3} */
    int32_t fill;    /**< LETTERBOX: the u8 value of the padding, 0..255 */
    double hflip;    /**< probability of a horizontal flip, 0..1 (0: never) */
    /** Colour jitter as torchvision.transforms.v2.ColorJitter(brightness, contrast, saturation)
     *  on u8 images: each factor uniform in [max(0, 1 - v), 1 + v], applied in a random order;
     *  0 leaves that property alone. */
    double brightness, contrast, saturation;
    double mean[3], std[3]; /**< per RGB channel, in units of pixel / 255; std 0 = 1 (so all
                                 zero: out = pixel / 255). Must be all 0 for U8 output. */
    gip_loader_layout layout;
    gip_loader_dtype dtype;
    uint64_t seed;       /**< every random draw (shuffle, crops, flips, jitter) comes from a counter
                              generator keyed by (seed, epoch, file index): same batches for any
                              number of threads and on either backend */
    int32_t shuffle;     /**< non-zero: a new permutation of the files each epoch */
    int32_t rank, world; /**< shard `rank` of `world` (0 = 1): torch DistributedSampler's rule,
                              the epoch's order padded by wrapping to a multiple of world, then
                              every world-th file from rank */
    int32_t drop_last;   /**< non-zero: a last batch smaller than batch_size is dropped */
    int32_t prefetch;    /**< batches prepared ahead, 1..64; 0 = 2 */
    int32_t threads;     /**< worker threads, 1..1024; 0 = the cores this process may use */
    gip_loader_on_error on_error;
    gip_loader_decoder decoder;
} gip_loader_desc;

/** One batch. The memory is the caller's until gip_loader_batch_free(). */
typedef struct gip_loader_batch {
    void *data;        /**< n images in the layout and dtype of the desc, tightly packed */
    gip_memory memory; /**< GIP_MEM_HOST for a CPU context, GIP_MEM_CUDA for a CUDA context */
    int32_t device;
    int64_t n;        /**< images in this batch; 0 at the end of an epoch */
    int64_t channels; /**< 3 */
    int64_t height, width;
    gip_loader_layout layout;
    gip_loader_dtype dtype;
    int64_t bytes;         /**< size of data */
    int64_t *indices;      /**< n file indices (into desc.files) */
    int64_t *labels;       /**< n labels, or NULL when the desc had none */
    int64_t epoch, number; /**< the epoch and the batch's number in it */
    int64_t skipped;       /**< files left out of this batch (GIP_LOADER_SKIP) */
    char message[512];     /**< the first skipped file's path and error, "" when none */
} gip_loader_batch;

/** Where the loader's time went (seconds summed over worker threads, except handover). */
typedef struct gip_loader_stats {
    int64_t images, skipped, batches;
    double read, decode, transform; /**< file reading, decoding, crop+resize+augment+normalise */
    double handover;                /**< in gip_loader_next(): waiting, upload, device kernel */
} gip_loader_stats;

typedef struct gip_loader gip_loader;

/**
 * Creates a loader and starts its worker threads, which begin preparing epoch 0 at once.
 * Outputs live where `ctx` computes: host memory for a CPU context, the context's device for a
 * CUDA context (the workers decode, crop, resize and jitter on the CPU into pinned staging memory;
 * per batch one upload and one kernel flip, normalise and lay out the batch on the context's
 * stream, with the CPU path's arithmetic, so both backends give the same values). The
 * context is used by gip_loader_next() and gip_loader_batch_free() only (under the loader's
 * lock), and must outlive the loader. The desc's arrays are copied (not the buffers).
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, n < 1, a NULL path or buffer, a field out of
 *         its range, mean/std with U8, DECODE_NVJPEG on a CPU context); GIP_ERR_UNSUPPORTED
 *         (colour jitter with DECODE_NVJPEG); GIP_ERR_OUT_OF_MEMORY; GIP_ERR_DEVICE;
 *         GIP_ERR_BAD_STATE (a poisoned context). *out is NULL on failure.
 */
GIP_API gip_status gip_loader_create(gip_context *ctx, const gip_loader_desc *desc,
                                     gip_loader **out);

/** Stops and joins the worker threads and frees the loader. Batches already handed out stay
 *  valid: free them afterwards with gip_loader_batch_free(NULL, b) (device memory then goes by
 *  cudaFree, which waits for the device; the context must still exist). NULL is a no-op. */
GIP_API void gip_loader_destroy(gip_loader *l);

/** Batches per epoch on this shard (after drop_last). */
GIP_API int64_t gip_loader_len(const gip_loader *l);
/** Images per epoch on this shard (ceil(n / world)). */
GIP_API int64_t gip_loader_samples(const gip_loader *l);

/**
 * Restarts at batch 0 of `epoch` (>= 0): work prepared for the current epoch is dropped.
 * Without it, the batch after the end of epoch e is batch 0 of epoch e + 1.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, epoch < 0).
 */
GIP_API gip_status gip_loader_set_epoch(gip_loader *l, int64_t epoch);

/**
 * Waits for the next batch and hands it over. At the end of an epoch it returns GIP_OK with
 * b->n == 0 and b->data NULL (nothing to free), and the following call begins the next epoch.
 * With GIP_LOADER_SKIP a batch whose files all failed is passed over (its skipped count and
 * message go with the next batch, or with the end of the epoch). One consumer thread: calls of
 * gip_loader_next() and gip_loader_set_epoch() must not overlap.
 * A device batch is complete on the context's stream when this returns (the stream has been
 * synchronised). With GIP_LOADER_FAIL a file that cannot be read or decoded makes this return
 * its status with a message naming the file; that batch is dropped and the next call goes on
 * with the following batch.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL); a file's status (GIP_ERR_NOT_FOUND, GIP_ERR_IO,
 *         GIP_ERR_CORRUPT, GIP_ERR_UNKNOWN_FORMAT, GIP_ERR_TOO_LARGE); GIP_ERR_OUT_OF_MEMORY;
 *         GIP_ERR_DEVICE_OUT_OF_MEMORY; GIP_ERR_DEVICE. On error *b is zeroed.
 */
GIP_API gip_status gip_loader_next(gip_loader *l, gip_loader_batch *b);

/** Frees a batch's memory and zeroes it. Device memory is freed in the order of the loader's
 *  context stream (the block is reused by later batches): work on other streams that reads the
 *  batch must have finished. With l NULL (also after gip_loader_destroy()) device memory goes by
 *  cudaFree, which waits for the whole device. A zeroed batch is a no-op. Any thread. */
GIP_API void gip_loader_batch_free(gip_loader *l, gip_loader_batch *b);

/** The loader's counters since creation. */
GIP_API gip_status gip_loader_get_stats(const gip_loader *l, gip_loader_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
