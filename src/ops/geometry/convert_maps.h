/* SPDX-License-Identifier: MIT */
/* convert_maps: one map entry from one form of gip_remap()'s maps into another, as
 * cv2.convertMaps computes it, written once for the CPU and the CUDA backend. */
#ifndef GIP_OPS_CONVERT_MAPS_H
#define GIP_OPS_CONVERT_MAPS_H

#include <stdint.h>

#include "internal.h"
#include "saturate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The forms of a map. */
enum {
    GIP__MAP_F32 = 0,   /* two f32 maps: x and y */
    GIP__MAP_F32X2 = 1, /* one f32 map of x, y pairs */
    GIP__MAP_S16F = 2,  /* s16 x, y pairs and u16 32 fy + fx */
    GIP__MAP_S16 = 3    /* s16 x, y pairs alone (whole pixels) */
};

/* x rounded half to even and held within [-2^31, 2^31], NaN as +2^31: what cv2.convertMaps'
 * scalar loop computes (its vector loop gives -2^31 to every value beyond int32, so cv2's own
 * result for those depends on where they sit in the map). */
GIP__HDS int64_t gip__cm_round(float v)
{
    if (!(v < 2147483648.0f))
        return (int64_t)1 << 31;
    if (v < -2147483648.0f)
        return -((int64_t)1 << 31);
    return (int64_t)gip__round_f32(v);
}

/* int64 to s16, saturated. */
GIP__HDS int16_t gip__cm_s16(int64_t v)
{
    return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
}

/* Entry x of rows r1, r2 (form `from`) into rows d1, d2 (form `to`). */
GIP__HDS void gip__convert_map_px(int32_t from, const uint8_t *r1, const uint8_t *r2, int32_t to,
                                  uint8_t *d1, uint8_t *d2, int64_t x)
{
    float fx = 0.f, fy = 0.f;
    int64_t ix = 0, iy = 0;
    int32_t f = 0;
    if (from == GIP__MAP_F32) {
        fx = ((const float *)r1)[x];
        fy = ((const float *)r2)[x];
    } else if (from == GIP__MAP_F32X2) {
        fx = ((const float *)r1)[2 * x];
        fy = ((const float *)r1)[2 * x + 1];
    } else {
        ix = ((const int16_t *)r1)[2 * x];
        iy = ((const int16_t *)r1)[2 * x + 1];
        f = from == GIP__MAP_S16F ? ((const uint16_t *)r2)[x] & 1023 : 0;
    }
    if (to >= GIP__MAP_S16F) {
        if (from < GIP__MAP_S16F && to == GIP__MAP_S16F) {
            const int64_t X = gip__cm_round(fx * 32.f), Y = gip__cm_round(fy * 32.f);
            ix = X >> 5;
            iy = Y >> 5;
            f = (int32_t)((Y & 31) * 32 + (X & 31));
        } else if (from < GIP__MAP_S16F) {
            ix = gip__cm_round(fx);
            iy = gip__cm_round(fy);
        } else if (to == GIP__MAP_S16) { /* fractions dropped: the nearest whole pixel */
            ix += (f & 31) >= 16;
            iy += (f >> 5) >= 16;
        }
        ((int16_t *)d1)[2 * x] = gip__cm_s16(ix);
        ((int16_t *)d1)[2 * x + 1] = gip__cm_s16(iy);
        if (to == GIP__MAP_S16F)
            ((uint16_t *)d2)[x] = (uint16_t)f;
        return;
    }
    if (from >= GIP__MAP_S16F) {
        fx = (float)ix + (float)(f & 31) * 0.03125f;
        fy = (float)iy + (float)(f >> 5) * 0.03125f;
    }
    if (to == GIP__MAP_F32) {
        ((float *)d1)[x] = fx;
        ((float *)d2)[x] = fy;
    } else {
        ((float *)d1)[2 * x] = fx;
        ((float *)d1)[2 * x + 1] = fy;
    }
}

/* CUDA: every entry of a w x h map, rows at the given strides, queued on the context's stream. */
gip_status gip__convert_maps_cuda(gip_context *ctx, int32_t from, const gip_image *m1,
                                  const gip_image *m2, int32_t to, gip_image *d1, gip_image *d2,
                                  int64_t w, int64_t h);

#ifdef __cplusplus
}
#endif
#endif
