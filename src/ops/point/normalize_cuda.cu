/* SPDX-License-Identifier: MIT */
/* The reduction of normalize on CUDA: per-block minimum, maximum and sums in double precision,
 * finished on the host. */
#include <cfloat>

#include "cuda_util.cuh"
#include "normalize.h"

static constexpr int RED_THREADS = 256;
static constexpr int RED_BLOCKS = 512;

template <typename T>
__global__ void reduce_kernel(const char *src, int64_t ss, const uint8_t *mask, int64_t ms,
                              int64_t w, int64_t h, int cn, double *part)
{
    __shared__ double smin[RED_THREADS], smax[RED_THREADS], s1[RED_THREADS], s2[RED_THREADS];
    double mn = DBL_MAX, mx = -DBL_MAX, l1 = 0, l2 = 0;
    const int64_t n = w * h;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t y = i / w, x = i - y * w;
        if (mask && !mask[y * ms + x])
            continue;
        const T *p = reinterpret_cast<const T *>(src + y * ss) + x * cn;
        for (int c = 0; c < cn; c++) {
            double v = (double)p[c];
            mn = v < mn ? v : mn;
            mx = v > mx ? v : mx;
            l1 += v < 0 ? -v : v;
            l2 += v * v;
        }
    }
    const int t = threadIdx.x;
    smin[t] = mn, smax[t] = mx, s1[t] = l1, s2[t] = l2;
    __syncthreads();
    for (int k = RED_THREADS / 2; k > 0; k >>= 1) {
        if (t < k) {
            smin[t] = smin[t] < smin[t + k] ? smin[t] : smin[t + k];
            smax[t] = smax[t] > smax[t + k] ? smax[t] : smax[t + k];
            s1[t] += s1[t + k];
            s2[t] += s2[t + k];
        }
        __syncthreads();
    }
    if (t == 0) {
        double *o = part + 4 * blockIdx.x;
        o[0] = smin[0], o[1] = smax[0], o[2] = s1[0], o[3] = s2[0];
    }
}

extern "C" gip_status gip__normalize_reduce_cuda(gip_context *ctx, const gip_image *src,
                                                 const gip_image *mask, gip__reduce *out)
{
    gip_image buf = {0};
    /* RED_BLOCKS x 4 doubles: the bytes of a (RED_BLOCKS * 8) x 1 f32 image. */
    gip_status st =
        gip_image_alloc(ctx, &buf, RED_BLOCKS * 8, 1, 1, GIP_F32, GIP_MEM_CUDA, GIP_ALLOC_TIGHT);
    if (st)
        return st;
    cudaStream_t s = gip__stream(ctx);
    int64_t n = src->width * src->height;
    int64_t blocks = (n + RED_THREADS - 1) / RED_THREADS;
    if (blocks > RED_BLOCKS)
        blocks = RED_BLOCKS;
    const char *sp = (const char *)src->data;
    const uint8_t *mp = mask ? (const uint8_t *)mask->data : nullptr;
    int64_t ms = mask ? mask->stride : 0;
    double *part = (double *)buf.data;
    switch (src->dtype) {
    case GIP_U8:
        reduce_kernel<uint8_t><<<(unsigned)blocks, RED_THREADS, 0, s>>>(
            sp, src->stride, mp, ms, src->width, src->height, src->channels, part);
        break;
    case GIP_U16:
        reduce_kernel<uint16_t><<<(unsigned)blocks, RED_THREADS, 0, s>>>(
            sp, src->stride, mp, ms, src->width, src->height, src->channels, part);
        break;
    case GIP_S16:
        reduce_kernel<int16_t><<<(unsigned)blocks, RED_THREADS, 0, s>>>(
            sp, src->stride, mp, ms, src->width, src->height, src->channels, part);
        break;
    default:
        reduce_kernel<float><<<(unsigned)blocks, RED_THREADS, 0, s>>>(
            sp, src->stride, mp, ms, src->width, src->height, src->channels, part);
        break;
    }
    st = GIP__LAUNCH_CHECK(ctx, "normalize reduction kernel");
    double host[RED_BLOCKS * 4];
    if (!st)
        st = gip__cuda_status(ctx,
                              cudaMemcpyAsync(host, part, (size_t)blocks * 4 * sizeof(double),
                                              cudaMemcpyDeviceToHost, s),
                              "normalize reduction download");
    if (!st)
        st = gip__cuda_status(ctx, cudaStreamSynchronize(s), "normalize reduction");
    gip_image_free(ctx, &buf);
    if (st)
        return st;
    gip__reduce r = {DBL_MAX, -DBL_MAX, 0, 0};
    for (int64_t b = 0; b < blocks; b++) {
        r.min = host[4 * b] < r.min ? host[4 * b] : r.min;
        r.max = host[4 * b + 1] > r.max ? host[4 * b + 1] : r.max;
        r.l1 += host[4 * b + 2];
        r.l2 += host[4 * b + 3];
    }
    *out = r;
    return GIP_OK;
}
