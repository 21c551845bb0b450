/* SPDX-License-Identifier: MIT */
/* flip on CUDA: one thread per pixel of a row, rows on the grid's y; a pixel's bytes move as
 * one unit of its size (1 to 16 bytes). */
#include "cuda_util.cuh"
#include "ops/geometry/flip.h"

template <typename T>
__global__ void flip_kernel(const char *src, int64_t sstride, char *dst, int64_t dstride, int64_t w,
                            int64_t h, int fx, int fy)
{
    for (int64_t y = blockIdx.y; y < h; y += gridDim.y) {
        const T *s = reinterpret_cast<const T *>(src + (fy ? h - 1 - y : y) * sstride);
        T *d = reinterpret_cast<T *>(dst + y * dstride);
        for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < w;
             x += (int64_t)gridDim.x * blockDim.x)
            d[x] = s[fx ? w - 1 - x : x];
    }
}

/* A pixel of n bytes as one copyable unit. */
template <int N> struct bytes {
    unsigned char b[N];
};

template <typename T>
static void launch(gip_context *ctx, const gip_image *src, gip_image *dst, int fx, int fy)
{
    const int threads = 256;
    int64_t bx = (src->width + threads - 1) / threads;
    dim3 grid((unsigned)(bx < 1024 ? bx : 1024),
              (unsigned)(src->height < 65535 ? src->height : 65535));
    flip_kernel<T><<<grid, threads, 0, gip__stream(ctx)>>>((const char *)src->data, src->stride,
                                                           (char *)dst->data, dst->stride,
                                                           src->width, src->height, fx, fy);
}

extern "C" gip_status gip__flip_cuda(gip_context *ctx, const gip_image *src, gip_image *dst, int fx,
                                     int fy)
{
    const size_t px = (size_t)src->channels * gip_dtype_size(src->dtype);
    switch (px) {
    case 1:
        launch<uint8_t>(ctx, src, dst, fx, fy);
        break;
    case 2:
        launch<bytes<2>>(ctx, src, dst, fx, fy);
        break;
    case 3:
        launch<bytes<3>>(ctx, src, dst, fx, fy);
        break;
    case 4:
        launch<bytes<4>>(ctx, src, dst, fx, fy);
        break;
    case 6:
        launch<bytes<6>>(ctx, src, dst, fx, fy);
        break;
    case 8:
        launch<bytes<8>>(ctx, src, dst, fx, fy);
        break;
    case 12:
        launch<bytes<12>>(ctx, src, dst, fx, fy);
        break;
    case 16:
        launch<bytes<16>>(ctx, src, dst, fx, fy);
        break;
    default:
        return gip__error(ctx, GIP_ERR_UNSUPPORTED, "flip: %zu-byte pixels are not supported", px);
    }
    return GIP__LAUNCH_CHECK(ctx, "flip kernel");
}
