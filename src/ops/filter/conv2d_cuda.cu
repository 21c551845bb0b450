/* SPDX-License-Identifier: MIT */
/* gip_conv2d on CUDA with the CPU's exact operation order (bias, then fmaf over ky, kx, ci). The
 * seed's shape (3 -> 3 channels, 3x3 taps) runs a tiled kernel: the tile's source rows staged in
 * shared memory with the zero padding, each thread walking one output column down the tile with
 * the 81 weights as launch constants. Other shapes run one thread per output pixel, weights in a
 * stream-ordered device buffer read through the read-only cache. */
#include <string.h>

#include <type_traits>

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

/* ---- the 3 -> 3 channel, 3x3 tile ---------------------------------------------------------- */
static constexpr int CF_THREADS = 128; /* output columns per tile, one thread each */
static constexpr int CF_NY = 16;       /* output rows per tile */

struct ConvFastArgs {
    const char *src;
    int64_t sstride;
    char *dst;
    int64_t dstride;
    int32_t W, H, OW, OH, ph, pw;
    float w[3][3][3][3]; /* [co][ci][ky][kx], as the caller gives them */
    float bias[3];
};

/* A staged source value as float (u8, u16 exactly through the mantissa of 2^23). */
template <typename S> __device__ __forceinline__ float cf_float(S v)
{
    if constexpr (std::is_same<S, float>::value)
        return v;
    else
        return __fsub_rn(__uint_as_float(0x4B000000u | (uint32_t)v), 8388608.0f);
}

/* saturate(v) as the CPU stores it: clamp, then round half to even (NaN gives 0). */
template <typename D> __device__ __forceinline__ D cf_store(float v)
{
    if constexpr (std::is_same<D, float>::value) {
        return v;
    } else {
        const float hi = std::is_same<D, uint8_t>::value ? 255.0f : 65535.0f;
        v = fminf(fmaxf(v, 0.0f), hi);
        return (D)(__float_as_int(__fadd_rn(v, 12582912.0f)) - 0x4B400000);
    }
}

template <typename S, typename D>
__global__ void __launch_bounds__(CF_THREADS) conv_fast(const ConvFastArgs a)
{
    constexpr int ROWS = CF_NY + 2, SPX = CF_THREADS + 2, SE = SPX * 3;
    __shared__ S sm[ROWS * SE];
    const int tid = threadIdx.x;
    const int32_t ox0 = (int32_t)blockIdx.x * CF_THREADS;
    const int32_t e_lo = (ox0 - a.pw) * 3; /* source element held by column 0 of the tile */
    const int32_t n = a.W * 3;
    const int32_t nty = (a.OH + CF_NY - 1) / CF_NY;
    for (int32_t by = blockIdx.y; by < nty; by += gridDim.y) {
        const int32_t oy0 = by * CF_NY;
        __syncthreads(); /* the previous tile's readers are done */
        for (int idx = tid; idx < ROWS * SE; idx += CF_THREADS) {
            const int r = idx / SE, e = idx - r * SE;
            const int32_t sy = oy0 - a.ph + r, ge = e_lo + e;
            S v = (S)0;
            if ((uint32_t)sy < (uint32_t)a.H && (uint32_t)ge < (uint32_t)n)
                v = gip__row<S>(a.src, a.sstride, sy)[ge];
            sm[idx] = v;
        }
        __syncthreads();
        float acc[3][3]; /* [output row slot][co] */
#pragma unroll
        for (int s = 0; s < 3; s++)
#pragma unroll
            for (int co = 0; co < 3; co++)
                acc[s][co] = a.bias[co];
        const int32_t ox = ox0 + tid;
#pragma unroll
        for (int ri = 0; ri < ROWS; ri++) {
            float x[3][3]; /* [kx][ci] */
#pragma unroll
            for (int kx = 0; kx < 3; kx++)
#pragma unroll
                for (int ci = 0; ci < 3; ci++)
                    x[kx][ci] = cf_float<S>(sm[ri * SE + (tid + kx) * 3 + ci]);
#pragma unroll
            for (int ky = 0; ky < 3; ky++) {
                const int o = ri - ky; /* the output row this source row is kernel row ky of */
                if (o < 0 || o >= CF_NY)
                    continue;
                const int s = o % 3;
#pragma unroll
                for (int kx = 0; kx < 3; kx++)
#pragma unroll
                    for (int ci = 0; ci < 3; ci++)
#pragma unroll
                        for (int co = 0; co < 3; co++)
                            acc[s][co] = __fmaf_rn(a.w[co][ci][ky][kx], x[kx][ci], acc[s][co]);
                if (ky != 2)
                    continue;
                const int32_t y = oy0 + o;
                if (y < a.OH && ox < a.OW) {
                    D *d = gip__row<D>(a.dst, a.dstride, y) + (int64_t)ox * 3;
#pragma unroll
                    for (int co = 0; co < 3; co++)
                        d[co] = cf_store<D>(acc[s][co]);
                }
#pragma unroll
                for (int co = 0; co < 3; co++)
                    acc[s][co] = a.bias[co];
            }
        }
    }
}

template <typename S>
static gip_status conv_fast_dst(gip_context *ctx, gip_dtype dt, const ConvFastArgs &a)
{
    const int64_t bx = ((int64_t)a.OW + CF_THREADS - 1) / CF_THREADS;
    const int64_t by = ((int64_t)a.OH + CF_NY - 1) / CF_NY;
    dim3 grid((unsigned)bx, (unsigned)(by < 65535 ? by : 65535));
    cudaStream_t stream = gip__stream(ctx);
    if (dt == GIP_U8)
        conv_fast<S, uint8_t><<<grid, CF_THREADS, 0, stream>>>(a);
    else if (dt == GIP_U16)
        conv_fast<S, uint16_t><<<grid, CF_THREADS, 0, stream>>>(a);
    else
        conv_fast<S, float><<<grid, CF_THREADS, 0, stream>>>(a);
    return GIP__LAUNCH_CHECK(ctx, "gip_conv2d kernel (3x3, 3 channels)");
}

/* The tiled kernel's case: 3 -> 3 channels, 3x3 taps, rows of at most 2^30 elements. */
static bool conv_fast_fits(const gip_image *src, const gip_image *dst, const gip_conv2d_params *p)
{
    return src->channels == 3 && dst->channels == 3 && p->kh == 3 && p->kw == 3 &&
           src->width <= ((int64_t)1 << 28) && src->height <= ((int64_t)1 << 30) &&
           dst->width <= ((int64_t)1 << 28) && dst->height <= ((int64_t)1 << 30);
}

static gip_status conv_fast_run(gip_context *ctx, const gip_image *src, gip_image *dst,
                                const gip_conv2d_params *p)
{
    ConvFastArgs a;
    memset(&a, 0, sizeof a);
    a.src = (const char *)src->data;
    a.sstride = src->stride;
    a.dst = (char *)dst->data;
    a.dstride = dst->stride;
    a.W = (int32_t)src->width, a.H = (int32_t)src->height;
    a.OW = (int32_t)dst->width, a.OH = (int32_t)dst->height;
    a.ph = p->pad_h, a.pw = p->pad_w;
    memcpy(a.w, p->weight, sizeof a.w);
    for (int c = 0; c < 3; c++)
        a.bias[c] = p->bias ? p->bias[c] : 0.0f;
    if (src->dtype == GIP_U8)
        return conv_fast_dst<uint8_t>(ctx, dst->dtype, a);
    if (src->dtype == GIP_U16)
        return conv_fast_dst<uint16_t>(ctx, dst->dtype, a);
    return conv_fast_dst<float>(ctx, dst->dtype, a);
}

extern "C" gip_status gip__conv2d_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                       const gip_conv2d_params *p)
{
    if (conv_fast_fits(src, dst, p))
        return conv_fast_run(ctx, src, dst, p);
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
    gip_status st = gip__cuda_malloc(ctx, bytes, &w);
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
    gip__cuda_free(ctx, w);
    return st;
}
