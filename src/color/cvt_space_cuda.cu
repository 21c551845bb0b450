/* SPDX-License-Identifier: MIT */
/* The colour spaces of gip_cvt_color on CUDA: one thread per pixel (grid-stride), the per-pixel
 * functions of cvt_space.h shared with the CPU. */
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
    const int threads = 256;
    int64_t bx = (src->width + threads - 1) / threads;
    dim3 grid((unsigned)(bx < 65535 ? bx : 65535),
              (unsigned)(src->height < 65535 ? src->height : 65535));
    cudaStream_t st = gip__stream(ctx);
    if (src->dtype == GIP_U8)
        space_kernel<uint8_t><<<grid, threads, 0, st>>>(
            (const char *)src->data, src->stride, (char *)dst->data, dst->stride, src->width,
            src->height, src->channels, dst->channels, p->cs);
    else if (src->dtype == GIP_U16)
        space_kernel<uint16_t><<<grid, threads, 0, st>>>(
            (const char *)src->data, src->stride, (char *)dst->data, dst->stride, src->width,
            src->height, src->channels, dst->channels, p->cs);
    else
        space_kernel<float><<<grid, threads, 0, st>>>(
            (const char *)src->data, src->stride, (char *)dst->data, dst->stride, src->width,
            src->height, src->channels, dst->channels, p->cs);
    return GIP__LAUNCH_CHECK(ctx, "gip_cvt_color colour-space kernel");
}
