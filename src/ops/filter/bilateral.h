/* SPDX-License-Identifier: MIT */
/* Private interface of bilateral: the plan built once on the host (taps, weights) and the CUDA
 * backend. */
#ifndef GIP_OPS_BILATERAL_H
#define GIP_OPS_BILATERAL_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gip__bilateral_plan {
    int32_t radius, ntaps;
    int32_t *dx, *dy;     /* the disc's taps, rows from the top, left to right in a row */
    float *space;         /* their spatial weights */
    float color[3 * 256]; /* u8: the weight of a difference 0 .. 255 * channels */
    float color_coeff;    /* f32: -0.5 / sigma_color^2 */
    gip_border border;
} gip__bilateral_plan;

gip_status gip__bilateral_cuda(gip_context *ctx, const gip__bilateral_plan *p, const gip_image *src,
                               gip_image *dst);

#ifdef __cplusplus
}
#endif
#endif
