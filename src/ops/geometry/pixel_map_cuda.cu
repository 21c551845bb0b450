/* SPDX-License-Identifier: MIT */
/* The geometry family's whole-pixel moves on CUDA: transposes and quarter turns through
 * shared-memory tiles (rows read and written as 32-bit words where aligned), the half turn by
 * flip's kernel, crops as one 2D copy; the rest one thread per output pixel, the source pixel
 * from pixel_map.h, copied as one unit of its size. */
#include "cuda_util.cuh"
#include "ops/geometry/flip.h"
#include "ops/geometry/pixel_map.h"

#define PM_THREADS 256

/* The tile's side (output pixels) and its rows' bytes in shared memory, padded so that the
 * threads of a warp reading down a column (a word of output bytes each: rows 4 / PX apart) hit
 * different banks: an odd number of bytes between rows for 1-byte pixels, an odd number of
 * 2-byte units for 2-byte ones, an odd number of words for the rest. */
template <int PX> struct pm_tile {
    static constexpr int side = PX <= 4 ? 64 : 32;
    static constexpr int row = PX == 1 ? 65 : PX == 2 ? 130 : side * PX + 4;
};

/* A side x side output tile of a transpose (MODE GIP__PM_TRANSPOSE, ROT90CW or ROT90CCW) of an
 * sw x sh source of PX-byte pixels: the source rectangle it reads (side rows of side pixels)
 * into shared memory, then the output rows out of it. dst is sh x sw. */
template <int PX, int MODE>
__global__ void __launch_bounds__(PM_THREADS)
    pm_transpose_kernel(const uint8_t *__restrict__ src, int64_t sstride, uint8_t *__restrict__ dst,
                        int64_t dstride, int32_t sw, int32_t sh, int32_t svec, int32_t dvec)
{
    constexpr int T = pm_tile<PX>::side, RS = pm_tile<PX>::row;
    __shared__ __align__(16) uint8_t sm[T * RS];
    const int32_t dw = sh, dh = sw;
    const int32_t bx0 = (int32_t)blockIdx.x * T, by0 = (int32_t)blockIdx.y * T;
    const int32_t tw = dw - bx0 < T ? dw - bx0 : T, th = dh - by0 < T ? dh - by0 : T;
    const int32_t tid = (int32_t)threadIdx.x;
    /* rectangle row i: source row bx0 + i (sh - 1 - bx0 - i for a clockwise turn), its pixels
     * [cx0, cx0 + th) */
    const int32_t cx0 = MODE == GIP__PM_ROT90CCW ? sw - by0 - th : by0;
    const int32_t rb = th * PX;
    const uint8_t *s0 = src + (int64_t)cx0 * PX;
    if (svec && ((cx0 * PX) & 3) == 0 && (rb & 3) == 0) {
        const int32_t nw = rb >> 2;
        for (int32_t k = tid; k < tw * nw; k += PM_THREADS) {
            const int32_t i = k / nw, wd = k - i * nw;
            const int32_t srow = MODE == GIP__PM_ROT90CW ? sh - 1 - bx0 - i : bx0 + i;
            const uint32_t v =
                __ldg(reinterpret_cast<const uint32_t *>(s0 + (int64_t)srow * sstride) + wd);
            uint8_t *p = sm + i * RS + 4 * wd;
            if (RS % 4 == 0) {
                *reinterpret_cast<uint32_t *>(p) = v;
            } else {
                p[0] = (uint8_t)v;
                p[1] = (uint8_t)(v >> 8);
                p[2] = (uint8_t)(v >> 16);
                p[3] = (uint8_t)(v >> 24);
            }
        }
    } else {
        for (int32_t k = tid; k < tw * rb; k += PM_THREADS) {
            const int32_t i = k / rb, b = k - i * rb;
            const int32_t srow = MODE == GIP__PM_ROT90CW ? sh - 1 - bx0 - i : bx0 + i;
            sm[i * RS + b] = __ldg(s0 + (int64_t)srow * sstride + b);
        }
    }
    __syncthreads();
    /* output row j (dst row by0 + j), byte ob of its tw pixels: pixel i = ob / PX of rectangle
     * row i, the rectangle's column j (th - 1 - j for a counter-clockwise turn) */
    const int32_t ob_n = tw * PX;
    uint8_t *d0 = dst + (int64_t)bx0 * PX;
    if (dvec && ((bx0 * PX) & 3) == 0 && (ob_n & 3) == 0) {
        const int32_t nw = ob_n >> 2;
        for (int32_t k = tid; k < th * nw; k += PM_THREADS) {
            const int32_t j = k / nw, wd = k - j * nw;
            const uint8_t *p = sm + (MODE == GIP__PM_ROT90CCW ? th - 1 - j : j) * PX;
            uint32_t v = 0;
#pragma unroll
            for (int t = 0; t < 4; t++) {
                const int32_t ob = 4 * wd + t, i = ob / PX;
                v |= (uint32_t)p[i * RS + ob - i * PX] << (8 * t);
            }
            reinterpret_cast<uint32_t *>(d0 + (int64_t)(by0 + j) * dstride)[wd] = v;
        }
    } else {
        for (int32_t k = tid; k < th * ob_n; k += PM_THREADS) {
            const int32_t j = k / ob_n, ob = k - j * ob_n, i = ob / PX;
            const uint8_t *p = sm + (MODE == GIP__PM_ROT90CCW ? th - 1 - j : j) * PX;
            d0[(int64_t)(by0 + j) * dstride + ob] = p[i * RS + ob - i * PX];
        }
    }
}

template <int PX>
static void pm_transpose_launch(gip_context *ctx, const gip_image *src, gip_image *dst,
                                const gip__pixmap *m)
{
    constexpr int T = pm_tile<PX>::side;
    const dim3 grid(gip__div_up(dst->width, T), gip__div_up(dst->height, T));
    const int32_t svec = (uintptr_t)src->data % 4 == 0 && src->stride % 4 == 0;
    const int32_t dvec = (uintptr_t)dst->data % 4 == 0 && dst->stride % 4 == 0;
    const uint8_t *s = (const uint8_t *)src->data;
    uint8_t *d = (uint8_t *)dst->data;
    const int32_t sw = (int32_t)m->sw, sh = (int32_t)m->sh;
    cudaStream_t st = gip__stream(ctx);
    if (m->mode == GIP__PM_TRANSPOSE)
        pm_transpose_kernel<PX, GIP__PM_TRANSPOSE>
            <<<grid, PM_THREADS, 0, st>>>(s, src->stride, d, dst->stride, sw, sh, svec, dvec);
    else if (m->mode == GIP__PM_ROT90CW)
        pm_transpose_kernel<PX, GIP__PM_ROT90CW>
            <<<grid, PM_THREADS, 0, st>>>(s, src->stride, d, dst->stride, sw, sh, svec, dvec);
    else
        pm_transpose_kernel<PX, GIP__PM_ROT90CCW>
            <<<grid, PM_THREADS, 0, st>>>(s, src->stride, d, dst->stride, sw, sh, svec, dvec);
}

/* The tiled kernel for a transpose or quarter turn when it has one; false otherwise. */
static bool pm_transpose(gip_context *ctx, const gip_image *src, gip_image *dst,
                         const gip__pixmap *m)
{
    if (m->mode != GIP__PM_TRANSPOSE && m->mode != GIP__PM_ROT90CW && m->mode != GIP__PM_ROT90CCW)
        return false;
    const int64_t lim = (int64_t)1 << 30;
    if (m->sw * m->px >= lim || m->sh * m->px >= lim || dst->width != m->sh ||
        dst->height != m->sw || (dst->height + 31) / 32 > 65535)
        return false;
    switch (m->px) {
    case 1:
        pm_transpose_launch<1>(ctx, src, dst, m);
        return true;
    case 2:
        pm_transpose_launch<2>(ctx, src, dst, m);
        return true;
    case 3:
        pm_transpose_launch<3>(ctx, src, dst, m);
        return true;
    case 4:
        pm_transpose_launch<4>(ctx, src, dst, m);
        return true;
    case 6:
        pm_transpose_launch<6>(ctx, src, dst, m);
        return true;
    case 8:
        pm_transpose_launch<8>(ctx, src, dst, m);
        return true;
    case 12:
        pm_transpose_launch<12>(ctx, src, dst, m);
        return true;
    case 16:
        pm_transpose_launch<16>(ctx, src, dst, m);
        return true;
    default:
        return false;
    }
}

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
    if (pm_transpose(ctx, src, dst, m))
        return GIP__LAUNCH_CHECK(ctx, "transpose kernel");
    if (m->mode == GIP__PM_ROT180)
        return gip__flip_cuda(ctx, src, dst, 1, 1);
    if (m->mode == GIP__PM_CROP)
        return gip__cuda_status(
            ctx,
            cudaMemcpy2DAsync(dst->data, (size_t)dst->stride,
                              (const uint8_t *)src->data + m->oy * src->stride + m->ox * m->px,
                              (size_t)src->stride, (size_t)(dst->width * m->px),
                              (size_t)dst->height, cudaMemcpyDeviceToDevice, gip__stream(ctx)),
            "crop (copy)");
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
