/* SPDX-License-Identifier: MIT */
/* Private interface of the thresholds: the histogram of a u8 image on CUDA, and the threshold
 * of OpenCV's histogram methods from a histogram. */
#ifndef GIP_POINT_THRESHOLD_H
#define GIP_POINT_THRESHOLD_H

#include <stdint.h>

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The 256-bin histogram of a u8 one-channel device image, into host memory (waits). */
gip_status gip__hist_u8_cuda(gip_context *ctx, const gip_image *src, uint64_t hist[256]);

#ifdef __cplusplus
}
#endif
#endif
