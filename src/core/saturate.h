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

#endif
