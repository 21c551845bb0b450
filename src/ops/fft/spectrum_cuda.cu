/* SPDX-License-Identifier: MIT */
/* The spectrum image on the GPU: gray into tight floats (skipped for tight f32 gray), cuFFT
 * real-to-complex, ONE fused pass over the half spectrum (log magnitude + finite min/max by block
 * reduction and ordered-integer atomics), then ONE pass writing the shifted full u8 image, each
 * pixel rebuilt from the half by Hermitian symmetry. */
#include "magnitude_cuda.cuh"
#include "spectrum.h"

template <typename T>
__global__ void gray_kernel(const void *src, int64_t stride, int64_t w, int64_t h, int cn, bool bgr,
                            float *out)
{
    int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= w)
        return;
    for (int64_t y = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; y < h;
         y += (int64_t)gridDim.y * blockDim.y) {
        const T *p = gip__row<T>(src, stride, y) + x * cn;
        float v;
        if (cn == 1)
            v = (float)p[0];
        else if (sizeof(T) == 4)
            v = gip__gray_f32((float)p[0], (float)p[1], (float)p[2], !bgr);
        else
            v = gip__gray_int((uint32_t)p[0], (uint32_t)p[1], (uint32_t)p[2], !bgr);
        out[y * w + x] = v;
    }
}

/* Log magnitude of the (hw x h) half spectrum into L, and its finite range into mm. */
__global__ void logmag_kernel(const float2 *spec, int64_t hw, int64_t h, int mode, float *L,
                              uint32_t *mm)
{
    int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t nlo = 0, hi = 0;
    if (x < hw)
        for (int64_t y = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; y < h;
             y += (int64_t)gridDim.y * blockDim.y) {
            float2 c = spec[y * hw + x];
            float v = gip__mag_value(c.x, c.y, mode);
            L[y * hw + x] = v;
            gip__fft_fold(v, &nlo, &hi);
        }
    gip__fft_block_minmax(nlo, hi, mm);
}

/* dst(x, y) = norm(L(kx, ky)), (kx, ky) = ((x + ceil(W/2)) mod W, (y + ceil(H/2)) mod H); the full
 * spectrum's L(kx, ky) is half(kx, ky) for kx <= W/2, else half(W - kx, (H - ky) mod H). */
__global__ void spectrum_u8_kernel(const float *L, int64_t w, int64_t h, int64_t hw,
                                   const uint32_t *mm, void *dst, int64_t stride)
{
    int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= w)
        return;
    gip__norm_coeffs c = gip__fft_coeffs(mm);
    int64_t cw = w - w / 2, ch = h - h / 2;
    int64_t kx = x + cw >= w ? x + cw - w : x + cw;
    for (int64_t y = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; y < h;
         y += (int64_t)gridDim.y * blockDim.y) {
        int64_t ky = y + ch >= h ? y + ch - h : y + ch;
        float v = kx < hw ? L[ky * hw + kx] : L[(ky == 0 ? 0 : h - ky) * hw + (w - kx)];
        gip__row<uint8_t>(dst, stride, y)[x] = gip__norm_apply(v, c);
    }
}

extern "C" gip_status gip__spectrum_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                         int mode, bool bgr)
{
    int64_t w = src->width, h = src->height, hw = w / 2 + 1;
    bool direct = src->dtype == GIP_F32 && src->channels == 1 && src->stride == w * 4 &&
                  (uintptr_t)src->data % 16 == 0;
    size_t mm_bytes = 256;
    size_t real_bytes = direct ? 0 : gip__fft_round((size_t)(w * h) * 4);
    size_t spec_bytes = gip__fft_round((size_t)(hw * h) * 8);
    size_t l_bytes = gip__fft_round((size_t)(hw * h) * 4);
    uintptr_t plan;
    gip_status st = gip__cufft_plan(ctx, GIP__FFT_R2C, w, h, &plan);
    if (st)
        return st;
    gip__fft_scratch s;
    if ((st =
             gip__fft_scratch_acquire(ctx, true, mm_bytes + real_bytes + spec_bytes + l_bytes, &s)))
        return st;
    char *base = (char *)s.ptr;
    uint32_t *mm = (uint32_t *)base;
    float *real = direct ? (float *)src->data : (float *)(base + mm_bytes);
    float2 *spec = (float2 *)(base + mm_bytes + real_bytes);
    float *L = (float *)(base + mm_bytes + real_bytes + spec_bytes);
    cudaStream_t stream = gip__stream(ctx);
    dim3 grid, block;
    if ((st = gip__cuda_status(ctx, cudaMemsetAsync(mm, 0, 2 * sizeof(uint32_t), stream),
                               "cudaMemsetAsync")))
        goto out_release;
    if (!direct) {
        gip__fft_grid(w, h, &grid, &block);
        int cn = src->channels;
        if (src->dtype == GIP_U8)
            gray_kernel<uint8_t>
                <<<grid, block, 0, stream>>>(src->data, src->stride, w, h, cn, bgr, real);
        else if (src->dtype == GIP_U16)
            gray_kernel<uint16_t>
                <<<grid, block, 0, stream>>>(src->data, src->stride, w, h, cn, bgr, real);
        else
            gray_kernel<float>
                <<<grid, block, 0, stream>>>(src->data, src->stride, w, h, cn, bgr, real);
        if ((st = GIP__LAUNCH_CHECK(ctx, "gray_kernel")))
            goto out_release;
    }
    if ((st = gip__cufft_exec(ctx, plan, GIP__FFT_R2C, real, spec)))
        goto out_release;
    gip__fft_grid(hw, h, &grid, &block);
    /* Fewer row blocks than rows: each thread folds several rows before the block reduction, so
     * the atomics stay few. */
    grid.y = grid.y > 64 ? 64 : grid.y;
    logmag_kernel<<<grid, block, 0, stream>>>(spec, hw, h, mode, L, mm);
    if ((st = GIP__LAUNCH_CHECK(ctx, "logmag_kernel")))
        goto out_release;
    gip__fft_grid(w, h, &grid, &block);
    spectrum_u8_kernel<<<grid, block, 0, stream>>>(L, w, h, hw, mm, dst->data, dst->stride);
    st = GIP__LAUNCH_CHECK(ctx, "spectrum_u8_kernel");
out_release:
    gip__fft_scratch_release(ctx, &s);
    return st;
}
