/* SPDX-License-Identifier: MIT */
/* Private prototypes of unsharp, shared by its entry and its CUDA backend. */
#ifndef GIP_OPS_UNSHARP_H
#define GIP_OPS_UNSHARP_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst = fma(src, alpha, blur * beta), or src where |src - blur| < threshold, on device views of
 * one shape (checked by the entry). */
gip_status gip__unsharp_cuda(gip_context *ctx, const gip_image *src, const gip_image *blur,
                             gip_image *dst, float alpha, float beta, float threshold);

#ifdef __cplusplus
}
#endif
#endif
