/* SPDX-License-Identifier: MIT */
/* Magnitude, log-magnitude and min-max normalisation to u8 on the GPU (the normalisation: one
 * reducing pass into ordered-integer atomics, one writing pass). */
#include "magnitude_cuda.cuh"

__global__ void mag_kernel(const void *src, int64_t sstride, void *dst, int64_t dstride, int64_t w,
                           int64_t h, int mode)
{
    int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= w)
        return;
    for (int64_t y = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; y < h;
         y += (int64_t)gridDim.y * blockDim.y) {
        const float *s = gip__row<float>(src, sstride, y);
        gip__row<float>(dst, dstride, y)[x] = gip__mag_value(s[2 * x], s[2 * x + 1], mode);
    }
}

extern "C" gip_status gip__magnitude_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                          int mode)
{
    dim3 grid, block;
    gip__fft_grid(src->width, src->height, &grid, &block);
    mag_kernel<<<grid, block, 0, gip__stream(ctx)>>>(src->data, src->stride, dst->data, dst->stride,
                                                     src->width, src->height, mode);
    return GIP__LAUNCH_CHECK(ctx, "mag_kernel");
}

__global__ void range_kernel(const void *src, int64_t stride, int64_t n, int64_t h, uint32_t *mm)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t nlo = 0, hi = 0;
    if (i < n)
        for (int64_t y = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; y < h;
             y += (int64_t)gridDim.y * blockDim.y)
            gip__fft_fold(gip__row<float>(src, stride, y)[i], &nlo, &hi);
    gip__fft_block_minmax(nlo, hi, mm);
}

__global__ void norm_kernel(const void *src, int64_t sstride, void *dst, int64_t dstride, int64_t n,
                            int64_t h, const uint32_t *mm)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    gip__norm_coeffs c = gip__fft_coeffs(mm);
    for (int64_t y = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; y < h;
         y += (int64_t)gridDim.y * blockDim.y)
        gip__row<uint8_t>(dst, dstride, y)[i] =
            gip__norm_apply(gip__row<float>(src, sstride, y)[i], c);
}

extern "C" gip_status gip__normalize_cuda(gip_context *ctx, const gip_image *src, gip_image *dst)
{
    gip__fft_scratch s;
    gip_status st = gip__fft_scratch_acquire(ctx, true, 256, &s);
    if (st)
        return st;
    uint32_t *mm = (uint32_t *)s.ptr;
    int64_t n = src->width * src->channels;
    dim3 grid, block;
    gip__fft_grid(n, src->height, &grid, &block);
    cudaStream_t stream = gip__stream(ctx);
    if ((st = gip__cuda_status(ctx, cudaMemsetAsync(mm, 0, 2 * sizeof(uint32_t), stream),
                               "cudaMemsetAsync")))
        goto out_release;
    range_kernel<<<grid, block, 0, stream>>>(src->data, src->stride, n, src->height, mm);
    if ((st = GIP__LAUNCH_CHECK(ctx, "range_kernel")))
        goto out_release;
    norm_kernel<<<grid, block, 0, stream>>>(src->data, src->stride, dst->data, dst->stride, n,
                                            src->height, mm);
    st = GIP__LAUNCH_CHECK(ctx, "norm_kernel");
out_release:
    gip__fft_scratch_release(ctx, &s);
    return st;
}
