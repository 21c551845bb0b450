/* SPDX-License-Identifier: MIT */
/* Border handling shared by every filter on both backends: maps an out-of-range coordinate into
 * the image the way OpenCV's borderInterpolate does. */
#ifndef GIP_CORE_BORDER_H
#define GIP_CORE_BORDER_H

#include <stdint.h>

#include "gip/core.h"

#if defined(__CUDACC__)
#define GIP__HD __host__ __device__ __forceinline__
#else
#define GIP__HD static inline
#endif

/* The mapping, written once for the 64-bit and 32-bit versions (T signed, U unsigned). */
#define GIP__BORDER_INDEX_BODY(T, U)                                                               \
    if ((U)p < (U)n)                                                                               \
        return p;                                                                                  \
    switch (border) {                                                                              \
    case GIP_BORDER_CONSTANT:                                                                      \
        return -1;                                                                                 \
    case GIP_BORDER_REPLICATE:                                                                     \
        return p < 0 ? 0 : n - 1;                                                                  \
    case GIP_BORDER_WRAP:                                                                          \
        p %= n;                                                                                    \
        return p < 0 ? p + n : p;                                                                  \
    case GIP_BORDER_REFLECT:                                                                       \
    case GIP_BORDER_REFLECT_101:                                                                   \
    default: {                                                                                     \
        if (n == 1)                                                                                \
            return 0;                                                                              \
        T delta = border == GIP_BORDER_REFLECT_101 ? 1 : 0;                                        \
        /* Reflection has period 2n (REFLECT) or 2n-2 (REFLECT_101). */                            \
        T period = 2 * n - 2 * delta;                                                              \
        p %= period;                                                                               \
        if (p < 0)                                                                                 \
            p += period;                                                                           \
        if (p >= n)                                                                                \
            p = period - p - (1 - delta);                                                          \
        return p;                                                                                  \
    }                                                                                              \
    }

/* Maps coordinate p (any value) into [0, n) for `border`; returns -1 for GIP_BORDER_CONSTANT
 * outside the image (the caller uses the constant value). n >= 1. */
GIP__HD int64_t gip__border_index(int64_t p, int64_t n, gip_border border)
{
    GIP__BORDER_INDEX_BODY(int64_t, uint64_t);
}

/* The same in 32 bits, for kernels whose coordinates stay below 2^30 (32-bit division). */
GIP__HD int32_t gip__border_index32(int32_t p, int32_t n, gip_border border)
{
    GIP__BORDER_INDEX_BODY(int32_t, uint32_t);
}

#if !defined(__CUDACC__)
#include <stdlib.h>

/* A CPU filter's column map: map[px] = gip__border_index(px - ax, width, border) for the n padded
 * columns px in [0, n) (-1: the constant border). malloc'd; NULL when out of memory. */
static inline int32_t *gip__border_map(int64_t n, int64_t ax, int64_t width, gip_border border)
{
    int32_t *map = malloc((size_t)n * sizeof *map);
    for (int64_t px = 0; map && px < n; px++)
        map[px] = (int32_t)gip__border_index(px - ax, width, border);
    return map;
}
#endif

#endif
