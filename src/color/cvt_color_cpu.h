/* SPDX-License-Identifier: MIT */
/* The CPU SIMD switch of gip_cvt_color, for the tests that compare its AVX2 and scalar paths. */
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

#ifdef __cplusplus
}
#endif
#endif
