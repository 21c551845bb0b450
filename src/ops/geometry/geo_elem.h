/* SPDX-License-Identifier: MIT */
/* Element e of a u8, u16 or f32 row, loaded as a float or (u8, u16) as an int32, and a float
 * stored with OpenCV's rounding and saturation: the sampling arithmetic of resize, the warps and
 * the pyramids reads and writes its rows through these on both backends. */
#ifndef GIP_OPS_GEO_ELEM_H
#define GIP_OPS_GEO_ELEM_H

#include "border.h"
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

GIP__HD float gip__geo_loadf(const uint8_t *row, int64_t e, gip_dtype dt)
{
    if (dt == GIP_U8)
        return (float)row[e];
    if (dt == GIP_U16)
        return (float)((const uint16_t *)row)[e];
    return ((const float *)row)[e];
}

GIP__HD int32_t gip__geo_loadi(const uint8_t *row, int64_t e, gip_dtype dt)
{
    return dt == GIP_U8 ? (int32_t)row[e] : (int32_t)((const uint16_t *)row)[e];
}

GIP__HD void gip__geo_storef(uint8_t *row, int64_t e, gip_dtype dt, float v)
{
    if (dt == GIP_U8)
        row[e] = gip__sat_u8_f32(v);
    else if (dt == GIP_U16)
        ((uint16_t *)row)[e] = gip__sat_u16_f32(v);
    else
        ((float *)row)[e] = v;
}

#ifdef __cplusplus
}
#endif
#endif
