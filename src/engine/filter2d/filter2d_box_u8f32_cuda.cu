/* SPDX-License-Identifier: MIT */
/* The box kernel's instances for u8 sources to f32 (filter2d_box_cuda.cuh). */
#include "filter2d_box_cuda.cuh"

gip_status gip__fb_run_u8f32(gip_context *ctx, const FbArgs &a, int32_t C, int32_t K, bool mag)
{
    return mag ? fb_dispatch<uint8_t, float, true>(ctx, a, C, K)
               : fb_dispatch<uint8_t, float, false>(ctx, a, C, K);
}
