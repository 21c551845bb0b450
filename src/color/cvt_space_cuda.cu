/* SPDX-License-Identifier: MIT */
/* The colour spaces of gip_cvt_color on CUDA: one thread per pixel (grid-stride), the per-pixel
 * functions of cvt_space.h shared with the CPU. */
#include <pthread.h>

#include "color/cvt_color.h"
#include "cuda_util.cuh"

template <typename T>
__global__ void space_kernel(const char *src, int64_t ss, char *dst, int64_t ds, int64_t w,
                             int64_t h, int scn, int dcn, gip__cs_params cs)
{
    for (int64_t y = blockIdx.y; y < h; y += gridDim.y) {
        const T *s = reinterpret_cast<const T *>(src + y * ss);
        T *d = reinterpret_cast<T *>(dst + y * ds);
        for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < w;
             x += (int64_t)gridDim.x * blockDim.x) {
            if constexpr (sizeof(T) == 1)
                gip__cs_pixel_u8(&cs, s + x * scn, d + x * dcn, x, w);
            else if constexpr (sizeof(T) == 2)
                gip__cs_pixel_u16(&cs, s + x * scn, d + x * dcn);
            else
                gip__cs_pixel_f32(&cs, s + x * scn, d + x * dcn, x, w);
        }
    }
}

/* u8 RGB to Luv's table on each device: the host's (gip__luv_lut()) copied once per device and
 * kept for the process. The copy runs on the context's stream and is waited for before the
 * pointer is published, so that a kernel on any stream reads the whole table. */
static pthread_mutex_t luv_mu = PTHREAD_MUTEX_INITIALIZER;
static void *luv_dev[64];

static gip_status luv_table_cuda(gip_context *ctx, const int16_t **lut)
{
    const int32_t dev = gip_context_device(ctx);
    if (dev < 0 || dev >= 64)
        return gip__error(ctx, GIP_ERR_DEVICE, "gip_cvt_color: Luv table: device %d out of range",
                          (int)dev);
    const int16_t *host = gip__luv_lut();
    const size_t n = GIP__LUV_LUT_SIZE * sizeof(int16_t);
    pthread_mutex_lock(&luv_mu);
    if (!luv_dev[dev]) {
        void *p = NULL;
        cudaError_t err = cudaMalloc(&p, n);
        if (err == cudaSuccess)
            err = cudaMemcpyAsync(p, host, n, cudaMemcpyHostToDevice, gip__stream(ctx));
        if (err == cudaSuccess)
            err = cudaStreamSynchronize(gip__stream(ctx));
        if (err != cudaSuccess) {
            if (p)
                cudaFree(p);
            pthread_mutex_unlock(&luv_mu);
            return gip__cuda_status(ctx, err, "gip_cvt_color: placing the Luv table");
        }
        luv_dev[dev] = p;
    }
    *lut = (const int16_t *)luv_dev[dev];
    pthread_mutex_unlock(&luv_mu);
    return GIP_OK;
}

extern "C" gip_status gip__cvt_space_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                          const gip__cc_params *p)
{
    if ((uintptr_t)src->data % gip_dtype_size(src->dtype) ||
        (uintptr_t)dst->data % gip_dtype_size(dst->dtype) ||
        src->stride % (int64_t)gip_dtype_size(src->dtype) ||
        dst->stride % (int64_t)gip_dtype_size(dst->dtype))
        return gip__error(ctx, GIP_ERR_UNSUPPORTED,
                          "gip_cvt_color: device images need data and stride aligned to the "
                          "element size");
    gip__cs_params cs = p->cs;
    if (src->dtype == GIP_U8 && cs.space == GIP__CS_LUV && !cs.inverse) {
        const gip_status ts = luv_table_cuda(ctx, &cs.luv_lut);
        if (ts)
            return ts;
    }
    const int threads = 256;
    int64_t bx = (src->width + threads - 1) / threads;
    dim3 grid((unsigned)(bx < 65535 ? bx : 65535),
              (unsigned)(src->height < 65535 ? src->height : 65535));
    cudaStream_t st = gip__stream(ctx);
    if (src->dtype == GIP_U8)
        space_kernel<uint8_t><<<grid, threads, 0, st>>>(
            (const char *)src->data, src->stride, (char *)dst->data, dst->stride, src->width,
            src->height, src->channels, dst->channels, cs);
    else if (src->dtype == GIP_U16)
        space_kernel<uint16_t><<<grid, threads, 0, st>>>(
            (const char *)src->data, src->stride, (char *)dst->data, dst->stride, src->width,
            src->height, src->channels, dst->channels, cs);
    else
        space_kernel<float><<<grid, threads, 0, st>>>(
            (const char *)src->data, src->stride, (char *)dst->data, dst->stride, src->width,
            src->height, src->channels, dst->channels, cs);
    return GIP__LAUNCH_CHECK(ctx, "gip_cvt_color colour-space kernel");
}
