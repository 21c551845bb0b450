/* SPDX-License-Identifier: MIT */
/* moments on CUDA: one block per row (grid-stride), each thread summing its pixels, the block's
 * sums combined in a fixed tree; integer rows in 64-bit integers (exact, so equal to the CPU's),
 * f32 rows in double. The rows are combined on the host in row order, as the CPU does. */
#include "cuda_util.cuh"
#include "ops/stats/stats.h"

#define MOM_THREADS 256

template <typename T, typename A>
static __global__ void __launch_bounds__(MOM_THREADS)
    moments_rows_kernel(const char *src, int64_t stride, int64_t w, int64_t h, bool binary,
                        double *rows)
{
    __shared__ A sh[4][MOM_THREADS];
    const int t = threadIdx.x;
    for (int64_t y = blockIdx.x; y < h; y += gridDim.x) {
        const T *r = reinterpret_cast<const T *>(src + y * stride);
        A a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        for (int64_t x = t; x < w; x += MOM_THREADS) {
            A v = binary ? (A)(r[x] != 0) : (A)r[x];
            A xa = (A)x, xv = xa * v, xxv = xa * xv;
            a0 += v;
            a1 += xv;
            a2 += xxv;
            a3 += xa * xxv;
        }
        sh[0][t] = a0, sh[1][t] = a1, sh[2][t] = a2, sh[3][t] = a3;
        __syncthreads();
        for (int s = MOM_THREADS / 2; s > 0; s >>= 1) {
            if (t < s)
                for (int k = 0; k < 4; k++)
                    sh[k][t] += sh[k][t + s];
            __syncthreads();
        }
        if (t < 4)
            rows[4 * y + t] = (double)sh[t][0];
        __syncthreads();
    }
}

template <typename T>
static void launch(bool exact, int grid, cudaStream_t s, const gip_image *src, bool binary,
                   double *rows)
{
    if (exact)
        moments_rows_kernel<T, long long><<<grid, MOM_THREADS, 0, s>>>(
            (const char *)src->data, src->stride, src->width, src->height, binary, rows);
    else
        moments_rows_kernel<T, double><<<grid, MOM_THREADS, 0, s>>>(
            (const char *)src->data, src->stride, src->width, src->height, binary, rows);
}

extern "C" gip_status gip__moments_rows_cuda(gip_context *ctx, const gip_image *src, bool binary,
                                             bool exact, double *rows)
{
    const size_t bytes = (size_t)src->height * 4 * sizeof(double);
    double *d = nullptr;
    gip_status st = gip__cuda_malloc(ctx, bytes, (void **)&d);
    if (st)
        return st;
    cudaStream_t s = gip__stream(ctx);
    const int grid = (int)(src->height < 4096 ? src->height : 4096);
    switch (src->dtype) {
    case GIP_U8:
        launch<uint8_t>(exact, grid, s, src, binary, d);
        break;
    case GIP_U16:
        launch<uint16_t>(exact, grid, s, src, binary, d);
        break;
    case GIP_S16:
        launch<int16_t>(exact, grid, s, src, binary, d);
        break;
    default:
        launch<float>(false, grid, s, src, binary, d);
    }
    st = GIP__LAUNCH_CHECK(ctx, "moments kernel");
    if (!st)
        st = gip__cuda_status(ctx, cudaMemcpyAsync(rows, d, bytes, cudaMemcpyDeviceToHost, s),
                              "cudaMemcpyAsync (moments rows)");
    if (!st)
        st = gip__cuda_status(ctx, cudaStreamSynchronize(s), "cudaStreamSynchronize (moments)");
    gip__cuda_free(ctx, d);
    return st;
}
