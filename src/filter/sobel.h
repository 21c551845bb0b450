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

#ifdef __cplusplus
}
#endif
#endif
