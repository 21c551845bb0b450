/* SPDX-License-Identifier: MIT */
/* Device helpers shared by the FFT engine's and the FFT operations' CUDA files: the launch shape
 * of their grid-stride row loops. */
#ifndef GIP_ENGINE_FFT_CUDA_CUH
#define GIP_ENGINE_FFT_CUDA_CUH

#include "cuda_util.cuh"
#include "fft.h"

/* 2-D launch over (width, height): 32 x 8 threads, rows folded so that gridDim.y <= 65535. */
static inline void gip__fft_grid(int64_t w, int64_t h, dim3 *grid, dim3 *block)
{
    *block = dim3(32, 8);
    int64_t gy = (h + 7) / 8;
    *grid = dim3(gip__div_up(w, 32), (unsigned)(gy > 65535 ? 65535 : gy));
}

#endif
