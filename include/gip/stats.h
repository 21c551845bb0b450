/* SPDX-License-Identifier: MIT */
/* Statistics with OpenCV's semantics: histogram equalisation and CLAHE (image to image), and the
 * reductions calcHist, minMaxLoc, mean, meanStdDev, sum, countNonZero, norm and PSNR (image to
 * numbers in host memory). */
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
 * pixels where mask is not zero, into `hist` (host memory, bins[0] * bins[1] * bins[2] floats,
 * row-major, the last dimension fastest). Values outside the ranges are not counted. Counts are
 * exact and equal on both backends. src: u8, u16 or f32, 1 to 4 channels; mask: NULL or a u8
 * one-channel image of src's size where src is. Synchronous (the result is on the host when
 * the call returns). On error hist is unchanged.
 * @return GIP_OK; GIP_ERR_INVALID_ARGUMENT (NULL, bad dims, channels, bins or ranges);
 *         GIP_ERR_SHAPE_MISMATCH (mask size); GIP_ERR_UNSUPPORTED (dtype, mask type);
 *         GIP_ERR_LOCATION_MISMATCH; GIP_ERR_NO_DEVICE; GIP_ERR_DEVICE;
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

#ifdef __cplusplus
}
#endif

#endif
