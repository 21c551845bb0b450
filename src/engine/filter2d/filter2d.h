/* SPDX-License-Identifier: MIT */
/* The generic 2-D correlation engine behind gip_filter2d, gip_sobel and gip_sobel_magnitude: a
 * plan of non-zero taps built once on the host and run by both backends with the same arithmetic,
 * so that integer outputs are identical on CPU and CUDA. */
#ifndef GIP_FILTER_FILTER2D_H
#define GIP_FILTER_FILTER2D_H

#include <stdbool.h>

#include "internal.h"
#include "gip/filter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest kernel side accepted by every 2-D filter (a cap that keeps plans and tiles bounded). */
#define GIP__F2D_MAX_KSIZE 255

/* One non-zero coefficient: offsets from the anchor (the output pixel) and the value, as a float
 * and, for integer plans, as an int. */
typedef struct gip__f2d_tap {
    int32_t dx, dy;
    float kf;
    int32_t ki;
} gip__f2d_tap;

/* What happens after accumulation. */
typedef enum gip__f2d_post {
    GIP__F2D_PLAIN = 0, /* v = acc (float plans start from `init`); v = fma(v, scale, delta) if
                           `affine`; then saturate to dst */
    GIP__F2D_ABS = 1,   /* as PLAIN, then |v| before saturation (cv2.convertScaleAbs) */
    GIP__F2D_MAG = 2    /* two kernels: v = sqrt(gx^2 + gy^2), then as PLAIN */
} gip__f2d_post;

/*
 * The arithmetic, the same on both backends:
 *   integer plan (int_acc): acc = sum ki * x in int32 (exact: sum|ki| * max(src) < 2^31);
 *                           v = (float)acc.
 *   float plan:             acc = init; for each tap in order: acc = fmaf(kf, x, acc); v = acc.
 *   MAG:                    g = v of each kernel; s = gx * gx; s = fmaf(gy, gy, s); v = sqrtf(s).
 *   then if affine:         v = fmaf(v, scale, delta);  ABS: v = fabsf(v);
 *   store:                  dst = saturate(v) (round half to even), or v for f32.
 * Integer plans with PLAIN/ABS and no affine step store the int32 sum saturated directly.
 */
typedef struct gip__f2d_plan {
    int32_t kw, kh; /* bounding box of every tap (both kernels for MAG) */
    int32_t ax, ay; /* anchor inside the box: taps have dx in [-ax, kw-1-ax] */
    int32_t ntaps;  /* taps of the first kernel */
    int32_t ntaps2; /* taps of the second kernel (MAG only), stored after the first */
    gip__f2d_tap *taps;
    bool int_acc;
    bool affine;
    float init; /* float plans: starting value of the accumulator (filter2D's delta) */
    float scale, delta;
    gip__f2d_post post;
    gip_border border;
    float border_value[4]; /* constant border, already converted to the source dtype's values */
} gip__f2d_plan;

/* Allocates plan->taps for `n` taps; GIP_ERR_OUT_OF_MEMORY with a message. */
gip_status gip__f2d_plan_alloc(gip_context *ctx, gip__f2d_plan *plan, int32_t n, const char *op);
void gip__f2d_plan_free(gip__f2d_plan *plan);

/* Fills the constant border values of a plan from a border spec for the source dtype (OpenCV
 * converts the border value to the source type with saturation). */
void gip__f2d_plan_border(gip__f2d_plan *plan, const gip_border_spec *border, gip_dtype src);

/* Checks a border spec; `op` names the function for the message. */
gip_status gip__f2d_check_border(gip_context *ctx, const gip_border_spec *border, const char *op);

/* Decides whether integer accumulation is exact for the plan's taps on `src` and, when it is,
 * fills ki and sets int_acc. */
void gip__f2d_plan_choose_int(gip__f2d_plan *plan, gip_dtype src);

/* True when taps [b, e) of a plan are in strictly row-major order (dy, then dx, increasing): the
 * order in which the CUDA box and ring kernels visit them. */
bool gip__f2d_taps_row_major(const gip__f2d_tap *taps, int32_t b, int32_t e);

/* Runs a plan: dst (same size as src) = the plan applied to src. Host views. */
gip_status gip__f2d_run_cpu(gip_context *ctx, const gip__f2d_plan *plan, const gip_image *src,
                            gip_image *dst);
/* The same on device views, queued on the context's stream. */
gip_status gip__f2d_run_cuda(gip_context *ctx, const gip__f2d_plan *plan, const gip_image *src,
                             gip_image *dst);

/* The plan through the packed kernel for u8 sources and integer taps within 3x3 when it qualifies
 * (int_acc, not MAG, dst u8/s16/f32, 255 * sum |k| < 2^16, both images 16-byte aligned); *done
 * says whether it ran. gip__f2d_run_cuda tries it first; the box filter calls it for 3x3 u8. */
gip_status gip__f2d_run_u8x3_cuda(gip_context *ctx, const gip__f2d_plan *plan, const gip_image *src,
                                  const gip_image *dst, bool *done);
/* The plan through the ring with float accumulators (filter2d_ring_cuda.cu) and through the box
 * kernel (filter2d_box_cuda.cu) when it qualifies for them; *done says whether it ran.
 * gip__f2d_run_cuda tries them in this order after the packed kernel. */
gip_status gip__f2d_run_ring_cuda(gip_context *ctx, const gip__f2d_plan *plan, const gip_image *src,
                                  const gip_image *dst, bool *done);
gip_status gip__f2d_run_box_cuda(gip_context *ctx, const gip__f2d_plan *plan, const gip_image *src,
                                 const gip_image *dst, bool *done);

/* Checks a 2-D filter's images: gip__check_unary, src u8/u16/f32 with 1, 3 or 4 channels, dst with
 * the same channels, no overlap. The dst dtype is the caller's business. */
gip_status gip__f2d_check_images(gip_context *ctx, const gip_image *src, const gip_image *dst,
                                 const char *op, bool *on_device);
/* gip__f2d_check_images, then dst u8/u16/s16/f32: the destination depths cv2 gives a filter of
 * any source (box, filter2D, sepFilter2D, Laplacian). */
gip_status gip__f2d_check_images_depths(gip_context *ctx, const gip_image *src,
                                        const gip_image *dst, const char *op, bool *on_device);

#ifdef __cplusplus
}
#endif
#endif
