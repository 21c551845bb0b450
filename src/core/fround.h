/* SPDX-License-Identifier: MIT */
/* IEEE single- and double-precision steps, each rounded on its own, for the arithmetic written
 * once for both backends: nvcc may contract a * b + c into an FMA, so the device takes the _rn
 * intrinsics, which it never contracts, and the host the plain operators. The fused
 * multiply-add is explicit on both. */
#ifndef GIP_CORE_FROUND_H
#define GIP_CORE_FROUND_H

#if !defined(__CUDACC__)
#include <math.h>
#endif

#if defined(__CUDACC__)
#define GIP__FRN __host__ __device__ __forceinline__
#else
#define GIP__FRN static inline
#endif

GIP__FRN float gip__rn_mul(float x, float y)
{
#if defined(__CUDA_ARCH__)
    return __fmul_rn(x, y);
#else
    return x * y;
#endif
}

GIP__FRN float gip__rn_add(float x, float y)
{
#if defined(__CUDA_ARCH__)
    return __fadd_rn(x, y);
#else
    return x + y;
#endif
}

GIP__FRN float gip__rn_sub(float x, float y)
{
#if defined(__CUDA_ARCH__)
    return __fsub_rn(x, y);
#else
    return x - y;
#endif
}

GIP__FRN float gip__rn_div(float x, float y)
{
#if defined(__CUDA_ARCH__)
    return __fdiv_rn(x, y);
#else
    return x / y;
#endif
}

GIP__FRN float gip__rn_fma(float x, float y, float z)
{
#if defined(__CUDA_ARCH__)
    return __fmaf_rn(x, y, z);
#else
    return fmaf(x, y, z);
#endif
}

GIP__FRN double gip__rn_dmul(double x, double y)
{
#if defined(__CUDA_ARCH__)
    return __dmul_rn(x, y);
#else
    return x * y;
#endif
}

#endif
