/* SPDX-License-Identifier: MIT */
/* Private interface of the statistics family: the per-channel reduction (sums, extremes and
 * their positions, non-zero counts) and the histogram counter shared by the public reductions,
 * calcHist, equalizeHist and CLAHE, with their CPU and CUDA backends. */
#ifndef GIP_OPS_STATS_H
#define GIP_OPS_STATS_H

#include "gip/stats.h"
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one channel reduces to. Integer dtypes sum into is/iq/ia exactly, f32 into fs/fq/fa in
 * double. mn/mx skip NaNs; imn/imx are the pixel index y * width + x of their first occurrence
 * in row order, -1 while none was seen. */
typedef struct gip__red_ch {
    int64_t is, iq, ia;
    double fs, fq, fa;
    double mn, mx;
    int64_t imn, imx;
    int64_t nz;
} gip__red_ch;

/* The reduction of a whole image: `count` pixels taken (where the mask is not zero). */
typedef struct gip__red {
    int64_t count;
    gip__red_ch ch[4];
} gip__red;

/* An empty reduction (no pixel seen). */
void gip__red_init(gip__red *r);
/* Folds b into a; b covers pixels after a's in row order (ties keep a's position). */
void gip__red_combine(gip__red *a, const gip__red *b, int32_t channels);

/* What a caller needs of a reduction (the CPU skips the rest; CUDA computes all). */
#define GIP__RED_SUM 1u      /* count, is or fs */
#define GIP__RED_EXTREMES 2u /* mn, mx, imn, imx */
#define GIP__RED_SQ 4u       /* count, iq or fq */
#define GIP__RED_ABS 8u      /* count, ia or fa */
#define GIP__RED_NZ 16u      /* count, nz */
#define GIP__RED_SUMS 29u    /* all of the sums and counts */

/* Checks an optional mask (NULL passes) against src: a one-channel u8 image of src's size, on
 * src's side (host or device). */
gip_status gip__stats_check_mask(gip_context *ctx, const gip_image *mask, const gip_image *src,
                                 const char *op);

/* Reduces a (or a - b where b is not NULL; same shape) where mask (NULL or u8 c1) is not zero,
 * into r. The views are checked by the caller and are all on the host or all on the context's
 * device; the CUDA form is synchronous. */
gip_status gip__reduce_cpu(gip_context *ctx, const gip_image *a, const gip_image *b,
                           const gip_image *mask, uint32_t want, gip__red *r);
gip_status gip__reduce_cuda(gip_context *ctx, const gip_image *a, const gip_image *b,
                            const gip_image *mask, gip__red *r);

/* How calcHist finds a value's bin along each dimension: integer dtypes through a table indexed
 * by the value (-1: not counted), f32 by the uniform rule or the edges. */
typedef struct gip__hist_plan {
    int32_t dims;
    int32_t channel[3];
    int32_t bins[3];
    int64_t stride[3]; /* of each dimension in the flat histogram */
    int64_t total;     /* bins of the flat histogram */
    int32_t *lut[3];   /* u8, u16: 256 or 65536 entries per dimension (host memory) */
    int32_t non_uniform;
    double a[3], b[3];     /* uniform: bin = floor(v * a + b) */
    double lo[3], hi[3];   /* uniform: counted when lo <= v < hi */
    const float *edges[3]; /* non-uniform: bins + 1 edges */
} gip__hist_plan;

/* OpenCV's uniform bin of v among nb from lo to hi (t = v a + b, floored), or -1 outside
 * [lo, hi); NaN, and t beyond int, in the last bin (the first below int), as cv2 5. */
static inline int32_t gip__hist_uniform_bin(double v0, double lo, double hi, double a, double b,
                                            int32_t nb)
{
    if (v0 < lo || v0 >= hi)
        return -1;
    const double t = v0 * a + b;
    int32_t idx;
    if (!(t > -2147483648.0 && t < 2147483647.0))
        idx = t <= -2147483648.0 ? 0 : nb - 1;
    else {
        idx = (int32_t)t;
        idx -= (double)idx > t;
    }
    return idx < 0 ? 0 : idx >= nb ? nb - 1 : idx;
}

/* The bin of f32 value v along dimension d, or -1 (OpenCV's rules, NaN in the last bin when
 * uniform). */
static inline int32_t gip__hist_bin_f32(const gip__hist_plan *p, int d, float v)
{
    if (p->non_uniform) {
        const float *r = p->edges[d];
        int32_t idx = -1, sz = p->bins[d];
        while (v >= r[idx + 1] && ++idx < sz)
            ;
        return idx >= 0 && idx < sz ? idx : -1;
    }
    return gip__hist_uniform_bin((double)v, p->lo[d], p->hi[d], p->a[d], p->b[d], p->bins[d]);
}

/* Adds the counts of src (where mask is not zero) to counts (plan->total entries). */
gip_status gip__hist_count_cpu(gip_context *ctx, const gip_image *src, const gip_image *mask,
                               const gip__hist_plan *plan, uint32_t *counts);
gip_status gip__hist_count_cuda(gip_context *ctx, const gip_image *src, const gip_image *mask,
                                const gip__hist_plan *plan, uint32_t *counts);

/* The statistics family's CUDA workspace of a context, made at its first use and kept until the
 * context goes: device memory whose counters (the first GIP__STATS_WS_RESULT bytes) are zero
 * between calls (a kernel that counts finished blocks sets its counter back to zero), a result
 * area, room for per-block partials, and a page-locked host buffer for the result's download.
 * One call of the context uses it at a time (a context is used by one thread at a time). */
#define GIP__STATS_WS_RESULT 256      /* offset of the result area (4096 bytes) */
#define GIP__STATS_WS_PARTS 4352      /* offset of the partials */
#define GIP__STATS_WS_PART_BYTES 1024 /* per block */
#define GIP__STATS_WS_BLOCKS 1024     /* blocks of partials at most */
/* the histogram's 256 64-bit counts, zero between calls like the counters (the last block of a
 * histogram takes them and sets them back to zero) */
#define GIP__STATS_WS_ACC (GIP__STATS_WS_PARTS + GIP__STATS_WS_BLOCKS * GIP__STATS_WS_PART_BYTES)
#define GIP__STATS_WS_ACC_BYTES 2048
#define GIP__STATS_WS_DEV (GIP__STATS_WS_ACC + GIP__STATS_WS_ACC_BYTES)
/* equalizeHist's table (256 bytes) in the result area, past the 256 counts */
#define GIP__STATS_WS_LUT (GIP__STATS_WS_RESULT + 2048)
#define GIP__STATS_WS_HOST 4096
#define GIP__STATS_CTR_REDUCE 0 /* the counters (unsigned int) of the kernels that use them */
#define GIP__STATS_CTR_HIST 1
typedef struct gip__stats_ws {
    char *dev;
    void *host;
    void *host_dev; /* host's address on the device (mapped page-locked memory: a kernel writes
                       its result there, no download), NULL where the device cannot map it */
    int32_t sms;    /* the device's multiprocessors */
} gip__stats_ws;
gip_status gip__stats_ws_get(gip_context *ctx, gip__stats_ws *ws);

/* The 256-bin histogram of channel `channel` of a u8 device image without a mask, into hist
 * (host, set, not added to). Synchronous: one kernel, one download. */
gip_status gip__hist_u8_channel_cuda(gip_context *ctx, const gip_image *src, int32_t channel,
                                     uint64_t hist[256]);

/* 1 where p is device memory of the context's device, -1 where it is another device's, 0 for
 * host memory (pageable, page-locked or managed). */
int gip__calc_hist_device_ptr(gip_context *ctx, const void *p);

/* The 256-bin histogram of channel `channel` of a u8 device image without a mask (bin = value)
 * into device floats hist as gip_calc_hist writes them (the count, or with accumulate the old
 * value rounded half to even plus the count). Queued on the context's stream: no
 * synchronisation, no host copy. */
gip_status gip__calc_hist_u8_dev(gip_context *ctx, const gip_image *src, int32_t channel,
                                 float *hist, bool accumulate);

/* gip__hist_count_cuda for a histogram in device memory: the counts into the device floats hist
 * as gip_calc_hist writes them, with no host copy of the counts. The u8 256-bin case is
 * queued; the others wait for their tables' upload (one synchronisation). */
gip_status gip__hist_count_cuda_dev(gip_context *ctx, const gip_image *src, const gip_image *mask,
                                    const gip__hist_plan *plan, float *hist, bool accumulate);

/* equalizeHist of a one-channel u8 device image: histogram, table (on the device, from the
 * histogram's last block) and table pass, all queued; no host round trip. */
gip_status gip__equalize_hist_cuda(gip_context *ctx, const gip_image *src, gip_image *dst);

/* CLAHE's geometry and tables (clahe.c), shared by both backends. */
typedef struct gip__clahe_plan {
    int32_t tiles_x, tiles_y;
    int64_t tile_w, tile_h; /* of the image extended to a multiple of the grid */
    int32_t hist_size;      /* 256 or 65536 */
    int32_t clip;           /* per-bin limit, 0: none */
    float lut_scale;
} gip__clahe_plan;

/* Turns a tile's histogram (hist_size counts, changed) into its lookup table. */
void gip__clahe_lut(const gip__clahe_plan *p, int32_t *hist, void *lut, gip_dtype dt);
/* CLAHE on device views. u8: per-tile histograms, tables and interpolation all on the GPU,
 * queued. u16: per-tile histograms on the GPU, tables on the host (synchronous), interpolation
 * on the GPU. */
gip_status gip__clahe_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                           const gip__clahe_plan *p);

/* The host arrays of gip/stats.h (integral images, labels): element size (0 for an unknown
 * depth), name, checks of an output (data, depth, size, channels, stride) and its stride. */
size_t gip__depth_size(int32_t depth);
const char *gip__depth_name(int32_t depth);
gip_status gip__array_check(gip_context *ctx, const gip_array *a, int64_t w, int64_t h,
                            int32_t channels, const char *op, const char *what);
int64_t gip__array_stride(const gip_array *a);

/* moments on CUDA: per row y of a one-channel device image, the sums of v, x v, x^2 v, x^3 v
 * (v = 1 for non-zero pixels when binary) into rows[4 y .. 4 y + 3] (host memory). Integer
 * images sum in 64-bit integers where `exact` (the CPU's exact rows), otherwise in double with
 * a fixed tree per row. Synchronous. */
gip_status gip__moments_rows_cuda(gip_context *ctx, const gip_image *src, bool binary, bool exact,
                                  double *rows);

/* integral on CUDA: every image and array in the context's device memory, checked by the caller
 * (depths as gip_integral accepts them). Queued on the context's stream. */
gip_status gip__integral_cuda(gip_context *ctx, const gip_image *src, gip_array *sum,
                              gip_array *sqsum, gip_array *tilted);

/* connectedComponents on CUDA: a union-find over pixels (4-connectivity) or 2x2 blocks (8) whose
 * roots are the smallest index, the roots numbered in index order (OpenCV's order). src, labels
 * on the device, checked by the caller. *n_labels set; synchronous. GIP_ERR_TOO_LARGE for u16
 * labels when the count does not fit (labels unchanged). */
gip_status gip__connected_components_cuda(gip_context *ctx, const gip_image *src,
                                          int32_t connectivity, gip_array *labels,
                                          int32_t *n_labels);

/* matchTemplate's normalisation on CUDA: result (device f32, rw x rh) from the correlation corr
 * (device f32, W per row), the image's f64 integral images isum and isq (device, (W + 1) x
 * (H + 1) x cn; either NULL where the method needs none) and the template's terms. Queued. */
typedef struct gip__tm_terms {
    int32_t method, cn;
    int32_t flat; /* CCOEFF_NORMED of a flat template: 1 everywhere (corr may be NULL) */
    int64_t w, h; /* template */
    double tmean[4], tsum2, tnorm, inv_area;
} gip__tm_terms;
gip_status gip__tm_normalise_cuda(gip_context *ctx, const float *corr, int64_t corr_w,
                                  const double *isum, const double *isq, int64_t iw,
                                  const gip__tm_terms *t, gip_image *result);
/* Adds (or with first, stores) channel c of a device image, as f32, into plane (W x H). */
gip_status gip__tm_plane_cuda(gip_context *ctx, const gip_image *src, int32_t c, float *plane);
gip_status gip__tm_accumulate_cuda(gip_context *ctx, const float *corr, float *acc, int64_t n,
                                   bool first);

#ifdef __cplusplus
}
#endif
#endif
