/* SPDX-License-Identifier: MIT */
/* Device helpers of the min-max normalisation that magnitude_cuda.cu and spectrum_cuda.cu share:
 * the block-wide finite min/max reduction into ordered-integer atomics. */
#ifndef GIP_OPS_FFT_MAGNITUDE_CUDA_CUH
#define GIP_OPS_FFT_MAGNITUDE_CUDA_CUH

#include "engine/fft/fft_cuda.cuh"
#include "magnitude.h"

/* Reduces this thread's (lo, hi) encodings over the block and merges them into mm[0] (max of the
 * complemented encoding = min) and mm[1] (max). 0 is the identity: no finite value. */
__device__ __forceinline__ void gip__fft_block_minmax(uint32_t nlo, uint32_t hi, uint32_t *mm)
{
    __shared__ uint32_t s_lo[8], s_hi[8];
    for (int o = 16; o > 0; o >>= 1) {
        nlo = max(nlo, __shfl_down_sync(0xFFFFFFFFu, nlo, o));
        hi = max(hi, __shfl_down_sync(0xFFFFFFFFu, hi, o));
    }
    int lane = threadIdx.x & 31, warp = (threadIdx.y * blockDim.x + threadIdx.x) >> 5;
    int t = threadIdx.y * blockDim.x + threadIdx.x;
    if (lane == 0) {
        s_lo[warp] = nlo;
        s_hi[warp] = hi;
    }
    __syncthreads();
    if (t == 0) {
        int nw = (blockDim.x * blockDim.y + 31) >> 5;
        for (int i = 1; i < nw; i++) {
            nlo = max(nlo, s_lo[i]);
            hi = max(hi, s_hi[i]);
        }
        if (hi) {
            atomicMax(&mm[0], nlo);
            atomicMax(&mm[1], hi);
        }
    }
}

/* Folds a finite value into a thread's encodings. */
__device__ __forceinline__ void gip__fft_fold(float v, uint32_t *nlo, uint32_t *hi)
{
    if (isfinite(v)) {
        uint32_t e = gip__ordered_u32(v);
        *nlo = max(*nlo, ~e);
        *hi = max(*hi, e);
    }
}

/* Normalisation coefficients from the reduced encodings. */
__device__ __forceinline__ gip__norm_coeffs gip__fft_coeffs(const uint32_t *mm)
{
    bool valid = mm[1] != 0;
    return gip__norm_make(valid ? gip__ordered_f32(~mm[0]) : 0.0f,
                          valid ? gip__ordered_f32(mm[1]) : 0.0f, valid);
}

#endif
