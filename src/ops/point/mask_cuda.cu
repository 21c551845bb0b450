/* SPDX-License-Identifier: MIT */
/* mask on CUDA: one thread per pixel of a row, rows on the grid's y; a pixel's bytes move as one
 * unit of its size (1 to 16 bytes). */
#include <string.h>

#include "cuda_util.cuh"
#include "ops/point/mask.h"

/* A pixel of N bytes as one copyable unit. */
template <int N> struct pixel {
    unsigned char b[N];
};

template <typename T>
__global__ void mask_kernel(const char *src, int64_t sstride, const unsigned char *mask,
                            int64_t mstride, char *dst, int64_t dstride, int64_t w, int64_t h,
                            T fill)
{
    for (int64_t y = blockIdx.y; y < h; y += gridDim.y) {
        const T *s = reinterpret_cast<const T *>(src + y * sstride);
        const unsigned char *m = mask + y * mstride;
        T *d = reinterpret_cast<T *>(dst + y * dstride);
        for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < w;
             x += (int64_t)gridDim.x * blockDim.x)
            d[x] = m[x] ? s[x] : fill;
    }
}

template <int N>
static gip_status launch(gip_context *ctx, const gip_image *src, const gip_image *mask,
                         gip_image *dst, const unsigned char *fill)
{
    pixel<N> f;
    memcpy(f.b, fill, N);
    const int threads = 256;
    int64_t bx = (src->width + threads - 1) / threads;
    dim3 grid((unsigned)(bx < 1024 ? bx : 1024),
              (unsigned)(src->height < 65535 ? src->height : 65535));
    mask_kernel<pixel<N>><<<grid, threads, 0, gip__stream(ctx)>>>(
        (const char *)src->data, src->stride, (const unsigned char *)mask->data, mask->stride,
        (char *)dst->data, dst->stride, src->width, src->height, f);
    return GIP__LAUNCH_CHECK(ctx, "mask kernel");
}

extern "C" gip_status gip__mask_cuda(gip_context *ctx, const gip_image *src, const gip_image *mask,
                                     gip_image *dst, const unsigned char *fill, size_t px)
{
    switch (px) {
    case 1:
        return launch<1>(ctx, src, mask, dst, fill);
    case 2:
        return launch<2>(ctx, src, mask, dst, fill);
    case 3:
        return launch<3>(ctx, src, mask, dst, fill);
    case 4:
        return launch<4>(ctx, src, mask, dst, fill);
    case 6:
        return launch<6>(ctx, src, mask, dst, fill);
    case 8:
        return launch<8>(ctx, src, mask, dst, fill);
    case 12:
        return launch<12>(ctx, src, mask, dst, fill);
    case 16:
        return launch<16>(ctx, src, mask, dst, fill);
    default:
        return gip__error(ctx, GIP_ERR_UNSUPPORTED, "mask: %zu-byte pixels are not supported", px);
    }
}
