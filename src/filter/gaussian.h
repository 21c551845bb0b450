/* SPDX-License-Identifier: MIT */
/* Private prototypes of Gaussian blur: the kernel-size rule and the plan it hands to the
 * separable engine. */
#ifndef GIP_FILTER_GAUSSIAN_H
#define GIP_FILTER_GAUSSIAN_H

#include "engine/separable/separable.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks the parameters against src and fills the engine plan (ksize from sigma, sigma from
 * ksize, OpenCV's small-image rule, float or fixed-point kernels). Sets a message on error. */
gip_status gip__gaussian_plan(gip_context *ctx, const gip_image *src,
                              const gip_gaussian_params *params, gip__sep_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
