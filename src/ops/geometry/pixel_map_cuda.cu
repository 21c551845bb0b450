/* SPDX-License-Identifier: MIT */
/* The geometry family's whole-pixel moves on CUDA: one thread per output pixel, the source pixel
 * from pixel_map.h, copied as one unit of its size. */
#include "cuda_util.cuh"
#include "ops/geometry/pixel_map.h"

template <int N> struct pm_bytes {
    unsigned char b[N];
};

template <typename T>
__global__ void pixmap_kernel(gip__pixmap m, const char *src, int64_t sstride, char *dst,
                              int64_t dstride, int64_t w, int64_t h)
{
    T value;
    memcpy(&value, m.value, sizeof(T));
    for (int64_t y = blockIdx.y; y < h; y += gridDim.y) {
        T *d = reinterpret_cast<T *>(dst + y * dstride);
        for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < w;
             x += (int64_t)gridDim.x * blockDim.x) {
            int64_t sx, sy;
            d[x] = gip__pixmap_src(&m, x, y, &sx, &sy)
                       ? reinterpret_cast<const T *>(src + sy * sstride)[sx]
                       : value;
        }
    }
}

template <typename T>
static gip_status launch(gip_context *ctx, const gip_image *src, gip_image *dst,
                         const gip__pixmap *m)
{
    const int threads = 256;
    const int64_t bx = (dst->width + threads - 1) / threads;
    dim3 grid((unsigned)(bx < 1024 ? bx : 1024),
              (unsigned)(dst->height < 65535 ? dst->height : 65535));
    pixmap_kernel<T><<<grid, threads, 0, gip__stream(ctx)>>>(*m, (const char *)src->data,
                                                             src->stride, (char *)dst->data,
                                                             dst->stride, dst->width, dst->height);
    return GIP__LAUNCH_CHECK(ctx, "pixel move kernel");
}

extern "C" gip_status gip__pixmap_cuda(gip_context *ctx, const gip_image *src, gip_image *dst,
                                       const gip__pixmap *m)
{
    switch (m->px) {
    case 1:
        return launch<uint8_t>(ctx, src, dst, m);
    case 2:
        return launch<pm_bytes<2>>(ctx, src, dst, m);
    case 3:
        return launch<pm_bytes<3>>(ctx, src, dst, m);
    case 4:
        return launch<pm_bytes<4>>(ctx, src, dst, m);
    case 6:
        return launch<pm_bytes<6>>(ctx, src, dst, m);
    case 8:
        return launch<pm_bytes<8>>(ctx, src, dst, m);
    case 12:
        return launch<pm_bytes<12>>(ctx, src, dst, m);
    case 16:
        return launch<pm_bytes<16>>(ctx, src, dst, m);
    default:
        return gip__error(ctx, GIP_ERR_UNSUPPORTED, "%d-byte pixels are not supported", m->px);
    }
}
