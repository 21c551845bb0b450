/* SPDX-License-Identifier: MIT */
/* Private helpers of gip_sobel and gip_sobel_magnitude. */
#ifndef GIP_FILTER_SOBEL_H
#define GIP_FILTER_SOBEL_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The 1-D Sobel/Scharr factors as cv2.getDerivKernels builds them: kx (length *nx) for the x
 * derivative of order dx, ky (length *ny) for dy. ksize 1 gives a 3-tap factor in a direction
 * with a derivative and a 1-tap one otherwise; GIP_SCHARR gives [3 10 3] / [-1 0 1]. The caller
 * has validated the orders. Arrays hold at least 7 values. */
void gip__sobel_factors(int32_t dx, int32_t dy, int32_t ksize, int32_t *kx, int32_t *nx,
                        int32_t *ky, int32_t *ny);

/* Largest factor length of the separable CPU route. */
#define GIP__SOBEL_SEP_MAXK 5

/* A Sobel/Scharr run as its two integer factors (sobel_cpu.c): dst = ky (rows) x kx (columns)
 * applied to a u8 source, stored as s16, f32 or (absolute value) u8, without scale or delta.
 * With magnitude, gip_sobel_magnitude of ksize 3: kx, ky are gx's factors ([-1 0 1], [1 2 1]),
 * gy is their transpose, and dst (f32 or u8) = sqrt(gx^2 + gy^2) * scale + delta. */
typedef struct gip__sobel_sep {
    int32_t kx[GIP__SOBEL_SEP_MAXK], ky[GIP__SOBEL_SEP_MAXK];
    int32_t nx, ny;
    gip_border border;
    float border_value[4]; /* constant border, already converted to u8 values */
    bool magnitude;
    float scale, delta; /* magnitude only */
} gip__sobel_sep;

/* True when the separable route can run sp on this CPU for these dtypes with results identical
 * to the 2-D engine's: u8 source, AVX2, every sum within int16; for the magnitude, the fused 3x3
 * route (gip__fused3_width() not 0) and f32 or u8 dst. */
bool gip__sobel_sep_fits(const gip__sobel_sep *sp, gip_dtype src, gip_dtype dst);

/* Runs the separable route on host views (the caller has checked gip__sobel_sep_fits). */
gip_status gip__sobel_sep_run_cpu(gip_context *ctx, const gip__sobel_sep *sp, const gip_image *src,
                                  gip_image *dst);

#ifdef __cplusplus
}
#endif
#endif
