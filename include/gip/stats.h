/* SPDX-License-Identifier: MIT */
/* Statistics with OpenCV's semantics: histogram equalisation and CLAHE (image to image), the
 * reductions calcHist, minMaxLoc, minMaxIdx, mean, meanStdDev, sum, countNonZero, norm and PSNR
 * (image to numbers in host memory), and the analysis functions compareHist, integral, moments
 * and HuMoments, matchTemplate and connected components. */
#ifndef GIP_STATS_H
#define GIP_STATS_H

#include "gip/core.h"
#include "gip/point.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Histogram equalisation as cv2.equalizeHist: the cumulative histogram of src, scaled to 0..255,
 * as a lookup table (bit for bit OpenCV's). src and dst: u8, one channel, same size; host or
 * device. dst may be src; other overlaps are refused.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT; GIP_ERR_SHAPE_MISMATCH; GIP_ERR_UNSUPPORTED;
 *         GIP_ERR_ALIASING; GIP_ERR_LOCATION_MISMATCH; GIP_ERR_NO_DEVICE; GIP_ERR_DEVICE;
 *         GIP_ERR_DEVICE_OUT_OF_MEMORY; GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_equalize_hist(gip_context *ctx, const gip_image *src, gip_image *dst);

/** CLAHE parameters (cv2.createCLAHE). Zero-initialise: zero means OpenCV's defaults. */
typedef struct gip_clahe_params {
    double clip_limit;        /* contrast limit; 0 means 40, negative means no clipping */
    int32_t tiles_x, tiles_y; /* tile grid; 0 means 8 each; at most 256 each */
    int32_t no_clip;          /* non-zero: no clipping whatever clip_limit says (clipLimit 0) */
} gip_clahe_params;

/**
 * Contrast limited adaptive histogram equalisation as cv2.createCLAHE(clipLimit,
 * tileGridSize).apply(src): per-tile histograms clipped at clip_limit * tile area / bins and
 * redistributed, their cumulative lookup tables interpolated bilinearly between tile centres.
 * An image whose size is not a multiple of the grid is extended by reflect101 for the tables, as
 * OpenCV. src and dst: u8 or u16 (65536 bins), one channel, same size and dtype; host or device;
 * dst must not overlap src. Bit for bit OpenCV's on both dtypes. params may be NULL.
 * @return as gip_equalize_hist(), plus GIP_ERR_INVALID_ARGUMENT for a bad grid or clip limit
 *         and GIP_ERR_OUT_OF_MEMORY.
 */
GIP_API gip_status gip_clahe(gip_context *ctx, const gip_image *src, gip_image *dst,
                             const gip_clahe_params *params);

/** calcHist parameters. Zero-initialise, then set dims, channels, bins and ranges. */
typedef struct gip_calc_hist_params {
    int32_t dims;        /* 1, 2 or 3 */
    int32_t channels[3]; /* the channel of src counted along each dimension */
    int32_t bins[3];     /* >= 1 each; their product at most 2^24 */
    /* Per dimension: uniform (default) {low, high}, values in [low, high) spread over the bins;
     * non-uniform bins + 1 ascending edges, bin i holding [edge i, edge i+1). NULL (uniform
     * only): {0, 256}. */
    const float *ranges[3];
    int32_t non_uniform; /* non-zero: ranges are edges */
    int32_t accumulate;  /* non-zero: add to hist's counts (rounded to integers) */
} gip_calc_hist_params;

/**
 * Histogram as cv2.calcHist([src], channels, mask, bins, ranges, accumulate=...): counts of the
 * pixels where mask is not zero, into `hist` (bins[0] * bins[1] * bins[2] floats, row-major, the
 * last dimension fastest). Values outside the ranges are not counted. Counts are exact and equal
 * on both backends. src: u8, u16 or f32, 1 to 4 channels; mask: NULL or a u8 one-channel image
 * of src's size where src is. On error hist is unchanged.
 * Where hist is: host memory (any src): synchronous, the result is on the host when the call
 * returns. Device memory of the context's device (src on that device too; found by
 * cudaPointerGetAttributes): the counts are written there on the device, never copied to the
 * host; with accumulate the old values are read there. One dimension of 256 bins over [0, 256)
 * of a u8 src without a mask is queued on the context's stream and returns without waiting
 * (gip_context_sync() or work on the stream orders it, as for an image output); other
 * histograms wait once for their bin tables' upload. A device hist with a host src is not
 * supported (the CPU would write to device memory).
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, bad dims, channels, bins or ranges);
 *         GIP_ERR_SHAPE_MISMATCH (mask size); GIP_ERR_UNSUPPORTED (dtype, mask type);
 *         GIP_ERR_LOCATION_MISMATCH (also: hist on another device); GIP_ERR_NO_DEVICE;
 *         GIP_ERR_DEVICE;
 *         GIP_ERR_DEVICE_OUT_OF_MEMORY; GIP_ERR_OUT_OF_MEMORY; GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_calc_hist(gip_context *ctx, const gip_image *src, const gip_image *mask,
                                 const gip_calc_hist_params *params, float *hist);

/* The reductions below: src u8, u16, s16 or f32 on the host (CPU) or the context's device
 * (CUDA); mask NULL or a u8 one-channel image of src's size where src is; results in host
 * memory, the call synchronous. Integer sums are exact (64-bit integers) and equal on both
 * backends; f32 sums are accumulated in double, on CUDA in a fixed order (a tree per block and
 * a fixed final combine), so a result is the same every run and within a few units of double
 * rounding of the CPU's. On error the outputs are unchanged. Statuses: GIP_OK;
 * GIP_ERR_INVALID_ARGUMENT (NULL, bad norm type); GIP_ERR_SHAPE_MISMATCH (mask or src2 size or
 * type); GIP_ERR_UNSUPPORTED (dtype, channels, mask type); GIP_ERR_LOCATION_MISMATCH;
 * GIP_ERR_NO_DEVICE; GIP_ERR_DEVICE; GIP_ERR_DEVICE_OUT_OF_MEMORY; GIP_ERR_BAD_STATE. */

/**
 * cv2.minMaxLoc: the smallest and largest value of a one-channel src (where mask is not zero)
 * and their first positions in row order, loc[0] = x, loc[1] = y. An empty mask gives 0, 0 and
 * positions -1, -1, as OpenCV. NaNs are skipped. Any output pointer may be NULL.
 */
GIP_API gip_status gip_min_max_loc(gip_context *ctx, const gip_image *src, const gip_image *mask,
                                   double *min_val, double *max_val, int64_t min_loc[2],
                                   int64_t max_loc[2]);

/** The smallest and largest value of each channel (min[c], max[c] for c < channels, 0 after
 *  and for an empty mask): cv2.minMaxLoc of each channel plane. 1 to 4 channels; NaNs skipped. */
GIP_API gip_status gip_channel_min_max(gip_context *ctx, const gip_image *src,
                                       const gip_image *mask, double min_val[4], double max_val[4]);

/** cv2.mean: the mean of each channel (mean[c] for c < channels, 0 after; 0 for an empty mask).
 *  1 to 4 channels. */
GIP_API gip_status gip_mean(gip_context *ctx, const gip_image *src, const gip_image *mask,
                            double mean[4]);

/** cv2.meanStdDev: the mean and the population standard deviation of each channel. */
GIP_API gip_status gip_mean_std_dev(gip_context *ctx, const gip_image *src, const gip_image *mask,
                                    double mean[4], double stddev[4]);

/** cv2.sum: the sum of each channel (0 after the last). */
GIP_API gip_status gip_sum(gip_context *ctx, const gip_image *src, double sum[4]);

/** cv2.countNonZero: the number of non-zero elements of a one-channel src. */
GIP_API gip_status gip_count_non_zero(gip_context *ctx, const gip_image *src, int64_t *count);

/** Or-ed with a gip_norm_type (GIP_NORM_INF, GIP_NORM_L1, GIP_NORM_L2 of gip/point.h, OpenCV's
 *  values) in gip_norm(): the norm of src1 - src2 divided by src2's, as cv2.NORM_RELATIVE. */
enum { GIP_NORM_RELATIVE = 8 };

/**
 * cv2.norm(src1[, src2], norm_type, mask): the INF, L1 or L2 norm of src1, or of src1 - src2
 * when src2 is given (same size, dtype and channels), over all channels of the pixels where mask
 * is not zero. With GIP_NORM_RELATIVE (src2 required) the result is divided by src2's norm plus
 * DBL_EPSILON. 1 to 4 channels.
 */
GIP_API gip_status gip_norm(gip_context *ctx, const gip_image *src1, const gip_image *src2,
                            int32_t norm_type, const gip_image *mask, double *result);

/**
 * cv2.PSNR(src1, src2, R): 20 log10(R / (sqrt(mean squared difference) + DBL_EPSILON)) over all
 * elements. src1, src2: same size, dtype and channels. r 0 means 255; it must be positive.
 */
GIP_API gip_status gip_psnr(gip_context *ctx, const gip_image *src1, const gip_image *src2,
                            double r, double *result);

/* ---- analysis: minMaxIdx, compareHist, integral, moments, matchTemplate, connected components */

/**
 * cv2::minMaxIdx (C++; cv2 5's Python has no binding): as gip_min_max_loc(), with the positions as
 * (row, column): min_idx[0] = y, min_idx[1] = x. A src of 2 to 4 channels (no mask, min_idx and
 * max_idx NULL) gives the extremes over all its elements, as OpenCV. Statuses as the reductions'.
 */
GIP_API gip_status gip_min_max_idx(gip_context *ctx, const gip_image *src, const gip_image *mask,
                                   double *min_val, double *max_val, int64_t min_idx[2],
                                   int64_t max_idx[2]);

/** cv2.compareHist methods (OpenCV's values). */
typedef enum gip_histcmp {
    GIP_HISTCMP_CORREL = 0,
    GIP_HISTCMP_CHISQR = 1,
    GIP_HISTCMP_INTERSECT = 2,
    GIP_HISTCMP_BHATTACHARYYA = 3, /* also Hellinger */
    GIP_HISTCMP_CHISQR_ALT = 4,
    GIP_HISTCMP_KL_DIV = 5
} gip_histcmp;

/**
 * cv2.compareHist(h1, h2, method) of two histograms of n float counts each (host memory, as
 * gip_calc_hist() writes them), computed in double in index order as OpenCV: CORREL, CHISQR,
 * INTERSECT, BHATTACHARYYA (Hellinger), CHISQR_ALT, KL_DIV (with OpenCV's 1e-10 floor of h1 and
 * h2). Runs on the host whatever ctx is (ctx may be NULL: messages then go to the thread's
 * buffer).
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, n < 1, unknown method).
 */
GIP_API gip_status gip_compare_hist(gip_context *ctx, const float *h1, const float *h2, int64_t n,
                                    int32_t method, double *result);

/** Element types of the host arrays below (cv2's depth codes): what integral images and labels
 *  need besides gip's image dtypes. */
typedef enum gip_depth {
    GIP_DEPTH_U16 = 2,
    GIP_DEPTH_S32 = 4,
    GIP_DEPTH_F32 = 5,
    GIP_DEPTH_F64 = 6
} gip_depth;

/** A caller-owned array: height rows of width elements of `channels` interleaved channels of
 *  `depth`, rows `stride` bytes apart (0: tight), in host memory or (memory GIP_MEM_CUDA) in the
 *  context's device memory. Zero-initialised fields past stride mean host memory. */
typedef struct gip_array {
    void *data;
    int64_t width, height;
    int32_t channels;
    int32_t depth; /* gip_depth */
    int64_t stride;
    int32_t memory; /* gip_memory: GIP_MEM_HOST (0) or GIP_MEM_CUDA */
} gip_array;

/**
 * cv2.integral3(src, sdepth, sqdepth): the sum, squared-sum and 45-degree tilted integral images,
 * each (width + 1) x (height + 1) with src's channels, row and column 0 zero:
 * sum(X, Y) = sum of src(x, y) for x < X, y < Y; sqsum the same of squares; tilted(X, Y) = sum of
 * src(x, y) for y < Y and |x - X + 1| <= Y - y - 1. Any of sum, sqsum, tilted may be NULL (not
 * all). Depths as cv2 accepts them: u8 src: sum and tilted s32, f32 or f64, sqsum s32 (only with
 * an s32 sum), f32 (not with an f64 sum) or f64; f32 src: sum f32 or f64, sqsum f32 (only with
 * an f32 sum) or f64; u16 and s16 src: f64. s32 results wrap modulo 2^32 as OpenCV's; integer
 * sources give exact f64 results; f32 results accumulate a row's running sum in the result's
 * type and add the row above, as OpenCV. src: 1 to 4 channels, host or device; the outputs
 * where src is. On CUDA (queued on the context's stream) rows are scanned in parallel and then
 * the columns: integer sources give the CPU's numbers exactly, f32 results round differently
 * (within the same bound).
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, all outputs NULL, bad depth or size of an
 *         output); GIP_ERR_UNSUPPORTED (dtype, channels); GIP_ERR_LOCATION_MISMATCH;
 *         GIP_ERR_NO_DEVICE; GIP_ERR_DEVICE; GIP_ERR_DEVICE_OUT_OF_MEMORY; GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_integral(gip_context *ctx, const gip_image *src, gip_array *sum,
                                gip_array *sqsum, gip_array *tilted);

/** Image moments as cv2.moments returns them: spatial, central and normalised central. */
typedef struct gip_image_moments {
    double m00, m10, m01, m20, m11, m02, m30, m21, m12, m03;
    double mu20, mu11, mu02, mu30, mu21, mu12, mu03;
    double nu20, nu11, nu02, nu30, nu21, nu12, nu03;
} gip_image_moments;

/**
 * cv2.moments(src, binaryImage): the moments of a one-channel image up to the third order (pixel
 * (x, y) weighted by its value, or by 1 where it is not zero when `binary` is non-zero). Integer
 * images are summed exactly per row (64-bit integers) and the rows combined in double; f32 in
 * double. The central and normalised moments follow from the spatial ones by OpenCV's formulas
 * (zero when m00 is 0). src: u8, u16, s16 or f32, one channel, host or device (CUDA: rows summed
 * on the GPU the same way, so integer images give the CPU's numbers; synchronous).
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL); GIP_ERR_UNSUPPORTED (dtype, channels);
 *         GIP_ERR_NO_DEVICE; GIP_ERR_DEVICE; GIP_ERR_DEVICE_OUT_OF_MEMORY; GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_moments(gip_context *ctx, const gip_image *src, int32_t binary,
                               gip_image_moments *m);

/** cv2.HuMoments: the seven Hu invariants of m (from its normalised central moments). */
GIP_API gip_status gip_hu_moments(const gip_image_moments *m, double hu[7]);

/** cv2.matchTemplate methods (OpenCV's values). */
typedef enum gip_tm_method {
    GIP_TM_SQDIFF = 0,
    GIP_TM_SQDIFF_NORMED = 1,
    GIP_TM_CCORR = 2,
    GIP_TM_CCORR_NORMED = 3,
    GIP_TM_CCOEFF = 4,
    GIP_TM_CCOEFF_NORMED = 5
} gip_tm_method;

/**
 * cv2.matchTemplate(image, templ, method): for each position (x, y) where templ fits inside image,
 * the comparison of templ with the image window at (x, y), summed over the channels. result: f32,
 * one channel, (W - w + 1) x (H - h + 1). The correlation term comes from gip_filter2d() with
 * the template as the kernel (direct for small templates, through the FFT for large ones, by
 * filter2D's measured crossover), the window sums from double-precision integral images, and
 * the normalisation follows OpenCV's rules (a flat template gives 1 for CCOEFF_NORMED; ratios
 * beyond +-1 by rounding are clamped as OpenCV does). The results agree with OpenCV's within
 * single-precision rounding of the correlation: see docs/statistics.md for the tolerance.
 * image: u8 or f32, 1, 3 or 4 channels; templ: same dtype and channels, no larger than image;
 * all three in host memory (CPU) or in the context's device memory (CUDA: filter2D's CUDA
 * engines, device integral images and a normalisation kernel; queued, except that the template
 * is first read to the host). result must not overlap them.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, bad method); GIP_ERR_SHAPE_MISMATCH (templ
 *         larger, result size); GIP_ERR_UNSUPPORTED (dtype, channels, alignment of device
 *         images); GIP_ERR_LOCATION_MISMATCH; GIP_ERR_ALIASING; GIP_ERR_OUT_OF_MEMORY;
 *         GIP_ERR_NO_DEVICE; GIP_ERR_DEVICE; GIP_ERR_DEVICE_OUT_OF_MEMORY; GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_match_template(gip_context *ctx, const gip_image *image,
                                      const gip_image *templ, int32_t method, gip_image *result);

/**
 * cv2.matchTemplate(image, templ, method, mask=mask): the masked forms. mask: templ's size, one
 * channel (for every channel) or templ's channels; u8 as a binary mask (non-zero is 1), f32 as
 * weights. OpenCV's formulas (see docs/statistics.md): every window sum is a correlation of the
 * image or its squares with a kernel of the template and mask, through filter2D's engines; the
 * normed ratios are not clamped (as OpenCV's masked forms). mask NULL: gip_match_template().
 * Host memory only. Other arguments as gip_match_template().
 * @return as gip_match_template(), plus GIP_ERR_UNSUPPORTED for a mask of another dtype or
 *         channel count and for device images with a mask.
 */
GIP_API gip_status gip_match_template_masked(gip_context *ctx, const gip_image *image,
                                             const gip_image *templ, const gip_image *mask,
                                             int32_t method, gip_image *result);

/**
 * cv2.connectedComponents(src, connectivity, ltype): labels of the 4- or 8-connected components
 * of the non-zero pixels of src, 0 for the background, 1 .. n - 1 for the components in OpenCV's
 * order (the order in which its scan first meets them: row-major for 4-connectivity, by 2x2
 * blocks, two rows at a time, for 8-connectivity), so the labels equal OpenCV's. labels: s32 or
 * u16 (n must then fit), src's width and height, one channel. *n_labels = components + 1.
 * src: u8, one channel; src and labels both in host memory (CPU: a two-pass scan with a
 * union-find) or both in the context's device memory (CUDA: a union-find labelling of pixels or
 * 2x2 blocks with atomicMin links, roots numbered in OpenCV's order: the same labels;
 * synchronous). On error the labels are unchanged.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, connectivity not 4 or 8, labels' size, depth);
 *         GIP_ERR_UNSUPPORTED (dtype, channels); GIP_ERR_LOCATION_MISMATCH; GIP_ERR_TOO_LARGE
 *         (more labels than u16 holds); GIP_ERR_OUT_OF_MEMORY; GIP_ERR_NO_DEVICE; GIP_ERR_DEVICE;
 *         GIP_ERR_DEVICE_OUT_OF_MEMORY; GIP_ERR_BAD_STATE.
 */
GIP_API gip_status gip_connected_components(gip_context *ctx, const gip_image *src,
                                            int32_t connectivity, gip_array *labels,
                                            int32_t *n_labels);

/** Columns of the stats of gip_connected_components_stats() (cv2.CC_STAT_*). */
enum {
    GIP_CC_STAT_LEFT = 0,
    GIP_CC_STAT_TOP = 1,
    GIP_CC_STAT_WIDTH = 2,
    GIP_CC_STAT_HEIGHT = 3,
    GIP_CC_STAT_AREA = 4
};

/**
 * The statistics cv2.connectedComponentsWithStats gives, from labels (s32 or u16, as
 * gip_connected_components() wrote them) with n_labels labels: stats (n_labels rows of 5 int32:
 * left, top, width, height, area of each label, the background's included) and centroids
 * (n_labels rows of 2 doubles: mean x, mean y; NaN for a label with no pixel). Either may be
 * NULL. Host memory (labels computed on the GPU are downloaded first).
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, n_labels < 1, a label >= n_labels);
 *         GIP_ERR_UNSUPPORTED (device labels); GIP_ERR_OUT_OF_MEMORY.
 */
GIP_API gip_status gip_connected_components_stats(gip_context *ctx, const gip_array *labels,
                                                  int32_t n_labels, int32_t *stats,
                                                  double *centroids);

#ifdef __cplusplus
}
#endif

#endif
