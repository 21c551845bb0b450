/* SPDX-License-Identifier: MIT */
/* Private prototypes of gip_spectrum shared by its entry and its two backends: the gray rule of
 * gip_cvt_color, and the log magnitude and normalisation of magnitude.h, in one pass each. */
#ifndef GIP_OPS_FFT_SPECTRUM_H
#define GIP_OPS_FFT_SPECTRUM_H

#include <stdbool.h>
#include <stdint.h>

#include "color/cvt_color.h"
#include "engine/fft/fft.h"
#include "magnitude.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Gray from colour with gip_cvt_color's rule (src/color/cvt_color.h: OpenCV's 15-bit fixed-point
 * weights for integer types; for f32 c0 * s0, then two fused multiply-adds in memory order).
 * s0..s2 are channels 0..2 in memory; red_first says channel 0 is red. */
GIP__FFT_HD float gip__gray_int(uint32_t s0, uint32_t s1, uint32_t s2, bool red_first)
{
    uint32_t c0 = red_first ? GIP__GRAY_R15 : GIP__GRAY_B15;
    uint32_t c2 = red_first ? GIP__GRAY_B15 : GIP__GRAY_R15;
    return (float)((s0 * c0 + s1 * GIP__GRAY_G15 + s2 * c2 + (1u << (GIP__GRAY_SHIFT - 1))) >>
                   GIP__GRAY_SHIFT);
}
GIP__FFT_HD float gip__gray_f32(float s0, float s1, float s2, bool red_first)
{
    float y = s0 * (red_first ? GIP__GRAY_RF : GIP__GRAY_BF);
    y = fmaf(s1, GIP__GRAY_GF, y);
    return fmaf(s2, red_first ? GIP__GRAY_BF : GIP__GRAY_RF, y);
}

gip_status gip__spectrum_cpu(gip_context *ctx, const gip_image *src, gip_image *dst, int mode,
                             bool bgr);
gip_status gip__spectrum_cuda(gip_context *ctx, const gip_image *src, gip_image *dst, int mode,
                              bool bgr);
/* The CPU spectrum's log magnitude: out[i] = 0.5 ln(re^2 + im^2) of n interleaved complex values
 * (a vectorised logarithm: at most 1 ulp plus 3e-8 from ln; -inf for zero power, as logf), and
 * the finite results' range folded into *lo and *hi. */
void gip__spectrum_log_power(const float *s, float *out, int64_t n, float *lo, float *hi);
/* CPU SIMD switch of the spectrum passes: AVX2 + FMA when the CPU has them, unless GIP_NOSIMD=1
 * is set or gip__spectrum_set_simd(false) was called (the tests run both paths). Returns the
 * previous setting. */
bool gip__spectrum_set_simd(bool enable);
bool gip__spectrum_simd_active(void);

#ifdef __cplusplus
}
#endif
#endif
