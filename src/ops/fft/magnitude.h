/* SPDX-License-Identifier: MIT */
/* Private prototypes of magnitude, log-magnitude and min-max normalisation (gip_magnitude,
 * gip_log_magnitude, gip_normalize_minmax), shared by their entry, their two backends and the
 * spectrum, with the small inline rules both backends must apply identically. */
#ifndef GIP_OPS_FFT_MAGNITUDE_H
#define GIP_OPS_FFT_MAGNITUDE_H

#include <stdbool.h>
#include <stdint.h>

#include "gip/fft.h"
#include "internal.h"
#include "saturate.h"

#if defined(__CUDACC__)
#define GIP__FFT_HD __host__ __device__ __forceinline__
#else
#define GIP__FFT_HD static inline
#include <math.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* What a log-magnitude pass computes from (re, im). */
typedef enum gip__mag_mode { GIP__MAG = 0, GIP__LOG = 1, GIP__LOG1P = 2 } gip__mag_mode;

GIP__FFT_HD float gip__mag_value(float re, float im, int mode)
{
    float p = re * re + im * im;
    if (mode == GIP__LOG)
        return 0.5f * logf(p); /* log(0) = -inf, as numpy */
    float m = sqrtf(p);
    return mode == GIP__LOG1P ? log1pf(m) : m;
}

/* Float <-> unsigned integer whose order is the floats' order (for atomic min/max). */
GIP__FFT_HD uint32_t gip__ordered_u32(float v)
{
    union {
        float f;
        uint32_t u;
    } c;
    c.f = v;
    return (c.u & 0x80000000u) ? ~c.u : (c.u | 0x80000000u);
}
GIP__FFT_HD float gip__ordered_f32(uint32_t u)
{
    union {
        float f;
        uint32_t u;
    } c;
    c.u = (u & 0x80000000u) ? (u & 0x7FFFFFFFu) : ~u;
    return c.f;
}

/* Coefficients of the min-max normalisation (cv2.normalize NORM_MINMAX to 0..255): finite range
 * [lo, hi] or none (valid false). */
typedef struct gip__norm_coeffs {
    float a, b;
} gip__norm_coeffs;

GIP__FFT_HD gip__norm_coeffs gip__norm_make(float lo, float hi, bool valid)
{
    gip__norm_coeffs c = {0.0f, 0.0f};
    double range = (double)hi - (double)lo;
    if (valid && range > 2.220446049250313e-16) {
        double scale = 255.0 / range;
        c.a = (float)scale;
        c.b = (float)(0.0 - (double)lo * scale);
    }
    return c;
}

GIP__FFT_HD uint8_t gip__norm_apply(float v, gip__norm_coeffs c)
{
    if (v != v || v == -INFINITY)
        return 0;
    if (v == INFINITY)
        return 255;
    return gip__sat_u8_f32(fmaf(v, c.a, c.b));
}

/* dst (f32) = the magnitude of src (c32) for `mode` (gip__mag_mode); checked by the entry. */
gip_status gip__magnitude_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, int mode);
gip_status gip__magnitude_cuda(gip_context *ctx, const gip_image *src, gip_image *dst, int mode);
gip_status gip__normalize_cpu(gip_context *ctx, const gip_image *src, gip_image *dst);
gip_status gip__normalize_cuda(gip_context *ctx, const gip_image *src, gip_image *dst);

#ifdef __cplusplus
}
#endif
#endif
