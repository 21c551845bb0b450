/* SPDX-License-Identifier: MIT */
/* The histogram of a u8 image on CUDA for the histogram thresholds: the statistics family's
 * 256-bin counter (one launch, one download into page-locked memory). */
#include "cuda_util.cuh"
#include "ops/stats/stats.h"
#include "threshold.h"

extern "C" gip_status gip__hist_u8_cuda(gip_context *ctx, const gip_image *src, uint64_t hist[256])
{
    return gip__hist_u8_channel_cuda(ctx, src, 0, hist);
}
