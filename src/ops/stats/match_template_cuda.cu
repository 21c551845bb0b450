/* SPDX-License-Identifier: MIT */
/* matchTemplate on CUDA, the parts of its own: one channel of an image as an f32 plane, the sum
 * of the channels' correlations, and the normalisation of each result pixel from the correlation
 * and the image's f64 integral images (OpenCV's rules, the CPU's arithmetic). The correlation
 * itself comes from filter2D's CUDA engines and the integral images from gip_integral's. */
#include "cuda_util.cuh"
#include "ops/stats/stats.h"

template <typename T>
static __global__ void tm_plane(const char *src, int64_t ss, int64_t w, int64_t h, int cn, int c,
                                float *plane)
{
    const int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h)
        plane[y * w + x] = (float)reinterpret_cast<const T *>(src + y * ss)[x * cn + c];
}

static __global__ void tm_accumulate(const float *corr, float *acc, int64_t n, bool first)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        acc[i] = first ? corr[i] : acc[i] + corr[i];
}

static __global__ void tm_normalise(const float *corr, int64_t cw, const double *isum,
                                    const double *isq, int64_t iw, gip__tm_terms t, float *out,
                                    int64_t os, int64_t rw, int64_t rh)
{
    const int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= rw || y >= rh)
        return;
    if (t.flat) {
        reinterpret_cast<float *>(reinterpret_cast<char *>(out) + y * os)[x] = 1.0f;
        return;
    }
    const int m = t.method, cn = t.cn;
    const bool coeff = m == GIP_TM_CCOEFF || m == GIP_TM_CCOEFF_NORMED;
    const bool sqdiff = m == GIP_TM_SQDIFF || m == GIP_TM_SQDIFF_NORMED;
    const bool normed = m & 1;
    double num = corr[y * cw + x], wmean2 = 0, wsum2 = 0;
    if (coeff) {
        const double *s0 = isum + y * iw, *s1 = isum + (y + t.h) * iw;
        for (int c = 0; c < cn; c++) {
            const int64_t a = x * cn + c, b = (x + t.w) * cn + c;
            double v = s1[b] - s1[a] - s0[b] + s0[a];
            wmean2 += v * v;
            num -= v * t.tmean[c];
        }
        wmean2 *= t.inv_area;
    }
    if (normed || sqdiff) {
        const double *q0 = isq + y * iw, *q1 = isq + (y + t.h) * iw;
        for (int c = 0; c < cn; c++) {
            const int64_t a = x * cn + c, b = (x + t.w) * cn + c;
            wsum2 += q1[b] - q1[a] - q0[b] + q0[a];
        }
        if (sqdiff) {
            num = wsum2 - 2 * num + t.tsum2;
            num = num > 0 ? num : 0;
        }
    }
    if (normed) {
        double d = wsum2 - wmean2;
        double tt = sqrt(d > 0 ? d : 0) * t.tnorm;
        if (fabs(num) < tt)
            num /= tt;
        else if (fabs(num) < tt * 1.125)
            num = num > 0 ? 1 : -1;
        else
            num = m != GIP_TM_SQDIFF_NORMED ? 0 : 1;
    }
    reinterpret_cast<float *>(reinterpret_cast<char *>(out) + y * os)[x] = (float)num;
}

extern "C" gip_status gip__tm_plane_cuda(gip_context *ctx, const gip_image *src, int32_t c,
                                         float *plane)
{
    dim3 g(gip__div_up(src->width, 256), (unsigned)src->height);
    if (src->dtype == GIP_U8)
        tm_plane<uint8_t><<<g, 256, 0, gip__stream(ctx)>>>(
            (const char *)src->data, src->stride, src->width, src->height, src->channels, c, plane);
    else
        tm_plane<float><<<g, 256, 0, gip__stream(ctx)>>>(
            (const char *)src->data, src->stride, src->width, src->height, src->channels, c, plane);
    return GIP__LAUNCH_CHECK(ctx, "matchTemplate plane kernel");
}

extern "C" gip_status gip__tm_accumulate_cuda(gip_context *ctx, const float *corr, float *acc,
                                              int64_t n, bool first)
{
    tm_accumulate<<<gip__div_up(n, 256), 256, 0, gip__stream(ctx)>>>(corr, acc, n, first);
    return GIP__LAUNCH_CHECK(ctx, "matchTemplate accumulate kernel");
}

extern "C" gip_status gip__tm_normalise_cuda(gip_context *ctx, const float *corr, int64_t corr_w,
                                             const double *isum, const double *isq, int64_t iw,
                                             const gip__tm_terms *t, gip_image *result)
{
    dim3 g(gip__div_up(result->width, 256), (unsigned)result->height);
    tm_normalise<<<g, 256, 0, gip__stream(ctx)>>>(corr, corr_w, isum, isq, iw, *t,
                                                  (float *)result->data, result->stride,
                                                  result->width, result->height);
    return GIP__LAUNCH_CHECK(ctx, "matchTemplate normalise kernel");
}
