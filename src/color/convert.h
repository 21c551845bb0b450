/* SPDX-License-Identifier: MIT */
/* Private interface of gip_convert between its entry (convert.c) and its CPU and CUDA backends. */
#ifndef GIP_COLOR_CONVERT_H
#define GIP_COLOR_CONVERT_H

#include <stdbool.h>

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the entry prepares once. dst = saturate(fma(src, alpha, beta)), one correctly rounded
 * single-precision fused multiply-add per element as OpenCV's convertTo computes it on CPUs with
 * FMA (its cvt_32f: v_fma on AVX2/NEON); `plain` (OpenCV's noScale: scale 1, offset 0) is a bare
 * saturating conversion without arithmetic. */
typedef struct gip__convert_params {
    float alpha;
    float beta;
    bool plain;
} gip__convert_params;

/* Backends: arguments already checked (same size and channels, dtypes u8/u16/s16/f32, elements
 * aligned, src and dst either the same view or disjoint). */
gip_status gip__convert_cpu(gip_context *ctx, const gip_image *src, gip_image *dst,
                            const gip__convert_params *p);
gip_status gip__convert_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                             const gip__convert_params *p);

#ifdef __cplusplus
}
#endif
#endif
