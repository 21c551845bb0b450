/* SPDX-License-Identifier: MIT */
/* The box kernel's instances for u8 sources to u8 and s16 (filter2d_box_cuda.cuh). */
#include "filter2d_box_cuda.cuh"

gip_status gip__fb_run_u8(gip_context *ctx, const FbArgs &a, int32_t C, int32_t K, gip_dtype dd,
                          bool mag)
{
    if (mag) /* the magnitude to u8 (gip__f2d_run_box_cuda's checks leave no s16 here) */
        return fb_dispatch<uint8_t, uint8_t, true>(ctx, a, C, K);
    return dd == GIP_U8 ? fb_dispatch<uint8_t, uint8_t, false>(ctx, a, C, K)
                        : fb_dispatch<uint8_t, int16_t, false>(ctx, a, C, K);
}
