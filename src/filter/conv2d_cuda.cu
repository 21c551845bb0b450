/* SPDX-License-Identifier: MIT */
/* gip_conv2d on CUDA: one thread per output pixel computing every output channel with the CPU's
 * exact operation order (bias, then fmaf over ky, kx, ci), weights in a stream-ordered device
 * buffer read through the read-only cache (uniform across a warp). */
#include "cuda_util.cuh"
#include "conv2d.h"

static constexpr int CONV_TX = 32, CONV_TY = 8;

struct ConvArgs {
    const char *src;
    int64_t sstride;
    char *dst;
    int64_t dstride;
    int64_t W, H, OW, OH;
    int32_t Ci, Co, kh, kw, ph, pw;
    const float *w;
    float bias[4];
};

template <typename S, typename D> __global__ void conv_kernel(const ConvArgs a)
{
    for (int64_t y = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; y < a.OH;
         y += (int64_t)gridDim.y * blockDim.y)
        for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < a.OW;
             x += (int64_t)gridDim.x * blockDim.x) {
            float acc[4];
#pragma unroll
            for (int co = 0; co < 4; co++)
                acc[co] = a.bias[co];
            for (int ky = 0; ky < a.kh; ky++) {
                const int64_t sy = y + ky - a.ph;
                const bool row_in = sy >= 0 && sy < a.H;
                const S *srow = row_in ? gip__row<S>(a.src, a.sstride, sy) : nullptr;
                for (int kx = 0; kx < a.kw; kx++) {
                    const int64_t sx = x + kx - a.pw;
                    const bool in = row_in && sx >= 0 && sx < a.W;
                    for (int ci = 0; ci < a.Ci; ci++) {
                        const float v = in ? (float)srow[sx * a.Ci + ci] : 0.0f;
#pragma unroll
                        for (int co = 0; co < 4; co++)
                            if (co < a.Co)
                                acc[co] = __fmaf_rn(
                                    __ldg(a.w + (((int64_t)co * a.Ci + ci) * a.kh + ky) * a.kw +
                                          kx),
                                    v, acc[co]);
                    }
                }
            }
            D *d = gip__row<D>(a.dst, a.dstride, y) + x * a.Co;
#pragma unroll
            for (int co = 0; co < 4; co++)
                if (co < a.Co)
                    d[co] = gip__saturate<D>(acc[co]);
        }
}

template <typename S, typename D> static gip_status conv_launch(gip_context *ctx, const ConvArgs &a)
{
    int64_t bx = (a.OW + CONV_TX - 1) / CONV_TX, by = (a.OH + CONV_TY - 1) / CONV_TY;
    dim3 grid((unsigned)(bx < 1048576 ? bx : 1048576), (unsigned)(by < 65535 ? by : 65535));
    conv_kernel<S, D><<<grid, dim3(CONV_TX, CONV_TY), 0, gip__stream(ctx)>>>(a);
    return GIP__LAUNCH_CHECK(ctx, "gip_conv2d kernel");
}

template <typename S>
static gip_status conv_dispatch_dst(gip_context *ctx, gip_dtype dt, const ConvArgs &a)
{
    switch (dt) {
    case GIP_U8:
        return conv_launch<S, uint8_t>(ctx, a);
    case GIP_U16:
        return conv_launch<S, uint16_t>(ctx, a);
    default:
        return conv_launch<S, float>(ctx, a);
    }
}

extern "C" gip_status gip__conv2d_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                       const gip_conv2d_params *p)
{
    ConvArgs a = {};
    a.src = (const char *)src->data;
    a.sstride = src->stride;
    a.dst = (char *)dst->data;
    a.dstride = dst->stride;
    a.W = src->width, a.H = src->height, a.OW = dst->width, a.OH = dst->height;
    a.Ci = src->channels, a.Co = dst->channels;
    a.kh = p->kh, a.kw = p->kw, a.ph = p->pad_h, a.pw = p->pad_w;
    for (int c = 0; c < 4; c++)
        a.bias[c] = p->bias && c < a.Co ? p->bias[c] : 0.0f;
    const size_t bytes = (size_t)a.Co * a.Ci * a.kh * a.kw * sizeof(float);
    cudaStream_t stream = gip__stream(ctx);
    void *w = NULL;
    gip_status st = gip__cuda_status(ctx, cudaMallocAsync(&w, bytes, stream),
                                     "cudaMallocAsync of the Conv2d weights");
    if (st)
        return st;
    st = gip__cuda_status(ctx, cudaMemcpyAsync(w, p->weight, bytes, cudaMemcpyHostToDevice, stream),
                          "copy of the Conv2d weights");
    if (!st) {
        a.w = (const float *)w;
        if (src->dtype == GIP_U8)
            st = conv_dispatch_dst<uint8_t>(ctx, dst->dtype, a);
        else if (src->dtype == GIP_U16)
            st = conv_dispatch_dst<uint16_t>(ctx, dst->dtype, a);
        else
            st = conv_dispatch_dst<float>(ctx, dst->dtype, a);
    }
    gip_status fst = gip__cuda_status(ctx, cudaFreeAsync(w, stream), "cudaFreeAsync");
    return st ? st : fst;
}
