/* SPDX-License-Identifier: MIT */
/* Private prototypes of gip_fftshift and gip_ifftshift shared by their entry and backends. */
#ifndef GIP_OPS_FFT_SHIFT_H
#define GIP_OPS_FFT_SHIFT_H

#include <stdbool.h>

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst = src rotated by half its size on both axes (inverse: the other way round for odd sizes);
 * f32 or c32, checked by the entry. */
gip_status gip__fftshift_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, bool inverse);
gip_status gip__fftshift_cuda(gip_context *ctx, const gip_image *src, gip_image *dst, bool inverse);

#ifdef __cplusplus
}
#endif
#endif
