/* SPDX-License-Identifier: MIT */
/* Rounding and saturation shared by both backends, with OpenCV's rules: round half to even
 * (cvRound), then clamp to the destination range (saturate_cast). */
#ifndef GIP_CORE_SATURATE_H
#define GIP_CORE_SATURATE_H

#include <stdint.h>
#if !defined(__CUDACC__)
#include <math.h>
#endif

#if defined(__CUDACC__)
#define GIP__HDS __host__ __device__ __forceinline__
#else
#define GIP__HDS static inline
#endif

GIP__HDS int32_t gip__round_f32(float v)
{
#if defined(__CUDA_ARCH__)
    return __float2int_rn(v);
#else
    return (int32_t)lrintf(v);
#endif
}

GIP__HDS int32_t gip__round_f64(double v)
{
#if defined(__CUDA_ARCH__)
    return __double2int_rn(v);
#else
    return (int32_t)lrint(v);
#endif
}

GIP__HDS uint8_t gip__sat_u8_i32(int32_t v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

GIP__HDS uint16_t gip__sat_u16_i32(int32_t v)
{
    return (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v);
}

GIP__HDS int16_t gip__sat_s16_i32(int32_t v)
{
    return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
}

/* Float to integer as OpenCV's saturate_cast<T>(float): round half to even, clamp. Values beyond
 * int32 first clamp so that the rounding cannot overflow. */
GIP__HDS float gip__clampf(float v, float lo, float hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

GIP__HDS uint8_t gip__sat_u8_f32(float v)
{
    return gip__sat_u8_i32(gip__round_f32(gip__clampf(v, -1.0f, 256.0f)));
}

GIP__HDS uint16_t gip__sat_u16_f32(float v)
{
    return gip__sat_u16_i32(gip__round_f32(gip__clampf(v, -1.0f, 65536.0f)));
}

GIP__HDS int16_t gip__sat_s16_f32(float v)
{
    return gip__sat_s16_i32(gip__round_f32(gip__clampf(v, -32769.0f, 32768.0f)));
}

#if !defined(__CUDACC__)
#include "gip/core.h"

/* Element i of a host row of dtype dt (u8, u16, else f32) as a float. */
static inline float gip__elem_f32(const void *row, gip_dtype dt, int64_t i)
{
    switch (dt) {
    case GIP_U8:
        return ((const uint8_t *)row)[i];
    case GIP_U16:
        return ((const uint16_t *)row)[i];
    default:
        return ((const float *)row)[i];
    }
}

/* v as element i of a host row of dtype dt: u8 and u16 saturated as above, else f32 as it is. */
static inline void gip__elem_store_f32(void *row, gip_dtype dt, int64_t i, float v)
{
    if (dt == GIP_U8)
        ((uint8_t *)row)[i] = gip__sat_u8_f32(v);
    else if (dt == GIP_U16)
        ((uint16_t *)row)[i] = gip__sat_u16_f32(v);
    else
        ((float *)row)[i] = v;
}
#endif

#endif
