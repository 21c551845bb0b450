/* SPDX-License-Identifier: MIT */
/* The statistics family on CUDA: the per-channel reduction (one block per band of rows, a fixed
 * tree in each block, the blocks' partials combined on the host in block order: the same input
 * gives the same result every run), the histogram counter (integer atomics, in shared memory for
 * small histograms) and the u8 table pass of equalizeHist. */
#include <string.h>

#include "cuda_util.cuh"
#include "ops/stats/stats.h"

#define RED_THREADS 128
#define RED_MAX_BLOCKS 1024

__device__ __forceinline__ void ch_init(gip__red_ch &c)
{
    c.is = c.iq = c.ia = 0;
    c.fs = c.fq = c.fa = 0.0;
    c.mn = __longlong_as_double(0x7ff0000000000000LL);             /* +inf */
    c.mx = __longlong_as_double((long long)0xfff0000000000000ULL); /* -inf */
    c.imn = c.imx = -1;
    c.nz = 0;
}

/* Folds y into x; ties keep the smaller pixel index, so the order of folding does not matter
 * for positions, and the fixed tree fixes it for the float sums. */
__device__ __forceinline__ void ch_fold(gip__red_ch &x, const gip__red_ch &y)
{
    x.is += y.is;
    x.iq += y.iq;
    x.ia += y.ia;
    x.fs = __dadd_rn(x.fs, y.fs);
    x.fq = __dadd_rn(x.fq, y.fq);
    x.fa = __dadd_rn(x.fa, y.fa);
    x.nz += y.nz;
    if (y.imn >= 0 && (x.imn < 0 || y.mn < x.mn || (y.mn == x.mn && y.imn < x.imn))) {
        x.mn = y.mn;
        x.imn = y.imn;
    }
    if (y.imx >= 0 && (x.imx < 0 || y.mx > x.mx || (y.mx == x.mx && y.imx < x.imx))) {
        x.mx = y.mx;
        x.imx = y.imx;
    }
}

template <typename T, int CN>
__global__ void __launch_bounds__(RED_THREADS)
    reduce_kernel(const char *a, int64_t as, const char *b, int64_t bs, const unsigned char *m,
                  int64_t ms, int64_t w, int64_t h, gip__red *parts)
{
    constexpr bool FL = gip__dtype_of<T>::value == GIP_F32;
    gip__red_ch acc[CN];
    for (int c = 0; c < CN; c++)
        ch_init(acc[c]);
    long long count = 0;
    for (int64_t y = blockIdx.x; y < h; y += gridDim.x) {
        const T *ra = reinterpret_cast<const T *>(a + y * as);
        const T *rb = b ? reinterpret_cast<const T *>(b + y * bs) : nullptr;
        const unsigned char *rm = m ? m + y * ms : nullptr;
        for (int64_t x = threadIdx.x; x < w; x += RED_THREADS) {
            if (rm && !rm[x])
                continue;
            count++;
            const int64_t idx = y * w + x;
#pragma unroll
            for (int c = 0; c < CN; c++) {
                gip__red_ch &s = acc[c];
                double v;
                if (FL) {
                    float f = (float)ra[x * CN + c];
                    if (rb)
                        f = __fsub_rn(f, (float)rb[x * CN + c]);
                    v = (double)f;
                    s.fs = __dadd_rn(s.fs, v);
                    s.fq = __dadd_rn(s.fq, __dmul_rn(v, v));
                    s.fa = __dadd_rn(s.fa, fabs(v));
                } else {
                    long long iv = (long long)ra[x * CN + c];
                    if (rb)
                        iv -= (long long)rb[x * CN + c];
                    s.is += iv;
                    s.iq += iv * iv;
                    s.ia += iv < 0 ? -iv : iv;
                    v = (double)iv;
                }
                s.nz += v != 0.0;
                if (v < s.mn) {
                    s.mn = v;
                    s.imn = idx;
                }
                if (v > s.mx) {
                    s.mx = v;
                    s.imx = idx;
                }
            }
        }
    }
    __shared__ gip__red_ch sh[RED_THREADS];
    __shared__ long long shc[RED_THREADS];
    const int t = threadIdx.x;
    shc[t] = count;
    __syncthreads();
    for (int s = RED_THREADS / 2; s > 0; s >>= 1) {
        if (t < s)
            shc[t] += shc[t + s];
        __syncthreads();
    }
    if (t == 0)
        parts[blockIdx.x].count = shc[0];
    for (int c = 0; c < CN; c++) {
        sh[t] = acc[c];
        __syncthreads();
        for (int s = RED_THREADS / 2; s > 0; s >>= 1) {
            if (t < s)
                ch_fold(sh[t], sh[t + s]);
            __syncthreads();
        }
        if (t == 0)
            parts[blockIdx.x].ch[c] = sh[0];
        __syncthreads();
    }
}

template <typename T>
static void launch_reduce(int cn, int grid, cudaStream_t s, const gip_image *a, const gip_image *b,
                          const gip_image *m, gip__red *parts)
{
    const char *ap = (const char *)a->data, *bp = b ? (const char *)b->data : nullptr;
    const unsigned char *mp = m ? (const unsigned char *)m->data : nullptr;
    const int64_t bs = b ? b->stride : 0, ms = m ? m->stride : 0;
    switch (cn) {
    case 1:
        reduce_kernel<T, 1><<<grid, RED_THREADS, 0, s>>>(ap, a->stride, bp, bs, mp, ms, a->width,
                                                         a->height, parts);
        break;
    case 2:
        reduce_kernel<T, 2><<<grid, RED_THREADS, 0, s>>>(ap, a->stride, bp, bs, mp, ms, a->width,
                                                         a->height, parts);
        break;
    case 3:
        reduce_kernel<T, 3><<<grid, RED_THREADS, 0, s>>>(ap, a->stride, bp, bs, mp, ms, a->width,
                                                         a->height, parts);
        break;
    default:
        reduce_kernel<T, 4><<<grid, RED_THREADS, 0, s>>>(ap, a->stride, bp, bs, mp, ms, a->width,
                                                         a->height, parts);
    }
}

extern "C" gip_status gip__reduce_cuda(gip_context *ctx, const gip_image *a, const gip_image *b,
                                       const gip_image *mask, gip__red *r)
{
    const int grid = (int)(a->height < RED_MAX_BLOCKS ? a->height : RED_MAX_BLOCKS);
    const size_t bytes = (size_t)grid * sizeof(gip__red);
    gip__red *dparts = nullptr;
    gip_status st = gip__cuda_malloc(ctx, bytes, (void **)&dparts);
    if (st)
        return st;
    gip__red *hparts = (gip__red *)malloc(bytes);
    if (!hparts) {
        gip__cuda_free(ctx, dparts);
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "reduction: out of host memory");
    }
    cudaStream_t s = gip__stream(ctx);
    switch (a->dtype) {
    case GIP_U8:
        launch_reduce<uint8_t>(a->channels, grid, s, a, b, mask, dparts);
        break;
    case GIP_U16:
        launch_reduce<uint16_t>(a->channels, grid, s, a, b, mask, dparts);
        break;
    case GIP_S16:
        launch_reduce<int16_t>(a->channels, grid, s, a, b, mask, dparts);
        break;
    default:
        launch_reduce<float>(a->channels, grid, s, a, b, mask, dparts);
    }
    st = GIP__LAUNCH_CHECK(ctx, "reduction kernel");
    if (!st)
        st =
            gip__cuda_status(ctx, cudaMemcpyAsync(hparts, dparts, bytes, cudaMemcpyDeviceToHost, s),
                             "cudaMemcpyAsync (reduction partials)");
    if (!st)
        st = gip__cuda_status(ctx, cudaStreamSynchronize(s), "cudaStreamSynchronize (reduction)");
    gip__cuda_free(ctx, dparts);
    if (!st) {
        gip__red_init(r);
        for (int k = 0; k < grid; k++)
            gip__red_combine(r, &hparts[k], a->channels);
    }
    free(hparts);
    return st;
}

/* ---- histogram -------------------------------------------------------------------------- */

/* The bin plan in device memory (tables and edges uploaded, concatenated per dimension). */
struct dev_plan {
    int dims;
    int channel[3];
    int bins[3];
    long long stride[3];
    int non_uniform;
    double a[3], b[3], lo[3], hi[3];
    const int32_t *lut; /* dims tables of lut_n entries */
    int lut_n;
    const float *edges; /* dims runs of bins + 1 edges, at edge_off[d] */
    int edge_off[3];
};

/* gip__hist_bin_f32 with every rounding explicit (no contraction). */
__device__ __forceinline__ int bin_f32(const dev_plan &p, int d, float v)
{
    if (p.non_uniform) {
        const float *r = p.edges + p.edge_off[d];
        int idx = -1, sz = p.bins[d];
        while (v >= r[idx + 1] && ++idx < sz)
            ;
        return idx >= 0 && idx < sz ? idx : -1;
    }
    double v0 = (double)v;
    if (v0 < p.lo[d] || v0 >= p.hi[d])
        return -1;
    double t = __dadd_rn(__dmul_rn(v0, p.a[d]), p.b[d]);
    int idx;
    if (!(t > -2147483648.0 && t < 2147483647.0))
        idx = t >= 2147483647.0 ? p.bins[d] - 1 : 0;
    else {
        idx = (int)t;
        idx -= (double)idx > t;
    }
    return idx < 0 ? 0 : idx >= p.bins[d] ? p.bins[d] - 1 : idx;
}

template <typename T>
__device__ __forceinline__ long long flat_bin(const dev_plan &p, const T *row, int64_t x, int cn)
{
    long long idx = 0;
    for (int d = 0; d < p.dims; d++) {
        T v = row[x * cn + p.channel[d]];
        int b;
        if (gip__dtype_of<T>::value == GIP_F32)
            b = bin_f32(p, d, (float)v);
        else
            b = p.lut[d * p.lut_n + (int)v];
        if (b < 0)
            return -1;
        idx += (long long)b * p.stride[d];
    }
    return idx;
}

template <typename T, bool SHARED>
__global__ void hist_kernel(const char *src, int64_t ss, int cn, const unsigned char *m, int64_t ms,
                            int64_t w, int64_t h, dev_plan p, long long total, uint32_t *counts)
{
    extern __shared__ uint32_t sh[];
    if (SHARED) {
        for (long long i = threadIdx.x; i < total; i += blockDim.x)
            sh[i] = 0;
        __syncthreads();
    }
    for (int64_t y = blockIdx.x; y < h; y += gridDim.x) {
        const T *row = reinterpret_cast<const T *>(src + y * ss);
        const unsigned char *rm = m ? m + y * ms : nullptr;
        for (int64_t x = threadIdx.x; x < w; x += blockDim.x) {
            if (rm && !rm[x])
                continue;
            long long idx = flat_bin<T>(p, row, x, cn);
            if (idx < 0)
                continue;
            if (SHARED)
                atomicAdd(&sh[idx], 1u);
            else
                atomicAdd(&counts[idx], 1u);
        }
    }
    if (SHARED) {
        __syncthreads();
        for (long long i = threadIdx.x; i < total; i += blockDim.x)
            if (sh[i])
                atomicAdd(&counts[i], sh[i]);
    }
}

#define HIST_SHARED_BINS 12288

template <typename T>
static void launch_hist(int grid, size_t smem, cudaStream_t s, const gip_image *src,
                        const gip_image *m, const dev_plan &p, long long total, uint32_t *counts)
{
    const unsigned char *mp = m ? (const unsigned char *)m->data : nullptr;
    const int64_t ms = m ? m->stride : 0;
    if (total <= HIST_SHARED_BINS)
        hist_kernel<T, true><<<grid, 256, smem, s>>>((const char *)src->data, src->stride,
                                                     src->channels, mp, ms, src->width, src->height,
                                                     p, total, counts);
    else
        hist_kernel<T, false><<<grid, 256, 0, s>>>((const char *)src->data, src->stride,
                                                   src->channels, mp, ms, src->width, src->height,
                                                   p, total, counts);
}

extern "C" gip_status gip__hist_count_cuda(gip_context *ctx, const gip_image *src,
                                           const gip_image *mask, const gip__hist_plan *plan,
                                           uint32_t *counts)
{
    cudaStream_t s = gip__stream(ctx);
    dev_plan p;
    memset(&p, 0, sizeof p);
    p.dims = plan->dims;
    p.non_uniform = plan->non_uniform;
    size_t lut_bytes = 0, edge_count = 0;
    p.lut_n = src->dtype == GIP_U8 ? 256 : src->dtype == GIP_U16 ? 65536 : 0;
    for (int d = 0; d < plan->dims; d++) {
        p.channel[d] = plan->channel[d];
        p.bins[d] = plan->bins[d];
        p.stride[d] = plan->stride[d];
        p.a[d] = plan->a[d];
        p.b[d] = plan->b[d];
        p.lo[d] = plan->lo[d];
        p.hi[d] = plan->hi[d];
        p.edge_off[d] = (int)edge_count;
        if (plan->non_uniform && src->dtype == GIP_F32)
            edge_count += (size_t)plan->bins[d] + 1;
    }
    lut_bytes = (size_t)plan->dims * p.lut_n * sizeof(int32_t);
    const size_t count_bytes = (size_t)plan->total * sizeof(uint32_t);
    const size_t edge_bytes = edge_count * sizeof(float);
    char *dmem = nullptr;
    gip_status st =
        gip__cuda_malloc(ctx, count_bytes + lut_bytes + edge_bytes + 16, (void **)&dmem);
    if (st)
        return st;
    uint32_t *dcounts = (uint32_t *)dmem;
    int32_t *dlut = (int32_t *)(dmem + count_bytes);
    float *dedges = (float *)(dmem + count_bytes + lut_bytes);
    uint32_t *host = (uint32_t *)malloc(count_bytes);
    if (!host) {
        gip__cuda_free(ctx, dmem);
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "calcHist: out of host memory");
    }
    st = gip__cuda_status(ctx, cudaMemsetAsync(dcounts, 0, count_bytes, s), "cudaMemsetAsync");
    for (int d = 0; !st && d < plan->dims; d++) {
        if (p.lut_n)
            st = gip__cuda_status(ctx,
                                  cudaMemcpyAsync(dlut + (size_t)d * p.lut_n, plan->lut[d],
                                                  (size_t)p.lut_n * sizeof(int32_t),
                                                  cudaMemcpyHostToDevice, s),
                                  "cudaMemcpyAsync (histogram tables)");
        else if (plan->non_uniform)
            st = gip__cuda_status(ctx,
                                  cudaMemcpyAsync(dedges + p.edge_off[d], plan->edges[d],
                                                  ((size_t)plan->bins[d] + 1) * sizeof(float),
                                                  cudaMemcpyHostToDevice, s),
                                  "cudaMemcpyAsync (histogram edges)");
    }
    p.lut = dlut;
    p.edges = dedges;
    if (!st) {
        const int grid = (int)(src->height < 1024 ? src->height : 1024);
        const size_t smem = (size_t)plan->total * sizeof(uint32_t);
        switch (src->dtype) {
        case GIP_U8:
            launch_hist<uint8_t>(grid, smem, s, src, mask, p, plan->total, dcounts);
            break;
        case GIP_U16:
            launch_hist<uint16_t>(grid, smem, s, src, mask, p, plan->total, dcounts);
            break;
        default:
            launch_hist<float>(grid, smem, s, src, mask, p, plan->total, dcounts);
        }
        st = GIP__LAUNCH_CHECK(ctx, "histogram kernel");
    }
    if (!st)
        st = gip__cuda_status(
            ctx, cudaMemcpyAsync(host, dcounts, count_bytes, cudaMemcpyDeviceToHost, s),
            "cudaMemcpyAsync (histogram)");
    if (!st)
        st = gip__cuda_status(ctx, cudaStreamSynchronize(s), "cudaStreamSynchronize (histogram)");
    gip__cuda_free(ctx, dmem);
    if (!st)
        for (int64_t i = 0; i < plan->total; i++)
            counts[i] += host[i];
    free(host);
    return st;
}

/* ---- u8 table --------------------------------------------------------------------------- */

struct lut256 {
    uint8_t v[256];
};

__global__ void lut_u8_kernel(const uint8_t *src, int64_t ss, uint8_t *dst, int64_t ds, int64_t w,
                              int64_t h, lut256 lut)
{
    __shared__ uint8_t t[256];
    t[threadIdx.x] = lut.v[threadIdx.x];
    __syncthreads();
    for (int64_t y = blockIdx.y; y < h; y += gridDim.y)
        for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < w;
             x += (int64_t)gridDim.x * blockDim.x)
            dst[y * ds + x] = t[src[y * ss + x]];
}

extern "C" gip_status gip__lut_u8_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                       const uint8_t *lut)
{
    lut256 l;
    memcpy(l.v, lut, 256);
    int64_t bx = (src->width + 255) / 256;
    dim3 grid((unsigned)(bx < 1024 ? bx : 1024),
              (unsigned)(src->height < 65535 ? src->height : 65535));
    lut_u8_kernel<<<grid, 256, 0, gip__stream(ctx)>>>((const uint8_t *)src->data, src->stride,
                                                      (uint8_t *)dst->data, dst->stride, src->width,
                                                      src->height, l);
    return GIP__LAUNCH_CHECK(ctx, "equalizeHist table kernel");
}
