/* SPDX-License-Identifier: MIT */
/* bilateral on CUDA: one thread per pixel over the plan's taps (offsets and spatial weights in
 * device memory, the u8 colour table in shared memory), with the CPU's float operations in its
 * order, spelt as round-to-nearest intrinsics so that nothing is fused: u8 results equal the
 * CPU's. */
#include "border.h"
#include "cuda_util.cuh"
#include "ops/filter/bilateral.h"

namespace
{

template <int C>
__global__ void bilateral_u8(const uint8_t *src, int64_t ss, uint8_t *dst, int64_t ds, int32_t w,
                             int32_t h, const int2 *taps, const float *space, int32_t ntaps,
                             const float *color, gip_border border)
{
    __shared__ float lut[3 * 256];
    for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < 256 * C; i += blockDim.x * blockDim.y)
        lut[i] = color[i];
    __syncthreads();
    const int32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= w)
        return;
    for (int32_t y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += gridDim.y * blockDim.y) {
        const uint8_t *p0 = src + (int64_t)y * ss + (int64_t)x * C;
        int32_t v0[C];
#pragma unroll
        for (int c = 0; c < C; c++)
            v0[c] = p0[c];
        float sum[C], wsum = 0.0f;
#pragma unroll
        for (int c = 0; c < C; c++)
            sum[c] = 0.0f;
        for (int32_t k = 0; k < ntaps; k++) {
            const int2 t = taps[k];
            const int32_t sx = gip__border_index32(x + t.x, w, border);
            const int32_t sy = gip__border_index32(y + t.y, h, border);
            int32_t v[C];
            const bool in = sx >= 0 && sy >= 0;
            const uint8_t *px = in ? src + (int64_t)sy * ss + (int64_t)sx * C : p0;
            int32_t diff = 0;
#pragma unroll
            for (int c = 0; c < C; c++) {
                v[c] = in ? px[c] : 0;
                diff += abs(v[c] - v0[c]);
            }
            const float wk = __fmul_rn(space[k], lut[diff]);
#pragma unroll
            for (int c = 0; c < C; c++)
                sum[c] = __fadd_rn(sum[c], __fmul_rn((float)v[c], wk));
            wsum = __fadd_rn(wsum, wk);
        }
        const float inv = __frcp_rn(wsum);
        uint8_t *d = dst + (int64_t)y * ds + (int64_t)x * C;
#pragma unroll
        for (int c = 0; c < C; c++)
            d[c] = gip__sat_u8_i32(__float2int_rn(__fmul_rn(sum[c], inv)));
    }
}

template <int C>
__global__ void bilateral_f32(const char *src, int64_t ss, char *dst, int64_t ds, int32_t w,
                              int32_t h, const int2 *taps, const float *space, int32_t ntaps,
                              float coeff, gip_border border)
{
    const int32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= w)
        return;
    for (int32_t y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += gridDim.y * blockDim.y) {
        const float *p0 = gip__row<float>(src, ss, y) + (int64_t)x * C;
        float sum[C], wsum = 0.0f;
#pragma unroll
        for (int c = 0; c < C; c++)
            sum[c] = 0.0f;
        for (int32_t k = 0; k < ntaps; k++) {
            const int2 t = taps[k];
            const int32_t sx = gip__border_index32(x + t.x, w, border);
            const int32_t sy = gip__border_index32(y + t.y, h, border);
            const bool in = sx >= 0 && sy >= 0;
            const float *px = in ? gip__row<float>(src, ss, sy) + (int64_t)sx * C : nullptr;
            float v[C], diff = 0.0f;
#pragma unroll
            for (int c = 0; c < C; c++) {
                v[c] = in ? px[c] : 0.0f;
                diff = __fadd_rn(diff, fabsf(__fsub_rn(v[c], p0[c])));
            }
            const float wk = __fmul_rn(space[k], expf(__fmul_rn(__fmul_rn(diff, diff), coeff)));
#pragma unroll
            for (int c = 0; c < C; c++)
                sum[c] = __fadd_rn(sum[c], __fmul_rn(v[c], wk));
            wsum = __fadd_rn(wsum, wk);
        }
        const float inv = __frcp_rn(wsum);
        float *d = gip__row<float>(dst, ds, y) + (int64_t)x * C;
#pragma unroll
        for (int c = 0; c < C; c++)
            d[c] = __fmul_rn(sum[c], inv);
    }
}

} // namespace

extern "C" gip_status gip__bilateral_cuda(gip_context *ctx, const gip__bilateral_plan *p,
                                          const gip_image *src, gip_image *dst)
{
    const int32_t n = p->ntaps;
    const size_t tb = (size_t)n * sizeof(int2), sb = (size_t)n * sizeof(float);
    const size_t cb = sizeof p->color;
    int2 *htaps = (int2 *)malloc(tb);
    if (!htaps)
        return gip__error(ctx, GIP_ERR_OUT_OF_MEMORY, "bilateral: out of memory");
    for (int32_t k = 0; k < n; k++)
        htaps[k] = make_int2(p->dx[k], p->dy[k]);
    void *buf = NULL;
    gip_status st = gip__cuda_malloc(ctx, tb + sb + cb, &buf);
    if (!st)
        st = gip__cuda_copy2d(ctx, buf, (int64_t)tb, GIP_MEM_CUDA, htaps, (int64_t)tb, GIP_MEM_HOST,
                              (int64_t)tb, 1);
    if (!st)
        st = gip__cuda_copy2d(ctx, (char *)buf + tb, (int64_t)sb, GIP_MEM_CUDA, p->space,
                              (int64_t)sb, GIP_MEM_HOST, (int64_t)sb, 1);
    if (!st)
        st = gip__cuda_copy2d(ctx, (char *)buf + tb + sb, (int64_t)cb, GIP_MEM_CUDA, p->color,
                              (int64_t)cb, GIP_MEM_HOST, (int64_t)cb, 1);
    free(htaps);
    if (st) {
        if (buf)
            gip__cuda_free(ctx, buf);
        return st;
    }
    const int2 *taps = (const int2 *)buf;
    const float *space = (const float *)((char *)buf + tb);
    const float *color = (const float *)((char *)buf + tb + sb);
    const int32_t w = (int32_t)src->width, h = (int32_t)src->height;
    const int64_t by = (h + 7) / 8;
    const dim3 block(32, 8), grid(gip__div_up(w, 32), (unsigned)(by < 65535 ? by : 65535));
    cudaStream_t s = gip__stream(ctx);
    if (src->dtype == GIP_U8) {
        if (src->channels == 1)
            bilateral_u8<1><<<grid, block, 0, s>>>((const uint8_t *)src->data, src->stride,
                                                   (uint8_t *)dst->data, dst->stride, w, h, taps,
                                                   space, n, color, p->border);
        else
            bilateral_u8<3><<<grid, block, 0, s>>>((const uint8_t *)src->data, src->stride,
                                                   (uint8_t *)dst->data, dst->stride, w, h, taps,
                                                   space, n, color, p->border);
    } else if (src->channels == 1) {
        bilateral_f32<1><<<grid, block, 0, s>>>((const char *)src->data, src->stride,
                                                (char *)dst->data, dst->stride, w, h, taps, space,
                                                n, p->color_coeff, p->border);
    } else {
        bilateral_f32<3><<<grid, block, 0, s>>>((const char *)src->data, src->stride,
                                                (char *)dst->data, dst->stride, w, h, taps, space,
                                                n, p->color_coeff, p->border);
    }
    st = GIP__LAUNCH_CHECK(ctx, "bilateral kernel");
    gip__cuda_free(ctx, buf);
    return st;
}
