/* SPDX-License-Identifier: MIT */
/* Frequency-domain correlation on the GPU: the flipped kernel scattered into a zero plane and
 * transformed once, then per channel one padding pass (border rule), cuFFT R2C, one complex product
 * pass (with the 1/(MN) scale), cuFFT C2R and one pass writing the channel. */
#include "border.h"
#include "fft_cuda.cuh"

__global__ void scatter_kernel(const float *k, int32_t kw, int32_t kh, int64_t m, int64_t n,
                               float *plane)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (int64_t)kw * kh)
        return;
    int64_t j = t / kw, i = t - j * kw;
    plane[((n - j) % n) * m + (m - i) % m] = k[t];
}

template <typename T>
__global__ void pad_kernel(const void *src, int64_t stride, int64_t w, int64_t h, int cn, int c,
                           int32_t kw, int32_t kh, int32_t ax, int32_t ay, gip_border mode,
                           float cval, int64_t m, int64_t n, float *plane)
{
    int64_t u = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= m)
        return;
    int64_t wp = w + kw - 1, hp = h + kh - 1;
    int64_t sx = u < wp ? gip__border_index(u - ax, w, mode) : -2;
    for (int64_t v = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; v < n;
         v += (int64_t)gridDim.y * blockDim.y) {
        float val = 0.0f;
        if (sx != -2 && v < hp) {
            int64_t sy = gip__border_index(v - ay, h, mode);
            val = sx < 0 || sy < 0 ? cval : (float)gip__row<T>(src, stride, sy)[sx * cn + c];
        }
        plane[v * m + u] = val;
    }
}

/* The 1-D spectra of the two factors of a separable kernel (see gip__fft_taps_spectrum), one
 * thread per frequency, in double: out[0, hm) for kx over m, then out[hm, hm + n) for ky over n. */
__global__ void taps_spectrum_kernel(const float *kx, int32_t kw, const float *ky, int32_t kh,
                                     int64_t m, int64_t hm, int64_t n, float2 *out)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= hm + n)
        return;
    bool xs = t < hm;
    const float *k = xs ? kx : ky;
    int32_t klen = xs ? kw : kh;
    int64_t len = xs ? m : n, u = xs ? t : t - hm;
    int64_t step = u % len, r = 0; /* r = u * i mod len, exact */
    double re = 0, im = 0;
    for (int32_t i = 0; i < klen; i++) {
        double sn, cs;
        sincospi(2.0 * (double)r / (double)len, &sn, &cs);
        re += (double)k[i] * cs;
        im += (double)k[i] * sn;
        r += step;
        if (r >= len)
            r -= len;
    }
    out[t] = make_float2((float)re, (float)im);
}

/* The product with a separable kernel's spectrum K(u, v) = Kx[u] Ky[v], formed on the fly. */
__global__ void product_sep_kernel(float2 *spec, const float2 *kxs, const float2 *kys, int64_t hm,
                                   int64_t n, float scale)
{
    int64_t u = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= hm)
        return;
    float2 x = kxs[u];
    for (int64_t v = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; v < n;
         v += (int64_t)gridDim.y * blockDim.y) {
        float2 y = kys[v], a = spec[v * hm + u];
        float kr = x.x * y.x - x.y * y.y, ki = x.x * y.y + x.y * y.x;
        spec[v * hm + u] =
            make_float2((a.x * kr - a.y * ki) * scale, (a.x * ki + a.y * kr) * scale);
    }
}

__global__ void product_kernel(float2 *spec, const float2 *kspec, int64_t count, float scale)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (int64_t)gridDim.x * blockDim.x) {
        float2 a = spec[i], b = kspec[i];
        spec[i] = make_float2((a.x * b.x - a.y * b.y) * scale, (a.x * b.y + a.y * b.x) * scale);
    }
}

template <typename T>
__global__ void extract_kernel(const float *plane, int64_t m, int64_t w, int64_t h, int cn, int c,
                               float delta, void *dst, int64_t stride)
{
    int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= w)
        return;
    for (int64_t y = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; y < h;
         y += (int64_t)gridDim.y * blockDim.y)
        gip__row<T>(dst, stride, y)[x * cn + c] = gip__saturate<T>(plane[y * m + x] + delta);
}

extern "C" gip_status gip__fft_convolve_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                             const gip__fftconv_plan *p)
{
    int64_t m = p->m, n = p->n, hm = m / 2 + 1, w = src->width, h = src->height;
    int cn = src->channels;
    size_t real_bytes = gip__fft_round((size_t)(m * n) * 4);
    size_t spec_bytes = gip__fft_round((size_t)(hm * n) * 8);
    bool sep = p->kx != NULL;
    /* Separable kernels: the two factors and their 1-D spectra instead of a 2-D spectrum. */
    size_t k_bytes = sep ? gip__fft_round((size_t)(p->kw + p->kh) * 4)
                         : gip__fft_round((size_t)p->kw * p->kh * 4);
    size_t ks_bytes = sep ? gip__fft_round((size_t)(hm + n) * 8) : spec_bytes;
    uintptr_t r2c, c2r;
    gip_status st;
    if ((st = gip__cufft_plan(ctx, GIP__FFT_R2C, m, n, &r2c)) ||
        (st = gip__cufft_plan(ctx, GIP__FFT_C2R, m, n, &c2r)))
        return st;
    gip__fft_scratch s;
    if ((st =
             gip__fft_scratch_acquire(ctx, true, real_bytes + spec_bytes + ks_bytes + k_bytes, &s)))
        return st;
    char *base = (char *)s.ptr;
    float *real = (float *)base;
    float2 *spec = (float2 *)(base + real_bytes),
           *kspec = (float2 *)(base + real_bytes + spec_bytes);
    float *kdev = (float *)(base + real_bytes + spec_bytes + ks_bytes);
    cudaStream_t stream = gip__stream(ctx);
    float scale = (float)(1.0 / ((double)m * (double)n));
    dim3 grid, block;
    /* The kernel's coefficients travel from pageable host memory: the copy returns once they are
     * staged, so the caller may free them right after this call. */
    if (sep) {
        if ((st = gip__cuda_status(
                 ctx,
                 cudaMemcpyAsync(kdev, p->kx, (size_t)p->kw * 4, cudaMemcpyHostToDevice, stream),
                 "cudaMemcpyAsync")) ||
            (st = gip__cuda_status(ctx,
                                   cudaMemcpyAsync(kdev + p->kw, p->ky, (size_t)p->kh * 4,
                                                   cudaMemcpyHostToDevice, stream),
                                   "cudaMemcpyAsync")))
            goto out_release;
        taps_spectrum_kernel<<<(unsigned)gip__div_up(hm + n, 128), 128, 0, stream>>>(
            kdev, p->kw, kdev + p->kw, p->kh, m, hm, n, kspec);
        if ((st = GIP__LAUNCH_CHECK(ctx, "taps_spectrum_kernel")))
            goto out_release;
    } else {
        int64_t kt = (int64_t)p->kw * p->kh;
        if ((st = gip__cuda_status(
                 ctx,
                 cudaMemcpyAsync(kdev, p->kernel, (size_t)kt * 4, cudaMemcpyHostToDevice, stream),
                 "cudaMemcpyAsync")) ||
            (st = gip__cuda_status(ctx, cudaMemsetAsync(real, 0, (size_t)(m * n) * 4, stream),
                                   "cudaMemsetAsync")))
            goto out_release;
        scatter_kernel<<<gip__div_up(kt, 256), 256, 0, stream>>>(kdev, p->kw, p->kh, m, n, real);
        if ((st = GIP__LAUNCH_CHECK(ctx, "scatter_kernel")) ||
            (st = gip__cufft_exec(ctx, r2c, GIP__FFT_R2C, real, kspec)))
            goto out_release;
    }
    for (int c = 0; c < cn; c++) {
        float cval = p->border.value[c];
        gip__fft_grid(m, n, &grid, &block);
        switch (src->dtype) {
        case GIP_U8:
            pad_kernel<uint8_t><<<grid, block, 0, stream>>>(src->data, src->stride, w, h, cn, c,
                                                            p->kw, p->kh, p->ax, p->ay,
                                                            p->border.mode, cval, m, n, real);
            break;
        case GIP_U16:
            pad_kernel<uint16_t><<<grid, block, 0, stream>>>(src->data, src->stride, w, h, cn, c,
                                                             p->kw, p->kh, p->ax, p->ay,
                                                             p->border.mode, cval, m, n, real);
            break;
        default:
            pad_kernel<float><<<grid, block, 0, stream>>>(src->data, src->stride, w, h, cn, c,
                                                          p->kw, p->kh, p->ax, p->ay,
                                                          p->border.mode, cval, m, n, real);
            break;
        }
        if ((st = GIP__LAUNCH_CHECK(ctx, "pad_kernel")) ||
            (st = gip__cufft_exec(ctx, r2c, GIP__FFT_R2C, real, spec)))
            goto out_release;
        if (sep) {
            gip__fft_grid(hm, n, &grid, &block);
            product_sep_kernel<<<grid, block, 0, stream>>>(spec, kspec, kspec + hm, hm, n, scale);
        } else {
            int64_t count = hm * n;
            int64_t blocks = (count + 255) / 256;
            product_kernel<<<(unsigned)(blocks > 65536 ? 65536 : blocks), 256, 0, stream>>>(
                spec, kspec, count, scale);
        }
        if ((st = GIP__LAUNCH_CHECK(ctx, "product_kernel")) ||
            (st = gip__cufft_exec(ctx, c2r, GIP__FFT_C2R, spec, real)))
            goto out_release;
        gip__fft_grid(w, h, &grid, &block);
        st = gip__dispatch_dtype(dst->dtype, [&](auto t) {
            using T = decltype(t);
            extract_kernel<T><<<grid, block, 0, stream>>>(real, m, w, h, cn, c, p->delta, dst->data,
                                                          dst->stride);
            return GIP__LAUNCH_CHECK(ctx, "extract_kernel");
        });
        if (st)
            goto out_release;
    }
out_release:
    gip__fft_scratch_release(ctx, &s);
    return st;
}
