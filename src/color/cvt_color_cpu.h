/* SPDX-License-Identifier: MIT */
/* The CPU SIMD switches of the colour conversions: AVX2 (which the tests turn off to compare
 * with the scalar paths) and AVX-512 VBMI. */
#ifndef GIP_COLOR_CVT_COLOR_CPU_H
#define GIP_COLOR_CVT_COLOR_CPU_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* AVX2 (with FMA) is used when the CPU has it, unless GIP_NOSIMD=1 is set in the environment or
 * gip__cc_set_simd(false) was called. Returns the previous setting. gip__cc_simd_active() says
 * whether the AVX2 kernels run now. */
bool gip__cc_set_simd(bool enable);
bool gip__cc_simd_active(void);

/* Whether the AVX-512 VBMI kernels of the colour conversions may run: the CPU has AVX-512 F, BW,
 * VL and VBMI, and GIP_NOAVX512 is not set. */
bool gip__cc_vbmi_active(void);

#ifdef __cplusplus
}
#endif
#endif
